"""Every per-type converter of every layer fails loudly on a primitive type it does not know,
naming it, instead of falling through to a default (they all dispatch through
``icesql.spec.dispatch``)."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from icesql.expressions.literals import convert_literal
from icesql.metadata.manifest_schema import avro_type
from icesql.scan.native_read import default_text, duckdb_type
from icesql.spec import arrow, values
from icesql.spec.dispatch import UnhandledTypeError
from icesql.spec.transforms import murmur3_hash
from icesql.spec.types import PrimitiveType
from icesql.sql.spark_type_names import spark_ddl_type, spark_type


@dataclass(frozen=True)
class Int128Type(PrimitiveType):
    """A primitive type icesql does not know."""

    def __str__(self) -> str:
        return "int128"


CONVERTERS = {
    "to_bytes": lambda t: values.to_bytes(t, 1),
    "from_bytes": lambda t: values.from_bytes(t, b"\x01"),
    "binary_width": values.binary_width,
    "to_json_value": lambda t: values.to_json_value(t, 1),
    "from_json_value": lambda t: values.from_json_value(t, 1),
    "to_python": lambda t: values.to_python(t, 1),
    "from_python": lambda t: values.from_python(t, 1),
    "human_string": lambda t: values.human_string(t, 1),
    "type_to_arrow": arrow.type_to_arrow,
    "to_arrow_array": lambda t: arrow.to_arrow_array(t, [1]),
    "murmur3_hash": lambda t: murmur3_hash(t, 1),
    "convert_literal": lambda t: convert_literal(1, t),
    "avro_type": lambda t: avro_type(t, set()),
    "duckdb_type": duckdb_type,
    "default_text": lambda t: default_text(t, 1),
    "spark_type": spark_type,
    "spark_ddl_type": spark_ddl_type,
}


@pytest.mark.parametrize("name", sorted(CONVERTERS))
def test_an_unknown_primitive_type_is_refused_by_name(name: str) -> None:
    with pytest.raises(UnhandledTypeError, match=r"int128 \(Int128Type\)"):
        CONVERTERS[name](Int128Type())
