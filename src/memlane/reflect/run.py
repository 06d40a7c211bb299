"""Reflect, beliefs and Retain drafts over one agent's kept index: the facts, their vectors, the entity
directory and the relations now are read from the index under its lock, then handed to the rules of
:func:`memlane.reflect.plan`, :func:`memlane.reflect.beliefs` and :mod:`memlane.reflect.extract`."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from typing import Any

from ..config import AgentConfig
from ..facts.recall import date_bound
from ..index.keeper import IndexKeeper
from . import EntityState, ReflectReport, beliefs, plan, reflected_before
from .extract import LogDraft, daily_logs, draft_logs
from .llm import LlmDrafter


def reflect_index(
    index: IndexKeeper, cfg: AgentConfig, since: dt.date | str | None, today: dt.date, freshen: Callable[[], object]
) -> ReflectReport:
    """What reflect would write (see :meth:`memlane.Memory.reflect`), after ``freshen`` synced the files."""
    # The first reflect of a workspace covers every fact (its logs may all be older than reflect.since);
    # later ones only the entities with recent facts.
    first = since is None and not reflected_before(index.workspace)
    lower = None if first else date_bound(since if since is not None else cfg.reflect.since, today, "since")
    freshen()  # reflect from the files as they are now
    with index.lock:
        facts, matrix = index.facts_and_vectors()
        graph = index.graph()
        single = index.predicates.single

        def state_of(key: str) -> EntityState:
            now = {p: edges for p, edges in graph.now(key).items() if single(p)}
            return EntityState(now, graph.changes(key))

        report = plan(
            index.workspace,
            facts,
            matrix,
            index.entity_directory(),
            cfg.reflect,
            lower,
            today,
            state_of,
        )
    if first:
        report.notes.append(
            f"first reflect of this workspace: every fact is covered; later runs cover reflect.since "
            f"({cfg.reflect.since})"
        )
    return report


def beliefs_of(index: IndexKeeper, cfg: AgentConfig, today: dt.date) -> dict[str, Any]:
    """Each opinion's confidence step by step, and the proposals for MEMORY.md (:func:`memlane.reflect.beliefs`)."""
    with index.lock:
        facts, matrix = index.facts_and_vectors()
        return beliefs(index.workspace, facts, matrix, index.entity_directory(), cfg.reflect, today)


def draft_retain(
    index: IndexKeeper,
    cfg: AgentConfig,
    day: dt.date | str | None,
    since: dt.date | str | None,
    llm: bool,
    today: dt.date,
) -> list[LogDraft]:
    """Retain drafts for the daily log of ``day``, or every log since ``since`` (default today's), by the
    offline rules or, with ``llm``, an OpenAI-compatible LLM (see :meth:`memlane.Memory.retain`)."""
    first = date_bound(since, today, "since") if since is not None else None
    only = date_bound(day, today, "day") if day is not None else (None if first else today)
    known = index.known_names()
    drafter = LlmDrafter(cfg) if llm else None
    try:
        return draft_logs(index.workspace, daily_logs(index.workspace, only, first), known, drafter)
    finally:
        if drafter is not None:
            drafter.close()
