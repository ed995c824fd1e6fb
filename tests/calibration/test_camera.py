"""Camera intrinsics: construction, validation, scaling, undistortion."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from calibration.camera import CameraIntrinsics
from calibration.errors import CalibrationError
from calibration.setup import parse_setup

WEBCAM = np.array([[1380.0, 0.0, 962.0], [0.0, 1378.0, 545.0], [0.0, 0.0, 1.0]])
DIST = np.array([-0.12, 0.05, 0.001, -0.0005, 0.0])


def test_from_settings() -> None:
    setup = parse_setup({"table": {"width_mm": 600, "depth_mm": 600},
                         "camera": {"matrix": WEBCAM.tolist(), "distortion": DIST.tolist()}})
    cam = CameraIntrinsics.from_settings(setup.camera, (1920, 1080))
    assert np.array_equal(cam.matrix, WEBCAM) and np.array_equal(cam.distortion, DIST)
    assert cam.image_size == (1920, 1080) and not cam.estimated
    assert cam.has_distortion


def test_arrays_are_read_only_and_copied() -> None:
    m = WEBCAM.copy()
    cam = CameraIntrinsics(m, DIST, (1920, 1080))
    m[0, 0] = 1.0
    assert cam.matrix[0, 0] == 1380.0
    with pytest.raises(ValueError):
        cam.matrix[0, 0] = 5.0
    with pytest.raises(ValueError):
        cam.distortion[0] = 5.0


@pytest.mark.parametrize(
    ("matrix", "distortion", "size", "message"),
    [
        (np.eye(2), np.zeros(5), (640, 480), r"camera matrix must have shape \(3, 3\), got \(2, 2\)"),
        (np.diag([-1.0, 1.0, 1.0]), np.zeros(5), (640, 480), "focal lengths fx, fy must be positive"),
        (np.array([[1, 0, 0], [0, 1, 0], [1, 0, 1.0]]), np.zeros(5), (640, 480), "must look like"),
        (WEBCAM, np.zeros(3), (640, 480), "distortion must have 4, 5, 8, 12 or 14 coefficients"),
        (WEBCAM, [np.nan, 0, 0, 0], (640, 480), "distortion must hold finite numbers"),
        (WEBCAM, np.zeros(5), (640,), "image_size must be two positive integers"),
        (WEBCAM, np.zeros(5), (640.5, 480), "image_size must be two positive integers"),
    ],
)
def test_bad_intrinsics(matrix: object, distortion: object, size: object, message: str) -> None:
    with pytest.raises(CalibrationError, match=message):
        CameraIntrinsics(matrix, distortion, size)  # type: ignore[arg-type]


def test_scaling_keeps_the_same_rays() -> None:
    cam = CameraIntrinsics(WEBCAM, DIST, (1920, 1080))
    half = cam.scaled_to((960, 540))
    # the same ray lands on pixel centres that map through p' = (p + 0.5) / 2 - 0.5
    px = np.array([[100.5, 80.25], [1500.0, 900.0]])
    assert np.allclose(cam.normalized(px), half.normalized((px + 0.5) / 2 - 0.5), atol=1e-9)
    assert cam.scaled_to((1920, 1080)) is cam
    with pytest.raises(CalibrationError, match="calibrated at 1920x1080 but the image is 640x480"):
        cam.scaled_to((640, 480))


def test_normalized_inverts_project_points() -> None:
    cam = CameraIntrinsics(WEBCAM, DIST, (1920, 1080))
    rays = np.array([[-0.6, -0.35, 1.0], [0.0, 0.0, 1.0], [0.5, 0.3, 1.0]])
    px, _ = cv2.projectPoints(rays, np.zeros(3), np.zeros(3), cam.matrix, cam.distortion)
    assert np.allclose(cam.normalized(px.reshape(-1, 2)), rays[:, :2], atol=1e-9)
    assert cam.normalized(np.zeros((0, 2))).shape == (0, 2)


def test_pinhole_and_field_of_view() -> None:
    cam = CameraIntrinsics.pinhole(960.0, (1920, 1080), estimated=True)
    assert cam.estimated and not cam.has_distortion
    assert cam.horizontal_fov_deg == pytest.approx(90.0)
    assert np.allclose(cam.undistort_px([[10.0, 20.0]]), [[10.0, 20.0]])


def test_distort_px_inverts_undistort_px() -> None:
    cam = CameraIntrinsics(WEBCAM, DIST, (1920, 1080))
    px = np.array([[3.0, 5.0], [960.0, 540.0], [1900.0, 1070.0]])
    assert np.abs(cam.distort_px(cam.undistort_px(px)) - px).max() < 1e-6
    assert cam.distort_px(np.zeros((0, 2))).shape == (0, 2)
