"""A health report as one HTML fragment with inline SVG charts (``icesql.health.svg``): what a
notebook shows for ``con.health("db.t")`` and the web UI's table page embeds. No script, no
external asset; every name and value is escaped."""

from __future__ import annotations

import datetime as dt

from .model import Advice, TableHealth
from .svg import bars, esc, stacked_bars, timeline
from .text import human_bytes

__all__ = ["render_html"]

_TOP = 25  # partitions and manifests drawn
_STYLE = (
    "<style>.icesql-health{font-family:sans-serif;font-size:13px;max-width:760px}"
    ".icesql-health h3{margin:14px 0 4px}.icesql-health table{border-collapse:collapse}"
    ".icesql-health td,.icesql-health th{padding:1px 8px;text-align:right}"
    ".icesql-health td:first-child,.icesql-health th:first-child{text-align:left}"
    ".icesql-health .advice{border-left:4px solid #e45756;padding:4px 10px;margin:6px 0}"
    ".icesql-health code{background:#f4f4f4;padding:2px 4px;display:block;white-space:pre-wrap}"
    "</style>"
)


def _time(ms: int) -> str:
    return dt.datetime.fromtimestamp(ms / 1000, dt.UTC).strftime("%Y-%m-%d %H:%M:%S")


def render_html(h: TableHealth) -> str:
    """The report (module docstring)."""
    f = h.files
    parts = [
        _STYLE,
        '<div class="icesql-health">',
        f"<h2>{esc(h.table)}</h2>",
        f"<p>format v{h.format_version}, snapshot {esc(h.snapshot_id or '-')},"
        f" location <code style='display:inline'>{esc(h.location)}</code></p>",
        _advice_html(h.advice),
        "<h3>Data file sizes</h3>",
        f"<p>{f.files:,} files, {esc(human_bytes(f.bytes))}, {f.records:,} rows; target"
        f" {esc(human_bytes(f.target_bytes))}; {f.small_files:,} smaller than"
        f" {esc(human_bytes(f.min_bytes))}, {f.large_files:,} larger than"
        f" {esc(human_bytes(f.max_bytes))}</p>",
    ]
    if f.buckets:
        marker = next(
            (i for i, b in enumerate(f.buckets) if b.lower <= f.target_bytes < b.upper), None
        )
        parts.append(
            bars(
                "data files by size",
                [f"{human_bytes(b.lower)} – {human_bytes(b.upper)}" for b in f.buckets],
                [b.files for b in f.buckets],
                [f"{b.files:,} files, {human_bytes(b.bytes)}" for b in f.buckets],
                marker=marker,
                marker_label="(target)",
            )
        )
    shown = h.partitions[:_TOP]
    parts.append(f"<h3>Partitions ({len(h.partitions):,})</h3>")
    if shown:
        names = [p.partition for p in shown]
        parts.append(
            stacked_bars(
                "rows per partition: live and deleted by position deletes",
                names,
                [[p.live_records, p.position_deleted_records] for p in shown],
                ["live rows", "deleted rows"],
                [
                    [f"{p.records:,} rows", f"{p.deleted_fraction * 100:.1f}% deleted"]
                    for p in shown
                ],
            )
        )
        parts.append(
            bars(
                "bytes per partition",
                names,
                [p.bytes for p in shown],
                [human_bytes(p.bytes) for p in shown],
            )
        )
        if any(p.delete_files for p in shown):
            parts.append(
                stacked_bars(
                    "delete files per partition",
                    names,
                    [
                        [p.position_delete_files, p.deletion_vectors, p.equality_delete_files]
                        for p in shown
                    ],
                    ["position deletes", "deletion vectors", "equality deletes"],
                )
            )
        parts.append(_partition_table(h))
    parts += _manifests_html(h)
    parts += _snapshots_html(h)
    parts += _metadata_html(h)
    parts.append("</div>")
    return "".join(parts)


def _advice_html(advice: tuple[Advice, ...]) -> str:
    if not advice:
        return "<h3>Advice</h3><p>No problems found.</p>"
    out = [f"<h3>Advice ({len(advice)})</h3>"]
    for a in advice:
        evidence = "".join(f"<li>{esc(e)}</li>" for e in a.evidence)
        preview = "".join(
            f"<tr><td>{esc(k)}</td><td>{esc(human_bytes(v) if k.endswith('bytes') else v)}</td></tr>"
            for k, v in a.preview.items()
            if k not in ("procedure", "paths")
        )
        paths = "".join(f"<li>{esc(p)}</li>" for p in a.preview.get("paths", ()))
        out.append(
            f'<div class="advice" data-code="{esc(a.code)}"><b>{esc(a.problem)}</b>'
            f"<ul>{evidence}</ul><code>{esc(a.call)}</code>"
            f"<p>Dry run of {esc(a.preview.get('procedure', ''))}:</p><table>{preview}</table>"
            + (f"<ul>{paths}</ul>" if paths else "")
            + "</div>"
        )
    return "".join(out)


def _partition_table(h: TableHealth) -> str:
    head = (
        "<tr><th>partition</th><th>files</th><th>rows</th><th>size</th><th>pos. deletes</th>"
        "<th>DVs</th><th>eq. deletes</th><th>deleted rows</th></tr>"
    )
    rows = "".join(
        f"<tr><td>{esc(p.partition)}</td><td>{p.data_files:,}</td><td>{p.records:,}</td>"
        f"<td>{esc(human_bytes(p.bytes))}</td><td>{p.position_delete_files:,}</td>"
        f"<td>{p.deletion_vectors:,}</td><td>{p.equality_delete_files:,}</td>"
        f"<td>{p.position_deleted_records:,}</td></tr>"
        for p in h.partitions[:_TOP]
    )
    more = len(h.partitions) - _TOP
    tail = f"<p>{more:,} more partitions</p>" if more > 0 else ""
    return f"<table>{head}{rows}</table>{tail}"


def _manifests_html(h: TableHealth) -> list[str]:
    ms = h.manifests
    out = [
        f"<h3>Manifests ({len(ms):,})</h3>",
        f"<p>{esc(human_bytes(sum(m.length for m in ms)))},"
        f" {sum(m.added_files + m.existing_files for m in ms):,} live entries, specs"
        f" {esc(', '.join(str(s) for s in sorted({m.spec_id for m in ms})) or '-')}; target"
        f" {esc(human_bytes(h.manifest_target_bytes))}</p>",
    ]
    if ms:
        shown = ms[:_TOP]
        out.append(
            bars(
                "manifest sizes",
                [f"{m.content} {m.path.rsplit('/', 1)[-1]}" for m in shown],
                [m.length for m in shown],
                [
                    f"{human_bytes(m.length)}, {m.added_files + m.existing_files:,} entries"
                    for m in shown
                ],
            )
        )
    return out


def _snapshots_html(h: TableHealth) -> list[str]:
    snaps = h.snapshots
    r = h.retention
    expiring = sum(s.expires for s in snaps)
    points = [
        (
            s.timestamp_ms,
            float(s.total_records or 0),
            s.operation or "?",
            f"{s.snapshot_id} {s.operation or '?'} at {_time(s.timestamp_ms)}:"
            f" +{s.added_data_files}/-{s.removed_data_files} data files,"
            f" +{s.added_records}/-{s.deleted_records} rows"
            + (f" [{', '.join(s.refs)}]" if s.refs else "")
            + (" (expires)" if s.expires else ""),
        )
        for s in snaps
    ]
    rows = "".join(
        f"<tr><td>{s.snapshot_id}</td><td>{esc(_time(s.timestamp_ms))}</td>"
        f"<td>{esc(s.operation or '?')}</td><td>{s.added_data_files}/{s.removed_data_files}</td>"
        f"<td>{s.added_records:,}/{s.deleted_records:,}</td><td>{esc(', '.join(s.refs))}</td>"
        f"<td>{'yes' if s.expires else ''}</td></tr>"
        for s in reversed(snaps[-_TOP:])
    )
    return [
        f"<h3>Snapshots ({len(snaps):,})</h3>",
        f"<p>retention: history.expire.max-snapshot-age-ms {r.max_snapshot_age_ms:,},"
        f" min-snapshots-to-keep {r.min_snapshots_to_keep}; {expiring:,} past it</p>",
        timeline("total rows by snapshot", points, labels=[", ".join(s.refs) for s in snaps]),
        "<details><summary>latest snapshots</summary><table><tr><th>id</th><th>committed</th>"
        "<th>operation</th><th>files +/-</th><th>rows +/-</th><th>refs</th><th>expires</th></tr>"
        f"{rows}</table></details>",
    ]


def _metadata_html(h: TableHealth) -> list[str]:
    files = h.metadata_files
    points = [
        (f.timestamp_ms, float(f.bytes or 0), "metadata file", f"{f.path}: {human_bytes(f.bytes)}")
        for f in files
    ]
    total = sum(f.bytes or 0 for f in files)
    return [
        f"<h3>Metadata files ({len(files):,})</h3>",
        f"<p>{esc(human_bytes(total))} in all</p>",
        timeline("metadata file sizes", points, height=120),
    ]
