"""Marker detections in one frame, as a struct of arrays (like supervision's ``Detections``).

Examples
--------
>>> d = Detections.empty()
>>> len(d), d.centers_px.shape
(0, (0, 2))
>>> import numpy as np
>>> c = np.array([[[0, 0], [10, 0], [10, 10], [0, 10]]], dtype=float)
>>> d = Detections.from_corners(c, np.array([17]))
>>> d.centers_px.tolist(), d.marker_ids.tolist()
([[5.0, 5.0]], [17])
>>> Detections(np.zeros(3), np.zeros(1, int), np.ones(1), np.zeros((1, 4, 2)))
Traceback (most recent call last):
...
tracker.errors.DetectionsError: centers_px must have shape (N, 2), got (3,)
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from tracker.errors import DetectionsError


def _frozen(a: np.ndarray) -> np.ndarray:
    out = np.array(a, copy=True)
    out.flags.writeable = False
    return out


@dataclass(frozen=True)
class Detections:
    """Markers found in one image, pixel coordinates.

    Parameters
    ----------
    centers_px : (N, 2) float
        Marker centres (intersection of the diagonals), image px.
    marker_ids : (N,) int
        Decoded ids.
    confidence : (N,) float
        0..1: how sure the detector is (lower for small or partly refined markers).
    corners_px : (N, 4, 2) float
        The four corners in OpenCV's order (top-left, top-right, bottom-right,
        bottom-left of the printed marker), image px.
    corrected : (N,) int, optional
        Cells of each marker's grid read wrong and corrected against its id's code
        (0 for a clean reading; default all 0).
    """

    centers_px: np.ndarray
    marker_ids: np.ndarray
    confidence: np.ndarray
    corners_px: np.ndarray
    corrected: np.ndarray | None = None

    def __post_init__(self) -> None:
        c = np.asarray(self.centers_px, dtype=float)
        if c.ndim != 2 or c.shape[1] != 2:
            raise DetectionsError(f"centers_px must have shape (N, 2), got {c.shape}")
        n = c.shape[0]
        ids = np.asarray(self.marker_ids)
        if ids.shape != (n,):
            raise DetectionsError(f"marker_ids must have shape ({n},), got {ids.shape}")
        if n and not np.issubdtype(ids.dtype, np.integer):
            raise DetectionsError(f"marker_ids must be integers, got dtype {ids.dtype}")
        conf = np.asarray(self.confidence, dtype=float)
        if conf.shape != (n,):
            raise DetectionsError(f"confidence must have shape ({n},), got {conf.shape}")
        corners = np.asarray(self.corners_px, dtype=float)
        if corners.shape != (n, 4, 2):
            raise DetectionsError(f"corners_px must have shape ({n}, 4, 2), got {corners.shape}")
        object.__setattr__(self, "centers_px", _frozen(c))
        object.__setattr__(self, "marker_ids", _frozen(ids.astype(np.int64)))
        object.__setattr__(self, "confidence", _frozen(conf))
        object.__setattr__(self, "corners_px", _frozen(corners))
        fixed = np.zeros(n, np.int64) if self.corrected is None else np.asarray(self.corrected, dtype=np.int64)
        if fixed.shape != (n,):
            raise DetectionsError(f"corrected must have shape ({n},), got {fixed.shape}")
        object.__setattr__(self, "corrected", _frozen(fixed))

    def __len__(self) -> int:
        return int(self.marker_ids.shape[0])

    @classmethod
    def empty(cls) -> Detections:
        """Return the detections of a frame where nothing was seen."""
        return cls(np.zeros((0, 2)), np.zeros(0, dtype=np.int64), np.zeros(0), np.zeros((0, 4, 2)))

    @classmethod
    def from_corners(cls, corners_px: np.ndarray, marker_ids: np.ndarray,
                     confidence: np.ndarray | None = None, corrected: np.ndarray | None = None) -> Detections:
        """Build detections from corners, centring each on its diagonals' intersection."""
        corners = np.asarray(corners_px, dtype=float).reshape(-1, 4, 2)
        ids = np.asarray(marker_ids).reshape(-1)
        if confidence is None:
            confidence = np.ones(len(ids))
        return cls(diagonal_centres(corners), ids, np.asarray(confidence, dtype=float), corners, corrected)

    def select(self, keep: np.ndarray) -> Detections:
        """Return the detections where the boolean mask or index array ``keep`` selects."""
        assert self.corrected is not None
        return Detections(self.centers_px[keep], self.marker_ids[keep], self.confidence[keep],
                          self.corners_px[keep], self.corrected[keep])

    @classmethod
    def concat(cls, parts: list[Detections]) -> Detections:
        """Join several detections (e.g. from separate regions of one frame)."""
        parts = [p for p in parts if len(p)]
        if not parts:
            return cls.empty()
        return cls(np.concatenate([p.centers_px for p in parts]),
                   np.concatenate([p.marker_ids for p in parts]),
                   np.concatenate([p.confidence for p in parts]),
                   np.concatenate([p.corners_px for p in parts]),
                   np.concatenate([np.asarray(p.corrected) for p in parts]))


def diagonal_centres(corners: np.ndarray) -> np.ndarray:
    """Return the intersection of each quadrilateral's diagonals.

    Parameters
    ----------
    corners : (N, 4, 2) float
        Quadrilaterals in order around the outline.

    Returns
    -------
    (N, 2) float
        Where corner 0-2 meets corner 1-3; the mean of the corners for a degenerate one.

    Examples
    --------
    >>> diagonal_centres(np.array([[[0, 0], [4, 0], [4, 2], [0, 2]]], float)).tolist()
    [[2.0, 1.0]]
    """
    c = np.asarray(corners, dtype=float).reshape(-1, 4, 2)
    p, r = c[:, 0], c[:, 2] - c[:, 0]
    q, s = c[:, 1], c[:, 3] - c[:, 1]
    cross = r[:, 0] * s[:, 1] - r[:, 1] * s[:, 0]
    qp = q - p
    with np.errstate(divide="ignore", invalid="ignore"):
        t = (qp[:, 0] * s[:, 1] - qp[:, 1] * s[:, 0]) / cross
    out = p + t[:, None] * r
    bad = ~np.isfinite(out).all(axis=1) | (np.abs(cross) < 1e-12)
    out[bad] = c[bad].mean(axis=1)
    centres: np.ndarray = out
    return centres
