#!/usr/bin/env bash
# CI check: the oldest versions pyproject.toml declares (its >= floors) install together and
# pass the non-browser tests, so the floors stay true. A fresh venv outside .venv.
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON_BIN="${PYTHON:-python3.11}"
command -v "$PYTHON_BIN" >/dev/null 2>&1 || PYTHON_BIN=python3
work=$(mktemp -d "${TMPDIR:-/tmp}/tabletracker-min.XXXXXX")
trap 'rm -rf "$work"' EXIT
"$PYTHON_BIN" scripts/min_constraints.py >"$work/min.txt"
echo "ci-min-versions: installing $(tr '\n' ' ' <"$work/min.txt")" >&2
"$PYTHON_BIN" -m venv "$work/venv"
if ! "$work/venv/bin/python" -m pip install -q -c "$work/min.txt" -e ".[test]" >"$work/install.log" 2>&1; then
    tail -n 30 "$work/install.log" >&2
    echo "ci-min-versions: the declared minimum versions do not install together" >&2
    exit 1
fi
# What was installed must be the floors themselves, not something newer.
"$work/venv/bin/python" - "$work/min.txt" <<'PY'
import sys
from importlib.metadata import version
wrong = []
for line in open(sys.argv[1]):
    name, _, want = line.strip().partition("==")
    got = version(name)
    if [int(p) for p in got.split(".")[:3] if p.isdigit()] != [int(p) for p in (want.split(".") + ["0", "0"])[:3]] \
            and got != want:
        wrong.append(f"{name} {got} (floor {want})")
assert not wrong, "not the floors: " + ", ".join(wrong)
PY
"$work/venv/bin/python" -m pytest -q -m "not browser" -p no:cacheprovider
