"""A side's rim as the frame shows it, learnt from its bases found confidently (issue 9, item 4).

A thin green rim on a green mat can reach the camera lighter and paler than its paint, ~10 Delta E
from the mat while the set colours stand 35 apart: the set colour then finds only the bases whose
outline keeps some of it. The colour their rim band shows finds the others, and patches of the
mat of that colour (no ring) are not taken for bases.
"""

from __future__ import annotations

import math

import cv2
import numpy as np

from calibration.setup import parse_setup
from tracker.bases import FoundBase, PlanView, find_bases, find_bases_in
from tracker.markers import ScaledPlane

PX = 1.5                       # px per mm
MAT = (76, 140, 113)           # BGR: the dev scene's green mat as seen
SEEN = (99, 170, 139)          # the green rim as that frame shows it: lighter, paler
PAINT = (60, 165, 55)          # the green rim's paint (the setup's colour)
SIDES = {"green": "#37a53c", "blue": "#1e5abe"}


def _setup() -> object:
    return parse_setup({"table": {"width_mm": 300, "depth_mm": 200}, "markers": {"base_height_mm": 0.0},
                        "bases": {"sides": SIDES}})


def _pt(x_mm: float, y_mm: float) -> tuple[int, int]:
    return int(round(x_mm * PX * 16)), int(round(y_mm * PX * 16))


def _ring(img: np.ndarray, x: float, y: float, r_mm: float, colour: tuple[int, int, int], width_mm: float) -> None:
    cv2.circle(img, _pt(x, y), int(round((r_mm - width_mm / 2) * PX * 16)), colour, max(1, int(round(width_mm * PX))),
               cv2.LINE_AA, shift=4)


def _frame(*, confident: bool = True) -> np.ndarray:
    img = np.full((int(200 * PX), int(300 * PX), 3), MAT, np.uint8)
    rng = np.random.default_rng(3)
    noise = rng.normal(0.0, 3.0, img.shape)
    if confident:
        # a base whose outline keeps its paint here and there (one-pixel dashes, half its round) and
        # whose rim band shows the pale green
        cv2.circle(img, _pt(80, 100), int(round(10 * PX * 16)), (55, 65, 80), -1, cv2.LINE_AA, shift=4)  # top
        _ring(img, 80, 100, 12.5, SEEN, 2.5)
        r = int(round(12.2 * PX * 16))
        for start in range(0, 360, 30):
            cv2.ellipse(img, _pt(80, 100), (r, r), 0, start, start + 15, PAINT, 1, cv2.LINE_AA, shift=4)
    # the faint one: only the pale green the frame shows
    cv2.circle(img, _pt(180, 100), int(round(10.5 * PX * 16)), (55, 65, 80), -1, cv2.LINE_AA, shift=4)
    _ring(img, 180, 100, 12.5, SEEN, 2.0)
    # blotches of the mat as light as the rim (a mottled mat): no ring there
    for x, y in ((250, 60), (250, 150), (130, 40)):
        cv2.ellipse(img, _pt(x, y), (int(9 * PX * 16), int(6 * PX * 16)), 30, 0, 360, SEEN, -1, cv2.LINE_AA, shift=4)
    return np.clip(img + noise, 0, 255).astype(np.uint8)


def _find(img: np.ndarray) -> tuple[FoundBase, ...]:
    setup = _setup()
    return find_bases(img, PlanView(ScaledPlane(PX), setup, px_per_mm=PX), setup)  # type: ignore[arg-type]


def _near(found: tuple[FoundBase, ...], x: float, y: float) -> list[FoundBase]:
    return [b for b in found if math.hypot(b.x_mm - x, b.y_mm - y) <= 12.5]


def test_a_faint_rim_is_found_by_the_colour_its_sides_bases_show() -> None:
    found = _find(_frame())
    assert len(_near(found, 80, 100)) == 1, found
    (faint,) = _near(found, 180, 100)
    assert (faint.side, faint.diameter_mm) == ("green", 25.0)
    assert math.hypot(faint.x_mm - 180, faint.y_mm - 100) <= 1.0
    assert len(found) == 2, found                                     # the blotches are not bases


def test_without_a_confident_base_the_set_colour_alone_is_looked_for() -> None:
    found = _find(_frame(confident=False))
    assert _near(found, 180, 100) == [], found
    assert found == ()


def test_a_region_search_learns_too() -> None:
    img = _frame()
    setup = _setup()
    view = PlanView(ScaledPlane(PX), setup, px_per_mm=PX)  # type: ignore[arg-type]
    found = find_bases_in(img, view, setup, [(50.0, 60.0, 210.0, 140.0)])  # type: ignore[arg-type]
    assert len(_near(found, 180, 100)) == 1, found


def test_a_rim_the_paint_already_takes_is_not_looked_for_again(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """A red rim seen darker than its paint, far from it, but taken by it all round: one look only
    (a second would find nothing more and cost a whole plan's colour work)."""
    import tracker.bases as bases

    img = np.full((int(200 * PX), int(300 * PX), 3), MAT, np.uint8)
    cv2.circle(img, _pt(120, 100), int(round(10 * PX * 16)), (55, 65, 80), -1, cv2.LINE_AA, shift=4)
    _ring(img, 120, 100, 12.5, (40, 50, 140), 2.5)                   # the paint #c0392b, seen darker
    setup = parse_setup({"table": {"width_mm": 300, "depth_mm": 200}, "markers": {"base_height_mm": 0.0},
                         "bases": {"sides": {"red": "#c0392b", "blue": "#1e5abe"}}})
    calls = []
    real = bases.side_masks

    def counted(*args, **kwargs):  # type: ignore[no-untyped-def]
        calls.append(args[1])
        return real(*args, **kwargs)

    monkeypatch.setattr(bases, "side_masks", counted)
    found = find_bases(img, PlanView(ScaledPlane(PX), setup, px_per_mm=PX), setup)  # type: ignore[arg-type]
    assert [(round(b.x_mm), round(b.y_mm), b.side) for b in found] == [(120, 100, "red")]
    assert len(calls) == 1
