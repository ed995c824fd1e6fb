"""The live loop's image helpers: the warped plan's pixel map."""

from __future__ import annotations

import cv2
import numpy as np

from server.live import _dense_map


def webcam_projector(points_mm: np.ndarray) -> np.ndarray:
    """A tilted camera with webcam lens distortion over a 600 mm table."""
    pts = np.column_stack([points_mm, np.zeros(len(points_mm))]).astype(np.float64)
    k = np.array([[1350.0, 0, 960], [0, 1350.0, 540], [0, 0, 1]])
    px, _ = cv2.projectPoints(pts, np.array([-0.14, 0.0, 0.0]), np.array([-300.0, -297.0, 850.0]), k,
                              np.array([-0.28, 0.08, 0.0, 0.0, 0.0]))
    return px.reshape(-1, 2)


def test_the_interpolated_map_matches_projecting_every_pixel() -> None:
    out_w, out_h, px_per_mm = 301, 203, 0.5
    dense = _dense_map(webcam_projector, out_w, out_h, px_per_mm)
    gx, gy = np.meshgrid((np.arange(out_w) + 0.5) / px_per_mm, (np.arange(out_h) + 0.5) / px_per_mm)
    exact = webcam_projector(np.stack([gx.ravel(), gy.ravel()], axis=1)).reshape(out_h, out_w, 2)
    assert dense.shape == (out_h, out_w, 2)
    assert float(np.abs(dense - exact).max()) < 0.1
