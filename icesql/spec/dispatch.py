"""The one dispatch on primitive types: a table of what one operation does for each type.

Every per-type operation of icesql (binary and JSON single values, Python and Arrow values,
Arrow, Avro and DuckDB types, Spark type names, literal conversion ...) is a
``PerPrimitiveType`` table keyed by type class, as pyiceberg's ``conversions.py`` registers
one function per type with ``singledispatch``. A table is complete by construction: one that
leaves out a class of ``PRIMITIVE_TYPES`` fails when its module is imported, naming what it
misses, so a new primitive type is added table by table, never forgotten by one. A type no
table knows (a ``PrimitiveType`` subclass outside ``PRIMITIVE_TYPES``) raises
``UnhandledTypeError`` naming the type and the operation, instead of falling through to a
default::

    >>> from icesql.spec.types import DateType, IntegerType, LongType, PrimitiveType, StringType
    >>> width = PerPrimitiveType("byte width", {(IntegerType, DateType): 4, LongType: 8},
    ...                          complete=False)
    >>> width[DateType()], width.get(StringType())
    (4, None)
    >>> class Int128(PrimitiveType):
    ...     pass
    >>> width[Int128()]
    Traceback (most recent call last):
    ...
    icesql.spec.dispatch.UnhandledTypeError: byte width has no case for Iceberg type Int128

Cases are plain values (``table[t]``) or functions of the type and more arguments
(``table(t, *args)`` calls ``case(t, *args)``). Nested classes (struct, list, map) may have
cases too; completeness is only asked of the primitive ones. The lookup is one dict access
on ``type(t)``, as cheap as the ``isinstance`` chains it replaces.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Generic, TypeVar

from icesql.errors import NotSupportedError
from icesql.spec.types import PRIMITIVE_TYPES, IcebergType

__all__ = ["PerPrimitiveType", "UnhandledTypeError", "constant"]

C = TypeVar("C")


class UnhandledTypeError(NotSupportedError):
    """An operation met a type it has no case for (a type icesql does not know yet)."""

    def __init__(self, operation: str, t: object) -> None:
        super().__init__(f"{operation} has no case for Iceberg type {_describe(t)}")
        self.operation = operation
        self.type = t


def _describe(t: object) -> str:
    """``decimal(9,2) (DecimalType)``; a class without a spec string by its name alone."""
    cls = type(t)
    name = cls.__name__
    if cls.__str__ is object.__str__ and cls.__repr__ is object.__repr__:
        return name
    text = str(t)
    return name if text in (name, f"{name}()") else f"{text} ({name})"


class PerPrimitiveType(Generic[C]):
    """What ``operation`` does for each type class (see the module docstring)."""

    __slots__ = ("operation", "_cases")

    def __init__(
        self,
        operation: str,
        cases: Mapping[type | tuple[type, ...], C],
        complete: bool = True,
    ) -> None:
        """``cases`` maps a type class, or a tuple of classes sharing a case, to the case.
        Unless ``complete`` is False, every class of ``PRIMITIVE_TYPES`` needs one."""
        table: dict[type, C] = {}
        for key, case in cases.items():
            for cls in key if isinstance(key, tuple) else (key,):
                if cls in table:
                    raise TypeError(f"{operation}: two cases for {cls.__name__}")
                table[cls] = case
        missing = [cls.__name__ for cls in PRIMITIVE_TYPES if cls not in table]
        if complete and missing:
            raise TypeError(f"{operation} has no case for {', '.join(missing)}")
        self.operation = operation
        self._cases = table

    def __getitem__(self, t: IcebergType) -> C:
        """The case of ``t``'s class; UnhandledTypeError when there is none."""
        try:
            return self._cases[type(t)]
        except KeyError:
            raise UnhandledTypeError(self.operation, t) from None

    def get(self, t: IcebergType, default: Any = None) -> Any:
        """The case of ``t``'s class, or ``default`` (for tables built ``complete=False``
        over a subset, where a missing class means "not this operation's business")."""
        return self._cases.get(type(t), default)

    def __call__(self, t: IcebergType, *args: Any) -> Any:
        """Call the case of ``t``'s class with ``t`` and ``args``."""
        try:
            case = self._cases[type(t)]
        except KeyError:
            raise UnhandledTypeError(self.operation, t) from None
        return case(t, *args)  # type: ignore[operator]


def constant(value: Any) -> Callable[..., Any]:
    """A case that returns ``value`` whatever the type and arguments."""
    return lambda *_: value
