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

Then :func:`refine_corners_by_edges` fits a line to each of the marker's four outer
edges and intersects them: on the same renders this brings 60 mm corner markers from
0.12-0.25 px to 0.05-0.11 px RMS, and 12 mm base markers at 4K from 0.33 to 0.21 px, for
about 1-2 ms per marker.

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
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np
from numpy.typing import ArrayLike, NDArray

from calibration.camera import CameraIntrinsics
from calibration.errors import CalibrationError, ShapeError

logger = logging.getLogger(__name__)

MIN_READABLE_MARKER_PX = 16.0
"""Side, in pixels, from which a square marker is found reliably (docs/markers.md)."""

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


_CUSTOM_DICTIONARIES: dict[str, cv2.aruco.Dictionary] = {}


def register_dictionary(name: str, dictionary: cv2.aruco.Dictionary) -> None:
    """Make a custom dictionary (e.g. read from a file) known under ``name`` to every detector."""
    if name in DICTIONARY_NAMES:
        raise CalibrationError(f"{name!r} is one of OpenCV's predefined dictionaries; choose another name")
    _CUSTOM_DICTIONARIES[name] = dictionary


def read_dictionary_file(path: str, name: str | None = None) -> str:
    """Read an OpenCV FileStorage dictionary (``nmarkers``, ``markersize``, ``marker_N``) and register it.

    Returns the name it is registered under (``name``, default: the file's path).

    Raises
    ------
    CalibrationError
        When the file cannot be read as a dictionary.
    """
    fs = cv2.FileStorage(str(path), cv2.FILE_STORAGE_READ)
    try:
        if not fs.isOpened():
            raise CalibrationError(f"cannot open the dictionary file {path}")
        dictionary = cv2.aruco.Dictionary()
        if not dictionary.readDictionary(fs.root()):
            raise CalibrationError(f"{path} is not an ArUco dictionary (nmarkers, markersize, marker_0...)")
    finally:
        fs.release()
    key = name or str(path)
    register_dictionary(key, dictionary)
    return key


def get_dictionary(name: str) -> cv2.aruco.Dictionary:
    """Return OpenCV's predefined ArUco dictionary called ``name`` (e.g. ``"DICT_4X4_250"``),
    or a custom one registered with :func:`register_dictionary`.

    Raises
    ------
    CalibrationError
        For a name OpenCV does not predefine; the message lists the valid ones.
    """
    custom = _CUSTOM_DICTIONARIES.get(name)
    if custom is not None:
        return custom
    if name not in DICTIONARY_NAMES or not hasattr(cv2.aruco, name):
        raise CalibrationError(
            f"unknown ArUco dictionary {name!r}; valid ones are {', '.join(DICTIONARY_NAMES)}",
            msg_id="calibration.unknown_dictionary",
            params={"name": repr(name), "names": ", ".join(DICTIONARY_NAMES)})
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
            raise ShapeError(
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
        return np.asarray(np.linalg.norm(c - np.roll(c, -1, axis=1), axis=2).mean(axis=1), dtype=np.float64)

    def select(self, mask: ArrayLike) -> MarkerDetections:
        """Return the detections where the boolean ``mask`` (N,) is true."""
        m = np.asarray(mask, dtype=bool)
        return MarkerDetections(self.ids[m], self.corners_px[m])


EDGE_SPAN = (0.12, 0.88)
"""Part of each side, between its corners, whose edge points are fitted (corners are rounded by blur)."""

EDGE_DEPTH_MODULES = 0.5
"""Half-length of each edge profile, in modules: inside the black border, inside the quiet zone."""

EDGE_MIN_CONTRAST = 15.0
"""Grey levels between the black border and the quiet zone below which a profile is not used."""

EDGE_MAX_SHIFT_MODULES = 0.35
"""An edge-fitted corner further than this from the OpenCV corner is not trusted (occlusion)."""


def refine_corners_by_edges(gray: NDArray[np.uint8], corners_px: NDArray[np.float64], *,
                            bits: int = 6, camera: CameraIntrinsics | None = None,
                            image_origin: tuple[float, float] = (0.0, 0.0)) -> NDArray[np.float64]:
    """Return marker corners moved to the intersections of lines fitted to the marker's four edges.

    Along the middle of each side, profiles across the edge (half a module into the black
    border, half a module into the white quiet zone) give sub-pixel points where the grey
    level crosses half-way; a line is fitted to them and adjacent lines are intersected.
    Blur and noise move these points symmetrically, so the corners are unbiased even where
    ``cornerSubPix`` is pulled by the marker's inner bits or a tilted view. A corner whose
    sides cannot be fitted (no quiet zone, occlusion, too short) keeps its input position.

    Parameters
    ----------
    gray : (H, W) uint8
    corners_px : (N, 4, 2) float
        Corners in OpenCV's order, already within about a pixel.
    bits : int
        Modules across the marker including its black border (4x4 dictionary: 6).
    camera : CameraIntrinsics, optional
        When given, edge points are undistorted before the lines are fitted (lens
        distortion bends a marker's edges near the image border) and the corners are
        distorted back.
    image_origin : (float, float)
        Where ``gray[0, 0]`` is in the camera's image (``gray`` may be a crop).
    """
    gray = np.asarray(gray)
    out = np.array(corners_px, dtype=np.float64, copy=True)
    for m, quad in enumerate(out.copy()):
        module = float(np.mean(np.linalg.norm(quad - np.roll(quad, -1, axis=0), axis=1))) / bits
        pad = EDGE_DEPTH_MODULES * module + 3.0
        x0, y0 = np.maximum(np.floor(quad.min(axis=0) - pad).astype(int), 0)
        x1, y1 = np.minimum(np.ceil(quad.max(axis=0) + pad).astype(int) + 1, (gray.shape[1], gray.shape[0]))
        if x1 - x0 < 4 or y1 - y0 < 4:
            continue
        patch = gray[y0:y1, x0:x1].astype(np.float32)  # only this marker's surroundings
        local = quad - (x0, y0)
        origin = np.array([x0, y0], dtype=np.float64)
        shift = np.asarray(image_origin, dtype=np.float64)
        straighten = None
        if camera is not None and camera.has_distortion:
            # used by _fit_edge in this same iteration, so the loop variables are the right ones
            straighten = lambda pts: camera.undistort_px(pts + origin + shift)  # noqa: E731, B023
        lines = [_fit_edge(patch, local[k], local[(k + 1) % 4], local.mean(axis=0), bits, straighten)
                 for k in range(4)]
        for k in range(4):
            a, b = lines[(k - 1) % 4], lines[k]
            if a is None or b is None:
                continue
            corner = _intersect(a, b)
            if corner is None:
                continue
            if straighten is not None and camera is not None:
                corner = camera.distort_px(corner)[0] - shift
            else:
                corner = corner + origin
            if np.linalg.norm(corner - quad[k]) <= EDGE_MAX_SHIFT_MODULES * module:
                out[m, k] = corner
    return out


def _fit_edge(image: NDArray[np.float32], p: NDArray[np.float64], q: NDArray[np.float64],
              centre: NDArray[np.float64], bits: int,
              straighten: Callable[[NDArray[np.float64]], NDArray[np.float64]] | None = None,
              ) -> tuple[NDArray[np.float64], NDArray[np.float64]] | None:
    side = q - p
    length = float(np.linalg.norm(side))
    if length < 2.0 * bits:
        return None
    along = side / length
    normal = np.array([along[1], -along[0]])
    if np.dot(normal, p - centre) < 0:
        normal = -normal  # pointing out of the marker
    reach = EDGE_DEPTH_MODULES * length / bits
    ts = np.linspace(EDGE_SPAN[0], EDGE_SPAN[1], max(6, int(length))) * length
    ss = np.arange(-reach, reach + 1e-9, 0.25)
    if ss.size < 4:
        return None
    pts = p + ts[:, None, None] * along + ss[None, :, None] * normal
    prof = cv2.remap(image, pts[..., 0].astype(np.float32), pts[..., 1].astype(np.float32), cv2.INTER_CUBIC,
                     borderMode=cv2.BORDER_REPLICATE)
    dark, light = prof[:, :2].mean(axis=1), prof[:, -2:].mean(axis=1)
    mid = (dark + light) / 2.0
    rising = (prof[:, :-1] < mid[:, None]) & (prof[:, 1:] >= mid[:, None])
    usable = (light - dark >= EDGE_MIN_CONTRAST) & (rising.sum(axis=1) == 1)
    if usable.sum() < 4:
        return None
    rows = np.nonzero(usable)[0]
    j = np.argmax(rising[rows], axis=1)
    lo, hi = prof[rows, j], prof[rows, j + 1]
    s = ss[j] + (mid[rows] - lo) / (hi - lo) * (ss[1] - ss[0])
    points = p + ts[rows, None] * along + s[:, None] * normal
    if straighten is not None:
        points = straighten(points)
    for _ in range(2):  # fit, drop outliers (a figure's shadow, a finger), fit again
        centre_pt = points.mean(axis=0)
        direction = np.linalg.eigh(np.cov((points - centre_pt).T))[1][:, 1]  # main axis
        offset = (points - centre_pt) @ np.array([direction[1], -direction[0]])
        keep = np.abs(offset) <= max(0.3, 3.0 * float(np.median(np.abs(offset))))
        if keep.all() or keep.sum() < 4:
            break
        points = points[keep]
    return centre_pt, direction


def _intersect(a: tuple[NDArray[np.float64], NDArray[np.float64]],
               b: tuple[NDArray[np.float64], NDArray[np.float64]]) -> NDArray[np.float64] | None:
    (p1, d1), (p2, d2) = a, b
    matrix = np.column_stack([d1, -d2])
    if abs(np.linalg.det(matrix)) < 1e-6:
        return None
    t = np.linalg.solve(matrix, p2 - p1)
    return np.asarray(p1 + t[0] * d1, dtype=np.float64)


def detector_parameters(image_size: tuple[int, int], *, min_side_px: float = DEFAULT_MIN_SIDE_PX,
                        max_side_px: float | None = None, refine: bool = True,
                        threshold_windows_px: tuple[int, int, int] | None = None,
                        threshold_constant: float | None = None) -> cv2.aruco.DetectorParameters:
    """Return ArUco detector parameters for markers ``min_side_px`` to ``max_side_px`` across.

    OpenCV measures the perimeter limits relative to the image's larger dimension.
    ``threshold_windows_px`` is (smallest, largest, step) of the adaptive threshold windows
    (OpenCV's default 3, 23, 10); a large marker whose black areas are wider than the
    largest window can fail to close its outline. ``threshold_constant`` is how much
    darker than its surroundings a pixel must be to count as black (OpenCV's default 7).
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
    if threshold_windows_px is not None:
        low, high, step = (max(3, int(v) | 1) for v in threshold_windows_px)
        params.adaptiveThreshWinSizeMin, params.adaptiveThreshWinSizeMax = low, max(low, high)
        params.adaptiveThreshWinSizeStep = max(2, step - 1)
    if threshold_constant is not None:
        params.adaptiveThreshConstant = float(threshold_constant)
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
                   refine: bool = True, roi: tuple[int, int, int, int] | None = None,
                   camera: CameraIntrinsics | None = None,
                   threshold_windows_px: tuple[int, int, int] | None = None,
                   threshold_constant: float | None = None) -> MarkerDetections:
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
        Refine corners to sub-pixel precision (``CORNER_REFINE_SUBPIX``, then
        :func:`refine_corners_by_edges`).
    roi : (x, y, w, h), optional
        Search only this rectangle; corners are returned in full-image pixels.
    camera : CameraIntrinsics, optional
        The camera's lens model: edges are straightened before they are fitted, which
        matters near the border of a strongly distorting lens.
    threshold_windows_px : (int, int, int), optional
        Adaptive threshold windows (smallest, largest, step); see :func:`detector_parameters`.
    threshold_constant : float, optional
        Adaptive threshold constant; see :func:`detector_parameters`.

    Returns
    -------
    MarkerDetections
        Sorted by id; empty when nothing is found.
    """
    image: NDArray[Any] = np.asarray(gray)
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
    params = detector_parameters((width, height), min_side_px=min_side_px, max_side_px=max_side_px, refine=refine,
                                 threshold_windows_px=threshold_windows_px, threshold_constant=threshold_constant)
    detector = cv2.aruco.ArucoDetector(dict_, params)
    corners, ids, _rejected = detector.detectMarkers(image)
    if ids is None or len(ids) == 0:
        return MarkerDetections.empty()
    ids_arr = np.asarray(ids, dtype=np.int64).reshape(-1)
    corners_arr = np.asarray(corners, dtype=np.float64).reshape(-1, 4, 2)
    if refine:
        corners_arr = refine_corners_by_edges(image, corners_arr, bits=dict_.markerSize + 2, camera=camera,
                                              image_origin=(float(offset[0]), float(offset[1])))
    corners_arr = corners_arr + offset
    order = np.argsort(ids_arr, kind="stable")
    logger.debug("found %d markers: %s", ids_arr.size, ids_arr[order].tolist())
    return MarkerDetections(ids_arr[order], corners_arr[order])


CORNER_READ_MAX_ERRORS = 4
"""Data cells (of the 16 inside the border) a corner marker may read wrong: only four codes
are possible, at least 9 cells apart in DICT_4X4 in any rotation, so four corrected cells
still leave a margin of one."""


def read_corner_markers(gray: NDArray[np.uint8], *, dictionary: str = "DICT_4X4_250",
                        corner_ids: tuple[int, ...] = (0, 1, 2, 3), min_side_px: float = 24.0,
                        max_side_px: float | None = None,
                        max_errors: int = CORNER_READ_MAX_ERRORS) -> MarkerDetections:
    """Find the table's corner markers with the most error tolerance their four codes allow.

    Every square OpenCV outlines (at its default threshold and two others, read or
    rejected) is sampled on its cell grid and compared with the corner ids' codes only
    (:func:`tracker.candidates.read_candidates`); a marker half washed out by glare or with
    a finger over one cell is still read. When an id is read at more than one place, the
    reading with fewest corrected cells is kept. Corners are refined on the square's edges.

    Parameters
    ----------
    gray : (H, W) uint8 or (H, W, 3) BGR
    dictionary : str
    corner_ids : tuple of int
        The only ids looked for.
    min_side_px, max_side_px : float
        Size range of the corner markers in the image.
    max_errors : int
        Most cells corrected.

    Returns
    -------
    MarkerDetections
        Sorted by id, at most one per id.
    """
    from tracker.candidates import best_per_marker, read_candidates  # tracker builds on calibration

    image: NDArray[Any] = np.asarray(gray)
    if image.ndim == 3:
        image = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    dict_ = get_dictionary(dictionary)
    quads: list[NDArray[np.float64]] = []
    for constant in (7.0, 3.0, 12.0):
        params = detector_parameters((image.shape[1], image.shape[0]), min_side_px=min_side_px,
                                     max_side_px=max_side_px, refine=False, threshold_constant=constant)
        params.minDistanceToBorder = 0
        found, _ids, rejected = cv2.aruco.ArucoDetector(dict_, params).detectMarkers(image)
        for group in (found, rejected):
            if len(group):
                quads.append(np.asarray(group, dtype=np.float64).reshape(-1, 4, 2))
    if not quads:
        return MarkerDetections.empty()
    readings = best_per_marker(read_candidates(image, np.concatenate(quads), dictionary, corner_ids,
                                               max_errors=max_errors))
    order = np.argsort(readings.ids, kind="stable")
    return MarkerDetections(readings.ids[order], readings.corners[order])
