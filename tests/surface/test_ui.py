"""`memlane ui`: every page's data through its JSON endpoint, the HTML it renders, the token gate and the
edit switch, on both stores; then the real entry point in a subprocess driven by a real Chromium."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from importlib import resources
from pathlib import Path
from typing import Any

import httpx
import pytest
from starlette.testclient import TestClient

import memlane
from conftest import write
from memlane.errors import MemlaneError
from memlane.ui import create_app

pytestmark = pytest.mark.usefixtures("store_driver")
NOW = "2026-01-20"
LOCAL = "http://127.0.0.1:8766"  # the address memlane ui serves on: the view answers to loopback names only


@pytest.fixture
def demo(tmp_path: Path) -> Path:
    """The bundled demo workspace (relations, a capture session, opinions that moved), plus a file with
    hostile Markdown."""
    ws = tmp_path / "ws"
    shutil.copytree(str(resources.files("memlane") / "demo"), ws)
    write(
        ws,
        "memory/2026-01-15.md",
        "# 2026-01-15\n\n<script>alert('x')</script>\n\n```\n- W @Ghost: inside a fence, not a fact.\n```\n\n"
        "## Retain\n- W @Yuki: Yuki sends the release notes on Mondays.\n",
    )
    return ws


@pytest.fixture
def client(demo: Path) -> Iterator[TestClient]:
    with memlane.open(demo, provider="none") as mem:
        mem.sync()
        yield TestClient(create_app(mem), base_url=LOCAL)


def test_search_shows_facts_and_passages_with_their_signals_and_links(client: TestClient) -> None:
    data = client.get("/api/search", params={"q": "where does Marco work"}).json()
    top = data["facts"][0]
    assert "Marco" in top["content"] and top["signals"]  # recall's --explain signals
    assert top["href"].startswith("/file?path=memory/") and top["href"].endswith("#cited")
    assert data["results"] and all("keyword" in r["signals"] for r in data["results"])
    page = client.get("/", params={"q": "where does Marco work"}).text
    assert top["content"] in page and top["source"] in page


def test_the_file_view_marks_cited_lines_and_retain_bullets_and_shows_html_as_text(client: TestClient) -> None:
    data = client.get("/api/file", params={"path": "memory/2026-01-15.md", "lines": "10"}).json()
    html = data["html"]
    assert "<script>" not in html and "&lt;script&gt;" in html  # a memory file is shown, never run
    assert 'id="cited"' in html and "Yuki sends the release notes" in html.split('id="cited"')[1].split("</p>")[0]
    assert 'data-kind="world"' in html and html.count('class="fact fact-') == 1  # not the fenced bullet
    assert data["facts"] == [
        {"line": 10, "kind": "world", "content": "Yuki sends the release notes on Mondays.", "origin": "file"}
    ]
    demo = client.get("/api/file", params={"path": "memory/2026-01-06.md"}).json()["html"]
    assert {"fact-world", "fact-experience", "fact-opinion"} <= {c for c in demo.replace('"', " ").split()}


def test_the_view_says_where_each_fact_comes_from(client: TestClient) -> None:
    # the demo's captured session: bullets of the person's words and one of the agent's
    data = client.get("/api/file", params={"path": "memory/2026-01-14.md"}).json()
    origins = {f["line"]: f["origin"] for f in data["facts"]}
    assert origins[10] == origins[11] == "person" and origins[13] == "agent"
    assert 'data-line="13"' in data["html"] and 'data-origin="agent"' in data["html"].split('data-line="13"')[1][:200]
    found = client.get("/api/search", params={"q": "Dana post-mortem review"}).json()
    dana = next(f for f in found["facts"] if "post-mortem" in f["content"])
    assert dana["origin"] == "agent"
    passage = next(r for r in found["results"] if r["path"] == "memory/2026-01-14.md")
    assert "agent" in passage["origins"]  # a captured session's passage says whose words it holds
    page = client.get("/", params={"q": "Dana post-mortem review"}).text
    assert "said by the agent" in page and 'class="captured"' in page
    entity = client.get("/entity", params={"name": "Marco"}).text
    assert "said by the person" in entity


def test_the_file_view_refuses_what_memory_get_refuses(client: TestClient, tmp_path: Path) -> None:
    (tmp_path / "secret.md").write_text("no\n")
    for path in ("../secret.md", str(tmp_path / "secret.md"), ".hidden.md", ""):
        r = client.get("/api/file", params={"path": path})
        assert r.status_code == 404 and r.json()["error"], path
    page = client.get("/file", params={"path": "../secret.md"})
    assert page.status_code == 404 and "Not found" in page.text


def test_entities_and_an_entity_with_its_timeline_and_graph(client: TestClient) -> None:
    ents = {e["name"]: e for e in client.get("/api/entities").json()["entities"]}
    assert ents["Marco"]["facts"] == 4 and ents["Marco"]["last"] == "2026-01-14"
    assert ents["Dana"]["page"] == "bank/entities/Dana.md"
    marco = client.get("/api/entity", params={"name": "Marco"}).json()
    assert [e["object"] for e in marco["now"]["works_at"]] == ["Platform"]
    ended = [(e["object"], e["valid_to"]) for e in marco["timeline"]][:2]
    assert ended == [("billing", "2026-02-01"), ("Platform", None)]
    assert {n["name"] for n in marco["graph"]["nodes"]} >= {"Marco", "Platform"}
    assert any(r["name"] == "billing" for r in marco["related"])
    page = client.get("/entity", params={"name": "Marco"}).text
    assert 'data-entity="Platform"' in page and "<svg" in page
    yuki = client.get("/api/entity", params={"name": "Yuki"}).json()  # no relations: facts by day instead
    assert yuki["timeline"] is None and yuki["graph"] is None and yuki["days"][0][0] == "2026-01-15"
    huge = client.get("/api/entity", params={"name": "Marc" * 2000})  # no hint search over a pasted page
    assert huge.status_code == 404 and "(8000 characters)" in huge.json()["error"]
    missing = client.get("/api/entity", params={"name": "Marc"})
    assert missing.status_code == 404 and "Marco" in missing.json()["error"]


def test_beliefs_follow_reflects_rule_step_by_step(demo: Path) -> None:
    with memlane.open(demo, provider="none") as mem:
        mem.sync()
        reflected = {op["statement"]: op for op in mem.reflect(dry_run=True).opinions}
        data = TestClient(create_app(mem), base_url=LOCAL).get("/api/beliefs").json()
    dana = next(op for op in data["opinions"] if op["statement"].startswith("Prefers a written post-mortem"))
    assert [s["effect"] for s in dana["steps"]] == ["stated", "support", "support", "contradict"]
    assert dana["steps"][-1]["confidence"] == dana["confidence"] == reflected[dana["statement"]]["confidence"]
    assert dana["against"] == [dana["steps"][-1]["source"]]
    for op in data["opinions"]:  # every opinion ends where reflect puts it
        assert op["confidence"] == reflected[op["statement"]]["confidence"]


def test_changes_by_day_with_captures(client: TestClient) -> None:
    data = client.get("/api/changes", params={"days": "3650"}).json()
    days = {d["day"]: d for d in data["days"]}
    captures = days["2026-01-14"]["captures"]
    assert [(c["session"], c["bullets"], c["title"]) for c in captures] == [
        ("demo-0114", 4, "incident review with Dana")
    ]
    assert captures[0]["href"] == "/file?path=memory/2026-01-14.md&lines=3-3#cited"
    assert any("Priya" in f["content"] for f in days["2026-01-14"]["facts"])
    assert list(days) == sorted(days, reverse=True)
    for bad in ("0", "x", "99999", "²"):
        assert client.get("/api/changes", params={"days": bad}).status_code == 400


def test_health_page(client: TestClient) -> None:
    data = client.get("/api/health").json()
    assert data["status"]["files"] >= 5 and all({"name", "ok", "detail"} <= set(c) for c in data["checks"])
    assert "all checks pass" in client.get("/health").text or "problem" in client.get("/health").text
    again = client.get("/api/health", params={"recheck": "1"}).json()
    assert [c["name"] for c in again["checks"]] == [c["name"] for c in data["checks"]]


def test_a_token_gates_every_request(demo: Path) -> None:
    with memlane.open(demo, provider="none") as mem:
        c = TestClient(
            create_app(mem, token="s3cret", host="0.0.0.0"), base_url="http://10.1.2.3:8766", follow_redirects=False
        )
        assert c.get("/api/entities").status_code == 401
        assert c.get("/static/memlane.css").status_code == 401
        assert c.get("/api/entities", headers={"authorization": "Bearer wrong"}).status_code == 401
        assert c.get("/api/entities", headers={"authorization": "Bearer s3cret"}).status_code == 200
        r = c.get("/entities", params={"token": "s3cret", "x": "1"})
        assert r.status_code == 303 and r.headers["location"] == "/entities?x=1"
        assert "httponly" in r.headers["set-cookie"].lower() and "samesite=strict" in r.headers["set-cookie"].lower()
        assert c.get("/api/entities").status_code == 200  # the cookie from here on
        assert "s3cret" not in r.headers["set-cookie"]  # a value derived from the token: cookies span every port
        sneaky = c.get("http://10.1.2.3:8766//evil.example/x?token=s3cret")  # a raw path of two slashes
        assert sneaky.status_code == 303 and sneaky.headers["location"] == "/evil.example/x"  # never off-site


def test_the_view_answers_to_loopback_names_only_and_loads_nothing_from_elsewhere(client: TestClient) -> None:
    page = client.get("/entities")
    assert "default-src 'self'" in page.headers["content-security-policy"]
    assert "frame-ancestors 'none'" in page.headers["content-security-policy"]
    for name in ("localhost:8766", "[::1]:8766"):
        assert client.get("/api/entities", headers={"host": name}).status_code == 200
    rebound = client.get("/api/file", params={"path": "MEMORY.md"}, headers={"host": "attacker.example:8766"})
    assert rebound.status_code == 421 and "Dana" not in rebound.text  # a page that rebinds its name to 127.0.0.1


def test_edit_needs_rw_the_switch_and_the_pages_key(demo: Path) -> None:
    def access(mode: str) -> dict[str, Any]:
        return {"agents": {"defaults": {"workspaceAccess": mode, "memorySearch": {"provider": "none"}}}}

    with memlane.open(demo, config=access("ro")) as mem:
        with pytest.raises(MemlaneError, match="writable"):
            create_app(mem, edit=True)
        r = TestClient(create_app(mem), base_url=LOCAL).post(
            "/api/edit", json={"path": "MEMORY.md", "old": "a", "new": "b"}
        )
        assert r.status_code == 403
    with memlane.open(demo, config=access("rw")) as mem:
        c = TestClient(create_app(mem, edit=True), base_url=LOCAL)
        page = c.get("/file", params={"path": "MEMORY.md"}).text
        key = page.split('data-key="')[1].split('"')[0]
        body = {"path": "MEMORY.md", "old": "Dark mode everywhere", "new": "Light mode everywhere"}
        assert c.post("/api/edit", json=body).status_code == 403  # a cross-site form has no key
        assert c.post("/api/edit", json=body, headers={"x-memlane-edit": "nope"}).status_code == 403
        assert c.post("/api/edit", json={"path": "MEMORY.md"}, headers={"x-memlane-edit": key}).status_code == 400
        foreign = {"x-memlane-edit": key, "origin": "http://attacker.example"}
        assert c.post("/api/edit", json=body, headers=foreign).status_code == 403
        assert c.post("/api/edit", json=body, headers={"x-memlane-edit": key}).status_code == 200
        assert "Light mode everywhere" in (demo / "MEMORY.md").read_text()
        assert "Dark mode" not in (demo / "MEMORY.md").read_text()


@pytest.mark.sqlite_only
def test_cli_refuses_to_serve_beyond_loopback_without_a_token(demo: Path) -> None:
    out = subprocess.run(
        [sys.executable, "-m", "memlane", "--workspace", str(demo), "ui", "--host", "0.0.0.0"],
        capture_output=True,
        text=True,
        timeout=120,
        stdin=subprocess.DEVNULL,
    )
    assert out.returncode != 0 and "only with a token" in out.stderr and "Traceback" not in out.stderr


# -- the real entry point in a real browser


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


CHROMIUM = os.environ.get("MEMLANE_CHROMIUM", "/usr/bin/chromium")


@pytest.fixture
def served(demo: Path) -> Iterator[str]:
    """``memlane ui`` started as a user starts it, on a free port; its address once it answers."""
    port = _free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "memlane", "--workspace", str(demo), "ui", "--port", str(port)],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                if httpx.get(url + "/health", timeout=5).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            assert proc.poll() is None, proc.communicate()[1]
            assert time.monotonic() < deadline, "memlane ui did not answer"
            time.sleep(0.2)
        yield url
    finally:
        proc.terminate()
        _out, err = proc.communicate(timeout=30)
        assert "Traceback" not in err, err


@pytest.fixture
def browser_page() -> Iterator[Any]:
    """A page of Debian's Chromium driven by Playwright. In CI a missing browser fails the test: .ci/run
    installs it; elsewhere the skip says what to install."""
    if not Path(CHROMIUM).exists():
        message = f"no Chromium at {CHROMIUM}: apt-get install chromium (or set MEMLANE_CHROMIUM)"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        page.set_default_timeout(30_000)
        try:
            yield page
        finally:
            browser.close()


@pytest.mark.sqlite_only
def test_browser_search_then_click_through_to_the_cited_line(served: str, browser_page: Any) -> None:
    page = browser_page
    page.goto(served + "/")
    page.fill("#q", "where does Marco work")
    page.press("#q", "Enter")
    first = page.locator(".fact-result").first
    content = first.locator(".content").inner_text()
    assert "Marco" in content
    first.locator("a.source").click()
    page.wait_for_url("**/file?path=memory/**")
    cited = page.locator("#cited")
    assert cited.is_visible() and "hl" in (cited.get_attribute("class") or "")
    assert content.split(";")[0][:30] in cited.inner_text().replace("\n", " ")
    assert page.evaluate("document.getElementById('cited').getBoundingClientRect().top") < 900  # scrolled to


@pytest.mark.sqlite_only
def test_browser_shows_whose_words_a_fact_holds(served: str, browser_page: Any) -> None:
    page = browser_page
    page.goto(served + "/?q=" + "Dana post-mortem review")
    agent = page.locator(".fact-result", has_text="post-mortem").first.locator(".origin")
    assert agent.is_visible() and agent.inner_text() == "said by the agent"
    passage = page.locator(".passage-result", has_text="2026-01-14").first
    assert "captured" in passage.locator(".captured").inner_text()
    page.goto(served + "/file?path=memory/2026-01-14.md")
    assert page.locator('li[data-origin="agent"]').count() == 1
    assert page.locator('li[data-origin="person"]').count() >= 3


@pytest.mark.sqlite_only
def test_browser_entity_timeline_and_graph(served: str, browser_page: Any) -> None:
    page = browser_page
    page.goto(served + "/entities")
    page.fill("#filter", "mar")
    assert page.locator("table.entities tbody tr:visible").count() == 1
    page.click("text=Marco")
    page.wait_for_url("**/entity?name=Marco")
    timeline = page.locator("ol.timeline li")
    assert timeline.count() >= 2 and "works_at" in timeline.first.inner_text()
    assert page.locator("ol.timeline li.past").count() >= 1  # the billing team, ended 2026-02-01
    node = page.locator('svg.graph a[data-entity="Platform"]')
    assert node.is_visible()
    node.click()
    page.wait_for_url("**/entity?name=Platform")
    assert page.locator("h1").inner_text().startswith("Platform")


@pytest.mark.sqlite_only
def test_browser_confidence_chart(served: str, browser_page: Any) -> None:
    page = browser_page
    page.goto(served + "/beliefs")
    belief = page.locator("section.belief", has_text="Prefers a written post-mortem")
    dots = belief.locator("svg.chart circle.dot")
    assert dots.count() == belief.locator("table.steps tbody tr").count() == 4
    assert belief.locator("svg.chart circle.dot.contradict").count() == 1
    box = dots.last.bounding_box()
    assert box is not None and box["width"] > 0  # drawn, not just present
    assert "contradict" in dots.last.locator("title").text_content()


def test_an_entity_shows_its_superseded_facts_and_what_superseded_them(demo: Path) -> None:
    write(
        demo,
        "memory/2026-01-16.md",
        "# 2026-01-16\n\n## Retain\n- W @Yuki: Yuki's team has 4 engineers (User, 09:00)\n",
    )
    write(
        demo,
        "memory/2026-01-18.md",
        "# 2026-01-18\n\n## Retain\n- W @Yuki: Yuki's team now has 6 engineers (User, 10:00)\n",
    )
    with memlane.open(demo, provider="none") as mem:
        mem.sync()
        client = TestClient(create_app(mem), base_url=LOCAL)
        yuki = client.get("/api/entity", params={"name": "Yuki"}).json()
        assert [(u["source"], u["superseded_by"]["source"]) for u in yuki["updates"]] == [
            ("memory/2026-01-16.md#L4", "memory/2026-01-18.md#L4")
        ]
        page = client.get("/entity", params={"name": "Yuki"}).text
        assert "Superseded" in page and "superseded by Yuki&#39;s team now has 6 engineers" in page
