"""``tabletracker serve`` on the command line: bad options are one clear line, --lan needs the token."""

from __future__ import annotations

import re
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from tests.server.conftest import ROOT, free_port
from tests.server.serving import game_path


def serve(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "tabletracker.cli", "serve", *args], cwd=ROOT,
                          capture_output=True, text=True, timeout=60)


@pytest.mark.parametrize("args, words", [
    (["--host", "0.0.0.0"], "add --lan"),
    (["--port", "70000"], "--port must be from 1 to 65535"),
    (["--game", "/nowhere/game.json", "--no-source"], "cannot read the game file"),
    (["--images", "/nowhere/frames"], "no such file or folder"),
    (["--fps", "0", "--no-source"], "--fps must be above 0"),
])
def test_bad_options_are_one_clear_line(args: list[str], words: str, tmp_path: Path) -> None:
    done = serve(*args, "--db", str(tmp_path / "g.db"))
    assert done.returncode == 2
    assert words in done.stderr and "Traceback" not in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1


def test_lan_mode_prints_the_token_link_and_requires_it(tmp_path: Path) -> None:
    port = free_port()
    proc = subprocess.Popen([sys.executable, "-m", "tabletracker.cli", "serve", "--lan", "--host", "127.0.0.1",
                             "--port", str(port), "--no-source", "--game", str(game_path()),
                             "--db", str(tmp_path / "g.db")], cwd=ROOT, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    try:
        token = None
        deadline = time.monotonic() + 60
        assert proc.stdout is not None
        while token is None and time.monotonic() < deadline:
            line = proc.stdout.readline()
            found = re.search(r"\?token=([\w-]+)", line)
            token = found.group(1) if found else None
        assert token and len(token) >= 16
        base = f"http://127.0.0.1:{port}/api/state"
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(base, timeout=10)
        assert refused.value.code == 403
        refused.value.close()
        with urllib.request.urlopen(f"{base}?token={token}", timeout=10) as r:
            assert r.status == 200
    finally:
        proc.terminate()
        proc.communicate(timeout=10)
