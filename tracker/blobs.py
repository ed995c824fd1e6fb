"""Connected regions of a mask, labelled the fast way.

OpenCV's default labelling for 8-connectivity (Spaghetti, ``CCL_BOLELLI``) with statistics
takes about 70 ms on a 4K mask; Grana's block-based labelling (``CCL_GRANA``) returns the
same labels, statistics and centroids, numbered alike, in about 20 ms. Every mask the
tracker labels (dark ink, rim colour, paper) goes through :func:`regions`.

Examples
--------
>>> mask = np.zeros((6, 8), np.uint8)
>>> mask[1:3, 1:3] = 255
>>> mask[4, 5:8] = 255
>>> n, labels, stats, centroids = regions(mask)
>>> n, stats[1:, cv2.CC_STAT_AREA].tolist(), labels[4, 6].item()
(3, [4, 3], 2)
"""

from __future__ import annotations

import cv2
import numpy as np


def regions(mask: np.ndarray) -> tuple[int, np.ndarray, np.ndarray, np.ndarray]:
    """``cv2.connectedComponentsWithStats(mask, connectivity=8)``: count, labels, stats, centroids."""
    n, labels, stats, centroids = cv2.connectedComponentsWithStatsWithAlgorithm(mask, 8, cv2.CV_32S, cv2.CCL_GRANA)
    return int(n), labels, stats, centroids
