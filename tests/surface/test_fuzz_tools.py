"""`run_tool` on arbitrary JSON: it never raises, always answers with a JSON payload, and never answers
with an internal error (an exception its handlers did not expect is a bug, whatever the input).

The arguments are what an agent might send: any JSON value, nested deeply or not, under the tools' own
argument names and others, as an object or as text; the tool names are the real ones and others.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

import memlane
from memlane.surface.tools import PARAMETERS, TOOL_NAMES, run_tool

ARG_NAMES = sorted({a for p in PARAMETERS.values() for a in p["properties"]})
CALL_SECONDS = 10.0  # a write re-indexes one small file; a hang is what this catches

scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=False)
    | st.text(max_size=200)
    | st.sampled_from(["", " ", "-1", "0", "MEMORY.md", "memory/2025-11-27.md", "../x.md", "30d", "9" * 400])
)
json_values = st.recursive(
    scalars, lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=10), inner, max_size=4)
)
objects = st.dictionaries(st.sampled_from(ARG_NAMES) | st.text(max_size=12), json_values, max_size=5)
as_text = objects.map(json.dumps) | json_values.map(json.dumps) | st.text(max_size=300)
names = st.sampled_from(TOOL_NAMES) | st.text(max_size=20)


def _deep(n: int) -> str:
    return "[" * n + "]" * n


def test_run_tool_answers_any_json_with_a_payload(fact_workspace: Path) -> None:
    with memlane.open(fact_workspace, provider="none") as mem:

        @settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow], database=None)
        @given(name=names, arguments=objects | as_text | json_values)
        @example(name="memory_search", arguments=_deep(100_000))  # RecursionError in json.loads
        @example(name="memory_search", arguments='{"query": ' + _deep(100_000) + "}")
        @example(name="memory_recall", arguments={"query": "x", "since": "99999999d"})
        @example(name="memory_get", arguments={"path": "memory/" + "a" * 300 + ".md"})
        @example(name="memory_insert", arguments={"path": "memory/x.md", "text": "y", "line": 2**70})
        @example(name="memory_search", arguments={"query": "x", "maxResults": 10**30})
        def check(name: str, arguments: Any) -> None:
            started = time.perf_counter()
            out = run_tool(mem, name, arguments)
            assert time.perf_counter() - started < CALL_SECONDS
            assert isinstance(out, dict)
            json.dumps(out)  # JSON-ready, as documented
            if "error" in out:
                assert isinstance(out["error"], str) and out["error"]
                assert not out["error"].startswith("internal error"), (name, repr(arguments)[:300], out)

        check()
