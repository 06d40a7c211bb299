"""The parsers on hostile and on large real input: issue 23's size and time figures.

    .venv/bin/python bench/hostile.py                       # this checkout
    PYTHONPATH=/tmp/old/src .venv/bin/python bench/hostile.py   # an older checkout's src, to compare

Rows:
- one heading line of N spaces (``"# a" + " " * N + "x"``) through every reader of headings: the
  Markdown reader (chunker, Retain parser, entity pages) and the writer's insert under a heading;
- deriving the facts of a large daily log of real conversation (LoCoMo's turns, about 193 KB) with
  500 Retain bullets drafted from its own lines, as every write to that log re-derives it;
- the YAML alias bomb: a 9-way, 7-level anchor tree in an entity page's front matter, with the size
  it would expand to and what the page yields.
Each time is the median of a few runs; one run per row past 5 s. Prints numbers; asserts nothing.
"""

from __future__ import annotations

import datetime as dt
import json
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

import locomo_data
from memlane.facts.derive import derive_file
from memlane.facts.entities import parse_entity_page
from memlane.facts.retain import parse_retain
from memlane.reflect.extract import draft_log

try:  # the writer's own heading search (a private function: this bench compares versions of it)
    from memlane.files.writer import _insert_under
except ImportError:  # pragma: no cover - a checkout without it
    _insert_under = None  # type: ignore[assignment]


def uncache() -> None:
    """Forget cached parses, so that every run parses (the Markdown reader caches its last few texts)."""
    try:
        from memlane.text.markdown import parse
    except ImportError:  # an older checkout: nothing cached
        return
    parse.cache_clear()


def timed(call: Callable[[], object], runs: int = 5) -> float:
    times = []
    for _ in range(runs):
        uncache()
        started = time.perf_counter()
        call()
        times.append(time.perf_counter() - started)
        if times[-1] > 5:
            break
    return statistics.median(times)


def heading_rows(sizes: list[int]) -> None:
    print("one heading line of N spaces: '# a' + ' ' * N + 'x' (median seconds)")
    print(f"{'N':>8} {'retain parser':>14} {'entity page':>12} {'writer insert':>14}")
    for n in sizes:
        text = "# a" + " " * n + "x\n\n## Retain\n- W @Peter: a fact\n"
        row = [timed(lambda t=text: parse_retain(t)), timed(lambda t=text: parse_entity_page("bank/entities/A.md", t))]
        row.append(timed(lambda t=text: _insert_under(t, "Notes", "- note")) if _insert_under else float("nan"))
        print(f"{n:>8,} " + " ".join(f"{t:>13.4f}s" for t in row))


def big_log(target_chars: int = 150_000, facts: int = 500) -> str:
    """A daily log of LoCoMo's turns (``target_chars`` of them), ending in ``facts`` Retain bullets drafted
    from its own lines by the offline drafter: about 193 KB in all."""
    turns: list[str] = []
    size = 0
    for sample in json.loads((locomo_data.SHARED / "locomo10.json").read_text()):
        conv = sample["conversation"]
        for key in sorted((k for k in conv if k.startswith("session_") and k[8:].isdigit()), key=lambda k: int(k[8:])):
            for turn in conv[key]:
                line = f"- {turn['speaker']}: {turn['text']}"
                turns.append(line)
                size += len(line) + 1
                if size >= target_chars:
                    return _with_facts("# 2023-05-08\n\n" + "\n".join(turns) + "\n", facts)
    raise SystemExit("LoCoMo has fewer characters than asked for")


def _with_facts(body: str, facts: int) -> str:
    bullets: list[str] = []
    for d in draft_log(body, dt.date(2023, 5, 8)):
        bullets.append(d.bullet())
        if len(bullets) == facts:
            break
    return body + "\n## Retain\n" + "\n".join(bullets) + "\n"


def derive_row() -> None:
    text = big_log()
    n = len(derive_file("memory/2023-05-08.md", text).facts)
    took = timed(lambda: derive_file("memory/2023-05-08.md", text), runs=3)
    print(f"derive a {len(text.encode()) / 1000:.0f} KB log with {n} facts: {took:.2f} s (median of up to 3)")


def bomb_row(levels: int = 7) -> None:
    lines = ['a0: &a0 ["xxxxxxxxxx"]']
    lines += [f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 9) + "]" for i in range(1, levels + 1)]
    page = "---\n" + "\n".join(lines) + f"\naliases: *a{levels}\n---\n# Bomb\n"
    expanded = 10 * 9**levels
    started = time.perf_counter()
    result = parse_entity_page("bank/entities/Bomb.md", page)
    took = time.perf_counter() - started
    print(
        f"alias bomb: a {len(page)}-byte page that expands to {expanded:,} characters of aliases -> "
        f"{len(result.aliases)} aliases, {sum(len(a) for a in result.aliases):,} characters, {took * 1000:.1f} ms"
    )


def main() -> None:
    sizes = [int(a) for a in sys.argv[1:]] or [250, 500, 1_000, 20_000]
    print(f"memlane from {Path(sys.modules['memlane'].__file__ or '').parent}")
    heading_rows(sizes)
    derive_row()
    bomb_row()


if __name__ == "__main__":
    main()
