"""Marker mode: base markers (ids >= 4) to base centres and facings in table mm.

Each detected marker's four corners are mapped to the table at the marker's height
(``setup.markers.base_height_mm``), so the parallax of a marker standing 3 mm above the
table is removed. The marker centre is where the mapped diagonals cross; the facing is
the direction the marker's top edge (OpenCV corners 0->1) points to; the base centre lies
``offset_mm`` behind the marker centre along that facing (docs/setup-file.md, ``base_offset_mm``).

What cannot be right is rejected with a reason: a marker whose measured size differs from
the size the setup gives it, one whose centre is outside the table, an id seen twice
(both copies are rejected: we cannot tell which one is the model).

Examples
--------
>>> import numpy as np
>>> from calibration.setup import parse_setup
>>> setup = parse_setup({"table": {"width_mm": 600, "depth_mm": 600},
...                      "markers": {"base_offset_mm": 5.0}})
>>> cal = ScaledPlane(px_per_mm=2.0)        # a camera straight above, 2 px per mm
>>> corners_mm = square_corners_mm((100.0, 200.0), 12.0, facing_deg=0.0)
>>> det = Detections.from_corners(corners_mm * 2.0, np.array([17]))
>>> found = locate_models(det, cal, setup)
>>> m = found.models[0]
>>> m.marker_id, round(m.x_mm, 3), round(m.y_mm, 3), round(m.facing_deg, 3)
(17, 95.0, 200.0, 0.0)
>>> found.rejected
()
"""

from __future__ import annotations

import functools
import logging
import math
from dataclasses import dataclass, field
from typing import Mapping, Protocol

import cv2
import numpy as np

from calibration.aruco import detector_parameters, get_dictionary
from calibration.setup import FIRST_MODEL_ID, Setup
from tracker.candidates import (
    SEARCHED_MIN_SIDE_PX,
    MarkerSizes,
    Readings,
    best_per_marker,
    cell_off_squares,
    ink_candidates,
    read_candidates,
    ring_squares,
    snapped_squares,
)
from tracker.candidates import side_lengths as side_lengths  # re-exported: the tracker takes it from here
from tracker.decode import cell_errors, identify_quads, same_ids
from tracker.detections import Detections, diagonal_centres
from tracker.refine import refine_corners_status

log = logging.getLogger(__name__)

#: A marker whose measured side differs from its expected size by more than this
#: fraction is not the marker the setup describes (a 12 mm marker read as 16 mm is 33 % off).
MARKER_SIZE_TOLERANCE = 0.2
#: Why a detection is rejected (:attr:`Rejection.code`): an id seen twice, an id not in the
#: setup's list, a size not the setup's, a centre off the table, a centre on a corner marker.
REJECTION_CODES = ("duplicate", "unknown_id", "wrong_size", "outside_table", "on_corner")
#: How far outside the play area a marker centre may be before it is rejected, mm.
OUTSIDE_TABLE_MARGIN_MM = 0.0
#: Below this many pixels across, no decoder reads a 4x4 marker reliably.
MIN_READABLE_SIDE_PX = 16.0
#: The detector is told to accept markers down to this fraction of the expected side.
DETECT_SIDE_FRACTION = 0.7


class TableMapping(Protocol):
    """What the tracker needs from a table calibration (``calibration.table.TableCalibration``)."""

    def to_table_mm(self, points_px: np.ndarray, *, height_mm: float = 0.0) -> np.ndarray: ...

    def to_image_px(self, points_mm: np.ndarray, *, height_mm: float = 0.0) -> np.ndarray: ...


@dataclass(frozen=True)
class ScaledPlane:
    """A camera straight above the table with no lens distortion: ``px = mm * px_per_mm``.

    Heights are ignored. For tests and examples where a full calibration is not needed.
    """

    px_per_mm: float

    def to_table_mm(self, points_px: np.ndarray, *, height_mm: float = 0.0) -> np.ndarray:
        """Map image px to table mm."""
        return np.asarray(points_px, dtype=float).reshape(-1, 2) / self.px_per_mm

    def to_image_px(self, points_mm: np.ndarray, *, height_mm: float = 0.0) -> np.ndarray:
        """Map table mm to image px."""
        return np.asarray(points_mm, dtype=float).reshape(-1, 2) * self.px_per_mm


@dataclass(frozen=True)
class LocatedModel:
    """One model found by its base marker, table mm."""

    marker_id: int
    x_mm: float
    y_mm: float
    facing_deg: float
    marker_x_mm: float
    marker_y_mm: float
    marker_side_mm: float
    marker_side_px: float
    confidence: float
    center_px: tuple[float, float]
    corrected_cells: int = 0

    def to_dict(self) -> dict[str, object]:
        """Return the JSON form used by ``locate`` and the tracker.

        ``confidence`` is 0-1 (lower for small markers and for readings with cells
        corrected); ``corrected_cells`` is how many cells of the marker's grid read wrong
        and were corrected against the id's code (0: a clean reading).
        """
        return {"corrected_cells": self.corrected_cells, "marker_id": self.marker_id,
                "x_mm": round(self.x_mm, 2), "y_mm": round(self.y_mm, 2),
                "facing_deg": round(self.facing_deg, 2),
                "marker_center_mm": [round(self.marker_x_mm, 2), round(self.marker_y_mm, 2)],
                "marker_side_mm": round(self.marker_side_mm, 2),
                "marker_side_px": round(self.marker_side_px, 1),
                "confidence": round(self.confidence, 3)}


@dataclass(frozen=True)
class Rejection:
    """A detection that cannot be a model, and why."""

    marker_id: int
    reason: str
    center_px: tuple[float, float]
    #: one of :data:`REJECTION_CODES`; its words are the message ``track.rejected.<code>``
    code: str = ""
    #: the message's parameters (the marker id, sizes in mm, a centre in mm)
    params: Mapping[str, object] = field(default_factory=dict)

    def to_dict(self) -> dict[str, object]:
        """Return the JSON form (the English ``reason``; :meth:`words` gives the message id)."""
        return {"marker_id": self.marker_id, "reason": self.reason,
                "center_px": [round(self.center_px[0], 1), round(self.center_px[1], 1)]}

    def words(self) -> dict[str, object]:
        """``{"msg", "params"}`` wording the reason in the page's languages (nothing without a code)."""
        return {"msg": f"track.rejected.{self.code}", "params": dict(self.params)} if self.code else {}


@dataclass(frozen=True)
class MarkerFixes:
    """The models located in one frame and the detections rejected."""

    models: tuple[LocatedModel, ...]
    rejected: tuple[Rejection, ...]


def square_corners_mm(center_mm: tuple[float, float], side_mm: float, *, facing_deg: float) -> np.ndarray:
    """Return a marker's four corners (OpenCV order) in table mm, for a given facing.

    Examples
    --------
    >>> square_corners_mm((0.0, 0.0), 2.0, facing_deg=270.0).round(6).tolist()
    [[-1.0, -1.0], [1.0, -1.0], [1.0, 1.0], [-1.0, 1.0]]
    """
    a = math.radians(facing_deg)
    fwd = np.array([math.cos(a), math.sin(a)])
    right = np.array([-fwd[1], fwd[0]])          # facing rotated +90 deg (toward +y from +x)
    h = side_mm / 2.0
    c = np.asarray(center_mm, dtype=float)
    return np.array([c + h * fwd - h * right, c + h * fwd + h * right,
                     c - h * fwd + h * right, c - h * fwd - h * right]) + 0.0


def facing_from_corners(corners_mm: np.ndarray) -> np.ndarray:
    """Return the facing (deg from +x toward +y, [0, 360)) of each marker from its corners.

    The top edge (corners 0->1) points the way the model faces: the facing is the
    direction from the bottom edge to the top edge, averaged with the 0->1 direction
    turned 90 deg (both estimates use all four corners).

    Examples
    --------
    >>> c = np.array([[[-1, -1], [1, -1], [1, 1], [-1, 1]]], float)   # a corner marker's layout
    >>> facing_from_corners(c).round(6).tolist()
    [270.0]
    """
    c = np.asarray(corners_mm, dtype=float).reshape(-1, 4, 2)
    up = (c[:, 0] + c[:, 1]) - (c[:, 3] + c[:, 2])
    right = (c[:, 1] + c[:, 2]) - (c[:, 0] + c[:, 3])
    turned = np.stack([right[:, 1], -right[:, 0]], axis=1)     # right turned -90 deg is forward
    v = up + turned
    facing: np.ndarray = np.degrees(np.arctan2(v[:, 1], v[:, 0])) % 360.0
    return facing


def locate_models(detections: Detections, calibration: TableMapping, setup: Setup) -> MarkerFixes:
    """Turn base-marker detections into base centres and facings, table mm.

    Parameters
    ----------
    detections : Detections
        Markers found in the image (corner ids 0-3 are ignored here).
    calibration : TableMapping
        Image px <-> table mm at any height.
    setup : Setup
        Table size, marker sizes, height and offsets.

    Returns
    -------
    MarkerFixes
        Models sorted by marker id, and the rejected detections with reasons.
    """
    keep = detections.marker_ids >= FIRST_MODEL_ID
    det = detections.select(keep)
    if not len(det):
        return MarkerFixes((), ())
    m = setup.markers
    corners_mm = calibration.to_table_mm(det.corners_px.reshape(-1, 2),
                                         height_mm=m.base_height_mm).reshape(-1, 4, 2)
    centres_mm = diagonal_centres(corners_mm)
    sides_mm = side_lengths(corners_mm)
    sides_px = side_lengths(det.corners_px)
    facings = facing_from_corners(corners_mm)
    ids = det.marker_ids.tolist()
    counts = {i: ids.count(i) for i in ids}
    models: list[LocatedModel] = []
    rejected: list[Rejection] = []
    for k, marker_id in enumerate(ids):
        centre_px = (float(det.centers_px[k, 0]), float(det.centers_px[k, 1]))
        why = _rejection_reason(marker_id, counts[marker_id], sides_mm[k], centres_mm[k], setup)
        if why:
            rejected.append(Rejection(marker_id, why[1], centre_px, why[0], why[2]))
            continue
        offset = m.for_marker(marker_id).offset_mm
        a = math.radians(facings[k])
        x = centres_mm[k, 0] - offset * math.cos(a)
        y = centres_mm[k, 1] - offset * math.sin(a)
        models.append(LocatedModel(marker_id, float(x), float(y), float(facings[k]),
                                   float(centres_mm[k, 0]), float(centres_mm[k, 1]),
                                   float(sides_mm[k]), float(sides_px[k]),
                                   float(det.confidence[k]), centre_px,
                                   int(det.corrected[k]) if det.corrected is not None else 0))
    for r in rejected:
        log.info("marker %d rejected: %s", r.marker_id, r.reason)
    models.sort(key=lambda mm: mm.marker_id)
    return MarkerFixes(tuple(models), tuple(rejected))


def _rejection_reason(marker_id: int, count: int, side_mm: float, centre_mm: np.ndarray,
                      setup: Setup) -> tuple[str, str, dict[str, object]] | None:
    """Why a detection cannot be a model: (code, English sentence, message parameters), or None."""
    if count > 1:
        return ("duplicate", f"id {marker_id} seen {count} times in one frame; each model needs its own marker",
                {"id": marker_id, "count": count})
    in_play = ids_in_play(setup)
    if in_play is not None and marker_id not in in_play:
        return ("unknown_id", f"unknown marker: id {marker_id} is not one of the setup's markers "
                "(add it to the setup's per-marker list if it belongs to a model)", {"id": marker_id})
    expected = setup.markers.size_for(marker_id)
    if abs(side_mm - expected) > MARKER_SIZE_TOLERANCE * expected:
        return ("wrong_size", f"measures {side_mm:.1f} mm across but the setup says {expected:g} mm "
                f"(a marker from another kit, or a wrong marker size in the setup)",
                {"id": marker_id, "side_mm": round(float(side_mm), 1), "expected_mm": expected})
    w, d = setup.table.width_mm, setup.table.depth_mm
    x, y = float(centre_mm[0]), float(centre_mm[1])
    margin = OUTSIDE_TABLE_MARGIN_MM
    if not (-margin <= x <= w + margin and -margin <= y <= d + margin):
        return ("outside_table", f"centre at ({x:.1f}, {y:.1f}) mm is outside the {w:g} x {d:g} mm table",
                {"id": marker_id, "x_mm": round(x, 1), "y_mm": round(y, 1), "width_mm": w, "depth_mm": d})
    c = setup.markers.corner_size_mm
    if min(x, w - x) < c and min(y, d - y) < c:
        # a piece of a corner marker's pattern can look like a small marker: no base lies there
        return ("on_corner", f"centre at ({x:.1f}, {y:.1f}) mm lies on a corner marker",
                {"id": marker_id, "x_mm": round(x, 1), "y_mm": round(y, 1)})
    return None


def ids_in_play(setup: Setup) -> frozenset[int] | None:
    """The model marker ids the setup puts in play (its ``per_marker`` list), None when it lists none.

    Examples
    --------
    >>> from calibration.setup import parse_setup
    >>> s = parse_setup({"table": {"width_mm": 600, "depth_mm": 600},
    ...                  "markers": {"per_marker": {"17": {"offset_mm": 5}, "40": {}}}})
    >>> sorted(ids_in_play(s))
    [17, 40]
    """
    ids = frozenset(int(k) for k in setup.markers.per_marker if int(k) >= FIRST_MODEL_ID)
    return ids or None


# --------------------------------------------------------------------------------------
# Detection


def marker_side_px_range(calibration: TableMapping, setup: Setup, size_mm: float,
                         *, height_mm: float) -> tuple[float, float]:
    """Return the smallest and largest side in px of a ``size_mm`` marker over the table.

    Sampled on a 5 x 5 grid of table points at ``height_mm``.

    Examples
    --------
    >>> from calibration.setup import parse_setup
    >>> s = parse_setup({"table": {"width_mm": 600, "depth_mm": 600}})
    >>> marker_side_px_range(ScaledPlane(1.8), s, 12.0, height_mm=3.0)
    (21.6, 21.6)
    """
    w, d = setup.table.width_mm, setup.table.depth_mm
    xs, ys = np.meshgrid(np.linspace(0, w, 5), np.linspace(0, d, 5))
    centres = np.stack([xs.ravel(), ys.ravel()], axis=1)
    h = size_mm / 2.0
    offsets = np.array([[-h, -h], [h, -h], [h, h], [-h, h]])
    corners = (centres[:, None, :] + offsets[None]).reshape(-1, 2)
    px = np.asarray(calibration.to_image_px(corners, height_mm=height_mm)).reshape(-1, 4, 2)
    sides = side_lengths(px)
    return round(float(sides.min()), 3), round(float(sides.max()), 3)


@dataclass(frozen=True)
class MarkerDetector:
    """A reusable ArUco detector sized for the setup's markers.

    OpenCV's default ``minMarkerPerimeterRate`` (0.03 of the image's larger side) silently
    drops 12 mm markers at 1080p; here the limits come from the expected marker size in px
    and are turned into rates for each region searched, so a crop does not change what is
    accepted. Corners are refined on the square's edges (:mod:`tracker.refine`); a reading
    whose square shows no clean edges, or does not read as its id once fitted to them, is
    dropped (a pattern on a dark base that happens to decode is not a marker).
    """

    dictionary: str
    min_side_px: float
    max_side_px: float
    #: The ids that can be on the table: every candidate square is then read on its grid
    #: against these codes only, with error correction (:mod:`tracker.candidates`).
    in_play: frozenset[int] | None = None
    #: The marker's shape at each place of the image (from the calibration): dark regions
    #: where a figure touches a marker are searched for squares of that size.
    sizes: MarkerSizes | None = field(default=None, compare=False)

    def detect(self, gray: np.ndarray, *, roi: tuple[int, int, int, int] | None = None) -> Detections:
        """Detect markers in ``gray`` (or only in the region ``roi`` = x, y, w, h), image px."""
        return self.detect_in(gray, [roi] if roi is not None else [None])

    def detect_in(self, gray: np.ndarray, rois: list[tuple[int, int, int, int] | None], *,
                  thorough: bool = True, followed: Detections | None = None) -> Detections:
        """Detect markers in several regions (None: the whole image), refining all corners at once.

        With ids in play, ``thorough`` adds candidates from a second threshold and from dark
        blobs, and (given the marker sizes) squares of the known size for blurred markers
        (about two and a half times the time); without it only OpenCV's own squares are read
        on their grid (the frame loop's spread scans, which must stay fast), OpenCV thresholding
        at fewer windows (:func:`fast_threshold_windows`).

        ``followed`` are markers already found in this image (the frame loop's followed
        markers): OpenCV's readings of them where they are are not checked again, the candidate
        squares on them are not read again, nor their ids elsewhere (reading a blurred marker's
        candidates cost about 5 ms each); they are left out of the result, which the caller has.
        """
        corners: list[np.ndarray] = []
        ids: list[np.ndarray] = []
        again: list[np.ndarray] = []
        sized: list[np.ndarray] = []
        soft: list[np.ndarray] = []
        for roi in rois:
            ox = oy = 0
            img = gray
            if roi is not None:
                x, y, w, h = (int(v) for v in roi)
                x0, y0 = max(0, x), max(0, y)
                x1, y1 = min(gray.shape[1], x + w), min(gray.shape[0], y + h)
                if x1 - x0 < self.min_side_px or y1 - y0 < self.min_side_px:
                    continue
                img, ox, oy = gray[y0:y1, x0:x1], x0, y0
            detector = _aruco_detector(self.dictionary, self.min_side_px, self.max_side_px, max(img.shape[:2]),
                                       windows=None if thorough else fast_threshold_windows(self.max_side_px))
            found, found_ids, rejected = detector.detectMarkers(img)
            if self.in_play is not None and thorough:
                # a second threshold closes outlines the first one merged with a dark base
                # or broke on glare; its squares are only candidates, read on their grid
                more, more_ids, more_rej = _aruco_detector(
                    self.dictionary, self.min_side_px, self.max_side_px, max(img.shape[:2]),
                    constant=SECOND_THRESHOLD_CONSTANT).detectMarkers(img)
                extra = list(more) + list(more_rej)
                if extra:
                    again.append(np.asarray(extra, dtype=np.float64).reshape(-1, 4, 2) + (ox, oy))
                # and the dark blobs of a marker's size (blurred corners fit no polygon)
                blobs, joined = ink_candidates(img, self.min_side_px, self.max_side_px, sizes=self.sizes,
                                               offset=(ox, oy))
                if len(blobs):
                    again.append(blobs + (ox, oy))
                if len(joined):
                    sized.append(joined + (ox, oy))
                if self.sizes is not None:
                    # and a blurred marker's ink, in pieces at any threshold, framed by its paper
                    squares = ring_squares(img, self.sizes, self.min_side_px, self.max_side_px, offset=(ox, oy))
                    if len(squares):
                        soft.append(squares + (ox, oy))
            if found_ids is not None and len(found_ids):
                corners.append(np.asarray(found, dtype=np.float64).reshape(-1, 4, 2) + (ox, oy))
                ids.append(np.asarray(found_ids).reshape(-1))
            if len(rejected):
                again.append(np.asarray(rejected, dtype=np.float64).reshape(-1, 4, 2) + (ox, oy))
        if not corners and not again and not sized and not soft:
            return Detections.empty()
        c = np.concatenate(corners) if corners else np.zeros((0, 4, 2))
        found_ids = np.concatenate(ids) if ids else np.zeros(0, dtype=np.int64)
        if followed is not None and len(followed) and len(found_ids):
            # a reading of a marker followed where it is: the follow fitted it on this image already
            same = on_followed(c, found_ids, followed)
            c, found_ids = c[~same], found_ids[~same]
        raw_c = c
        c, found_ids = self._confirm(gray, c, found_ids)
        # OpenCV corrects bits silently: count the cells its readings got wrong
        fixed = cell_errors(gray, c, found_ids, self.dictionary) if len(found_ids) else np.zeros(0, np.int64)
        if self.in_play is not None:
            # every square OpenCV saw (those it read but that failed the check too) is read
            # on its grid against the ids in play; a clean first reading wins
            pool = [q for q in (raw_c, *again) if len(q)]
            if thorough and self.sizes is not None and pool:
                # a blurred marker's outline has its centre and angle, not its corners: each
                # outline of about a marker's size is also read as the square of known size
                outlines = np.concatenate(pool)
                sides = side_lengths(outlines)
                outlines = outlines[(sides >= self.min_side_px * 0.8) & (sides <= self.max_side_px * 1.5)]
                if len(outlines):
                    soft.append(snapped_squares(outlines, self.sizes))
            if pool or sized or soft:
                none = np.zeros((0, 4, 2))
                taken, taken_ids = c, found_ids
                if followed is not None and len(followed):
                    taken = np.concatenate([c, followed.corners_px])
                    taken_ids = np.concatenate([found_ids, followed.marker_ids])
                read = self._read_in_play(gray, np.concatenate(pool) if pool else none, taken, taken_ids,
                                          np.concatenate(sized) if sized else none,
                                          np.concatenate(soft) if soft else none)
                fresh = ~np.isin(read.ids, taken_ids)
                c = np.concatenate([c, read.corners[fresh]])
                found_ids = np.concatenate([found_ids, read.ids[fresh]])
                fixed = np.concatenate([fixed, read.errors[fresh]])
        elif again:
            more_ids, more_c = self._second_chance(gray, np.concatenate(again), c)
            # a second reading never stands beside a first one of the same id: a marker
            # with a hidden corner can read as another, and the clean reading wins
            fresh = ~np.isin(more_ids, found_ids)
            c = np.concatenate([c, more_c[fresh]])
            found_ids = np.concatenate([found_ids, more_ids[fresh]])
            fixed = np.concatenate([fixed, np.zeros(int(fresh.sum()), np.int64)])
        if not len(found_ids):
            return Detections.empty()
        conf = (np.clip(side_lengths(c) / MIN_READABLE_SIDE_PX, 0.0, 1.0)
                * np.clip(1.0 - CORRECTION_PENALTY * fixed, 0.1, 1.0))
        return Detections.from_corners(c, found_ids, conf, fixed)

    def _read_in_play(self, gray: np.ndarray, quads: np.ndarray, found: np.ndarray,
                      found_ids: np.ndarray, sized: np.ndarray, soft: np.ndarray | None = None) -> Readings:
        """Read candidate squares on their grid as ids in play (:mod:`tracker.candidates`).

        An id OpenCV already read (and the edge fit confirmed) elsewhere cannot be here too:
        such a reading (a neighbour's pattern read on a grid shifted by a cell, say) is
        dropped before the readings of one place are weighed against each other, so it does
        not take the right marker there down with it. ``sized`` are squares of the marker's
        known size (:func:`tracker.candidates.known_size_squares`), read as they are.

        ``soft`` are squares of the known size placed where a dark square sits in a light
        frame (:func:`tracker.candidates.ring_squares`) or on an outline's centre and angle
        (:func:`tracker.candidates.snapped_squares`): the blurred markers. They are read
        last, only a marker's side away from every marker read until then and as ids not
        read yet: placed by a centre and aligned on the cells, such a square can also land
        half on a marker read elsewhere and read as another id, and a place where they read
        two ids (within a marker's side) gives neither. Those whose cells split into no code
        are also read as the codes in play seen through a motion blur
        (:func:`tracker.candidates.read_blurred`). Last, where none of these reads, the soft
        squares that lie a cell or two off a marker (a figure over part of its frame, or a dark
        rim touching it, drew the ring's place aside: :func:`tracker.candidates.cell_off_squares`)
        are read moved onto it, under the same conditions.
        """
        if not self.in_play:
            return Readings.empty()

        def apart(q: np.ndarray, taken: np.ndarray, gap: float = 0.5) -> np.ndarray:
            sides = side_lengths(q)
            keep: np.ndarray = (sides >= self.min_side_px * 0.8) & (sides <= self.max_side_px * SECOND_CHANCE_SIZE)
            if len(taken) and len(q):
                near = np.linalg.norm(diagonal_centres(q)[:, None] - diagonal_centres(taken)[None], axis=2)
                keep &= near.min(axis=1) > side_lengths(taken).min() * gap
            return keep

        def away(q: np.ndarray, taken: np.ndarray, gap: float = 0.5) -> np.ndarray:
            kept: np.ndarray = q[apart(q, taken, gap)]
            return kept

        ids = sorted(self.in_play)
        read = Readings.concat([
            read_candidates(gray, away(quads, found), self.dictionary, ids, max_errors=IN_PLAY_MAX_ERRORS),
            read_candidates(gray, away(sized, found), self.dictionary, ids, max_errors=IN_PLAY_MAX_ERRORS,
                            known_size=True)])
        first = best_per_marker(read.select(~np.isin(read.ids, found_ids)))
        if soft is None or not len(soft):
            return first
        taken = np.concatenate([found, first.corners])
        # searched over places, a square of a marker too small to be read reads anything
        soft = soft[side_lengths(soft) >= SEARCHED_MIN_SIDE_PX]
        # placed (and aligned) at the calibration's size: only shifted, not scaled (a third of the reads)
        late = read_candidates(gray, away(soft, taken, 1.0), self.dictionary, ids, max_errors=IN_PLAY_MAX_ERRORS,
                               known_size=True, scales=(1.0,), blurred=True)
        late = late.select(~np.isin(late.ids, np.concatenate([found_ids, first.ids])))
        if len(late):
            late = best_per_marker(late, min_distance_px=float(side_lengths(late.corners).max()))
        # where none reads, the squares that seem to lie a cell or two off a marker, moved onto it:
        # read as those, only a marker's side away from every marker read until then, as ids not read yet
        taken = np.concatenate([taken, late.corners])
        moved = away(cell_off_squares(gray, away(soft, taken, 1.0), self.cells), taken, 1.0)
        aside = read_candidates(gray, moved, self.dictionary, ids, max_errors=IN_PLAY_MAX_ERRORS,
                                known_size=True, scales=(1.0,))
        aside = aside.select(apart(aside.corners, taken, 1.0) & ~np.isin(aside.ids, np.concatenate(
            [found_ids, first.ids, late.ids])))
        if len(aside):
            aside = best_per_marker(aside, min_distance_px=float(side_lengths(aside.corners).max()))
        return Readings.concat([first, late, aside])

    def _confirm(self, gray: np.ndarray, quads: np.ndarray, ids: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Refine OpenCV's readings on the square's edges and keep those that are markers.

        A printed marker is a black square on white paper: its outline is a clean
        dark-to-light step along every side, and once fitted to those edges it must still
        read as the same id. OpenCV's contour candidate is only a thresholded outline; on
        a dark bare base with a grey figure standing on it, that outline can happen to
        decode (a 16-bit pattern among 250 ids, with error correction) although nothing
        around it is paper. Such a reading has no edges to fit (no light quiet zone, no
        step on its sides) and is dropped here instead of becoming a phantom model.
        """
        if not len(ids):
            return quads, ids
        refined, ok = refine_corners_status(gray, quads, cells=self.cells, min_coverage=FIRST_READING_COVERAGE)
        ok &= same_ids(gray, refined, ids, self.dictionary)
        for marker_id, quad in zip(ids[~ok].tolist(), quads[~ok]):
            log.debug("reading of id %d at (%.0f, %.0f) px dropped: its square shows no clean edges "
                      "or no longer reads as that id once fitted to them", marker_id, *quad.mean(axis=0))
        return refined[ok], ids[ok]

    def _second_chance(self, gray: np.ndarray, quads: np.ndarray,
                       found: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Read OpenCV's rejected candidates again after fitting the black square's edges.

        With a quiet zone one or two pixels wide, OpenCV's threshold often merges it with
        the marker, and the only candidate left is the outline of the white paper around
        it, which does not decode. Fitting the edges from there finds the black square.
        """
        sides = side_lengths(quads)
        keep = (sides >= self.min_side_px) & (sides <= self.max_side_px * SECOND_CHANCE_SIZE)
        if len(found):
            centres = diagonal_centres(quads)
            known = diagonal_centres(found)
            near = np.linalg.norm(centres[:, None] - known[None], axis=2).min(axis=1)
            keep &= near > side_lengths(found).min() / 2
        quads = quads[keep]
        if not len(quads):
            return np.zeros(0, dtype=np.int64), np.zeros((0, 4, 2))
        refined, ok = refine_corners_status(gray, quads, cells=self.cells,
                                            max_shift_modules=SECOND_CHANCE_SHIFT_MODULES)
        # once more from close by, now requiring a clean edge along every side
        refined, ok = refine_corners_status(gray, refined[ok], cells=self.cells,
                                            min_coverage=SECOND_CHANCE_COVERAGE)
        refined = refined[ok]
        ids, oriented = identify_quads(gray, clockwise_quads(refined), self.dictionary)
        good = ids >= 0
        ids, oriented = ids[good], oriented[good]
        # one reading per id (several rejected outlines can surround the same marker)
        _, first = np.unique(ids, return_index=True)
        return ids[first], oriented[first]

    @property
    def cells(self) -> int:
        """Cells across a marker of this dictionary, black border included."""
        return aruco_cells(self.dictionary)


#: Data cells a reading against the ids in play may correct. Measured on realistic renders
#: and the dev-scenes, candidates read with one cell corrected were three times more often
#: another marker or a pattern than the right marker: none is corrected (corner markers,
#: with only four codes, are: see calibration.aruco.read_corner_markers).
IN_PLAY_MAX_ERRORS = 0
#: Confidence lost per corrected cell.
CORRECTION_PENALTY = 0.2
#: Rejected candidates up to this many times the largest marker side get a second reading,
#: and their corners may move this many marker cells while the edges are fitted.
SECOND_CHANCE_SIZE = 1.5
SECOND_CHANCE_SHIFT_MODULES = 1.8
#: OpenCV's own readings need a clean black-to-white edge on this fraction of every side's
#: profiles (after the edge fit), and must read as the same id on the fitted square: a
#: figure touching the quiet zone leaves most of each side clean, a pattern on a dark bare
#: base that happens to decode leaves none (see MarkerDetector._confirm).
FIRST_READING_COVERAGE = 0.5
#: A second reading needs a clean edge on this fraction of every side's profiles: a
#: marker with a corner hidden can read as another id, and a wrong id costs more than a miss.
SECOND_CHANCE_COVERAGE = 0.8


def on_followed(quads: np.ndarray, ids: np.ndarray, followed: Detections) -> np.ndarray:
    """(N,) whether each reading (``quads`` (N, 4, 2), ``ids``) is of a marker in ``followed``, where
    it is: the same id, its centre within half that marker's side of the followed one's.

    Examples
    --------
    >>> sq = np.array([[[0, 0], [20, 0], [20, 20], [0, 20]]], float)
    >>> followed = Detections.from_corners(sq + 1.0, np.array([7]))
    >>> on_followed(np.concatenate([sq, sq, sq + 30.0]), np.array([7, 8, 7]), followed).tolist()
    [True, False, False]
    """
    q = np.asarray(quads, np.float64).reshape(-1, 4, 2)
    if not len(q) or not len(followed):
        return np.zeros(len(q), bool)
    same_id = np.asarray(ids).reshape(-1)[:, None] == followed.marker_ids[None, :]
    dist = np.linalg.norm(diagonal_centres(q)[:, None] - diagonal_centres(followed.corners_px)[None], axis=2)
    near = dist <= side_lengths(followed.corners_px)[None, :] / 2
    hit: np.ndarray = (same_id & near).any(axis=1)
    return hit


def clockwise_quads(quads: np.ndarray) -> np.ndarray:
    """Return the quads with their corners clockwise in the image (y down).

    Examples
    --------
    >>> clockwise_quads(np.array([[[0, 0], [0, 1], [1, 1], [1, 0]]], float))[0].tolist()
    [[1.0, 0.0], [1.0, 1.0], [0.0, 1.0], [0.0, 0.0]]
    """
    q = np.asarray(quads, dtype=np.float64).reshape(-1, 4, 2)
    a, b, c = q[:, 0], q[:, 1], q[:, 2]
    cross = (b[:, 0] - a[:, 0]) * (c[:, 1] - b[:, 1]) - (b[:, 1] - a[:, 1]) * (c[:, 0] - b[:, 0])
    return np.where((cross < 0)[:, None, None], q[:, ::-1], q)


#: OpenCV's polygon approximation tolerance is a fraction of the perimeter. Its default,
#: 0.03, is under a pixel on a 16-20 px marker and loses markers whose quiet zone is
#: touched by the figure: the tolerance is set to this many pixels instead, within
#: the rates below (the decoder still rejects what is not a marker).
POLYGON_APPROX_PX = 4.5
POLYGON_APPROX_RATES = (0.03, 0.08)
_DETECTORS: dict[tuple[str, int, int, int, float | None, tuple[int, int, int] | None], cv2.aruco.ArucoDetector] = {}
#: The fast scan (``detect_in(..., thorough=False)``, the frame loop's spread scans) thresholds
#: at two windows, 3 px and this fraction of the largest marker side, instead of OpenCV's
#: 3, 13 and 23 px: the widest, as wide as a whole 1080p marker, added only candidates to read
#: (the markers it closed, the narrower windows closed too) and was a third of the detector's time.
FAST_WINDOW_SIDES = 0.4
#: OpenCV's adaptive threshold constant for the second pass over an image (its default is 7).
SECOND_THRESHOLD_CONSTANT = 12.0


@functools.lru_cache(maxsize=32)
def aruco_cells(dictionary: str) -> int:
    """Return the cells across a marker of ``dictionary`` (bits + 2 border cells).

    Examples
    --------
    >>> aruco_cells("DICT_4X4_250"), aruco_cells("DICT_APRILTAG_36h11")
    (6, 8)
    """
    return int(get_dictionary(dictionary).markerSize) + 2


def fast_threshold_windows(max_side_px: float) -> tuple[int, int, int]:
    """The adaptive-threshold windows (smallest, largest, step) px of the fast scan for markers
    up to ``max_side_px`` across: 3 px and :data:`FAST_WINDOW_SIDES` of the largest side.

    Examples
    --------
    >>> fast_threshold_windows(32.0), fast_threshold_windows(80.0)
    ((3, 13, 10), (3, 33, 30))
    """
    high = max(3, int(round(FAST_WINDOW_SIDES * max_side_px)) | 1)
    return 3, high, max(1, high - 3)


def _aruco_detector(dictionary: str, min_side_px: float, max_side_px: float,
                    longest_px: int, *, constant: float | None = None,
                    windows: tuple[int, int, int] | None = None) -> cv2.aruco.ArucoDetector:
    """A cached detector for images whose larger side is about ``longest_px``.

    The corners are left unrefined here: :func:`tracker.refine.refine_corners` fits the
    square's edges, which a 1-2 px quiet zone does not disturb (OpenCV's corner windows
    reach past it onto the base). ``windows``: the adaptive threshold's (smallest, largest,
    step) window px (OpenCV's 3, 23, 10 without).
    """
    bucket = max(16, (longest_px // 16) * 16)
    key = (dictionary, int(min_side_px * 8), int(max_side_px * 8), bucket, constant, windows)
    found = _DETECTORS.get(key)
    if found is None:
        params = detector_parameters((bucket, bucket), min_side_px=min_side_px,
                                     max_side_px=max_side_px, refine=False, threshold_constant=constant,
                                     threshold_windows_px=windows)
        params.polygonalApproxAccuracyRate = float(np.clip(POLYGON_APPROX_PX / (4.0 * min_side_px),
                                                           *POLYGON_APPROX_RATES))
        # OpenCV drops a marker whose thresholded outline comes within this many px of the
        # image (or crop) border; a corner marker near the frame's edge, with the dark table
        # edge beyond its paper, is lost at the default of 3
        params.minDistanceToBorder = 0
        if len(_DETECTORS) > 256:
            _DETECTORS.clear()
        found = _DETECTORS[key] = cv2.aruco.ArucoDetector(get_dictionary(dictionary), params)
    return found


def detector_for(calibration: TableMapping, setup: Setup) -> MarkerDetector:
    """Return a detector sized for the setup's base markers as this camera sees them."""
    m = setup.markers
    sizes = [m.base_size_mm] + [o.size_mm for o in m.per_marker.values() if o.size_mm]
    lo, _ = marker_side_px_range(calibration, setup, min(sizes), height_mm=m.base_height_mm)
    _, hi = marker_side_px_range(calibration, setup, max(sizes), height_mm=m.base_height_mm)
    return MarkerDetector(m.dictionary, lo * DETECT_SIDE_FRACTION, hi * 1.5, ids_in_play(setup),
                          marker_sizes(calibration, setup, tuple(sorted(set(sizes)))))


#: Table places (per side) where the calibration's local map is sampled for MarkerSizes.
SIZE_MAP_STEPS = 9


def marker_sizes(calibration: TableMapping, setup: Setup, sides_mm: tuple[float, ...]) -> MarkerSizes:
    """The calibration's local maps at base-marker height over the table (:class:`MarkerSizes`).

    Examples
    --------
    >>> from calibration.setup import parse_setup
    >>> s = parse_setup({"table": {"width_mm": 600, "depth_mm": 600}})
    >>> ms = marker_sizes(ScaledPlane(2.0), s, (12.0,))
    >>> ms.jacobian_at(np.array([300.0, 500.0])).round(6).tolist(), ms.points_px.shape
    ([[2.0, 0.0], [0.0, 2.0]], (81, 2))
    """
    w, d = setup.table.width_mm, setup.table.depth_mm
    xs, ys = np.meshgrid(np.linspace(0, w, SIZE_MAP_STEPS), np.linspace(0, d, SIZE_MAP_STEPS))
    at = np.stack([xs.ravel(), ys.ravel()], axis=1)
    h = setup.markers.base_height_mm
    p = np.asarray(calibration.to_image_px(at, height_mm=h), np.float64).reshape(-1, 2)
    px = np.asarray(calibration.to_image_px(at + [1.0, 0.0], height_mm=h), np.float64).reshape(-1, 2)
    py = np.asarray(calibration.to_image_px(at + [0.0, 1.0], height_mm=h), np.float64).reshape(-1, 2)
    jac = np.stack([px - p, py - p], axis=2)               # columns: px per mm along x, along y
    return MarkerSizes(p, jac, sides_mm)
