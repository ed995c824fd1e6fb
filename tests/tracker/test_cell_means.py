"""Sampling a candidate's cells: the nudged versions sampled through one homography per quad."""

from __future__ import annotations

import cv2
import numpy as np

from tracker.candidates import SCALES, SHIFTS_PX, _cell_means, _nudged, _nudged_cell_means


def test_nudged_cell_means_match_each_version_sampled_on_its_own() -> None:
    rng = np.random.default_rng(3)
    gray = cv2.GaussianBlur(rng.integers(0, 256, (400, 600), dtype=np.uint8), (0, 0), 2.0)
    centres = rng.uniform(40, 360, (50, 1, 2)) * [1.5, 1.0]
    quads = centres + np.array([[0.0, 0.0], [24.0, 3.0], [22.0, 27.0], [-2.0, 25.0]]) + rng.normal(0, 1, (50, 4, 2))
    own = _cell_means(gray, _nudged(quads).reshape(-1, 4, 2), 6)
    shared = _nudged_cell_means(gray, quads, 6)
    assert shared.shape == own.shape == (50 * len(SCALES) * len(SHIFTS_PX) ** 2, 36)
    assert np.abs(shared - own).max() <= 1.0          # sub-pixel rounding only
    assert np.abs(shared - own).mean() <= 0.15


def test_nudged_cell_means_are_the_broadcast_formula_exactly() -> None:
    """The in-place arithmetic gives the very numbers of the plain broadcast over (N, V, P, 2)."""
    from tracker.candidates import _means_at, _sample_points

    rng = np.random.default_rng(5)
    gray = cv2.GaussianBlur(rng.integers(0, 256, (300, 400), dtype=np.uint8), (0, 0), 1.5)
    quads = rng.uniform(30, 250, (40, 1, 2)) + np.array([[0.0, 0.0], [19.0, 2.0], [18.0, 21.0], [-1.0, 20.0]])
    xy = _sample_points(quads, 6)
    c = quads.mean(axis=1).astype(np.float32)[:, None, None, :]
    scale = np.repeat(np.asarray(SCALES, np.float32), len(SHIFTS_PX) ** 2)[None, :, None, None]
    shift = np.array([(dx, dy) for dx in SHIFTS_PX for dy in SHIFTS_PX] * len(SCALES), np.float32)
    moved = (c - np.float32(0.5)) + (xy[:, None] - (c - np.float32(0.5))) * scale + shift[None, :, None, :]
    assert np.array_equal(_nudged_cell_means(gray, quads, 6), _means_at(gray, moved.reshape(-1, xy.shape[1], 2), 6))
