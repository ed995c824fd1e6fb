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
