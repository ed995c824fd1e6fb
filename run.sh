#!/usr/bin/env bash
# Start tabletracker: installs what it needs on first use, then runs the web overlay
# (on the bundled sample table when no camera is given). Extra arguments go to
# `tabletracker`, e.g. `bash run.sh serve --camera 0` or `bash run.sh --help`.
set -euo pipefail
cd "$(dirname "$0")"
source scripts/venv.sh
ensure_venv ""
if [ $# -eq 0 ]; then set -- serve; fi
exec .venv/bin/tabletracker "$@"
