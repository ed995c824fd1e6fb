#!/usr/bin/env bash
# Run every benchmark and print its figures: `bash benchmarks/run.sh [NAME...]`
# (names without .py, e.g. `bash benchmarks/run.sh tracker geometry`).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/venv.sh
ensure_venv "[test]"
if [ $# -eq 0 ]; then
    set -- $(ls benchmarks/*.py | xargs -n1 basename | sed 's/\.py$//' | grep -v '^_')
fi
for name in "$@"; do
    echo "=== benchmarks/${name}.py"
    .venv/bin/python "benchmarks/${name}.py"
    echo
done
