"""The error hierarchy: PEP 249's tree exactly, icesql's own errors under it, one root."""

from __future__ import annotations

import inspect

import pytest

from icesql import errors

# PEP 249, "Exceptions": each class and its base
PEP_249 = {
    "Warning": Exception,
    "Error": Exception,
    "InterfaceError": errors.Error,
    "DatabaseError": errors.Error,
    "DataError": errors.DatabaseError,
    "OperationalError": errors.DatabaseError,
    "IntegrityError": errors.DatabaseError,
    "InternalError": errors.DatabaseError,
    "ProgrammingError": errors.DatabaseError,
    "NotSupportedError": errors.DatabaseError,
}
ICESQL = {
    "CommitConflictError": errors.OperationalError,
    "CorruptFileError": errors.OperationalError,
    "NoSuchTableError": errors.ProgrammingError,
    "NoSuchViewError": errors.NoSuchTableError,
    "NoSuchNamespaceError": errors.ProgrammingError,
    "AlreadyExistsError": errors.ProgrammingError,
}


@pytest.mark.parametrize(("name", "base"), [*PEP_249.items(), *ICESQL.items()])
def test_each_error_has_its_base(name: str, base: type) -> None:
    assert getattr(errors, name).__bases__ == (base,)


def test_every_error_but_warning_has_one_root() -> None:
    classes = {
        n: c
        for n, c in inspect.getmembers(errors, inspect.isclass)
        if c.__module__ == errors.__name__
    }
    assert set(classes) == set(PEP_249) | set(ICESQL)
    assert set(errors.__all__) == set(classes)
    assert [n for n, c in classes.items() if not issubclass(c, errors.Error)] == ["Warning"]


def test_corrupt_file_error_names_the_file_and_the_reason() -> None:
    error = errors.CorruptFileError("s3://b/t/metadata/v3.metadata.json", "truncated JSON")
    assert (
        str(error)
        == "corrupt or unreadable file s3://b/t/metadata/v3.metadata.json: truncated JSON"
    )
    assert (error.path, error.reason) == ("s3://b/t/metadata/v3.metadata.json", "truncated JSON")
    with pytest.raises(errors.OperationalError, match="v3.metadata.json"):
        raise error
