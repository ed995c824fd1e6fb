"""Corner markers read with the most error tolerance their four codes allow (issue 9, item 3)."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from calibration.aruco import detect_markers, read_corner_markers
from calibration.errors import CalibrationError
from calibration.setup import parse_setup
from calibration.table import calibrate_table
from tests.calibration import synthetic as S


def _table_image() -> tuple[np.ndarray, dict[int, np.ndarray]]:
    d = cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_250)
    img = np.full((400, 600), 90, np.uint8)
    truth = {}
    for k, (x, y) in enumerate([(40, 40), (480, 40), (480, 280), (40, 280)]):
        img[y - 10:y + 90, x - 10:x + 90] = 225                     # the paper
        img[y:y + 80, x:x + 80] = cv2.aruco.generateImageMarker(d, k, 80) // 255 * 205 + 20
        truth[k] = np.array([[x - 0.5, y - 0.5], [x + 79.5, y - 0.5], [x + 79.5, y + 79.5], [x - 0.5, y + 79.5]])
    return img, truth


def test_all_four_corners_read_although_two_are_damaged() -> None:
    img, truth = _table_image()
    # a finger over four cells of marker 1, a glare washing out a cell of marker 2
    img[40 + 14:40 + 40, 480 + 27:480 + 53] = 160
    img[280 + 28:280 + 52, 480 + 28:480 + 52] = 235
    img = cv2.GaussianBlur(img, (0, 0), 1.0)
    plain = detect_markers(img, dictionary="DICT_4X4_250", refine=False)
    assert not {1, 2} <= set(plain.ids.tolist())                   # OpenCV alone loses them
    found = read_corner_markers(img, min_side_px=40)
    assert found.ids.tolist() == [0, 1, 2, 3]
    for marker_id, quad in zip(found.ids.tolist(), found.corners_px):
        assert np.abs(quad - truth[marker_id]).max() < 1.0


def test_base_markers_are_not_corners() -> None:
    d = cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_250)
    img = np.full((300, 300), 200, np.uint8)
    img[100:180, 100:180] = cv2.aruco.generateImageMarker(d, 17, 80)
    assert len(read_corner_markers(img, min_side_px=40)) == 0


# -- a corner marker read where the others do not put it --------------------------------
DATA = Path(__file__).resolve().parent / "data"
TABLE = parse_setup({"table": {"width_mm": 600, "depth_mm": 600}})


def _table_with_corner_3_under_an_arm() -> tuple[S.Scene, np.ndarray]:
    scene = S.table_scene(600, 600, image_size=(960, 720), tilt_deg=10)
    image = scene.image.copy()
    image[600:690, 150:250] = 180                                  # the arm over corner marker 3
    # a base from a held-out render (1080p, seed 106): its disc, outlined as a square, reads as
    # corner marker 3 against the four corner codes; pasted mid-table
    disc = cv2.imread(str(DATA / "base_disc_read_as_corner_3_1080p_seed106.png"), cv2.IMREAD_GRAYSCALE)
    assert disc is not None
    image[240:360, 360:480] = disc
    return scene, image


def test_a_corner_marker_read_where_the_others_do_not_put_it_is_dropped() -> None:
    scene, image = _table_with_corner_3_under_an_arm()
    anywhere = read_corner_markers(image, min_side_px=24, max_side_px=150)
    assert 3 in anywhere.ids.tolist()                              # the misread the calibration must not use
    assert np.linalg.norm(anywhere.centers_px[anywhere.ids == 3][0] - (420, 300)) < 20
    cal = calibrate_table(image, TABLE, scene.cam, source="table.jpg")
    assert cal.corner_ids == (0, 1, 2)
    assert any("corner marker(s) 3 not seen" in w for w in cal.warnings)
    grid = np.array([[x, y] for x in (0.0, 300.0, 600.0) for y in (0.0, 300.0, 600.0)])
    px = S.project(scene.cam, scene.rvec, scene.tvec, grid)
    assert np.linalg.norm(cal.to_table_mm(px) - grid, axis=1).max() < 1.0


def test_without_a_camera_the_misread_corner_is_reported_missing_not_laid_wrong() -> None:
    _scene, image = _table_with_corner_3_under_an_arm()
    # the lens is estimated from four corner markers: the three found cannot give the pose, but the
    # message names the hidden one, not a swap or a turn the player did not make
    with pytest.raises(CalibrationError, match=r"found 3 of the 4 corner markers .*missing corner marker\(s\) 3\."):
        calibrate_table(image, TABLE, None, source="table.jpg")


@pytest.mark.parametrize(("texture_kwargs", "message"), [
    ({"rotations": (0, 0, 0, 2)}, "marker 3 is turned 180 degrees"),
    ({"order": (0, 1, 3, 2)}, "markers 2 and 3 are swapped"),
])
def test_a_corner_marker_laid_wrong_is_named_when_only_the_corner_codes_read_it(
        texture_kwargs: dict, message: str, monkeypatch: pytest.MonkeyPatch) -> None:
    import calibration.table as table_module

    scene = S.table_scene(600, 600, image_size=(960, 720), tilt_deg=10, **texture_kwargs)
    plain = table_module.detect_markers

    def without_3(image: np.ndarray, **kwargs: object) -> object:   # OpenCV's own decoding misses marker 3
        found = plain(image, **kwargs)
        return found.select(found.ids != 3)

    monkeypatch.setattr(table_module, "detect_markers", without_3)
    with pytest.raises(CalibrationError, match=message):
        calibrate_table(scene.image, TABLE, scene.cam, source="table.jpg")
