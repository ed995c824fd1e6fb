"""Base mode: bare bases against the samples' truth, and the circle-fitting helpers."""

from __future__ import annotations

import math

import cv2
import numpy as np
import pytest

from calibration.setup import parse_setup
from tests.tracker.support import located, sample
from tracker.bases import PlanView, find_bases, fit_centre_fixed_radius, fit_circle, snap_diameter
from tracker.markers import ScaledPlane

BASE_SAMPLES = ("hf600_1080p_top", "hf600_1080p_tilt30")
CENTRE_TOLERANCE_MM = 2.0


@pytest.mark.parametrize("name", BASE_SAMPLES)
def test_bare_bases_found_with_centre_size_and_side(name: str) -> None:
    found, _, _ = located(name)
    _, truth = sample(name)
    assert truth["bases"]
    for b in truth["bases"]:
        near = [f for f in found.bases if math.hypot(f.x_mm - b["x_mm"], f.y_mm - b["y_mm"]) <= CENTRE_TOLERANCE_MM]
        assert len(near) == 1, f"base at ({b['x_mm']}, {b['y_mm']}): found {near}"
        assert near[0].diameter_mm == b["diameter_mm"]
        assert near[0].side == b["side"]


@pytest.mark.parametrize("name", BASE_SAMPLES)
def test_models_with_markers_are_not_bare_bases(name: str) -> None:
    found, _, _ = located(name)
    for f in found.bases:
        for m in found.models:
            assert math.hypot(f.x_mm - m.x_mm, f.y_mm - m.y_mm) > 5.0, (f, m.marker_id)


@pytest.mark.parametrize("name", BASE_SAMPLES)
def test_extra_bases_are_models_whose_marker_is_hidden(name: str) -> None:
    """Base mode also finds models whose marker cannot be read; nothing else."""
    found, _, _ = located(name)
    _, truth = sample(name)
    places = [(b["x_mm"], b["y_mm"]) for b in truth["bases"]] + [(m["x_mm"], m["y_mm"]) for m in truth["models"]]
    for f in found.bases:
        assert min(math.hypot(f.x_mm - x, f.y_mm - y) for x, y in places) <= CENTRE_TOLERANCE_MM, f


def _disc_image(px_per_mm: float, centre_mm: tuple[float, float], diameter_mm: float, rim_bgr: tuple[int, int, int],
                *, hidden_deg: float = 0.0) -> np.ndarray:
    img = np.full((int(200 * px_per_mm), int(200 * px_per_mm), 3), (95, 105, 70), np.uint8)
    c = (int(round(centre_mm[0] * px_per_mm * 16)), int(round(centre_mm[1] * px_per_mm * 16)))
    r = int(round(diameter_mm / 2 * px_per_mm * 16))
    cv2.circle(img, c, r, rim_bgr, -1, cv2.LINE_AA, shift=4)
    cv2.circle(img, c, int(round((diameter_mm / 2 - 1.5) * px_per_mm * 16)), (58, 60, 55), -1, cv2.LINE_AA, shift=4)
    if hidden_deg:
        # a figure hides a wedge of the rim
        cv2.ellipse(img, c, (r + 40, r + 40), 0, 0, hidden_deg, (40, 40, 40), -1, cv2.LINE_AA, shift=4)
    return img


@pytest.mark.parametrize("diameter", [20.0, 25.0, 32.0, 40.0, 50.0])
@pytest.mark.parametrize("hidden", [0.0, 120.0])
def test_circle_on_a_flat_plan_partly_hidden(diameter: float, hidden: float) -> None:
    setup = parse_setup({"table": {"width_mm": 200, "depth_mm": 200}, "markers": {"base_height_mm": 0.0}})
    cal = ScaledPlane(2.0)
    img = _disc_image(2.0, (101.3, 87.6), diameter, (43, 57, 192), hidden_deg=hidden)   # '#c0392b' red
    found = find_bases(img, PlanView(cal, setup, px_per_mm=2.0), setup)
    assert len(found) == 1
    f = found[0]
    assert (f.diameter_mm, f.side) == (diameter, "red")
    assert math.hypot(f.x_mm - 101.3, f.y_mm - 87.6) <= 0.5


def test_nothing_but_mat_gives_no_base() -> None:
    setup = parse_setup({"table": {"width_mm": 200, "depth_mm": 200}})
    img = np.full((400, 400, 3), (95, 105, 70), np.uint8)
    assert find_bases(img, PlanView(ScaledPlane(2.0), setup, px_per_mm=2.0), setup) == ()


def test_fit_helpers() -> None:
    a = np.linspace(0, math.pi, 30)          # half a circle is enough
    pts = np.column_stack([10 + 7 * np.cos(a), -4 + 7 * np.sin(a)])
    assert fit_circle(pts) == pytest.approx([10, -4, 7])
    assert fit_centre_fixed_radius(pts, np.array([9.0, -3.0]), 7.0) == pytest.approx([10, -4], abs=1e-6)


@pytest.mark.parametrize(("measured", "snapped"), [(24.0, 25.0), (26.9, 25.0), (33.5, 32.0), (45.0, None),
                                                   (16.0, None), (52.9, 50.0)])
def test_snap_diameter(measured: float, snapped: float | None) -> None:
    assert snap_diameter(measured, (20.0, 25.0, 32.0, 40.0, 50.0)) == snapped


def _flat_setup(sides: dict[str, str]) -> object:
    return parse_setup({"table": {"width_mm": 200, "depth_mm": 200}, "markers": {"base_height_mm": 0.0},
                        "bases": {"sides": sides}})


def _noisy(img: np.ndarray, seed: int = 0) -> np.ndarray:
    noise = np.random.default_rng(seed).normal(0.0, 3.0, img.shape)
    return np.clip(cv2.GaussianBlur(img, (0, 0), 0.7) + noise, 0, 255).astype(np.uint8)


def test_orange_rim_on_a_tan_mat_and_a_black_rim_on_grass() -> None:
    """Rims told from a mat of nearly the same hue (orange on tan) and achromatic rims (black)."""
    for mat, rim_bgr, sides, side in (((70, 105, 130), (30, 125, 240), {"orange": "#f07d1e", "blue": "#1e5abe"},
                                       "orange"),
                                      ((60, 110, 80), (28, 28, 28), {"black": "#1c1c1c", "red": "#c0392b"}, "black")):
        img = np.full((400, 400, 3), mat, np.uint8)
        c, r = (202 * 8, 176 * 8), 16 * 2 * 8
        cv2.circle(img, c, r, rim_bgr, -1, cv2.LINE_AA, shift=3)
        cv2.circle(img, c, r - 3 * 8, (60, 120, 70), -1, cv2.LINE_AA, shift=3)          # flock top
        setup = _flat_setup(sides)
        found = find_bases(_noisy(img), PlanView(ScaledPlane(2.0), setup, px_per_mm=2.0), setup)
        assert [(f.side, f.diameter_mm) for f in found] == [(side, 32.0)], found
        assert math.hypot(found[0].x_mm - 101.0, found[0].y_mm - 88.0) <= 0.5


def test_dice_paper_and_border_of_the_rim_colour_are_not_bases() -> None:
    """A die, a sheet of paper and the table's edge in a side's colour: no ring there."""
    img = np.full((400, 400, 3), (60, 110, 80), np.uint8)
    red = (43, 57, 192)
    cv2.rectangle(img, (60, 60), (94, 94), red, -1)                     # a 17 mm die
    for x, y in ((70, 70), (84, 84), (77, 77)):
        cv2.circle(img, (x, y), 2, (240, 240, 240), -1)
    cv2.rectangle(img, (200, 150), (360, 300), red, -1)                # a red card, 80 x 75 mm
    cv2.rectangle(img, (0, 370), (399, 399), red, -1)                  # the border along one edge
    setup = _flat_setup({"red": "#c0392b", "blue": "#1e5abe"})
    assert find_bases(_noisy(img), PlanView(ScaledPlane(2.0), setup, px_per_mm=2.0), setup) == ()


def test_ring_support_of_a_rim_and_of_a_filled_disc() -> None:
    from tracker.bases import FoundBase, filled_roundness, ring_support

    setup = _flat_setup({"red": "#c0392b", "blue": "#1e5abe"})
    view = PlanView(ScaledPlane(2.0), setup, px_per_mm=2.0)
    mask = np.zeros((400, 400), np.uint8)
    cv2.circle(mask, (200, 200), 25, 255, -1)
    cv2.circle(mask, (200, 200), 21, 0, -1)
    base = FoundBase(100.0, 100.0, 25.0, "red", 25.0, 1.0, 360.0)
    support, outside = ring_support(mask, (0, 0), view, base)
    assert support >= 0.95 and outside == 0.0
    square = np.zeros((400, 400), np.uint8)
    cv2.rectangle(square, (180, 180), (220, 220), 255, -1)
    filled, roundness = filled_roundness(square, (0, 0), view, FoundBase(100.0, 100.0, 20.0, "red", 20.0, 1.0, 360.0))
    assert filled == 1.0 and roundness < 0.6
    disc = np.zeros((400, 400), np.uint8)
    cv2.circle(disc, (200, 200), 25, 255, -1)
    filled, roundness = filled_roundness(disc, (0, 0), view, base)
    assert filled == 1.0 and roundness >= 0.9                          # a plain base of one colour
