"""``tabletracker calibrate`` and ``calibrate-camera`` end to end: output, files, clean errors."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from calibration.board import KIT_BOARD
from calibration.store import load_calibration, load_intrinsics, save_intrinsics
from tabletracker.cli import main
from tests.calibration import synthetic as S
from tests.calibration.test_charuco import TRUE_CAMERA


@pytest.fixture(scope="module")
def table_files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("cli")
    scene = S.table_scene(600, 600, image_size=(960, 720), tilt_deg=20, distortion=(-0.08, 0.0, 0, 0, 0))
    swapped = S.table_scene(600, 600, image_size=(640, 480), order=(0, 1, 3, 2))
    files = {"image": root / "table.png", "swapped": root / "swapped.png", "camera": root / "camera.json",
             "setup": root / "setup.json", "big": root / "big.json", "blank": root / "blank.png"}
    cv2.imwrite(str(files["image"]), cv2.cvtColor(scene.image, cv2.COLOR_GRAY2BGR))
    cv2.imwrite(str(files["swapped"]), swapped.image)
    cv2.imwrite(str(files["blank"]), np.full((480, 640), 128, np.uint8))
    save_intrinsics(files["camera"], scene.cam)
    files["setup"].write_text(json.dumps({"table": {"width_mm": 600, "depth_mm": 600},
                                          "markers": {"base_size_mm": 30}}))
    # the same image claimed to be a 4.8 m table: corner markers of 480 mm, base markers of 96 mm
    files["big"].write_text(json.dumps({"table": {"width_mm": 4800, "depth_mm": 4800},
                                        "markers": {"corner_size_mm": 480, "base_size_mm": 12}}))
    return files


def test_calibrate_with_camera(table_files: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "calibration.json"
    code = main(["calibrate", str(table_files["image"]), "--setup", str(table_files["setup"]),
                 "--camera", str(table_files["camera"]), "--out", str(out)])
    text = capsys.readouterr()
    assert code == 0, text.err
    assert "corner reprojection error: 0." in text.out and " px RMS" in text.out
    assert "expected position error across the table:" in text.out and "mm max" in text.out
    assert "from the camera calibration" in text.out and "readable" in text.out
    assert "warning" not in text.err
    cal = load_calibration(out)
    assert cal.reprojection_rms_px < 0.3 and not cal.intrinsics.estimated


def test_calibrate_without_camera_warns_and_json(table_files: dict[str, Path], tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "calibration.json"
    code = main(["calibrate", str(table_files["image"]), "--setup", str(table_files["setup"]), "--out", str(out),
                 "--json"])
    text = capsys.readouterr()
    assert code == 0, text.err
    doc = json.loads(text.out)
    assert doc["focal_estimated"] is True
    assert any("no camera calibration given" in w and ("lens estimated" in w or "less accurate" in w)
               for w in doc["warnings"])
    # the lens is estimated from the markers and the table's edges
    assert doc["reprojection_rms_px"] < 2.0 and doc["expected_error_mm"]["max"] > 0
    assert load_calibration(out).intrinsics.estimated


def test_calibrate_says_when_base_markers_are_too_small(table_files: dict[str, Path], tmp_path: Path,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["calibrate", str(table_files["image"]), "--setup", str(table_files["big"]),
                 "--camera", str(table_files["camera"]), "--out", str(tmp_path / "c.json")])
    text = capsys.readouterr()
    assert code == 0, text.err
    assert "too small" in text.out
    assert "base markers of 12 mm will be only" in text.err
    assert "16 px are needed" in text.err and "Use base markers of at least" in text.err
    assert "a table of at most" in text.err


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["{dir}/missing.jpg"], r"missing.jpg: no such image file"),
        (["{blank}"], r"blank.png: found 0 of the 4 corner markers .*missing corner marker\(s\) 0, 1, 2, 3"),
        (["{swapped}"], r"swapped.png: the corner markers are in an impossible layout: markers 2 and 3 are swapped"),
        (["{image}", "--camera", "{dir}/nocam.json"], r"nocam.json: cannot read the camera file"),
        (["{image}", "--camera", "{setup}"], r"setup.json: the top level has unknown key\(s\) 'markers', 'table'"),
    ],
)
def test_calibrate_bad_input(table_files: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str],
                             args: list[str], message: str) -> None:
    fill = {"dir": tmp_path, "blank": table_files["blank"], "swapped": table_files["swapped"],
            "image": table_files["image"], "setup": table_files["setup"]}
    argv = ["calibrate", *[a.format(**fill) for a in args], "--setup", str(table_files["setup"]),
            "--out", str(tmp_path / "out.json")]
    code = main(argv)
    err = capsys.readouterr().err
    assert code == 2
    assert "Traceback" not in err
    assert err.startswith("tabletracker calibrate: error: ")
    import re
    assert re.search(message, err), err
    assert not (tmp_path / "out.json").exists()


def test_calibrate_bad_setup(table_files: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    setup = tmp_path / "setup.json"
    setup.write_text(json.dumps({"table": {"width_mm": 600}}))
    code = main(["calibrate", str(table_files["image"]), "--setup", str(setup), "--out", str(tmp_path / "o.json")])
    assert code == 2
    assert "setup.json: table.depth_mm is missing" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exited:  # argparse: --setup is required
        main(["calibrate", str(table_files["image"]), "--out", str(tmp_path / "o.json")])
    assert exited.value.code == 2
    assert "--setup" in capsys.readouterr().err


@pytest.fixture(scope="module")
def board_files(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    root = tmp_path_factory.mktemp("board")
    paths = []
    for i, image in enumerate(S.board_views(TRUE_CAMERA, KIT_BOARD, 6, distance_mm=330.0, seed=5)):
        path = root / f"board_{i}.jpg"
        cv2.imwrite(str(path), image, [cv2.IMWRITE_JPEG_QUALITY, 95])
        paths.append(path)
    return paths


def test_calibrate_camera(board_files: list[Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "camera.json"
    code = main(["calibrate-camera", *map(str, board_files), "--out", str(out)])
    text = capsys.readouterr()
    assert code == 0, text.err
    assert "RMS reprojection error: 0." in text.out and "good" in text.out
    assert "focal length: fx" in text.out and "principal point" in text.out and "distortion" in text.out
    assert "the board covered" in text.out
    cam = load_intrinsics(out)
    assert cam.focal_px == pytest.approx(560.0, rel=0.01)


def test_calibrate_camera_with_the_wrong_board_is_a_clear_error(board_files: list[Path], tmp_path: Path,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["calibrate-camera", *map(str, board_files), "--out", str(tmp_path / "c.json"),
                 "--dictionary", "DICT_6X6_250"])
    err = capsys.readouterr().err
    assert code == 2 and "Traceback" not in err
    assert "only 0 of 6 photos show enough of the board" in err


def test_calibrate_camera_unreadable_photo(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "board.jpg"
    bad.write_text("not an image")
    code = main(["calibrate-camera", str(bad), "--out", str(tmp_path / "c.json")])
    assert code == 2
    assert "board.jpg: not an image OpenCV can read" in capsys.readouterr().err
