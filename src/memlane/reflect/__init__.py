"""Reflect (spec 004): turn the facts into stable, reviewable pages and keep beliefs honest.

- ``bank/entities/<Slug>.md``: for each entity with facts since ``--since``, a generated block with a
  summary, a dated timeline and related entities (a missing page is created with a title);
- ``bank/opinions.md``: every opinion with a confidence recomputed from its evidence (:mod:`.opinions`);
- ``bank/proposals.md``: facts reinforced on several days, proposed for MEMORY.md (never written there).

:func:`plan` computes the new pages from the index and changes nothing; the caller shows the diff
(``--dry-run``) or writes the blocks through the writer. Generated parts sit between markers
(:mod:`memlane.files.markers`); a person's text outside them is kept byte for byte, and a second run over the same
facts writes nothing.
"""

from __future__ import annotations

import datetime as dt
import difflib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from ..config import ReflectSettings
from ..errors import MemlaneError
from ..facts.entities import Entity, EntityDirectory
from ..files.markers import BlockError, begin_marker, set_block
from ..files.writer import write_block
from ..store import StoredFact
from ..text.markdown import split_lines
from ..workspace import BANK_DIR, ROOT_FILES, list_memory_files
from .opinions import NEAR_DUPLICATE, Evidence, Opinion, Similarity, build_opinions, stems
from .pages import Cluster, EntityState, entity_block, in_core, opinions_block, page_file_name, proposals_block

OPINIONS_PAGE = "bank/opinions.md"
PROPOSALS_PAGE = "bank/proposals.md"
ENTITY_BLOCK, OPINIONS_BLOCK, PROPOSALS_BLOCK = "entity", "opinions", "proposed-for-memory"

__all__ = ["EntityState", "PageChange", "ReflectReport", "apply_changes", "plan"]


@dataclass
class PageChange:
    """One generated block to set in one page."""

    path: str
    block: str
    body: str
    title: str  # the heading of a page that does not exist yet
    before: str  # the page now ("" when missing)
    after: str  # the page with the block set

    @property
    def changed(self) -> bool:
        return self.before != self.after

    def diff(self) -> str:
        return "".join(
            difflib.unified_diff(
                self.before.splitlines(keepends=True),
                self.after.splitlines(keepends=True),
                fromfile=f"a/{self.path}" if self.before else "/dev/null",
                tofile=f"b/{self.path}",
            )
        )


@dataclass
class ReflectReport:
    since: str
    entities: list[str] = field(default_factory=list)  # entities whose page was (re)generated
    opinions: list[dict[str, Any]] = field(default_factory=list)
    proposals: list[dict[str, Any]] = field(default_factory=list)
    changes: list[PageChange] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    written: list[str] = field(default_factory=list)  # pages written (none for a dry run)

    @property
    def changed(self) -> list[PageChange]:
        return [c for c in self.changes if c.changed]

    def diff(self) -> str:
        return "".join(c.diff() for c in self.changed)

    def to_dict(self) -> dict[str, Any]:
        return {
            "since": self.since,
            "entities": self.entities,
            "opinions": self.opinions,
            "proposals": self.proposals,
            "changed": [c.path for c in self.changed],
            "written": self.written,
            "notes": self.notes,
        }


def plan(
    workspace: Path,
    facts: Sequence[StoredFact],
    vectors: npt.NDArray[np.float32] | None,
    directory: EntityDirectory,
    settings: ReflectSettings,
    since: dt.date | None,
    today: dt.date,
    state_of: Callable[[str], EntityState] | None = None,
) -> ReflectReport:
    """The pages reflect would write, from ``facts`` (every fact of the index) and their ``vectors``
    (one row per fact, in the same order; None for keyword-only indexes). ``since`` None: every entity
    with a fact gets its page (the first reflect of a workspace). ``state_of``: an entity key's relations now
    and their changes (the "Now" and "Changes" blocks)."""
    report = ReflectReport(since.isoformat() if since is not None else "the first fact")
    first_day = since.isoformat() if since is not None else ""
    sim = Similarity(facts, vectors)
    entity_of = _entities_of(facts, directory)
    names = {norm: e.name for norm, e in entity_of.items()}

    # Entity pages: every entity with a fact since `since`.
    about: dict[str, list[StoredFact]] = {}
    for f in facts:
        for key in {entity_of[n].key for n, _ in f.mentions if n in entity_of}:
            about.setdefault(key, []).append(f)
    fresh = sorted(
        {entity_of[n].key for f in facts if f.day and f.day >= first_day for n, _ in f.mentions if n in entity_of}
    )
    by_key = {e.key: e for e in entity_of.values()}
    # Where each entity's page is after this run: its page, or the one this run creates. Links follow
    # it, so the run after this one finds nothing to change.
    pages = {k: e.page for k, e in by_key.items() if e.page}
    pages.update((k, pages.get(k) or f"bank/entities/{page_file_name(by_key[k].name)}") for k in fresh)
    for key in fresh:
        ent = by_key[key]
        related = _related(ent, about[key], entity_of, pages)
        body = entity_block(ent.name, about[key], related, sim, state_of(key) if state_of else None)
        _change(report, workspace, pages[key], ENTITY_BLOCK, body, ent.name)
        report.entities.append(ent.name)

    # Opinions: all of them, recomputed from the evidence.
    opinions = build_opinions(facts, names, sim)
    trends = {op.statement.seq: op.trend(today, settings.stale_days, settings.trend_days) for op in opinions}
    report.opinions = [_opinion_dict(op, trends[op.statement.seq]) for op in opinions]
    if opinions or (workspace / OPINIONS_PAGE).exists():
        _change(report, workspace, OPINIONS_PAGE, OPINIONS_BLOCK, opinions_block(opinions, trends), "Opinions")

    # Proposals for MEMORY.md: facts said on several days, not yet in it.
    proposals = _proposals(workspace, facts, sim, settings, today)
    report.proposals = [
        {"content": g.facts[0].content, "days": len(g.days), "sources": [f.source for f in g.facts]} for g in proposals
    ]
    if proposals or (workspace / PROPOSALS_PAGE).exists():
        _change(
            report, workspace, PROPOSALS_PAGE, PROPOSALS_BLOCK, proposals_block(proposals), "Proposed for MEMORY.md"
        )
    return report


def reflected_before(workspace: Path) -> bool:
    """True once a reflect has written a page here: a memory file holds one of its generated blocks.
    The pages are the record (the index is rebuildable), so a workspace whose pages were deleted is
    reflected in full again, which rewrites the same pages."""
    marks = tuple(begin_marker(name) for name in (ENTITY_BLOCK, OPINIONS_BLOCK, PROPOSALS_BLOCK))
    for info in list_memory_files(workspace):
        if not info.path.startswith(f"{BANK_DIR}/"):
            continue
        try:
            text = info.abs_path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        if any(mark in text for mark in marks):
            return True
    return False


def _change(report: ReflectReport, workspace: Path, rel: str, block: str, body: str, title: str) -> None:
    target = workspace / rel
    try:
        before = target.read_text(encoding="utf-8") if target.is_file() else ""
        after = set_block(before or f"# {title}\n", block, body)
    except BlockError as exc:
        report.notes.append(f"{rel}: not updated: {exc}")
        return
    except (OSError, UnicodeDecodeError) as exc:
        report.notes.append(f"{rel}: not updated: cannot read it ({exc})")
        return
    report.changes.append(PageChange(rel, block, body, title, before, after))


def _related(
    ent: Entity, facts: Sequence[StoredFact], entity_of: dict[str, Entity], pages: dict[str, str]
) -> list[tuple[str, str | None, list[StoredFact]]]:
    """Entities mentioned in the same facts, most shared facts first."""
    shared: dict[str, list[StoredFact]] = {}
    others: dict[str, Entity] = {}
    for f in facts:
        for norm, _ in f.mentions:
            other = entity_of.get(norm)
            if other is not None and other.key != ent.key:
                shared.setdefault(other.key, [])
                if f not in shared[other.key]:
                    shared[other.key].append(f)
                others[other.key] = other
    ranked = sorted(shared, key=lambda k: (-len(shared[k]), others[k].name.lower()))
    return [(others[k].name, pages.get(k), sorted(shared[k], key=lambda f: f.source)) for k in ranked]


def beliefs(
    workspace: Path,
    facts: Sequence[StoredFact],
    vectors: npt.NDArray[np.float32] | None,
    directory: EntityDirectory,
    settings: ReflectSettings,
    today: dt.date,
) -> dict[str, Any]:
    """What reflect would write about beliefs, by the same rule, without writing: every opinion with its
    confidence path step by step (each step the evidence that moved it), and the proposals for MEMORY.md."""
    sim = Similarity(facts, vectors)
    names = {norm: e.name for norm, e in _entities_of(facts, directory).items()}
    out = []
    for op in build_opinions(facts, names, sim):
        item = _opinion_dict(op, op.trend(today, settings.stale_days, settings.trend_days))
        steps = sorted(set(op.evidence), key=Evidence.key)
        item["steps"] = [{"day": op.statement.day, "confidence": round(op.start, 4), "effect": "stated"}] + [
            {"day": e.day or None, "confidence": round(c, 4), "effect": e.effect, "source": e.source}
            for e, (_, c) in zip(steps, op.trajectory[1:], strict=True)
        ]
        out.append(item)
    proposals = [
        {"content": g.facts[0].content, "days": sorted(g.days), "sources": [f.source for f in g.facts]}
        for g in _proposals(workspace, facts, sim, settings, today)
    ]
    return {"opinions": out, "proposals": proposals}


def _entities_of(facts: Sequence[StoredFact], directory: EntityDirectory) -> dict[str, Entity]:
    """The entity each mention of ``facts`` resolves to (mentions no entity claims are left out)."""
    out: dict[str, Entity] = {}
    for f in facts:
        for norm, _ in f.mentions:
            ent = directory.of_norm(norm)
            if ent is not None:
                out[norm] = ent
    return out


def _opinion_dict(op: Opinion, trend: str) -> dict[str, Any]:
    return {
        "entity": op.entity,
        "statement": op.statement.content,
        "source": op.statement.source,
        "stated": op.start,
        "confidence": round(op.confidence, 4),
        "trend": trend,
        "updated": op.updated,
        "for": op.sources("for"),
        "against": op.sources("against"),
    }


def _proposals(
    workspace: Path, facts: Sequence[StoredFact], sim: Similarity, settings: ReflectSettings, today: dt.date
) -> list[Cluster]:
    """Clusters of near-duplicate facts said on at least ``propose_min_days`` days, the latest within
    ``proposal_days``, that MEMORY.md does not already hold."""
    recent = (today - dt.timedelta(days=settings.proposal_days)).isoformat()
    seeds = sorted((f for f in facts if f.day and f.day >= recent), key=lambda f: (f.day or "", f.source), reverse=True)
    dated = [f for f in facts if f.day]
    if not seeds or not dated:
        return []
    core_lines = _core_lines(workspace)
    out: list[Cluster] = []
    covered: set[int] = set()
    for start in range(0, len(seeds), 256):  # one matrix block of seeds at a time
        part = seeds[start : start + 256]
        scores = sim.block([f.seq for f in part], [f.seq for f in dated])
        for seed, row in zip(part, scores, strict=True):
            if seed.seq in covered:
                continue
            group = [dated[j] for j in np.flatnonzero(row >= NEAR_DUPLICATE)]
            group = sorted(
                {f.seq: f for f in [seed, *group]}.values(), key=lambda f: (f.day or "", f.source), reverse=True
            )
            covered.update(f.seq for f in group)
            cluster = Cluster(group)
            if len(cluster.days) < settings.propose_min_days:
                continue
            if any(f.path in ROOT_FILES for f in group) or in_core(seed, core_lines):
                continue
            out.append(cluster)
    out.sort(key=lambda g: (g.latest, g.facts[0].source), reverse=True)  # the most recent first ...
    out.sort(key=lambda g: len(g.days), reverse=True)  # ... within the most reinforced first
    return out


def _core_lines(workspace: Path) -> list[set[str]]:
    for name in ROOT_FILES:
        path = workspace / name
        if path.is_file():
            try:
                return [stems(line) for line in split_lines(path.read_text(encoding="utf-8", errors="replace"))]
            except OSError:
                return []
    return []


def apply_changes(workspace: Path, report: ReflectReport) -> list[str]:
    """Write the changed blocks of ``report`` through the writer (lock, atomic replace; the text around a
    block is whatever is on disk when it is written). Returns, and records, the pages written."""
    for change in report.changed:
        try:
            _, changed = write_block(workspace, change.path, change.block, change.body, change.title)
        except MemlaneError as exc:  # broken markers saved meanwhile, a symlink: that page is skipped
            report.notes.append(f"{change.path}: not written: {exc}")
            continue
        if changed:
            report.written.append(change.path)
    return report.written
