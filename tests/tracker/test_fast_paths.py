"""The cheaper paths of the base search and of the marker reading give the general paths' answers.

Each path below replaced a costlier computation of the same values (see the functions' comments);
these tests hold them to those values, bit for bit where the code promises it.
"""

from __future__ import annotations

import math

import cv2
import numpy as np
import pytest

from calibration.setup import parse_setup
from tracker.bases import MatColours, PlanView, fit_circle
from tracker.candidates import _split


class _Parallax:
    """A camera for which a point's picture moves with its height, more so away from the table's
    middle (100, 100) mm: a base's foot then shows shifted against its top, as through a lens."""

    def to_image_px(self, points_mm: np.ndarray, *, height_mm: float = 0.0) -> np.ndarray:
        p = np.asarray(points_mm, dtype=float).reshape(-1, 2)
        return (p + height_mm * 0.02 * (p - 100.0)) * 2.0

    def to_table_mm(self, points_px: np.ndarray, *, height_mm: float = 0.0) -> np.ndarray:
        q = np.asarray(points_px, dtype=float).reshape(-1, 2) / 2.0
        return (q + height_mm * 0.02 * 100.0) / (1.0 + height_mm * 0.02)


def test_the_foot_parallax_at_one_point_is_the_many_points_one() -> None:
    setup = parse_setup({"table": {"width_mm": 200, "depth_mm": 200}, "markers": {"base_height_mm": 4.0}})
    view = PlanView(_Parallax(), setup, px_per_mm=2.0)     # type: ignore[arg-type]
    points = np.random.default_rng(3).uniform(-30.0, 230.0, (300, 2))      # off the table too
    many = view.bottom_shift_mm(points)
    one = np.array([view.bottom_shift_mm(p[None])[0] for p in points])
    assert np.abs(many).max() > 0.5
    assert np.array_equal(one, many)


def test_the_centred_circle_fit_is_kasas_fit() -> None:
    rng = np.random.default_rng(5)
    for _ in range(30):
        centre, radius = rng.uniform(0.0, 600.0, 2), rng.uniform(8.0, 30.0)
        ang = rng.uniform(0.0, 2.5, 80) + rng.uniform(0.0, 2 * math.pi)
        pts = centre + radius * np.column_stack([np.cos(ang), np.sin(ang)]) + rng.normal(0.0, 0.3, (80, 2))
        a = np.column_stack([2 * pts, np.ones(len(pts))])
        cx, cy, c = np.linalg.lstsq(a, (pts ** 2).sum(axis=1), rcond=None)[0]
        assert fit_circle(pts) == pytest.approx([cx, cy, math.sqrt(c + cx * cx + cy * cy)], abs=1e-6)
    # points on a line, or too few: the 3 x 3 system's answer, no error
    fit_circle(np.column_stack([np.arange(6.0), 2.0 * np.arange(6.0)]))
    fit_circle(np.array([[1.0, 2.0], [3.0, 4.0]]))


def test_the_local_background_warped_with_four_channels_is_the_three_channel_warp() -> None:
    rng = np.random.default_rng(7)
    local = rng.integers(0, 256, (25, 25, 3), dtype=np.uint8)
    mat = MatColours(np.zeros(3, np.float32), local, 10.0, (2, 3))
    for origin, shape, scale in (((57, 81), (310, 290), 1.4), ((0, 0), (97, 131), 2.0), ((301, 12), (64, 64), 1.7)):
        k = 1.0 / (scale * 10.0)
        m = np.array([[k, 0.0, origin[0] * k - 2], [0.0, k, origin[1] * k - 3]])
        want = cv2.warpAffine(local, m, shape[::-1], flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                              borderMode=cv2.BORDER_REPLICATE)
        assert np.array_equal(mat.local_in_plan(shape, origin, scale), want)


def test_the_two_means_split_stopping_early_gives_each_row_its_own_split() -> None:
    # the split stops once a pass changes no row: a row that settled early must come out as if it
    # were split alone (where it stops at its own pass), in a batch whose other rows take longer
    rng = np.random.default_rng(11)
    bimodal = np.where(rng.random((300, 16)) < 0.5, 40.0, 200.0) + rng.normal(0.0, 8.0, (300, 16))
    skewed = np.concatenate([rng.exponential(30.0, (300, 12)), rng.uniform(150.0, 255.0, (300, 4))], axis=1)
    flat = np.full((5, 16), 128.0)
    cells = np.concatenate([bimodal, skewed, flat])
    together = _split(cells)
    for i in range(0, len(cells), 7):
        for got, want in zip(_split(cells[i:i + 1]), together):
            assert np.array_equal(got, want[i:i + 1])
    # ... and has settled (these rows all do within the four passes): its threshold is halfway
    # between the means of the dark and the light cells it splits
    bits, _, _, t = together
    light = bits.astype(bool)
    m_light = (cells * light).sum(axis=1) / np.maximum(light.sum(axis=1), 1)
    m_dark = (cells * ~light).sum(axis=1) / np.maximum((~light).sum(axis=1), 1)
    split = ~light.all(axis=1) & light.any(axis=1)
    assert split.sum() > 500
    assert t[split] == pytest.approx(((m_light + m_dark) / 2)[split], rel=1e-12)
