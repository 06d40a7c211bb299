"""A concurrency stress scenario: watcher, MCP server, CLI and library processes on one index.

``python tests/stress.py ROLE WORKSPACE SECONDS`` runs one worker; :func:`run_scenario` starts them
all and gathers their reports (operations done, failures with their messages, notes written).

Every process reports its errors, and any error fails the run: a worker's exceptions, its background
sync's last error, anything it wrote to stderr, the CLI commands' exit codes and warnings, the watcher's
exit code and output. Findability is checked *before* any extra sync, with a probe that never syncs:
the running processes must have indexed every note themselves.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import subprocess
import sys
import time
import uuid
from pathlib import Path
from typing import Any

ROLES = ("writer", "writer", "writer", "searcher", "searcher", "syncer", "cli", "mcp")
MIN_OPS = 1  # however slow the machine, each worker completes at least this many operations
_ALARMING = re.compile(r"Traceback|Error|error:|WARNING|warning:|failed", re.IGNORECASE)


def _token() -> str:
    return "zq" + uuid.uuid4().hex[:10]


def worker(role: str, workspace: str, seconds: float) -> dict[str, Any]:
    import memlane

    ops, failures, written = 0, [], []
    deadline = time.monotonic() + seconds
    if role == "mcp":
        return asyncio.run(_mcp_worker(workspace, deadline))
    with memlane.open(workspace) as mem:  # provider from $MEMLANE_HOME/config.json, as every process
        while time.monotonic() < deadline or ops < MIN_OPS:
            try:
                if role == "writer":
                    tok = _token()
                    out = memlane.run_tool(mem, "memory_write", {"text": f"stress note {tok}", "heading": "Stress"})
                    if "error" in out:
                        raise RuntimeError(out["error"])
                    written.append(tok)
                elif role == "searcher":
                    out = memlane.run_tool(mem, "memory_search", {"query": "stress note"})
                    if "error" in out:
                        raise RuntimeError(out["error"])
                elif role == "syncer":
                    mem.sync()
                elif role == "cli":
                    tok = _token()
                    for cmd in (["remember", f"cli note {tok}"], ["search", "cli note"], ["index"]):
                        res = subprocess.run(
                            [sys.executable, "-m", "memlane", "-w", workspace, *cmd],
                            capture_output=True,
                            text=True,
                            timeout=300,
                        )
                        if res.returncode != 0 or _ALARMING.search(res.stderr):
                            raise RuntimeError(f"memlane {cmd[0]} exit {res.returncode}: {res.stderr.strip()[-500:]}")
                    written.append(tok)
                ops += 1
            except Exception as exc:  # every failure is the finding
                failures.append(f"{type(exc).__name__}: {exc}")
        if not mem.wait_idle(300):
            failures.append("background sync still running after 300 s")
        last = mem.background_status().get("lastError")
        if last:
            failures.append(f"background sync: {last}")
    return {"role": role, "ops": ops, "failures": failures, "written": written}


async def _mcp_worker(workspace: str, deadline: float) -> dict[str, Any]:
    from mcp import Client, StdioServerParameters

    ops, failures, written = 0, [], []
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "memlane", "-w", workspace, "mcp"], env=dict(os.environ)
    )
    async with Client(params, read_timeout_seconds=300) as client:
        while time.monotonic() < deadline or ops < MIN_OPS:
            tok = _token()
            try:
                res = await client.call_tool("memory_write", {"text": f"mcp note {tok}"})
                if res.is_error:
                    raise RuntimeError(str(res.content))
                written.append(tok)
                res = await client.call_tool("memory_search", {"query": "mcp note"})
                if res.is_error:
                    raise RuntimeError(str(res.content))
                ops += 2
            except Exception as exc:
                failures.append(f"{type(exc).__name__}: {exc}")
    return {"role": "mcp", "ops": ops, "failures": failures, "written": written}


def run_scenario(
    workspace: Path, seconds: float, roles: tuple[str, ...] = ROLES, provider: str = "none"
) -> dict[str, Any]:
    """All roles at once plus a `memlane watch` process; then every written note must be findable."""
    # Every process (CLI, MCP server, watcher, library) must index with the same settings, or they would
    # take turns rebuilding the index. Keyword-only keeps nine processes within two cores; the real-model
    # variant runs fewer.
    home = Path(os.environ.get("MEMLANE_HOME", str(Path.home() / ".memlane")))
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.json").write_text(json.dumps({"agents": {"defaults": {"memorySearch": {"provider": provider}}}}))
    env = dict(os.environ)
    watcher = subprocess.Popen(
        [sys.executable, "-m", "memlane", "-w", str(workspace), "watch"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    procs = [
        (
            role,
            subprocess.Popen(
                [sys.executable, __file__, role, str(workspace), str(seconds)],
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
                env=env,
            ),
        )
        for role in roles
    ]
    reports = []
    for role, p in procs:
        out, err = p.communicate(timeout=seconds + 600)
        if p.returncode != 0:
            reports.append({"role": role, "ops": 0, "failures": [f"exit {p.returncode}: {err[-2000:]}"], "written": []})
            continue
        report = json.loads(out.strip().splitlines()[-1])
        if err.strip():  # a worker that exited 0 but complained (a logged warning, a traceback) failed too
            report["failures"].append(f"stderr: {err.strip()[-2000:]}")
        reports.append(report)

    import memlane

    # While the watcher still runs: the index must catch up by itself (no sync from here).
    missing: list[str] = []
    caught_up = False
    behind: list[str] = []
    with memlane.open(workspace, sync={"onSearch": False}) as probe:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and not caught_up:
            caught_up = not probe.is_dirty()
            if not caught_up:
                time.sleep(0.2)
        if not caught_up:  # say what is behind: index state against the disk
            from memlane.workspace import list_memory_files

            states = probe.store.file_states()
            for f in list_memory_files(workspace):
                st = states.get(f.path)
                if st is None or (st.mtime, st.size) != (f.mtime_ns, f.size):
                    behind.append(f"{f.path}: index {st and (st.mtime, st.size)}, disk {(f.mtime_ns, f.size)}")
        for r in reports:
            for tok in r["written"]:
                hits = probe.search(tok, max_results=3, min_score=0).results
                texts = [probe.get(h.path, from_line=h.start_line, lines=h.end_line - h.start_line + 1) for h in hits]
                if not any(tok in t for t in texts):
                    missing.append(tok)

    watcher.terminate()
    w_out, w_err = watcher.communicate(timeout=120)
    stray = [ln for ln in w_err.splitlines() if ln.strip() and not ln.startswith(("watching ", "stopping"))]
    reports.append(
        {
            "role": "watch",
            "ops": w_out.count("synced"),
            "failures": [ln for ln in w_out.splitlines() if "error" in ln]
            + ([f"exit {watcher.returncode}"] if watcher.returncode != 0 else [])
            + [f"stderr: {ln}" for ln in stray]
            + ([] if caught_up else [f"the index did not catch up with the files within 120 s: {behind[:5]}"]),
            "written": [],
        }
    )
    return {"reports": reports, "missing": missing}


if __name__ == "__main__":
    role, ws, secs = sys.argv[1], sys.argv[2], float(sys.argv[3])
    print(json.dumps(worker(role, ws, secs)))
