"""The settings store: known settings checked when set, defaults shown until set, unknown
keys kept as text (the SET / RESET statements are tested in tests/statements)."""

from __future__ import annotations

import pytest

from icesql.errors import NotSupportedError, ProgrammingError
from icesql.session.settings import KNOWN, NATIVE_PARQUET, PARTITION_OVERWRITE_MODE, Settings


def test_known_settings_read_their_default_until_set():
    settings = Settings()
    assert settings.get(PARTITION_OVERWRITE_MODE) == "STATIC"
    assert settings.partition_overwrite_mode == "static"
    assert settings.native_parquet is True
    assert settings.items() == []  # defaults are not what the session set
    settings.set(PARTITION_OVERWRITE_MODE, " Dynamic ")
    settings.set(NATIVE_PARQUET, "FALSE")
    assert settings.partition_overwrite_mode == "dynamic"
    assert settings.native_parquet is False
    assert settings.items() == [(NATIVE_PARQUET, "FALSE"), (PARTITION_OVERWRITE_MODE, " Dynamic ")]


def test_unknown_keys_are_kept_as_text_and_case_sensitive():
    settings = Settings()
    settings.set("my.Key", "1")
    assert settings.get("my.Key") == "1"
    assert settings.get("my.key") is None
    settings.reset("my.Key")
    assert settings.get("my.Key") is None


@pytest.mark.parametrize(
    "key, value, error",
    [
        (PARTITION_OVERWRITE_MODE, "sometimes", ProgrammingError),
        ("spark.sql.session.timeZone", "Europe/Paris", NotSupportedError),
        ("spark.sql.caseSensitive", "maybe", ProgrammingError),
        ("spark.sql.caseSensitive", "true", NotSupportedError),
    ],
)
def test_a_refused_value_changes_nothing(key, value, error):
    settings = Settings()
    with pytest.raises(error):
        settings.set(key, value)
    assert settings.get(key) == KNOWN[key].default
    assert settings.items() == []


def test_reset_forgets_everything():
    settings = Settings()
    settings.set("a", "1")
    settings.set(PARTITION_OVERWRITE_MODE, "dynamic")
    settings.reset()
    assert settings.items() == []
    assert settings.partition_overwrite_mode == "static"
