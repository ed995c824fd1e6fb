"""Second readings: a square identified from its cells, a marker read on a base found by rim colour."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from calibration.setup import parse_setup
from tests.tracker.support import marker_layer
from tracker.bases import PlanView, find_bases
from tracker.decode import identify_quads, same_ids
from tracker.markers import ScaledPlane, clockwise_quads, facing_from_corners, square_corners_mm
from tracker.onbase import markers_on_bases
from tracker.refine import refine_corners_status

PX_PER_MM = 2.0


def _model_image(marker_id: int, centre_mm: tuple[float, float], facing: float, *, base_mm: float = 32.0,
                 offset_mm: float = 0.0, rim=(216, 111, 46)) -> np.ndarray:
    """One model seen from straight above: a base with a coloured rim, a marker on top."""
    size = int(200 * PX_PER_MM)
    img = np.full((size, size, 3), (90, 110, 80), np.uint8)
    a = np.radians(facing)
    base = (centre_mm[0] - offset_mm * np.cos(a), centre_mm[1] - offset_mm * np.sin(a))
    c = (int(round(base[0] * PX_PER_MM * 16)), int(round(base[1] * PX_PER_MM * 16)))
    cv2.circle(img, c, int(base_mm / 2 * PX_PER_MM * 16), rim, -1, cv2.LINE_AA, shift=4)
    cv2.circle(img, c, int((base_mm / 2 - 1.5) * PX_PER_MM * 16), (58, 60, 55), -1, cv2.LINE_AA, shift=4)
    paper = square_corners_mm(centre_mm, 14.0, facing_deg=facing) * PX_PER_MM
    cv2.fillConvexPoly(img, np.round(paper * 16).astype(np.int32), (235, 235, 235), cv2.LINE_AA, shift=4)
    warped, alpha = marker_layer(marker_id, square_corners_mm(centre_mm, 12.0, facing_deg=facing) * PX_PER_MM, size)
    return (img * (1 - alpha[:, :, None]) + warped[:, :, None] * alpha[:, :, None]).astype(np.uint8)


@pytest.mark.parametrize("turn", [0, 1, 2, 3])
def test_identify_quads_finds_id_and_corner_order(turn: int) -> None:
    img = cv2.cvtColor(_model_image(33, (100.0, 100.0), 40.0), cv2.COLOR_BGR2GRAY)
    truth = square_corners_mm((100.0, 100.0), 12.0, facing_deg=40.0) * PX_PER_MM
    start = np.roll(truth, turn, axis=0)[None]
    ids, oriented = identify_quads(img, clockwise_quads(start), "DICT_4X4_250")
    assert ids.tolist() == [33]
    assert np.abs(oriented[0] - truth).max() < 1e-9


def test_identify_rejects_what_is_not_a_marker() -> None:
    img = np.full((100, 100), 128, np.uint8)
    quad = np.array([[[20.0, 20.0], [60.0, 20.0], [60.0, 60.0], [20.0, 60.0]]])
    assert identify_quads(img, quad, "DICT_4X4_250")[0].tolist() == [-1]
    assert same_ids(img, quad, np.array([17]), "DICT_4X4_250").tolist() == [False]


def test_refine_recovers_the_square_from_a_rough_guess() -> None:
    img = cv2.cvtColor(_model_image(33, (100.0, 100.0), 40.0), cv2.COLOR_BGR2GRAY)
    truth = square_corners_mm((100.0, 100.0), 12.0, facing_deg=40.0) * PX_PER_MM
    rough = truth + np.array([1.5, -1.0])
    refined, ok = refine_corners_status(img, rough[None], max_shift_modules=2.0)
    assert ok.all()
    assert np.abs(refined[0].mean(axis=0) - truth.mean(axis=0)).max() < 0.15


@pytest.mark.parametrize("facing", [0.0, 33.0, 250.0])
def test_marker_read_on_a_base_found_by_colour(facing: float) -> None:
    setup = parse_setup({"table": {"width_mm": 200, "depth_mm": 200},
                         "markers": {"base_height_mm": 0.0, "per_marker": {"33": {"offset_mm": 5.0}}}})
    image = _model_image(33, (100.0, 90.0), facing, offset_mm=5.0)
    cal = ScaledPlane(PX_PER_MM)
    view = PlanView(cal, setup, px_per_mm=PX_PER_MM)
    bases = find_bases(image, view, setup)
    assert len(bases) == 1
    det = markers_on_bases(image, cv2.cvtColor(image, cv2.COLOR_BGR2GRAY), view, cal, setup, bases)
    assert det.marker_ids.tolist() == [33]
    assert np.abs(det.centers_px[0] / PX_PER_MM - (100.0, 90.0)).max() < 0.15
    got = float(facing_from_corners(det.corners_px / PX_PER_MM)[0])
    assert abs((got - facing + 180) % 360 - 180) < 1.0


def test_marker_that_does_not_fit_its_base_is_not_read() -> None:
    """The setup says marker 33 sits 5 mm forward of its base centre; here it is centred."""
    setup = parse_setup({"table": {"width_mm": 200, "depth_mm": 200},
                         "markers": {"base_height_mm": 0.0, "per_marker": {"33": {"offset_mm": 5.0}}}})
    image = _model_image(33, (100.0, 90.0), 0.0, offset_mm=0.0)
    cal = ScaledPlane(PX_PER_MM)
    view = PlanView(cal, setup, px_per_mm=PX_PER_MM)
    bases = find_bases(image, view, setup)
    det = markers_on_bases(image, cv2.cvtColor(image, cv2.COLOR_BGR2GRAY), view, cal, setup, bases)
    assert len(det) == 0
