from __future__ import annotations

import itertools

from hypothesis import given, settings
from hypothesis import strategies as st

from memlane.index.chunking import chunk_markdown, whitespace_token_counter
from memlane.text.markdown import split_lines

count = whitespace_token_counter


def test_headings_start_new_chunks_and_line_ranges_are_exact() -> None:
    text = "# Title\nintro line\n\n## A\nalpha one\nalpha two\n\n## B\nbeta\n"
    chunks = chunk_markdown(text, max_tokens=100, overlap=0)
    lines = split_lines(text)
    assert [(c.start_line, c.end_line) for c in chunks] == [(1, 2), (4, 6), (8, 9)]
    for c in chunks:
        assert c.text == "\n".join(lines[c.start_line - 1 : c.end_line])


def test_heading_only_section_joins_the_next() -> None:
    chunks = chunk_markdown("# Project\n## Goals\n- ship it\n", max_tokens=100, overlap=0)
    assert [(c.start_line, c.end_line) for c in chunks] == [(1, 3)]


def test_headings_inside_code_fences_do_not_split() -> None:
    text = "## Setup\n```bash\n# not a heading\necho hi\n```\nafter\n"
    chunks = chunk_markdown(text, max_tokens=100, overlap=0)
    assert len(chunks) == 1 and chunks[0].end_line == 6


def test_long_section_splits_at_paragraphs_with_overlap() -> None:
    para = "\n".join(f"line {i} " + "word " * 8 for i in range(6))
    text = "## S\n" + para + "\n\n" + para + "\n"
    chunks = chunk_markdown(text, max_tokens=70, overlap=12)
    assert len(chunks) >= 2
    for c in chunks:
        assert count([c.text])[0] <= 70
    # consecutive chunks overlap by whole lines, and each one moves forward
    for a, b in itertools.pairwise(chunks):
        assert b.start_line > a.start_line and b.end_line > a.end_line


def test_overlong_line_is_split_into_pieces_on_that_line() -> None:
    line = " ".join(f"w{i}." for i in range(300))
    chunks = chunk_markdown(f"intro\n{line}\noutro\n", max_tokens=50, overlap=10)
    on_line_two = [c for c in chunks if c.start_line == c.end_line == 2]
    assert len(on_line_two) >= 6
    assert all(count([c.text])[0] <= 50 for c in chunks)
    rejoined = " ".join(c.text for c in on_line_two)
    assert rejoined.split() == line.split()  # nothing lost


def test_cjk_run_without_spaces_is_split_by_characters() -> None:
    def cjk_count(texts: list[str] | tuple[str, ...]) -> list[int]:
        return [len(t) for t in texts]

    text = "中" * 500
    chunks = chunk_markdown(text, max_tokens=100, overlap=0, count_tokens=cjk_count)
    assert all(len(c.text) <= 100 for c in chunks)
    assert "".join(c.text for c in chunks) == text


def test_empty_and_blank_files_have_no_chunks() -> None:
    assert chunk_markdown("", 100, 10) == []
    assert chunk_markdown("\n\n   \n", 100, 10) == []


markdown_line = st.one_of(
    st.just(""),
    st.builds(lambda lvl, t: "#" * lvl + " " + t, st.integers(1, 6), st.text(alphabet="abc xyz", max_size=20)),
    st.just("```"),
    st.text(
        alphabet=st.characters(
            blacklist_categories=("Cs",), blacklist_characters="\r\n\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"
        ),
        max_size=120,
    ),
    st.builds(lambda n: " ".join(["word"] * n), st.integers(0, 200)),
)


@settings(max_examples=200, deadline=None)
@given(lines=st.lists(markdown_line, max_size=60), cap=st.integers(8, 120), overlap_ratio=st.floats(0, 0.5))
def test_property_chunks_cover_every_line_within_the_cap(lines: list[str], cap: int, overlap_ratio: float) -> None:
    text = "\n".join(lines)
    overlap = int(cap * overlap_ratio)
    chunks = chunk_markdown(text, max_tokens=cap, overlap=overlap)
    file_lines = split_lines(text)
    covered: set[int] = set()
    for c in chunks:
        assert 1 <= c.start_line <= c.end_line <= len(file_lines)
        assert c.text.strip()
        assert count([c.text])[0] <= cap, "a chunk exceeds the token cap"
        if c.start_line != c.end_line or c.text == file_lines[c.start_line - 1]:
            assert c.text == "\n".join(file_lines[c.start_line - 1 : c.end_line])
        else:  # a piece of an over-long line: every word of it stands on that line
            source = file_lines[c.start_line - 1]
            assert all(word in source for word in c.text.split())
        covered.update(range(c.start_line, c.end_line + 1))
    for i, line in enumerate(file_lines, start=1):
        if line.strip():
            assert i in covered, f"line {i} is in no chunk"
    starts = [c.start_line for c in chunks]
    assert starts == sorted(starts)
