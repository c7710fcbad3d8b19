"""The settings that change Spark's answers: refused at any value icesql cannot answer for,
by SET, ``connect(spark_conf=)`` and the shell's ``--conf``; accepted at the value icesql
implements. (The table's keys, defaults and versions are checked against Spark's own config
entries in tests/interop/test_answer_settings_spark.py.)"""

from __future__ import annotations

import re

import pytest

import icesql
from icesql.errors import NotSupportedError, ProgrammingError
from icesql.session.answer_settings import ANSWER_SETTINGS, TIME_ZONE
from icesql.session.settings import KNOWN, Settings, spark_conf_defaults
from icesql.shell import main

ROWS = {a.key: a for a in ANSWER_SETTINGS}


def _refused_value(row) -> str | None:
    """A value Spark takes for ``row`` that icesql does not answer for (None: it answers for
    every value)."""
    if row.valid is None:
        return "America/Los_Angeles"
    return next((v for v in row.valid if v not in row.implemented), None)


@pytest.mark.parametrize("row", ANSWER_SETTINGS, ids=lambda r: r.key)
def test_each_answer_setting_takes_only_what_icesql_implements(row):
    settings = Settings()
    refused = _refused_value(row)
    if refused is not None:
        value = refused.upper()
        with pytest.raises(
            NotSupportedError, match=f"^{re.escape(row.key)} = {value} is not supported"
        ):
            settings.set(row.key, f" {value} ")
        assert settings.items() == []
    for implemented in row.implemented:
        settings.set(row.key, implemented.upper())
        assert settings.get(row.key) == implemented.upper()
    assert row.default.lower() in row.implemented  # Spark's default (UTC here) is answered
    assert KNOWN[row.key].default == row.default


def test_values_spark_itself_refuses_are_programming_errors():
    settings = Settings()
    with pytest.raises(ProgrammingError, match="should be one of true, false, but was yes"):
        settings.set("spark.sql.ansi.enabled", "yes")
    with pytest.raises(ProgrammingError, match="should be one of exception, corrected, legacy"):
        settings.set("spark.sql.legacy.timeParserPolicy", "sometimes")


def test_the_issue_settings_are_in_the_table():
    for key in (
        "spark.sql.ansi.enabled",
        "spark.sql.session.timeZone",
        "spark.sql.decimalOperations.allowPrecisionLoss",
        "spark.sql.legacy.setopsPrecedence.enabled",
        "spark.sql.legacy.parser.havingWithoutGroupByAsWhere",
        "spark.sql.caseSensitive",
        "spark.sql.parser.escapedStringLiterals",
        "spark.sql.legacy.timeParserPolicy",
        "spark.sql.storeAssignmentPolicy",
    ):
        assert key in ROWS


def test_ansi_mode_is_refused_and_the_default_answers_as_spark(tmp_path):
    with icesql.connect(str(tmp_path)) as con:
        with pytest.raises(
            icesql.NotSupportedError, match="spark.sql.ansi.enabled = true is not supported"
        ):
            con.execute("SET spark.sql.ansi.enabled=true")
        assert con.execute("SET").fetchall() == []
        con.execute("SET spark.sql.ansi.enabled = false")
        # Spark 3.5.8 without ANSI mode: NULL, NULL (with it: DIVIDE_BY_ZERO, CAST_INVALID_INPUT)
        assert con.execute("SELECT 1/0, CAST('abc' AS INT)").fetchall() == [(None, None)]


def test_settings_that_only_tune_spark_are_still_accepted(tmp_path):
    with icesql.connect(str(tmp_path)) as con:
        for key, value in (
            ("spark.sql.shuffle.partitions", "7"),
            ("spark.sql.adaptive.enabled", "false"),
            ("spark.sql.adaptive.coalescePartitions.enabled", "false"),
        ):
            assert con.execute(f"SET {key} = {value}").fetchall() == [(key, value)]


def _conf(tmp_path, **extra):
    return {
        "spark.sql.catalog.local": "org.apache.iceberg.spark.SparkCatalog",
        "spark.sql.catalog.local.type": "hadoop",
        "spark.sql.catalog.local.warehouse": str(tmp_path),
        **extra,
    }


def test_spark_conf_refuses_what_set_refuses(tmp_path):
    conf = _conf(tmp_path, **{TIME_ZONE: "America/Los_Angeles"})
    with pytest.raises(icesql.NotSupportedError, match=f"{TIME_ZONE} = America/Los_Angeles"):
        icesql.connect(spark_conf=conf)
    path = tmp_path / "spark-defaults.conf"
    text = "".join(f"{k} {v}\n" for k, v in _conf(tmp_path).items())
    path.write_text(text + "spark.sql.legacy.setopsPrecedence.enabled true\n")
    with pytest.raises(icesql.NotSupportedError, match="setopsPrecedence.enabled = true"):
        icesql.connect(spark_conf=path)


def test_spark_conf_settings_become_the_connections_defaults(tmp_path):
    mode = "spark.sql.sources.partitionOverwriteMode"
    conf = _conf(tmp_path, **{TIME_ZONE: "UTC", mode: "dynamic", "spark.sql.ansi.enabled": "false"})
    with icesql.connect(spark_conf=conf) as con:
        assert con.execute(f"SET {mode}").fetchall() == [(mode, "dynamic")]
        con.execute(f"SET {mode} = static")
        con.execute("RESET")
        assert con.execute(f"SET {mode}").fetchall() == [(mode, "dynamic")]
        assert con.execute("SET").fetchall() == []  # defaults, not what the session set
    assert spark_conf_defaults({"spark.sql.shuffle.partitions": "3", "x.y": "1"}) == {}


def test_the_shell_refuses_an_answer_setting_by_name(tmp_path, capsys):
    args = [str(tmp_path), "--conf", "spark.sql.ansi.enabled=true", "-c", "SELECT 1"]
    assert main(args) == 1
    assert "spark.sql.ansi.enabled = true is not supported" in capsys.readouterr().err
    conf = tmp_path / "spark-defaults.conf"
    conf.write_text("".join(f"{k} {v}\n" for k, v in _conf(tmp_path).items()))
    conf.write_text(conf.read_text() + f"{TIME_ZONE} Europe/Paris\n")
    assert main(["--spark-conf", str(conf), "-c", "SELECT 1"]) == 1
    assert f"{TIME_ZONE} = Europe/Paris is not supported" in capsys.readouterr().err
