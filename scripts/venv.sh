# Shared set-up for run.sh and test.sh: a local virtual environment and, for the
# browser tests, Debian's chromium. Sourced, not run.
PYTHON_BIN="${PYTHON:-python3.11}"
command -v "$PYTHON_BIN" >/dev/null 2>&1 || PYTHON_BIN=python3

ensure_venv() {
    local extras="$1"
    local stamp=".venv/.installed${extras}"
    if [ ! -x .venv/bin/python ]; then
        echo "tabletracker: creating .venv with $PYTHON_BIN" >&2
        "$PYTHON_BIN" -m venv .venv
    fi
    # An install with the test extras holds everything run.sh needs too.
    if [ -z "$extras" ] && is_fresh ".venv/.installed[test]"; then return 0; fi
    if ! is_fresh "$stamp"; then
        echo "tabletracker: installing dependencies (first run only)" >&2
        local log=".venv/install.log"
        if ! { .venv/bin/python -m pip install --upgrade pip &&
               .venv/bin/python -m pip install -e ".${extras}"; } >"$log" 2>&1; then
            tail -n 30 "$log" >&2
            echo "tabletracker: installing dependencies failed; the full log is in $log" >&2
            return 1
        fi
        touch "$stamp"
    fi
}

is_fresh() {  # the stamp exists and is newer than what the install depends on
    [ -f "$1" ] && [ ! pyproject.toml -nt "$1" ] && [ ! setup.py -nt "$1" ]
}

browser_tests_skipped() {  # pytest arguments that deselect the browser tests: -m "not browser"
    local prev=""
    for arg in "$@"; do
        if [ "$prev" = "-m" ] && [[ "$arg" == *"not browser"* ]]; then return 0; fi
        if [[ "$arg" == -m*"not browser"* ]]; then return 0; fi
        prev="$arg"
    done
    return 1
}

ensure_chromium() {
    if command -v chromium >/dev/null 2>&1; then return 0; fi
    if [ "$(id -u)" = "0" ]; then
        echo "tabletracker: installing Debian's chromium for the browser tests" >&2
        export DEBIAN_FRONTEND=noninteractive
        apt-get update -qq >/dev/null && apt-get install -y -qq chromium >/dev/null
    else
        echo "tabletracker: chromium is missing; install it with 'sudo apt-get install chromium'" >&2
        return 1
    fi
}
