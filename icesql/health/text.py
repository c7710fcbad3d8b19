"""A health report as text for a terminal: every line fits ``width`` columns, charts are
bars and sparklines of Unicode block characters, and a ``CALL`` too long for a line is
wrapped at its spaces (it still runs when pasted)."""

from __future__ import annotations

import datetime as dt
import textwrap
from collections.abc import Sequence

from .model import Advice, TableHealth

__all__ = ["bar", "human_bytes", "render_text", "sparkline"]

_EIGHTHS = " ▏▎▍▌▋▊▉"
_SPARKS = "▁▂▃▄▅▆▇█"
_TOP_PARTITIONS = 10


def human_bytes(n: int | float | None) -> str:
    """``n`` bytes in binary units: ``human_bytes(1536)`` is ``'1.5 KiB'``.

    >>> human_bytes(512 * 1024 * 1024)
    '512 MiB'
    """
    if n is None:
        return "-"
    value = float(n)
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if abs(value) < 1024 or unit == "TiB":
            text = f"{value:.1f}".rstrip("0").rstrip(".") if unit != "B" else f"{int(value)}"
            return f"{text} {unit}"
        value /= 1024
    return f"{value} TiB"  # not reached


def bar(value: float, largest: float, width: int) -> str:
    """A horizontal bar of ``width`` cells at most, in eighths of a cell.

    >>> bar(3, 4, 4)
    '███'
    """
    if largest <= 0 or value <= 0:
        return ""
    eighths = max(1, round(value / largest * width * 8))
    full, rest = divmod(eighths, 8)
    return "█" * full + (_EIGHTHS[rest] if rest else "")


def sparkline(values: Sequence[float], floor: float | None = None) -> str:
    """One character per value, its height scaled between the smallest (or ``floor``) and
    the largest.

    >>> sparkline([1, 2, 3, 8])
    '▁▂▃█'
    >>> sparkline([4, 3], floor=0)
    '█▆'
    """
    if not values:
        return ""
    low, high = min(values) if floor is None else floor, max(values)
    span = high - low
    return "".join(
        _SPARKS[0 if span == 0 else round((v - low) / span * (len(_SPARKS) - 1))] for v in values
    )


def _fit(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


def _time(ms: int) -> str:
    return dt.datetime.fromtimestamp(ms / 1000, dt.UTC).strftime("%Y-%m-%d %H:%M:%S")


def _duration(ms: int) -> str:
    hours = ms / 3_600_000
    return f"{hours / 24:g} days" if hours >= 24 else f"{hours:g} h"


def _wrapped(text: str, width: int, indent: str, later: str | None = None) -> list[str]:
    return textwrap.wrap(
        text,
        width,
        initial_indent=indent,
        subsequent_indent=later if later is not None else indent,
        break_long_words=True,
        break_on_hyphens=False,
    )


def render_text(h: TableHealth, width: int = 80) -> str:
    """The whole report (module docstring)."""
    lines = [
        *_wrapped(
            f"Table {h.table}  format v{h.format_version}  snapshot {h.snapshot_id or '-'}",
            width,
            "",
        ),
        "",
    ]
    lines += _files(h, width)
    lines += _partitions(h, width)
    lines += _manifests(h, width)
    lines += _snapshots(h, width)
    lines += _metadata(h, width)
    lines += _advice(h.advice, width, h.orphans_checked)
    return "\n".join(line.rstrip() for line in lines)


def _files(h: TableHealth, width: int) -> list[str]:
    f = h.files
    lines = _wrapped(
        f"Data files: {f.files:,} files, {human_bytes(f.bytes)}, {f.records:,} rows,"
        f" average {human_bytes(f.average_bytes)}",
        width,
        "",
        "  ",
    )
    lines += _wrapped(
        f"target {human_bytes(f.target_bytes)} (write.target-file-size-bytes);"
        f" small (< {human_bytes(f.min_bytes)}): {f.small_files:,};"
        f" large (> {human_bytes(f.max_bytes)}): {f.large_files:,}",
        width,
        "  ",
    )
    if f.buckets:
        largest = max(b.files for b in f.buckets)
        label_width = 21
        count_width = len(f"{largest:,}")
        bar_width = max(width - label_width - count_width - 5, 8)
        for b in f.buckets:
            label = f"{human_bytes(b.lower)} - {human_bytes(b.upper)}"
            marks = ""
            if b.lower <= f.target_bytes < b.upper:
                marks = " <target"
            lines.append(
                _fit(
                    f"  {label:<{label_width}} {b.files:>{count_width},} "
                    f"{bar(b.files, largest, bar_width)}{marks}",
                    width,
                )
            )
    return [*lines, ""]


def _partitions(h: TableHealth, width: int) -> list[str]:
    parts = h.partitions
    if not parts:
        return ["Partitions: none (no live files)", ""]
    deleted = sum(p.position_deleted_records for p in parts)
    delete_files = sum(p.delete_files for p in parts)
    lines = _wrapped(
        f"Partitions: {len(parts):,}; delete files {delete_files:,}; rows deleted by position"
        f" deletes {deleted:,} of {sum(p.records for p in parts):,}",
        width,
        "",
        "  ",
    )
    numbers = ["files", "rows", "size", "deletes", "del%"]
    widths = [7, 11, 10, 8, 6]
    name_width = width - 2 - sum(w + 1 for w in widths) - 1
    header = f"  {'partition':<{name_width}} " + " ".join(
        f"{n:>{w}}" for n, w in zip(numbers, widths, strict=True)
    )
    lines.append(header)
    for p in parts[:_TOP_PARTITIONS]:
        cells = [
            f"{p.data_files:,}",
            f"{p.records:,}",
            human_bytes(p.bytes),
            f"{p.delete_files:,}",
            f"{p.deleted_fraction * 100:.1f}",
        ]
        lines.append(
            f"  {_fit(p.partition, name_width):<{name_width}} "
            + " ".join(f"{c:>{w}}" for c, w in zip(cells, widths, strict=True))
        )
    if len(parts) > _TOP_PARTITIONS:
        lines.append(f"  ... {len(parts) - _TOP_PARTITIONS:,} more partitions")
    if len(parts) > 1:
        sizes = [p.bytes for p in parts]
        spark_width = width - 18
        shown = sizes[:spark_width]
        lines.append(f"  skew (bytes):  {sparkline(shown, floor=0)}")
        lines.append(
            f"  largest {human_bytes(max(sizes))}, smallest {human_bytes(min(sizes))},"
            f" mean {human_bytes(sum(sizes) / len(sizes))}"
        )
    return [*lines, ""]


def _manifests(h: TableHealth, width: int) -> list[str]:
    ms = h.manifests
    data = [m for m in ms if m.content == "data"]
    specs = sorted({m.spec_id for m in ms})
    entries = sum(m.added_files + m.existing_files for m in ms)
    lines = _wrapped(
        f"Manifests: {len(ms):,} ({len(data):,} data, {len(ms) - len(data):,} deletes),"
        f" {human_bytes(sum(m.length for m in ms))}, {entries:,} live entries,"
        f" specs {', '.join(map(str, specs)) or '-'};"
        f" target {human_bytes(h.manifest_target_bytes)}",
        width,
        "",
        "  ",
    )
    if len(ms) > 1:
        lines.append(_fit(f"  sizes: {sparkline([m.length for m in ms])}", width))
    return [*lines, ""]


def _snapshots(h: TableHealth, width: int) -> list[str]:
    snaps = h.snapshots
    r = h.retention
    lines = [f"Snapshots: {len(snaps):,}"]
    if snaps:
        lines += _wrapped(
            f"from {_time(snaps[0].timestamp_ms)} to {_time(snaps[-1].timestamp_ms)} UTC",
            width,
            "  ",
        )
        totals = [s.total_records or 0 for s in snaps][-(width - 12) :]
        lines.append(f"  rows:     {sparkline(totals)}")
        ops: dict[str, int] = {}
        for s in snaps:
            ops[s.operation or "?"] = ops.get(s.operation or "?", 0) + 1
        lines += _wrapped(
            "operations: " + ", ".join(f"{k} {v}" for k, v in sorted(ops.items())), width, "  "
        )
        for s in snaps[-5:]:
            refs = f" [{', '.join(s.refs)}]" if s.refs else ""
            mark = " expires" if s.expires else ""
            lines.append(
                _fit(
                    f"  {_time(s.timestamp_ms)} {s.operation or '?':<9} +{s.added_data_files}"
                    f"/-{s.removed_data_files} files +{s.added_records:,}/-{s.deleted_records:,}"
                    f" rows{refs}{mark}",
                    width,
                )
            )
    lines += _wrapped(
        f"retention: history.expire.max-snapshot-age-ms {_duration(r.max_snapshot_age_ms)},"
        f" min-snapshots-to-keep {r.min_snapshots_to_keep};"
        f" {sum(s.expires for s in snaps):,} snapshots past it"
        + ("" if r.gc_enabled else " (gc.enabled is false)"),
        width,
        "  ",
    )
    return [*lines, ""]


def _metadata(h: TableHealth, width: int) -> list[str]:
    files = h.metadata_files
    sizes = [f.bytes or 0 for f in files]
    lines = [f"Metadata files: {len(files):,}, {human_bytes(sum(sizes))}"]
    if len(files) > 1:
        lines.append(_fit(f"  growth:   {sparkline(sizes[-(width - 12) :])}", width))
        lines.append(f"  newest {human_bytes(sizes[-1])}, oldest {human_bytes(sizes[0])}")
    return [*lines, ""]


def _advice(advice: Sequence[Advice], width: int, orphans_checked: bool) -> list[str]:
    if not advice:
        lines = ["Advice: no problems found"]
    else:
        lines = [f"Advice: {len(advice)} problem{'s' if len(advice) != 1 else ''}"]
    for n, a in enumerate(advice, 1):
        lines += _wrapped(f"{n}. {a.problem}", width, "")
        for e in a.evidence:
            lines += _wrapped(e, width, "   - ", "     ")
        lines += _wrapped(a.call, width, "   ", "       ")
        preview = ", ".join(
            f"{k} {human_bytes(v) if k.endswith('bytes') else v}"
            for k, v in a.preview.items()
            if k not in ("procedure", "paths")
        )
        lines += _wrapped(f"dry run: {preview}", width, "   ", "     ")
        for path in a.preview.get("paths", ()):
            lines.append(_fit(f"     {path}", width))
    if not orphans_checked:
        lines += _wrapped(
            "(orphan files not checked: ask with orphans=True, --orphans or .health TABLE orphans)",
            width,
            "",
        )
    return lines
