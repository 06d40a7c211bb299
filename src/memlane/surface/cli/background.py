"""A hook's capture in a process of its own: the host gets its answer at once, the capture runs to its end.

Hosts give a session-end hook little time and may end it with the session (Claude Code's default for
``SessionEnd`` is 1.5 s, and it can exit without waiting for a hook: anthropics/claude-code#41577), while a
capture loads the model, drafts, writes the Markdown and indexes it (2-3 s for 50 turns at 10,000 facts,
docs/design/capture.md §47). ``memlane hook capture --background`` checks its input, starts the same hook
without the flag in a new session (not in the host's process group, so the host's exit does not end it) and
returns; that process's output is appended to ``$MEMLANE_HOME/logs/capture.log`` (:mod:`memlane.capture.hook_log`;
``memlane doctor`` reports the captures that failed). Nothing is lost when it
fails: the transcript stays where it is, and the next capture of it (or ``memlane import``) takes what is new.
Two captures at once are one after the other (the capture state's lock)."""

from __future__ import annotations

import datetime as dt
import subprocess
import tempfile
from pathlib import Path

from ...capture.hook_log import capture_log, header, rotate


def detach_capture(payload: bytes, argv: list[str], transcript: str) -> Path:
    """Start ``argv`` (a hook capture) detached, ``payload`` on its stdin; return the log it writes to.

    The transcript is opened first, so a path the capture could not read fails here, in the host's hook,
    as one line. The payload goes through an unlinked temporary file, not a pipe: the new process reads it
    when it is ready, and this one does not wait for that."""
    with open(transcript, "rb"):
        pass
    log = capture_log()
    log.parent.mkdir(parents=True, exist_ok=True)
    rotate(log)
    with tempfile.TemporaryFile() as given, open(log, "ab", buffering=0) as out:
        given.write(payload)
        given.seek(0)
        out.write((header(transcript, dt.datetime.now()) + "\n").encode())
        subprocess.Popen(
            argv, stdin=given, stdout=out, stderr=subprocess.STDOUT, start_new_session=True, close_fds=True
        )
    return log
