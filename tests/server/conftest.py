"""Fixtures for the web overlay: an app on a temporary database with a scripted frame tracker."""

from __future__ import annotations

import json
import socket
from pathlib import Path
from typing import Any, Iterator

import numpy as np
import pytest

from server import create_app
from server.live import Sighting, Snapshot, TrackEvent

ROOT = Path(__file__).resolve().parents[2]
AT43_GAME = ROOT / "rules" / "data" / "games" / "at-43-sample.json"
PX_PER_MM = 0.5


def small_game() -> dict[str, Any]:
    """An AT-43 game on a 600 x 400 mm table: two units of two, one wall, one objective."""
    return {
        "ruleset": "at-43", "name": "test table", "table": {"width_mm": 600.0, "depth_mm": 400.0},
        "units": [{"id": "alpha", "side": "una", "name": "Alpha", "leader": "a1", "kind": "infantry"},
                  {"id": "golems", "side": "therians", "name": "Golems", "leader": "g1", "kind": "infantry"}],
        "models": [
            {"id": "a1", "unit": "alpha", "marker_id": 4, "x_mm": 100.0, "y_mm": 100.0, "base_mm": 30.0},
            {"id": "a2", "unit": "alpha", "marker_id": 5, "x_mm": 140.0, "y_mm": 100.0, "base_mm": 30.0},
            {"id": "g1", "unit": "golems", "marker_id": 6, "x_mm": 400.0, "y_mm": 300.0, "base_mm": 30.0},
            {"id": "g2", "unit": "golems", "x_mm": 440.0, "y_mm": 300.0, "base_mm": 30.0},
        ],
        "objectives": [{"id": "obj-1", "x_mm": 300.0, "y_mm": 200.0}],
    }


def scaled_projector(points_mm: np.ndarray) -> np.ndarray:
    """A camera straight above the table: 0.5 px per mm."""
    return np.asarray(points_mm, dtype=float).reshape(-1, 2) * PX_PER_MM


class ScriptedTracker:
    """A fake frame tracker: plays a list of (sightings, events) frames on a plain image."""

    def __init__(self, frames: list[tuple[list[Sighting], list[TrackEvent]]], table_mm: tuple[float, float]) -> None:
        self.frames = list(frames)
        self.table_mm = table_mm
        self.seq = 0
        self.closed = False
        w, d = round(table_mm[0] * PX_PER_MM), round(table_mm[1] * PX_PER_MM)
        self.image = np.full((d, w, 3), 90, np.uint8)
        self.image[::20, :, :] = 200  # a grid, so the warped view is not blank

    def step(self) -> Snapshot | None:
        if not self.frames:
            return None
        sightings, events = self.frames.pop(0)
        self.seq += 1
        import time
        now = time.time()
        return Snapshot(self.seq, now, now, self.image, tuple(sightings), (), tuple(events),
                        scaled_projector, self.table_mm)

    def close(self) -> None:
        self.closed = True


def still(marker_id: int, x: float, y: float, seen: bool = True) -> Sighting:
    return Sighting(marker_id, x, y, 0.0, seen)


@pytest.fixture
def make_app(tmp_path: Path) -> Iterator[Any]:
    """Return ``make(frames=None, **config)`` building apps that are stopped at the end."""
    apps = []

    def make(frames: list[tuple[list[Sighting], list[TrackEvent]]] | None = None, **config: Any) -> Any:
        game = config.pop("GAME", small_game())
        table = (game["table"]["width_mm"], game["table"]["depth_mm"]) if game else (600.0, 400.0)
        base = {"DB_PATH": str(tmp_path / "game.db"), "GAME": game}
        if frames is not None:
            base["TRACKER_FACTORY"] = lambda: ScriptedTracker(frames, table)
        base.update(config)
        app = create_app(base)
        app.config["TESTING"] = True
        apps.append(app)
        return app

    yield make
    for app in apps:
        ov = app.extensions["tabletracker"]
        ov.stop()
        ov.store.close()


@pytest.fixture
def app(make_app: Any) -> Any:
    return make_app()


@pytest.fixture
def client(app: Any) -> Any:
    return app.test_client()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def write_json(path: Path, doc: Any) -> Path:
    path.write_text(json.dumps(doc), encoding="utf-8")
    return path
