"""Embedding through the vendors' batch APIs (cheaper and not rate-limited like ordinary requests).

Every job is recorded in the index (``batch_jobs``: job id and the text hashes it embeds) the moment
it is submitted, and each request's ``custom_id`` is its text hash. A sync that was stopped while a
job ran therefore collects that job after a restart instead of paying for the texts again.

Failures: a job that fails, expires or times out counts one failure; after ``FAILURE_LIMIT`` of them
batching is off for the rest of the run (the owner's lifetime) and texts go through ordinary
requests; a success resets the count. Items a finished job reports as failed are retried alone,
with ordinary requests.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Protocol

from ..config import BatchSettings
from ..embeddings import EmbeddingKey
from ..embeddings.base import Vectors
from ..embeddings.remote import BatchProvider, BatchStatus
from ..errors import ProviderError
from ..store import IndexStore

FAILURE_LIMIT = 2


class _Report(Protocol):
    embedded: int
    batch_jobs: int
    batch_embedded: int
    batch_pending: int
    notes: list[str]


@dataclass
class BatchRun:
    """Batch use across the syncs of one owner (a Memory): settings, failure count, off switch."""

    settings: BatchSettings
    failures: int = 0
    disabled: str | None = None  # why batching was turned off for this run
    sleep: Callable[[float], None] = field(default=time.sleep, repr=False)

    @property
    def active(self) -> bool:
        return self.settings.enabled and self.disabled is None

    def failed(self, why: str) -> None:
        self.failures += 1
        if self.failures >= FAILURE_LIMIT and self.disabled is None:
            self.disabled = f"{self.failures} batch failures (last: {why}); ordinary requests for the rest of this run"

    def succeeded(self) -> None:
        self.failures = 0


def _await(provider: BatchProvider, job_id: str, run: BatchRun, wait: bool) -> BatchStatus:
    """The job's state; with ``wait``, poll until it leaves 'running' or ``timeoutMinutes`` pass."""
    deadline = time.monotonic() + run.settings.timeout_minutes * 60
    while True:
        status = provider.batch_status(job_id)
        if status.state != "running" or not wait:
            return status
        if time.monotonic() >= deadline:
            with contextlib.suppress(ProviderError):  # it may have just finished; the record goes either way
                provider.batch_cancel(job_id)
            return BatchStatus("failed", f"still running after {run.settings.timeout_minutes:g} minutes; cancelled")
        run.sleep(run.settings.poll_interval_ms / 1000)


def _finish(
    store: IndexStore,
    provider: BatchProvider,
    key: EmbeddingKey,
    job_id: str,
    status: BatchStatus,
    run: BatchRun,
    report: _Report,
    late: bool,
) -> set[str]:
    """Store what a finished job produced and forget the job; the hashes that got a vector.

    Expired and failed OpenAI jobs may still carry the results of the requests that did finish."""
    vectors: dict[str, Vectors] = {}
    failed: dict[str, str] = {}
    try:
        vectors, failed = provider.batch_results(job_id)
    except ProviderError as exc:
        if status.state == "completed":
            status = BatchStatus("failed", str(exc))
    if status.state == "completed":
        run.succeeded()
    else:
        run.failed(f"batch {job_id} {status.state}: {status.detail}")
        report.notes.append(f"batch {job_id} {status.state} ({status.detail}); {len(vectors)} results kept")
    if failed:
        report.notes.append(f"batch {job_id}: {len(failed)} items failed and are retried with ordinary requests")
    # ``late``: these vectors belong to chunks already indexed, so readers must reload all vectors.
    with store.write(changes_index=late):
        if vectors:
            store.put_vectors(key, vectors)
            if late:
                store.bump_epoch()
        store.drop_batch_job(job_id)
    report.embedded += len(vectors)
    report.batch_embedded += len(vectors)
    return set(vectors)


def collect_jobs(
    store: IndexStore, provider: BatchProvider, key: EmbeddingKey, run: BatchRun, report: _Report, wait: bool
) -> set[str]:
    """Collect the jobs an earlier sync started (waiting for them if ``wait``); the hashes still pending."""
    pending: set[str] = set()
    for job_id, hashes in store.batch_jobs(key).items():
        try:
            status = _await(provider, job_id, run, wait)
        except ProviderError as exc:
            report.notes.append(f"batch {job_id}: cannot get its state ({exc}); kept for the next sync")
            continue
        if status.state == "running":
            pending.update(hashes)
            continue
        _finish(store, provider, key, job_id, status, run, report, late=True)
    report.batch_pending = len(pending)
    return pending


def run_batches(
    store: IndexStore,
    provider: BatchProvider,
    key: EmbeddingKey,
    texts: dict[str, str],
    run: BatchRun,
    report: _Report,
    progress: Callable[[int], None] | None = None,
) -> list[str]:
    """Embed ``texts`` (hash -> text) in batch jobs, ``concurrency`` at a time.

    Returns the hashes left for ordinary requests (failed jobs and items, or batching switched off).
    Without ``wait`` the jobs are only submitted; a later sync collects them."""
    wait = run.settings.wait
    hashes = list(texts)
    size = max(1, provider.batch_max_requests)
    groups = [hashes[i : i + size] for i in range(0, len(hashes), size)]

    def job(group: Sequence[str]) -> list[str]:
        """Submit, wait, store: the hashes left over. Runs in a worker, so the failure count is
        up to date before the next group starts."""
        if not run.active:
            return list(group)
        try:
            job_id = provider.batch_submit([(h, texts[h]) for h in group])
            with store.write(changes_index=False):
                store.add_batch_job(key, job_id, group)
            with lock:
                report.batch_jobs += 1
            if not wait:
                with lock:
                    report.batch_pending += len(group)
                return []
            status = _await(provider, job_id, run, True)
        except ProviderError as exc:
            with lock:
                run.failed(str(exc))
                report.notes.append(f"batch submit or poll failed: {exc}")
            return list(group)
        with lock:
            got = _finish(store, provider, key, job_id, status, run, report, late=False)
        if progress:
            progress(len(got))
        return [h for h in group if h not in got]

    lock = threading.Lock()
    leftover: list[str] = []
    with ThreadPoolExecutor(max_workers=run.settings.concurrency) as pool:
        for rest in pool.map(job, groups):
            leftover.extend(rest)
    if run.disabled:
        report.notes.append(f"batching off: {run.disabled}")
    return leftover
