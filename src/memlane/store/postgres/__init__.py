"""The PostgreSQL driver: every agent's index in one database, keyed by agent (:class:`PostgresStore`)."""

from __future__ import annotations

from .connection import PostgresStore, agents_in, redact, scrub

__all__ = ["PostgresStore", "agents_in", "redact", "scrub"]
