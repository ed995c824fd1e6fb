"""Corner markers read with the most error tolerance their four codes allow (issue 9, item 3)."""

from __future__ import annotations

import cv2
import numpy as np

from calibration.aruco import detect_markers, read_corner_markers


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
