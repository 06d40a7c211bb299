"""A concurrency stress scenario: watcher, MCP server, CLI and library processes on one index.

``python tests/stress.py ROLE WORKSPACE SECONDS`` runs one worker; :func:`run_scenario` starts them
all and gathers their reports (operations done, failures with their messages, notes written).
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import time
import uuid
from pathlib import Path
from typing import Any

ROLES = ("writer", "writer", "writer", "searcher", "searcher", "syncer", "cli", "mcp")


def _token() -> str:
    return "zq" + uuid.uuid4().hex[:10]


def worker(role: str, workspace: str, seconds: float) -> dict[str, Any]:
    import memlane

    ops, failures, written = 0, [], []
    deadline = time.monotonic() + seconds
    if role == "mcp":
        return asyncio.run(_mcp_worker(workspace, deadline))
    with memlane.open(workspace, provider="none") as mem:
        while time.monotonic() < deadline:
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
                            timeout=120,
                        )
                        if res.returncode != 0:
                            raise RuntimeError(f"memlane {cmd[0]}: {res.stderr.strip()}")
                    written.append(tok)
                ops += 1
            except Exception as exc:  # every failure is the finding
                failures.append(f"{type(exc).__name__}: {exc}")
    return {"role": role, "ops": ops, "failures": failures, "written": written}


async def _mcp_worker(workspace: str, deadline: float) -> dict[str, Any]:
    from mcp import Client, StdioServerParameters

    ops, failures, written = 0, [], []
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "memlane", "-w", workspace, "mcp"], env=dict(os.environ)
    )
    async with Client(params, read_timeout_seconds=120) as client:
        while time.monotonic() < deadline:
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


def run_scenario(workspace: Path, seconds: float) -> dict[str, Any]:
    """All roles at once plus a `memlane watch` process; then every written note must be findable."""
    # Every process (CLI, MCP server, watcher, library) must index with the same settings, or they would
    # take turns rebuilding the index: keyword-only keeps eight processes within two cores.
    home = Path(os.environ.get("MEMLANE_HOME", str(Path.home() / ".memlane")))
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.json").write_text(json.dumps({"agents": {"defaults": {"memorySearch": {"provider": "none"}}}}))
    env = dict(os.environ)
    watcher = subprocess.Popen(
        [sys.executable, "-m", "memlane", "-w", str(workspace), "watch"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    procs = [
        subprocess.Popen(
            [sys.executable, __file__, role, str(workspace), str(seconds)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
        )
        for role in ROLES
    ]
    reports = []
    for p in procs:
        out, err = p.communicate(timeout=seconds + 300)
        if p.returncode != 0:
            reports.append({"role": "?", "ops": 0, "failures": [f"exit {p.returncode}: {err[-2000:]}"], "written": []})
            continue
        reports.append(json.loads(out.strip().splitlines()[-1]))
    watcher.terminate()
    w_out, w_err = watcher.communicate(timeout=120)
    watch_report = {
        "role": "watch",
        "ops": w_out.count("synced"),
        "failures": [line for line in w_out.splitlines() if "error" in line]
        + ([f"exit {watcher.returncode}: {w_err[-2000:]}"] if watcher.returncode not in (0, 1, -15) else []),
        "written": [],
    }
    reports.append(watch_report)

    import memlane

    missing = []
    with memlane.open(workspace, provider="none") as mem:
        mem.sync()
        for r in reports:
            for tok in r["written"]:
                hits = mem.search(tok, max_results=3, min_score=0).results
                texts = [mem.get(h.path, from_line=h.start_line, lines=h.end_line - h.start_line + 1) for h in hits]
                if not any(tok in t for t in texts):
                    missing.append(tok)
    return {"reports": reports, "missing": missing}


if __name__ == "__main__":
    role, ws, secs = sys.argv[1], sys.argv[2], float(sys.argv[3])
    print(json.dumps(worker(role, ws, secs)))
