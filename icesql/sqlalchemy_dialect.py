"""A SQLAlchemy 2 dialect over the DB-API module, so pandas' ``read_sql``, jupysql and other
SQLAlchemy tools reach Iceberg tables.

URLs: ``icesql:///relative/warehouse`` or ``icesql:////absolute/warehouse`` open the file-system
catalog; ``icesql+sql:///warehouse?uri=sqlite:///cat.db`` (or ``+rest``, ``+glue``, ``+hadoop``)
names the catalog type; other query keys (``name``, ``uri``, ``s3.endpoint``...) are
``connect()``'s keywords or, failing that, Iceberg catalog properties.

Statements are compiled as SQLAlchemy's default SQL with Spark's backtick quoting and qmark
parameters; reflection reads the catalog directly (namespaces are schemas, ``default`` the
default one; identifier fields are the primary key).

>>> import tempfile
>>> import sqlalchemy as sa
>>> warehouse = tempfile.TemporaryDirectory()
>>> engine = sa.create_engine(f"icesql:///{warehouse.name}")
>>> with engine.connect() as c:
...     c.execute(sa.text("SELECT 1 + :n AS x"), {"n": 1}).all()
[(2,)]
>>> engine.dispose()
>>> warehouse.cleanup()
"""

from __future__ import annotations

from types import ModuleType
from typing import TYPE_CHECKING, Any

from sqlalchemy import types as sqltypes
from sqlalchemy.engine import default
from sqlalchemy.engine.url import URL
from sqlalchemy.sql import compiler

from icesql.errors import NoSuchTableError
from icesql.spec.types import (
    BinaryType,
    BooleanType,
    DateType,
    DecimalType,
    DoubleType,
    FixedType,
    FloatType,
    IcebergType,
    IntegerType,
    ListType,
    LongType,
    StringType,
    TimestampNanoType,
    TimestampType,
    TimestamptzNanoType,
    TimestamptzType,
    TimeType,
    UUIDType,
)

if TYPE_CHECKING:
    from sqlalchemy.engine.interfaces import (
        ReflectedColumn,
        ReflectedForeignKeyConstraint,
        ReflectedIndex,
        ReflectedPrimaryKeyConstraint,
    )

__all__ = ["IcesqlDialect", "sqlalchemy_type"]

_CONNECT_KEYWORDS = ("name", "uri", "default", "pyiceberg_config", "spark_conf")


def sqlalchemy_type(t: IcebergType) -> sqltypes.TypeEngine:
    """The SQLAlchemy type of an Iceberg type (nested types other than lists: NullType)."""
    simple: dict[type, sqltypes.TypeEngine] = {
        BooleanType: sqltypes.Boolean(),
        IntegerType: sqltypes.Integer(),
        LongType: sqltypes.BigInteger(),
        FloatType: sqltypes.Float(),
        DoubleType: sqltypes.Double(),
        DateType: sqltypes.Date(),
        TimeType: sqltypes.Time(),
        TimestampType: sqltypes.DateTime(),
        TimestampNanoType: sqltypes.DateTime(),
        TimestamptzType: sqltypes.DateTime(timezone=True),
        TimestamptzNanoType: sqltypes.DateTime(timezone=True),
        StringType: sqltypes.String(),
        UUIDType: sqltypes.Uuid(),
        BinaryType: sqltypes.LargeBinary(),
        FixedType: sqltypes.LargeBinary(),
    }
    if isinstance(t, DecimalType):
        return sqltypes.Numeric(t.precision, t.scale)
    if isinstance(t, ListType):
        return sqltypes.ARRAY(sqlalchemy_type(t.element_type))
    found = simple.get(type(t))
    return found if found is not None else sqltypes.NullType()


class IcesqlIdentifierPreparer(compiler.IdentifierPreparer):
    """Spark quotes names with backticks (a double-quoted name is a string there)."""

    def __init__(self, dialect: default.DefaultDialect):
        super().__init__(dialect, initial_quote="`", escape_quote="`")


class IcesqlDialect(default.DefaultDialect):
    """``icesql://`` for SQLAlchemy 2 (module docstring)."""

    name = "icesql"
    driver = "icesql"
    paramstyle = "qmark"
    preparer: type[compiler.IdentifierPreparer] = IcesqlIdentifierPreparer
    default_schema_name = "default"
    supports_statement_cache = True
    supports_native_boolean = True
    supports_native_decimal = True
    supports_sequences = False
    supports_sane_rowcount = True
    supports_sane_multi_rowcount = False
    supports_default_values = False
    supports_empty_insert = False
    supports_multivalues_insert = True
    postfetch_lastrowid = False

    @classmethod
    def import_dbapi(cls) -> ModuleType:
        import icesql

        return icesql

    def create_connect_args(self, url: URL) -> tuple[list[Any], dict[str, Any]]:
        kwargs: dict[str, Any] = {}
        if url.database:
            kwargs["warehouse"] = url.database
        driver = url.get_driver_name()
        if driver and driver != self.driver:
            kwargs["catalog"] = driver
        properties: dict[str, str] = {}
        for key, value in url.query.items():
            value = value if isinstance(value, str) else value[-1]
            if key == "catalog" or key in _CONNECT_KEYWORDS:
                kwargs[key] = value
            else:
                properties[key] = value
        if properties:
            kwargs["properties"] = properties
        return [], kwargs

    def _get_server_version_info(self, connection: Any) -> tuple[int, ...]:
        import icesql

        return tuple(int(p) for p in icesql.__version__.split(".")[:3] if p.isdigit())

    def _get_default_schema_name(self, connection: Any) -> str:
        return ".".join(_icesql(connection).engine.default_namespace)

    def do_rollback(self, dbapi_connection: Any) -> None:
        pass  # every statement has committed on its own (icesql.dbapi)

    # -- reflection --------------------------------------------------------------------------
    def get_schema_names(self, connection: Any, **kw: Any) -> list[str]:
        catalog = _icesql(connection).catalog
        return sorted(".".join(ns) for ns in _all_namespaces(catalog, ()))

    def get_table_names(self, connection: Any, schema: str | None = None, **kw: Any) -> list[str]:
        catalog = _icesql(connection).catalog
        namespace = self._namespace(connection, schema)
        if not catalog.namespace_exists(namespace):
            return []
        return sorted(t[-1] for t in catalog.list_tables(namespace))

    def get_view_names(self, connection: Any, schema: str | None = None, **kw: Any) -> list[str]:
        return []  # icesql has no views yet

    def has_table(
        self, connection: Any, table_name: str, schema: str | None = None, **kw: Any
    ) -> bool:
        namespace = self._namespace(connection, schema)
        return _icesql(connection).catalog.table_exists((*namespace, table_name))

    def get_columns(
        self, connection: Any, table_name: str, schema: str | None = None, **kw: Any
    ) -> list[ReflectedColumn]:
        table_schema = self._table_schema(connection, table_name, schema)
        return [
            {
                "name": f.name,
                "type": sqlalchemy_type(f.type),
                "nullable": not f.required,
                "default": None,
                "comment": f.doc,
            }
            for f in table_schema.fields
        ]

    def get_pk_constraint(
        self, connection: Any, table_name: str, schema: str | None = None, **kw: Any
    ) -> ReflectedPrimaryKeyConstraint:
        table_schema = self._table_schema(connection, table_name, schema)
        return {"constrained_columns": table_schema.identifier_field_names(), "name": None}

    def get_foreign_keys(
        self, connection: Any, table_name: str, schema: str | None = None, **kw: Any
    ) -> list[ReflectedForeignKeyConstraint]:
        return []

    def get_indexes(
        self, connection: Any, table_name: str, schema: str | None = None, **kw: Any
    ) -> list[ReflectedIndex]:
        return []

    def _namespace(self, connection: Any, schema: str | None) -> tuple[str, ...]:
        if schema is None:
            return tuple(_icesql(connection).engine.default_namespace)
        return tuple(schema.split("."))

    def _table_schema(self, connection: Any, table_name: str, schema: str | None) -> Any:
        from sqlalchemy.exc import NoSuchTableError as SANoSuchTableError

        identifier = (*self._namespace(connection, schema), table_name)
        try:
            return _icesql(connection).catalog.load_table(identifier).metadata.schema()
        except NoSuchTableError:
            raise SANoSuchTableError(".".join(identifier)) from None


def _icesql(connection: Any) -> Any:
    """The icesql DB-API connection under a SQLAlchemy connection (or a raw DB-API one)."""
    raw = getattr(connection, "connection", connection)
    return getattr(raw, "dbapi_connection", raw)


def _all_namespaces(catalog: Any, parent: tuple[str, ...]) -> list[tuple[str, ...]]:
    out = []
    for ns in catalog.list_namespaces(parent):
        out.append(ns)
        out.extend(_all_namespaces(catalog, ns))
    return out
