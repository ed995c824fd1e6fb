#!/usr/bin/env bash
# Run the whole test suite: installs the package with its test extras and, unless the
# browser tests are left out (-m "not browser"), Debian's chromium. Extra arguments go to pytest.
set -euo pipefail
cd "$(dirname "$0")"
source scripts/venv.sh
ensure_venv "[test]"
if ! browser_tests_skipped "$@"; then ensure_chromium; fi
# Static checks first (issue 11): lint of the rules core, calibration, server and CLI; strict types of the rules core and the calibration.
.venv/bin/ruff check rules calibration server tabletracker
.venv/bin/mypy --cache-dir .venv/mypy-cache rules calibration
# ... and of the tracker (issue 9).
.venv/bin/ruff check tracker
.venv/bin/mypy --cache-dir .venv/mypy-cache tracker
exec .venv/bin/python -m pytest -q "$@"
