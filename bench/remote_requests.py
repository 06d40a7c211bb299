"""Requests a full reindex sends to a remote provider, with and without the batch API.

Runs against the test suite's local server that speaks the OpenAI and Gemini wire protocols
(tests/vendor_server.py), so it measures what memlane sends, not the vendors' latency.

    .venv/bin/python bench/remote_requests.py [--chunks 1000]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

import memlane
from vendor_server import VendorServer


def workspace(root: Path, chunks: int) -> Path:
    # one short note per file: one chunk per file
    for i in range(chunks):
        path = root / "memory" / f"2026-{1 + i // 28 % 12:02d}-{1 + i % 28:02d}-{i}.md"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"# Note {i}\n\nEntry {i}: the team discussed subject{i} and decided item{i * 7}.\n")
    return root


def run(provider: str, batch: bool, chunks: int, home: Path) -> None:
    server = VendorServer().start()
    server.state.polls_to_finish = 3
    base = f"{server.url}/v1" if provider == "openai" else f"{server.url}/v1beta"
    cfg = {
        "agents": {
            "defaults": {
                "memorySearch": {
                    "provider": provider,
                    "remote": {
                        "baseUrl": base,
                        "apiKey": "bench-key",
                        "batch": {"enabled": batch, "minTexts": 1, "pollIntervalMs": 10},
                    },
                    "store": {"path": str(home / f"{provider}-{batch}.sqlite")},
                }
            }
        }
    }
    with tempfile.TemporaryDirectory() as tmp:
        ws = workspace(Path(tmp), chunks)
        with memlane.open(ws, config=cfg) as mem:
            started = time.perf_counter()
            report = mem.sync()
            seconds = time.perf_counter() - started
            counts = mem.store.counts()
    server.stop()
    kinds: dict[str, int] = {}
    for r in server.state.requests:
        kinds[r.kind] = kinds.get(r.kind, 0) + 1
    total = sum(kinds.values())
    detail = ", ".join(f"{k} {v}" for k, v in sorted(kinds.items()))
    print(
        f"| {provider} | {'batch' if batch else 'ordinary'} | {counts['chunks']} | {report.embedded} | {total} | "
        f"{detail} | {seconds:.1f} s |"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--chunks", type=int, default=1000)
    args = parser.parse_args()
    print("| provider | mode | chunks | texts embedded | HTTP requests | by kind | sync time (local server) |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    with tempfile.TemporaryDirectory() as home:
        for provider in ("openai", "gemini"):
            for batch in (False, True):
                run(provider, batch, args.chunks, Path(home))


if __name__ == "__main__":
    main()
