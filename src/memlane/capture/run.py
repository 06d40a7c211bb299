"""Capture into one agent's kept index: a :class:`Capturer` that knows what memory holds (the entity names
and the facts, to tell a restatement from news) and the sessions' capture state, held locked while it runs;
and an import of a history (:mod:`memlane.capture.backfill`) through it."""

from __future__ import annotations

import contextlib
import datetime as dt
from collections.abc import Callable, Iterator

from ..config import AgentConfig
from ..index.keeper import IndexKeeper
from .backfill import ImportItem, run_import
from .known import known_facts
from .llm import CaptureLlm
from .pipeline import Capturer, CaptureReport
from .state import locked_state


@contextlib.contextmanager
def capturing(index: IndexKeeper, cfg: AgentConfig, freshen: Callable[[], object]) -> Iterator[Capturer]:
    """A capturer over ``index``, after ``freshen`` synced it; the capture state is saved after the Markdown."""
    freshen()  # what memory holds now decides what is a restatement
    names = index.known_names()
    provider = index.choice.provider
    known = known_facts(
        index.store,
        cfg.capture.duplicate_cosine,
        provider.embed_batch if provider is not None else None,
        index.fact_vectors if provider is not None else None,
    )
    llm = CaptureLlm(cfg) if cfg.capture.llm else None
    try:
        with locked_state(index.sessions_dir) as state:
            yield Capturer(index.workspace, cfg.capture, state, names, known, llm)
            state.save()  # after the Markdown: a capture killed before this reads its turns again
    finally:
        if llm is not None:
            llm.close()


def import_items(
    capturer: Capturer,
    kind: str,
    items: list[ImportItem],
    now: dt.datetime,
    progress: Callable[[ImportItem, CaptureReport], None] | None,
) -> CaptureReport:
    """Capture each planned item of an import, saving the capture state after each (an interrupted import
    resumes after the last item done); the reports added up."""

    def done(item: ImportItem, report: CaptureReport) -> None:
        capturer.state.save()  # an interrupted import resumes after the last item done
        if progress is not None:
            progress(item, report)

    return run_import(
        kind,
        items,
        lambda turns, session: capturer.capture(turns, session, now, chat=True),  # a chat app's conversations
        lambda file, fmt: capturer.transcript(file, fmt, now),
        done,
    )
