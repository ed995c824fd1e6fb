"""Base mode on what real photographs give: faint rims in pieces, filled tops, dice, corner paper."""

from __future__ import annotations

import math

import cv2
import numpy as np

from calibration.setup import parse_setup
from tracker.bases import FoundBase, PlanView, _kept, find_bases
from tracker.markers import ScaledPlane

MAT = (95, 105, 70)          # BGR, a green-grey mat
PX = 1.5                     # px per mm, as a 4K camera over a 120 cm table gives


def _setup(sides: dict[str, str]) -> object:
    return parse_setup({"table": {"width_mm": 200, "depth_mm": 200}, "markers": {"base_height_mm": 0.0},
                        "bases": {"sides": sides}})


def _find(img: np.ndarray, sides: dict[str, str]) -> tuple[FoundBase, ...]:
    setup = _setup(sides)
    return find_bases(img, PlanView(ScaledPlane(PX), setup, px_per_mm=PX), setup)  # type: ignore[arg-type]


def _canvas() -> np.ndarray:
    return np.full((int(200 * PX), int(200 * PX), 3), MAT, np.uint8)


def _pt(x_mm: float, y_mm: float) -> tuple[int, int]:
    return int(round(x_mm * PX * 16)), int(round(y_mm * PX * 16))


def test_a_rim_seen_as_separate_arcs_is_one_base() -> None:
    """A thin white rim of which the camera keeps only two opposite arcs (the rest lost in blur,
    glare or behind the figure): each arc alone is too short to fit, together they are the base."""
    img = _canvas()
    c, r = _pt(100.0, 95.0), int(round(19.25 * PX * 16))
    cv2.circle(img, c, int(round(20 * PX * 16)), (40, 40, 40), -1, cv2.LINE_AA, shift=4)   # dark top
    for start in (20, 200):
        cv2.ellipse(img, c, (r, r), 0, start, start + 95, (238, 238, 238), int(1.5 * PX), cv2.LINE_AA, shift=4)
    found = _find(img, {"white": "#eeeeee", "red": "#c0392b"})
    assert len(found) == 1, found
    assert (found[0].side, found[0].diameter_mm) == ("white", 40.0)
    assert math.hypot(found[0].x_mm - 100.0, found[0].y_mm - 95.0) <= 1.0


def test_a_top_of_the_rim_colour_with_a_figure_on_it_is_a_base() -> None:
    """A flock top near the rim's own colour with a figure standing on it: filled, round, and broken
    inside by the figure and the flock's darker grains (not a uniform disc)."""
    img = _canvas()
    cv2.circle(img, _pt(100.0, 100.0), int(round(16 * PX * 16)), (30, 125, 240), -1, cv2.LINE_AA, shift=4)
    rng = np.random.default_rng(7)
    for _ in range(60):                                   # flock grains, inside the rim
        a, rho = rng.uniform(0, 2 * math.pi), 13.5 * math.sqrt(rng.uniform(0, 1))
        cv2.circle(img, _pt(100 + rho * math.cos(a), 100 + rho * math.sin(a)), int(1.0 * PX * 16),
                   (40, 70, 90), -1, cv2.LINE_AA, shift=4)
    cv2.circle(img, _pt(102.0, 96.0), int(round(5 * PX * 16)), (90, 60, 40), -1, cv2.LINE_AA, shift=4)  # figure
    found = _find(img, {"orange": "#f07d1e", "blue": "#2e6fd8"})
    assert [(b.side, b.diameter_mm) for b in found] == [("orange", 32.0)]
    assert math.hypot(found[0].x_mm - 100.0, found[0].y_mm - 100.0) <= 1.0


def test_a_white_die_is_not_a_white_base() -> None:
    """A 16 mm white die's face is filled with the rim colour and square: not a 20 mm base."""
    img = _canvas()
    x0, y0 = 92.0, 92.0
    pts = np.array([_pt(x0, y0), _pt(x0 + 16, y0), _pt(x0 + 16, y0 + 16), _pt(x0, y0 + 16)], np.int32)
    cv2.fillPoly(img, [pts], (232, 236, 236), cv2.LINE_AA, shift=4)
    assert _find(img, {"white": "#eeeeee", "red": "#c0392b"}) == ()


def test_no_base_on_a_corner_markers_paper_whatever_the_side_colour() -> None:
    """The corner markers' white sheet, tinted by the white balance, can pass for a pale coloured
    rim: a circle centred on a corner marker is dropped for every side, not only the white, grey or
    black ones."""
    setup = parse_setup({"table": {"width_mm": 600, "depth_mm": 600},
                         "bases": {"sides": {"cyan": "#1abc9c", "red": "#c0392b"}}})
    on_paper = FoundBase(566.0, 571.0, 32.0, "cyan", 32.0, 0.8, 300.0)   # on corner marker 2
    clear = FoundBase(120.0, 120.0, 32.0, "cyan", 32.0, 0.8, 300.0)
    assert _kept([on_paper, clear], [], setup) == (clear,)                # type: ignore[arg-type]


def test_a_whole_thin_rim_blurred_at_one_pixel_per_mm() -> None:
    """A 20 mm base 20 px across (a 1080p camera over a 120 cm table), its 1.5 mm green rim on a
    grass mat blurred by a pixel: the blur widens the rim's outline by a pixel each way, which
    no allowed size fits; the base is found all the same, at its size and place."""
    px = 1.0
    img = np.full((200, 200, 3), (76, 140, 113), np.uint8)                    # grass
    cv2.circle(img, (1600, 1600), 160, (60, 165, 55), -1, cv2.LINE_AA, shift=4)   # '#37a53c' rim
    cv2.circle(img, (1600, 1600), 136, (70, 90, 110), -1, cv2.LINE_AA, shift=4)   # flock top
    img = cv2.GaussianBlur(img, (0, 0), 0.8)
    img = np.clip(img + np.random.default_rng(1).normal(0, 3, img.shape), 0, 255).astype(np.uint8)
    setup = _setup({"green": "#37a53c", "blue": "#1e5abe"})
    found = find_bases(img, PlanView(ScaledPlane(px), setup, px_per_mm=px), setup)  # type: ignore[arg-type]
    assert [(b.side, b.diameter_mm) for b in found] == [("green", 20.0)]
    assert math.hypot(found[0].x_mm - 100.0, found[0].y_mm - 100.0) <= 0.5


def test_no_base_hanging_over_the_tables_edge() -> None:
    """A circle reaching beyond the table's edge is the border, its shadow or a corner marker's ink:
    no base stands partly off the table (a base touching the edge is kept)."""
    setup = parse_setup({"table": {"width_mm": 500, "depth_mm": 500},
                         "bases": {"sides": {"black": "#1c1c1c", "yellow": "#f1c40f"}}})
    flush = FoundBase(250.0, 489.5, 20.0, "black", 20.0, 0.8, 300.0)      # touching the edge
    over = FoundBase(493.0, 250.0, 20.0, "yellow", 20.0, 0.8, 300.0)      # 3 mm over it
    half = FoundBase(250.0, 6.0, 25.0, "yellow", 25.0, 0.8, 300.0)        # 6.5 mm over it
    assert _kept([over, flush, half], [], setup) == (flush,)             # type: ignore[arg-type]


def _glowing_base(glow_mm: float, *, top: tuple[int, int, int] = (100, 108, 104)) -> np.ndarray:
    """A 32 mm base at (100, 100) with a thin orange rim whose colour the camera spreads outwards
    (blur, bloom, the JPEG's coarser colour): a glow fading over ``glow_mm`` beyond its outline."""
    img = _canvas().astype(np.float64)
    orange = (30, 125, 240)
    cv2.circle(img, _pt(100.0, 100.0), int(round(16 * PX * 16)), orange, -1, cv2.LINE_AA, shift=4)
    cv2.circle(img, _pt(100.0, 100.0), int(round(14.5 * PX * 16)), top, -1, cv2.LINE_AA, shift=4)
    cv2.circle(img, _pt(97.0, 95.0), int(round(4 * PX * 16)), (230, 235, 240), -1, cv2.LINE_AA, shift=4)  # figure
    yy, xx = np.mgrid[:img.shape[0], :img.shape[1]]
    beyond = np.hypot((xx + 0.5) / PX - 100.0, (yy + 0.5) / PX - 100.0) - 16.0
    w = np.where(beyond > 0, 0.75 * np.exp(-beyond / glow_mm), 0.0)[..., None]
    img = img * (1 - w) + np.array(orange, float) * w
    return cv2.GaussianBlur(np.clip(img, 0, 255).astype(np.uint8), (0, 0), 0.7 * PX)


def test_a_bright_rim_widened_by_its_glow_is_found_at_its_size() -> None:
    """An orange rim on a dark mat whose colour spreads 3-4 mm beyond the base: the colour's outline
    fits a circle 36-37 mm across, wider than a 32 mm base by more than the snapping allows (and
    nearer 40 mm). The base is its own size, centred on the ring's inner edge."""
    for glow in (1.5, 2.0):
        found = _find(_glowing_base(glow), {"orange": "#f07d1e", "purple": "#7d2d8c"})
        assert len(found) == 1, (glow, found)
        assert (found[0].side, found[0].diameter_mm) == ("orange", 32.0), (glow, found)
        assert found[0].fitted_diameter_mm > 35.0, found        # the colour is wider than the base
        assert math.hypot(found[0].x_mm - 100.0, found[0].y_mm - 100.0) <= 0.5, (glow, found)



def test_no_ring_support_where_the_outside_lies_beyond_the_table() -> None:
    """Where the band just outside a circle lies off the table, the rim cannot be seen to end: those
    directions give no support (the mat's corner between the table's edge and a marker's sheet,
    whose blurred edges take the rim's colour, was a base when they were left out of the count)."""
    from tracker.bases import ring_support

    setup = _setup({"green": "#37a53c", "blue": "#1e5abe"})
    view = PlanView(ScaledPlane(PX), setup, px_per_mm=PX)  # type: ignore[arg-type]
    mask = np.zeros((int(200 * PX), int(200 * PX)), np.uint8)
    for cy in (100.0, 189.0):
        cv2.circle(mask, _pt(100.0, cy), int(round(9.5 * PX * 16)), 255, int(1.5 * PX), cv2.LINE_AA, shift=4)
    middle, _ = ring_support(mask, (0, 0), view, FoundBase(100.0, 100.0, 20.0, "green", 20.0, 1.0, 360.0))
    at_edge, outside = ring_support(mask, (0, 0), view, FoundBase(100.0, 189.0, 20.0, "green", 20.0, 1.0, 360.0))
    assert middle == 1.0 and outside == 0.0
    # the directions whose outside band (to 3 mm beyond the outline) crosses y = 200 give none
    blind = 2 * math.degrees(math.acos(11.0 / 13.0)) / 360.0
    assert abs(at_edge - (1.0 - blind)) <= 0.05, (at_edge, blind)
