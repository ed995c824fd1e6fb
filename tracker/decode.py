"""Read a marker's id from a known quadrilateral: the tracker's check after refining old corners.

When a model was seen in the last frame, its marker's corners are refined on the new
frame (:func:`tracker.refine.refine_corners`) instead of searching the region again;
this module then samples the refined square on the marker's cell grid and identifies
the bits with the dictionary (border cells black, data bits with error correction), so a
refined square is accepted only when it still carries the same id, the same way up.

Examples
--------
>>> import cv2
>>> d = cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_250)
>>> img = np.full((60, 60), 220, np.uint8)
>>> img[16:44, 16:44] = cv2.aruco.generateImageMarker(d, 17, 28)
>>> quad = np.array([[[15.5, 15.5], [43.5, 15.5], [43.5, 43.5], [15.5, 43.5]]])
>>> same_ids(img, quad, np.array([17]), "DICT_4X4_250").tolist()
[True]
>>> same_ids(img, np.roll(quad, 1, axis=1), np.array([17]), "DICT_4X4_250").tolist()   # turned
[False]
>>> same_ids(img, quad, np.array([18]), "DICT_4X4_250").tolist()
[False]
"""

from __future__ import annotations

import functools

import cv2
import numpy as np

from calibration.aruco import get_dictionary

#: Samples per cell side when reading a square's grid.
SAMPLES_PER_CELL = 4
#: Fraction of the dictionary's correction capacity used when identifying the bits.
ERROR_CORRECTION_RATE = 0.6
#: Smallest grey-level contrast between the darkest and brightest cell.
MIN_CELL_CONTRAST = 30.0


@functools.lru_cache(maxsize=32)
def _dictionary(name: str) -> cv2.aruco.Dictionary:
    return get_dictionary(name)


@functools.lru_cache(maxsize=4096)
def _marker_bits(name: str, marker_id: int) -> np.ndarray:
    d = _dictionary(name)
    n = d.markerSize + 2
    return (cv2.aruco.generateImageMarker(d, marker_id, n, borderBits=1) > 127).astype(np.uint8)


def read_cells(gray: np.ndarray, quads: np.ndarray, dictionary: str) -> tuple[np.ndarray, np.ndarray]:
    """Sample each quad on the marker's cell grid: (N, n, n) bits (1 = white) and (N,) contrast."""
    n = _dictionary(dictionary).markerSize + 2
    s = SAMPLES_PER_CELL
    size = n * s
    dst = np.array([[0, 0], [size, 0], [size, size], [0, size]], np.float32)
    q = np.asarray(quads, dtype=np.float64).reshape(-1, 4, 2)
    bits = np.zeros((len(q), n, n), dtype=np.uint8)
    contrast = np.zeros(len(q))
    for k in range(len(q)):
        # pixel centres are integers: the square's outline runs through pixel edges
        h = cv2.getPerspectiveTransform((q[k] + 0.5).astype(np.float32), dst)
        patch = cv2.warpPerspective(gray, h, (size, size), flags=cv2.INTER_LINEAR)
        cells = patch.reshape(n, s, n, s)[:, 1:s - 1, :, 1:s - 1].mean(axis=(1, 3))
        lo, hi = float(cells.min()), float(cells.max())
        contrast[k] = hi - lo
        bits[k] = cells > (lo + hi) / 2
    return bits, contrast


def cell_errors(gray: np.ndarray, quads: np.ndarray, marker_ids: np.ndarray, dictionary: str) -> np.ndarray:
    """(N,) cells of each quad's grid (border included) that differ from its id's code, same way up."""
    bits, _ = read_cells(gray, quads, dictionary)
    return np.array([int(np.count_nonzero(bits[k] != _marker_bits(dictionary, int(i))))
                     for k, i in enumerate(np.asarray(marker_ids).reshape(-1).tolist())], dtype=np.int64)


def same_ids(gray: np.ndarray, quads: np.ndarray, marker_ids: np.ndarray, dictionary: str) -> np.ndarray:
    """Return (N,) bool: whether each quad (OpenCV's corner order) still reads as its marker id.

    The cells must match the id's pattern the same way up, border included, within the
    dictionary's error correction (scaled by :data:`ERROR_CORRECTION_RATE`, at least one
    cell), with enough contrast between dark and bright cells.
    """
    d = _dictionary(dictionary)
    bits, contrast = read_cells(gray, quads, dictionary)
    allowed = max(1, int(d.maxCorrectionBits * ERROR_CORRECTION_RATE))
    out = np.zeros(len(bits), dtype=bool)
    for k, marker_id in enumerate(np.asarray(marker_ids).reshape(-1).tolist()):
        if contrast[k] < MIN_CELL_CONTRAST:
            continue
        wrong = int(np.count_nonzero(bits[k] != _marker_bits(dictionary, int(marker_id))))
        out[k] = wrong <= allowed
    return out


def identify_quads(gray: np.ndarray, quads: np.ndarray, dictionary: str, *,
                   correction_rate: float = 0.0) -> tuple[np.ndarray, np.ndarray]:
    """Identify unknown quads: (N,) ids (-1 where none) and corners turned to OpenCV's order.

    Corners must run clockwise in the image (y down), as OpenCV's candidates do. By
    default every cell must match (no error correction): these are second readings of
    squares the contour detector did not accept, where a wrong id costs more than a miss.
    """
    d = _dictionary(dictionary)
    q = np.asarray(quads, dtype=np.float64).reshape(-1, 4, 2)
    bits, contrast = read_cells(gray, q, dictionary)
    ids = np.full(len(q), -1, dtype=np.int64)
    out = q.copy()
    for k in range(len(q)):
        border = np.concatenate([bits[k, 0], bits[k, -1], bits[k, 1:-1, 0], bits[k, 1:-1, -1]])
        if contrast[k] < MIN_CELL_CONTRAST or border.any():
            continue
        ok, marker_id, rotation = d.identify(np.ascontiguousarray(bits[k, 1:-1, 1:-1]), correction_rate)
        if ok:
            ids[k] = int(marker_id)
            out[k] = np.roll(q[k], int(rotation), axis=0)
    return ids, out
