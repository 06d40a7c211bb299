"""The suite is sealed from the environment: an exported key or base URL changes no result and reaches
no vendor. Proved from outside: part of the suite runs in a child pytest with both exported, pointed at
a local server that records every request it gets."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from conftest import SEALED_ENV
from vendor_server import VendorServer

HERE = Path(__file__).parent


def test_no_vendor_variable_reaches_a_test_or_its_subprocesses() -> None:
    assert not [name for name in SEALED_ENV if name in os.environ]
    child = subprocess.run(
        [sys.executable, "-c", "import os; print(os.environ.get('OPENAI_API_KEY'), os.environ.get('GEMINI_API_KEY'))"],
        capture_output=True,
        text=True,
        env=dict(os.environ),
        check=True,
    )
    assert child.stdout.strip() == "None None"


def test_an_exported_key_changes_nothing_and_reaches_no_vendor() -> None:
    server = VendorServer().start()
    try:
        env = {
            **os.environ,
            "OPENAI_API_KEY": "sk-exported-by-the-shell",
            "OPENAI_BASE_URL": server.url + "/v1",
            "GEMINI_API_KEY": "exported-too",
        }
        files = [str(HERE / name) for name in ("surface/test_cli.py", "surface/test_tools.py", "facts/test_recall.py")]
        run = subprocess.run(
            [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *files],
            capture_output=True,
            text=True,
            env=env,
            cwd=HERE.parent,
            timeout=600,
        )
        assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
        assert " passed" in run.stdout and "failed" not in run.stdout
        assert server.state.requests == []  # not one request reached the "vendor"
    finally:
        server.stop()
