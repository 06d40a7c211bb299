"""The runner of a background capture (docs/design/capture.md §47): ``python -m memlane.capture.hook_runner ID LOG --
COMMAND...`` runs the hook capture ``COMMAND`` (its input on this process's stdin), appends what it printed to
``LOG``, then the capture's end record (:mod:`memlane.capture.hook_log`). It imports nothing of the library but the
log's format, so whatever ends the capture (its result, a one-line error, a traceback, a signal, an interpreter
that cannot load memlane) ends in a record ``memlane doctor`` reads."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from .hook_log import RESULT_MAX, append, open_for_output


def _run(ident: str, log: Path, argv: list[str]) -> int:
    """Run the capture, its output into the log, then its end record: ``ok`` when it exited 0; its last line
    (or how it ended) as the result."""
    ok, result = False, "ended without a word"
    try:
        done = subprocess.run(argv, stdin=sys.stdin, capture_output=True, check=False)
        out = done.stdout.decode("utf-8", "replace")
        err = done.stderr.decode("utf-8", "replace")
        fd = open_for_output(log)  # the capture's own words, for a person reading the log
        try:
            os.write(fd, (out + err).encode("utf-8"))
        finally:
            os.close(fd)
        said = [line for line in (out + err).splitlines() if line.strip() and not line.startswith("note:")]
        if done.returncode == 0:
            ok, result = True, said[-1] if said else "done"
        else:
            died = f"killed by signal {-done.returncode}" if done.returncode < 0 else f"exit {done.returncode}"
            result = f"{said[-1]} ({died})" if said else died
    except BaseException as exc:  # the record is written whatever stopped the run
        result = f"the runner failed: {type(exc).__name__}: {exc}"
        raise
    finally:
        append(log, {"capture": ident, "event": "end", "ok": ok, "result": result[:RESULT_MAX]})
    return 0 if ok else 1


if __name__ == "__main__":
    if len(sys.argv) < 5 or sys.argv[3] != "--":
        sys.exit("usage: python -m memlane.capture.hook_runner ID LOG -- COMMAND...")
    sys.exit(_run(sys.argv[1], Path(sys.argv[2]), sys.argv[4:]))
