"""Bare bases on frames base mode was not tuned on (issue 9, item 4: held-out seeds 100 and up).

The crops are the rectified plan (true camera, at base height) around a base of the benchmark's
realistic renders (``benchmarks/tracker.py --parts bases --first-seed 100``), laid on a table of
their mat's colour: what :func:`tracker.bases.find_bases` fits, without the rectification. The
camera leans as it did there: the base's foot (the wall's crescent) shows shifted as in the frame.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from calibration.setup import parse_setup
from tracker.bases import FoundBase, PlanView, _bases_in_plan, _kept, mat_colour

DATA = Path(__file__).parent / "data"
TABLE_MM = 200.0
BASE_HEIGHT_MM = 3.0


@dataclass(frozen=True)
class LeaningPlane:
    """A camera looking down at a slant, without lens distortion: ``px = (mm + h * lean) * px_per_mm``
    for a point ``h`` mm above the table (as :class:`tracker.markers.ScaledPlane`, which ignores
    heights)."""

    px_per_mm: float
    lean: tuple[float, float]

    @classmethod
    def with_foot_shift(cls, px_per_mm: float, foot_shift_mm: tuple[float, float]) -> LeaningPlane:
        """The camera under which a base's foot shows ``foot_shift_mm`` from its top in the plan."""
        return cls(px_per_mm, (-foot_shift_mm[0] / BASE_HEIGHT_MM, -foot_shift_mm[1] / BASE_HEIGHT_MM))

    def to_image_px(self, points_mm: np.ndarray, *, height_mm: float = 0.0) -> np.ndarray:
        return (np.asarray(points_mm, float).reshape(-1, 2) + height_mm * np.array(self.lean)) * self.px_per_mm

    def to_table_mm(self, points_px: np.ndarray, *, height_mm: float = 0.0) -> np.ndarray:
        return np.asarray(points_px, float).reshape(-1, 2) / self.px_per_mm - height_mm * np.array(self.lean)


def _bases_in_crop(name: str, px_per_mm: float, foot_shift_mm: tuple[float, float],
                   sides: dict[str, str]) -> tuple[tuple[FoundBase, ...], float]:
    """The bases found in a stored plan crop laid in the middle of a table of its border's colour,
    and where the crop's top-left corner lies on that table (mm). ``foot_shift_mm``: the base's foot
    against its top in the plan there (:meth:`tracker.bases.PlanView.bottom_shift_mm`)."""
    crop = cv2.imread(str(DATA / name))
    assert crop is not None, name
    edge = np.concatenate([crop[0], crop[-1], crop[:, 0], crop[:, -1]])
    n = int(round(TABLE_MM * px_per_mm))
    plan = np.empty((n, n, 3), np.uint8)
    plan[:] = np.median(edge, axis=0)
    o = (n - crop.shape[0]) // 2
    plan[o:o + crop.shape[0], o:o + crop.shape[1]] = crop
    setup = parse_setup({"table": {"width_mm": TABLE_MM, "depth_mm": TABLE_MM},
                         "markers": {"base_height_mm": BASE_HEIGHT_MM}, "bases": {"sides": sides}})
    view = PlanView(LeaningPlane.with_foot_shift(px_per_mm, foot_shift_mm), setup, px_per_mm=px_per_mm)  # type: ignore[arg-type]
    found = _bases_in_plan(plan, (0, 0), view, setup, np.random.default_rng(0),
                           mat=mat_colour(plan, view, setup))
    return _kept(found, [], setup), o / px_per_mm


def test_a_yellow_rim_around_an_olive_flock_blurred_wider_than_the_base() -> None:
    """Held-out 1080p seed 101: a 25 mm base, its yellow rim around a flock whose olive the mask
    takes by its hue, so the inside is filled with the rim's colour; the blur spreads the colour
    about 1.2 mm beyond the outline (fitted 27.4 mm), so the colour ends past the round band of a
    25 mm base in most directions. The band moves out to where the colour's outline was fitted:
    the base is found, at its size and within half a millimetre."""
    found, at = _bases_in_crop("bare_base_yellow_25_flock_1080p_seed101.png", 1.2631680539702497, (-0.45, 0.42),
                               {"yellow": "#f1c40f", "black": "#1c1c1c"})
    assert [(b.side, b.diameter_mm) for b in found] == [("yellow", 25.0)], found
    assert found[0].fitted_diameter_mm > 26.5, found          # the colour is wider than the base
    assert math.hypot(found[0].x_mm - (at + 40.09), found[0].y_mm - (at + 40.39)) <= 0.5, found


def test_a_white_die_blurred_as_wide_as_a_small_base_is_not_one() -> None:
    """Held-out 1080p seed 118: a white die whose top and sides, blurred, make a filled blob that a
    circle of 22.3 mm fits (a 20 mm base's size, widened as a blurred rim's is). Its inside is
    uniformly the colour and nothing stands on it: its outline is held to the base's own round
    band, which a square does not follow, and it is no base."""
    found, _ = _bases_in_crop("white_die_1080p_seed118.png", 1.423249482114065, (-0.64, -0.93),
                              {"white": "#eeeeee", "orange": "#f07d1e"})
    assert found == (), found
