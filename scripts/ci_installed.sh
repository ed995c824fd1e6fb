#!/usr/bin/env bash
# CI check: the wheel, installed in a fresh virtual environment outside the checkout, runs
# its demo and its bundled games, and writes nothing into its install folder.
# Run from the checkout after test.sh (it uses .venv's pip to build the wheel).
set -euo pipefail
cd "$(dirname "$0")/.."
CHECKOUT=$PWD
PYTHON_BIN="${PYTHON:-python3.11}"
command -v "$PYTHON_BIN" >/dev/null 2>&1 || PYTHON_BIN=python3
work=$(mktemp -d "${TMPDIR:-/tmp}/tabletracker-installed.XXXXXX")
server_pid=""
cleanup() {
    if [ -n "$server_pid" ]; then kill "$server_pid" 2>/dev/null || true; wait "$server_pid" 2>/dev/null || true; fi
    rm -rf "$work"
}
trap cleanup EXIT
step() { echo "ci-installed: $*" >&2; }

step "building the wheel"
"$CHECKOUT/.venv/bin/python" -m pip wheel -q --no-deps "$CHECKOUT" -w "$work/dist" >"$work/build.log" 2>&1 ||
    { tail -n 30 "$work/build.log" >&2; exit 1; }
wheel=$(ls "$work"/dist/tabletracker-*.whl)
"$CHECKOUT/.venv/bin/python" - "$wheel" <<'PY'
import sys, zipfile
names = {i.filename: i.file_size for i in zipfile.ZipFile(sys.argv[1]).infolist()}
frames = [n for n in names if n.startswith("tabletracker/demo/frame_")]
assert len(frames) >= 40 and all(names[n] > 0 for n in frames), "the wheel's demo frames are missing or broken"
assert "tabletracker/demo/setup.json" in names and "tabletracker/demo/game.json" in names
assert any(n.startswith("rules/data/games/") for n in names), "the bundled games are not in the wheel"
PY
step "installing $(basename "$wheel") into a fresh venv in $work"
"$PYTHON_BIN" -m venv "$work/venv"
"$work/venv/bin/python" -m pip install -q "$wheel" >"$work/install.log" 2>&1 ||
    { tail -n 30 "$work/install.log" >&2; exit 1; }
site=$("$work/venv/bin/python" -c "import sysconfig; print(sysconfig.get_paths()['purelib'])")
touch "$work/installed.stamp"
sleep 1

cd "$work"   # nothing of the checkout is reachable from here
export TABLETRACKER_DATA="$work/data"
tt="$work/venv/bin/tabletracker"

step "ask and resolve on a bundled game by name"
expect() {  # expect TEXT COMMAND...: the command succeeds and prints TEXT
    local text="$1"; shift
    "$@" >"$work/out.txt"
    grep -qF -- "$text" "$work/out.txt" || { cat "$work/out.txt" >&2; echo "ci-installed: '$*' did not print '$text'" >&2; exit 1; }
}
expect "firezone (at-43)" "$tt" ask at-43 firezone sierra-alpha golems-256
expect "result:" "$tt" resolve at-43 shoot sierra-alpha golems-256 --weapon "laser rifle" --seed 3
expect '"mm": 76.2' "$tt" ask firefight template 300 300 3in --json

step "locate on a bundled frame"
"$tt" locate demo --json >"$work/locate.json"
"$work/venv/bin/python" - "$work/locate.json" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
assert len(doc["models"]) >= 4, doc
PY

step "serve on the bundled demo"
port=$("$work/venv/bin/python" -c "import socket; s=socket.socket(); s.bind(('127.0.0.1', 0)); print(s.getsockname()[1])")
"$tt" serve --port "$port" >"$work/serve.log" 2>&1 &
server_pid=$!
"$work/venv/bin/python" - "$port" <<'PY'
import sys, time, urllib.error, urllib.request
base = f"http://127.0.0.1:{sys.argv[1]}"
deadline = time.monotonic() + 90
page = frame = None
while time.monotonic() < deadline and frame is None:
    try:
        if page is None:
            with urllib.request.urlopen(base + "/", timeout=5) as r:
                page = r.status, r.read()
        with urllib.request.urlopen(base + "/api/frame/camera.jpg", timeout=5) as r:
            frame = r.status, r.headers["Content-Type"], r.read()
    except (urllib.error.URLError, ConnectionError):
        time.sleep(0.5)
assert page is not None and page[0] == 200, "the page did not answer 200"
assert frame is not None and frame[0] == 200 and frame[1] == "image/jpeg" and frame[2][:2] == b"\xff\xd8", \
    "no live camera frame"
with urllib.request.urlopen(base + "/docs/rule-choices", timeout=5) as r:  # the docs the explanations link to
    docs = r.status, r.read()
assert docs[0] == 200 and b"firefight-3" in docs[1], "the rule choices page is not served by the installed package"
print(f"ci-installed: page 200 ({len(page[1])} bytes), live frame 200 ({len(frame[2])} bytes), "
      f"docs 200 ({len(docs[1])} bytes)", file=sys.stderr)
PY
kill "$server_pid"; wait "$server_pid" 2>/dev/null || true; server_pid=""
if grep -qi "unreadable\|cannot decode\|Traceback" "$work/serve.log"; then
    cat "$work/serve.log" >&2; echo "ci-installed: the demo logged an error" >&2; exit 1
fi

step "nothing written into the install folder"
written=$(find "$site" -newer "$work/installed.stamp" -not -path "*/__pycache__*" -print | head -n 20)
if [ -n "$written" ]; then echo "ci-installed: written into $site:" >&2; echo "$written" >&2; exit 1; fi
[ -f "$work/data/tabletracker.db" ] || { echo "ci-installed: no database in the data folder" >&2; exit 1; }
step "passed"
