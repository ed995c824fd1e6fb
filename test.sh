#!/usr/bin/env bash
# Run the whole test suite: installs the package with its test extras and Debian's
# chromium (for the browser tests) when missing. Extra arguments go to pytest.
set -euo pipefail
cd "$(dirname "$0")"
source scripts/venv.sh
ensure_venv "[test]"
ensure_chromium
# Static checks first (issue 11): lint and strict types of the rules core; calibration and
# tracker join once their branches are merged.
.venv/bin/ruff check rules
.venv/bin/mypy --cache-dir .venv/mypy-cache rules
exec .venv/bin/python -m pytest -q "$@"
