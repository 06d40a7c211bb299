"""The data of each page, as JSON-ready dicts: every one a view over calls the library already has
(``search``, ``recall``, ``get``, ``status``, ``doctor``, the fact index, reflect's belief rule), with no
ranking of its own. The HTML pages and the ``/api/*`` endpoints both render these."""

from __future__ import annotations

import dataclasses
import datetime as dt
import re
from typing import Any
from urllib.parse import quote

from ..capture.section import sessions_in
from ..errors import MemlaneError, PathError
from ..memory import Memory
from ..store.facts import StoredFact
from .render import fact_kinds, fact_origins, markdown_with_lines

_SOURCE = re.compile(r"^(?P<path>.+?)(?:#L(?P<start>\d+)(?:-L(?P<end>\d+))?)?$")
_DAILY = re.compile(r"^memory/(\d{4}-\d{2}-\d{2})\.md$")


def file_href(source: str) -> str:
    """The file view of a citation ``path#L12-L14``: the file with those lines highlighted."""
    m = _SOURCE.match(source)
    path, start, end = (m.group("path"), m.group("start"), m.group("end")) if m else (source, None, None)
    href = f"/file?path={quote(path, safe='/')}"
    if start:
        href += f"&lines={start}-{end or start}#cited"
    return href


def entity_href(name: str) -> str:
    return f"/entity?name={quote(name, safe='')}"


def search(mem: Memory, query: str) -> dict[str, Any]:
    """One box, both answers: the passages search ranks and the facts recall ranks, each with the signals
    that ranked it (as ``--explain`` shows them) and a link to the cited lines."""
    resp = mem.search(query, max_results=10, min_score=0)
    results = []
    for r in resp.results:
        item = r.to_dict()
        item["signals"] = {
            k: round(v, 4) for k, v in (("vector", r.vector_score), ("keyword", r.text_score)) if v is not None
        }
        item["cite"], item["href"] = r.cite, file_href(r.cite)
        results.append(item)
    rec = mem.recall(query, k=10, explain=True)
    facts = []
    for f in rec.facts:
        item = f.to_dict()
        item["signals"] = {k: round(v, 4) for k, v in (f.signals or {}).items() if round(v, 4)}  # those that ranked it
        item["href"] = file_href(f.source)
        facts.append(item)
    return {
        "query": query,
        "mode": resp.mode,
        "results": results,
        "facts": facts,
        "entities": [e.to_dict() for e in rec.entities],
        "notes": list(dict.fromkeys([*resp.notes, *rec.notes])),
    }


def parse_lines(value: str | None) -> tuple[int, int] | None:
    """``12`` or ``12-14`` as (first, last); anything else None."""
    m = re.fullmatch(r"(\d{1,9})(?:-(\d{1,9}))?", value or "")
    if m is None:
        return None
    first = int(m.group(1))
    return first, max(first, int(m.group(2) or first))


def file(mem: Memory, path: str, lines: str | None = None) -> dict[str, Any]:
    """A memory file as written, rendered, with the cited lines and the Retain bullets marked by kind."""
    text = mem.get(path)  # every path check of memory_get: workspace, extraPaths, transcripts
    cited = parse_lines(lines)
    facts: list[StoredFact] = mem.store.facts.of_path(path)
    return {
        "path": path,
        "text": text,
        "lines": list(cited) if cited else None,
        "html": markdown_with_lines(text, cited, fact_kinds(facts), fact_origins(facts)),
        "facts": [{"line": f.start_line, "kind": f.kind, "content": f.content, "origin": f.origin} for f in facts],
    }


def entities(mem: Memory) -> dict[str, Any]:
    items = mem.entities()
    items.sort(key=lambda e: (-int(e["facts"]), str(e["name"]).lower()))
    for e in items:
        e["href"] = entity_href(e["name"])
    return {"entities": items}


def entity(mem: Memory, name: str) -> dict[str, Any]:
    """An entity's facts, its timeline (relations in valid-time order, or its facts by day when it has
    none), the entities beside it, and, with relations, its values now and a neighbourhood graph."""
    out = mem.entity(name)
    for f in out["facts"]:
        f["href"] = file_href(f["source"])
    out["related"] = [{"name": n, "shared": c, "href": entity_href(n)} for n, c in out["related"][:30]]
    timeline = _timeline(mem, out["name"])
    out["updates"] = timeline["updates"] if timeline is not None else []
    if timeline is not None and timeline["relations"]:
        out["timeline"] = [
            {**e, "href": file_href(e["source"]) if e.get("source") else None} for e in timeline["relations"]
        ]
        hood = mem.graph(out["name"], depth=2)
        out["graph"] = {"nodes": hood["nodes"], "edges": hood["edges"]}
    else:
        by_day: dict[str, int] = {}
        for f in out["facts"]:
            by_day[f["day"] or "undated"] = by_day.get(f["day"] or "undated", 0) + 1
        out["timeline"] = None
        out["days"] = sorted(by_day.items(), reverse=True)
        out["graph"] = None
    return out


def _timeline(mem: Memory, name: str) -> dict[str, Any] | None:
    try:
        return mem.timeline(name)
    except MemlaneError:  # an entity the relations do not know: its facts by day stand in
        return None


def beliefs(mem: Memory, now: dt.datetime | None = None) -> dict[str, Any]:
    """Every opinion's confidence step by step (reflect's rule), with the evidence for and against."""
    data = mem.beliefs(now=now)
    for op in data["opinions"]:
        op["href"] = file_href(op["source"])
        for s in op["steps"]:
            s["href"] = file_href(s["source"]) if s.get("source") else None
    return data


def changes(
    mem: Memory, days: int = 14, now: dt.datetime | None = None, proposals: list[dict[str, Any]] | None = None
) -> dict[str, Any]:
    """By day, latest first: the facts of that day's logs, the capture sessions written into them, and the
    reflect proposals for MEMORY.md that day's facts back (``proposals``: :func:`beliefs`' own, when the
    caller keeps them)."""
    today = (now or dt.datetime.now()).date()
    since = today - dt.timedelta(days=max(days, 1) - 1)
    out: dict[str, dict[str, Any]] = {}

    def day_of(day: str) -> dict[str, Any]:
        return out.setdefault(day, {"day": day, "facts": [], "captures": [], "proposals": []})

    for f in mem.facts_since(since):
        f["href"] = file_href(f["source"])
        day_of(f["day"])["facts"].append(f)
    for path in _daily_logs(mem, since):
        day = _DAILY.match(path).group(1)  # type: ignore[union-attr]
        try:
            text = mem.get(path)
        except PathError:  # removed since the index last saw it: its facts go with the next sync
            continue
        for capture in _captures(text, path):
            day_of(day)["captures"].append(capture)
    for p in proposals if proposals is not None else mem.beliefs(now=now)["proposals"]:
        latest = max(p["days"]) if p["days"] else None
        if latest and latest >= since.isoformat():
            day_of(latest)["proposals"].append({**p, "href": file_href(p["sources"][0])})
    return {"since": since.isoformat(), "days": [out[d] for d in sorted(out, reverse=True)]}


def _daily_logs(mem: Memory, since: dt.date) -> list[str]:
    paths = mem.store.file_states()
    return sorted(p for p in paths if (m := _DAILY.match(p)) and m.group(1) >= since.isoformat())


def _captures(text: str, path: str) -> list[dict[str, Any]]:
    """The capture sessions of one daily log: their heading, session id, line and bullet count."""
    return [{**dataclasses.asdict(c), "path": path, "href": file_href(f"{path}#L{c.line}")} for c in sessions_in(text)]


def health(mem: Memory, checks: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    """``status`` and ``doctor`` (``checks``: doctor's, when the caller keeps them; its integrity check reads
    the whole index)."""
    if checks is None:
        checks = doctor(mem)
    return {"status": mem.status(), "checks": checks, "problems": sum(1 for c in checks if not c["ok"])}


def doctor(mem: Memory) -> list[dict[str, Any]]:
    return [c.to_dict() for c in mem.doctor()]
