"""The README's screenshots of `memlane ui`, taken from the bundled demo with Debian's Chromium.

    .venv/bin/python docs/screenshots.py          # writes docs/img/ui-*.png
"""

from __future__ import annotations

import shutil
import socket
import subprocess
import sys
import tempfile
import time
from importlib import resources
from pathlib import Path

import httpx
from playwright.sync_api import sync_playwright

OUT = Path(__file__).resolve().parent / "img"
SHOTS = {
    "ui-search.png": "/?q=where+does+Marco+work",
    "ui-file.png": "/file?path=memory/2026-01-14.md&lines=10-10#cited",
    "ui-entity.png": "/entity?name=Marco",
    "ui-beliefs.png": "/beliefs",
    "ui-changes.png": "/changes?days=3650",
}


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp, socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
        s.close()
        ws = Path(tmp) / "demo"
        shutil.copytree(str(resources.files("memlane") / "demo"), ws)
        env_home = Path(tmp) / "home"
        proc = subprocess.Popen(
            [sys.executable, "-m", "memlane", "--workspace", str(ws), "ui", "--port", str(port)],
            env={"MEMLANE_HOME": str(env_home), "PATH": "/usr/bin:/bin"},
            stdin=subprocess.DEVNULL,
        )
        url = f"http://127.0.0.1:{port}"
        try:
            for _ in range(600):
                try:
                    if httpx.get(url + "/health", timeout=5).status_code == 200:
                        break
                except httpx.HTTPError:
                    time.sleep(0.2)
            with sync_playwright() as pw:
                browser = pw.chromium.launch(executable_path="/usr/bin/chromium", args=["--no-sandbox"])
                page = browser.new_page(viewport={"width": 1280, "height": 820}, device_scale_factor=1)
                for name, path in SHOTS.items():
                    page.goto(url + path)
                    page.wait_for_load_state("networkidle")
                    page.screenshot(path=str(OUT / name))
                    print(OUT / name)
                browser.close()
        finally:
            proc.terminate()
            proc.wait(30)


if __name__ == "__main__":
    main()
