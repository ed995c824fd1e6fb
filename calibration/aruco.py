"""ArUco marker detection tuned for precise corners of small and large markers.

:func:`detect_markers` wraps ``cv2.aruco.ArucoDetector`` with the settings that matter
here: the smallest accepted marker is set from the expected side in pixels (OpenCV's
default ``minMarkerPerimeterRate`` of 0.03 drops a 12 mm base marker that is only
16-20 px across in a 1080p frame), and corners are refined with ``CORNER_REFINE_SUBPIX``
in a window scaled to the marker (``relativeCornerRefinmentWinSize``), the most precise
OpenCV setting for this job (``APRILTAG`` refinement shifts corners by about half a pixel
and is slow).

The window's half-size is 0.6 module, not 1.0: measured on exactly rendered tables
(tests/calibration/synthetic.py), a one-module window reaches the marker's inner bits and
the edge of a narrow quiet zone when the view is tilted (a far marker is foreshortened
while OpenCV sizes the window from the mean side) and moves corners by 1-3 px at 20-30
degrees of tilt; 0.6 keeps the corner error at 0.1-0.25 px from 0 to 30 degrees.

Examples
--------
>>> MarkerDetections.empty().ids.shape, MarkerDetections.empty().corners_px.shape
((0,), (0, 4, 2))
>>> detect_markers(np.zeros((10, 10), np.uint8), dictionary="DICT_4X4_7")  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
calibration.errors.CalibrationError: unknown ArUco dictionary 'DICT_4X4_7'; valid ones are DICT_4X4_50, ...
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

import cv2
import numpy as np
from numpy.typing import ArrayLike, NDArray

from calibration.errors import CalibrationError

logger = logging.getLogger(__name__)

MIN_READABLE_MARKER_PX = 16.0
"""Side, in pixels, from which a square marker is found reliably (CONVENTIONS.md)."""

DEFAULT_MIN_SIDE_PX = 10.0
"""Smallest marker side accepted by default: below the reliable size, above most noise."""

RELATIVE_REFINE_WINDOW = 0.6
"""Half-size of the corner refinement window in marker modules (bits)."""

MAX_REFINE_WINDOW_PX = 40
"""Cap on the half-size of the refinement window in pixels (very large markers)."""

DICTIONARY_NAMES: tuple[str, ...] = tuple(
    f"DICT_{b}X{b}_{n}" for b in (4, 5, 6, 7) for n in (50, 100, 250, 1000)
) + ("DICT_ARUCO_ORIGINAL", "DICT_ARUCO_MIP_36h12", "DICT_APRILTAG_16h5", "DICT_APRILTAG_25h9",
     "DICT_APRILTAG_36h10", "DICT_APRILTAG_36h11")


def get_dictionary(name: str) -> cv2.aruco.Dictionary:
    """Return OpenCV's predefined ArUco dictionary called ``name`` (e.g. ``"DICT_4X4_250"``).

    Raises
    ------
    CalibrationError
        For a name OpenCV does not predefine; the message lists the valid ones.
    """
    if name not in DICTIONARY_NAMES or not hasattr(cv2.aruco, name):
        raise CalibrationError(
            f"unknown ArUco dictionary {name!r}; valid ones are {', '.join(DICTIONARY_NAMES)}")
    return cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, name))


@dataclass(frozen=True)
class MarkerDetections:
    """Markers found in one image, as a struct of arrays.

    Parameters
    ----------
    ids : (N,) int
        Marker ids.
    corners_px : (N, 4, 2) float
        Each marker's corners in OpenCV's order (top-left, top-right, bottom-right,
        bottom-left of the printed marker), in image pixels.
    """

    ids: NDArray[np.int64]
    corners_px: NDArray[np.float64]

    def __post_init__(self) -> None:
        ids = np.array(self.ids, dtype=np.int64).reshape(-1)
        corners = np.array(self.corners_px, dtype=np.float64)
        if corners.size == 0 and ids.size == 0:
            corners = corners.reshape(0, 4, 2)
        if corners.ndim != 3 or corners.shape[1:] != (4, 2) or corners.shape[0] != ids.shape[0]:
            raise ValueError(
                f"corners_px must have shape (N, 4, 2) with N = len(ids) = {ids.shape[0]}, got {corners.shape}")
        ids.flags.writeable = False
        corners.flags.writeable = False
        object.__setattr__(self, "ids", ids)
        object.__setattr__(self, "corners_px", corners)

    @classmethod
    def empty(cls) -> MarkerDetections:
        """Return the detections of an image with no marker."""
        return cls(np.zeros(0, dtype=np.int64), np.zeros((0, 4, 2)))

    def __len__(self) -> int:
        return int(self.ids.shape[0])

    @property
    def centers_px(self) -> NDArray[np.float64]:
        """(N, 2) marker centres: the intersection of the diagonals (exact under perspective)."""
        if len(self) == 0:
            return np.zeros((0, 2))
        c = self.corners_px
        p, r = c[:, 0], c[:, 2]
        q, s = c[:, 1], c[:, 3]
        d1, d2 = r - p, s - q
        denom = d1[:, 0] * d2[:, 1] - d1[:, 1] * d2[:, 0]
        safe = np.where(np.abs(denom) > 1e-12, denom, 1.0)
        t = ((q - p)[:, 0] * d2[:, 1] - (q - p)[:, 1] * d2[:, 0]) / safe
        centre = p + t[:, None] * d1
        return np.where((np.abs(denom) > 1e-12)[:, None], centre, c.mean(axis=1))

    @property
    def side_px(self) -> NDArray[np.float64]:
        """(N,) mean side length of each marker in pixels."""
        if len(self) == 0:
            return np.zeros(0)
        c = self.corners_px
        return np.linalg.norm(c - np.roll(c, -1, axis=1), axis=2).mean(axis=1)

    def select(self, mask: ArrayLike) -> MarkerDetections:
        """Return the detections where the boolean ``mask`` (N,) is true."""
        m = np.asarray(mask, dtype=bool)
        return MarkerDetections(self.ids[m], self.corners_px[m])


def detector_parameters(image_size: tuple[int, int], *, min_side_px: float = DEFAULT_MIN_SIDE_PX,
                        max_side_px: float | None = None, refine: bool = True) -> cv2.aruco.DetectorParameters:
    """Return ArUco detector parameters for markers ``min_side_px`` to ``max_side_px`` across.

    OpenCV measures the perimeter limits relative to the image's larger dimension.
    """
    if min_side_px <= 0:
        raise CalibrationError(f"min_side_px must be positive, got {min_side_px}")
    if max_side_px is not None and max_side_px < min_side_px:
        raise CalibrationError(f"max_side_px ({max_side_px}) must be at least min_side_px ({min_side_px})")
    longest = float(max(image_size))
    params = cv2.aruco.DetectorParameters()
    params.minMarkerPerimeterRate = 4.0 * min_side_px / longest
    if max_side_px is not None:
        params.maxMarkerPerimeterRate = 4.0 * max_side_px / longest
    if refine:
        params.cornerRefinementMethod = cv2.aruco.CORNER_REFINE_SUBPIX
        params.relativeCornerRefinmentWinSize = RELATIVE_REFINE_WINDOW
        params.cornerRefinementWinSize = MAX_REFINE_WINDOW_PX
        params.cornerRefinementMaxIterations = 50
        params.cornerRefinementMinAccuracy = 0.005
    else:
        params.cornerRefinementMethod = cv2.aruco.CORNER_REFINE_NONE
    return params


def detect_markers(gray: NDArray[np.uint8], *, dictionary: str = "DICT_4X4_250",
                   min_side_px: float = DEFAULT_MIN_SIDE_PX, max_side_px: float | None = None,
                   refine: bool = True, roi: tuple[int, int, int, int] | None = None) -> MarkerDetections:
    """Find ArUco markers of ``dictionary`` in an image, with sub-pixel corners.

    Parameters
    ----------
    gray : (H, W) uint8, or (H, W, 3) BGR
        The image (converted to grey when in colour).
    dictionary : str
        Name of an OpenCV predefined dictionary.
    min_side_px, max_side_px : float
        Expected range of marker sides in pixels; smaller or larger squares are ignored.
    refine : bool
        Refine corners to sub-pixel precision (``CORNER_REFINE_SUBPIX``).
    roi : (x, y, w, h), optional
        Search only this rectangle; corners are returned in full-image pixels.

    Returns
    -------
    MarkerDetections
        Sorted by id; empty when nothing is found.
    """
    image = np.asarray(gray)
    if image.ndim == 3:
        image = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    if image.ndim != 2 or image.size == 0:
        raise CalibrationError(f"expected a grey or BGR image, got an array of shape {np.shape(gray)}")
    if image.dtype != np.uint8:
        raise CalibrationError(f"expected an 8-bit image, got dtype {image.dtype}")
    offset = np.zeros(2)
    if roi is not None:
        x, y, w, h = (int(v) for v in roi)
        x0, y0 = max(x, 0), max(y, 0)
        x1, y1 = min(x + w, image.shape[1]), min(y + h, image.shape[0])
        if x1 <= x0 or y1 <= y0:
            return MarkerDetections.empty()
        image = image[y0:y1, x0:x1]
        offset = np.array([x0, y0], dtype=np.float64)
    dict_ = get_dictionary(dictionary)
    height, width = image.shape
    if 4.0 * min_side_px > 4.0 * max(width, height):
        return MarkerDetections.empty()
    params = detector_parameters((width, height), min_side_px=min_side_px, max_side_px=max_side_px, refine=refine)
    detector = cv2.aruco.ArucoDetector(dict_, params)
    corners, ids, _rejected = detector.detectMarkers(image)
    if ids is None or len(ids) == 0:
        return MarkerDetections.empty()
    ids_arr = np.asarray(ids, dtype=np.int64).reshape(-1)
    corners_arr = np.asarray(corners, dtype=np.float64).reshape(-1, 4, 2) + offset
    order = np.argsort(ids_arr, kind="stable")
    logger.debug("found %d markers: %s", ids_arr.size, ids_arr[order].tolist())
    return MarkerDetections(ids_arr[order], corners_arr[order])
