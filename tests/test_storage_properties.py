"""Iceberg's storage property names become the fsspec arguments of each store."""

from __future__ import annotations

import pytest

from icesql.storage_properties import fsspec_options, protocol_of

S3 = {
    "s3.endpoint": "http://127.0.0.1:9000",
    "s3.access-key-id": "id",
    "s3.secret-access-key": "secret",
    "s3.session-token": "token",
    "s3.region": "eu-west-1",
    "s3.path-style-access": "true",
}


@pytest.mark.parametrize("protocol", ["s3", "s3a", "s3n"])
def test_s3_properties(protocol):
    assert fsspec_options(protocol, S3) == {
        "use_listings_cache": False,
        "key": "id",
        "secret": "secret",
        "token": "token",
        "client_kwargs": {"endpoint_url": "http://127.0.0.1:9000", "region_name": "eu-west-1"},
        "config_kwargs": {"s3": {"addressing_style": "path"}},
    }


def test_unset_and_false_properties_leave_the_stores_defaults():
    fresh = {"use_listings_cache": False}  # a catalog must see other writers' files at once
    assert fsspec_options("s3", {}) == fresh
    assert fsspec_options("s3", {"s3.path-style-access": "false", "s3.anonymous": "no"}) == fresh
    assert fsspec_options("s3", {"client.region": "us-east-2"}) == {
        **fresh,
        "client_kwargs": {"region_name": "us-east-2"},
    }
    assert fsspec_options("s3", {"s3.anonymous": "TRUE"}) == {**fresh, "anon": True}


def test_gcs_and_adls_properties():
    fresh = {"use_listings_cache": False}
    assert fsspec_options("gs", {"gcs.project-id": "p", "gcs.service.host": "http://h"}) == {
        **fresh,
        "project": "p",
        "endpoint_url": "http://h",
    }
    assert fsspec_options("gs", {"gcs.no-auth": "true"}) == {**fresh, "token": "anon"}
    assert fsspec_options("abfss", {"adls.account-name": "a", "adls.sas-token": "s"}) == {
        **fresh,
        "account_name": "a",
        "sas_token": "s",
    }


def test_other_protocols_and_stores_ignore_each_others_properties():
    assert fsspec_options("file", S3) == {}
    assert fsspec_options("gs", S3) == {"use_listings_cache": False}
    assert protocol_of("/tmp/x") == "file"
    assert protocol_of("S3A://b/k") == "s3a"
