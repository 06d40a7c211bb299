"""``memlane ui``: a local web view of one agent's memory: search and recall in one box, a file view with
the cited lines, entities with their timelines and relations, beliefs with their confidence over time,
what changed by day, and health.

Narrow entry point: :func:`create_app` (a Starlette app over a :class:`~memlane.memory.Memory`) and
:func:`serve`. Pages are rendered on the server (Jinja2, autoescaped) from :mod:`memlane.ui.views`, whose
dicts the ``/api/*`` endpoints return as JSON; CSS and the little JavaScript there is ship in the package.
It serves on loopback; beyond it, every request needs the bearer token (``memlane mcp --http``'s), given
once as ``?token=`` and then kept in a same-site cookie. It is read-only unless started with ``edit=True``
on a workspace whose ``workspaceAccess`` is ``rw``.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import hmac
import json
import logging
import re
import secrets
import threading
import time
from collections.abc import Awaitable, Callable, MutableMapping
from importlib import resources
from typing import Any
from urllib.parse import urlencode, urlparse

from jinja2 import Environment, PackageLoader, select_autoescape
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from ..errors import AccessError, MemlaneError, PathError, UsageError
from ..facts.retain import KIND_LETTERS
from ..memory import Memory
from . import views
from .render import ORIGIN_LABELS, confidence_chart, neighbourhood_svg

COOKIE = "memlane_ui"
DOCTOR_SECONDS = 60  # the health page's checks are at most this old (an index write renews them at once)
PAGES = (
    ("/", "Search"),
    ("/entities", "Entities"),
    ("/beliefs", "Beliefs"),
    ("/changes", "Changes"),
    ("/health", "Health"),
)


class _Cache:
    """Beliefs are computed over every fact: kept until the index changes (its generation) or the day does."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._key: tuple[Any, ...] | None = None
        self._value: Any = None

    def get(self, key: tuple[Any, ...], make: Callable[[], Any]) -> Any:
        with self._lock:
            if self._key != key:
                self._value, self._key = make(), key
            return self._value


def create_app(
    memory: Memory, token: str | None = None, edit: bool = False, warm: bool = False, host: str = "127.0.0.1"
) -> Starlette:
    """The web view of ``memory``. ``token``: required of every request (header ``Authorization: Bearer``,
    ``?token=`` once, or the cookie that sets); ``edit``: allow the file view's replace form (refused unless
    the workspace is ``rw``); ``warm``: compute the beliefs and doctor's checks in the background now, so the
    first visit of those pages does not wait for them."""
    if edit and memory.config.workspace_access != "rw":
        raise AccessError(
            f"memlane ui --edit needs a writable workspace; this one is {memory.config.workspace_access!r} "
            "(workspaceAccess)"
        )
    env = Environment(loader=PackageLoader("memlane.ui", "templates"), autoescape=select_autoescape(["html"]))
    # what templates draw with: the Retain letters (W world, B experience, O opinion, S observation), how a
    # fact's origin reads (said by the person / the agent, written in a file), the links to a file's lines
    # and to an entity, and the two SVG pictures
    env.globals.update(
        kind_letters=KIND_LETTERS,
        origin_labels=ORIGIN_LABELS,
        file_href=views.file_href,
        entity_href=views.entity_href,
        confidence_chart=confidence_chart,
        neighbourhood_svg=neighbourhood_svg,
    )
    edit_key = secrets.token_urlsafe(24) if edit else None  # the edit form's own key: a cross-site post lacks it
    cache, checked = _Cache(), _Cache()

    def beliefs_now() -> dict[str, Any]:
        today = dt.date.today()
        return dict(cache.get((memory.store.generation(), today), lambda: views.beliefs(memory)))

    def checks_now(again: bool = False) -> list[dict[str, Any]]:
        """doctor's checks, kept for the index's generation and at most a minute (``again``: run them now)."""
        key: tuple[Any, ...] = (memory.store.generation(), int(time.time() // DOCTOR_SECONDS))
        if again:
            key += (time.monotonic(),)
        return list(checked.get(key, lambda: views.doctor(memory)))

    def health_now(request: Request) -> dict[str, Any]:
        return views.health(memory, checks=checks_now(bool(q(request, "recheck"))))

    def page(name: str, request: Request, status: int = 200, **data: Any) -> HTMLResponse:
        body = env.get_template(f"{name}.html").render(
            pages=PAGES, here=request.url.path, agent=memory.agent_id, edit_key=edit_key, status=status, **data
        )
        return HTMLResponse(body, status_code=status)

    def failing(handler: Callable[[Request], Response]) -> Callable[[Request], Awaitable[Response]]:
        """Bad input gets its message, as a page or as JSON; nothing else is caught."""

        async def run(request: Request) -> Response:
            try:
                return await run_in_threadpool(handler, request)
            except MemlaneError as exc:  # PathError among them
                status = 404 if "no entity" in str(exc) or isinstance(exc, PathError) else 400
                if request.url.path.startswith("/api/"):
                    return JSONResponse({"error": str(exc)}, status_code=status)
                return page("error", request, message=str(exc), status=status)

        return run

    def q(request: Request, name: str, default: str = "") -> str:
        return request.query_params.get(name, default).strip()

    def search_data(request: Request) -> dict[str, Any] | None:
        text = q(request, "q")
        return views.search(memory, text) if text else None

    def days(request: Request) -> int:
        raw = q(request, "days", "14")
        if not re.fullmatch(r"[0-9]{1,4}", raw) or not 1 <= int(raw) <= 3660:
            raise UsageError(f"days must be a whole number from 1 to 3660, got {raw!r}")
        return int(raw)

    def changes_data(request: Request) -> dict[str, Any]:
        return views.changes(memory, days(request), proposals=beliefs_now()["proposals"])

    # -- pages
    def home(request: Request) -> Response:
        return page("search", request, query=q(request, "q"), data=search_data(request))

    def file_page(request: Request) -> Response:
        return page("file", request, data=views.file(memory, q(request, "path"), q(request, "lines") or None))

    def entities_page(request: Request) -> Response:
        return page("entities", request, data=views.entities(memory))

    def entity_page(request: Request) -> Response:
        return page("entity", request, data=views.entity(memory, q(request, "name")))

    def beliefs_page(request: Request) -> Response:
        return page("beliefs", request, data=beliefs_now())

    def changes_page(request: Request) -> Response:
        return page("changes", request, data=changes_data(request), request_days=q(request, "days"))

    def health_page(request: Request) -> Response:
        data = health_now(request)
        return page("health", request, data=data, status_json=json.dumps(data["status"], indent=2, default=str))

    # -- JSON
    def api(make: Callable[[Request], Any]) -> Callable[[Request], Response]:
        return lambda request: JSONResponse(make(request))

    async def edit_endpoint(request: Request) -> Response:
        if edit_key is None:
            return JSONResponse({"error": "this view is read-only: start it with memlane ui --edit"}, status_code=403)
        if not hmac.compare_digest(request.headers.get("x-memlane-edit", ""), edit_key):
            return JSONResponse({"error": "missing or wrong edit key"}, status_code=403)
        origin = request.headers.get("origin")
        if origin is not None and urlparse(origin).netloc != request.headers.get("host"):
            return JSONResponse({"error": "an edit must come from this view's own pages"}, status_code=403)
        try:
            body = await request.json()
            path, old, new = body["path"], body["old"], body["new"]
            if not all(isinstance(v, str) for v in (path, old, new)):
                raise TypeError
        except (ValueError, KeyError, TypeError):
            return JSONResponse({"error": "send JSON {path, old, new}, each a string"}, status_code=400)
        try:
            result = await run_in_threadpool(memory.replace, path, old, new)
        except MemlaneError as exc:
            return JSONResponse({"error": str(exc)}, status_code=400)
        return JSONResponse(result)

    static = StaticFiles(directory=str(resources.files("memlane.ui") / "static"))
    routes = [
        Route("/", failing(home)),
        Route("/file", failing(file_page)),
        Route("/entities", failing(entities_page)),
        Route("/entity", failing(entity_page)),
        Route("/beliefs", failing(beliefs_page)),
        Route("/changes", failing(changes_page)),
        Route("/health", failing(health_page)),
        Route("/api/search", failing(api(search_data))),
        Route("/api/file", failing(api(lambda r: views.file(memory, q(r, "path"), q(r, "lines") or None)))),
        Route("/api/entities", failing(api(lambda r: views.entities(memory)))),
        Route("/api/entity", failing(api(lambda r: views.entity(memory, q(r, "name"))))),
        Route("/api/beliefs", failing(api(lambda r: beliefs_now()))),
        Route(
            "/api/changes", failing(api(lambda r: views.changes(memory, days(r), proposals=beliefs_now()["proposals"])))
        ),
        Route("/api/health", failing(api(health_now))),
        Route("/api/edit", edit_endpoint, methods=["POST"]),
        Mount("/static", static, name="static"),
    ]
    app = Starlette(routes=routes)
    if warm:
        warm_up = _quietly(lambda: (beliefs_now(), checks_now()))
        threading.Thread(target=warm_up, name="memlane-ui-warm", daemon=True).start()
    return Guard(app, token, None if host not in LOOPBACK_NAMES else LOOPBACK_NAMES)  # type: ignore[return-value]


def _quietly(work: Callable[[], Any]) -> Callable[[], None]:
    """``work`` for a background thread: a failure there is logged, and the page that needs it meets it again."""

    def run() -> None:
        try:
            work()
        except Exception as exc:
            logging.getLogger("memlane").debug("ui warm-up failed: %s", exc)

    return run


class Guard:
    """ASGI middleware in front of every request.

    - The ``Host`` must be one this server answers to: on loopback, only loopback names, so a page that
      rebinds its own name to 127.0.0.1 (DNS rebinding) is not served (the MCP SDK checks the same).
    - With a token: the bearer header, or ``?token=`` once (answered with a cookie and a redirect that drops it
      from the address bar), or that cookie. The cookie holds a value derived from the token, never the token
      itself: cookies are shared by every port of a host, and the token also opens ``memlane mcp --http``.
    - Every answer forbids framing and loading anything from elsewhere (a captured ``![](http://...)`` does
      not call out when it is viewed)."""

    HEADERS = (
        (b"content-security-policy", b"default-src 'self'; img-src 'self' data:; frame-ancestors 'none'"),
        (b"x-content-type-options", b"nosniff"),
        (b"referrer-policy", b"no-referrer"),
    )

    def __init__(self, app: Any, token: str | None, hosts: tuple[str, ...] | None) -> None:
        self.app = app
        self.token = token
        self.cookie = hmac.new(token.encode(), b"memlane-ui-cookie", hashlib.sha256).hexdigest() if token else ""
        self.hosts = hosts  # None: any (served beyond loopback, where the token guards every request)

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_with_headers(message: MutableMapping[str, Any]) -> None:
            if message["type"] == "http.response.start":
                message = {**message, "headers": [*message.get("headers", []), *self.HEADERS]}
            await send(message)

        request = Request(scope)
        raw = request.headers.get("host") or ""
        host = raw.split("]")[0] + "]" if raw.startswith("[") else raw.rsplit(":", 1)[0]
        if self.hosts is not None and host not in self.hosts:
            await JSONResponse({"error": f"this memlane view does not answer to host {host!r}"}, 421)(
                scope, receive, send_with_headers
            )
            return
        if self.token is None:
            await self.app(scope, receive, send_with_headers)
            return
        given = request.query_params.get("token")
        if given is not None and hmac.compare_digest(given.encode(), self.token.encode()):
            rest = [(k, v) for k, v in request.query_params.multi_items() if k != "token"]
            target = "/" + request.url.path.lstrip("/") + ("?" + urlencode(rest) if rest else "")
            response: Response = RedirectResponse(target, status_code=303)
            response.set_cookie(COOKIE, self.cookie, httponly=True, samesite="strict")
            await response(scope, receive, send_with_headers)
            return
        header = request.headers.get("authorization", "")
        ok = hmac.compare_digest(header.encode(), f"Bearer {self.token}".encode()) or hmac.compare_digest(
            request.cookies.get(COOKIE, "").encode(), self.cookie.encode()
        )
        if not ok:
            response = JSONResponse(
                {"error": "unauthorized: this memlane view needs its token (open it once with ?token=...)"},
                status_code=401,
                headers={"www-authenticate": "Bearer"},
            )
            await response(scope, receive, send_with_headers)
            return
        await self.app(scope, receive, send_with_headers)


LOOPBACK_NAMES = ("127.0.0.1", "localhost", "[::1]", "::1")


def serve(
    memory: Memory,
    host: str = "127.0.0.1",
    port: int = 8766,
    token: str | None = None,
    edit: bool = False,
    open_browser: bool = False,
) -> None:
    """Serve until stopped. The token is ``memlane mcp --http``'s (the argument, ``mcp.http.token`` or
    ``MEMLANE_MCP_TOKEN``); beyond loopback the view is served only with one."""
    import os

    import uvicorn

    from ..config.sections import LOOPBACK, TOKEN_ENV

    token = token or memory.config.mcp.http.token or os.environ.get(TOKEN_ENV) or None
    if host not in LOOPBACK and not token:
        raise UsageError(
            f"memlane ui serves beyond loopback ({host!r}) only with a token: --token-file FILE, mcp.http.token "
            f"or {TOKEN_ENV}"
        )
    app = create_app(memory, token=token, edit=edit, warm=True, host=host)
    memory.start()  # the index follows the files while the view is open
    shown = f"[{host}]" if ":" in host else host
    url = f"http://{shown}:{port}/"
    if open_browser:
        import webbrowser

        threading.Timer(1.0, webbrowser.open, (url + ("?" + urlencode({"token": token}) if token else ""),)).start()
    mode = "edit" if edit else "read-only"
    print(f"memlane ui: {url} (agent {memory.agent_id}, {mode}{', token required' if token else ''})", flush=True)
    uvicorn.Server(uvicorn.Config(app, host=host, port=port, log_level="warning")).run()
