"""ArUco detection: small markers found, sub-pixel corners against rendered ground truth."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from calibration.aruco import (
    MarkerDetections,
    detect_markers,
    detector_parameters,
    get_dictionary,
    refine_corners_by_edges,
)
from calibration.camera import CameraIntrinsics
from calibration.errors import CalibrationError
from tests.calibration import synthetic as S

# Base markers of 12 mm on 3 mm bases, a 600 mm table at 1280x960 seen from ~0.9 m: ~18 px across.
BASES = ((17, 150.0, 200.0, 12.0, 3.0), (42, 300.0, 300.0, 12.0, 3.0), (4, 480.0, 420.0, 12.0, 3.0))


@pytest.fixture(scope="module")
def scene() -> S.Scene:
    return S.table_scene(600, 600, image_size=(1280, 960), tilt_deg=15, extra=BASES)


def _truth(scene: S.Scene, marker_id: int) -> np.ndarray:
    for base_id, x, y, side, height in BASES:
        if base_id == marker_id:
            return S.project(scene.cam, scene.rvec, scene.tvec, S.square_mm((x, y), side), height)
    h = 30.0
    centres = {0: (h, h), 1: (600 - h, h), 2: (600 - h, 600 - h), 3: (h, 600 - h)}
    return S.project(scene.cam, scene.rvec, scene.tvec, S.square_mm(centres[marker_id], 60.0))


def test_finds_small_base_markers(scene: S.Scene) -> None:
    found = detect_markers(scene.image, min_side_px=10)
    assert found.ids.tolist() == [0, 1, 2, 3, 4, 17, 42]
    bases = found.select(found.ids >= 4)
    assert 14.0 < bases.side_px.min() < 22.0


def test_a_16_px_marker_in_a_wide_frame_is_found_where_opencv_defaults_drop_it() -> None:
    # OpenCV's minMarkerPerimeterRate 0.03 of a 2560 px frame is 77 px: a side of 19 px.
    cam = CameraIntrinsics.pinhole(2000.0, (2560, 1440))
    rvec, tvec = S.look_at_pose((0.0, 0.0, -1500.0), (0.0, 0.0, 0.0))
    tex = [S.Texture(np.full((8, 8), 250, np.uint8), S.square_mm((0, 0), 20)),
           S.Texture(S.marker_texture(17), S.square_mm((0, 0), 12))]
    image = S.render(cam, rvec, tvec, tex, supersample=1, background=150)
    found = detect_markers(image, min_side_px=12)
    assert found.ids.tolist() == [17] and found.side_px[0] == pytest.approx(16.0, abs=0.5)
    defaults = cv2.aruco.ArucoDetector(get_dictionary("DICT_4X4_250"), cv2.aruco.DetectorParameters())
    _corners, ids, _rejected = defaults.detectMarkers(image)
    assert ids is None


def _rms_corner_error(scene: S.Scene, found: MarkerDetections) -> float:
    errors = np.concatenate([np.linalg.norm(c - _truth(scene, int(i)), axis=1)
                             for i, c in zip(found.ids, found.corners_px)])
    return float(np.sqrt(np.mean(errors**2)))


def test_corners_are_sub_pixel(scene: S.Scene) -> None:
    refined = detect_markers(scene.image)
    coarse = detect_markers(scene.image, refine=False)
    corners, bases = refined.ids < 4, refined.ids >= 4
    assert _rms_corner_error(scene, refined.select(corners)) < 0.15
    assert _rms_corner_error(scene, refined.select(bases)) < 0.5  # 18 px markers: 3 px modules
    assert _rms_corner_error(scene, refined) < _rms_corner_error(scene, coarse)


def test_edge_fit_beats_corner_subpix_on_a_tilted_view() -> None:
    tilted = S.table_scene(1200, 1200, image_size=(1280, 720), tilt_deg=30, distortion=(-0.1, 0.02, 0, 0, 0),
                           supersample=2)
    found = detect_markers(tilted.image)
    params = detector_parameters((1280, 720))
    corners, ids, _ = cv2.aruco.ArucoDetector(get_dictionary("DICT_4X4_250"), params).detectMarkers(tilted.image)
    subpix = MarkerDetections(np.ravel(ids), np.asarray(corners, float).reshape(-1, 4, 2))
    order = np.argsort(subpix.ids)
    subpix = MarkerDetections(subpix.ids[order], subpix.corners_px[order])

    def rms(d: MarkerDetections) -> float:
        h = 30.0
        centres = {0: (h, h), 1: (1200 - h, h), 2: (1200 - h, 1200 - h), 3: (h, 1200 - h)}
        errs = [c - S.project(tilted.cam, tilted.rvec, tilted.tvec, S.square_mm(centres[int(i)], 60.0))
                for i, c in zip(d.ids, d.corners_px)]
        return float(np.sqrt(np.mean(np.sum(np.square(errs), axis=-1))))

    assert found.ids.tolist() == subpix.ids.tolist() == [0, 1, 2, 3]
    assert rms(found) < 0.15 < rms(subpix)


def test_edge_fit_on_an_exact_square_and_without_a_quiet_zone() -> None:
    # a dark square with edges at x = 20.3 and 60.3, y = 30.6 and 70.6 (pixel centres at integers)
    image = np.full((100, 100), 220, np.float32)
    xs = np.arange(100)
    cover_x = np.clip(np.minimum(xs + 0.5 - 20.3, 60.3 - (xs - 0.5)), 0, 1)
    cover_y = np.clip(np.minimum(xs + 0.5 - 30.6, 70.6 - (xs - 0.5)), 0, 1)
    image -= 190 * np.outer(cover_y, cover_x)
    gray = np.rint(cv2.GaussianBlur(image, (0, 0), 0.7)).astype(np.uint8)  # any lens blurs a little
    truth = np.array([[[20.3, 30.6], [60.3, 30.6], [60.3, 70.6], [20.3, 70.6]]])
    rough = truth + np.array([[0.4, -0.3], [-0.3, 0.2], [0.2, 0.4], [-0.4, -0.2]])
    refined = refine_corners_by_edges(gray, rough)
    assert np.abs(refined - truth).max() < 0.03
    no_quiet_zone = np.full_like(gray, 30)
    assert np.array_equal(refine_corners_by_edges(no_quiet_zone, rough), rough)


def test_centres_are_the_projected_centres(scene: S.Scene) -> None:
    found = detect_markers(scene.image)
    k = found.ids.tolist().index(42)
    centre = S.project(scene.cam, scene.rvec, scene.tvec, np.array([[300.0, 300.0]]), 3.0)[0]
    assert np.linalg.norm(found.centers_px[k] - centre) < 0.3


def test_size_limits_and_roi(scene: S.Scene) -> None:
    big_only = detect_markers(scene.image, min_side_px=40)
    assert big_only.ids.tolist() == [0, 1, 2, 3]
    small_only = detect_markers(scene.image, min_side_px=10, max_side_px=30)
    assert small_only.ids.tolist() == [4, 17, 42]
    full = detect_markers(scene.image)
    k = full.ids.tolist().index(42)
    x, y = full.centers_px[k].astype(int)
    roi = detect_markers(scene.image, roi=(x - 40, y - 40, 80, 80))
    assert roi.ids.tolist() == [42]
    assert np.allclose(roi.corners_px[0], full.corners_px[k], atol=0.05)
    assert len(detect_markers(scene.image, roi=(5000, 5000, 10, 10))) == 0


def test_empty_image_gives_empty_detections() -> None:
    found = detect_markers(np.full((120, 160), 200, np.uint8))
    assert len(found) == 0 and found.corners_px.shape == (0, 4, 2) and found.centers_px.shape == (0, 2)


@pytest.mark.parametrize(
    ("ids", "corners", "message"),
    [
        ([1, 2], np.zeros((1, 4, 2)), r"corners_px must have shape \(N, 4, 2\) with N = len\(ids\) = 2, got \(1, 4, 2\)"),
        ([1], np.zeros((1, 3, 2)), r"got \(1, 3, 2\)"),
    ],
)
def test_detections_check_shapes(ids: list[int], corners: np.ndarray, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        MarkerDetections(np.array(ids), corners)


def test_detections_are_read_only() -> None:
    d = MarkerDetections(np.array([5]), np.arange(8, dtype=float).reshape(1, 4, 2))
    with pytest.raises(ValueError):
        d.corners_px[0, 0, 0] = 1.0


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"dictionary": "DICT_9X9_1"}, r"unknown ArUco dictionary 'DICT_9X9_1'; valid ones are DICT_4X4_50, DICT_4X4_100"),
        ({"min_side_px": 0}, "min_side_px must be positive"),
        ({"min_side_px": 20, "max_side_px": 10}, r"max_side_px \(10\) must be at least min_side_px \(20\)"),
    ],
)
def test_bad_settings(kwargs: dict, message: str) -> None:
    with pytest.raises(CalibrationError, match=message):
        detect_markers(np.zeros((50, 50), np.uint8), **kwargs)


def test_parameters_follow_the_expected_size() -> None:
    p = detector_parameters((1920, 1080), min_side_px=16)
    assert p.minMarkerPerimeterRate == pytest.approx(64 / 1920)
    assert p.cornerRefinementMethod == cv2.aruco.CORNER_REFINE_SUBPIX
    assert 0.5 <= p.relativeCornerRefinmentWinSize <= 1.0


def test_other_dictionary_is_used() -> None:
    cam = CameraIntrinsics.pinhole(600.0, (400, 300))
    rvec, tvec = S.look_at_pose((50.0, 50.0, -400.0), (50.0, 50.0, 0.0))
    img = S.marker_texture(7, "DICT_5X5_100")
    tex = [S.Texture(np.full((8, 8), 250, np.uint8), S.square_mm((50, 50), 80)), S.Texture(img, S.square_mm((50, 50), 50))]
    image = S.render(cam, rvec, tvec, tex, supersample=2)
    assert detect_markers(image, dictionary="DICT_5X5_100").ids.tolist() == [7]
    assert len(detect_markers(image, dictionary="DICT_4X4_250")) == 0


def test_lens_model_straightens_edges_near_the_image_border() -> None:
    # a webcam lens (k1 -0.28) bends the edges of markers near the corners of the image
    cam = CameraIntrinsics(np.array([[1100.0, 0, 639.5], [0, 1100.0, 479.5], [0, 0, 1]]),
                           np.array([-0.28, 0.09, 0, 0, 0]), (1280, 960))
    rvec, tvec = S.look_at_pose((300.0, 340.0, -760.0), (300.0, 300.0, 0.0))
    image = S.render(cam, rvec, tvec, S.table_textures(600, 600), supersample=2, noise_sigma=1.0, blur_sigma=0.5)
    h = 30.0
    centres = {0: (h, h), 1: (600 - h, h), 2: (600 - h, 600 - h), 3: (h, 600 - h)}

    def rms(d: MarkerDetections) -> float:
        errs = [c - S.project(cam, rvec, tvec, S.square_mm(centres[int(i)], 60.0)) for i, c in zip(d.ids, d.corners_px)]
        return float(np.sqrt(np.mean(np.sum(np.square(errs), axis=-1))))

    plain, straightened = detect_markers(image), detect_markers(image, camera=cam)
    assert straightened.ids.tolist() == [0, 1, 2, 3]
    assert rms(straightened) < 0.08 and rms(straightened) < rms(plain)
    x, y = straightened.corners_px[0, 0].astype(int)
    cropped = detect_markers(image, camera=cam, roi=(x - 60, y - 60, 200, 200))
    assert np.allclose(cropped.corners_px[0], straightened.corners_px[0], atol=0.02)
