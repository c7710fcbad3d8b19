"""What ``icesql serve`` refuses before doing any work: oversized bodies, deeply nested JSON,
and names no file system or catalog query could hold.

A request that passes these checks is small enough to parse, walk and store without running
out of memory, stack or path length: a body over ``max_body_bytes`` is refused with 413, JSON
nested deeper than ``max_json_depth`` with 400 (parsing it would recurse once per level), a
name part longer than a path component (255 bytes, ``NAME_MAX`` on Linux, macOS and Windows),
or holding a control character (the namespace separator 0x1F among them), with 400::

    >>> check_name_part("db", "namespace level")
    >>> check_name_part("a\\x1fb", "namespace level")
    Traceback (most recent call last):
    ...
    icesql.server.limits.BadRequestError: invalid namespace level 'a\\x1fb': control character U+001F
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from icesql.errors import ProgrammingError

__all__ = [
    "MAX_BODY_BYTES",
    "MAX_JSON_DEPTH",
    "MAX_NAME_BYTES",
    "BadRequestError",
    "BodyTooLargeError",
    "Limits",
    "check_name_part",
    "check_names",
]

MAX_BODY_BYTES = 64 * 1024 * 1024  # what the server took before it had its own limit
MAX_JSON_DEPTH = 200  # a schema nests about three JSON levels per nested struct
MAX_NAME_BYTES = 255  # one path component: NAME_MAX of ext4, APFS, NTFS
MAX_IDENTIFIER_BYTES = 1024  # all levels: the table's folders stay far under PATH_MAX (4096)


class BadRequestError(ProgrammingError):
    """The request body or parameters are malformed (400)."""


class BodyTooLargeError(BadRequestError):
    """The request body is over the server's limit (413)."""


@dataclass(frozen=True)
class Limits:
    """The server's bounds on one request (``icesql serve --max-body-bytes/--max-json-depth``)."""

    max_body_bytes: int = MAX_BODY_BYTES
    max_json_depth: int = MAX_JSON_DEPTH

    def check_size(self, length: int) -> None:
        if length > self.max_body_bytes:
            raise BodyTooLargeError(
                f"request body of {length} bytes is over this server's limit of"
                f" {self.max_body_bytes} bytes"
            )

    def parse_json(self, body: bytes) -> Any:
        """The body's JSON value (None when empty), refused when malformed or too deep."""
        self.check_size(len(body))
        try:
            value = json.loads(body or b"null")
        except RecursionError:  # deeper than the interpreter's own limit (about 1000)
            raise self._too_deep() from None
        except (ValueError, UnicodeDecodeError) as e:
            raise BadRequestError(f"malformed JSON in the request body: {e}") from None
        if _depth_over(value, self.max_json_depth):
            raise self._too_deep()
        return value

    def _too_deep(self) -> BadRequestError:
        return BadRequestError(
            f"the request body's JSON is nested deeper than {self.max_json_depth} levels"
        )


def _depth_over(value: Any, limit: int) -> bool:
    """Whether ``value`` nests deeper than ``limit`` arrays and objects (iterative: a deep
    value must not exhaust the stack it is checked for)."""
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        children = (
            item.values() if isinstance(item, dict) else item if isinstance(item, list) else None
        )
        if children is None:
            continue
        if depth > limit:
            return True
        stack.extend((child, depth + 1) for child in children)
    return False


def check_name_part(part: str, what: str) -> None:
    """A namespace level or table name fits one path component and has no control character
    (one would not survive the 0x1F-joined path segment, a terminal or a log line)."""
    bad = next((c for c in part if ord(c) < 0x20 or 0x7F <= ord(c) < 0xA0), None)
    if bad is not None:
        raise BadRequestError(f"invalid {what} {part!r}: control character U+{ord(bad):04X}")
    size = len(part.encode("utf-8", "surrogatepass"))
    if size > MAX_NAME_BYTES:
        raise BadRequestError(
            f"invalid {what} {part[:40]!r}...: {size} bytes, over the {MAX_NAME_BYTES} bytes"
            " a file name may have"
        )


def check_names(identifier: Sequence[str], table: bool) -> None:
    """Every part of a namespace (``table`` False) or table identifier, and their sum."""
    for i, part in enumerate(identifier):
        is_table = table and i == len(identifier) - 1
        check_name_part(part, "table name" if is_table else "namespace level")
    size = sum(len(p.encode("utf-8", "surrogatepass")) + 1 for p in identifier)
    if size > MAX_IDENTIFIER_BYTES:
        raise BadRequestError(
            f"invalid name: {size} bytes in all, over this server's limit of {MAX_IDENTIFIER_BYTES}"
        )
