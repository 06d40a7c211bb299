"""The one Markdown reader (memlane.text.markdown) and the readers and writers that now share it: headings
inside code are no headings, one line model everywhere, front matter without YAML bombs."""

from __future__ import annotations

import datetime as dt
import os
import stat
import time
from pathlib import Path

import pytest

import memlane
from conftest import FakeEmbedder, write
from memlane.errors import MemlaneError
from memlane.facts.derive import derive_file
from memlane.facts.entities import parse_entity_page
from memlane.facts.retain import parse_retain
from memlane.files.markers import set_block
from memlane.files.writer import insert_text, read_core, write_note
from memlane.text.markdown import MAX_FRONT_MATTER_CHARS, parse, split_lines

FENCED_LOG = (
    "# 2026-01-05\n\n## Deploy\nRun this:\n\n```sh\n# comment\nkubectl apply -f x.yaml\n```\n\n## Notes\n- Tax idea.\n"
)


def test_headings_come_from_commonmark_not_from_code() -> None:
    doc = parse(FENCED_LOG)
    assert [(h.line, h.level, h.text) for h in doc.headings] == [
        (0, 1, "2026-01-05"),
        (2, 2, "Deploy"),
        (10, 2, "Notes"),
    ]
    assert [(b.start, b.end, b.closed) for b in doc.code] == [(5, 9, True)]
    # setext headings, closing #s, a heading inside a list item or a quote (no section boundary there)
    doc = parse("Title\n=====\n\n## Retain ##\n- a\n  ## inside\n> # quoted\n")
    assert [(h.line, h.end, h.level, h.text) for h in doc.headings] == [(0, 2, 1, "Title"), (3, 4, 2, "Retain")]


def test_an_unclosed_fence_runs_to_the_end() -> None:
    doc = parse("# t\n```\n# not a heading\n")
    assert [h.text for h in doc.headings] == ["t"]
    assert [(b.start, b.end, b.closed) for b in doc.code] == [(1, 3, False)]
    assert parse("~~~\n```\n").code[0].closed is False  # a backtick line does not close a tilde fence
    assert parse("```py\nx\n```py\n").code[0].closed is False  # a closing fence has no info string


def test_one_line_model() -> None:
    text = "a\u2028b\x0cc\x85d\r\ne\rf\n"
    assert split_lines(text) == ["a\u2028b\x0cc\x85d", "e\rf"]
    assert split_lines(text, keepends=True) == ["a\u2028b\x0cc\x85d\r\n", "e\rf\n"]
    assert split_lines("x\n\ny") == ["x", "", "y"] and split_lines("") == []
    # the parser's line maps index the same lines (a lone \r would be a line break to CommonMark)
    doc = parse("x\ry\n# h\n")
    assert doc.lines == ("x\ry", "# h") and doc.headings[0].line == 1


def test_retain_in_any_case_is_indexed(tmp_path: Path) -> None:
    text = "# 2026-01-05\n\n## RETAIN\n- W @Peter: Peter moved to Lisbon.\n"
    assert len(parse_retain(text)[0]) == 1
    assert [f.content for f in derive_file("memory/2026-01-05.md", text).facts] == ["Peter moved to Lisbon."]


def test_a_retain_heading_inside_code_is_no_section() -> None:
    text = "# d\n\n```md\n## Retain\n- W @Peter: an example, not a fact\n```\n"
    assert parse_retain(text) == ([], [])
    assert derive_file("memory/2026-01-05.md", text).facts == []


def test_insert_under_a_heading_skips_code(tmp_path: Path) -> None:
    write(tmp_path, "memory/2026-01-05.md", FENCED_LOG)
    res, _ = insert_text(tmp_path, "memory/2026-01-05.md", "- a note", heading="comment")
    after = (tmp_path / "memory/2026-01-05.md").read_text()
    assert after.startswith(FENCED_LOG)  # the code block and everything else byte for byte
    assert after[len(FENCED_LOG) :] == "\n## comment\n\n- a note\n"
    assert split_lines(after)[res.start_line - 1] == "- a note"


def test_writes_into_an_open_fence_are_refused(tmp_path: Path) -> None:
    text = "# d\n\n## Notes\n- x\n\n```sh\necho unfinished\n"
    write(tmp_path, "memory/2026-01-05.md", text)
    for call in (
        lambda: insert_text(tmp_path, "memory/2026-01-05.md", "- y", heading="Notes"),
        lambda: insert_text(tmp_path, "memory/2026-01-05.md", "- y"),
        lambda: write_note(tmp_path, "- y", today=dt.date(2026, 1, 5)),
    ):
        with pytest.raises(MemlaneError, match="inside a code block: the code block at lines 6-7 is never closed"):
            call()
    write(tmp_path, "memory/2026-01-06.md", "```\na\nb\n```\nafter\n")
    with pytest.raises(MemlaneError, match="inside a code block"):
        insert_text(tmp_path, "memory/2026-01-06.md", "- y", line=2)
    insert_text(tmp_path, "memory/2026-01-06.md", "- y", line=4)  # just after the closing fence is fine
    assert (tmp_path / "memory/2026-01-05.md").read_text() == text
    assert (tmp_path / "memory/2026-01-06.md").read_text() == "```\na\nb\n```\n- y\nafter\n"


def test_insert_at_a_line_counts_lines_as_memory_get_does(tmp_path: Path, fake: FakeEmbedder) -> None:
    # U+2028 and a form feed are characters inside a line, not line breaks, for every reader and writer
    write(tmp_path, "memory/2026-01-05.md", "one\u2028still one\ntwo\x0ctwo\nthree\nfour\n")
    with memlane.open(tmp_path, provider=fake) as mem:
        res = mem.insert("memory/2026-01-05.md", "- inserted", line=3)
        assert res["startLine"] == 4
        assert mem.get("memory/2026-01-05.md", from_line=4, lines=1) == "- inserted\n"
        lines = (tmp_path / "memory/2026-01-05.md").read_text().split("\n")
        assert lines[2:5] == ["three", "- inserted", "four"]


def test_retain_apply_with_a_fenced_example(tmp_path: Path, fake: FakeEmbedder) -> None:
    log = (
        "# 2025-11-27\n\nPeter said he moved to Lisbon last month and loves the food there.\n\n"
        "How to write facts:\n\n```md\n## Retain\n- O(c=0.9) @Peter: an example bullet\n```\n"
    )
    write(tmp_path, "memory/2025-11-27.md", log)
    now = dt.datetime(2025, 11, 28, 9, 0)
    with memlane.open(tmp_path, provider=fake) as mem:
        mem.sync()
        [done] = mem.retain(day="2025-11-27", apply=True, now=now)
        assert done.written and done.drafts
        text = (tmp_path / "memory/2025-11-27.md").read_text()
        assert text.startswith(log) and "\n## Retain\n\n- " in text[len(log) :]
        assert mem.status()["facts"]["facts"] == len(done.drafts)  # the real section is indexed
        [again] = mem.retain(day="2025-11-27", apply=True, now=now)
        assert not again.drafts and not again.written
        assert (tmp_path / "memory/2025-11-27.md").read_text() == text


def test_front_matter_aliases_without_bombs() -> None:
    page = "---\naliases: [Pete, P. S.]\n---\n# Peter Steinberger\n\naliases: Steipete\n"
    parsed = parse_entity_page("bank/entities/Peter.md", page)
    assert parsed.title == "Peter Steinberger" and parsed.aliases == ("Pete", "P. S.", "Steipete")
    # a 'billion laughs' of aliases: each level nine times the last
    levels = ['a0: &a0 ["xxxxxxxxxx"]']
    levels += [f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 9) + "]" for i in range(1, 8)]
    bomb = "---\n" + "\n".join(levels) + "\naliases: *a7\n---\n# Bomb\n"
    started = time.perf_counter()
    parsed = parse_entity_page("bank/entities/Bomb.md", bomb)
    assert time.perf_counter() - started < 2 and parsed.aliases == () and parsed.title == "Bomb"
    big = "---\naliases: [" + ", ".join(["Name"] * MAX_FRONT_MATTER_CHARS) + "]\n---\n# Big\n"
    assert parse_entity_page("bank/entities/Big.md", big).aliases == ()
    # the front matter's closing --- is no setext underline: the title is still the # heading
    assert parse_entity_page("bank/entities/X.md", "---\naliases: [Y]\n---\n# X title\n").title == "X title"


def test_new_files_take_the_umask_and_replaced_files_keep_their_mode(tmp_path: Path) -> None:
    old = os.umask(0o027)
    try:
        insert_text(tmp_path, "bank/new.md", "- through the rename path")
        write_note(tmp_path, "- through the append path", today=dt.date(2026, 1, 5))
    finally:
        os.umask(old)
    assert stat.S_IMODE((tmp_path / "bank/new.md").stat().st_mode) == 0o640
    assert stat.S_IMODE((tmp_path / "memory/2026-01-05.md").stat().st_mode) == 0o640
    (tmp_path / "bank/new.md").chmod(0o604)
    insert_text(tmp_path, "bank/new.md", "- again")
    assert stat.S_IMODE((tmp_path / "bank/new.md").stat().st_mode) == 0o604


def test_read_core_says_why_it_cannot_read(tmp_path: Path) -> None:
    assert "does not exist yet" in str(read_core(tmp_path, 100)["note"])
    (tmp_path / "MEMORY.md").mkdir()
    with pytest.raises(MemlaneError, match=r"not a regular file: MEMORY\.md"):
        read_core(tmp_path, 100)


def test_block_markers_inside_code_are_text() -> None:
    example = "# Page\n\nHow blocks look:\n\n```\n<!-- memlane:begin facts -->\nold\n<!-- memlane:end facts -->\n```\n"
    new = set_block(example, "facts", "- new\n")
    assert new.startswith(example)  # the example is kept byte for byte; the real block is appended
    assert new[len(example) :] == "\n<!-- memlane:begin facts -->\n- new\n<!-- memlane:end facts -->\n"
