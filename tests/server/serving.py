"""Run ``tabletracker serve`` in a real subprocess on a free loopback port (restart and browser tests)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

from tests.server.conftest import ROOT, free_port

START_TIMEOUT_S = 60.0


class Served:
    """A ``tabletracker serve`` process; ``url`` once it answers."""

    def __init__(self, args: list[str], *, port: int | None = None) -> None:
        self.port = port or free_port()
        self.url = f"http://127.0.0.1:{self.port}/"
        env = {**os.environ, "PYTHONUNBUFFERED": "1"}
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "tabletracker.cli", "serve", "--port", str(self.port), *args],
            cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self._wait_ready()

    def _wait_ready(self) -> None:
        deadline = time.monotonic() + START_TIMEOUT_S
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                out, err = self.proc.communicate()
                raise RuntimeError(f"serve exited with {self.proc.returncode}: {err or out}")
            try:
                with urllib.request.urlopen(self.url + "api/state", timeout=2) as r:
                    if r.status == 200:
                        return
            except (urllib.error.URLError, ConnectionError, TimeoutError):
                time.sleep(0.1)
        self.kill()
        raise RuntimeError("serve did not answer within a minute")

    def get(self, path: str) -> Any:
        with urllib.request.urlopen(self.url + path, timeout=10) as r:
            return json.loads(r.read())

    def post(self, path: str, body: Any) -> tuple[int, Any]:
        req = urllib.request.Request(self.url + path, data=json.dumps(body).encode(), method="POST",
                                     headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(req, timeout=10) as r:
                return r.status, json.loads(r.read())
        except urllib.error.HTTPError as exc:
            return exc.code, json.loads(exc.read())

    def kill(self, sig: int = signal.SIGKILL) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
        try:
            self.proc.communicate(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.communicate()

    def __enter__(self) -> "Served":
        return self

    def __exit__(self, *_: Any) -> None:
        self.kill(signal.SIGTERM)


def serve_game(folder: Path, game: Any) -> Served:
    """Serve ``game`` (written to ``folder/game.json``, its log in ``folder/g.db``) with no frame source."""
    (folder / "game.json").write_text(json.dumps(game), encoding="utf-8")
    return Served(["--no-source", "--game", str(folder / "game.json"), "--db", str(folder / "g.db")])


def game_path() -> Path:
    return ROOT / "rules" / "data" / "games" / "at-43-sample.json"
