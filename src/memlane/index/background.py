"""Background freshness for a long-lived Memory: a file watcher, an interval timer, one sync worker.

The watcher uses the OS notification API through ``watchfiles`` (inotify on Linux: one watch per
directory, not one descriptor per file). It watches the workspace root without recursion (for
``MEMORY.md`` / ``memory.md``), ``memory/`` and ``bank/`` recursively, and the sessions directory when session
memory is on. An event schedules a sync ``watchDebounceMs`` later (``5 s`` for transcripts) unless
one is already scheduled, so a burst of saves costs one sync.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Protocol

from ..config import MemorySearchSettings
from ..errors import MemlaneError
from ..workspace import MEMORY_DIRS, extra_roots

log = logging.getLogger("memlane")
WATCH_RETRY_MAX_S = 30.0  # the longest wait between attempts to watch a directory whose watch keeps failing
# watchfiles logs every batch of changes at INFO ("1 change detected"): noise on a server's stderr.
logging.getLogger("watchfiles").setLevel(logging.WARNING)
SESSION_DEBOUNCE_S = 5.0
_EDITOR_JUNK = (".swp", ".swx", ".swo", ".tmp", ".temp", "~", ".bak", ".orig", ".crdownload")


def is_memory_event(workspace: Path, path: str) -> bool:
    """Whether a changed path can matter to the index (Markdown memory files, no editor junk)."""
    try:
        rel = Path(path).relative_to(workspace)
    except ValueError:
        return False
    parts = rel.parts
    if not parts or any(p.startswith((".", "#")) for p in parts):
        return False
    name = parts[-1]
    if name.endswith(_EDITOR_JUNK) or name == "4913":  # vim's write probe
        return False
    if len(parts) == 1:
        return name in ("MEMORY.md", "memory.md", *MEMORY_DIRS)
    return parts[0] in MEMORY_DIRS and (name.endswith(".md") or "." not in name)  # a .md file or a directory


def _extra_event(base: str) -> Callable[[str], bool]:
    """The filter of an ``extraPaths`` folder's watch (a Markdown file or a folder below it, nothing hidden)
    or of its file's parent folder (that file only)."""

    def accept(path: str) -> bool:
        if path == base:
            return True
        rel = os.path.relpath(path, base)
        if rel.startswith(".") or any(part.startswith((".", "#")) for part in Path(rel).parts):
            return False
        name = Path(path).name
        return not name.endswith(_EDITOR_JUNK) and (name.endswith(".md") or "." not in name)

    return accept


def _is_transcript(path: str) -> bool:
    return path.endswith(".jsonl") and not Path(path).name.startswith(".")


class Syncable(Protocol):
    """What the worker needs of a Memory: where to watch, its settings, and a sync to run."""

    workspace: Path
    settings: MemorySearchSettings

    @property
    def sessions_dir(self) -> Path: ...

    def sync(self, *, include_sessions: bool = True) -> object: ...

    def after_sync(self) -> None: ...


class Background:
    """Owns the watcher threads, the interval timer and the sync worker of one Memory."""

    def __init__(self, memory: Syncable) -> None:
        self.memory = memory
        self._jobs: dict[str, tuple[float, Callable[[], object]]] = {}  # name -> (period s, job): reflect, backup
        self.runs: dict[str, int] = {}  # scheduled jobs run so far, by name
        self.settings = memory.settings.sync
        self._stop = threading.Event()
        self._wake = threading.Event()
        self._lock = threading.Lock()
        self._due: float | None = None  # monotonic time of the next sync
        self._threads: list[threading.Thread] = []
        self._watching: dict[Path, threading.Event] = {}  # root -> set once its OS watch is in place
        self.syncs = 0
        self.events = 0
        self.last_error: str | None = None
        self.watch_errors: dict[str, str] = {}  # watched root -> why its watch is failing now
        self.last_sync: float | None = None  # wall-clock time of the last finished sync
        self._idle = threading.Event()
        self._idle.set()

    # -- life
    def start(self) -> None:
        """Start the sync worker (and the interval timer it keeps)."""
        self._spawn(self._work, "memlane-sync")

    def watch(self) -> None:
        """Add the file watchers; watching a root twice is a no-op, so this may be called again."""
        ws = self.memory.workspace
        files: dict[Path, set[str]] = {}  # memorySearch.extraPaths files, by the folder watched for them
        for _name, base, _chosen in extra_roots(ws.resolve(), self.memory.settings.extra_paths):
            if os.path.isdir(base):  # an extra folder is watched whole
                self._watch(Path(base), recursive=True, filter_=_extra_event(base))
            elif base.endswith(".md"):
                files.setdefault(Path(base).parent, set()).add(base)
        root_files = files.pop(ws.resolve(), set())
        root_files |= {str(ws / Path(b).name) for b in root_files}  # events name the path as it was watched
        self._watch(ws, recursive=False, filter_=lambda p: p in root_files or is_memory_event(ws, p))
        for name in MEMORY_DIRS:
            self._watch(ws / name, recursive=True)
        for parent, names in files.items():
            self._watch(parent, recursive=False, filter_=names.__contains__)
        if self.memory.settings.sessions_enabled:
            sessions = self.memory.sessions_dir
            sessions.mkdir(parents=True, exist_ok=True)
            self._watch(sessions, recursive=False, debounce=SESSION_DEBOUNCE_S, filter_=_is_transcript)

    def wait_watching(self, timeout: float | None = None) -> bool:
        """Block until every watched directory that exists has its OS watch in place; False on timeout."""
        deadline = None if timeout is None else time.monotonic() + timeout
        for root, ready in list(self._watching.items()):
            if not root.is_dir():
                continue
            left = None if deadline is None else max(0.0, deadline - time.monotonic())
            if not ready.wait(left):
                return False
        return True

    def stop(self, timeout: float = 30.0) -> None:
        """Stop watching, let a running sync finish (up to ``timeout``), then stop the worker."""
        self._stop.set()
        self._wake.set()
        deadline = time.monotonic() + timeout
        for t in self._threads:
            t.join(max(0.0, deadline - time.monotonic()))
        self._threads.clear()

    @property
    def running(self) -> bool:
        return any(t.is_alive() for t in self._threads)

    def _spawn(self, target: Callable[[], None], name: str) -> None:
        t = threading.Thread(target=target, name=name, daemon=True)
        t.start()
        self._threads.append(t)

    # -- requests
    def request(self, delay: float = 0.0) -> None:
        """Ask for a sync within ``delay`` seconds. A pending earlier time stands: a burst of saves is
        one sync ``delay`` after its first event, and a steady stream of saves cannot postpone syncs
        forever."""
        with self._lock:
            when = time.monotonic() + delay
            self._due = when if self._due is None else min(self._due, when)
            self._idle.clear()
        self._wake.set()

    def schedule(self, name: str, every: float | None, job: Callable[[], object]) -> None:
        """Run ``job`` every ``every`` seconds from now on (None: stop); "reflect", "backup"."""
        with self._lock:
            if every:
                self._jobs[name] = (every, job)
            else:
                self._jobs.pop(name, None)
        self._wake.set()

    def wait_idle(self, timeout: float | None = None) -> bool:
        """Block until no sync is due or running; False on timeout."""
        return self._idle.wait(timeout)

    # -- the worker
    def _work(self) -> None:
        interval = self.settings.interval_minutes * 60
        next_interval = time.monotonic() + interval if interval else None
        next_job: dict[str, float] = {}
        while not self._stop.is_set():
            with self._lock:
                due = self._due
                jobs = dict(self._jobs)
            now = time.monotonic()
            for name in list(next_job):
                if name not in jobs:
                    del next_job[name]
            ready = None
            for name, (every, _job) in jobs.items():
                next_job.setdefault(name, now + every)
                if next_job[name] <= now and ready is None:
                    ready = name
            if ready is not None:
                every, job = jobs[ready]
                next_job[ready] = now + every
                self._run(ready, job)
                self.runs[ready] = self.runs.get(ready, 0) + 1
                continue
            waits = [t - now for t in (due, next_interval, *next_job.values()) if t is not None]
            if not waits or min(waits) > 0:
                self._wake.wait(min(waits) if waits else None)
                self._wake.clear()
                continue
            if next_interval is not None and next_interval <= now:
                next_interval = now + interval
            with self._lock:
                self._due = None
            self._run("sync", lambda: self.memory.sync(include_sessions=True))
            self.syncs += 1
            self._run("after sync", self.memory.after_sync)
            self.last_sync = time.time()
            with self._lock:
                if self._due is None:
                    self._idle.set()

    def _run(self, what: str, job: Callable[[], object]) -> None:
        """Run one job; the worker survives whatever it hits, and ``last_error`` says what that was."""
        try:
            job()
            self.last_error = None
        except MemlaneError as exc:
            self.last_error = f"{what}: {exc}"
            log.warning("memlane background %s failed: %s", what, exc)
        except Exception as exc:
            self.last_error = f"{what}: {type(exc).__name__}: {exc}"
            log.exception("memlane background %s crashed", what)

    # -- watching
    def _watch_failed(self, root: Path, exc: BaseException, failures: int) -> None:
        """A watch that keeps failing must not look healthy: status shows it (``watchErrors``, ``lastError``)
        and the log says so on the first failure and every tenth; until it recovers, changes are picked up
        by the sync interval (``sync.intervalMinutes``) only."""
        message = f"watching {root} failed {failures}x in a row, retrying: {type(exc).__name__}: {exc}"
        if failures == 1 or failures % 10 == 0:
            log.warning("memlane: %s", message)
        self.watch_errors[str(root)] = message
        self.last_error = message

    def _watch(
        self,
        root: Path,
        recursive: bool,
        debounce: float | None = None,
        filter_: Callable[[str], bool] | None = None,
    ) -> None:
        if root in self._watching:
            return
        ready = self._watching[root] = threading.Event()
        delay = debounce if debounce is not None else self.settings.watch_debounce_ms / 1000
        ws = self.memory.workspace
        accept = filter_ or (lambda p: is_memory_event(ws, p))

        def run() -> None:
            from watchfiles import watch

            failures = 0  # failed watches in a row
            while not self._stop.is_set():
                if not root.is_dir():  # memory/ may not exist yet: the root watcher starts us when it appears
                    self._stop.wait(1.0)
                    continue
                try:
                    for changes in watch(
                        root,
                        watch_filter=lambda _c, p: accept(p),
                        recursive=recursive,
                        debounce=200,
                        step=50,
                        stop_event=self._stop,
                        rust_timeout=250,
                        yield_on_timeout=True,  # an empty yield: the watch is in place and quiet
                        raise_interrupt=False,
                        ignore_permission_denied=True,
                    ):
                        ready.set()
                        failures = 0
                        self.watch_errors.pop(str(root), None)
                        if changes:
                            self.events += len(changes)
                            self.request(delay)
                except (OSError, RuntimeError) as exc:  # watchfiles raises both (inotify limits, permissions)
                    if root.is_dir():  # a directory that went away is not a failure: it is looked for again
                        failures += 1
                        self._watch_failed(root, exc, failures)
                ready.clear()
                # the watched directory went away, or the watch failed: look again, backing off while it fails
                self._stop.wait(min(0.2 * 2**failures, WATCH_RETRY_MAX_S))

        self._spawn(run, f"memlane-watch-{root.name}")
