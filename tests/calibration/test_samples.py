"""Table calibration on the bundled sample images, asserted against their ground truth."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from calibration.camera import CameraIntrinsics
from calibration.errors import CalibrationError
from calibration.setup import parse_setup
from calibration.store import load_image
from calibration.table import TableCalibration, calibrate_table

SAMPLES = Path(__file__).resolve().parents[2] / "sample_images"
SCENES = sorted(p for p in SAMPLES.glob("*.json") if "pose" in json.loads(p.read_text(encoding="utf-8")))

MAX_CORNER_RMS_PX = 0.3  # the target for the pose fit
# Detected corners against the renderer's own truth. On scenes rendered with a lens, the
# sample renderer's edges sit about 0.25 px from its truth (measured: the same camera and
# pose rendered by tests/calibration/synthetic.py give 0.02 px; synth's distortion-free
# scenes give 0.03-0.07 px), so this bound leaves room for that.
MAX_CORNER_VS_TRUTH_PX = 0.4
MAX_TABLE_ERROR_MM = 0.5


def _load(path: Path) -> tuple[dict, np.ndarray, CameraIntrinsics, TableCalibration]:
    truth = json.loads(path.read_text(encoding="utf-8"))
    cam = CameraIntrinsics(np.array(truth["camera"]["matrix"]), np.array(truth["camera"]["distortion"]),
                           tuple(truth["image_size"]))
    setup = parse_setup(truth["setup"], source=path.name)
    true_cal = TableCalibration(cam, np.array(truth["pose"]["rvec"]), np.array(truth["pose"]["tvec"]), setup.table)
    return truth, load_image(SAMPLES / truth["image"]), cam, true_cal


def _corners_visible(truth: dict) -> bool:
    return all(c.get("visible_fraction", 1.0) >= 1.0 for c in truth["corners"]) and len(truth["corners"]) == 4


def test_there_are_sample_scenes() -> None:
    assert len(SCENES) >= 6, f"expected the rendered sample scenes in {SAMPLES}"


@pytest.mark.parametrize("path", SCENES, ids=[p.stem for p in SCENES])
def test_sample_calibration_against_truth(path: Path) -> None:
    truth, image, cam, true_cal = _load(path)
    setup = parse_setup(truth["setup"], source=path.name)
    if not _corners_visible(truth):
        hidden = sorted(set(range(4)) - {c["id"] for c in truth["corners"] if c.get("visible_fraction", 1.0) >= 1.0})
        assert hidden
        if len(hidden) > 2:
            with pytest.raises(CalibrationError, match="missing corner marker"):
                calibrate_table(image, setup, cam, source=path.name)
            return
    # with the lens known, two corner markers are enough (issue 9): the hidden ones are named
    cal = calibrate_table(image, setup, cam, source=path.name)
    if len(cal.corner_ids) < 4:
        assert any("not seen" in w for w in cal.warnings)
    assert cal.reprojection_rms_px <= MAX_CORNER_RMS_PX
    detected = cal.corners_px.reshape(-1, 4, 2)
    for corner in truth["corners"]:
        if "corners_px" in corner and corner["id"] in cal.corner_ids:
            detected_k = detected[list(cal.corner_ids).index(corner["id"])]
            error = np.linalg.norm(detected_k - np.array(corner["corners_px"]), axis=1)
            assert np.sqrt(np.mean(error**2)) <= MAX_CORNER_VS_TRUTH_PX, f"corner marker {corner['id']}"
    xs, ys = np.meshgrid(np.linspace(0, setup.table.width_mm, 9), np.linspace(0, setup.table.depth_mm, 9))
    points = np.column_stack([xs.ravel(), ys.ravel()])
    for height in (0.0, setup.markers.base_height_mm):
        px = true_cal.to_image_px(points, height_mm=height)
        error = np.linalg.norm(cal.to_table_mm(px, height_mm=height) - points, axis=1)
        assert error.max() <= MAX_TABLE_ERROR_MM, f"{error.max():.2f} mm at height {height} mm"


@pytest.mark.parametrize("path", SCENES, ids=[p.stem for p in SCENES])
def test_sample_markers_round_trip(path: Path) -> None:
    truth, _image, _cam, true_cal = _load(path)
    base_height = parse_setup(truth["setup"]).markers.base_height_mm
    centres = np.array([m["marker_center_mm"] for m in truth["models"]] or np.zeros((0, 2)))
    px = true_cal.to_image_px(centres, height_mm=base_height)
    back = true_cal.to_image_px(true_cal.to_table_mm(px, height_mm=base_height), height_mm=base_height)
    assert np.abs(back - px).max(initial=0.0) < 0.01
