"""The HTML report: charts are SVG drawn in Python, the markup has no script and no external
asset, and every name and value is escaped (a partition value, a property and a table name
that are markup)."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from html.parser import HTMLParser

from health_support import small_files_table

XSS = "<script>alert(1)</script>"


class _Tags(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[str] = []
        self.attrs: list[tuple[str, str | None]] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        self.attrs.extend(attrs)


def _parse(markup: str) -> _Tags:
    parser = _Tags()
    parser.feed(markup)
    return parser


def test_charts_are_inline_svg_with_the_numbers(planted):
    h = planted.health("db.t")
    markup = h._repr_html_()
    tags = _parse(markup)
    assert "script" not in tags.tags
    assert tags.tags.count("svg") >= 5  # sizes, rows, bytes, deletes, manifests, timelines
    assert not any(
        v and ("http://" in v or "https://" in v) and k != "xmlns" for k, v in tags.attrs
    )
    for svg in markup.split("<svg")[1:]:
        ET.fromstring("<svg" + svg.split("</svg>")[0] + "</svg>")  # well-formed XML
    assert "rewrite_data_files" in markup and "remove-dangling-deletes" in markup
    assert "12 files, 5" in markup or "12 files" in markup


def test_names_and_values_are_escaped(con):
    con.execute(
        "CREATE TABLE db.t (id BIGINT, p STRING) USING iceberg PARTITIONED BY (p)"
        f" TBLPROPERTIES ('note'='\"quoted\" {XSS}')"
    )
    for i in range(5):
        con.execute(f"INSERT INTO db.t VALUES ({i}, '{XSS}'), ({i + 10}, 'a\"b')")
    markup = con.health("db.t")._repr_html_()
    assert XSS not in markup
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in markup
    assert "script" not in _parse(markup).tags


def test_a_table_name_that_is_markup_is_escaped(con):
    con.execute("CREATE TABLE db.`<b onmouseover=x>` (id INT) USING iceberg")
    markup = con.health("db.`<b onmouseover=x>`")._repr_html_()
    assert "<b onmouseover" not in markup
    assert "b" not in _parse(markup).tags


def test_an_empty_table_renders(con):
    small_files_table(con, inserts=0)
    markup = con.health("db.t")._repr_html_()
    assert "No problems found" in markup and "no snapshots" in markup


def test_the_timeline_labels_snapshots_with_their_refs(planted):
    planted.execute("ALTER TABLE db.t CREATE TAG `<nightly>`")
    markup = planted.health("db.t")._repr_html_()
    assert 'class="ref">main, &lt;nightly&gt;</text>' in markup
