"""Small SVG charts drawn in Python: horizontal bars, stacked bars and a timeline.

Drawn on the server (no JavaScript library, no CDN) so a report renders offline, in a notebook
and in the web UI alike, stays a few kilobytes, and a test can read its numbers back from the
markup. Every label and tooltip goes through ``esc``: a partition value or a ref name is text,
never markup.
"""

from __future__ import annotations

import datetime as dt
import html
from collections.abc import Sequence

__all__ = ["PALETTE", "bars", "esc", "stacked_bars", "timeline"]

PALETTE = ("#4c78a8", "#f58518", "#e45756", "#72b7b2", "#54a24b", "#b279a2")
_FONT = 'font-family="sans-serif" font-size="11"'


def esc(value: object) -> str:
    """``value`` as text safe inside an element or a quoted attribute."""
    return html.escape(str(value), quote=True)


def _svg(width: int, height: int, body: list[str], label: str) -> str:
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}"'
        f' viewBox="0 0 {width} {height}" role="img" aria-label="{esc(label)}">'
        f"<title>{esc(label)}</title>{''.join(body)}</svg>"
    )


def bars(
    label: str,
    names: Sequence[str],
    values: Sequence[float],
    shown: Sequence[str] = (),
    width: int = 560,
    marker: int | None = None,
    marker_label: str = "",
) -> str:
    """One horizontal bar per name; ``shown`` the text printed after each bar (default the
    value); ``marker`` the index of a bar to outline (the target size's bucket)."""
    return stacked_bars(
        label,
        names,
        [[v] for v in values],
        [label],
        [[s] for s in shown] if shown else (),
        width,
        marker,
        marker_label,
    )


def stacked_bars(
    label: str,
    names: Sequence[str],
    values: Sequence[Sequence[float]],
    series: Sequence[str],
    shown: Sequence[Sequence[str]] = (),
    width: int = 560,
    marker: int | None = None,
    marker_label: str = "",
) -> str:
    """One horizontal bar per name, split into the ``series`` (a legend when more than one)."""
    row, name_width = 18, 170
    texts = [" / ".join(t) for t in shown] if shown else []
    longest = max((len(t) for t in texts), default=12) + len(marker_label) + 1
    text_width = min(max(90, int(longest * 6.5) + 8), width // 2)
    legend = 18 if len(series) > 1 else 0
    height = legend + row * len(names) + 6
    plot = width - name_width - text_width
    largest = max((sum(v) for v in values), default=0) or 1
    body = []
    if legend:
        x = float(name_width)
        for i, s in enumerate(series):
            color = PALETTE[i % len(PALETTE)]
            body.append(f'<rect x="{x}" y="3" width="10" height="10" fill="{color}"/>')
            body.append(f'<text x="{x + 14}" y="12" {_FONT}>{esc(s)}</text>')
            x += 20 + 7 * len(s)
    for i, (name, parts) in enumerate(zip(names, values, strict=True)):
        y = legend + i * row + 3
        short = name if len(name) <= 26 else name[:25] + "…"
        body.append(
            f'<text x="{name_width - 6}" y="{y + 12}" text-anchor="end" {_FONT}>'
            f"<title>{esc(name)}</title>{esc(short)}</text>"
        )
        x = float(name_width)
        for k, v in enumerate(parts):
            w = plot * v / largest
            if w <= 0:
                continue
            color = PALETTE[k % len(PALETTE)]
            body.append(
                f'<rect x="{x:.1f}" y="{y}" width="{max(w, 1):.1f}" height="{row - 4}"'
                f' fill="{color}"><title>{esc(name)}: {esc(series[k])} {esc(_num(v))}</title></rect>'
            )
            x += w
        text = " / ".join(shown[i]) if shown else " / ".join(_num(v) for v in parts)
        if marker == i:
            body.append(
                f'<rect x="{name_width - 2}" y="{y - 2}" width="{plot + 4}" height="{row}"'
                ' fill="none" stroke="#333" stroke-dasharray="3 2"/>'
            )
            text = f"{text} {marker_label}"
        body.append(f'<text x="{x + 4:.1f}" y="{y + 12}" {_FONT}>{esc(text)}</text>')
    return _svg(width, height, body, label)


def _num(v: float) -> str:
    return f"{int(v):,}" if float(v).is_integer() else f"{v:,.2f}"


def timeline(
    label: str,
    points: Sequence[tuple[int, float, str, str]],
    width: int = 560,
    height: int = 160,
    labels: Sequence[str] = (),
) -> str:
    """Points ``(time ms, value, colour key, tooltip)`` joined by a line, coloured by key
    (a legend of the keys), with time across and the value up; ``labels`` (one per point,
    empty for none) are written beside their points (the refs of a snapshot)."""
    if not points:
        return _svg(width, 30, [f'<text x="4" y="18" {_FONT}>no snapshots</text>'], label)
    left, right, top, bottom = 60, 10, 22, 22
    t0, t1 = min(p[0] for p in points), max(p[0] for p in points)
    v1 = max(p[1] for p in points) or 1
    keys = list(dict.fromkeys(p[2] for p in points))

    def xy(t: int, v: float) -> tuple[float, float]:
        x = left + (width - left - right) * ((t - t0) / (t1 - t0) if t1 > t0 else 0.5)
        y = height - bottom - (height - top - bottom) * v / v1
        return x, y

    body = [
        f'<line x1="{left}" y1="{height - bottom}" x2="{width - right}" y2="{height - bottom}"'
        ' stroke="#999"/>',
        f'<text x="{left - 4}" y="{top + 4}" text-anchor="end" {_FONT}>{esc(_num(v1))}</text>',
        f'<text x="{left - 4}" y="{height - bottom}" text-anchor="end" {_FONT}>0</text>',
    ]
    for t, anchor in ((t0, "start"), (t1, "end")) if t1 > t0 else ((t0, "middle"),):
        x, _ = xy(t, 0)
        when = dt.datetime.fromtimestamp(t / 1000, dt.UTC).strftime("%Y-%m-%d %H:%M")
        body.append(
            f'<text x="{x:.1f}" y="{height - 6}" text-anchor="{anchor}" {_FONT}>{esc(when)}</text>'
        )
    path = " ".join(f"{x:.1f},{y:.1f}" for x, y in (xy(p[0], p[1]) for p in points))
    body.append(f'<polyline points="{path}" fill="none" stroke="#bbb"/>')
    for i, (t, v, key, tip) in enumerate(points):
        x, y = xy(t, v)
        color = PALETTE[keys.index(key) % len(PALETTE)]
        body.append(
            f'<circle cx="{x:.1f}" cy="{y:.1f}" r="4" fill="{color}"><title>{esc(tip)}</title></circle>'
        )
        label = labels[i] if i < len(labels) else ""
        if label:
            anchor = "end" if x > width / 2 else "start"
            dx = -6 if anchor == "end" else 6
            body.append(
                f'<text x="{x + dx:.1f}" y="{y + 14:.1f}" text-anchor="{anchor}" {_FONT}'
                f' class="ref">{esc(label)}</text>'
            )
    x = float(left)
    for i, key in enumerate(keys):
        color = PALETTE[i % len(PALETTE)]
        body.append(f'<circle cx="{x + 5:.1f}" cy="10" r="4" fill="{color}"/>')
        body.append(f'<text x="{x + 12:.1f}" y="14" {_FONT}>{esc(key)}</text>')
        x += 24 + 7 * len(key)
    return _svg(width, height, body, label)
