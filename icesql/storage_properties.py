"""fsspec options from Iceberg's storage properties, the names Spark and PyIceberg users set.

A catalog's properties (``spark.sql.catalog.<name>.s3.endpoint``, a ``.pyiceberg.yaml``
catalog, ``icesql.connect(properties=...)``) configure the object stores its tables live in:

* ``s3://`` (also ``s3a://``, ``s3n://``) through s3fs: ``s3.endpoint``, ``s3.access-key-id``,
  ``s3.secret-access-key``, ``s3.session-token``, ``s3.region`` (or ``client.region``),
  ``s3.path-style-access``, ``s3.anonymous``;
* ``gs://`` through gcsfs: ``gcs.project-id``, ``gcs.oauth2.token``, ``gcs.service.host``,
  ``gcs.no-auth``;
* ``abfs://`` / ``abfss://`` / ``az://`` through adlfs: ``adls.account-name``,
  ``adls.account-key``, ``adls.sas-token``, ``adls.connection-string``, ``adls.tenant-id``,
  ``adls.client-id``, ``adls.client-secret``.

What is not set falls back to the store's own environment (``AWS_ACCESS_KEY_ID``,
``AWS_ENDPOINT_URL``, ``AWS_REGION``, ``GOOGLE_APPLICATION_CREDENTIALS``,
``AZURE_STORAGE_*`` ...), which the fsspec implementations read themselves.

>>> fsspec_options("s3", {"s3.endpoint": "http://127.0.0.1:9000", "s3.path-style-access": "true"})
{'use_listings_cache': False, 'client_kwargs': {'endpoint_url': 'http://127.0.0.1:9000'}, 'config_kwargs': {'s3': {'addressing_style': 'path'}}}
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = [
    "ADLS_PROTOCOLS",
    "GCS_PROTOCOLS",
    "OBJECT_STORE_PROTOCOLS",
    "S3_PROTOCOLS",
    "fsspec_options",
    "protocol_of",
]

S3_PROTOCOLS = frozenset({"s3", "s3a", "s3n"})
GCS_PROTOCOLS = frozenset({"gs", "gcs"})
ADLS_PROTOCOLS = frozenset({"abfs", "abfss", "az", "adl"})
OBJECT_STORE_PROTOCOLS = S3_PROTOCOLS | GCS_PROTOCOLS | ADLS_PROTOCOLS
# fsspec caches folder listings; a catalog must see other writers' commits at once
_NO_LISTINGS_CACHE = {"use_listings_cache": False}

_TRUE = ("true", "1", "yes")


def protocol_of(path: str) -> str:
    """``s3`` for ``s3://bucket/key``; ``file`` for a path without a scheme."""
    return path.split("://", 1)[0].lower() if "://" in path else "file"


def fsspec_options(protocol: str, properties: Mapping[str, str]) -> dict[str, Any]:
    """The fsspec file system arguments that ``properties`` mean for ``protocol``."""
    if protocol in S3_PROTOCOLS:
        return _NO_LISTINGS_CACHE | _s3(properties)
    if protocol in GCS_PROTOCOLS:
        return (
            _NO_LISTINGS_CACHE
            | _renamed(
                properties,
                {
                    "gcs.project-id": "project",
                    "gcs.oauth2.token": "token",
                    "gcs.service.host": "endpoint_url",
                },
            )
            | ({"token": "anon"} if _flag(properties, "gcs.no-auth") else {})
        )
    if protocol in ADLS_PROTOCOLS:
        return _NO_LISTINGS_CACHE | _renamed(
            properties,
            {
                "adls.account-name": "account_name",
                "adls.account-key": "account_key",
                "adls.sas-token": "sas_token",
                "adls.connection-string": "connection_string",
                "adls.tenant-id": "tenant_id",
                "adls.client-id": "client_id",
                "adls.client-secret": "client_secret",
            },
        )
    return {}


def _s3(properties: Mapping[str, str]) -> dict[str, Any]:
    options = _renamed(
        properties,
        {
            "s3.access-key-id": "key",
            "s3.secret-access-key": "secret",
            "s3.session-token": "token",
        },
    )
    client = _renamed(properties, {"s3.endpoint": "endpoint_url"})
    region = properties.get("s3.region") or properties.get("client.region")
    if region:
        client["region_name"] = str(region)
    if client:
        options["client_kwargs"] = client
    if _flag(properties, "s3.path-style-access"):
        options["config_kwargs"] = {"s3": {"addressing_style": "path"}}
    if _flag(properties, "s3.anonymous"):
        options["anon"] = True
    return options


def _renamed(properties: Mapping[str, str], names: Mapping[str, str]) -> dict[str, Any]:
    return {ours: str(properties[key]) for key, ours in names.items() if properties.get(key)}


def _flag(properties: Mapping[str, str], key: str) -> bool:
    return str(properties.get(key, "")).strip().lower() in _TRUE
