#!/usr/bin/env bash
# Set up memlane in ./.venv and run it: on the bundled demo workspace, or on yours.
#   bash quickstart.sh                      # demo: index + three searches
#   bash quickstart.sh ~/agent-workspace    # index that workspace, then search it
#   bash quickstart.sh ~/agent-workspace "what did we decide about the database?"
set -euo pipefail
cd "$(dirname "$0")"
PY="${PYTHON:-python3}"
[ -x .venv/bin/python ] || "$PY" -m venv .venv
.venv/bin/python -m pip install --quiet --disable-pip-version-check -e .
if [ $# -eq 0 ]; then
  exec .venv/bin/memlane demo
fi
.venv/bin/memlane --workspace "$1" index
.venv/bin/memlane --workspace "$1" search "${2:-what are the most important decisions so far?}"
