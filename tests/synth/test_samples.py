"""The bundled sample_images/ hold what their truth files say."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from calibration.setup import parse_setup
from rules.plan import parse_game
from synth.camera import CameraModel
from synth.catalog import SCENES, build_scene
from synth.render import build_truth
from synth.sequence import sequence_plan

ROOT = Path(__file__).resolve().parents[2] / "sample_images"
SCENE_FILES = sorted(ROOT.glob("*.json"))
SCENE_FILES = [p for p in SCENE_FILES if p.name != "index.json"]


def _camera(doc: dict) -> CameraModel:
    return CameraModel(np.array(doc["camera"]["matrix"]), doc["camera"]["distortion"], doc["pose"]["rvec"],
                       doc["pose"]["tvec"], tuple(doc["image_size"]))


def test_index_lists_every_scene_and_each_has_its_files() -> None:
    index = json.loads((ROOT / "index.json").read_text())
    names = [e["name"] for e in index["scenes"]]
    assert names == list(SCENES)
    assert len(names) >= 12
    for e in index["scenes"]:
        assert (ROOT / e["image"]).stat().st_size > 10_000
        assert (ROOT / e["truth"]).exists()
        assert e["description"]


@pytest.mark.parametrize("path", SCENE_FILES, ids=[p.stem for p in SCENE_FILES])
def test_truth_is_consistent(path: Path) -> None:
    doc = json.loads(path.read_text())
    setup = parse_setup(doc["setup"], source=str(path))
    assert "camera" not in doc["setup"]
    assert [c["id"] for c in doc["corners"]] == [0, 1, 2, 3]
    assert (ROOT / doc["image"]).exists()
    cam = _camera(doc)
    w, d = setup.table.width_mm, setup.table.depth_mm
    assert doc["corners"][2]["center_mm"] == [w - 30, d - 30]
    for c in doc["corners"]:
        assert np.allclose(cam.project_table(c["corners_mm"]), c["corners_px"], atol=1e-3)
    ids = [m["marker_id"] for m in doc["models"]]
    assert len(ids) == len(set(ids)) and min(ids) >= 4
    for m in doc["models"]:
        over = setup.markers.for_marker(m["marker_id"])
        assert over.offset_mm == m["offset_mm"] and over.base_mm == m["base_mm"]
        fx, fy = np.cos(np.radians(m["facing_deg"])), np.sin(np.radians(m["facing_deg"]))
        assert np.allclose(m["marker_center_mm"], [m["x_mm"] + m["offset_mm"] * fx, m["y_mm"] + m["offset_mm"] * fy],
                           atol=1e-5)
        assert np.allclose(np.mean(m["marker_corners_mm"], axis=0), m["marker_center_mm"], atol=1e-3)
        assert np.allclose(cam.project_table(m["marker_corners_mm"], m["height_mm"]), m["marker_corners_px"], atol=1e-3)
        assert 0.0 <= m["marker_visible_fraction"] <= 1.0
        assert 0 < m["x_mm"] < w and 0 < m["y_mm"] < d
    for b in doc["bases"]:
        assert b["side"] in setup.bases.sides
        assert b["diameter_mm"] in setup.bases.diameters_mm


@pytest.mark.parametrize("name", list(SCENES))
def test_committed_truth_matches_the_generator(name: str) -> None:
    """Regenerating gives the same geometry (no rendering needed to check it)."""
    doc = json.loads((ROOT / f"{name}.json").read_text())
    fresh = build_truth(build_scene(name), {})
    assert np.allclose(fresh["camera"]["matrix"], doc["camera"]["matrix"], rtol=1e-9)
    assert fresh["camera"]["distortion"] == doc["camera"]["distortion"]
    assert np.allclose(fresh["pose"]["rvec"], doc["pose"]["rvec"], atol=1e-12)
    assert np.allclose(fresh["pose"]["tvec"], doc["pose"]["tvec"], atol=1e-9)
    assert [m["marker_id"] for m in fresh["models"]] == [m["marker_id"] for m in doc["models"]]
    assert np.allclose([m["marker_corners_px"] for m in fresh["models"]],
                       [m["marker_corners_px"] for m in doc["models"]], atol=1e-3)


def test_markers_are_big_enough_except_in_the_too_small_scene() -> None:
    for name in SCENES:
        doc = json.loads((ROOT / f"{name}.json").read_text())
        sizes = [m["marker_size_px"] for m in doc["models"]]
        if name == "ff1219_1080p_too_small":
            assert max(sizes) < 12
        else:
            assert min(sizes) >= 15.5, name


def test_sequence_truth_events_and_files() -> None:
    seq = ROOT / "sequence"
    doc = json.loads((seq / "truth.json").read_text())
    plan = sequence_plan()
    assert doc["dropped_frames"] == [20] and doc["corrupt_frames"] == [31]
    assert not (seq / "frame_0020.jpg").exists()
    assert (seq / "frame_0031.jpg").stat().st_size == 0
    moves = [e for e in doc["events"] if e["type"] == "move"]
    assert [e["marker_id"] for e in moves] == [mv.marker_id for mv in plan.moves]
    for e in moves:
        before = json.loads((seq / f"frame_{e['lifted_frame'] - 1:04d}.json").read_text())
        after = json.loads((seq / f"frame_{e['placed_frame']:04d}.json").read_text())
        during = json.loads((seq / f"frame_{e['hidden_frames'][0]:04d}.json").read_text())
        m0 = next(m for m in before["models"] if m["marker_id"] == e["marker_id"])
        m1 = next(m for m in after["models"] if m["marker_id"] == e["marker_id"])
        assert [m0["x_mm"], m0["y_mm"]] == e["from_mm"] and [m1["x_mm"], m1["y_mm"]] == e["to_mm"]
        assert e["marker_id"] in during["lifted_models"]
        assert all(m["marker_id"] != e["marker_id"] for m in during["models"])
        assert e["distance_mm"] == pytest.approx(np.hypot(*(np.subtract(e["to_mm"], e["from_mm"]))), abs=1e-3)
    hand = next(e for e in doc["events"] if e["type"] == "hand")
    assert any(hand["occluded_markers"].values())
    appear = next(e for e in doc["events"] if e["type"] == "base_appears")
    first = json.loads((seq / f"frame_{appear['frame'] - 1:04d}.json").read_text())
    then = json.loads((seq / f"frame_{appear['frame']:04d}.json").read_text())
    assert len(then["bases"]) == len(first["bases"]) + 1
    for f in doc["frames"]:
        if f.get("truth"):
            assert (seq / f["image"]).stat().st_size > 10_000


def test_sequence_game_and_setup_load() -> None:
    seq = ROOT / "sequence"
    game = parse_game(json.loads((seq / "game.json").read_text()))
    setup = parse_setup(json.loads((seq / "setup.json").read_text()))
    assert setup.camera is not None
    markers = sorted(m.marker_id for m in game.models if m.marker_id is not None)
    truth = json.loads((seq / "truth.json").read_text())
    assert markers == sorted(m["marker_id"] for m in truth["initial_models"])
    assert len({u.side for u in game.units}) == 2 and len(game.units) == 4
    first = json.loads((seq / "frame_0000.json").read_text())
    at_start = {m["marker_id"]: (m["x_mm"], m["y_mm"]) for m in first["models"]}
    assert {m.marker_id: m.position_mm for m in game.models} == at_start
    assert {t.kind for t in game.terrain} == {"ruins", "wall"}


def test_charuco_truth() -> None:
    doc = json.loads((ROOT / "charuco" / "truth.json").read_text())
    assert len(doc["images"]) >= 10
    assert doc["board"]["dictionary"] == "DICT_5X5_100"
    for e in doc["images"]:
        assert (ROOT / "charuco" / e["image"]).stat().st_size > 10_000
