"""``tabletracker track``: JSON lines from a folder of frames, bad input, calibration upkeep."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import cv2
import numpy as np
import pytest

from calibration.setup import parse_setup
from tabletracker.cli import main
from tests.tracker.support import SAMPLES, sample, setup_document
from tracker.pipeline import Tracker
from tracker.sources import Frame

NAME = "hf600_1080p_top"


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    d = tmp_path_factory.mktemp("frames")
    shutil.copy(SAMPLES / f"{NAME}.jpg", d / "f000.jpg")
    (d / "f001.jpg").write_bytes(b"\xff\xd8\xff truncated")
    shutil.copy(SAMPLES / f"{NAME}.jpg", d / "f002.jpg")
    _, truth = sample(NAME)
    (d.parent / "setup.json").write_text(json.dumps(setup_document(truth)))
    return d


def test_events_as_json_lines(folder: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["track", str(folder), "--setup", str(folder.parent / "setup.json"), "--state"])
    assert code == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    kinds = [e["type"] for e in lines]
    assert kinds[0] == "calibrated", lines[0]
    _, truth = sample(NAME)
    appeared = {e["marker_id"] for e in lines if e["type"] == "appeared"}
    assert appeared <= {m["marker_id"] for m in truth["models"]} and len(appeared) >= 12
    errors = [e for e in lines if e["type"] == "frame_error"]
    assert len(errors) == 1 and errors[0]["frame"] == 1 and "f001.jpg" in errors[0]["message"]
    assert "moved" not in kinds and "hidden" not in kinds
    state = lines[-1]
    assert state["type"] == "state" and state["frame"] == 2
    assert all(m["seen"] for m in state["models"])


def test_max_frames(folder: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["track", str(folder), "--setup", str(folder.parent / "setup.json"), "--max-frames", "1",
                 "--no-bases"]) == 0
    kinds = [json.loads(line)["type"] for line in capsys.readouterr().out.splitlines()]
    assert "frame_error" not in kinds and "appeared" in kinds


@pytest.mark.parametrize(
    ("args", "message"),
    [(["no/such/folder", "--setup", "{setup}"], "no such file or folder"),
     (["{folder}", "--setup", "{setup}", "--max-frames", "0"], "--max-frames must be at least 1"),
     (["{folder}"], "pass --setup"),
     (["{folder}", "--setup", "{folder}/missing.json"], "missing.json: cannot read the setup file")],
)
def test_bad_arguments(folder: Path, args: list[str], message: str, capsys: pytest.CaptureFixture[str]) -> None:
    args = [a.format(folder=folder, setup=folder.parent / "setup.json") for a in args]
    code = main(["track", *args])
    err = capsys.readouterr().err
    assert code == 2 and "Traceback" not in err
    assert message in err


def test_one_image_without_corner_markers_exits_with_the_reason(tmp_path: Path, folder: Path,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    cv2.imwrite(str(tmp_path / "blank.png"), np.full((540, 960, 3), 120, np.uint8))
    code = main(["track", str(tmp_path / "blank.png"), "--setup", str(folder.parent / "setup.json")])
    captured = capsys.readouterr()
    assert code == 2
    assert "calibration_failed" in captured.out
    assert "corner" in captured.err and "Traceback" not in captured.err


def test_recalibrates_when_the_corners_moved_and_warns_when_hidden() -> None:
    image, truth = sample(NAME)
    image = np.ascontiguousarray(image)
    setup = parse_setup(setup_document(truth))
    calls = []

    def calibrate(img: np.ndarray, s) -> object:  # type: ignore[no-untyped-def]
        from calibration.table import calibrate_table
        calls.append(img.shape)
        return calibrate_table(img, s)

    tracker = Tracker(setup, calibrate=calibrate, find_bare_bases=False)
    events = tracker.process(Frame(0, 0.0, image))
    assert events[0]["type"] == "calibrated" and len(calls) == 1
    # the camera was bumped 6 px to the right: the corner markers are no longer where they were
    shifted = np.roll(image, 6, axis=1)
    tracker._frames = 30
    events = tracker._check_corners(shifted, cv2.cvtColor(shifted, cv2.COLOR_BGR2GRAY), {"frame": 30})
    assert [e["type"] for e in events] == ["recalibrated"] and events[0]["corner_shift_px"] > 5
    assert len(calls) == 2
    # a hand over corner 2: the last good calibration is kept, with a warning
    covered = shifted.copy()
    x, y = (int(v) for v in truth["corners"][2]["corners_px"][0])
    covered[y - 60:y + 120, x - 60:x + 120] = (120, 150, 205)
    before = tracker.calibration
    tracker._frames = 60
    events = tracker._check_corners(covered, cv2.cvtColor(covered, cv2.COLOR_BGR2GRAY), {"frame": 60})
    assert [e["type"] for e in events] == ["calibration_warning"] and "2 hidden" in events[0]["message"]
    assert tracker.calibration is before and len(calls) == 2


def test_uncalibrated_tracker_retries_every_few_frames_and_says_it_once() -> None:
    from calibration.errors import CalibrationError
    from tracker.pipeline import CALIBRATION_RETRY_EVERY

    calls = []

    def calibrate(img: np.ndarray, s) -> object:  # type: ignore[no-untyped-def]
        calls.append(1)
        raise CalibrationError("found 0 of the 4 corner markers")

    tracker = Tracker(parse_setup({"table": {"width_mm": 600, "depth_mm": 600}}), calibrate=calibrate)
    blank = np.full((120, 160, 3), 120, np.uint8)
    events = [e for i in range(2 * CALIBRATION_RETRY_EVERY + 1) for e in tracker.process(Frame(i, i / 10, blank))]
    assert len(calls) == 3
    assert [e["type"] for e in events] == ["calibration_failed"]
    assert not tracker.state.calibrated and "0 of the 4 corner markers" in tracker.state.warnings[0]


def test_calibration_inside_a_margin_maps_back_to_the_frame() -> None:
    """The fallback used when a corner marker near the frame edge is missed gives the same table."""
    from calibration.table import calibrate_table
    from tracker.pipeline import _calibrate_with_margin

    image, truth = sample(NAME)
    image = np.ascontiguousarray(image)
    for doc in (setup_document(truth), setup_document(truth, camera=False)):
        setup = parse_setup(doc)
        plain, margin = calibrate_table(image, setup), _calibrate_with_margin(image, setup, None)
        grid = np.array([[x, y] for x in (0.0, 300.0, 600.0) for y in (0.0, 300.0, 600.0)])
        assert np.abs(margin.to_image_px(grid, height_mm=3.0) - plain.to_image_px(grid, height_mm=3.0)).max() < 0.05
        px = plain.to_image_px(grid)
        assert np.abs(margin.to_table_mm(px) - grid).max() < 0.05


def test_game_follows_the_demo_moves(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``track --game``: the demo's first move (marker 10 lifted at frame 14) moves model m10 in the game."""
    out = tmp_path / "after.json"
    assert main(["track", "demo", "--game", "demo", "--game-out", str(out), "--max-frames", "16",
                 "--no-bases"]) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    [moved] = [e for e in lines if e["type"] == "moved"]
    [change] = [e for e in lines if e["type"] == "game_move"]
    assert change["model"] == "m10" and change["to_mm"] == moved["to_mm"]
    assert lines[-1]["type"] == "game"
    saved = json.loads(out.read_text())
    assert saved == lines[-1]["game"]
    [m10] = [m for m in saved["models"] if m["id"] == "m10"]
    assert [m10["x_mm"], m10["y_mm"]] == pytest.approx(moved["to_mm"], abs=0.01)


def test_game_out_needs_a_game(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["track", "demo", "--game-out", "x.json"]) == 2
    assert "--game-out needs --game" in capsys.readouterr().err
