"""calibration.json and camera.json round trips; bad files name the file and the field."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from calibration.camera import CameraIntrinsics
from calibration.errors import CalibrationError
from calibration.setup import TableSize
from calibration.store import (
    calibration_to_dict,
    load_calibration,
    load_image,
    load_intrinsics,
    save_calibration,
    save_intrinsics,
)
from calibration.table import TableCalibration

CAM = CameraIntrinsics(np.array([[1380.0, 0, 962], [0, 1378, 545], [0, 0, 1]]), np.array([-0.1, 0.04, 0, 0, 0.0]),
                       (1920, 1080))


def _calibration() -> TableCalibration:
    return TableCalibration(CAM, (0.1, -0.2, 0.05), (-600.0, -500.0, 1400.0), TableSize(1200, 900), 60.0, 0.123,
                            (0, 1, 2, 3), np.arange(32, dtype=float).reshape(16, 2), ("a warning",))


def test_calibration_round_trip(tmp_path: Path) -> None:
    cal = _calibration()
    path = tmp_path / "calibration.json"
    save_calibration(path, cal)
    back = load_calibration(path)
    assert calibration_to_dict(back) == calibration_to_dict(cal)
    pts = np.array([[100.0, 200.0], [1100.0, 850.0]])
    assert np.allclose(back.to_image_px(pts, height_mm=3.0), cal.to_image_px(pts, height_mm=3.0))


def test_intrinsics_round_trip(tmp_path: Path) -> None:
    path = tmp_path / "camera.json"
    save_intrinsics(path, CAM, rms_px=0.2, views=9)
    back = load_intrinsics(path)
    assert np.array_equal(back.matrix, CAM.matrix) and np.array_equal(back.distortion, CAM.distortion)
    assert back.image_size == CAM.image_size and json.loads(path.read_text())["rms_px"] == 0.2


def _broken(doc: dict, path: list[str], value: object) -> dict:
    doc = json.loads(json.dumps(doc))
    here = doc
    for key in path[:-1]:
        here = here[key]
    if value is KeyError:
        del here[path[-1]]
    else:
        here[path[-1]] = value
    return doc


@pytest.mark.parametrize(
    ("path", "value", "message"),
    [
        (["pose", "rvec"], [1, 2], r"pose.rvec must have 3 numbers, got 2"),
        (["pose"], KeyError, r"pose is missing"),
        (["table", "width_mm"], -5, r"table.width_mm must be greater than 0"),
        (["camera", "matrix"], [[1, 0, 0]], r"camera.matrix must be a 3x3 array of numbers"),
        (["camera", "distortion"], [0, 0], r"camera.distortion must have 4, 5, 8, 12 or 14 coefficients"),
        (["camera", "image_size"], [1920], r"camera.image_size must be \[width, height\]"),
        (["camera", "matrix"], [[0, 0, 0], [0, 1, 0], [0, 0, 1]], r"camera is not a camera model: .*focal"),
        (["extra"], 1, r"the top level has unknown key\(s\) 'extra'"),
        (["format"], "something-else", r"format must be 'tabletracker-table-calibration'"),
        (["corner_ids"], [0, 9], r"corner_ids must list corner marker ids from 0 to 3"),
        (["corners_px"], [[1, 2]], r"corners_px must hold 16 \[x, y\] pixel pairs"),
    ],
)
def test_bad_calibration_file_names_file_and_field(tmp_path: Path, path: list[str], value: object, message: str) -> None:
    file = tmp_path / "cal.json"
    file.write_text(json.dumps(_broken(calibration_to_dict(_calibration()), path, value)))
    with pytest.raises(CalibrationError, match=rf"^{file}: {message}"):
        load_calibration(file)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("{not json", r"not valid JSON \(line 1, column 2"),
        ("[1, 2]", r"the top level must be a JSON object, got an array"),
        ('{"matrix": [[1,0,0],[0,1,0],[0,0,1]], "distortion": [0,0,0,0], "image_size": [0, 10]}',
         r"image_size must be \[width, height\]"),
        ('{"format": "tabletracker-table-calibration", "matrix": []}', "format must be 'tabletracker-camera'"),
    ],
)
def test_bad_camera_file(tmp_path: Path, text: str, message: str) -> None:
    file = tmp_path / "camera.json"
    file.write_text(text)
    with pytest.raises(CalibrationError, match=rf"^{file}: {message}"):
        load_intrinsics(file)


def test_missing_files(tmp_path: Path) -> None:
    with pytest.raises(CalibrationError, match=r"nope.json: cannot read the calibration file"):
        load_calibration(tmp_path / "nope.json")
    with pytest.raises(CalibrationError, match=r"nope.json: cannot read the camera file"):
        load_intrinsics(tmp_path / "nope.json")


def test_load_image(tmp_path: Path) -> None:
    good = tmp_path / "frame.png"
    cv2.imwrite(str(good), np.full((20, 30, 3), 77, np.uint8))
    assert load_image(good).shape == (20, 30, 3)
    with pytest.raises(CalibrationError, match=r"missing.jpg: no such image file"):
        load_image(tmp_path / "missing.jpg")
    bad = tmp_path / "broken.jpg"
    bad.write_bytes(b"\xff\xd8\xff this is not really a jpeg")
    with pytest.raises(CalibrationError, match=r"broken.jpg: not an image OpenCV can read"):
        load_image(bad)
    empty = tmp_path / "empty.jpg"
    empty.write_bytes(b"")
    with pytest.raises(CalibrationError, match=r"empty.jpg: not an image"):
        load_image(empty)
    with pytest.raises(CalibrationError, match=r"is a directory"):
        load_image(tmp_path)
