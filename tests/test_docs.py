"""The docs lead somewhere: every design reference resolves, the README stays short and its links exist, and
the architecture page names every package of the tree."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
# Where a reference to a design section may be written: the code, the tests, the benches, the README and the docs.
SCANNED = ("src", "tests", "bench", "docs", ".ci")
SUFFIXES = {".py", ".md", ".sh", ".toml", ".txt", ""}
# "§12", "§ 12", "DESIGN.md §12", "DESIGN §41", "§15 and §38", "§25 to §28", "§20-21": a § and the numbers after it.
SECTION = re.compile(r"§ ?(\d+)((?:\s*(?:-|–|,|and|to|&)\s*§?\s*\d+)*)")
ROW = re.compile(r"^\| §(\d+) \| [^|]* \| \[[^\]]*\]\(([^)#]+)#([^)]+)\) \|$")


def _text_files() -> list[Path]:
    files = [ROOT / "README.md"]
    for top in SCANNED:
        for path in sorted((ROOT / top).rglob("*")):
            if path.is_file() and path.suffix in SUFFIXES and "__pycache__" not in path.parts:
                files.append(path)
    return files


def section_refs(text: str) -> set[int]:
    """Every design section number ``text`` refers to; a range ("§25 to §28", "§20-21") refers to each in it."""
    found: set[int] = set()
    for m in SECTION.finditer(text):
        first = int(m.group(1))
        found.add(first)
        rest = m.group(2)
        if not rest:
            continue
        prev = first
        for part in re.finditer(r"(-|–|,|and|to|&)\s*§?\s*(\d+)", rest):
            n = int(part.group(2))
            if part.group(1) in ("-", "–", "to") and prev < n <= prev + 50:
                found.update(range(prev + 1, n + 1))
            else:
                found.add(n)
            prev = n
    return found


def design_map() -> dict[int, tuple[Path, str]]:
    """§N -> (page, anchor) from docs/DESIGN.md's table (a section's first row: the page it lives on)."""
    mapping: dict[int, tuple[Path, str]] = {}
    for line in (DOCS / "DESIGN.md").read_text(encoding="utf-8").splitlines():
        m = ROW.match(line)
        if m:
            mapping.setdefault(int(m.group(1)), (DOCS / m.group(2), m.group(3)))
    return mapping


def _anchors(page: Path) -> set[str]:
    return set(re.findall(r'<a id="([^"]+)"></a>', page.read_text(encoding="utf-8")))


def test_the_reference_finder_reads_every_form_used() -> None:
    assert section_refs("docs/DESIGN.md §12 has a worked example") == {12}
    assert section_refs("DESIGN §41; see §15 and §38, §39") == {41, 15, 38, 39}
    assert section_refs("(§3, §14, §25 to §28)") == {3, 14, 25, 26, 27, 28}
    assert section_refs("0.987 for both graphs, §20-21") == {20, 21}
    assert section_refs("no section here, 15 and 38") == set()


def test_every_design_reference_in_the_tree_resolves_to_a_page_and_anchor() -> None:
    mapping = design_map()
    assert set(mapping) >= set(range(1, 45)), "docs/DESIGN.md must map every old section §1-§44"
    missing: list[str] = []
    for path in _text_files():
        text = path.read_text(encoding="utf-8", errors="replace")
        for n in sorted(section_refs(text)):
            where = path.relative_to(ROOT)
            if n not in mapping:
                missing.append(f"{where}: §{n} is not in docs/DESIGN.md's map")
                continue
            page, anchor = mapping[n]
            if not page.is_file():
                missing.append(f"{where}: §{n} maps to {page.relative_to(ROOT)}, which does not exist")
            elif anchor not in _anchors(page):
                missing.append(f"{where}: §{n} maps to {page.relative_to(ROOT)}#{anchor}, which has no such anchor")
    assert not missing, "\n".join(missing)


def test_every_row_of_the_map_leads_to_its_anchor() -> None:
    rows = [ROW.match(line) for line in (DOCS / "DESIGN.md").read_text(encoding="utf-8").splitlines()]
    for m in filter(None, rows):
        page = DOCS / m.group(2)
        assert page.is_file(), m.group(0)
        assert m.group(3) in _anchors(page), m.group(0)


def test_each_design_page_opens_with_how_it_works_now() -> None:
    pages = sorted((DOCS / "design").glob("*.md"))
    assert pages
    for page in pages:
        lines = page.read_text(encoding="utf-8").splitlines()
        assert lines[0].startswith("# ") and lines[2] == "## How it works now", page.name
        now = lines[3 : lines.index("## Decisions and their figures")]
        assert 5 <= len(now) <= 60, f"{page.name}: 'How it works now' should be about one screen, is {len(now)} lines"


_LINK = re.compile(r"\]\(((?!https?:|#|mailto:)[^)\s#]+)(?:#[^)]*)?\)")


def _links(page: Path) -> list[Path]:
    return [(page.parent / target).resolve() for target in _LINK.findall(page.read_text(encoding="utf-8"))]


def test_readme_is_short_and_every_link_it_gives_exists() -> None:
    readme = ROOT / "README.md"
    assert len(readme.read_text(encoding="utf-8").splitlines()) <= 220
    links = _links(readme)
    assert links, "the README links the docs"
    broken = [str(p) for p in links if not p.exists()]
    assert not broken, broken
    for page in ("cli", "configuration", "tools", "capture", "providers", "postgres", "ui", "benchmarks"):
        assert DOCS / f"{page}.md" in links, f"the README should link docs/{page}.md"


def test_every_docs_page_links_only_to_what_exists() -> None:
    broken = [f"{page.relative_to(ROOT)} -> {p}" for page in DOCS.rglob("*.md") for p in _links(page) if not p.exists()]
    assert not broken, "\n".join(broken)


def test_the_readme_keeps_the_test_command_ci_runs() -> None:
    # .ci/run runs "the README's test command, test.sh": the README must still show it.
    assert "test.sh" in (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert "\nbash test.sh\n" in (ROOT / "README.md").read_text(encoding="utf-8")


def test_architecture_names_every_package_of_the_tree() -> None:
    arch = (DOCS / "ARCHITECTURE.md").read_text(encoding="utf-8")
    package = ROOT / "src" / "memlane"
    names = [str(p.parent.relative_to(package)) + "/" for p in package.rglob("__init__.py") if p.parent != package]
    names += [p.name for p in package.glob("*.py") if p.name not in ("__init__.py", "__main__.py")]
    assert names
    unnamed = [n for n in sorted(names) if f"`{n}" not in arch]
    assert not unnamed, f"docs/ARCHITECTURE.md does not name {unnamed}"
    assert len(arch.splitlines()) <= 280


def test_every_module_over_500_lines_is_named_with_its_reason() -> None:
    """issue 45: no module over 500 lines unless ARCHITECTURE.md's table names it, and every row there is still long."""
    arch = (DOCS / "ARCHITECTURE.md").read_text(encoding="utf-8")
    table = dict(re.findall(r"^\| `([\w/]+\.py)` \| (\d+) \| ", arch, re.M))
    package = ROOT / "src" / "memlane"
    long = {str(p.relative_to(package)): len(p.read_text(encoding="utf-8").splitlines()) for p in package.rglob("*.py")}
    long = {name: n for name, n in long.items() if n > 500}
    assert sorted(long) == sorted(table), f"over 500 lines: {long}; named: {table}"


# Every section the README had before it was cut to a newcomer's page, and the page that holds it now.
MOVED_FROM_README = {
    "Look at it: `memlane ui`": ("ui.md", "# The web view"),
    "Use it from Python": ("python.md", "# Use it from Python"),
    "Facts: Retain and recall": ("facts.md", "# Facts: Retain, recall"),
    "What is true now: the latest value first": ("facts.md", "## What is true now: the latest value first"),
    "Relations": ("facts.md", "## Relations: what is true now, what was true then"),
    "Reflect: entity pages, opinions, proposals": ("reflect.md", "# Reflect: entity pages, opinions, proposals"),
    "Capture: an agent that just talks": ("capture.md", "# Capture: an agent that just talks"),
    "Agent tools": ("tools.md", "# Agent tools"),
    "MCP server": ("tools.md", "## MCP server"),
    "Memory flush before compaction": ("tools.md", "## Memory flush before compaction"),
    "CLI": ("cli.md", "# The CLI"),
    "Keeping the Markdown safe": ("durability.md", "# Keeping the Markdown safe"),
    "What is indexed": ("indexing.md", "# What is indexed"),
    "Session transcripts": ("indexing.md", "## Session transcripts"),
    "Configuration": ("configuration.md", "# Configuration"),
    "Chunk keys": ("search.md", "## Chunk keys"),
    "Scores": ("search.md", "## Scores"),
    "Reranking (optional, off)": ("search.md", "## Reranking (optional, off)"),
    "Embedding providers": ("providers.md", "# Embedding providers"),
    "The local model": ("providers.md", "## The local model"),
    "PostgreSQL: one database for a team's agents": ("postgres.md", "## PostgreSQL: one database for a team's agents"),
    "Big indexes": ("postgres.md", "## Big indexes"),
    "Benchmarks": ("benchmarks.md", "# Benchmarks"),
    "Layout": ("ARCHITECTURE.md", "## The floors"),
    "Drop it into the agent you already run (in full)": ("install.md", "# Hosts"),
}


def test_every_section_the_readme_dropped_is_one_link_away() -> None:
    links = set(_links(ROOT / "README.md"))
    for old, (page, heading) in MOVED_FROM_README.items():
        assert DOCS / page in links, f"README section {old!r} moved to docs/{page}, which the README does not link"
        headings = [ln for ln in (DOCS / page).read_text(encoding="utf-8").splitlines() if ln.startswith("#")]
        assert any(h.startswith(heading) for h in headings), f"docs/{page} lost the section {old!r}"
