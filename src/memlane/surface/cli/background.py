"""A hook's capture in a process of its own: the host gets its answer at once, the capture runs to its end.

Hosts give a session-end hook little time and may end it with the session (Claude Code's default for
``SessionEnd`` is 1.5 s, and it can exit without waiting for a hook: anthropics/claude-code#41577), while a
capture loads the model, drafts, writes the Markdown and indexes it (2-3 s for 50 turns at 10,000 facts,
docs/design/capture.md §47). ``memlane hook capture --background`` checks its input and starts a runner in a new
session (not in the host's process group, so a signal to the host's group does not reach it), which runs the same
hook without the flag, waits for it and records how it ended; the hook returns as soon as the runner has started.
Both write to ``$MEMLANE_HOME/logs/capture.log`` (:mod:`memlane.capture.hook_log`): a start and an end record per
capture, joined by an id, and the capture's own output between. ``memlane doctor`` reports a capture that failed
or died, with the command that takes the transcript again. Nothing is lost when one fails: the transcript stays
where it is, and a capture of it takes what is new. Two captures of one agent at once take turns (the capture
state's lock).

The runner is :mod:`memlane.capture.hook_runner`: it imports nothing of the library, so a crash of the capture
(a traceback, a signal, an interpreter that cannot load memlane) still ends in a record."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
import tempfile
import uuid
from pathlib import Path

from ...capture.hook_log import append, capture_log, open_for_output, rotated
from ...errors import MemlaneError

RUNNER = "memlane.capture.hook_runner"


def detach_capture(payload: bytes, argv: list[str], transcript: str, where: dict[str, str | None]) -> tuple[Path, str]:
    """Start the runner of ``argv`` (a hook capture, ``payload`` on its stdin) detached; return the log and the
    capture's id. ``where`` (workspace, agent, config as the hook was given them) goes into the start record, so
    that doctor tells this workspace's captures from others' and can give the command that captures again.

    The transcript must be a regular file: anything else (a folder, a FIFO, which an open would wait on forever)
    fails here, in the host's hook, as one line. The payload goes through an unlinked temporary file, not a pipe,
    so this process does not wait for the runner to read it."""
    try:
        if not stat.S_ISREG(os.stat(transcript).st_mode):
            raise MemlaneError(f"the hook's transcript_path is not a regular file: {transcript}")
    except OSError as exc:
        raise MemlaneError(f"the hook's transcript_path cannot be read: {exc}") from None
    log = capture_log()
    ident = uuid.uuid4().hex[:12]
    runner = [sys.executable, "-m", RUNNER, ident, str(log), "--", *argv]
    record = {"capture": ident, "event": "start", "transcript": transcript, **where}
    with rotated(log), tempfile.TemporaryFile() as given:
        given.write(payload)
        given.seek(0)
        out = open_for_output(log)
        try:
            proc = subprocess.Popen(runner, stdin=given, stdout=out, stderr=out, start_new_session=True, close_fds=True)
        except OSError as exc:
            append(log, {**record, "pid": None})
            append(log, {"capture": ident, "event": "end", "ok": False, "result": f"could not start: {exc}"})
            raise MemlaneError(f"the background capture could not start: {exc}") from None
        finally:
            os.close(out)
        append(log, {**record, "pid": proc.pid})
    proc.returncode = 0  # never waited for, on purpose (it outlives this process): no "still running" warning
    return log, ident
