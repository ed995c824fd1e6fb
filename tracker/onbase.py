"""Markers the contour detector missed, looked for on the bases that base mode found.

A 12 mm marker has a quiet zone a pixel or two wide; where a figure's dark body touches it,
OpenCV's thresholding joins the black square to the figure and no candidate square is
left, although the marker is plainly readable. Base mode finds that model's base by its
rim colour all the same, so the marker is looked for there: on the rectified plan (at
base height, where the marker is a true square of known size) the white paper inside the
base is segmented, its minimum-area rectangle gives the square's centre and angle, the
square's corners are mapped back into the camera image, fitted to its edges
(:mod:`tracker.refine`) and read in all four orientations (:mod:`tracker.decode`).

Examples
--------
>>> paper_square(np.zeros((40, 40), np.uint8), 10.0) is None
True
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import cv2
import numpy as np

from calibration.setup import Setup
from tracker.bases import FoundBase, PlanView
from tracker.blobs import regions
from tracker.decode import identify_quads
from tracker.detections import Detections
from tracker.markers import MIN_READABLE_SIDE_PX, TableMapping, aruco_cells, clockwise_quads, side_lengths
from tracker.refine import refine_corners_status

#: Paper is brighter than this fraction of the brightest pixel near the base, and grey.
PAPER_BRIGHTNESS = 0.6
PAPER_MAX_SATURATION = 70
#: The paper blob must cover at least this fraction of the marker's own area.
MIN_PAPER_FRACTION = 0.5
#: Fraction of each side's edge profiles that must be clean for a reading on a base (lower
#: than for OpenCV's rejects: the reading must also fit the base, see BASE_AGREEMENT_MM).
ON_BASE_COVERAGE = 0.6
#: A marker read on a base must put the model's base centre this close to the circle, mm.
BASE_AGREEMENT_MM = 3.0
#: The first guess may be this many marker cells off before the edge fit.
SEARCH_SHIFT_MODULES = 2.0


def paper_square(bright: np.ndarray, marker_px: float) -> tuple[tuple[float, float], float] | None:
    """Return the centre (plan px) and angle (deg) of the largest paper blob, or None.

    ``bright`` is a uint8 mask of paper pixels around one base; ``marker_px`` the marker's
    side in plan px.
    """
    n, labels, stats, centroids = regions(bright)
    if n < 2:
        return None
    k = 1 + int(np.argmax(stats[1:, cv2.CC_STAT_AREA]))
    if stats[k, cv2.CC_STAT_AREA] < MIN_PAPER_FRACTION * 0.25 * marker_px ** 2:
        return None
    pts = np.column_stack(np.nonzero(labels == k)[::-1]).astype(np.float32)
    (cx, cy), _, angle = cv2.minAreaRect(cv2.convexHull(pts))
    return (float(cx), float(cy)), float(angle)


def markers_on_bases(image: np.ndarray, gray: np.ndarray, view: PlanView, calibration: TableMapping,
                     setup: Setup, bases: Sequence[FoundBase]) -> Detections:
    """Look for a marker on each of ``bases``; return what is read (image px)."""
    if not bases:
        return Detections.empty()
    s = view.px_per_mm
    size_mm = setup.markers.base_size_mm
    marker_px = size_mm * s
    guesses: list[np.ndarray] = []
    centres: list[tuple[float, float]] = []
    for b in bases:
        r = b.diameter_mm / 2 * s
        x0, y0 = int(max(0, b.x_mm * s - r)), int(max(0, b.y_mm * s - r))
        w, h = int(2 * r) + 1, int(2 * r) + 1
        w, h = min(w, view.size_px[0] - x0), min(h, view.size_px[1] - y0)
        if w < marker_px or h < marker_px:
            continue
        patch = view.warp(image, (x0, y0, w, h))
        hsv = cv2.cvtColor(patch, cv2.COLOR_BGR2HSV)
        yy, xx = np.mgrid[0:h, 0:w]
        inside = np.hypot(xx + x0 - b.x_mm * s, yy + y0 - b.y_mm * s) <= r
        value = hsv[:, :, 2]
        top = float(np.percentile(value[inside], 99)) if inside.any() else 0.0
        bright = (inside & (value >= PAPER_BRIGHTNESS * top) & (hsv[:, :, 1] <= PAPER_MAX_SATURATION))
        found = paper_square(bright.astype(np.uint8), marker_px)
        if found is None:
            continue
        (cx, cy), angle = found
        centre_mm = np.array([(cx + x0) / s, (cy + y0) / s])
        a = math.radians(angle)
        u = np.array([math.cos(a), math.sin(a)]) * size_mm / 2
        v = np.array([-math.sin(a), math.cos(a)]) * size_mm / 2
        guesses.append(np.array([centre_mm - u - v, centre_mm + u - v, centre_mm + u + v, centre_mm - u + v]))
        centres.append((b.x_mm, b.y_mm))
    if not guesses:
        return Detections.empty()
    h_mm = setup.markers.base_height_mm
    quads = calibration.to_image_px(np.concatenate(guesses), height_mm=h_mm).reshape(-1, 4, 2)
    cells = aruco_cells(setup.markers.dictionary)
    refined, ok_first = refine_corners_status(gray, quads, cells=cells, max_shift_modules=SEARCH_SHIFT_MODULES)
    # once more from close by, now requiring a clean edge along every side
    refined, ok = refine_corners_status(gray, refined[ok_first], cells=cells, min_coverage=ON_BASE_COVERAGE)
    refined = refined[ok]
    ids, oriented = identify_quads(gray, clockwise_quads(refined), setup.markers.dictionary)
    good = (ids >= 0) & _on_its_base(oriented, ids, np.array(centres)[ok_first][ok], calibration, setup)
    if not good.any():
        return Detections.empty()
    conf = np.clip(side_lengths(oriented[good]) / MIN_READABLE_SIDE_PX, 0.0, 1.0)
    return Detections.from_corners(oriented[good], ids[good], conf)


def _on_its_base(corners_px: np.ndarray, ids: np.ndarray, base_centres_mm: np.ndarray,
                 calibration: TableMapping, setup: Setup) -> np.ndarray:
    """Whether each reading puts its model's base centre where base mode found the base.

    The base centre implied by a marker (its centre moved back by the id's offset along
    the facing it reads) must fall within :data:`BASE_AGREEMENT_MM` of the circle: a
    marker read the wrong way up, or as another id, points somewhere else.
    """
    out = np.zeros(len(ids), dtype=bool)
    if not len(ids):
        return out
    from tracker.detections import diagonal_centres
    from tracker.markers import facing_from_corners

    mm = calibration.to_table_mm(corners_px.reshape(-1, 2),
                                 height_mm=setup.markers.base_height_mm).reshape(-1, 4, 2)
    centres = diagonal_centres(mm)
    facing = np.radians(facing_from_corners(mm))
    for k, marker_id in enumerate(ids.tolist()):
        if marker_id < 0:
            continue
        offset = setup.markers.for_marker(int(marker_id)).offset_mm
        implied = centres[k] - offset * np.array([math.cos(facing[k]), math.sin(facing[k])])
        out[k] = float(np.hypot(*(implied - base_centres_mm[k]))) <= BASE_AGREEMENT_MM
    return out
