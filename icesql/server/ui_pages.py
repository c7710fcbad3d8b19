"""The web UI's pages as HTML text: the catalog, a namespace, a table (its layout and its
health report), a snapshot's summary, and the token form.

Every name and value from the catalog passes through ``esc`` (a table may be named
``<script>``, a property hold quotes), every link through ``quote``; pages carry no script
at all, and their one stylesheet is shipped in the package (``assets/ui.css``), so they work
offline and a Content-Security-Policy of ``script-src 'none'`` holds.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from typing import Any
from urllib.parse import quote

from icesql.catalog.table import Table
from icesql.health import TableHealth
from icesql.health.html import render_html
from icesql.health.svg import esc
from icesql.spec.schema import Schema

__all__ = [
    "catalog_page",
    "catalog_url",
    "catalogs_page",
    "error_page",
    "login_page",
    "namespace_page",
    "snapshot_page",
    "sql_page",
    "table_page",
    "table_url",
    "namespace_url",
]

NAMESPACE_SEPARATOR = "\x1f"  # as the REST paths spell a nested namespace (%1F)


def catalog_url(catalog: str) -> str:
    return "/ui/catalogs/" + quote(catalog, safe="")


def namespace_url(catalog: str, namespace: Sequence[str]) -> str:
    return (
        f"{catalog_url(catalog)}/namespaces/"
        + quote(NAMESPACE_SEPARATOR.join(namespace), safe="")
    )  # fmt: skip


def table_url(catalog: str, identifier: Sequence[str]) -> str:
    *namespace, name = identifier
    return (
        f"{catalog_url(catalog)}/tables/"
        + quote(NAMESPACE_SEPARATOR.join(namespace), safe="") + "/" + quote(name, safe="")
    )  # fmt: skip


def _page(title: str, crumbs: Sequence[tuple[str, str | None]], body: str) -> bytes:
    trail = " / ".join(
        f'<a href="{esc(href)}">{esc(text)}</a>' if href else esc(text) for text, href in crumbs
    )
    return (
        "<!doctype html><html lang=en><head><meta charset=utf-8>"
        f"<title>{esc(title)} - icesql</title>"
        '<link rel="stylesheet" href="/ui/assets/ui.css"></head><body>'
        f'<header><a class="brand" href="/ui/">icesql</a> <nav>{trail}</nav>'
        ' <a class="sql" href="/ui/sql">SQL</a></header>'
        f"<main>{body}</main></body></html>"
    ).encode()


def _time(ms: int) -> str:
    return dt.datetime.fromtimestamp(ms / 1000, dt.UTC).strftime("%Y-%m-%d %H:%M:%S UTC")


def _table(headings: Sequence[str], rows: Sequence[Sequence[str]], css: str = "") -> str:
    """A table of cells already escaped."""
    head = "".join(f"<th>{esc(h)}</th>" for h in headings)
    body = "".join("<tr>" + "".join(f"<td>{c}</td>" for c in row) + "</tr>" for row in rows)
    return f'<table class="{esc(css)}"><tr>{head}</tr>{body}</table>'


def catalogs_page(catalogs: Sequence[tuple[str, str]]) -> bytes:
    """The connection's catalogs: ``(name, kind)`` each."""
    rows = [[f'<a href="{esc(catalog_url(n))}">{esc(n)}</a>', esc(kind)] for n, kind in catalogs]
    body = f"<h1>Catalogs ({len(catalogs)})</h1>" + _table(["catalog", "kind"], rows)
    return _page("catalogs", [("catalogs", None)], body)


def catalog_page(catalog: str, namespaces: Sequence[Sequence[str]]) -> bytes:
    rows = [
        [f'<a href="{esc(namespace_url(catalog, ns))}">{esc(".".join(ns))}</a>']
        for ns in namespaces
    ]
    body = f"<h1>Catalog {esc(catalog)}</h1><h2>Namespaces ({len(namespaces)})</h2>"
    body += _table(["namespace"], rows) if rows else "<p>No namespaces.</p>"
    return _page(catalog, [("catalogs", "/ui/"), (catalog, None)], body)


def namespace_page(
    catalog: str,
    namespace: Sequence[str],
    children: Sequence[Sequence[str]],
    tables: Sequence[Sequence[str]],
    views: Sequence[Sequence[str]],
) -> bytes:
    name = ".".join(namespace)
    body = f"<h1>Namespace {esc(name)}</h1>"
    if children:
        body += "<h2>Namespaces</h2>" + _table(
            ["namespace"],
            [
                [f'<a href="{esc(namespace_url(catalog, c))}">{esc(".".join(c))}</a>']
                for c in children
            ],
        )
    body += f"<h2>Tables ({len(tables)})</h2>"
    body += (
        _table(
            ["table"],
            [[f'<a href="{esc(table_url(catalog, t))}">{esc(t[-1])}</a>'] for t in tables],
        )
        if tables
        else "<p>No tables.</p>"
    )
    if views:
        body += f"<h2>Views ({len(views)})</h2>" + _table(["view"], [[esc(v[-1])] for v in views])
    return _page(name, [("catalogs", "/ui/"), (catalog, catalog_url(catalog)), (name, None)], body)


def _schema_rows(schema: Schema) -> list[list[str]]:
    return [
        [str(f.field_id), esc(f.name), esc(f.type), "yes" if f.required else "", esc(f.doc or "")]
        for f in schema.fields
    ]


def _evolution(schemas: Sequence[Schema]) -> list[list[str]]:
    """Each schema with the top-level fields it added and dropped against the one before."""
    rows, before = [], None
    for s in schemas:
        names = {f.field_id: f.name for f in s.fields}
        if before is None:
            change = f"{len(names)} fields"
        else:
            added = [names[i] for i in names if i not in before]
            dropped = [before[i] for i in before if i not in names]
            renamed = [
                f"{before[i]} to {names[i]}" for i in names if i in before and before[i] != names[i]
            ]
            parts = [
                f"{what} {', '.join(names_)}"
                for what, names_ in (("added", added), ("dropped", dropped), ("renamed", renamed))
                if names_
            ]
            change = "; ".join(parts) or "types or nested fields"
        rows.append([str(s.schema_id), esc(change)])
        before = names
    return rows


def table_page(catalog: str, table: Table, health: TableHealth) -> bytes:
    md = table.metadata
    identifier = tuple(table.identifier)
    *namespace, name = identifier
    ns_name = ".".join(namespace)
    body = f"<h1>Table {esc('.'.join(identifier))}</h1>"
    body += f"<p>format v{md.format_version}, location <code>{esc(md.location)}</code></p>"
    body += "<h2>Schema</h2>" + _table(
        ["field id", "name", "type", "required", "comment"], _schema_rows(md.schema())
    )
    if len(md.schemas) > 1:
        body += "<h3>Schema evolution</h3>" + _table(
            ["schema id", "change"], _evolution(md.schemas)
        )
    body += "<h2>Partition specs</h2>" + _table(
        ["spec id", "fields", ""],
        [
            [
                str(s.spec_id),
                esc(
                    ", ".join(f"{f.name}: {f.transform}({f.source_id})" for f in s.fields)
                    or "unpartitioned"
                ),
                "default" if s.spec_id == md.default_spec_id else "",
            ]
            for s in md.specs
        ],
    )
    body += "<h2>Sort orders</h2>" + _table(
        ["order id", "fields", ""],
        [
            [
                str(o.order_id),
                esc(", ".join(str(f) for f in o.fields) or "unsorted"),
                "default" if o.order_id == md.default_sort_order_id else "",
            ]
            for o in md.sort_orders
        ],
    )
    body += "<h2>Properties</h2>" + _table(
        ["property", "value"], [[esc(k), esc(v)] for k, v in sorted(md.properties.items())]
    )
    refs = sorted(md.refs.items())
    body += "<h2>Refs</h2>" + _table(
        ["name", "type", "snapshot", "min snapshots", "max snapshot age ms", "max ref age ms"],
        [
            [
                esc(n),
                esc(r.type),
                f'<a href="{esc(table_url(catalog, identifier))}/snapshots/{r.snapshot_id}">{r.snapshot_id}</a>',
                esc(r.min_snapshots_to_keep if r.min_snapshots_to_keep is not None else ""),
                esc(r.max_snapshot_age_ms if r.max_snapshot_age_ms is not None else ""),
                esc(r.max_ref_age_ms if r.max_ref_age_ms is not None else ""),
            ]
            for n, r in refs
        ],
    )
    body += '<h2 id="health">Health</h2>' + render_html(health)
    snapshots = [
        [
            f'<a href="{esc(table_url(catalog, identifier))}/snapshots/{s.snapshot_id}">{s.snapshot_id}</a>',
            esc(_time(s.timestamp_ms)),
            esc(s.operation or ""),
            f"+{s.added_data_files}/-{s.removed_data_files}",
            f"+{s.added_records:,}/-{s.deleted_records:,}",
            esc(", ".join(s.refs)),
        ]
        for s in reversed(health.snapshots)
    ]
    body += "<h2>Snapshot timeline</h2>" + _table(
        ["snapshot", "committed", "operation", "data files", "rows", "refs"], snapshots
    )
    crumbs = [
        ("catalogs", "/ui/"),
        (catalog, catalog_url(catalog)),
        (ns_name, namespace_url(catalog, namespace)),
        (name, None),
    ]
    return _page(".".join(identifier), crumbs, body)


def snapshot_page(catalog: str, table: Table, snapshot_id: int) -> bytes | None:
    md = table.metadata
    snapshot = md.snapshot_by_id(snapshot_id)
    if snapshot is None:
        return None
    identifier = tuple(table.identifier)
    *namespace, name = identifier
    summary = dict(snapshot.summary or {})
    body = f"<h1>Snapshot {snapshot_id}</h1>"
    body += _table(
        ["", ""],
        [
            ["table", esc(".".join(identifier))],
            ["committed", esc(_time(snapshot.timestamp_ms))],
            ["parent", esc(snapshot.parent_snapshot_id or "")],
            ["sequence number", esc(snapshot.sequence_number)],
            ["schema id", esc(snapshot.schema_id if snapshot.schema_id is not None else "")],
            ["manifest list", f"<code>{esc(snapshot.manifest_list or '')}</code>"],
        ],
    )
    body += "<h2>Summary</h2>" + _table(
        ["key", "value"], [[esc(k), esc(v)] for k, v in sorted(summary.items())]
    )
    crumbs = [
        ("catalogs", "/ui/"),
        (catalog, catalog_url(catalog)),
        (".".join(namespace), namespace_url(catalog, namespace)),
        (name, table_url(catalog, identifier)),
        (str(snapshot_id), None),
    ]
    return _page(f"snapshot {snapshot_id}", crumbs, body)


def sql_page(catalog: str, sql: str, writable: bool, outcome: Any = None) -> bytes:
    """The SQL editor: a form, and the outcome of the statement it last ran."""
    note = (
        "Any statement runs (this server's token was given)."
        if writable
        else "Read-only: queries, EXPLAIN, SHOW and DESCRIBE; statements that write need the"
        " server's token."
    )
    body = (
        f"<h1>SQL</h1><p>{esc(note)}</p>"
        '<form method="post" action="/ui/sql"><textarea name="sql" rows="8" cols="100"'
        f' aria-label="SQL">{esc(sql)}</textarea><br><button>Run</button></form>'
    )
    if outcome is not None:
        if outcome.error:
            body += f'<p class="error">{esc(outcome.error)}</p>'
        elif outcome.message:
            body += f"<p>{esc(outcome.message)}</p>"
        else:
            explain = len(outcome.columns) == 1 and sql.strip().upper().startswith("EXPLAIN")
            if explain:
                body += "<pre>" + esc("\n".join(r[0] for r in outcome.rows)) + "</pre>"
            else:
                body += _table(outcome.columns, [[esc(c) for c in r] for r in outcome.rows])
            more = f" (the first {len(outcome.rows):,})" if outcome.truncated else ""
            body += f"<p>{len(outcome.rows):,} rows{more}</p>"
    return _page(
        "SQL", [("catalogs", "/ui/"), (catalog, catalog_url(catalog)), ("SQL", None)], body
    )


def login_page(failed: bool) -> bytes:
    note = "<p class=error>That token is not valid.</p>" if failed else ""
    body = (
        "<h1>Token required</h1><p>This server requires its token (icesql serve --token).</p>"
        f'{note}<form method="post" action="/ui/login"><input type="password" name="token"'
        ' autocomplete="current-password" aria-label="token"> <button>Open</button></form>'
    )
    return _page("token", [("token", None)], body)


def error_page(status: int, message: str) -> bytes:
    return _page(str(status), [(str(status), None)], f"<h1>{status}</h1><p>{esc(message)}</p>")
