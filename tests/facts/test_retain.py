"""The ## Retain parser: every bullet form of spec 004, malformed bullets, and arbitrary Markdown."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from memlane.facts.retain import find_mentions, normalize_name, parse_retain

SPEC_EXAMPLE = """# 2025-11-27

Worked on the gateway today with @Someone (not a fact: outside Retain).

## Retain
- W @Peter: Currently in Marrakech (Nov 27–Dec 1, 2025) for Andy's birthday.
- B @warelay: I fixed the Baileys WS crash by wrapping connection.update handlers in try/catch.
- O(c=0.95) @Peter: Prefers concise replies (<1500 chars) on WhatsApp; long content goes into files.
- S The week was mostly about the gateway rewrite
  and its rollout (this line continues the bullet).

## Later
- W @Peter: not a fact, this section is not Retain.
"""


def test_the_spec_example() -> None:
    facts, problems = parse_retain(SPEC_EXAMPLE)
    assert problems == []
    assert [(f.kind, f.start_line, f.end_line) for f in facts] == [
        ("world", 6, 6),
        ("experience", 7, 7),
        ("opinion", 8, 8),
        ("observation", 9, 10),
    ]
    peter, warelay, opinion, summary = facts
    assert peter.content == "Currently in Marrakech (Nov 27–Dec 1, 2025) for Andy's birthday."
    assert [m.name for m in peter.mentions] == ["Peter"] and peter.confidence is None
    assert warelay.content.startswith("I fixed the Baileys") and [m.norm for m in warelay.mentions] == ["warelay"]
    assert opinion.confidence == 0.95 and opinion.content.startswith("Prefers concise replies")
    assert summary.mentions == () and summary.content == (
        "The week was mostly about the gateway rewrite and its rollout (this line continues the bullet)."
    )


def test_mentions_anywhere_multiword_and_unicode() -> None:
    text = (
        "## Retain\n"
        "- W @Peter @warelay: both mentioned before the colon\n"
        "- W Met the @[The Castle] crew and @Zoë at @The-Castle, mail zoe@example.com\n"
        "- B @山田: 日本語の名前もメンションになる\n"
        "- W @Peter moved to Vienna.\n"
    )
    facts, problems = parse_retain(text)
    assert problems == []
    assert [m.name for m in facts[0].mentions] == ["Peter", "warelay"]
    assert facts[0].content == "both mentioned before the colon"
    # one key for both spellings of The Castle; the e-mail address is no mention
    assert [(m.name, m.norm) for m in facts[1].mentions] == [("The Castle", "thecastle"), ("Zoë", "zoë")]
    assert facts[1].content.startswith("Met the @[The Castle] crew")
    assert [m.norm for m in facts[2].mentions] == ["山田"]
    # without a colon the leading mention is part of the sentence
    assert facts[3].content == "@Peter moved to Vienna." and [m.name for m in facts[3].mentions] == ["Peter"]


def test_malformed_bullets_are_reported_with_their_line_and_skipped() -> None:
    text = (
        "## Retain\n"  # 1
        "- X @Peter: unknown kind\n"  # 2
        "- O(c=1.7) @Peter: too confident\n"  # 3
        "- O(c=abc): not a number\n"  # 4
        "- W(c=0.5) @Peter: confidence on a world fact\n"  # 5
        "- W @Peter:\n"  # 6
        "- Was a nice day, no kind\n"  # 7
        "-\n"  # 8
        "- W @Peter: the good one\n"  # 9
    )
    facts, problems = parse_retain(text)
    assert [(f.start_line, f.content) for f in facts] == [(9, "the good one")]
    assert [p.line for p in problems] == [2, 3, 4, 5, 6, 7, 8]
    messages = " | ".join(p.message for p in problems)
    for fragment in ("unknown fact kind 'X'", "c=0.0..1.0", "only opinions", "no text", "starts with a kind", "empty"):
        assert fragment in messages


def test_section_bounds_fences_and_nested_headings() -> None:
    text = (
        "# Day\n"
        "### Retain\n"  # a level-3 Retain section
        "- W @A: one\n"
        "```\n"
        "- W @Fenced: inside a code fence\n"
        "```\n"
        "#### Deeper heading stays inside\n"
        "- W @B: two\n"
        "## Next\n"  # a higher level ends it
        "- W @C: outside\n"
        "## retain\n"  # any case
        "* B: star bullets count, and a kind with a bare colon\n"
    )
    facts, problems = parse_retain(text)
    assert problems == []
    assert [f.content for f in facts] == ["one", "two", "star bullets count, and a kind with a bare colon"]
    assert facts[2].kind == "experience"


def test_normalized_names_ignore_case_dashes_spaces_only() -> None:
    assert normalize_name("The-Castle") == normalize_name("the castle") == normalize_name("THE_CASTLE") == "thecastle"
    assert normalize_name("Tigran") != normalize_name("Iran")
    assert [m.name for m in find_mentions("ping @Peter. and @peter again, @[P. S.]")] == ["Peter", "P. S."]


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.one_of(
            st.sampled_from(["## Retain", "# Other", "```", "- W @A: x", "- O(c=0.5) @B: y", "  more", "", "-", "- "]),
            st.text(alphabet=st.characters(blacklist_categories=["Cs"]), max_size=40),
        ),
        max_size=40,
    )
)
def test_any_markdown_parses_without_error(lines: list[str]) -> None:
    text = "\n".join(lines)
    facts, problems = parse_retain(text)
    count = len(text.splitlines())
    for f in facts:
        assert 1 <= f.start_line <= f.end_line <= count
        assert f.kind in ("world", "experience", "opinion", "observation") and f.content.strip()
        assert f.confidence is None or 0 <= f.confidence <= 1
    assert all(1 <= p.line <= count for p in problems)
    starts = [f.start_line for f in facts] + [p.line for p in problems]
    assert len(starts) == len(set(starts))  # a bullet is a fact or a problem, never both
