"""Base mode: bare round bases found by their rim colour, with centre, diameter and side.

The frame is rectified onto the table plan at the bases' top height (``base_height_mm``)
at a known scale (:class:`PlanView`), so a base's top outline is a true circle there.
Pixels close in hue to a side's rim colour (``setup.bases.sides``) are segmented; the
outer contour of each blob gives edge points, and a circle is fitted to them by RANSAC,
which accepts partial arcs (the figure on the base hides part of it). The base's wall is
the rim colour too: from a camera off to one side it shows as a crescent on the side
facing the camera, whose outline is the base's bottom circle. Each point is therefore
scored against the nearer of the top circle and the bottom circle, the latter shifted by
the parallax the calibration predicts at that place. The diameter is snapped to the
nearest allowed size (``setup.bases.diameters_mm``); the centre is refitted with it.

Examples
--------
>>> [round(float(v), 6) + 0.0 for v in fit_circle(np.array([[3.0, 2.0], [2.0, 3.0], [1.0, 2.0], [2.0, 1.0]]))]
[2.0, 2.0, 1.0]
>>> snap_diameter(24.1, (20.0, 25.0, 32.0)), snap_diameter(36.0, (20.0, 25.0, 32.0)) is None
(25.0, True)
"""

from __future__ import annotations

import functools
import logging
import math
from collections.abc import Sequence
from dataclasses import dataclass

import cv2
import numpy as np

from calibration.setup import Setup
from tracker.blobs import regions
from tracker.markers import TableMapping

log = logging.getLogger(__name__)

#: The plan image's scale is the camera's own at the table centre, within these bounds.
PLAN_MIN_PX_PER_MM = 1.0
PLAN_MAX_PX_PER_MM = 2.0
#: The base foot's parallax (:meth:`PlanView.bottom_shift_mm`) is computed exactly every this
#: many mm of the table, then interpolated.
SHIFT_GRID_MM = 20.0
#: The plan-to-image mapping is computed exactly every this many plan px, then interpolated.
PLAN_GRID_STEP_PX = 8
#: Lightness weight in the Lab distance to a coloured rim; a rim whose chroma is below
#: ACHROMATIC_CHROMA (black, grey, white) keeps its full lightness weight.
RIM_LIGHTNESS_WEIGHT = 0.5
ACHROMATIC_CHROMA = 20.0
#: A pixel is rim when within this fraction of the rim-mat distance of the rim colour (at least
#: RIM_MATCH_MIN), besides being nearer the rim than the mat and the other side.
RIM_MATCH_FRACTION = 0.9
RIM_MATCH_MIN = 20.0
#: Hue distance (OpenCV units, 0-180 for 360 deg) still counted as a side's rim colour, and the
#: saturation and value, as fractions of the side colour's, below which a pixel is not rim; used
#: for a rim saturated at least HUE_MIN_SATURATION (0-255) on a mat of another hue.
HUE_TOLERANCE = 8
MIN_SATURATION_FRACTION = 0.5
MIN_VALUE_FRACTION = 0.3
HUE_MIN_SATURATION = 100
#: The mat's local background is sampled every BACKGROUND_STEP_MM and median-filtered over
#: BACKGROUND_WINDOW samples; a hue-matched pixel must differ from it by BACKGROUND_APART (Lab).
BACKGROUND_STEP_MM = 10.0
BACKGROUND_WINDOW = 7
BACKGROUND_APART = 12.0
#: A pixel nearer its local background than this (L1 distance in Lab) is mat, not looked at.
RIM_APART_L1 = 14
#: A pixel at least BLEND_MIN of the way from the local background to the rim colour, and off
#: that line by at most BLEND_PERP of its length, is rim too (a thin rim blurred into the mat).
BLEND_MIN = 0.3
BLEND_PERP = 0.3
#: Contour points are the centres of a blob's outermost pixels: this far inside its edge, px.
CONTOUR_INSET_PX = 0.5
#: An edge point within this of the fitted outline is an inlier, mm.
INLIER_TOLERANCE_MM = 0.6
#: A fitted diameter farther than this from every allowed size is not a base, mm.
SNAP_TOLERANCE_MM = 3.0
#: The inliers must cover at least this fraction of the circumference, and this arc.
MIN_INLIER_FRACTION = 0.35
MIN_ARC_DEG = 120.0
RANSAC_ITERATIONS = 120
#: The best RANSAC hypotheses refined in turn before a blob is given up.
RANSAC_TRIES = 3
#: The free circle's centre is kept (its diameter snapped) when this many times more edge
#: points lie on it than on the best circle of an allowed size.
FREE_FIT_GAIN = 2.0
#: The least-squares refinement takes inliers within these multiples of the tolerance, in
#: turn: wide first (RANSAC's circle may be off by a pixel), then tight.
REFINE_BANDS = (4.0, 2.5, 1.5, 1.5)
#: At most this many edge points of a blob score the RANSAC hypotheses (evenly subsampled).
RANSAC_SCORE_POINTS = 120
#: A blob whose outline is longer than the largest base's takes that many times more hypotheses,
#: scoring points and tries, up to this factor.
BIG_BLOB_MAX_SCALE = 8.0
#: A circle fitted in a blob whose outline is this many times the largest base's is held to
#: :data:`LENIENT_MIN_ROUNDNESS` (a hand's outline holds fingertips).
BIG_BLOB_LENIENT = 1.0
#: Pieces of rim closer than this are grouped as one base's outline, mm.
MERGE_GAP_MM = 6.0
#: The ring test (:func:`ring_support`): directions sampled, radii inside and outside the
#: outline sampled (mm), least share of directions showing rim inside and no rim outside, and
#: largest share showing rim colour outside.
RING_ANGLES = 72
RING_INNER_MM = (0.3, 0.8, 1.3)
RING_OUTER_MM = (1.2, 2.0, 3.0)
MIN_RING_SUPPORT = 0.45
MAX_RING_OUTSIDE = 0.3
#: Rim colour outside the outline counts against a circle only within this distance (Lab,
#: lightness weighted by :func:`_weights`) of the colour its rim shows inside, if the circle
#: ends on its outline in at least LENIENT_MIN_ROUNDNESS of the directions (:func:`_is_ring`).
OUTSIDE_SAME_DE = 20.0
LENIENT_MIN_ROUNDNESS = 0.45
#: A circle whose inside is at least FILLED_SHARE rim colour must end, in at least
#: MIN_FILLED_ROUNDNESS of the directions, within ROUND_TOLERANCE_MM of its outline (dice).
FILLED_SHARE = 0.5
MIN_FILLED_ROUNDNESS = 0.5
#: Inside at least this share rim colour, nothing stands on it: it must be round in at least
#: MIN_FLAT_ROUNDNESS of the directions (a die's face is filled too, and square).
FLAT_FILLED_SHARE = 0.95
MIN_FLAT_ROUNDNESS = 0.75
ROUND_TOLERANCE_MM = 0.75
#: Pieces of rim kept for :func:`_circles_of_pieces`: at least this share of the smallest base's
#: diameter long and this share of its circumference in pixels; the ring they make must show
#: in at least MIN_PIECES_RING_SUPPORT of the directions.
SPARE_MIN_EXTENT = 0.25
SPARE_MIN_SHARE = 0.05
MIN_PIECES_RING_SUPPORT = 0.35
MAX_PIECES_OUTSIDE = 0.1
#: A circle fitted over at least STRONG_FIT_ARC_DEG with STRONG_FIT_FRACTION of its circumference
#: in inliers (a thin rim at 1 px/mm) needs a ring support of STRONG_FIT_RING_SUPPORT only, with
#: nothing of the colour outside it beyond MAX_PIECES_OUTSIDE, if its colour ends on the outline
#: in at least STRONG_FIT_ROUNDNESS of the directions.
STRONG_FIT_ARC_DEG = 240.0
STRONG_FIT_FRACTION = 0.5
STRONG_FIT_RING_SUPPORT = 0.3
STRONG_FIT_ROUNDNESS = 0.25
#: A bright rim blurred into the mat (and the JPEG's coarser colour) reaches the mask up to
#: HALO_GROWTH_MM wider than the base: a strong fit refused at the allowed size near its fitted
#: one is tried at the smaller allowed sizes, centred on the ring's inner edge (found in at least
#: HALO_MIN_INNER_SHARE of the directions), and kept if the ring of the colour the rim shows
#: inside stands in HALO_MIN_SUPPORT of the directions with nothing of it outside.
HALO_GROWTH_MM = 7.0
HALO_MIN_INNER_SHARE = 0.5
HALO_MIN_SUPPORT = 0.85
#: A circle centred on a corner marker (its side plus this, mm, from both edges) is its paper.
CORNER_CLEARANCE_MM = 2.0
#: A base's disc reaches at most this far beyond the table's edge, mm (the fit's error).
EDGE_OVERHANG_MM = 1.5
#: A base known from earlier frames is confirmed (:func:`confirm_bases`) within this distance of
#: where it was, mm, by a ring showing in this share of the directions (a hand over part of it).
CONFIRM_SHIFT_MM = 2.0
CONFIRM_MIN_SUPPORT = 0.25
#: A circle whose centre is this close to a known model's base centre is that model, mm.
MODEL_EXCLUSION_MM = 10.0
#: A side's rim colour as this frame shows it (:func:`learnt_rims`) is learnt from the bases found
#: by it over at least STRONG_FIT_ARC_DEG with STRONG_FIT_FRACTION in inliers: the median colour of
#: the band LEARN_BAND_MM inside each one's outline (at least LEARN_MIN_PIXELS pixels), kept when
#: its hue is within LEARN_HUE_DEG of the set colour's and its chroma at least ACHROMATIC_CHROMA
#: (a model's marker, paper or ink is not the rim). When the colour learnt stands at least
#: LEARN_APART from the set one and LEARN_MIN_MAT from the mat (Lab, weighted by :func:`_weights`),
#: the side's rim is looked for again by it.
LEARN_BAND_MM = 1.5
LEARN_MIN_PIXELS = 12
LEARN_HUE_DEG = 30.0
LEARN_APART = 20.0
LEARN_MIN_MAT = 12.0
#: The set colour's mask taking this share of the rim bands the colour is learnt on (median over the
#: bases) takes the rim already: no second look.
LEARN_MAX_TAKEN = 0.5
#: A circle found by a learnt colour must show its ring in this share of the directions.
LEARNT_MIN_SUPPORT = 0.6


@dataclass(frozen=True)
class FoundBase:
    """A bare base: centre (table mm), diameter snapped to an allowed size, side, fit quality."""

    x_mm: float
    y_mm: float
    diameter_mm: float
    side: str
    fitted_diameter_mm: float
    inlier_fraction: float
    arc_deg: float

    def to_dict(self) -> dict[str, object]:
        """Return the JSON form used by ``locate``."""
        return {"x_mm": round(self.x_mm, 2), "y_mm": round(self.y_mm, 2), "diameter_mm": self.diameter_mm,
                "side": self.side, "fitted_diameter_mm": round(self.fitted_diameter_mm, 2),
                "arc_deg": round(self.arc_deg, 1)}


class PlanView:
    """The table seen from straight above at ``height_mm``: a rectified image at a known scale.

    Parameters
    ----------
    calibration : TableMapping
        Image px <-> table mm at any height.
    setup : Setup
        Table size and base height.
    px_per_mm : float, optional
        Plan scale; by default the camera's own scale at the table centre, bounded by
        :data:`PLAN_MIN_PX_PER_MM` and :data:`PLAN_MAX_PX_PER_MM`.
    """

    def __init__(self, calibration: TableMapping, setup: Setup, *, px_per_mm: float | None = None) -> None:
        self.calibration = calibration
        self.height_mm = setup.markers.base_height_mm
        w, d = setup.table.width_mm, setup.table.depth_mm
        if px_per_mm is None:
            c = np.array([[w / 2, d / 2], [w / 2 + 10.0, d / 2], [w / 2, d / 2 + 10.0]])
            px = calibration.to_image_px(c, height_mm=self.height_mm)
            native = (np.linalg.norm(px[1] - px[0]) + np.linalg.norm(px[2] - px[0])) / 20.0
            px_per_mm = float(np.clip(native, PLAN_MIN_PX_PER_MM, PLAN_MAX_PX_PER_MM))
        self.px_per_mm = px_per_mm
        self.size_px = (int(math.ceil(w * px_per_mm)), int(math.ceil(d * px_per_mm)))
        self.map_x, self.map_y = self._maps()
        # fixed-point maps: remap runs two to three times faster with them
        self._fast = cv2.convertMaps(self.map_x, self.map_y, cv2.CV_16SC2)
        self._shift_grid: np.ndarray | None = None

    def _maps(self) -> tuple[np.ndarray, np.ndarray]:
        g = PLAN_GRID_STEP_PX
        wp, hp = self.size_px
        nx, ny = wp // g + 3, hp // g + 3
        gx, gy = np.meshgrid(np.arange(nx) * g, np.arange(ny) * g)
        mm = np.column_stack([gx.ravel(), gy.ravel()]).astype(float) / self.px_per_mm
        px = self.calibration.to_image_px(mm, height_mm=self.height_mm).reshape(ny, nx, 2)
        mx, my = np.meshgrid(np.arange(wp, dtype=np.float32) / g, np.arange(hp, dtype=np.float32) / g)
        out = [cv2.remap(np.ascontiguousarray(px[:, :, k], dtype=np.float32), mx, my, cv2.INTER_CUBIC)
               for k in range(2)]
        return out[0], out[1]

    def warp(self, image: np.ndarray, region_px: tuple[int, int, int, int] | None = None, *,
             fixed_point: bool = False) -> np.ndarray:
        """Return the plan image (or its ``region_px`` = x, y, w, h part), BGR.

        The whole plan is warped with fixed-point maps (two to three times faster); a
        region with the float maps, unless ``fixed_point`` (then its pixels are exactly
        those of the whole plan).
        """
        if region_px is None:
            mx, my = self._fast
        else:
            x, y, w, h = region_px
            maps = self._fast if fixed_point else (self.map_x, self.map_y)
            mx, my = maps[0][y:y + h, x:x + w], maps[1][y:y + h, x:x + w]
        return cv2.remap(image, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT, borderValue=(0, 0, 0))

    def to_plan_px(self, points_mm: np.ndarray) -> np.ndarray:
        """Map table mm to plan px (pixel centres at integer coordinates)."""
        return np.asarray(points_mm, dtype=float) * self.px_per_mm

    def bottom_shift_mm(self, points_mm: np.ndarray) -> np.ndarray:
        """Return where a point on the table (height 0) appears in the plan, minus the point, mm.

        The parallax of the base's foot: (N, 2) shift of the bottom circle against the top one.
        It varies slowly over the table: it is computed exactly every :data:`SHIFT_GRID_MM` (once
        per view) and interpolated between (a few thousandths of a millimetre off).
        """
        p = np.asarray(points_mm, dtype=float).reshape(-1, 2)
        if self._shift_grid is None:
            self._shift_grid = self._exact_shift(self._shift_nodes())
        g = self._shift_grid
        ny, nx = g.shape[:2]
        if len(p) == 1:
            # one point (a circle's centre, asked for on every fit and ring test): the same sums in
            # Python floats, without numpy's per-call cost on two-element arrays
            x = min(max((float(p[0, 0]) + SHIFT_GRID_MM) / SHIFT_GRID_MM, 0.0), nx - 1.000001)
            y = min(max((float(p[0, 1]) + SHIFT_GRID_MM) / SHIFT_GRID_MM, 0.0), ny - 1.000001)
            i0, j0 = int(x), int(y)
            ax, ay = x - i0, y - j0
            (a0, a1), (b0, b1) = g[j0, i0].tolist(), g[j0, i0 + 1].tolist()
            (c0, c1), (d0, d1) = g[j0 + 1, i0].tolist(), g[j0 + 1, i0 + 1].tolist()
            return np.array([[(a0 * (1 - ax) + b0 * ax) * (1 - ay) + (c0 * (1 - ax) + d0 * ax) * ay,
                              (a1 * (1 - ax) + b1 * ax) * (1 - ay) + (c1 * (1 - ax) + d1 * ax) * ay]])
        f = np.clip((p + SHIFT_GRID_MM) / SHIFT_GRID_MM, 0.0, [nx - 1.000001, ny - 1.000001])
        i, j = f[:, 0].astype(int), f[:, 1].astype(int)
        fx, fy = (f[:, 0] - i)[:, None], (f[:, 1] - j)[:, None]
        return np.asarray((g[j, i] * (1 - fx) + g[j, i + 1] * fx) * (1 - fy)
                          + (g[j + 1, i] * (1 - fx) + g[j + 1, i + 1] * fx) * fy, dtype=float)

    def _shift_nodes(self) -> np.ndarray:
        """(ny, nx, 2) grid nodes every SHIFT_GRID_MM, from one step before the table to one after."""
        w, d = (v / self.px_per_mm for v in self.size_px)
        xs = np.arange(-1, int(math.ceil(w / SHIFT_GRID_MM)) + 2) * SHIFT_GRID_MM
        ys = np.arange(-1, int(math.ceil(d / SHIFT_GRID_MM)) + 2) * SHIFT_GRID_MM
        return np.stack(np.meshgrid(xs, ys), axis=-1)

    def _exact_shift(self, points_mm: np.ndarray) -> np.ndarray:
        p = np.asarray(points_mm, dtype=float).reshape(-1, 2)
        seen = self.calibration.to_table_mm(self.calibration.to_image_px(p, height_mm=0.0),
                                            height_mm=self.height_mm)
        return np.asarray(seen - p, dtype=float).reshape(np.shape(points_mm))


def fit_circle(points: np.ndarray) -> np.ndarray:
    """Least-squares circle (Kasa's algebraic fit) through (N, 2) points: (cx, cy, r).

    The points are taken about their mean, where the fit's normal equations reduce to 2 x 2,
    solved in closed form (the same circle as the 3 x 3 system's to a few 1e-12 mm, for a
    fifth of its cost: a base's search fits a few hundred); a degenerate set (fewer than three
    points, or all on a line) goes to the 3 x 3 system's least-squares solution.
    """
    p = np.asarray(points, dtype=float)
    if len(p) >= 3:
        mean = p.mean(axis=0)
        u, v = p[:, 0] - mean[0], p[:, 1] - mean[1]
        suu, suv, svv = float(u @ u), float(u @ v), float(v @ v)
        det = suu * svv - suv * suv
        if det > 1e-9 * (suu + svv) ** 2:
            w = u * u + v * v
            bu, bv = 0.5 * float(u @ w), 0.5 * float(v @ w)
            du, dv = (svv * bu - suv * bv) / det, (suu * bv - suv * bu) / det
            r2 = du * du + dv * dv + (suu + svv) / len(p)
            return np.array([float(mean[0]) + du, float(mean[1]) + dv, math.sqrt(max(r2, 0.0))])
    a = np.column_stack([2 * p, np.ones(len(p))])
    b = (p ** 2).sum(axis=1)
    try:
        cx, cy, c = np.linalg.solve(a.T @ a, a.T @ b)
    except np.linalg.LinAlgError:
        cx, cy, c = np.linalg.lstsq(a, b, rcond=None)[0]
    return np.array([cx, cy, math.sqrt(max(c + cx * cx + cy * cy, 0.0))])


def fit_centre_fixed_radius(points: np.ndarray, centre: np.ndarray, radius: float,
                            iterations: int = 10) -> np.ndarray:
    """Refine a circle's centre with its radius fixed (Gauss-Newton on geometric distances)."""
    c = np.asarray(centre, dtype=float).copy()
    px, py = np.asarray(points[:, 0], dtype=float), np.asarray(points[:, 1], dtype=float)
    for _ in range(iterations):
        dx, dy = px - c[0], py - c[1]
        rho = np.hypot(dx, dy)
        rho[rho < 1e-9] = 1e-9
        # the normal equations of the 2 x 2 system, solved in closed form (numpy's general
        # solver cost more than the sums)
        ux, uy = dx / rho, dy / rho
        res = rho - radius
        sxx, sxy, syy = float(ux @ ux), float(ux @ uy), float(uy @ uy)
        det = sxx * syy - sxy * sxy
        if abs(det) < 1e-12:
            break
        gx, gy = float(ux @ res), float(uy @ res)
        step = np.array([(syy * gx - sxy * gy) / det, (sxx * gy - sxy * gx) / det])
        c += step
        if math.hypot(step[0], step[1]) < 1e-6:
            break
    return c


def snap_diameter(diameter_mm: float, allowed: Sequence[float]) -> float | None:
    """Return the allowed diameter nearest ``diameter_mm``, or None when none is close enough."""
    best = min(allowed, key=lambda d: abs(d - diameter_mm))
    return float(best) if abs(best - diameter_mm) <= SNAP_TOLERANCE_MM else None


@functools.lru_cache(maxsize=64)
def _lab_of(colour: str) -> np.ndarray:
    """A colour ("#rrggbb") in Lab, OpenCV's 8-bit scale (read-only: the same few colours are asked
    for many times in every search, and each conversion is a call to OpenCV)."""
    r, g, b = (int(colour[i:i + 2], 16) for i in (1, 3, 5))
    lab = np.asarray(cv2.cvtColor(np.array([[[b, g, r]]], np.uint8), cv2.COLOR_BGR2LAB)[0, 0], dtype=np.float32)
    lab.flags.writeable = False
    return lab


@functools.lru_cache(maxsize=64)
def _hsv_of(colour: str) -> np.ndarray:
    """A colour ("#rrggbb") in OpenCV's HSV (read-only, as :func:`_lab_of`)."""
    r, g, b = (int(colour[i:i + 2], 16) for i in (1, 3, 5))
    hsv = np.asarray(cv2.cvtColor(np.array([[[b, g, r]]], np.uint8), cv2.COLOR_BGR2HSV)[0, 0], dtype=int)
    hsv.flags.writeable = False
    return hsv


def _hue_mask(hsv: np.ndarray, colour: str) -> np.ndarray:
    """Pixels of the rim colour's hue, saturated and bright enough (a coloured rim's thin, blurred
    outline keeps its hue when its Lab colour is already half the mat's)."""
    h, s, v = (int(c) for c in _hsv_of(colour))
    lo_s, lo_v = int(MIN_SATURATION_FRACTION * s), int(MIN_VALUE_FRACTION * v)
    mask = np.zeros(hsv.shape[:2], np.uint8)
    a, b = h - HUE_TOLERANCE, h + HUE_TOLERANCE
    # hue is circular (0-179): split the band where it wraps
    for lo, hi in ((max(a, 0), min(b, 179)), (a + 180, 179) if a < 0 else (1, 0), (0, b - 180) if b > 179 else (1, 0)):
        if lo <= hi:
            mask |= np.asarray(cv2.inRange(hsv, (lo, lo_s, lo_v), (hi, 255, 255)), np.uint8)
    return mask


def _hue_apart(colour: str, mat_hsv: tuple[int, int, int]) -> bool:
    """Whether the rim colour is saturated and the mat's hue (:func:`_mat_hsv`) far from it (then its
    hue alone tells it)."""
    h, s, _ = (int(c) for c in _hsv_of(colour))
    mh, ms, _ = mat_hsv
    dh = min(abs(h - mh), 180 - abs(h - mh))
    return s >= HUE_MIN_SATURATION and (dh > 2 * HUE_TOLERANCE or ms < MIN_SATURATION_FRACTION * s / 2)


def _mat_hsv(mat_lab: np.ndarray) -> tuple[int, int, int]:
    """The mat's colour (Lab, 8-bit scale) in OpenCV's HSV."""
    mat_bgr = cv2.cvtColor(np.clip(mat_lab, 0, 255).astype(np.uint8).reshape(1, 1, 3), cv2.COLOR_LAB2BGR)
    h, s, v = (int(c) for c in cv2.cvtColor(mat_bgr, cv2.COLOR_BGR2HSV)[0, 0])
    return h, s, v


def _is_achromatic(colour: str) -> bool:
    lab = _lab_of(colour)
    return math.hypot(float(lab[1]) - 128.0, float(lab[2]) - 128.0) < ACHROMATIC_CHROMA


def _weights(lab: np.ndarray) -> np.ndarray:
    """Lab channel weights for distances to a rim colour: lightness counts half for a coloured rim
    (exposure, vignetting and glare move it most), fully for a grey, black or white one."""
    chroma = math.hypot(float(lab[1]) - 128.0, float(lab[2]) - 128.0)
    return np.array([RIM_LIGHTNESS_WEIGHT if chroma >= ACHROMATIC_CHROMA else 1.0, 1.0, 1.0], np.float32)


@dataclass(frozen=True)
class MatColours:
    """The mat as seen in one frame (Lab, OpenCV's 8-bit scale): its overall colour and a coarse
    map of the local background (the mat's patches, shadows, glare), ``step_mm`` apart, whose
    first sample is the table grid's ``origin`` (column, row)."""

    overall: np.ndarray
    local: np.ndarray
    step_mm: float
    origin: tuple[int, int] = (0, 0)

    def local_in_plan(self, shape: tuple[int, int], origin_px: tuple[int, int], px_per_mm: float) -> np.ndarray:
        """The local background (uint8 Lab) at each pixel of a plan image (or crop at ``origin_px``)."""
        h, w = shape
        k = 1.0 / (px_per_mm * self.step_mm)
        m = np.array([[k, 0.0, origin_px[0] * k - self.origin[0]], [0.0, k, origin_px[1] * k - self.origin[1]]])
        # warped with a fourth channel: OpenCV's 4-channel path gives the same three channels at
        # a third of the 3-channel path's cost (a millimetre's worth of a tile's search)
        four = cv2.warpAffine(cv2.cvtColor(self.local, cv2.COLOR_BGR2BGRA), m, (w, h),
                              flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP, borderMode=cv2.BORDER_REPLICATE)
        return np.asarray(cv2.cvtColor(four, cv2.COLOR_BGRA2BGR))


def _lab_at(image: np.ndarray, px: np.ndarray) -> np.ndarray:
    """(N, 3) uint8 Lab of the image at (N, 2) integer pixels, clamped to the frame."""
    h, w = image.shape[:2]
    return _converted(image[px[:, 1].clip(0, h - 1), px[:, 0].clip(0, w - 1)], cv2.COLOR_BGR2LAB)


def _table_grid_px(view: PlanView, key: tuple[float, ...], xs_mm: np.ndarray, ys_mm: np.ndarray) -> np.ndarray:
    """(len(ys), len(xs), 2) integer image px of a grid of table points (height 0), computed once
    per view (the mat is sampled on the same grids in every frame)."""
    cache: dict[tuple[float, ...], np.ndarray] = view.__dict__.setdefault("_grid_px", {})
    if key not in cache:
        gx, gy = np.meshgrid(xs_mm, ys_mm)
        px = view.calibration.to_image_px(np.column_stack([gx.ravel(), gy.ravel()]), height_mm=0.0)
        cache[key] = np.rint(px).astype(int).reshape(len(ys_mm), len(xs_mm), 2)
    return cache[key]


def _converted(pixels: np.ndarray, code: int) -> np.ndarray:
    """(N, 3) uint8 pixels (BGR) converted by ``cv2.cvtColor`` with ``code``: (N, 3).

    As one row of N pixels: OpenCV converts an image row by row, and a column of N one-pixel
    rows cost ten times more (a tile's HSV look at its rim candidates, 1.3 ms, was 0.1).
    """
    row = np.ascontiguousarray(pixels, dtype=np.uint8).reshape(1, -1, 3)
    return np.asarray(cv2.cvtColor(row, code)).reshape(-1, 3)


def mat_colour(image: np.ndarray, view: PlanView, setup: Setup,
               region_mm: tuple[float, float, float, float] | None = None, *,
               overall: np.ndarray | None = None) -> MatColours:
    """The mat's colours in a frame, from the image itself on a grid of table points.

    The overall colour is the median over a fixed grid of the table's inside; the local
    background, a median over :data:`BACKGROUND_WINDOW` samples of a grid every
    :data:`BACKGROUND_STEP_MM`, is computed for the whole table or only around ``region_mm``
    (x0, y0, x1, y1): the grid is the table's, so a region's values are the whole table's.
    ``overall``: the overall colour already measured in this frame (several regions).
    """
    w, d = setup.table.width_mm, setup.table.depth_mm
    if overall is None:
        grid = _table_grid_px(view, (0.0, w, d), np.linspace(0.08 * w, 0.92 * w, 24),
                              np.linspace(0.08 * d, 0.92 * d, 24))
        overall = np.median(_lab_at(image, grid.reshape(-1, 2)), axis=0).astype(np.float32)
    step = BACKGROUND_STEP_MM
    nx, ny = int(math.ceil(w / step)) + 1, int(math.ceil(d / step)) + 1
    i0, j0, i1, j1 = 0, 0, nx, ny
    if region_mm is not None:
        pad = BACKGROUND_WINDOW // 2 + 2
        i0, j0 = max(0, int(math.floor(region_mm[0] / step)) - pad), max(0, int(math.floor(region_mm[1] / step)) - pad)
        i1 = min(nx, int(math.ceil(region_mm[2] / step)) + 1 + pad)
        j1 = min(ny, int(math.ceil(region_mm[3] / step)) + 1 + pad)
        i0, j0 = min(i0, nx - 1), min(j0, ny - 1)
        i1, j1 = max(i1, i0 + 1), max(j1, j0 + 1)
    # (the region's samples are the whole table grid's)
    grid = _table_grid_px(view, (step, w, d), np.arange(nx) * step, np.arange(ny) * step)
    samples = _lab_at(image, grid[j0:j1, i0:i1].reshape(-1, 2)).reshape(j1 - j0, i1 - i0, 3)
    local = cv2.medianBlur(np.ascontiguousarray(samples), BACKGROUND_WINDOW)
    return MatColours(overall, local, step, (i0, j0))


def side_masks(plan_bgr: np.ndarray, sides: dict[str, str], mat: MatColours | None = None, *,
               origin_px: tuple[int, int] = (0, 0), px_per_mm: float = 1.0) -> dict[str, np.ndarray]:
    """Return a uint8 mask per side of the pixels taken for that side's rim colour.

    A pixel is a side's rim when it is nearer that side's colour than the mat's (overall and
    local, as seen: :func:`mat_colour`) and than the other side's, and within
    :data:`RIM_MATCH_FRACTION` of the rim-mat distance of the rim colour (Lab, lightness
    weighted by :func:`_weights`). A saturated rim on a mat of another hue is also taken by its
    hue where the pixel stands apart from the local background (a thin, blurred rim).
    Without ``mat`` the plan's own median stands for the mat.

    Only pixels standing apart from the local background (L1 distance in Lab at least
    :data:`RIM_APART_L1`) are looked at: the others are mat, whatever their colour.
    """
    lab8 = cv2.cvtColor(plan_bgr, cv2.COLOR_BGR2LAB)
    if mat is None:
        mat_lab = np.median(lab8.reshape(-1, 3)[::7], axis=0).astype(np.float32)
        local8 = np.empty_like(lab8)
        local8[:] = np.rint(mat_lab).astype(np.uint8)
    else:
        mat_lab = mat.overall
        local8 = mat.local_in_plan(lab8.shape[:2], origin_px, px_per_mm)
    apart = cv2.transform(cv2.absdiff(lab8, local8), np.ones((1, 3), np.float32))
    # the pixels by their index in the flattened plan (one index array, not a row and a column)
    at = np.flatnonzero(apart >= RIM_APART_L1)
    if not len(at):
        return {name: np.zeros(plan_bgr.shape[:2], np.uint8) for name in sides}
    # one contiguous array per channel: the arithmetic below runs on 1-D arrays
    px = [lab8.reshape(-1, 3)[at, c].astype(np.float32) for c in range(3)]
    bg = [local8.reshape(-1, 3)[at, c].astype(np.float32) for c in range(3)]
    rims = {name: _lab_of(colour) for name, colour in sides.items()}
    mat_hsv = _mat_hsv(mat_lab)          # (once for every side)
    hue_sides = {name for name in sides if _hue_apart(sides[name], mat_hsv)}
    # (np.take: indexing the (N, 3) pixels by ``at`` costs three times more)
    hsv = (_converted(np.take(plan_bgr.reshape(-1, 3), at, axis=0), cv2.COLOR_BGR2HSV).reshape(1, -1, 3)
           if hue_sides else None)

    # each pixel's difference from its local background, shared by every side's distances
    off_bg = [px[c] - bg[c] for c in range(3)]
    # a distance asked again (the other side's rim, the mat, the background, under the same
    # weights: two coloured sides weigh alike) is the one computed before
    known: dict[tuple[str, str, tuple[float, ...]], np.ndarray] = {}

    def dist2(kind: str, name: str, centre: Sequence[float] | np.ndarray, wts: np.ndarray) -> np.ndarray:
        key = (kind, name, tuple(float(w) for w in wts))
        if key not in known:
            out = np.zeros(len(at), np.float32)
            for c in range(3):
                d = (off_bg[c] if kind == "local" else px[c] - centre[c]) * float(wts[c])
                out += d * d
            known[key] = out
        return known[key]

    out = {}
    for name, rim in rims.items():
        wts = _weights(rim)
        d_rim2 = dist2("rim", name, rim, wts)
        d_local2 = dist2("local", "", (), wts)
        limit = max(RIM_MATCH_MIN, RIM_MATCH_FRACTION * float(np.sqrt((((rim - mat_lab) * wts) ** 2).sum())))
        mask = (d_rim2 < dist2("mat", "", mat_lab, wts)) & (d_rim2 < d_local2) & (d_rim2 < limit * limit)
        # a thin rim blurred into the mat: on the way from the background to the rim colour
        n2 = np.zeros(len(at), np.float32)
        dot = np.zeros(len(at), np.float32)
        for c in range(3):
            w2 = float(wts[c]) ** 2
            axis = float(rim[c]) - bg[c]
            n2 += axis * axis * w2
            dot += off_bg[c] * axis * w2
        n2 = np.maximum(n2, 1.0)
        mask |= ((dot >= BLEND_MIN * n2) & (d_local2 - dot * dot / n2 <= BLEND_PERP ** 2 * n2)
                 & (n2 >= RIM_MATCH_MIN ** 2))
        for other_name, other in rims.items():
            if other_name != name:
                mask &= d_rim2 < dist2("rim", other_name, other, wts)
        if name in hue_sides and hsv is not None:
            mask |= (_hue_mask(hsv, sides[name]).ravel() > 0) & (d_local2 > BACKGROUND_APART ** 2)
        m8 = np.zeros(plan_bgr.shape[:2], np.uint8)
        m8.reshape(-1)[at[mask]] = 255
        out[name] = cv2.morphologyEx(m8, cv2.MORPH_CLOSE, _CLOSE_KERNEL)
    return out


_CLOSE_KERNEL = np.ones((3, 3), np.uint8)
#: The ring tests' :data:`RING_ANGLES` unit directions (A, 2), computed once (read-only).
_RING_DIRECTIONS = np.column_stack([np.cos(np.linspace(0.0, 2 * math.pi, RING_ANGLES, endpoint=False)),
                                    np.sin(np.linspace(0.0, 2 * math.pi, RING_ANGLES, endpoint=False))])
_RING_DIRECTIONS.flags.writeable = False


@functools.lru_cache(maxsize=8)
def _disc(size: int) -> np.ndarray:
    """OpenCV's elliptic structuring element of ``size`` px (read-only: made once per size)."""
    kernel = np.asarray(cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (size, size)))
    kernel.flags.writeable = False
    return kernel


def find_bases(image: np.ndarray, view: PlanView, setup: Setup, *,
               exclude_mm: Sequence[tuple[float, float]] = (),
               rng: np.random.Generator | None = None) -> tuple[FoundBase, ...]:
    """Find the bare bases in a BGR frame.

    Parameters
    ----------
    image : (H, W, 3) uint8
        The camera frame.
    view : PlanView
        The rectification onto the table at base height.
    setup : Setup
        Side colours and allowed diameters.
    exclude_mm : sequence of (x, y)
        Base centres of models known by their markers: circles there are not bare bases.
    rng : numpy Generator, optional
        RANSAC's sampler (seeded by default, so results are repeatable).

    Returns
    -------
    tuple of FoundBase
        Sorted by y then x.
    """
    rng = rng or np.random.default_rng(0)
    found = _bases_in_plan(view.warp(image), (0, 0), view, setup, rng, mat=mat_colour(image, view, setup))
    return _kept(found, exclude_mm, setup)


def search_margin_mm(view: PlanView, setup: Setup) -> float:
    """Return how far beyond a searched region the plan must be warped, mm.

    A base whose centre lies in the region reaches at most its largest radius beyond it,
    its wall's crescent (the bottom circle's parallax) farther still, and pieces of rim
    within :data:`MERGE_GAP_MM` of it are grouped with it: all of it must be in the crop
    for the circle to be fitted as on the whole plan.
    """
    w, d = setup.table.width_mm, setup.table.depth_mm
    probe = np.array([[0.0, 0.0], [w, 0.0], [w, d], [0.0, d], [w / 2, d / 2]])
    shift = float(np.max(np.linalg.norm(view.bottom_shift_mm(probe), axis=1)))
    return max(setup.bases.diameters_mm) / 2 + shift + MERGE_GAP_MM + 2.0


def find_bases_in(image: np.ndarray, view: PlanView, setup: Setup,
                  regions_mm: Sequence[tuple[float, float, float, float]], *,
                  exclude_mm: Sequence[tuple[float, float]] = (),
                  known_mm: Sequence[tuple[float, float, float]] = (),
                  rng: np.random.Generator | None = None) -> tuple[FoundBase, ...]:
    """Find the bare bases whose centres lie in some table regions, warping only around them.

    Each region ``(x0, y0, x1, y1)`` (table mm) is warped with a margin of
    :func:`search_margin_mm` around it, so a base centred inside it is fitted on the same
    pixels as on the whole plan (:func:`find_bases`); circles centred outside the region
    are left to the regions they belong to. A base found in two overlapping regions is
    given once.

    Parameters
    ----------
    image, view, setup, exclude_mm, rng
        As for :func:`find_bases`.
    regions_mm : sequence of (x0, y0, x1, y1)
        The table regions searched, mm.
    known_mm : sequence of (x, y, diameter)
        Bases already known (followed elsewhere): a piece of rim lying wholly within one
        of them (its diameter, plus the wall's parallax) is not fitted again. A new base
        touching a known one makes the piece reach beyond it, and it is fitted.

    Returns
    -------
    tuple of FoundBase
        Sorted by y then x.
    """
    rng = rng or np.random.default_rng(0)
    s = view.px_per_mm
    margin = search_margin_mm(view, setup)
    reach = margin - MERGE_GAP_MM
    known = np.asarray(known_mm, dtype=float).reshape(-1, 3)
    # the rim's pixels reach the outline, the wall's crescent its parallax beyond it
    pad = reach - max(setup.bases.diameters_mm) / 2 + 1.0 / s
    wp, hp = view.size_px
    found: list[FoundBase] = []
    overall = None
    for x0, y0, x1, y1 in regions_mm:
        px0, py0 = max(0, int(math.floor((x0 - margin) * s))), max(0, int(math.floor((y0 - margin) * s)))
        px1, py1 = min(wp, int(math.ceil((x1 + margin) * s)) + 1), min(hp, int(math.ceil((y1 + margin) * s)) + 1)
        if px1 <= px0 or py1 <= py0:
            continue
        crop = view.warp(image, (px0, py0, px1 - px0, py1 - py0), fixed_point=True)
        mat = mat_colour(image, view, setup, (px0 / s, py0 / s, px1 / s, py1 / s), overall=overall)
        overall = mat.overall
        for b in _bases_in_plan(crop, (px0, py0), view, setup, rng, core_mm=(x0, y0, x1, y1), reach_mm=reach,
                                known_mm=known, known_pad_mm=pad, mat=mat):
            if not (x0 <= b.x_mm < x1 and y0 <= b.y_mm < y1):
                continue
            if any(math.hypot(b.x_mm - o.x_mm, b.y_mm - o.y_mm) < min(b.diameter_mm, o.diameter_mm) / 2
                   for o in found):
                continue
            found.append(b)
    return _kept(found, exclude_mm, setup)


def _kept(found: list[FoundBase], exclude_mm: Sequence[tuple[float, float]], setup: Setup) -> tuple[FoundBase, ...]:
    """The circles not standing on a known model, sorted by y then x; nor on a corner marker
    (centred on its black square: no base stands there, and its sheet, tinted by the white
    balance, passes for a pale coloured rim; for a white, grey or black rim, the sheet's paper
    and ink, up to :data:`CORNER_CLEARANCE_MM` beyond the square, too); nor off the table, nor
    reaching more than :data:`EDGE_OVERHANG_MM` beyond its edge (a base stands on the table: an
    arc there is the border's edge, its shadow or a corner marker's ink)."""
    exclude = np.asarray(exclude_mm, dtype=float).reshape(-1, 2)
    w, d = setup.table.width_mm, setup.table.depth_mm
    square = setup.markers.corner_size_mm
    grey = {name for name, colour in setup.bases.sides.items() if _is_achromatic(colour)}

    def on_corner(b: FoundBase) -> bool:
        reach = square + (CORNER_CLEARANCE_MM if b.side in grey else 0.0)
        return min(b.x_mm, w - b.x_mm) < reach and min(b.y_mm, d - b.y_mm) < reach

    kept = [b for b in found
            if (not len(exclude)
                or np.min(np.hypot(exclude[:, 0] - b.x_mm, exclude[:, 1] - b.y_mm)) > MODEL_EXCLUSION_MM)
            and min(b.x_mm, w - b.x_mm, b.y_mm, d - b.y_mm) >= b.diameter_mm / 2 - EDGE_OVERHANG_MM
            and not on_corner(b)]
    kept.sort(key=lambda b: (round(b.y_mm), b.x_mm))
    return tuple(kept)


def _bases_in_plan(plan: np.ndarray, origin_px: tuple[int, int], view: PlanView, setup: Setup,
                   rng: np.random.Generator, *, core_mm: tuple[float, float, float, float] | None = None,
                   reach_mm: float = 0.0, known_mm: np.ndarray | None = None,
                   known_pad_mm: float = 0.0, mat: MatColours | None = None) -> list[FoundBase]:
    """Circles in a plan image (or a crop of it whose top-left plan pixel is ``origin_px``).

    With ``core_mm``, pieces of rim farther than ``reach_mm`` from that region are not
    fitted (no circle centred in the region can pass through them). Pieces lying wholly
    within ``known_pad_mm`` of a known base's outline (``known_mm`` rows x, y, diameter)
    are not fitted either.

    A side whose rim this frame shows in another colour than the set one (blur, the light,
    a thin rim lit on its edge: :func:`learnt_rims`, from the bases found confidently) is
    looked for again by the colour learnt, away from the bases already found.
    """
    sides = dict(setup.bases.sides)
    s = view.px_per_mm
    fit = _PlanFit(plan, origin_px, view, setup, rng, core_mm, reach_mm)
    found: list[FoundBase] = []
    masks = side_masks(plan, sides, mat, origin_px=origin_px, px_per_mm=s)
    for side, mask in masks.items():
        found += fit.circles(mask, side, known_mm, known_pad_mm)
    mat_lab = (mat.overall if mat is not None else
               np.median(cv2.cvtColor(plan, cv2.COLOR_BGR2LAB).reshape(-1, 3)[::7], axis=0).astype(np.float32))
    learnt = learnt_rims(plan, origin_px, s, found, sides, mat_lab, masks)
    if not learnt:
        return found
    seen = np.array([(b.x_mm, b.y_mm, b.diameter_mm) for b in found], float).reshape(-1, 3)
    if known_mm is not None:
        seen = np.concatenate([np.asarray(known_mm, float).reshape(-1, 3), seen])
    pad = search_margin_mm(view, setup) - MERGE_GAP_MM - max(setup.bases.diameters_mm) / 2 + 1.0 / s
    again = side_masks(plan, {**sides, **learnt}, mat, origin_px=origin_px, px_per_mm=s)
    for side in learnt:
        for b in fit.circles(again[side], side, seen, max(pad, known_pad_mm)):
            apart = all(math.hypot(b.x_mm - o.x_mm, b.y_mm - o.y_mm) >= min(b.diameter_mm, o.diameter_mm) / 2
                        for o in found)
            if apart and _shows_learnt(b, again[side], plan, origin_px, view, _lab_of(learnt[side]), mat_lab):
                found.append(b)
    return found


def learnt_rims(plan: np.ndarray, origin_px: tuple[int, int], px_per_mm: float, found: Sequence[FoundBase],
                sides: dict[str, str], mat_lab: np.ndarray, masks: dict[str, np.ndarray]) -> dict[str, str]:
    """The sides whose rim a plan image (BGR) shows in a colour far from the set one: side -> colour seen.

    The colour seen (:func:`_rims_seen`) is kept when it stands at least :data:`LEARN_APART`
    from the set one and :data:`LEARN_MIN_MAT` from the mat's overall colour ``mat_lab``, and
    the side's mask by the set colour (``masks``) took less than :data:`LEARN_MAX_TAKEN` of the
    rim bands it was seen on (a rim found by its outline's few pixels of paint; where the set
    colour takes the rim already, a second look would only cost time).
    """
    out: dict[str, str] = {}
    for side, (lab, bases) in _rims_seen(plan, origin_px, px_per_mm, found, sides).items():
        rim = _lab_of(sides[side])
        wts = _weights(rim)
        if (float(np.linalg.norm((lab - rim) * wts)) < LEARN_APART
                or float(np.linalg.norm((lab - mat_lab) * wts)) < LEARN_MIN_MAT):
            continue
        bands = [_band(plan.shape, origin_px, px_per_mm, b) for b in bases]
        taken = [float(np.mean(masks[side][g[0]][g[1]] > 0)) for g in bands if g is not None]
        if taken and float(np.median(taken)) < LEARN_MAX_TAKEN:
            bgr = _bgr_of(lab)
            out[side] = f"#{int(bgr[2]):02x}{int(bgr[1]):02x}{int(bgr[0]):02x}"
    return out


def rims_in_frame(image: np.ndarray, view: PlanView, setup: Setup,
                  found: Sequence[FoundBase]) -> dict[str, tuple[float, float, float]]:
    """Each side's rim colour (BGR) as a frame shows it on the bases found in it (:func:`find_bases`);
    sides without a base found over most of its round are left out (:func:`_rims_seen`)."""
    seen = _rims_seen(view.warp(image), (0, 0), view.px_per_mm, found, dict(setup.bases.sides))
    return {side: tuple(float(v) for v in _bgr_of(lab)) for side, (lab, _) in seen.items()}  # type: ignore[misc]


def _bgr_of(lab: np.ndarray) -> np.ndarray:
    return np.asarray(cv2.cvtColor(np.rint(lab).astype(np.uint8).reshape(1, 1, 3), cv2.COLOR_LAB2BGR)[0, 0])


def _rims_seen(plan: np.ndarray, origin_px: tuple[int, int], px_per_mm: float, found: Sequence[FoundBase],
               sides: dict[str, str]) -> dict[str, tuple[np.ndarray, list[FoundBase]]]:
    """Each coloured side's rim as a plan image (BGR) shows it: side -> (Lab, the bases it is seen on).

    The median, over the bases found by the side's colour over most of their round
    (:data:`STRONG_FIT_ARC_DEG`, :data:`STRONG_FIT_FRACTION`), of each one's colour in the band
    :data:`LEARN_BAND_MM` inside its outline; a base whose band is of another hue than the set
    colour's (:data:`LEARN_HUE_DEG`) or grey is left out (a model's marker on its base). Only
    coloured sides are seen so.
    """
    strong = [b for b in found if b.arc_deg >= STRONG_FIT_ARC_DEG and b.inlier_fraction >= STRONG_FIT_FRACTION]
    out: dict[str, tuple[np.ndarray, list[FoundBase]]] = {}
    for side, colour in sides.items():
        if _is_achromatic(colour):
            continue
        rim = _lab_of(colour)
        seen = [(c, b) for b in strong if b.side == side
                and (c := _band_colour(plan, origin_px, px_per_mm, b)) is not None and _same_hue(c, rim)]
        if seen:
            out[side] = (np.median(np.array([c for c, _ in seen]), axis=0).astype(np.float32), [b for _, b in seen])
    return out


def _shows_learnt(base: FoundBase, mask: np.ndarray, plan: np.ndarray, origin_px: tuple[int, int], view: PlanView,
                  learnt: np.ndarray, mat_lab: np.ndarray) -> bool:
    """Whether a circle found by a side's learnt colour is a rim of it, not a patch of a mottled mat:
    its band (:func:`_band_colour`) nearer the learnt colour than the mat's, and the ring showing
    in :data:`LEARNT_MIN_SUPPORT` of the directions with nothing of the colour outside beyond
    :data:`MAX_PIECES_OUTSIDE`."""
    band = _band_colour(plan, origin_px, view.px_per_mm, base)
    if band is None:
        return False
    wts = _weights(learnt)
    if float(np.linalg.norm((band - learnt) * wts)) >= float(np.linalg.norm((band - mat_lab) * wts)):
        return False
    support, outside = ring_support(mask, origin_px, view, base)
    return support >= LEARNT_MIN_SUPPORT and outside <= MAX_PIECES_OUTSIDE


def _band(shape: tuple[int, ...], origin_px: tuple[int, int], s: float,
          base: FoundBase) -> tuple[tuple[slice, slice], np.ndarray] | None:
    """The band :data:`LEARN_BAND_MM` inside a base's outline in a plan image (or crop) of ``shape``:
    (window, pixels of the window in the band); None with fewer than :data:`LEARN_MIN_PIXELS`."""
    r = base.diameter_mm / 2
    h, w = shape[:2]
    ox, oy = origin_px
    x0, y0 = max(0, int(math.floor((base.x_mm - r) * s)) - ox), max(0, int(math.floor((base.y_mm - r) * s)) - oy)
    x1, y1 = min(w, int(math.ceil((base.x_mm + r) * s)) + 1 - ox), min(h, int(math.ceil((base.y_mm + r) * s)) + 1 - oy)
    if x1 <= x0 or y1 <= y0:
        return None
    ys, xs = np.mgrid[y0:y1, x0:x1]
    rho = np.hypot((xs + ox) / s - base.x_mm, (ys + oy) / s - base.y_mm)
    band = (rho >= r - LEARN_BAND_MM) & (rho <= r)
    if int(band.sum()) < LEARN_MIN_PIXELS:
        return None
    return (slice(y0, y1), slice(x0, x1)), band


def _band_colour(plan: np.ndarray, origin_px: tuple[int, int], s: float, base: FoundBase) -> np.ndarray | None:
    """The median Lab colour (8-bit) of a base's band (:func:`_band`) in a plan image (BGR), None if too few pixels."""
    got = _band(plan.shape, origin_px, s, base)
    if got is None:
        return None
    window, band = got
    lab = _converted(plan[window][band], cv2.COLOR_BGR2LAB)
    return np.asarray(np.median(lab, axis=0), dtype=np.float32)


def _same_hue(lab: np.ndarray, rim: np.ndarray) -> bool:
    """Whether a colour seen (Lab, 8-bit) is coloured and of the rim colour's hue (:data:`LEARN_HUE_DEG`)."""
    a, b = float(lab[1]) - 128.0, float(lab[2]) - 128.0
    if math.hypot(a, b) < ACHROMATIC_CHROMA:
        return False
    turn = math.degrees(math.atan2(b, a) - math.atan2(float(rim[2]) - 128.0, float(rim[1]) - 128.0))
    return abs((turn + 180.0) % 360.0 - 180.0) <= LEARN_HUE_DEG


class _PlanFit:
    """Circles fitted to a side's mask of one plan image (or crop): :func:`_bases_in_plan`'s work per mask."""

    def __init__(self, plan: np.ndarray, origin_px: tuple[int, int], view: PlanView, setup: Setup,
                 rng: np.random.Generator, core_mm: tuple[float, float, float, float] | None,
                 reach_mm: float) -> None:
        self.plan, self.origin_px, self.view, self.rng = plan, origin_px, view, rng
        self.allowed = setup.bases.diameters_mm
        s = view.px_per_mm
        self.core_px = None if core_mm is None else tuple(
            v * s for v in (core_mm[0] - reach_mm, core_mm[1] - reach_mm, core_mm[2] + reach_mm, core_mm[3] + reach_mm))

    def circles(self, mask: np.ndarray, side: str, known_mm: np.ndarray | None,
                known_pad_mm: float) -> list[FoundBase]:
        """The circles of one side's mask, pieces lying wholly within a known base left out."""
        view, plan, rng, allowed = self.view, self.plan, self.rng, self.allowed
        s = view.px_per_mm
        min_d, max_d = min(allowed), max(allowed)
        ox, oy = self.origin_px
        found: list[FoundBase] = []
        # pieces of one rim cut apart by a marker or a figure are grouped before fitting
        gap = max(3, int(round(MERGE_GAP_MM * s)) | 1)
        grouped = cv2.dilate(mask, _disc(gap))
        n, labels, stats, _ = regions(grouped)
        spare: list[tuple[np.ndarray, np.ndarray]] = []     # pieces no circle was fitted to: (points, bbox)
        # the pieces too short to be fitted, and those out of the core's reach, left out at once
        # (a blurred, mottled mat leaves hundreds of specks in a tile's mask)
        xs, ys, ws, hs = (stats[1:n, c].astype(np.int64) for c in range(4))
        keep = np.maximum(ws, hs) >= SPARE_MIN_EXTENT * min_d * s
        if self.core_px is not None:
            cx0, cy0, cx1, cy1 = self.core_px
            keep &= ~((xs + ox > cx1) | (xs + ws + ox < cx0) | (ys + oy > cy1) | (ys + hs + oy < cy0))
        for k in (np.flatnonzero(keep) + 1).tolist():
            x, y, w, h, area = (int(v) for v in stats[k])
            pad = 2
            x0, y0 = max(0, x - pad), max(0, y - pad)
            window = (slice(y0, y + h + pad), slice(x0, x + w + pad))
            sub = np.where(labels[window] == k, mask[window], 0).astype(np.uint8)
            count = cv2.countNonZero(sub)
            if count < SPARE_MIN_SHARE * math.pi * min_d * s:
                continue
            if known_mm is not None and len(known_mm) and _known_only(
                    sub, (x0 + ox, y0 + oy), s, known_mm, known_pad_mm,
                    min_extent_px=SPARE_MIN_EXTENT * min_d * s - (gap - 1),
                    min_count=SPARE_MIN_SHARE * math.pi * min_d * s):
                continue
            contours, _ = cv2.findContours(sub, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
            pts = (np.concatenate([c.reshape(-1, 2) for c in contours]).astype(float) + (x0 + ox, y0 + oy)) / s
            circles = []
            if max(w, h) >= 0.6 * min_d * s and count >= 0.15 * math.pi * min_d * s:
                big = len(pts) > BIG_BLOB_LENIENT * math.pi * max_d * s
                for c in _circles_in(pts, view, side, allowed, rng, max_d, halo=True):
                    widened = c.fitted_diameter_mm - c.diameter_mm > SNAP_TOLERANCE_MM
                    kept = c if not widened and _is_ring(mask, (ox, oy), view, c, plan_bgr=plan, lenient=big) \
                        else _smaller_in_halo(mask, (ox, oy), view, c, plan, allowed)
                    if kept is not None:
                        circles.append(kept)
            found += circles
            if not circles:
                spare.append((pts, np.array([x + ox, y + oy, x + w + ox, y + h + oy], float) / s))
        found += _circles_of_pieces(spare, mask, (ox, oy), view, side, allowed, rng, max_d, found)
        return found


def _smaller_in_halo(mask: np.ndarray, origin_px: tuple[int, int], view: PlanView, base: FoundBase,
                     plan_bgr: np.ndarray, allowed: Sequence[float]) -> FoundBase | None:
    """A strong fit refused as a ring, seen again as a smaller base whose rim the blur widened.

    A bright rim (orange, yellow) blurred into a dark mat, its colour spread further by the
    JPEG, reaches the mask up to :data:`HALO_GROWTH_MM` wider than the base: the fitted circle
    snaps to the next size up, where the colour does not end. Each smaller allowed size, the
    largest first, is centred on the ring's inner edge (the halo and the wall's crescent lie
    outside it) and kept when the ring shows in :data:`HALO_MIN_SUPPORT` of the directions,
    counting as outside only the colour the rim shows (:func:`ring_support` with the plan), and
    the inside is not the rim's colour (a die, a token, a paper disc).
    """
    if base.arc_deg < STRONG_FIT_ARC_DEG or base.inlier_fraction < STRONG_FIT_FRACTION:
        return None
    top = min(base.diameter_mm, base.fitted_diameter_mm)
    sizes = sorted((float(d) for d in allowed if base.fitted_diameter_mm - HALO_GROWTH_MM <= d <= top), reverse=True)
    for d in sizes:
        centre = _inner_edge_centre(mask, origin_px, view.px_per_mm, np.array([base.x_mm, base.y_mm]), d / 2)
        if centre is None:
            continue
        c = FoundBase(float(centre[0]), float(centre[1]), d, base.side, base.fitted_diameter_mm,
                      base.inlier_fraction, base.arc_deg)
        support, outside = ring_support(mask, origin_px, view, c, plan_bgr)
        if (support >= HALO_MIN_SUPPORT and outside <= MAX_PIECES_OUTSIDE
                and filled_roundness(mask, origin_px, view, c)[0] < FILLED_SHARE):
            return c
    return None


def _inner_edge_centre(mask: np.ndarray, origin_px: tuple[int, int], s: float, centre: np.ndarray,
                       r: float) -> np.ndarray | None:
    """The centre of the circle through a ring's inner edge: along each direction from ``centre``,
    the first mask pixel between 0.3 of radius ``r`` and just beyond it, where it lies within
    :data:`HALO_GROWTH_MM` inside the outline; None when too few directions show it."""
    u = _RING_DIRECTIONS
    radii = np.arange(0.3 * r, r + 1.0, 0.25)
    _, val, inside = _ring_samples(mask, origin_px, s, centre, radii)
    first = radii[np.argmax(val, axis=1)]
    keep = val.any(axis=1) & inside.all(axis=1) & (first >= r - HALO_GROWTH_MM) & (first <= r + 0.5)
    if keep.mean() < HALO_MIN_INNER_SHARE:
        return None
    return fit_circle(centre + first[keep, None] * u[keep])[:2]


def _circles_of_pieces(spare: list[tuple[np.ndarray, np.ndarray]], mask: np.ndarray, origin_px: tuple[int, int],
                       view: PlanView, side: str, allowed: Sequence[float], rng: np.random.Generator,
                       max_d: float, found: list[FoundBase]) -> list[FoundBase]:
    """Circles through several pieces of rim that no circle was fitted to one by one.

    A thin rim blurred into the mat, or cut by a figure, a shadow or the glare, reaches the
    mask as two or three arcs too far apart to be grouped, each too short to be fitted
    alone. Pieces whose joint extent fits one base (the largest size, plus the wall's
    parallax) are fitted together; the circle must show the ring (:func:`_is_ring`, with
    :data:`MIN_PIECES_RING_SUPPORT`, nothing of the colour outside it beyond
    :data:`MAX_PIECES_OUTSIDE`) and its inliers must come from at least two pieces.
    """
    if len(spare) < 2:
        return []
    out: list[FoundBase] = []
    span = max_d + 2 * SNAP_TOLERANCE_MM
    order = sorted(range(len(spare)), key=lambda i: -len(spare[i][0]))
    boxes = np.array([b for _, b in spare])
    centres = (boxes[:, :2] + boxes[:, 2:]) / 2
    used: set[int] = set()
    for i in order:
        if i in used:
            continue
        box = spare[i][1].copy()
        group = [i]
        dist = np.hypot(*(centres - centres[i]).T)
        for j in np.argsort(dist, kind="stable").tolist():
            if dist[j] > span:
                break
            if j in used or j in group:
                continue
            joint = np.concatenate([np.minimum(box[:2], spare[j][1][:2]), np.maximum(box[2:], spare[j][1][2:])])
            if (joint[2:] - joint[:2]).max() <= span:
                box = joint
                group.append(j)
        if len(group) < 2:
            continue
        pts = np.concatenate([spare[j][0] for j in group])
        piece = np.concatenate([np.full(len(spare[j][0]), j) for j in group])
        for c in _circles_in(pts, view, side, allowed, rng, max_d):
            if any(math.hypot(c.x_mm - o.x_mm, c.y_mm - o.y_mm) < min(c.diameter_mm, o.diameter_mm) / 2
                   for o in found + out):
                continue
            near = np.abs(np.hypot(pts[:, 0] - c.x_mm, pts[:, 1] - c.y_mm) - c.diameter_mm / 2) <= 1.0
            if len(set(piece[near].tolist())) < 2:
                continue
            if _is_ring(mask, origin_px, view, c, min_support=MIN_PIECES_RING_SUPPORT, max_outside=MAX_PIECES_OUTSIDE):
                out.append(c)
                used.update(group)
    return out


def ring_support(mask: np.ndarray, origin_px: tuple[int, int], view: PlanView, base: FoundBase,
                 plan_bgr: np.ndarray | None = None) -> tuple[float, float]:
    """How much a found circle looks like a base's rim in a side's mask: (support, outside).

    Around :data:`RING_ANGLES` directions, the rim band just inside the outline
    (:data:`RING_INNER_MM`) should be rim colour and the band just outside it
    (:data:`RING_OUTER_MM`, beyond the wall's crescent too) should not. ``support`` is the
    share of directions where both hold (a figure or a hand hides some), ``outside`` the share
    where the outside is rim colour (paper, the table's border, a bigger patch of that colour).

    With the plan image (``plan_bgr``, the crop ``mask`` was made from), the outside counts
    only where it is the colour the rim itself shows in this frame (within
    :data:`OUTSIDE_SAME_DE`): a finger or a shadow the mask takes for a pale or orange rim is
    something over the base, not more of its colour around it.
    """
    s = view.px_per_mm
    r = base.diameter_mm / 2
    centre = np.array([base.x_mm, base.y_mm])
    shift = view.bottom_shift_mm(centre[None])[0]
    u = _RING_DIRECTIONS

    def hits(radii: Sequence[float]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        pts, val, inside = _ring_samples(mask, origin_px, s, centre, radii)
        beyond_wall = np.hypot(*(pts - centre - shift).transpose(2, 0, 1)) > r + 0.5
        return val, inside, beyond_wall

    inner, in_ok, _ = hits([r - d for d in RING_INNER_MM])
    outer, out_ok, beyond = hits([r + d for d in RING_OUTER_MM])
    valid = in_ok.all(axis=1) & out_ok.all(axis=1)
    if not valid.any():
        return 0.0, 1.0
    if plan_bgr is not None:
        outer = outer & _like_the_rim(plan_bgr, origin_px, s, centre, u, r, inner & in_ok, outer & out_ok)
    outer_hit = (outer & beyond).sum(axis=1) * 2 > beyond.sum(axis=1).clip(min=1)
    rim_hit = inner.any(axis=1)
    # where the outside band leaves the plan (the table's edge) the ring cannot be seen to end:
    # no support there (a mat's corner between the edge and a marker's sheet is not a rim)
    seen = in_ok.all(axis=1)
    support = float(np.sum((rim_hit & ~outer_hit)[valid]) / max(1, int(seen.sum())))
    outside = float(np.mean(outer_hit[valid]))
    return support, outside


def _ring_samples(mask: np.ndarray, origin_px: tuple[int, int], s: float, centre: np.ndarray,
                  radii: Sequence[float] | np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A mask sampled around ``centre`` (mm) along the :data:`RING_ANGLES` directions at ``radii`` (mm):
    the (A, R, 2) points (mm), whether each is in the mask, and whether it lies in the mask's image."""
    pts = centre[None, None] + np.asarray(radii)[None, :, None] * _RING_DIRECTIONS[:, None, :]
    px = np.rint(pts * s - origin_px).astype(int)
    h, w = mask.shape
    inside = (px[..., 0] >= 0) & (px[..., 0] < w) & (px[..., 1] >= 0) & (px[..., 1] < h)
    val = np.zeros(inside.shape, bool)
    val[inside] = mask[px[..., 1][inside], px[..., 0][inside]] > 0
    return pts, val, inside


def _like_the_rim(plan_bgr: np.ndarray, origin_px: tuple[int, int], s: float, centre: np.ndarray, u: np.ndarray,
                  r: float, inner: np.ndarray, outer: np.ndarray) -> np.ndarray:
    """(A, R) whether each outer sample taken for rim colour is the colour the rim shows inside."""
    out = np.ones(outer.shape, bool)
    if inner.sum() < 3 or not outer.any():
        return out

    def lab_at(radii: Sequence[float], keep: np.ndarray) -> np.ndarray:
        pts = centre[None, None] + np.asarray(radii)[None, :, None] * u[:, None, :]
        px = np.rint(pts * s - origin_px).astype(int)[keep]
        return np.asarray(_converted(plan_bgr[px[:, 1], px[:, 0]], cv2.COLOR_BGR2LAB), dtype=np.float32)

    seen = np.median(lab_at([r - d for d in RING_INNER_MM], inner), axis=0)
    far = np.sqrt((((lab_at([r + d for d in RING_OUTER_MM], outer) - seen) * _weights(seen)) ** 2).sum(axis=1))
    out[outer] = far <= OUTSIDE_SAME_DE
    return out


def filled_roundness(mask: np.ndarray, origin_px: tuple[int, int], view: PlanView, base: FoundBase
                     ) -> tuple[float, float]:
    """For a circle whose inside is the rim colour too: (filled share, roundness).

    ``filled`` is the share of the inside (0.2 to 0.6 of the radius) in the mask; ``roundness``
    the share of directions where the mask's outermost pixel (within 3 mm beyond the outline)
    lies on the base's outline: within :data:`ROUND_TOLERANCE_MM` of the top circle, or between
    it and the bottom circle the wall's parallax shifts (the wall seen from the side); where the
    colour's own outline was fitted wider than the base (a blurred rim's colour spreads a pixel
    or two beyond it: ``fitted_diameter_mm``), that band moves out by as much, at most as far as
    the colour ends in most directions, unless the inside is uniformly the colour
    (:data:`FLAT_FILLED_SHARE`: nothing stands on it, as on a die). A die or
    a token of the rim's colour is filled but square or many-sided; a plain plastic base of one
    colour, or a flock top near the rim's colour, is filled and round (a hole in the texture or
    a figure's shadow inside does not matter: only where the colour ends outwards counts).
    """
    s = view.px_per_mm
    r = base.diameter_mm / 2
    centre = np.array([base.x_mm, base.y_mm])
    shift = view.bottom_shift_mm(centre[None])[0]
    u = _RING_DIRECTIONS
    radii = np.arange(0.2 * r, r + 3.0, 0.25)
    _, val, _ = _ring_samples(mask, origin_px, s, centre, radii)
    core = radii <= 0.6 * r
    filled = float(val[:, core].mean())
    # the outermost mask pixel along each direction
    last = len(radii) - 1 - np.argmax(val[:, ::-1], axis=1)
    edge = np.where(val.any(axis=1), radii[last], 0.0)
    # where the bottom circle (shifted by the parallax) crosses each direction
    us = u @ shift
    bottom = us + np.sqrt(np.maximum(r * r - float(shift @ shift) + us * us, 0.0))
    # a blurred rim's colour ends beyond the base, where its fitted outline is: the band moves out
    # by as much, as far as the colour mostly ends; not for a uniformly filled disc (a die's face,
    # blurred, ends on a circle somewhat wider than a small base often enough)
    grown = min(max(base.fitted_diameter_mm - base.diameter_mm, 0.0), SNAP_TOLERANCE_MM) / 2
    out = min(max(float(np.median(edge)) - r, 0.0), grown) if filled < FLAT_FILLED_SHARE else 0.0
    lo, hi = r - ROUND_TOLERANCE_MM + out, np.maximum(r, bottom) + ROUND_TOLERANCE_MM + out
    roundness = float(np.mean((edge >= lo) & (edge <= hi)))
    return filled, roundness


def _is_ring(mask: np.ndarray, origin_px: tuple[int, int], view: PlanView, base: FoundBase, *,
             min_support: float = 0.0, max_outside: float = MAX_RING_OUTSIDE,
             plan_bgr: np.ndarray | None = None, lenient: bool = False) -> bool:
    """Whether a fitted circle is a base's rim in a side's mask.

    The ring shows around it (:func:`ring_support`). A circle whose inside is the rim colour
    too (a plain top of that colour, a flock near it, or a die, a token, a paper disc) must
    also be round (:func:`filled_roundness`): strictly when the inside is uniformly the
    colour (nothing stands on it: a flat disc or a die's face), less strictly when something
    breaks it (a figure standing on the base, its shadow, a flock's texture), as the figure
    on top is what a die or a paper disc lacks.

    With the plan image (``plan_bgr``), a circle with too much of its colour outside is
    looked at again counting only the outside of the colour its rim shows (a finger over
    the base is not more rim); a circle that passes only so, or one fitted in a blob far
    longer than a base (``lenient``: a base touching a hand), must end on its outline in
    :data:`LENIENT_MIN_ROUNDNESS` of the directions (a fingertip or a finger's edge does not).
    """
    need = min_support or MIN_RING_SUPPORT

    def ring_of(support: float, outside: float) -> bool:
        ring = support >= need and outside <= max_outside
        if not ring and base.arc_deg >= STRONG_FIT_ARC_DEG and base.inlier_fraction >= STRONG_FIT_FRACTION:
            # a rim traced over most of its round: a ring of the colour, even when only a pixel
            # or two wide (the ring test samples it too coarsely then), if nothing of it is outside
            ring = support >= STRONG_FIT_RING_SUPPORT and outside <= MAX_PIECES_OUTSIDE
            if ring:
                # ... and the colour ends on the outline often enough (not a blotch the arc crosses)
                ring = filled_roundness(mask, origin_px, view, base)[1] >= STRONG_FIT_ROUNDNESS
        return ring

    ring = ring_of(*ring_support(mask, origin_px, view, base))
    if not ring and plan_bgr is not None:
        ring = lenient = ring_of(*ring_support(mask, origin_px, view, base, plan_bgr))
    if not ring:
        return False
    filled, roundness = filled_roundness(mask, origin_px, view, base)
    if lenient and roundness < LENIENT_MIN_ROUNDNESS:
        return False
    if filled >= FLAT_FILLED_SHARE:
        return roundness >= MIN_FLAT_ROUNDNESS
    return filled < FILLED_SHARE or roundness >= MIN_FILLED_ROUNDNESS


def _known_only(sub: np.ndarray, origin_px: tuple[int, int], s: float, known_mm: np.ndarray,
                pad_mm: float, *, min_extent_px: float, min_count: float) -> bool:
    """Whether a piece of rim is known bases' only: its pixels farther than ``pad_mm`` beyond every
    known base's outline would not make a piece by themselves (fewer than ``min_count``, or
    spanning less than ``min_extent_px`` px, the thresholds a piece is fitted from).

    A known base whose rim the blur, a figure's paint or the wall's crescent spreads a little
    beyond its outline is not fitted again (its circle was that model's or that followed base's);
    a new base touching a known one leaves most of its rim outside it (three quarters of it at
    least, for the smallest base beside the largest pad), and is fitted.
    """
    ys, xs = np.nonzero(sub)
    pts = (np.column_stack([xs, ys]).astype(float) + origin_px) / s
    lo, hi = pts.min(axis=0), pts.max(axis=0)
    left = np.ones(len(pts), bool)
    for x, y, d in known_mm:
        r = d / 2 + pad_mm
        if hi[0] < x - r or hi[1] < y - r or lo[0] > x + r or lo[1] > y + r:
            continue
        left &= np.hypot(pts[:, 0] - x, pts[:, 1] - y) > r
    if left.all():
        return False
    rest = pts[left]
    if len(rest) < min_count:
        return True
    return float((rest.max(axis=0) - rest.min(axis=0)).max()) * s + 1.0 < min_extent_px


def _residuals(pts: np.ndarray, cx: np.ndarray, cy: np.ndarray, r: np.ndarray, shift: np.ndarray) -> np.ndarray:
    """(K, M) distance of each point to the nearer of the top circle and the shifted bottom circle."""
    return _top_and_residuals(pts, cx, cy, r, shift)[1]


def _top_and_residuals(pts: np.ndarray, cx: np.ndarray, cy: np.ndarray, r: np.ndarray,
                       shift: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(K, M) distance of each point to the top circle, and :func:`_residuals`."""
    dx = pts[None, :, 0] - cx[:, None]
    dy = pts[None, :, 1] - cy[:, None]
    top = np.abs(np.hypot(dx, dy) - r[:, None])
    # in place: the same values as (pts - c) - shift, without new arrays
    dx -= shift[0]
    dy -= shift[1]
    bottom = np.hypot(dx, dy, out=dx)
    bottom -= r[:, None]
    np.abs(bottom, out=bottom)
    return top, np.asarray(np.minimum(top, bottom, out=bottom), dtype=float)


def _circles_in(pts: np.ndarray, view: PlanView, side: str, allowed: Sequence[float],
                rng: np.random.Generator, max_d: float, *, halo: bool = False) -> list[FoundBase]:
    """Extract circles from one blob's edge points, strongest first, until none is good enough.

    With ``halo``, when no hypothesis refines to an allowed size, the first whose free circle is
    up to :data:`HALO_GROWTH_MM` wider than an allowed size (a bright rim's blur and the wall's
    crescent widen the colour) is kept at the largest such size, for :func:`_smaller_in_halo`
    to look at if it is not a ring as it stands.
    """
    out: list[FoundBase] = []
    remaining = pts
    min_r, max_r = min(allowed) / 2 - SNAP_TOLERANCE_MM, max(allowed) / 2 + SNAP_TOLERANCE_MM
    most = 6
    while len(out) < most:
        if len(remaining) < 12:
            break
        shift = view.bottom_shift_mm(remaining.mean(axis=0, keepdims=True))[0]
        # a blob much longer than a base's outline (a base touching a hand or a patch of its
        # colour): more hypotheses, half of them from points close along the contour, and
        # more points to score them, or the base's arc is drowned in the rest
        round_px = math.pi * 2 * max_r * view.px_per_mm
        scale = float(np.clip(len(remaining) / round_px, 1.0, BIG_BLOB_MAX_SCALE))
        if not out:
            most = int(6 * math.ceil(scale))
        iterations = int(RANSAC_ITERATIONS * scale)
        idx = rng.integers(0, len(remaining), size=(iterations, 3))
        if scale > 1.5:
            local = idx[iterations // 2:]
            reach = max(2, int(round_px / 2))
            local[:, 1:] = (local[:, :1] + rng.integers(1, reach, size=(len(local), 2))) % len(remaining)
        circles = _circumcircles(remaining[idx])
        ok = np.isfinite(circles).all(axis=1) & (circles[:, 2] >= min_r) & (circles[:, 2] <= max_r)
        if not ok.any():
            break
        circles = circles[ok]
        step = max(1, int(len(remaining) / (RANSAC_SCORE_POINTS * scale)))
        res = _residuals(remaining[::step], circles[:, 0], circles[:, 1], circles[:, 2], shift)
        score = (res <= INLIER_TOLERANCE_MM).sum(axis=1)
        # the best hypotheses in turn: the very best may be a circle through a figure's edge
        # or a patch of the mat that refines to no allowed size
        accepted = widened = None
        for k in np.argsort(-score, kind="stable")[:int(RANSAC_TRIES * scale)].tolist():
            fit = _refine(remaining, circles[k], shift, allowed, CONTOUR_INSET_PX / view.px_per_mm, halo=halo)
            if fit is None:
                continue
            cx, cy, diameter, fitted, inliers = fit
            arc = _arc_deg(remaining[inliers], cx, cy)
            if diameter < fitted - SNAP_TOLERANCE_MM:
                # a free circle wider than every allowed size: kept only if no hypothesis refines
                fraction = inliers.sum() / (math.pi * fitted * view.px_per_mm)
                if widened is None and fraction >= STRONG_FIT_FRACTION and arc >= STRONG_FIT_ARC_DEG:
                    widened = FoundBase(float(cx), float(cy), diameter, side, float(fitted), float(fraction),
                                        float(arc))
                continue
            fraction = inliers.sum() / (math.pi * diameter * view.px_per_mm)
            if fraction >= MIN_INLIER_FRACTION and arc >= MIN_ARC_DEG:
                accepted = FoundBase(float(cx), float(cy), diameter, side, float(fitted), float(fraction), float(arc))
                break
        if accepted is None:
            # the blob's last circle (no more hypotheses drawn: the sampler's later draws, and so
            # every other blob's fit, stay as they were)
            if widened is not None:
                out.append(widened)
            break
        out.append(accepted)
        cx, cy, diameter = accepted.x_mm, accepted.y_mm, accepted.diameter_mm
        # drop this base's points (its whole disc and wall) before looking for the next one
        d = np.minimum(np.hypot(remaining[:, 0] - cx, remaining[:, 1] - cy),
                       np.hypot(remaining[:, 0] - cx - shift[0], remaining[:, 1] - cy - shift[1]))
        remaining = remaining[d > diameter / 2 + 2 * INLIER_TOLERANCE_MM]
    return out


def _circumcircles(tri: np.ndarray) -> np.ndarray:
    """(K, 3, 2) point triples -> (K, 3) circles (cx, cy, r); NaN for collinear triples."""
    a, b, c = tri[:, 0], tri[:, 1], tri[:, 2]
    d = 2 * (a[:, 0] * (b[:, 1] - c[:, 1]) + b[:, 0] * (c[:, 1] - a[:, 1]) + c[:, 0] * (a[:, 1] - b[:, 1]))
    a2, b2, c2 = (a ** 2).sum(1), (b ** 2).sum(1), (c ** 2).sum(1)
    with np.errstate(divide="ignore", invalid="ignore"):
        ux = (a2 * (b[:, 1] - c[:, 1]) + b2 * (c[:, 1] - a[:, 1]) + c2 * (a[:, 1] - b[:, 1])) / d
        uy = (a2 * (c[:, 0] - b[:, 0]) + b2 * (a[:, 0] - c[:, 0]) + c2 * (b[:, 0] - a[:, 0])) / d
    r = np.hypot(a[:, 0] - ux, a[:, 1] - uy)
    return np.column_stack([ux, uy, r])


def _refine(pts: np.ndarray, circle: np.ndarray, shift: np.ndarray, allowed: Sequence[float],
            inset_mm: float, *, halo: bool = False) -> tuple[float, float, float, float, np.ndarray] | None:
    cx, cy, r = circle
    moved = pts - shift          # (the points as on the bottom circle, the same in every band)
    for band in REFINE_BANDS:
        tops, residuals = _top_and_residuals(pts, np.array([cx]), np.array([cy]), np.array([r]), shift)
        top, res = tops[0], residuals[0]
        inl = res <= INLIER_TOLERANCE_MM * band
        if inl.sum() < 8:
            return None
        # each inlier belongs to the top circle or to the bottom one: move the latter back
        on_top = top <= res + 1e-9
        p = np.where(on_top[:, None], pts, moved)[inl]
        cx, cy, r = fit_circle(p)
    fitted = 2 * (r + inset_mm)
    # every allowed size near the fitted one is tried: the one the most edge points lie on wins
    # (a thin rim blurred by a pixel at 1 px/mm reads a millimetre or two wider than it is)
    sizes = sorted((float(d) for d in allowed if abs(d - fitted) <= SNAP_TOLERANCE_MM), key=lambda d: abs(d - fitted))
    best: tuple[float, float, float, float, np.ndarray] | None = None
    tol = INLIER_TOLERANCE_MM * 1.5
    below = [float(d) for d in allowed if fitted - HALO_GROWTH_MM <= d < fitted]
    if halo and not sizes and below:
        # no allowed size near: the free circle, at the largest size it may be a widened rim of
        inl = _residuals(pts, np.array([cx]), np.array([cy]), np.array([r]), shift)[0] <= tol
        return float(cx), float(cy), max(below), fitted, inl
    for snapped in sizes:
        radius = snapped / 2 - inset_mm
        sx, sy = fit_centre_fixed_radius(p, np.array([cx, cy]), radius)
        inl = _residuals(pts, np.array([sx]), np.array([sy]), np.array([radius]), shift)[0] <= tol
        if best is None or int(inl.sum()) > int(best[4].sum()):
            best = (float(sx), float(sy), snapped, fitted, inl)
    if best is not None:
        # the free circle's centre when far more points lie on it (a whole ring whose outline
        # the blur moved outwards: the size is the allowed one, the centre is the free fit's)
        inl = _residuals(pts, np.array([cx]), np.array([cy]), np.array([r]), shift)[0] <= tol
        if int(inl.sum()) > FREE_FIT_GAIN * int(best[4].sum()):
            # its outline lies outside the rim's (blur widens the colour): the largest size not beyond it
            below = [d for d in sizes if d <= fitted + INLIER_TOLERANCE_MM]
            best = (float(cx), float(cy), max(below) if below else best[2], fitted, inl)
    return best


def _arc_deg(pts: np.ndarray, cx: float, cy: float) -> float:
    """Angular extent covered by points around a centre (360 minus the largest gap)."""
    if len(pts) < 2:
        return 0.0
    ang = np.sort(np.degrees(np.arctan2(pts[:, 1] - cy, pts[:, 0] - cx)))
    gaps = np.diff(np.concatenate([ang, ang[:1] + 360.0]))
    return float(360.0 - gaps.max())


def confirm_bases(image: np.ndarray, view: PlanView, setup: Setup,
                  known: Sequence[tuple[float, float, float, str]]) -> list[FoundBase | None]:
    """Look again, more leniently, for bases known from earlier frames where they stood.

    A base followed over frames and not found by the search (:func:`find_bases_in`) this
    time may be partly covered (a hand reaching over it, a neighbour's figure leaning on it)
    or blurred. Knowing its size, side and place, less of its rim is enough: the rim's edge
    points near its outline (within :data:`CONFIRM_SHIFT_MM` of it) fix its centre, its size
    fixed, and the circle must still show the ring (:func:`ring_support`) in
    :data:`CONFIRM_MIN_SUPPORT` of the directions, nothing of the rim's colour outside it
    and, filled with that colour, be round (:func:`_is_ring`). A base lifted leaves no ring
    there; a hand or a sheet over all of it shows none either.

    Parameters
    ----------
    image, view, setup
        As for :func:`find_bases`.
    known : sequence of (x, y, diameter, side)
        The bases to confirm, table mm.

    Returns
    -------
    list of FoundBase or None
        For each known base, its circle fitted again (None: not confirmed).
    """
    s = view.px_per_mm
    out: list[FoundBase | None] = []
    wp, hp = view.size_px
    sides = dict(setup.bases.sides)
    overall = None
    for x, y, diameter, side in known:
        if side not in sides:
            out.append(None)
            continue
        r = diameter / 2
        shift = view.bottom_shift_mm(np.array([[x, y]]))[0]
        reach = r + float(np.hypot(*shift)) + max(RING_OUTER_MM) + CONFIRM_SHIFT_MM + 1.0
        px0, py0 = max(0, int(math.floor((x - reach) * s))), max(0, int(math.floor((y - reach) * s)))
        px1, py1 = min(wp, int(math.ceil((x + reach) * s)) + 1), min(hp, int(math.ceil((y + reach) * s)) + 1)
        if px1 - px0 < 3 or py1 - py0 < 3:
            out.append(None)
            continue
        crop = view.warp(image, (px0, py0, px1 - px0, py1 - py0), fixed_point=True)
        mat = mat_colour(image, view, setup, (px0 / s, py0 / s, px1 / s, py1 / s), overall=overall)
        overall = mat.overall
        mask = side_masks(crop, sides, mat, origin_px=(px0, py0), px_per_mm=s)[side]
        out.append(_confirmed(mask, crop, (px0, py0), view, x, y, float(diameter), side, shift))
    return out


def _confirmed(mask: np.ndarray, crop: np.ndarray, origin_px: tuple[int, int], view: PlanView, x: float, y: float,
               diameter: float, side: str, shift: np.ndarray) -> FoundBase | None:
    """The known circle refitted on a side's mask near where it was (:func:`confirm_bases`)."""
    s = view.px_per_mm
    contours, _ = cv2.findContours(mask, cv2.RETR_LIST, cv2.CHAIN_APPROX_NONE)
    if not contours:
        return None
    pts = (np.concatenate([c.reshape(-1, 2) for c in contours]).astype(float) + origin_px) / s
    inset = CONTOUR_INSET_PX / s
    radius = diameter / 2 - inset
    centre = np.array([x, y])
    for band in (CONFIRM_SHIFT_MM + INLIER_TOLERANCE_MM, 2.5 * INLIER_TOLERANCE_MM, 1.5 * INLIER_TOLERANCE_MM):
        res = _residuals(pts, centre[:1], centre[1:], np.array([radius]), shift)[0]
        inl = res <= band
        if inl.sum() < 8:
            return None
        on_top = np.abs(np.hypot(pts[:, 0] - centre[0], pts[:, 1] - centre[1]) - radius) <= res + 1e-9
        centre = fit_centre_fixed_radius(np.where(on_top[:, None], pts, pts - shift)[inl], centre, radius)
    if math.hypot(centre[0] - x, centre[1] - y) > CONFIRM_SHIFT_MM:
        return None
    inl = _residuals(pts, centre[:1], centre[1:], np.array([radius]), shift)[0] <= 1.5 * INLIER_TOLERANCE_MM
    fraction = float(inl.sum()) / (math.pi * diameter * s)
    base = FoundBase(float(centre[0]), float(centre[1]), diameter, side, diameter, fraction,
                     _arc_deg(pts[inl], float(centre[0]), float(centre[1])))
    if not _is_ring(mask, origin_px, view, base, min_support=CONFIRM_MIN_SUPPORT, plan_bgr=crop):
        return None
    return base
