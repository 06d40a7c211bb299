"""A first index that can be searched before its vectors are done.

Embedding a year of logs on a laptop takes tens of minutes (docs/DESIGN.md §37). A first index of at least
``EARLY_TEXTS`` texts therefore commits its rows (chunks, keyword tables, facts) before it embeds anything:
keyword search works at once, and the vectors join as they arrive, the chunks' own before their keys. While
it embeds, the index's meta holds a marker: how many texts are planned and done, when it started, and a
heartbeat with the process that writes it. The marker is what searches and ``status`` report, and what a
later sync reads to tell a first index still running (leave it be) from one that was interrupted (go on:
every vector already committed is in the cache, so only the rest is embedded).
"""

from __future__ import annotations

import json
import os
import socket
import time
from dataclasses import dataclass
from typing import Any

META_KEY = "first_index"
EARLY_TEXTS = 2_000  # about a minute of the local model on 2 cores: below it, the index is whole that soon
SHOW_EVERY_S = 10.0  # vectors committed since become visible to searches at most this often
# A marker whose heartbeat is older belongs to a sync that is gone (on another host: on this one, its process
# is asked). Long: nothing beats during the rows' commit or a provider's retries, and a second first index
# started beside a live one would reset it.
STALE_AFTER_S = 600.0
RETRY_AFTER_S = 300.0  # a first index stopped by an error is work for a search's refresh again after this


@dataclass(frozen=True)
class FirstIndex:
    """The marker of a first index that is embedding (or was, when it stopped)."""

    todo: int
    done: int
    started: float
    beat: float
    pid: int
    host: str
    failed: float = 0.0  # when the sync that ran it stopped on an error (0: it did not, or is running)

    @classmethod
    def start(cls, todo: int) -> FirstIndex:
        now = time.time()
        return cls(todo, 0, now, now, os.getpid(), socket.gethostname())

    @classmethod
    def read(cls, meta: dict[str, str]) -> FirstIndex | None:
        raw = meta.get(META_KEY)
        if not raw:
            return None
        try:
            d = json.loads(raw)
            return cls(
                int(d["todo"]),
                int(d["done"]),
                float(d["started"]),
                float(d["beat"]),
                int(d["pid"]),
                str(d["host"]),
                float(d.get("failed", 0.0)),
            )
        except (ValueError, KeyError, TypeError):
            return cls(0, 0, 0.0, 0.0, 0, "")  # unreadable: an interrupted one, which the next sync redoes

    def to_meta(self) -> dict[str, str]:
        return {META_KEY: json.dumps(self.__dict__)}

    def advanced(self, done: int) -> FirstIndex:
        return FirstIndex(self.todo, done, self.started, time.time(), self.pid, self.host)

    def stopped(self) -> FirstIndex:
        """The marker a sync leaves when it fails: interrupted at once, not after the heartbeat ages."""
        return FirstIndex(self.todo, self.done, self.started, 0.0, self.pid, self.host, time.time())

    @property
    def due(self) -> bool:
        """Whether a refresh should go on with it: interrupted, and not stopped by an error just now (a provider
        that keeps failing would otherwise plan and rewrite the whole index on every search)."""
        return not self.running and time.time() - self.failed >= RETRY_AFTER_S

    @property
    def running(self) -> bool:
        """Whether a sync is embedding it now: a recent heartbeat from a process that is alive."""
        if time.time() - self.beat > STALE_AFTER_S:
            return False
        return self.host != socket.gethostname() or _alive(self.pid)

    def eta_s(self) -> float | None:
        """Seconds left at the rate so far (None before the first vectors)."""
        if self.done <= 0 or self.beat <= self.started:
            return None
        return (self.beat - self.started) / self.done * (self.todo - self.done)

    def to_dict(self) -> dict[str, Any]:
        eta = self.eta_s() if self.running else None
        return {
            "running": self.running,
            "texts": self.todo,
            "embedded": self.done,
            "etaSeconds": round(eta) if eta is not None else None,
        }

    def note(self) -> str:
        """What a search answered meanwhile says."""
        if not self.running:
            return (
                f"the first index stopped with {self.done:,} of {self.todo:,} texts embedded: passages without a "
                "vector rank by keywords alone until the next sync goes on (`memlane index`)"
            )
        eta = self.eta_s()
        left = f", about {_duration(eta)} left" if eta is not None else ""
        return (
            f"the first index is still embedding ({self.done:,} of {self.todo:,} texts{left}): passages "
            "without a vector yet rank by keywords alone"
        )


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True  # someone else's process: it exists
    return True


def _duration(seconds: float) -> str:
    if seconds < 90:
        return f"{max(1, round(seconds))} s"
    if seconds < 5400:
        return f"{round(seconds / 60)} min"
    return f"{seconds / 3600:.1f} h"


class Showing:
    """The marker of a first index as its vectors arrive: when the next commit should show them, and the
    marker that commit writes."""

    def __init__(self, marker: FirstIndex) -> None:
        self.marker = marker
        self._last = time.monotonic()

    def due(self) -> bool:
        return time.monotonic() - self._last >= SHOW_EVERY_S

    def shown(self, done: int) -> dict[str, str]:
        self.marker = self.marker.advanced(done)
        self._last = time.monotonic()
        return self.marker.to_meta()


def cleared() -> dict[str, str]:
    """The meta that ends a first index (the store keeps keys; an empty value reads as none)."""
    return {META_KEY: ""}
