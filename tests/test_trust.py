"""The trust boundary (issue 41): a correction rewrites the one fact it corrects; where a fact comes from is kept
and shown; ``memlane context`` frames memory as notes, not instructions."""

from __future__ import annotations

import datetime as dt
import re
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

import memlane
from memlane.capture.section import SessionPart, correct, merge
from memlane.facts.origin import origin_of

NOW = dt.datetime(2026, 5, 1, 18, 0)
T = dt.time(14, 0)


def _turn(role: str, content: str, hh: int, mm: int) -> dict[str, Any]:
    return {"role": role, "content": content, "timestamp": f"2026-05-01T{hh:02d}:{mm:02d}:00"}


def _section(bullets: list[str], newline: bool = True) -> str:
    text = "## Session 14:00–14:05 · a session\n<!-- memlane:capture session=s -->\n\n### Retain\n" + "\n".join(bullets)
    return text + ("\n" if newline else "")


def _fix(text: str, old: str, new: str) -> tuple[str, int]:
    merged = merge(text, SessionPart("s", "a session", T, T, corrections=[(old, new)]))
    return merged.text, merged.corrected


# -- corrections


def test_the_issues_correction_rewrites_one_value_of_one_fact(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    booked = "We booked the venue for 10 guests on Nov 10 and I paid 10 euros deposit"
    with memlane.open(ws, provider="none") as mem:
        mem.capture([_turn("user", "I'm moving to Porto in May. The 10 bikes arrive Friday.", 14, 2)], "s", NOW)
        mem.capture([_turn("user", booked, 14, 3)], session="s", now=NOW)
        before = (ws / "memory/2026-05-01.md").read_text(encoding="utf-8")
        report = mem.capture([_turn("user", "No, it's 12 guests, not 10", 14, 10)], session="s", now=NOW)
    after = (ws / "memory/2026-05-01.md").read_text(encoding="utf-8")
    changed = [(a, b) for a, b in zip(before.split("\n"), after.split("\n"), strict=True) if a != b]
    assert len(changed) == 1, changed  # one line, the booking's
    old, new = changed[0]
    assert old.replace("for 10 guests", "for 12 guests", 1) == new, (old, new)
    assert "on Nov 10" in new and "paid 10 euros" in new and new.endswith("(User, 14:03)")
    assert after.endswith("\n") and "10 bikes" in after
    assert any("rewrote 1 earlier bullet" in n for n in report.notes)


def test_a_correction_leaves_the_stamp_other_places_and_other_facts() -> None:
    bullets = [
        "- W @User: User paid 10 euros deposit on Nov 10. (User, 10:10)",
        "- W @User: We booked the venue for 10 guests on Nov 10. (User, 10:11)",
        "- W @User: The 10 chairs came at 10:10. (User, 10:12)",
    ]
    text, count = _fix(_section(bullets), "10", "12 guests")
    lines = text.split("\n")
    assert count == 1
    assert lines[4] == bullets[0] and lines[6] == bullets[2]
    assert lines[5] == "- W @User: We booked the venue for 12 guests on Nov 10. (User, 10:11)"
    # the unit on the old side: "not 10 guests, 12"
    text, _ = _fix(_section(bullets), "10 guests", "12")
    assert text.split("\n")[5] == "- W @User: We booked the venue for 12 guests on Nov 10. (User, 10:11)"


def test_a_named_value_is_rewritten_in_the_latest_fact_with_its_tag() -> None:
    bullets = [
        "- W @User @Porto: User lived in Porto as a student. (User, 09:00)",
        "- W @User @Porto: User is moving to Porto in May. (User, 09:05)",
    ]
    text, count = _fix(_section(bullets, newline=False), "Porto", "Lisbon")
    lines = text.split("\n")
    assert count == 1 and not text.endswith("\n")
    assert lines[4] == bullets[0]
    assert lines[5] == "- W @User @Lisbon: User is moving to Lisbon in May. (User, 09:05)"


def test_a_correction_that_names_nothing_changes_nothing() -> None:
    text = _section(["- W @User: User is moving to Porto in May. (User, 09:05)"])
    assert _fix(text, "Madrid", "Lisbon") == (text, 0)
    assert _fix(text, "09", "10") == (text, 0)  # a stamp is not a value


_WORDS = st.sampled_from(["venue", "guests", "euros", "chairs", "Nov", "paid", "booked", "for", "on", "at", "the"])
_NUMBERS = st.integers(min_value=1, max_value=99).map(str)
_BODY = st.lists(st.one_of(_WORDS, _NUMBERS), min_size=1, max_size=12).map(" ".join)


@st.composite
def _facts_and_correction(draw: st.DrawFn) -> tuple[list[str], str, str]:
    bodies = draw(st.lists(_BODY, min_size=1, max_size=6))
    stamps = [
        f"({draw(st.sampled_from(['User', 'assistant', 'Ana']))}, {n % 24:02d}:{n % 60:02d})"
        for n in range(len(bodies))
    ]
    bullets = [f"- {draw(st.sampled_from('WBOS'))} @User: {b}. {s}" for b, s in zip(bodies, stamps, strict=True)]
    old = draw(st.one_of(_NUMBERS, _WORDS))
    new = draw(st.one_of(_NUMBERS, _WORDS).filter(lambda w: w.casefold() != old.casefold()))
    unit = draw(st.sampled_from(["", " guests", " euros"]))
    if old[0].isdigit() and new[0].isdigit():
        new += unit
    return bullets, old, new


def _occurs(value: str, text: str) -> bool:
    return re.search(rf"(?<!\w)(?<!\w[.,:/-]){re.escape(value)}(?!\w)(?![.,:/-]\w)", text, re.IGNORECASE) is not None


@settings(max_examples=300, deadline=None)
@given(_facts_and_correction(), st.booleans())
def test_property_a_correction_rewrites_one_value_of_one_fact_and_nothing_else(
    case: tuple[list[str], str, str], newline: bool
) -> None:
    bullets, old, new = case
    text = _section(bullets, newline)
    out, count = _fix(text, old, new)
    assert out.endswith("\n") == newline  # the file's last line end is kept
    before, after = text.split("\n"), out.split("\n")
    assert len(before) == len(after)
    changed = [i for i, (a, b) in enumerate(zip(before, after, strict=True)) if a != b]
    bodies = [re.sub(r" \([^()]*\)$", "", b.split(": ", 1)[1]) for b in bullets]
    if not any(_occurs(old.split()[0] if old[0].isdigit() else old, b) for b in bodies):
        assert out == text and count == 0
        return
    assert count == len(changed) <= 1
    for i in changed:
        a, b = before[i], after[i]
        # the kind, tags and stamp are as they were
        assert a.split(": ", 1)[0] == b.split(": ", 1)[0]
        assert re.search(r"\([^()]*\)$", a).group(0) == re.search(r"\([^()]*\)$", b).group(0)  # type: ignore[union-attr]
        # one place changed: what is left of the old line around it is the new line around it
        lead = len(_common_prefix(a, b))
        tail = len(_common_prefix(a[::-1], b[::-1]))
        old_span = a[lead : len(a) - tail] if lead + tail <= len(a) else ""
        new_span = b[lead : len(b) - tail] if lead + tail <= len(b) else ""
        value_old, value_new = (old.split()[0], new.split()[0]) if old[0].isdigit() and new[0].isdigit() else (old, new)
        assert value_old.casefold().endswith(old_span.casefold()) or old_span.casefold() in value_old.casefold()
        assert new_span.casefold() in new.casefold() and len(new_span) <= len(new)
        assert value_new.casefold() in b.casefold()


def _common_prefix(a: str, b: str) -> str:
    n = 0
    while n < min(len(a), len(b)) and a[n] == b[n]:
        n += 1
    return a[:n]


@settings(max_examples=200, deadline=None)
@given(st.lists(_BODY, min_size=2, max_size=5), _NUMBERS, _NUMBERS, st.data())
def test_property_the_fact_with_the_unit_is_the_one_corrected(
    noise: list[str], old: str, new: str, data: st.DataObject
) -> None:
    if old == new:
        return
    noise = [b.replace("guests", "people") for b in noise]
    at = data.draw(st.integers(min_value=0, max_value=len(noise)))
    bodies = [*noise[:at], f"the venue for {old} guests", *noise[at:]]
    bullets = [f"- W @User: {b}. (User, 10:{i:02d})" for i, b in enumerate(bodies)]
    fix = correct(bullets, old, f"{new} guests")
    assert fix is not None and fix.index == at
    assert fix.line == bullets[at].replace(f"for {old} guests", f"for {new} guests")


def test_correct_is_linear_on_a_hostile_line() -> None:
    import time

    def cost(n: int) -> float:
        line = "- W @User: " + "10 " * n + "(" * n + " " * n + ")"
        started = time.perf_counter()
        correct([line], "10", "12 guests")
        return time.perf_counter() - started

    small, big = cost(2_000), cost(16_000)
    assert big < small * 24  # 8x the input, well under 64x


# -- origins


def test_origin_of_a_bullet() -> None:
    assert origin_of("User moved to Lisbon. (User, 14:05)") == "person"
    assert origin_of("Peter moved to Lisbon. (Peter, 14:05)") == "person"
    assert origin_of("I fixed the import. (assistant, 14:05)") == "agent"
    assert origin_of("Moved to Lisbon in May.") == "file"
    assert origin_of("Moved to Lisbon (for good).") == "file"
