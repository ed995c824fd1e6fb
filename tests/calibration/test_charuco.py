"""ChArUco camera calibration from rendered photos of the kit's board with a known camera."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from calibration.board import KIT_BOARD, BoardSpec
from calibration.camera import CameraIntrinsics
from calibration.charuco import (
    GOOD_RMS_PX,
    MIN_VIEWS,
    LENS_MODELS,
    calibrate_camera,
    calibrate_camera_model,
    detect_board,
    image_coverage,
    make_board,
)
from calibration.errors import CalibrationError
from tests.calibration import synthetic as S

TRUE_CAMERA = CameraIntrinsics(np.array([[560.0, 0.0, 322.0], [0.0, 560.0, 236.0], [0.0, 0.0, 1.0]]),
                               np.array([-0.15, 0.08, 0.0, 0.0, 0.0]), (640, 480))


@pytest.fixture(scope="module")
def views() -> list[np.ndarray]:
    return S.board_views(TRUE_CAMERA, KIT_BOARD, 8, distance_mm=330.0)


def test_recovers_the_true_camera(views: list[np.ndarray]) -> None:
    cam, rms, report = calibrate_camera(views)
    assert rms < GOOD_RMS_PX
    assert cam.image_size == (640, 480) and not cam.estimated
    assert cam.matrix[0, 0] == pytest.approx(560.0, rel=0.01)
    assert cam.matrix[1, 1] == pytest.approx(560.0, rel=0.01)
    assert np.allclose(cam.matrix[:2, 2], (322.0, 236.0), atol=4.0)
    assert cam.distortion[0] == pytest.approx(-0.15, abs=0.04)
    # the model removes the same lens distortion as the true lens, to a pixel, near the image corners
    corner = np.array([[40.0, 40.0], [600.0, 440.0]])
    shift = cam.undistort_px(corner) - corner
    true_shift = TRUE_CAMERA.undistort_px(corner) - corner
    assert np.linalg.norm(true_shift, axis=1).min() > 10.0
    assert np.abs(shift - true_shift).max() < 1.0
    assert len(report) == 8 and all(r.used and r.rms_px is not None and r.corners_found >= 8 for r in report)


def test_no_usable_view_says_what_to_do() -> None:
    blank = np.full((480, 640), 120, np.uint8)
    with pytest.raises(CalibrationError,
                       match=r"only 0 of 2 photos show enough of the board .*more photos from different angles.*"
                             r"whole board in view.*glare.*Not usable: image 1 \(only 0 of 24 board corners found\)"):
        calibrate_camera([blank, blank])


def test_few_views_get_the_lens_model_they_support(views: list[np.ndarray]) -> None:
    blank = np.full((480, 640), 120, np.uint8)
    cam, rms, report, model = calibrate_camera_model([views[0], views[1], views[2], blank, blank])
    assert model in [m[0] for m in LENS_MODELS] and "p1" not in model   # no tangential terms from 3 photos
    assert cam.matrix[0, 0] == pytest.approx(560.0, rel=0.03)
    assert rms < 1.0 and sum(r.used for r in report) == 3
    # one photo of a lens with distortion: no model is both determined and unbiased, so it is refused
    with pytest.raises(CalibrationError, match="too alike"):
        calibrate_camera_model([views[1]])


def test_many_good_views_get_the_full_model(views: list[np.ndarray]) -> None:
    _cam, _rms, _report, model = calibrate_camera_model(views)
    assert "k1, k2" in model and "principal point" in model and "at the centre" not in model


def test_photos_of_different_sizes_are_refused(views: list[np.ndarray]) -> None:
    with pytest.raises(CalibrationError, match=r"b.jpg: is 320x240 but the first photo is 640x480"):
        calibrate_camera([views[0], views[1][:240, :320]], names=["a.jpg", "b.jpg"])


def test_photos_that_are_too_alike_are_refused(views: list[np.ndarray]) -> None:
    with pytest.raises(CalibrationError, match="too alike|do not fit one camera"):
        calibrate_camera([views[0]] * 5)


def test_detect_board_finds_all_corners(views: list[np.ndarray]) -> None:
    corners, ids = detect_board(views[0], make_board(KIT_BOARD))
    assert corners.shape == (24, 2) and sorted(ids.tolist()) == list(range(24))


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        (BoardSpec(squares_x=1), "at least 2 x 2 squares"),
        (BoardSpec(marker_mm=30.0), "must be smaller than its squares"),
        (BoardSpec(dictionary="DICT_5X5_7"), "unknown ArUco dictionary 'DICT_5X5_7'"),
        (BoardSpec(squares_x=30, squares_y=30, dictionary="DICT_4X4_50"), "needs 450 markers but DICT_4X4_50 has only 50"),
    ],
)
def test_bad_boards(spec: BoardSpec, message: str) -> None:
    with pytest.raises(CalibrationError, match=message):
        make_board(spec)


def test_no_photos() -> None:
    with pytest.raises(CalibrationError, match="no photo given"):
        calibrate_camera([])


SAMPLE_BOARD = Path(__file__).resolve().parents[2] / "sample_images" / "charuco"


def test_calibrates_the_sample_board_photos_to_their_true_camera() -> None:
    truth = json.loads((SAMPLE_BOARD / "truth.json").read_text(encoding="utf-8"))
    photos = sorted(SAMPLE_BOARD.glob("*.jpg"))
    assert len(photos) >= MIN_VIEWS
    spec = BoardSpec(truth["board"]["squares_x"], truth["board"]["squares_y"], truth["board"]["square_mm"],
                     truth["board"]["marker_mm"], truth["board"]["dictionary"])
    assert spec == KIT_BOARD
    cam, rms, report = calibrate_camera(photos)
    true_cam = CameraIntrinsics(np.array(truth["camera"]["matrix"]), np.array(truth["camera"]["distortion"]),
                                tuple(truth["image_size"]))
    assert rms < GOOD_RMS_PX
    assert all(r.used for r in report)
    assert cam.focal_px == pytest.approx(true_cam.focal_px, rel=0.005)
    assert np.allclose(cam.matrix[:2, 2], true_cam.matrix[:2, 2], atol=3.0)
    # where the board was seen, the model removes the true lens distortion (tens of pixels) to
    # within a pixel; a principal point off by 1-2 px alone moves the correction by a few tenths
    w, h = cam.image_size
    seen = np.concatenate([r.corners_px for r in report])
    shift, true_shift = cam.undistort_px(seen) - seen, true_cam.undistort_px(seen) - seen
    assert np.abs(true_shift).max() > 10.0
    assert np.linalg.norm(shift - true_shift, axis=1).max() < 1.0
    # the coverage is the hull of every corner used, as a fraction of the image
    hull = cv2.convexHull(seen.astype(np.float32))
    assert image_coverage(report, cam.image_size) == pytest.approx(cv2.contourArea(hull) / (w * h))
