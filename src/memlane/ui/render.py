"""HTML pieces the pages need beyond a template: a memory file rendered with its lines marked, and the two
pictures (a confidence path, a neighbourhood) drawn as SVG on the server, so no chart library ships.

Markdown goes through the package's one Markdown reader (markdown-it-py, CommonMark) with raw HTML off: a
memory file is shown, never run. Every block carries ``data-line`` (1-based, as citations count), blocks
that overlap the cited lines carry ``class="hl"`` and the first of them ``id="cited"``, and a list item that
is a Retain bullet carries its kind and where it comes from (``data-origin``: person, agent or file).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from html import escape
from typing import Any

from markdown_it import MarkdownIt

# Blocks a citation highlights: the innermost ones, so a cited bullet lights up, not its whole list.
# A tight list's paragraphs are not rendered, so its items stand for them.
_LEAVES = {"paragraph_open", "list_item_open", "heading_open", "fence", "code_block", "tr_open", "hr", "html_block"}
_md = MarkdownIt("commonmark", {"html": False}).enable("table")
# How the view says where a fact comes from (memlane.text.origin).
ORIGIN_LABELS = {"person": "said by the person", "agent": "said by the agent", "file": "written in a file"}


def markdown_with_lines(
    text: str, cited: tuple[int, int] | None, facts: Mapping[int, str], origins: Mapping[int, str] | None = None
) -> str:
    """``text`` as HTML. ``cited``: the (first, last) line to highlight; ``facts``: Retain bullets' first
    line -> kind (world, experience, opinion, observation); ``origins``: the same lines -> origin."""
    tokens = _md.parse(text)
    first = True
    for tok in tokens:
        if tok.map is None or tok.nesting == -1 or tok.hidden:
            continue
        start, end = tok.map[0] + 1, tok.map[1]  # map is 0-based and end-exclusive: lines start..end
        tok.attrSet("data-line", str(start))
        classes = []
        if tok.type == "list_item_open" and start in facts:
            kind = facts[start]
            classes.append(f"fact fact-{kind}")
            tok.attrSet("data-kind", kind)
            origin = (origins or {}).get(start)
            if origin is not None:
                classes.append(f"origin-{origin}")
                tok.attrSet("data-origin", origin)
            tok.attrSet("title", f"Retain bullet: {kind}" + (f", {ORIGIN_LABELS[origin]}" if origin else ""))
        if cited is not None and tok.type in _LEAVES and start <= cited[1] and end >= cited[0]:
            classes.append("hl")
            if first:
                tok.attrSet("id", "cited")
                first = False
        if classes:
            tok.attrSet("class", " ".join(classes))
    return str(_md.renderer.render(tokens, _md.options, {}))


def confidence_chart(steps: Sequence[Mapping[str, Any]], width: int = 520, height: int = 170) -> str:
    """An opinion's confidence after each step as a line over 0..1, one dot per step coloured by its effect,
    each dot's title naming the day, the effect and the source."""
    pad_l, pad_r, pad_t, pad_b = 34, 12, 10, 24
    w, h = width - pad_l - pad_r, height - pad_t - pad_b
    n = len(steps)

    def x(i: int) -> float:
        return pad_l + (w * i / (n - 1) if n > 1 else w / 2)

    def y(c: float) -> float:
        return pad_t + h * (1 - c)

    parts = [
        f'<svg class="chart" viewBox="0 0 {width} {height}" width="{width}" height="{height}" role="img" '
        f'aria-label="confidence over time">'
    ]
    for c in (0.0, 0.5, 1.0):
        parts.append(f'<line class="grid" x1="{pad_l}" x2="{pad_l + w}" y1="{y(c):.1f}" y2="{y(c):.1f}"/>')
        parts.append(f'<text class="axis" x="{pad_l - 6}" y="{y(c) + 4:.1f}" text-anchor="end">{c:.1f}</text>')
    points = " ".join(f"{x(i):.1f},{y(float(s['confidence'])):.1f}" for i, s in enumerate(steps))
    parts.append(f'<polyline class="path" points="{points}"/>')
    for i, s in enumerate(steps):
        label = " · ".join(str(v) for v in (s.get("day") or "undated", s["effect"], s.get("source")) if v)
        parts.append(
            f'<circle class="dot {escape(str(s["effect"]))}" cx="{x(i):.1f}" cy="{y(float(s["confidence"])):.1f}" '
            f'r="5"><title>{escape(label)}: {float(s["confidence"]):.2f}</title></circle>'
        )
    if n:
        for i in sorted({0, n - 1}):
            day = steps[i].get("day") or ""
            parts.append(
                f'<text class="axis" x="{x(i):.1f}" y="{height - 6}" text-anchor="{"start" if i == 0 else "end"}">'
                f"{escape(day)}</text>"
            )
    parts.append("</svg>")
    return "".join(parts)


def neighbourhood_svg(
    center: str,
    nodes: Iterable[Mapping[str, Any]],
    edges: Iterable[Mapping[str, Any]],
    href: Callable[[str], str],
    size: int = 560,
) -> str:
    """The entity in the middle, depth-1 neighbours on an inner ring and depth-2 ones on an outer ring, each
    a link (``href(name)``) to its page; edges labelled with their relation."""
    mid = size / 2
    rings: dict[int, list[str]] = {}
    for node in nodes:
        if node["name"] != center:
            rings.setdefault(min(int(node.get("depth", 1)), 2), []).append(str(node["name"]))
    pos: dict[str, tuple[float, float]] = {center: (mid, mid)}
    for depth, ring in rings.items():
        radius = size * (0.24 if depth == 1 else 0.42)
        for i, name in enumerate(sorted(ring)):
            angle = 2 * math.pi * i / len(ring) - math.pi / 2 + (0.3 if depth == 2 else 0.0)
            pos[name] = (mid + radius * math.cos(angle), mid + radius * math.sin(angle))
    label = escape(f"relations of {center}")
    box = f'viewBox="0 0 {size} {size}" width="{size}" height="{size}"'
    out = [f'<svg class="graph" {box} role="img" aria-label="{label}">']
    for e in edges:
        a, b = pos.get(str(e["subject"])), pos.get(str(e["object"]))
        if a is None or b is None:
            continue
        said = escape(f"{e['subject']} {e['predicate']} {e['object']} ({e.get('source') or ''})")
        out.append(f'<line class="edge" x1="{a[0]:.1f}" y1="{a[1]:.1f}" x2="{b[0]:.1f}" y2="{b[1]:.1f}">')
        out.append(f"<title>{said}</title></line>")
        x, y = (a[0] + b[0]) / 2, (a[1] + b[1]) / 2 - 3
        out.append(f'<text class="edge-label" x="{x:.1f}" y="{y:.1f}" text-anchor="middle">')
        out.append(f"{escape(str(e['predicate']))}</text>")
    for name, (px, py) in pos.items():
        big = name == center
        link = escape(href(name))
        out.append(f'<a href="{link}" class="node{" center" if big else ""}" data-entity="{escape(name)}">')
        out.append(f'<circle cx="{px:.1f}" cy="{py:.1f}" r="{16 if big else 11}"/>')
        out.append(
            f'<text x="{px:.1f}" y="{py + (30 if big else 24):.1f}" text-anchor="middle">{escape(name)}</text></a>'
        )
    out.append("</svg>")
    return "".join(out)


def fact_kinds(facts: Iterable[Any]) -> dict[int, str]:
    """Retain bullets' first line -> kind, from the fact index's rows of one file."""
    return {int(f.start_line): str(f.kind) for f in facts}


def fact_origins(facts: Iterable[Any]) -> dict[int, str]:
    """Retain bullets' first line -> origin (person, agent, file), from the fact index's rows of one file."""
    return {int(f.start_line): str(f.origin) for f in facts}
