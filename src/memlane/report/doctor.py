"""``memlane doctor``: what is wrong with an agent's memory and its index, each problem with the command
that fixes it. It reads; it changes nothing: :func:`diagnose_read_only` opens the index itself, read-only,
so that looking never creates, migrates or moves aside the index it reports on.
"""

from __future__ import annotations

import contextlib
import fcntl
import shlex
from dataclasses import asdict, dataclass
from pathlib import Path

from ..capture.hook_log import Logged, capture_log, group_options, read_log
from ..config import AgentConfig, memlane_home
from ..errors import MemlaneError
from ..facts.entities import entity_hints
from ..files import backup as backup_mod
from ..store import IndexStore, SQLiteStore, fingerprint_json, open_store
from ..store.sqlite import UnusableIndex
from ..workspace import MEMORY_DIRS, list_memory_files


@dataclass(frozen=True)
class Check:
    name: str
    ok: bool
    detail: str
    fix: str | None = None  # the command (or action) that fixes it

    def to_dict(self) -> dict[str, object]:
        return asdict(self)


def diagnose_read_only(cfg: AgentConfig, workspace: Path, fingerprint: dict[str, object]) -> list[Check]:
    """What ``memlane doctor`` runs: :func:`diagnose` over the index opened here to read only (SQLite: a
    read-only connection, no migration, nothing moved aside; PostgreSQL: the agent's rows read, no DDL).
    An index that is missing, unreadable or of an older schema is reported with the command that fixes it,
    and the checks that need no index still run."""
    settings = cfg.memory_search
    store: IndexStore
    try:
        if settings.store.driver == "sqlite":
            store = SQLiteStore.inspect(settings.store_path(cfg.agent_id), settings.store.busy_timeout_ms)
        else:
            store = open_store(settings, cfg.agent_id, shared=True)  # shared: read only, never created
    except UnusableIndex as exc:
        return [Check("index file", False, str(exc), exc.fix), *_without_index(cfg, workspace)]
    except MemlaneError as exc:  # PostgreSQL: no index of this agent yet, or no server to ask
        fix = "memlane index" if str(exc).startswith("no ") else None
        return [Check("index file", False, str(exc), fix), *_without_index(cfg, workspace)]
    try:
        return diagnose(cfg, workspace, store, fingerprint)
    finally:
        store.close()


def _without_index(cfg: AgentConfig, workspace: Path) -> list[Check]:
    """The checks that hold without an index to read."""
    index = cfg.memory_search.store_path(cfg.agent_id) if cfg.memory_search.store.driver == "sqlite" else None
    return [_leftovers(workspace, index), _locks(), _captures(cfg, workspace), _backup(cfg, workspace)]


def diagnose(cfg: AgentConfig, workspace: Path, store: IndexStore, fingerprint: dict[str, object]) -> list[Check]:
    """Every check, in order: the index file, its integrity, its settings, the files it knows, leftovers of
    interrupted writes, locks, Retain bullets, entity names, and the git backup. ``store`` is read only;
    :func:`diagnose_read_only` opens it so that opening changes nothing either."""
    checks = [_index_file(store), _integrity(store)]
    meta = store.meta()
    if "fingerprint" not in meta:
        checks.append(Check("settings", False, "the index has never been built", "memlane index"))
    elif meta["fingerprint"] != fingerprint_json(fingerprint):
        checks.append(
            Check(
                "settings",
                False,
                "the index was built with other settings (model, chunking or workspace)",
                "memlane index",
            )
        )
    else:
        checks.append(Check("settings", True, "the index matches the configured provider, model and chunking"))
    checks += [
        _files(store, workspace),
        _leftovers(workspace, store.path if store.driver == "sqlite" else None),
        _locks(),
        _captures(cfg, workspace),
    ]
    problems = store.facts.problems()
    checks.append(
        Check(
            "retain",
            not problems,
            f"{len(problems)} Retain bullet(s) could not be read",
            "edit " + ", ".join(f"{p}:{ln}" for p, ln, _ in problems[:5]),
        )
        if problems
        else Check("retain", True, "every Retain bullet reads")
    )
    names = [(n.norm, n.slug, n.path, n.how) for n in store.facts.entity_names()]
    hints = entity_hints(store.facts.unresolved_mentions(), names)
    checks.append(
        Check("entities", not hints, "; ".join(hints[:3]), "add an alias to the entity page, or fix the @mention")
        if hints
        else Check("entities", True, "no @mention is a near miss of an entity page")
    )
    checks.append(_backup(cfg, workspace))
    return checks


def _index_file(store: IndexStore) -> Check:
    if store.recovered:
        return Check("index file", False, store.recovered, "memlane index")
    return Check("index file", True, f"{store.location} ({store.size_bytes():,} bytes)")


def _integrity(store: IndexStore) -> Check:
    ok, detail = store.check_integrity()
    return Check("integrity", ok, detail, None if ok else "memlane index --force")


def _files(store: IndexStore, workspace: Path) -> Check:
    states = {p: s for p, s in store.file_states().items() if s.source == "memory"}
    disk = {f.path: f for f in list_memory_files(workspace)}
    unknown = sorted(p for p in disk if p not in states)
    gone = sorted(p for p in states if p not in disk)
    changed = sorted(
        p for p, f in disk.items() if p in states and (states[p].mtime, states[p].size) != (f.mtime_ns, f.size)
    )
    if not (unknown or gone or changed):
        return Check("files", True, f"the index knows all {len(disk)} memory files as they are")
    parts = [f"{len(x)} {what} ({', '.join(x[:3])}{'...' if len(x) > 3 else ''})" for x, what in (
        (unknown, "not indexed"), (gone, "indexed but gone"), (changed, "changed since indexed")) if x]  # fmt: skip
    return Check("files", False, "; ".join(parts), "memlane index")


def _leftovers(workspace: Path, index: Path | None) -> Check:
    """Temporary files of interrupted writes, and SQLite indexes (at ``index``) moved aside earlier."""
    temps = sorted(
        p.relative_to(workspace).as_posix()
        for d in MEMORY_DIRS
        if (workspace / d).is_dir()
        for p in (workspace / d).rglob(".memlane-*.tmp")
    )
    temps += sorted(p.name for p in workspace.glob(".memlane-*.tmp"))
    broken = sorted(p.name for p in index.parent.glob(index.name + ".broken-*")) if index is not None else []
    if not temps and not broken:
        return Check("leftovers", True, "no temporary file of an interrupted write, no index moved aside")
    detail = []
    fixes = []
    if temps:
        detail.append(
            f"temporary files of interrupted writes (the memory files were never touched): {', '.join(temps)}"
        )
        fixes.append("rm " + " ".join(temps))
    if broken:
        detail.append(f"unreadable indexes moved aside earlier: {', '.join(broken)}")
        assert index is not None
        fixes.append(f"rm {index.parent}/{index.name}.broken-* (after a look, if you want one)")
    return Check("leftovers", False, "; ".join(detail), "; ".join(fixes))


def _locks() -> Check:
    """flock locks end with the process that holds them, so none can be stale; say which are held now."""
    held = []
    for lock in sorted((memlane_home() / "locks").glob("*.lock")):
        with contextlib.suppress(OSError), open(lock, "a+b") as handle:
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
                fcntl.flock(handle, fcntl.LOCK_UN)
            except BlockingIOError:
                held.append(lock.name)
    detail = f"{len(held)} write lock(s) held by running processes right now" if held else "no write lock is held"
    return Check("locks", True, detail + "; locks end with their process, none can be stale")


RECENT_CAPTURES = 20  # the background captures doctor looks at, the latest


def _captures(cfg: AgentConfig, workspace: Path) -> Check:
    """This workspace's latest background captures (the installed hooks' work, logged where no host shows it):
    one that failed or died is a problem until a later capture of the same transcript succeeds (it takes what is
    new, so what the failed one would have written too)."""
    log = capture_log()
    try:
        logged = read_log(log)
    except OSError as exc:
        return Check("captures", False, f"the background captures' log cannot be read: {exc}", f"check {log}")
    here = str(workspace.resolve())
    mine = [e for e in logged if e.workspace in (None, here) and e.agent in (None, cfg.agent_id)][-RECENT_CAPTURES:]
    if not mine:
        return Check("captures", True, "no background capture of this workspace logged")
    states = [(e, e.state()) for e in mine]
    running = sum(state == "running" for _, state in states)
    cleared: set[str] = set()
    bad = []
    for entry, state in reversed(states):  # latest first: a success clears its transcript's earlier failures
        if state == "ok":
            cleared.add(entry.transcript)
        elif state in ("failed", "died") and entry.transcript not in cleared:
            bad.append((entry, state))
    still = f"; {running} running" if running else ""
    if not bad:
        return Check("captures", True, f"the last {len(mine)} background capture(s) ended without error{still} ({log})")
    last, state = bad[0]
    how = last.result if state == "failed" else "its process ended without a result (killed, or it could not start)"
    detail = (
        f"{len(bad)} of the last {len(mine)} background captures failed or died (see {log}); "
        f"the latest, {last.started}: {how}"
    )
    return Check("captures", False, detail, shlex.join(_again(last)))


def _again(entry: Logged) -> list[str]:
    """The command that captures the entry's transcript again, where its hook captured it."""
    options = group_options(entry.workspace, entry.agent, entry.config)
    return ["memlane", *options, "capture", "--transcript", entry.transcript]


def _backup(cfg: AgentConfig, workspace: Path) -> Check:
    scheduled = cfg.backup.git.schedule.strip().lower() != "off"
    try:
        root = backup_mod.repository(workspace)
    except backup_mod.BackupError as exc:
        return Check("backup", not scheduled, str(exc), "install git" if scheduled else None)
    if root is None:
        return Check(
            "backup", not scheduled, "the workspace is not a git repository: the memory files have no backup",
            "memlane backup --init",
        )  # fmt: skip
    last = backup_mod.last_backup(workspace)
    pending = backup_mod.pending(workspace)
    if pending:
        detail = f"{len(pending)} memory file(s) changed since the last backup ({last or 'none yet'})"
        return Check("backup", False, f"{detail}: {', '.join(pending[:3])}", "memlane backup")
    return Check("backup", True, f"every memory file is committed (last backup: {last or 'none by memlane'})")
