"""``tabletracker locate``: JSON output on a sample, the too-small warning, bad input."""

from __future__ import annotations

import json
import math
from pathlib import Path

import cv2
import numpy as np
import pytest

from tabletracker.cli import main
from tests.tracker.support import SAMPLES, sample, setup_document

NAME = "hf600_1080p_top"


@pytest.fixture(scope="module")
def setup_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    _, truth = sample(NAME)
    path = tmp_path_factory.mktemp("locate") / "setup.json"
    path.write_text(json.dumps(setup_document(truth)))
    return path


@pytest.fixture(scope="module")
def located_json(setup_file: Path) -> dict:
    import contextlib
    import io

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main(["locate", str(SAMPLES / f"{NAME}.jpg"), "--setup", str(setup_file), "--json"])
    assert code == 0
    return json.loads(out.getvalue())


def test_json_has_models_bases_in_table_mm(located_json: dict) -> None:
    _, truth = sample(NAME)
    want = {m["marker_id"]: m for m in truth["models"]}
    assert set(located_json) >= {"models", "bases", "rejected", "warnings"}
    assert len(located_json["models"]) >= 10
    for m in located_json["models"]:
        assert set(m) >= {"marker_id", "x_mm", "y_mm", "facing_deg"}
        t = want[m["marker_id"]]
        assert math.hypot(m["x_mm"] - t["x_mm"], m["y_mm"] - t["y_mm"]) <= 1.0
    for b in truth["bases"]:
        assert any(math.hypot(f["x_mm"] - b["x_mm"], f["y_mm"] - b["y_mm"]) <= 2.0
                   and f["side"] == b["side"] and f["diameter_mm"] == b["diameter_mm"]
                   for f in located_json["bases"]), b
    assert located_json["warnings"] == []


def test_readable_output(setup_file: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["locate", str(SAMPLES / f"{NAME}.jpg"), "--setup", str(setup_file), "--no-bases"]) == 0
    out = capsys.readouterr().out
    assert "model(s) by marker" in out and "marker " in out and "x " in out


def test_too_small_markers_are_reported_and_bases_still_found(tmp_path: Path,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    """The sample at half resolution: 12 mm markers about 10 px across."""
    image, truth = sample(NAME)
    small = cv2.resize(np.ascontiguousarray(image), (960, 540), interpolation=cv2.INTER_AREA)
    cv2.imwrite(str(tmp_path / "small.png"), small)
    doc = setup_document(truth)
    k = np.array(truth["camera"]["matrix"], float)
    k[:2, :2] *= 0.5
    k[:2, 2] = (k[:2, 2] + 0.5) / 2 - 0.5        # pixel centres at integers: halve about the edge
    doc["camera"]["matrix"] = k.tolist()
    (tmp_path / "setup.json").write_text(json.dumps(doc))
    code = main(["locate", str(tmp_path / "small.png"), "--setup", str(tmp_path / "setup.json"), "--json"])
    assert code == 0
    out = json.loads(capsys.readouterr().out)
    warning = " ".join(out["warnings"])
    assert "px across" in warning and "16 px" in warning
    assert "markers of at least" in warning and "table of at most" in warning
    found = sum(any(math.hypot(f["x_mm"] - b["x_mm"], f["y_mm"] - b["y_mm"]) <= 3.0 for f in out["bases"])
                for b in truth["bases"])
    assert found >= len(truth["bases"]) - 1


def _bad(tmp_path: Path, args: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    code = main(["locate", *args])
    err = capsys.readouterr().err
    assert code == 2, err
    assert "Traceback" not in err
    return err


def test_unreadable_image(tmp_path: Path, setup_file: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "broken.jpg").write_bytes(b"\xff\xd8 not really a jpeg")
    err = _bad(tmp_path, [str(tmp_path / "broken.jpg"), "--setup", str(setup_file)], capsys)
    assert "broken.jpg" in err and "image" in err


def test_missing_image(tmp_path: Path, setup_file: Path, capsys: pytest.CaptureFixture[str]) -> None:
    err = _bad(tmp_path, [str(tmp_path / "nope.jpg"), "--setup", str(setup_file)], capsys)
    assert "no such image file" in err


def test_no_corner_markers_and_no_calibration(tmp_path: Path, setup_file: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    cv2.imwrite(str(tmp_path / "blank.png"), np.full((540, 960, 3), 120, np.uint8))
    err = _bad(tmp_path, [str(tmp_path / "blank.png"), "--setup", str(setup_file)], capsys)
    assert "corner" in err and "missing" in err


def test_no_setup_and_no_calibration(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    err = _bad(tmp_path, [str(SAMPLES / f"{NAME}.jpg")], capsys)
    assert "--setup" in err


def test_unknown_dictionary(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "setup.json").write_text(json.dumps({"table": {"width_mm": 600, "depth_mm": 600},
                                                     "markers": {"dictionary": "DICT_9X9_1"}}))
    err = _bad(tmp_path, [str(SAMPLES / f"{NAME}.jpg"), "--setup", str(tmp_path / "setup.json")], capsys)
    assert "DICT_9X9_1" in err and "DICT_4X4_250" in err


def test_with_a_calibration_file(tmp_path: Path, setup_file: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from calibration.setup import load_setup
    from calibration.store import save_calibration
    from calibration.table import calibrate_table

    image, _ = sample(NAME)
    cal = calibrate_table(np.ascontiguousarray(image), load_setup(setup_file))
    save_calibration(tmp_path / "cal.json", cal)
    assert main(["locate", str(SAMPLES / f"{NAME}.jpg"), "--setup", str(setup_file), "--calibration",
                 str(tmp_path / "cal.json"), "--json", "--no-bases"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["calibration"] == str(tmp_path / "cal.json") and len(out["models"]) >= 10


def test_too_small_sample_says_so_and_base_mode_finds_the_models(capsys: pytest.CaptureFixture[str],
                                                                  tmp_path: Path) -> None:
    """The bundled 4 x 4 ft table at 1080p: markers about 10 px, the models found by their bases."""
    name = "ff1219_1080p_too_small"
    _, truth = sample(name)
    (tmp_path / "setup.json").write_text(json.dumps(setup_document(truth)))
    assert main(["locate", str(SAMPLES / f"{name}.jpg"), "--setup", str(tmp_path / "setup.json"), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    warning = " ".join(out["warnings"])
    assert "12 mm base markers are only" in warning
    assert "markers of at least 2" in warning          # about 20 mm markers would do
    for b in truth["bases"]:
        assert any(math.hypot(f["x_mm"] - b["x_mm"], f["y_mm"] - b["y_mm"]) <= 2.0 and f["side"] == b["side"]
                   for f in out["bases"]), b
    read = {m["marker_id"] for m in out["models"]}
    located = [m for m in truth["models"] if m["marker_id"] in read
               or any(math.hypot(f["x_mm"] - m["x_mm"], f["y_mm"] - m["y_mm"]) <= 2.5 and f["side"] == m["side"]
                      for f in out["bases"])]
    assert len(located) >= 0.7 * len(truth["models"])   # markers too small to read: found by their bases


def test_an_unreadable_image_is_told_before_a_bad_setup_file(tmp_path: Path,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    # the image is read on a thread while the setup file is parsed: the image's error still comes first
    (tmp_path / "broken.jpg").write_bytes(b"\xff\xd8 not really a jpeg")
    (tmp_path / "setup.json").write_text("{not json")
    err = _bad(tmp_path, [str(tmp_path / "broken.jpg"), "--setup", str(tmp_path / "setup.json")], capsys)
    assert "broken.jpg" in err and "setup.json" not in err


def test_a_bad_setup_file_with_a_good_image_is_told(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "setup.json").write_text("{not json")
    err = _bad(tmp_path, [str(SAMPLES / f"{NAME}.jpg"), "--setup", str(tmp_path / "setup.json")], capsys)
    assert "setup.json" in err


def test_opencv_keeps_its_worker_threads_after_locate(setup_file: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # the two searches run with OpenCV's workers off; whoever called locate gets them back
    before = cv2.getNumThreads()
    try:
        cv2.setNumThreads(3)
        assert main(["locate", str(SAMPLES / f"{NAME}.jpg"), "--setup", str(setup_file), "--json"]) == 0
        assert cv2.getNumThreads() == 3
    finally:
        cv2.setNumThreads(before)
    assert json.loads(capsys.readouterr().out)["models"]


def test_the_interpreter_is_as_it_was_after_locate(setup_file: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # one image is located with a short thread switch interval; a caller that goes on gets its
    # own back, and its cycle collector stays on (the command line's run alone turns it off)
    import gc
    import sys

    interval = sys.getswitchinterval()
    assert gc.isenabled()
    assert main(["locate", str(SAMPLES / f"{NAME}.jpg"), "--setup", str(setup_file), "--json"]) == 0
    assert sys.getswitchinterval() == interval and gc.isenabled()
    assert main(["locate", str(setup_file.parent / "missing.jpg"), "--setup", str(setup_file)]) == 2
    assert sys.getswitchinterval() == interval and gc.isenabled()
    capsys.readouterr()


def test_the_command_line_ends_at_once_with_its_output_and_status(setup_file: Path, tmp_path: Path) -> None:
    # the command line's run ends the process without the interpreter's teardown: all it printed
    # is there, and its exit status is the command's
    import subprocess
    import sys

    root = Path(__file__).resolve().parents[2]
    cmd = [sys.executable, "-m", "tabletracker.cli", "locate"]
    done = subprocess.run(cmd + [str(SAMPLES / f"{NAME}.jpg"), "--setup", str(setup_file), "--json"],
                          capture_output=True, text=True, cwd=root, timeout=120)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["models"]
    failed = subprocess.run(cmd + [str(tmp_path / "missing.jpg"), "--setup", str(setup_file)],
                            capture_output=True, text=True, cwd=root, timeout=120)
    assert failed.returncode == 2 and "missing.jpg" in failed.stderr
