"""The AWS Glue catalog, keeping tables as Iceberg Java's ``GlueCatalog`` does (boto3).

A namespace is a Glue database (one level); a table is a Glue table of type
``EXTERNAL_TABLE`` whose parameters say ``table_type=ICEBERG`` and hold
``metadata_location`` / ``previous_metadata_location``, so Athena, EMR, Spark's GlueCatalog and
PyIceberg's see the same tables. A commit is ``UpdateTable`` with the ``VersionId`` the
table had when its pointer was read: Glue refuses the update when another commit moved the
table meanwhile (``ConcurrentModificationException``), which is the lost race. New tables go
to the database's ``LocationUri`` or ``<warehouse>/<database>.db/<table>`` (Java's layout).
Glue has no rename: it is a create under the new name and a delete of the old, as in Java.

Properties (PyIceberg's names): ``glue.endpoint``, ``glue.region`` (or ``client.region``),
``glue.access-key-id``, ``glue.secret-access-key``, ``glue.session-token`` (or the
``client.*`` forms), ``glue.id`` (the catalog's AWS account id); otherwise boto3's own
environment and profile chain.
"""

from __future__ import annotations

from collections.abc import Mapping
from collections.abc import Set as AbstractSet
from typing import Any

from icesql.catalog.base import CommitStateUnknownError, Identifier
from icesql.catalog.metastore import MetastoreCatalog
from icesql.errors import (
    AlreadyExistsError,
    NoSuchNamespaceError,
    NoSuchTableError,
    NotSupportedError,
    OperationalError,
    ProgrammingError,
)
from icesql.io import FileIO

__all__ = ["GlueCatalog"]

ICEBERG = "ICEBERG"
_CLIENT_KEYS = {
    "endpoint_url": ("glue.endpoint",),
    "region_name": ("glue.region", "client.region"),
    "aws_access_key_id": ("glue.access-key-id", "client.access-key-id"),
    "aws_secret_access_key": ("glue.secret-access-key", "client.secret-access-key"),
    "aws_session_token": ("glue.session-token", "client.session-token"),
}


def glue_client_arguments(properties: Mapping[str, str]) -> dict[str, str]:
    """boto3 ``client("glue", ...)`` arguments from the catalog's properties."""
    out = {}
    for argument, keys in _CLIENT_KEYS.items():
        for key in keys:
            if properties.get(key):
                out[argument] = str(properties[key])
                break
    return out


class GlueCatalog(MetastoreCatalog):
    """Iceberg tables in the AWS Glue Data Catalog."""

    def __init__(
        self,
        name: str,
        warehouse: str | None = None,
        io: FileIO | None = None,
        properties: Mapping[str, str] | None = None,
        client: Any = None,
    ) -> None:
        super().__init__(name, warehouse, io)
        props = dict(properties or {})
        if client is None:
            try:
                import boto3
            except ImportError as e:
                raise NotSupportedError(
                    f"catalog {name!r}: the Glue catalog needs boto3 (pip install 'icesql[glue]')"
                ) from e
            client = boto3.client("glue", **glue_client_arguments(props))
        self.client = client
        self._catalog_id = {"CatalogId": props["glue.id"]} if props.get("glue.id") else {}
        self._errors = client.exceptions

    # -- calls ------------------------------------------------------------------------------
    def _call(self, operation: str, **kwargs: Any) -> dict[str, Any]:
        try:
            return getattr(self.client, operation)(**self._catalog_id, **kwargs)
        except self._errors.ClientError:
            raise
        except Exception as e:
            raise OperationalError(f"Glue catalog {self.name!r}: {operation} failed: {e}") from e

    def _database(self, namespace: Identifier) -> str:
        if len(namespace) != 1:
            raise NotSupportedError(
                f"Glue catalog {self.name!r}: namespace {'.'.join(namespace)} has"
                f" {len(namespace)} levels; Glue databases have one"
            )
        self.check_identifier(namespace, "namespace")
        return namespace[0]

    def _glue_table(self, identifier: Identifier) -> dict[str, Any] | None:
        if len(identifier) != 2:
            return None
        try:
            table = self._call(
                "get_table", DatabaseName=self._database(identifier[:1]), Name=identifier[1]
            )
        except self._errors.EntityNotFoundException:
            return None
        return table["Table"]

    # -- pointers ---------------------------------------------------------------------------
    def _pointer(self, identifier: Identifier) -> str | None:
        table = self._glue_table(identifier)
        if table is None:
            return None
        params = table.get("Parameters") or {}
        if str(params.get("table_type", "")).upper() != ICEBERG:
            return None
        return params.get("metadata_location")

    def _table_input(
        self, name: str, location: str, previous: str | None, base: dict | None
    ) -> dict:
        params = dict((base or {}).get("Parameters") or {})
        params.update({"table_type": ICEBERG, "metadata_location": location})
        if previous:
            params["previous_metadata_location"] = previous
        table_input: dict[str, Any] = {
            "Name": name,
            "TableType": "EXTERNAL_TABLE",
            "Parameters": params,
        }
        for key in ("Description", "Owner", "StorageDescriptor"):
            if base and base.get(key):
                table_input[key] = base[key]
        return table_input

    def _insert_pointer(self, identifier: Identifier, location: str) -> None:
        database = self._database(identifier[:1])
        try:
            self._call(
                "create_table",
                DatabaseName=database,
                TableInput=self._table_input(identifier[1], location, None, None),
            )
        except self._errors.AlreadyExistsException:
            raise AlreadyExistsError(f"table already exists: {self.describe(identifier)}") from None
        except self._errors.EntityNotFoundException:
            raise NoSuchNamespaceError(
                f"namespace not found: {self.describe(identifier[:1])}"
            ) from None

    def _swap_pointer(self, identifier: Identifier, expected: str, location: str) -> bool:
        table = self._glue_table(identifier)
        if table is None or (table.get("Parameters") or {}).get("metadata_location") != expected:
            return False
        version = {"VersionId": table["VersionId"]} if table.get("VersionId") else {}
        try:
            self._call(
                "update_table",
                DatabaseName=identifier[0],
                TableInput=self._table_input(identifier[1], location, expected, table),
                **version,
            )
        except self._errors.ConcurrentModificationException:
            return False
        except self._errors.EntityNotFoundException:
            return False
        except OperationalError as e:
            raise CommitStateUnknownError(
                f"commit to {self.describe(identifier)} may have succeeded: {e}"
            ) from e
        return True

    def _delete_pointer(self, identifier: Identifier) -> bool:
        if self._pointer(identifier) is None:
            return False
        try:
            self._call("delete_table", DatabaseName=identifier[0], Name=identifier[1])
        except self._errors.EntityNotFoundException:
            return False
        return True

    # -- tables -----------------------------------------------------------------------------
    def default_table_location(self, identifier: Identifier) -> str:
        """The database's ``LocationUri``, else ``<warehouse>/<database>.db`` (Java's layout)."""
        self.check_identifier(identifier)
        database = self._database(identifier[:-1])
        base = self._database_info(identifier[:-1]).get("LocationUri")
        if not base:
            if self.warehouse is None:
                raise ProgrammingError(
                    f"cannot place table {self.describe(identifier)}: neither the database nor"
                    " the catalog has a location; connect with warehouse=... or give a LOCATION"
                )
            base = f"{self.warehouse}/{database}.db"
        return f"{str(base).rstrip('/')}/{identifier[-1]}"

    def list_tables(self, namespace: Identifier) -> list[Identifier]:
        database = self._database(namespace)
        self._database_info(namespace)
        tables, token = [], None
        while True:
            page = self._call(
                "get_tables", DatabaseName=database, **({"NextToken": token} if token else {})
            )
            for t in page.get("TableList", []):
                if str((t.get("Parameters") or {}).get("table_type", "")).upper() == ICEBERG:
                    tables.append((database, t["Name"]))
            token = page.get("NextToken")
            if not token:
                return sorted(tables)

    def rename_table(self, source: Identifier, target: Identifier) -> None:
        self.check_identifier(target)
        table = self._glue_table(source)
        if table is None or self._pointer(source) is None:
            raise NoSuchTableError(f"table not found: {self.describe(source)}")
        params = table.get("Parameters") or {}
        new_input = self._table_input(
            target[1], params["metadata_location"], params.get("previous_metadata_location"), table
        )
        try:
            self._call(
                "create_table", DatabaseName=self._database(target[:1]), TableInput=new_input
            )
        except self._errors.AlreadyExistsException:
            raise AlreadyExistsError(f"table already exists: {self.describe(target)}") from None
        except self._errors.EntityNotFoundException:
            raise NoSuchNamespaceError(
                f"namespace not found: {self.describe(target[:1])}"
            ) from None
        try:
            self._call("delete_table", DatabaseName=source[0], Name=source[1])
        except BaseException:
            self._call("delete_table", DatabaseName=target[0], Name=target[1])
            raise

    # -- namespaces -------------------------------------------------------------------------
    def _database_info(self, namespace: Identifier) -> dict[str, Any]:
        try:
            return self._call("get_database", Name=self._database(namespace))["Database"]
        except self._errors.EntityNotFoundException:
            raise NoSuchNamespaceError(f"namespace not found: {self.describe(namespace)}") from None

    def namespace_exists(self, namespace: Identifier) -> bool:
        if not namespace:
            return True
        if len(namespace) != 1:
            return False
        try:
            self._database_info(namespace)
        except NoSuchNamespaceError:
            return False
        return True

    def list_namespaces(self, parent: Identifier = ()) -> list[Identifier]:
        if parent:
            self._database_info(parent)
            return []  # Glue databases do not nest
        names: list[Identifier] = []
        token = None
        while True:
            page = self._call("get_databases", **({"NextToken": token} if token else {}))
            names.extend((d["Name"],) for d in page.get("DatabaseList", []))
            token = page.get("NextToken")
            if not token:
                return sorted(names)

    def create_namespace(
        self, namespace: Identifier, properties: dict[str, str] | None = None
    ) -> None:
        database = self._database(namespace)
        props = dict(properties or {})
        database_input: dict[str, Any] = {"Name": database}
        if "location" in props:
            database_input["LocationUri"] = props.pop("location")
        if "comment" in props:
            database_input["Description"] = props.pop("comment")
        if props:
            database_input["Parameters"] = props
        try:
            self._call("create_database", DatabaseInput=database_input)
        except self._errors.AlreadyExistsException:
            raise AlreadyExistsError(
                f"namespace already exists: {self.describe(namespace)}"
            ) from None

    def drop_namespace(self, namespace: Identifier) -> None:
        database = self._database(namespace)
        self._database_info(namespace)
        page = self._call("get_tables", DatabaseName=database, MaxResults=1)
        if page.get("TableList"):
            raise ProgrammingError(
                f"cannot drop namespace {self.describe(namespace)}: it is not empty"
            )
        self._call("delete_database", Name=database)

    def namespace_properties(self, namespace: Identifier) -> dict[str, str]:
        info = self._database_info(namespace)
        props = dict(info.get("Parameters") or {})
        if info.get("LocationUri"):
            props["location"] = info["LocationUri"]
        if info.get("Description"):
            props["comment"] = info["Description"]
        return dict(sorted(props.items()))

    def update_namespace_properties(
        self,
        namespace: Identifier,
        removals: AbstractSet[str] = frozenset(),
        updates: dict[str, str] | None = None,
    ) -> None:
        props = self.namespace_properties(namespace)
        for key in removals:
            props.pop(key, None)
        props.update(updates or {})
        database_input: dict[str, Any] = {"Name": self._database(namespace)}
        if "location" in props:
            database_input["LocationUri"] = props.pop("location")
        if "comment" in props:
            database_input["Description"] = props.pop("comment")
        database_input["Parameters"] = props
        self._call("update_database", Name=database_input["Name"], DatabaseInput=database_input)
