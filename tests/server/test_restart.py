"""Killing the server (even ``kill -9``) and starting it again resumes the same game, nothing lost."""

from __future__ import annotations

import signal
from pathlib import Path

from tests.server.serving import Served, game_path


def test_kill_9_then_restart_resumes_the_same_game(tmp_path: Path) -> None:
    db = tmp_path / "game.db"
    args = ["--no-source", "--game", str(game_path()), "--db", str(db)]
    with Served(args) as first:
        status, _ = first.post("api/terrain", {"kind": "ruins", "shape": "area",
                                               "points_mm": [[500, 500], [600, 500], [600, 580], [500, 580]]})
        assert status == 200
        status, moved = first.post("api/models/sa-1/move", {"x_mm": 440, "y_mm": 330})
        assert status == 200 and moved["game"]["last_move"]["distance"] == 8.0
        for i in range(15):  # a burst of acknowledged changes right before the crash
            status, _ = first.post("api/objectives", {"x_mm": 100 + 10 * i, "y_mm": 900})
            assert status == 200
        before = first.get("api/state")["game"]
        log_before = first.get("api/log?limit=1000")["events"]
        first.kill(signal.SIGKILL)
        assert first.proc.returncode == -signal.SIGKILL

    with Served(args) as second:
        out = second.get("api/state")["game"]
        assert out["game"] == before["game"]
        assert out["event_id"] == before["event_id"] and out["game_id"] == before["game_id"]
        assert second.get("api/log?limit=1000")["events"] == log_before
        assert len(out["game"]["objectives"]) == len(before["game"].get("objectives", [])) and \
            len(out["game"]["objectives"]) >= 15
        # the log goes on: undo the last objective, then the restart keeps that too
        status, undone = second.post("api/undo", {})
        assert status == 200 and undone["event"]["payload"]["undone_kind"] == "objective.add"
        after_undo = second.get("api/state")["game"]["game"]
        second.kill(signal.SIGKILL)

    with Served(args) as third:
        assert third.get("api/state")["game"]["game"] == after_undo
        third.kill(signal.SIGTERM)
        assert third.proc.returncode == 0


def test_the_sample_table_resumes_after_kill_9_with_its_tracked_moves(tmp_path: Path) -> None:
    import time

    args = ["--db", str(tmp_path / "sample.db")]  # the README's command: the looping sample sequence
    with Served(args) as first:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            events = first.get("api/log?limit=1000")["events"]
            if any(e["kind"] == "move" for e in events):
                break
            time.sleep(0.3)
        status, _ = first.post("api/objectives", {"x_mm": 100, "y_mm": 100})
        assert status == 200
        before = first.get("api/log?limit=1000")["events"]
        game_id = first.get("api/state")["game"]["game_id"]
        first.kill(signal.SIGKILL)
    assert any(e["kind"] == "move" and e["actor"] == "tracker" for e in before)

    with Served(args) as second:
        after = second.get("api/log?limit=1000")["events"]
        assert after[: len(before)] == before  # every step up to the kill is there, in order
        state = second.get("api/state")["game"]
        assert state["game_id"] == game_id
        assert any(o["x_mm"] == 100 and o["y_mm"] == 100 for o in state["game"]["objectives"])
