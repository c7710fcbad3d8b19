"""The documentation holds: its runnable code runs, its links lead somewhere, the README stays
short enough to read, and the settings page names every setting ``SET -v`` lists.

A code block is runnable when the line before its fence is ``<!-- runnable -->`` (the block
makes its own tables, in a new warehouse) or ``<!-- runnable: warehouse -->`` (it reads the
warehouse a Spark job would have left in ``warehouse/``: ``docs_support.make_sample_warehouse``).
Each runs in a fresh folder of its own: ``python`` blocks as a script, ``console`` / ``sh`` /
``bash`` blocks line by line, each line an ``icesql ...`` or ``python ...`` command. A
``print(...)  # VALUE`` line in a python block promises that VALUE is printed. A block after
``<!-- file: PATH -->`` is a file the page shows: it is written to PATH in the folder of the
next runnable block.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass
from pathlib import Path

import pytest
from docs_support import make_sample_warehouse, run_python

import icesql

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")), ROOT / "CHANGELOG.md"]
README_WORDS = 1500
_MARKER = re.compile(r"^<!-- runnable(?::\s*(?P<needs>[\w-]+))?\s*-->$")
_FILE = re.compile(r"^<!-- file:\s*(?P<path>[\w./-]+)\s*-->$")
_FENCE = re.compile(r"^```(?P<lang>\w*)\s*$")
_PROMISE = re.compile(r"^\s*print\(.*\)\s*#\s*(?P<value>[\[(].*)$")
_LINK = re.compile(r"\[[^\]]*\]\((?P<target>[^)\s]+)\)")
SHELLS = ("console", "sh", "bash")


@dataclass(frozen=True)
class Block:
    page: Path
    line: int  # of the opening fence, 1-based
    lang: str
    needs: str | None
    code: str
    files: tuple[tuple[str, str], ...] = ()  # (path, text) written beside it

    @property
    def id(self) -> str:
        return f"{self.page.relative_to(ROOT)}:{self.line}"


def runnable_blocks(page: Path) -> list[Block]:
    """The blocks of ``page`` marked runnable; a marker not followed by a fence is an error."""
    lines = page.read_text(encoding="utf-8").splitlines()
    blocks: list[Block] = []
    files: list[tuple[str, str]] = []
    for i, line in enumerate(lines):
        marker = _MARKER.match(line.strip())
        shown = _FILE.match(line.strip())
        if marker is None and shown is None:
            continue
        fence = _FENCE.match(lines[i + 1]) if i + 1 < len(lines) else None
        if fence is None:
            raise AssertionError(f"{page.name}:{i + 1}: a marker needs a fence after it")
        end = next(j for j in range(i + 2, len(lines)) if lines[j].startswith("```"))
        code = "\n".join(lines[i + 2 : end]) + "\n"
        if shown is not None:
            files.append((shown["path"], code))
        elif marker is not None:
            blocks.append(Block(page, i + 2, fence["lang"], marker["needs"], code, tuple(files)))
            files = []
    assert not files, f"{page.name}: a file block with no runnable block after it"
    return blocks


BLOCKS = [b for page in PAGES if page.exists() for b in runnable_blocks(page)]


def _commands(block: Block) -> list[list[str]]:
    """The argument lists of a shell block's lines (``icesql`` runs as ``python -m``)."""
    commands = []
    for raw in block.code.splitlines():
        line = raw.strip().removeprefix("$ ")
        if not line or line.startswith("#"):
            continue
        words = shlex.split(line, comments=True)
        if words[0] == "icesql":
            commands.append(["-m", "icesql.shell", *words[1:]])
        elif words[0] == "python":
            commands.append(words[1:])
        else:
            raise AssertionError(f"{block.id}: only icesql and python commands run: {line}")
    return commands


@pytest.mark.parametrize("block", [pytest.param(b, id=b.id) for b in BLOCKS])
def test_runnable_block_runs(block: Block, tmp_path: Path) -> None:
    if block.needs is not None:
        assert block.needs == "warehouse", f"{block.id}: unknown need {block.needs!r}"
        make_sample_warehouse(tmp_path / "warehouse")
    for path, text in block.files:
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text(text, encoding="utf-8")
    if block.lang == "python":
        for module in ("pandas", "polars", "sqlalchemy"):
            if re.search(rf"^\s*(import|from) {module}\b", block.code, re.M):
                pytest.importorskip(module)
        (tmp_path / "block.py").write_text(block.code, encoding="utf-8")
        out = run_python(["block.py"], tmp_path)
        assert out.returncode == 0, f"{block.id}\n{out.stdout}\n{out.stderr}"
        assert out.stdout.strip(), f"{block.id}: printed nothing"
        for line in block.code.splitlines():
            promise = _PROMISE.match(line)
            if promise:
                assert promise["value"].strip() in out.stdout, f"{block.id}: {line}\n{out.stdout}"
    else:
        assert block.lang in SHELLS, f"{block.id}: cannot run a {block.lang!r} block"
        for args in _commands(block):
            out = run_python(args, tmp_path)
            assert out.returncode == 0, f"{block.id}: {args}\n{out.stdout}\n{out.stderr}"
            assert out.stdout.strip(), f"{block.id}: {args} printed nothing"


def test_the_readme_first_query_and_everyday_jobs_run() -> None:
    # the newcomer's path: the first query and each everyday job's Python example are tested
    readme = [b for b in BLOCKS if b.page.name == "README.md"]
    assert readme and readme[0].needs == "warehouse" and "icesql.connect" in readme[0].code
    assert sum(b.lang == "python" for b in readme) >= 4
    assert any(b.lang in SHELLS for b in readme)


def test_readme_keeps_the_set_up_commands_ci_runs() -> None:
    # a fresh machine's two commands; .ci/run installs the test extra and runs the second's
    # pytest command, so the README says what CI does
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "pip install . && python examples/quickstart.py" in readme
    assert 'pip install -e ".[test]" && python -m pytest -q -n 2' in readme
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert '-e ".[test]"' in ci and "python -m pytest -q -n 2" in ci


def test_readme_is_short() -> None:
    words = len((ROOT / "README.md").read_text(encoding="utf-8").split())
    assert words < README_WORDS, f"README.md has {words} words; keep it under {README_WORDS}"


def _anchors(page: Path) -> set[str]:
    """GitHub's anchors of the page's headings."""
    anchors = set()
    for line in page.read_text(encoding="utf-8").splitlines():
        if line.startswith("#"):
            title = line.lstrip("#").strip().lower()
            anchors.add(re.sub(r"\s", "-", re.sub(r"[^\w\s-]", "", title)))
    return anchors


@pytest.mark.parametrize("page", [pytest.param(p, id=p.name) for p in PAGES if p.exists()])
def test_relative_links_resolve(page: Path) -> None:
    for match in _LINK.finditer(page.read_text(encoding="utf-8")):
        target = match["target"]
        if re.match(r"^[a-z]+:", target):
            continue  # https:, mailto:
        path, _, anchor = target.partition("#")
        linked = (page.parent / path).resolve() if path else page
        assert linked.exists(), f"{page.name}: {target} leads to no file"
        if anchor and linked.suffix == ".md":
            assert anchor in _anchors(linked), f"{page.name}: {target}: no such heading"


def test_every_page_in_docs_is_linked_from_the_readme() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    for page in (ROOT / "docs").glob("*.md"):
        assert f"docs/{page.name}" in readme, f"README.md does not link docs/{page.name}"


def test_settings_page_names_every_setting_set_v_lists(tmp_path: Path) -> None:
    with icesql.connect(str(tmp_path)) as con:
        listed = con.execute("SET -v").fetchall()
    assert listed
    page = (ROOT / "docs" / "settings.md").read_text(encoding="utf-8")
    rows = {
        line.split("|")[1].strip().strip("`"): line
        for line in page.splitlines()
        if line.startswith("| `")
    }
    for key, default, *_ in listed:
        assert key in rows, f"docs/settings.md does not name {key}, which SET -v lists"
        assert f"`{default}`" in rows[key], f"docs/settings.md: {key}'s default is {default}"
