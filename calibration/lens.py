"""The lens from the markers on the table: focal length and radial distortion without a board.

Without a camera file the lens is unknown. The markers already on the table are known
shapes on known planes: the four corner markers are 60 mm squares at known places on the
table top, and every base marker is a 12 mm square at the base height, at an unknown place
and angle. One frame with a dozen base markers spread over the image (or a few frames
while tracking) is enough to measure the lens: a small square's size and shape in the
image tell the local magnification, which a barrel lens shrinks toward the image edges.

:func:`fit_lens` is a bundle adjustment over

- the lens: focal length ``f`` (square pixels), radial distortion ``k1``, ``k2`` and, when
  enough markers support it, the principal point (``cx``, ``cy``, with a prior at the image
  centre);
- the table's pose in each frame (6 numbers);
- each base marker's position and angle on its plane (3 numbers per marker and frame),

minimising the reprojection error of every marker corner (Levenberg-Marquardt on numpy,
the marker unknowns eliminated by their Schur complement, Huber weights, markers that do
not fit rejected). It chooses the richest lens model the data determine (standard
deviation of k2 below :data:`MAX_K2_SD`, of k1 below :data:`MAX_K1_SD`) and returns the
estimate with its covariance, from which :meth:`LensFit.expected_error_mm` predicts the
position error across the table.

:class:`LensRefiner` accumulates frames while tracking and says when the lens has settled.

Examples
--------
A synthetic view of a 600 mm table with 16 base markers through a barrel lens:

>>> import numpy as np
>>> from calibration.setup import TableSize
>>> cam = CameraIntrinsics(np.array([[1000.0, 0, 639.5], [0, 1000.0, 359.5], [0, 0, 1]]),
...                        np.array([-0.2, 0.02, 0, 0, 0]), (1280, 720))
>>> obs = synthetic_observation(cam, TableSize(600.0, 600.0), rvec=(0.1, -0.05, 0.02),
...                             tvec=(-300.0, -290.0, 780.0), markers=16, seed=1)
>>> fit = fit_lens([obs], (1280, 720))
>>> abs(fit.intrinsics.focal_px / 1000.0 - 1) < 0.03, abs(float(fit.intrinsics.distortion[0]) + 0.2) < 0.02
(True, True)
>>> centre_mm, edge_mm, rms_mm = expected_error_mm(fit, (600.0, 600.0))
>>> edge_mm < 0.05
True
"""

from __future__ import annotations

import logging
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import cv2
import numpy as np
from numpy.typing import ArrayLike, NDArray

from calibration.camera import CameraIntrinsics
from calibration.errors import CalibrationError

logger = logging.getLogger(__name__)

FloatArray = NDArray[np.float64]

MIN_BASE_MARKERS = 6
"""Fewest base markers (with the corner markers) from which the lens is estimated."""

MIN_EDGE_POINTS = 40
"""Points on the table's straight edges from which the lens is estimated without base markers."""

MAX_K1_SD = 0.03
"""Above this standard deviation of k1 the data cannot tell the distortion: k1 is not estimated."""

MAX_K2_SD = 0.05
"""Above this standard deviation of k2 the second distortion term is left at 0."""

MIN_MARKERS_FOR_CENTRE = 14
"""Base markers needed before the principal point is estimated (with a prior at the centre)."""

MIN_EDGE_POINTS_FOR_CENTRE = 100
"""...or points on the table's edges."""

CENTRE_PRIOR_FRACTION = 0.03
"""Prior standard deviation of the principal point, as a fraction of the image width."""

K_PRIOR_SD = (0.3, 0.1)
"""Weak priors on kappa1 and kappa2 (the distortion at the image corner, around 0), to keep a thin fit stable."""

MARKER_SCALE_PRIOR_SD = 0.03
"""Base markers are fitted with one common scale factor on their printed size (prior: 1 within 3 %): a
printer that scales the page, or corners found a fraction of a pixel outside or inside every marker,
would otherwise read as a camera height (the 3 mm between the markers and the table is all that tells
it in a view straight down)."""

FOCAL_PRIOR_FRACTION = 0.3
"""Weak prior on the focal length around the first guess: a view straight down cannot tell it."""

NOMINAL_CORNER_SD_PX = 0.3
"""Corner noise the priors are weighed against (px)."""

HUBER_PX = 1.5
"""Residuals above this many pixels are down-weighted (Huber)."""

EDGE_END_PX = 2.0
"""A side of the table's edge must meet the corner markers: near its ends, the edge points found lie
within this many pixels (plus :data:`EDGE_END_SLOPE` of their distance) of the line through the two
corners of the corner marker on that side. A border around the mat (a wooden frame, a cloth's hem)
is a straight line of the table plane too, a constant distance outside it, so the edge finder can
follow it instead and the lens fit would bend the lens to fit it; its ends miss the corner markers
by that distance."""

EDGE_END_SLOPE = 0.02
"""...per pixel from the corner marker: a strong barrel lens bends the edge away from the marker's line
by about this share of the distance within a quarter of the side."""

EDGE_END_REACH = 0.25
"""Only edge points within this share of the side from a corner marker are compared with its line."""

SETTLED_FOCAL_FRACTION = 0.005
"""The lens has settled when the focal length's standard deviation is below this fraction..."""

SETTLED_K1_SD = 0.01
"""...and k1's below this, and the last two estimates agree within these."""

_LENS_NAMES = ("f", "k1", "k2", "cx", "cy", "ms")
_LENS_STEPS = np.array([1e-3, 1e-6, 1e-6, 1e-3, 1e-3, 1e-7])
_POSE_STEPS = np.array([1e-7, 1e-7, 1e-7, 1e-4, 1e-4, 1e-4])
_MARKER_STEPS = np.array([1e-4, 1e-4, 1e-7])


@dataclass(frozen=True)
class MarkerSighting:
    """One square marker at an unknown place on a plane parallel to the table.

    ``corners_px`` are its four corners in the image in OpenCV's order; ``size_mm`` its
    printed side; ``height_mm`` the height of its plane above the table.
    """

    marker_id: int
    corners_px: FloatArray
    size_mm: float
    height_mm: float


@dataclass(frozen=True)
class LensObservation:
    """What one frame shows of known geometry: fixed points (the corner markers) and base markers.

    ``fixed_mm`` are table points (x, y, height) whose place is known, ``fixed_px`` where they
    are seen.
    """

    fixed_mm: FloatArray
    fixed_px: FloatArray
    markers: tuple[MarkerSighting, ...] = ()
    edge_mm: FloatArray = field(default_factory=lambda: np.zeros((0, 3)))
    edge_px: FloatArray = field(default_factory=lambda: np.zeros((0, 2)))
    edge_normal: FloatArray = field(default_factory=lambda: np.zeros((0, 2)))

    def __post_init__(self) -> None:
        for name, width in (("fixed_mm", 3), ("fixed_px", 2), ("edge_mm", 3), ("edge_px", 2), ("edge_normal", 2)):
            object.__setattr__(self, name, np.asarray(getattr(self, name), dtype=np.float64).reshape(-1, width))
        if len(self.fixed_mm) != len(self.fixed_px):
            raise CalibrationError("fixed_mm and fixed_px must hold the same number of points")
        if not len(self.edge_mm) == len(self.edge_px) == len(self.edge_normal):
            raise CalibrationError("edge_mm, edge_px and edge_normal must hold the same number of points")

    def with_edges(self, edge_mm: FloatArray, edge_px: FloatArray, edge_normal: FloatArray) -> LensObservation:
        """Return this observation with points seen on the table's straight edges."""
        return LensObservation(self.fixed_mm, self.fixed_px, self.markers, edge_mm, edge_px, edge_normal)


def _end_misses(side_px: FloatArray, along_mm: FloatArray, anchor_px: FloatArray, anchor_along: FloatArray,
                length_px: float) -> bool | None:
    """Whether a side's edge points miss the line of the corner marker at one end (None: none near enough).

    ``anchor_*`` are the marker's two corners on the side; the edge points nearest to them
    (three, at most :data:`EDGE_END_REACH` of the side away) are compared with their line.
    """
    a, b = anchor_px
    chord = b - a
    if not np.all(np.isfinite(chord)) or float(np.hypot(*chord)) < 1.0:
        return None
    across = np.array([-chord[1], chord[0]]) / float(np.hypot(*chord))
    nearest = anchor_px[int(np.argmin(np.abs(anchor_along - along_mm.mean())))]
    order = np.argsort(np.min(np.abs(along_mm[:, None] - anchor_along[None, :]), axis=1))[:3]
    reach = np.linalg.norm(side_px[order] - nearest, axis=1)
    near = reach <= EDGE_END_REACH * length_px
    if not np.any(near):
        return None
    off = np.abs((side_px[order] - a) @ across) - (EDGE_END_PX + EDGE_END_SLOPE * reach)
    return bool(np.median(off[near]) > 0.0)


def edges_meeting_corners(observation: LensObservation) -> tuple[LensObservation, int]:
    """The observation without the sides of the table's edge that do not meet the corner markers.

    The corner markers lie flush with the table's edges (docs/markers.md), so the two corners
    of a corner marker on a side are on that side's line. A side whose edge points, near both
    ends, lie off the markers' lines (or near one end, the other end having no point near
    enough to tell) is another line: a border around the mat, the table's rim. Those sides
    are dropped; returns the observation kept and how many sides were dropped.
    """
    o = observation
    if not len(o.edge_mm) or not len(o.fixed_mm):
        return o, 0
    keep = np.ones(len(o.edge_mm), dtype=bool)
    dropped = 0
    for axis in (0, 1):            # a side is x = value or y = value, with corner-marker corners on it
        along = 1 - axis
        for value in np.unique(o.edge_mm[:, axis]):
            side = np.isclose(o.edge_mm[:, axis], value)
            on_line = np.isclose(o.fixed_mm[:, axis], value) & np.isclose(o.fixed_mm[:, 2], o.edge_mm[side, 2].mean())
            if np.count_nonzero(side) < 2 or np.count_nonzero(on_line) < 2:
                continue
            s_px, s_along = o.edge_px[side], o.edge_mm[side, along]
            f_px, f_along = o.fixed_px[on_line], o.fixed_mm[on_line, along]
            anchors = []
            for beyond in (f_along < s_along.min(), f_along > s_along.max()):
                pick = np.argsort(np.abs(f_along[beyond] - s_along.mean()))[:2]   # the marker's two corners
                anchors.append((f_px[beyond][pick], f_along[beyond][pick]))
            both = [a for a, _ in anchors if len(a) == 2]
            length = float(np.linalg.norm(both[0].mean(axis=0) - both[1].mean(axis=0))) if len(both) == 2 \
                else float(np.linalg.norm(s_px.max(axis=0) - s_px.min(axis=0)))
            verdicts = [_end_misses(s_px, s_along, a_px, a_along, length) if len(a_px) == 2 else None
                        for a_px, a_along in anchors]
            if True in verdicts and False not in verdicts:
                keep &= ~side
                dropped += 1
    if not dropped:
        return o, 0
    return o.with_edges(o.edge_mm[keep], o.edge_px[keep], o.edge_normal[keep]), dropped


@dataclass(frozen=True)
class LensFit:
    """A lens estimated from markers, with its uncertainty.

    ``covariance`` is over ``parameters`` (the lens values estimated, then the pose of
    the last frame: rvec, tvec).
    """

    intrinsics: CameraIntrinsics
    rvecs: FloatArray
    tvecs: FloatArray
    rms_px: float
    model: tuple[str, ...]
    parameters: tuple[str, ...]
    covariance: FloatArray
    markers_used: int
    markers_rejected: int
    frames: int
    fixed_rms_px: float = 0.0
    sd: dict[str, float] = field(default_factory=dict)
    edge_points: int = 0

    @property
    def focal_sd_px(self) -> float:
        """Standard deviation of the focal length (px)."""
        return self.sd.get("f", 0.0)

    @property
    def k1_sd(self) -> float:
        """Standard deviation of k1 (0 when k1 was not estimated)."""
        return self.sd.get("k1", 0.0)

    @property
    def k2_sd(self) -> float:
        """Standard deviation of k2 (0 when k2 was not estimated)."""
        return self.sd.get("k2", 0.0)

    def describe(self) -> str:
        """One line for the user: the estimated lens with its uncertainty."""
        k = self.intrinsics.distortion
        parts = [f"focal {self.intrinsics.focal_px:.0f} ± {self.focal_sd_px:.0f} px"]
        parts.append(f"k1 {k[0]:+.3f} ± {self.k1_sd:.3f}" if "k1" in self.model else "k1 not determined (0)")
        if "k2" in self.model:
            parts.append(f"k2 {k[1]:+.3f} ± {self.k2_sd:.3f}")
        if "cx" in self.model:
            m = self.intrinsics.matrix
            parts.append(f"centre ({m[0, 2]:.0f}, {m[1, 2]:.0f}) ± {self.sd.get('cx', 0.0):.0f} px")
        return (", ".join(parts) + f" (from {self.markers_used} base markers and {self.edge_points} points on the "
                f"table's edges over {self.frames} frame" + ("s" if self.frames != 1 else "")
                + f", {self.rms_px:.2f} px RMS)")

    def words(self) -> dict[str, Any]:
        """:meth:`describe` as a message object (``{"msg", "params", "text"}``) for the edges to word."""
        k = self.intrinsics.distortion
        m = self.intrinsics.matrix

        def part(msg_id: str, **params: Any) -> dict[str, Any]:
            return {"msg": msg_id, "params": params}

        return {"msg": "calibration.lens", "text": self.describe(), "params": {
            "focal": f"{self.intrinsics.focal_px:.0f}", "focal_sd": f"{self.focal_sd_px:.0f}",
            "k1": part("calibration.lens.k1", k1=round(float(k[0]), 3), sd=round(self.k1_sd, 3))
            if "k1" in self.model else part("calibration.lens.k1_unknown"),
            "k2": part("calibration.lens.k2", k2=round(float(k[1]), 3), sd=round(self.k2_sd, 3))
            if "k2" in self.model else "",
            "centre": part("calibration.lens.centre", x=f"{m[0, 2]:.0f}", y=f"{m[1, 2]:.0f}",
                           sd=f"{self.sd.get('cx', 0.0):.0f}") if "cx" in self.model else "",
            "markers": str(self.markers_used), "points": str(self.edge_points),
            "frames": part("calibration.lens.one_frame" if self.frames == 1 else "calibration.lens.frames",
                           n=str(self.frames)),
            "rms": round(self.rms_px, 2)}}

    def samples(self, n: int, seed: int = 0) -> list[tuple[CameraIntrinsics, FloatArray, FloatArray]]:
        """Draw ``n`` lenses and last-frame poses from the estimate's covariance."""
        rng = np.random.default_rng(seed)
        mean = np.concatenate([_lens_vector(self.intrinsics)[[_LENS_NAMES.index(p) for p in self.model]],
                               self.rvecs[-1], self.tvecs[-1]])
        cov = 0.5 * (self.covariance + self.covariance.T)
        try:
            chol = np.linalg.cholesky(cov + 1e-18 * np.eye(len(cov)))
        except np.linalg.LinAlgError:
            w, v = np.linalg.eigh(cov)
            chol = v * np.sqrt(np.clip(w, 0.0, None))
        out = []
        base = _lens_vector(self.intrinsics)
        for _ in range(n):
            draw = mean + chol @ rng.normal(size=len(mean))
            lens = base.copy()
            for i, name in enumerate(self.model):
                lens[_LENS_NAMES.index(name)] = draw[i]
            nl = len(self.model)
            out.append((_intrinsics(lens, self.intrinsics.image_size), draw[nl:nl + 3], draw[nl + 3:nl + 6]))
        return out


# -- the model ------------------------------------------------------------------------
def _reference_px(size: tuple[int, int]) -> float:
    """Half the image diagonal: the distortion is estimated as a share of the radius there."""
    return math.hypot(size[0], size[1]) / 2.0


def _lens_vector(cam: CameraIntrinsics) -> FloatArray:
    """(f, kappa1, kappa2, cx, cy): kappa_i = k_i (D / f)^(2i), the distortion in pixel terms.

    With ``D`` half the image diagonal, ``kappa1 + kappa2`` is the relative shift of a point
    at the image's corner. Unlike k1 and k2, these do not change when the focal length
    does, so a view that cannot tell the focal length (straight down) still measures the
    distortion.
    """
    d = np.zeros(2)
    d[:min(2, cam.distortion.size)] = cam.distortion[:2]
    q = (_reference_px(cam.image_size) / cam.focal_px) ** 2
    return np.array([cam.focal_px, d[0] * q, d[1] * q * q, cam.matrix[0, 2], cam.matrix[1, 2], 0.0])


def _ks(lens: FloatArray, reference_px: float) -> tuple[float, float]:
    q = (lens[0] / reference_px) ** 2
    return float(lens[1] * q), float(lens[2] * q * q)


def _intrinsics(lens: FloatArray, size: tuple[int, int]) -> CameraIntrinsics:
    k1, k2 = _ks(lens, _reference_px(size))
    f, cx, cy = float(lens[0]), float(lens[3]), float(lens[4])
    matrix = np.array([[f, 0.0, cx], [0.0, f, cy], [0.0, 0.0, 1.0]])
    return CameraIntrinsics(matrix, np.array([k1, k2, 0.0, 0.0, 0.0]), size, estimated=True)


def _rotations(rvecs: FloatArray) -> FloatArray:
    """Rodrigues for (F, 3) rotation vectors -> (F, 3, 3)."""
    theta = np.linalg.norm(rvecs, axis=1)
    small = theta < 1e-12
    safe = np.where(small, 1.0, theta)
    k = rvecs / safe[:, None]
    kx = np.zeros((len(rvecs), 3, 3))
    kx[:, 0, 1], kx[:, 0, 2] = -k[:, 2], k[:, 1]
    kx[:, 1, 0], kx[:, 1, 2] = k[:, 2], -k[:, 0]
    kx[:, 2, 0], kx[:, 2, 1] = -k[:, 1], k[:, 0]
    s = np.where(small, 0.0, np.sin(theta))[:, None, None]
    c = np.where(small, 0.0, 1.0 - np.cos(theta))[:, None, None]
    return np.eye(3)[None] + s * kx + c * (kx @ kx)


@dataclass
class _Problem:
    """The points of every frame flattened: which frame, which marker (-1: fixed), where."""

    frame: NDArray[np.int64]
    marker: NDArray[np.int64]
    obj: FloatArray        # fixed points: (x, y, z); marker points: (dx, dy, z) offsets in the marker
    obs: FloatArray
    marker_frame: NDArray[np.int64]
    n_frames: int
    normal: FloatArray  # (K, 2): for a point on a straight edge, only this component counts; else 0
    reference_px: float = 1.0
    focal_prior: float = 1.0
    frame_spans: list[tuple[int, int]] = field(init=False)
    on_marker: NDArray[np.bool_] = field(init=False)
    marker_of: NDArray[np.int64] = field(init=False)
    on_edge: NDArray[np.bool_] = field(init=False)
    has_markers: bool = field(init=False)
    has_edges: bool = field(init=False)

    def __post_init__(self) -> None:
        bounds = np.searchsorted(self.frame, np.arange(self.n_frames + 1))
        if np.any(np.diff(self.frame) < 0):
            raise ValueError("the points must be grouped frame by frame")
        self.frame_spans = [(int(bounds[f]), int(bounds[f + 1])) for f in range(self.n_frames)]
        self.on_marker = self.marker >= 0
        self.marker_of = self.marker[self.on_marker]
        self.on_edge = np.any(self.normal != 0.0, axis=1)
        self.has_markers = bool(np.any(self.on_marker))
        self.has_edges = bool(np.any(self.on_edge))

    @property
    def n_markers(self) -> int:
        return len(self.marker_frame)


def _project(p: _Problem, lens: FloatArray, poses: FloatArray, markers: FloatArray,
             rot: FloatArray | None = None) -> FloatArray:
    pts = p.obj.copy()
    on = p.on_marker
    if p.has_markers:
        m = markers[p.marker_of]
        c, s = np.cos(m[:, 2]), np.sin(m[:, 2])
        d = p.obj[on] * (1.0 + lens[5])  # the printed size, up to a common scale (printer, threshold)
        pts[on, 0] = m[:, 0] + c * d[:, 0] - s * d[:, 1]
        pts[on, 1] = m[:, 1] + s * d[:, 0] + c * d[:, 1]
    if rot is None:
        rot = _rotations(poses[:, :3])
    cam = np.empty_like(pts)
    for f, (a, b) in enumerate(p.frame_spans):  # the points of a frame are contiguous
        cam[a:b] = pts[a:b] @ rot[f].T + poses[f, 3:]
    z = np.where(np.abs(cam[:, 2]) < 1e-9, 1e-9, cam[:, 2])
    x, y = cam[:, 0] / z, cam[:, 1] / z
    r2 = x * x + y * y
    k1, k2 = _ks(lens, p.reference_px)
    dist = 1.0 + k1 * r2 + k2 * r2 * r2
    return np.column_stack([lens[0] * x * dist + lens[3], lens[0] * y * dist + lens[4]])


def _residuals(p: _Problem, lens: FloatArray, poses: FloatArray, markers: FloatArray,
               rot: FloatArray | None = None) -> FloatArray:
    r = _project(p, lens, poses, markers, rot) - p.obs
    on_edge = p.on_edge
    if p.has_edges:
        n = p.normal[on_edge]
        r[on_edge] = np.sum(r[on_edge] * n, axis=1)[:, None] * n
    return r


def _jacobians(p: _Problem, lens: FloatArray, poses: FloatArray, markers: FloatArray, free: list[int],
               r0: FloatArray) -> tuple[FloatArray, FloatArray]:
    """Forward-difference Jacobians: globals (K, 2, G) and per-point marker blocks (K, 2, 3)."""
    k = len(p.obs)
    g = len(free) + 6 * p.n_frames
    jg = np.zeros((k, 2, g))
    rot = _rotations(poses[:, :3])  # the same for every lens and marker step
    for col, j in enumerate(free):
        step = _LENS_STEPS[j]
        moved = lens.copy()
        moved[j] += step
        jg[:, :, col] = (_residuals(p, moved, poses, markers, rot) - r0) / step
    for j in range(6):
        step = _POSE_STEPS[j]
        moved = poses.copy()
        moved[:, j] += step
        d = (_residuals(p, lens, moved, markers) - r0) / step
        cols = len(free) + 6 * p.frame + j
        jg[np.arange(k), :, cols] = d
    jm = np.zeros((k, 2, 3))
    if p.n_markers:
        for j in range(3):
            step = _MARKER_STEPS[j]
            moved = markers.copy()
            moved[:, j] += step
            jm[:, :, j] = (_residuals(p, lens, poses, moved, rot) - r0) / step
        jm[p.marker < 0] = 0.0
    return jg, jm


def _priors(lens: FloatArray, free: list[int], centre: tuple[float, float], width: int, focal: float
            ) -> tuple[FloatArray, FloatArray, FloatArray]:
    """Prior residuals, their Jacobian rows and sigmas (scaled to the nominal corner noise)."""
    rows, res = [], []
    mean = {0: focal, 1: 0.0, 2: 0.0, 3: centre[0], 4: centre[1], 5: 0.0}
    sd = {0: FOCAL_PRIOR_FRACTION * focal, 1: K_PRIOR_SD[0], 2: K_PRIOR_SD[1], 3: CENTRE_PRIOR_FRACTION * width,
          4: CENTRE_PRIOR_FRACTION * width, 5: MARKER_SCALE_PRIOR_SD}
    for col, j in enumerate(free):
        if j in mean:
            row = np.zeros(len(free))
            row[col] = NOMINAL_CORNER_SD_PX / sd[j]
            rows.append(row)
            res.append(NOMINAL_CORNER_SD_PX * (lens[j] - mean[j]) / sd[j])
    if not rows:
        return np.zeros((0, len(free))), np.zeros(0), np.zeros(0)
    return np.array(rows), np.array(res), np.ones(len(res))


def _cost(r: FloatArray, prior_res: FloatArray) -> tuple[float, FloatArray]:
    norm = np.linalg.norm(r, axis=1)
    w = np.where(norm <= HUBER_PX, 1.0, HUBER_PX / np.maximum(norm, 1e-12))
    huber = np.where(norm <= HUBER_PX, 0.5 * norm**2, HUBER_PX * norm - 0.5 * HUBER_PX**2)
    return float(huber.sum() + 0.5 * np.sum(prior_res**2)), w


def _solve(p: _Problem, lens: FloatArray, poses: FloatArray, markers: FloatArray, free: list[int],
           size: tuple[int, int], *, iterations: int = 60) -> tuple[FloatArray, FloatArray, FloatArray, FloatArray]:
    """Levenberg-Marquardt over the free lens values, the poses and the markers.

    Returns the lens, poses, markers and the covariance of (free lens, every pose) in
    units of the residual variance (multiply by sigma^2).
    """
    centre = ((size[0] - 1) / 2.0, (size[1] - 1) / 2.0)
    nl = len(free)
    lam = 1e-3
    r = _residuals(p, lens, poses, markers)
    prior_j, prior_r, _ = _priors(lens, free, centre, size[0], p.focal_prior)
    cost, w = _cost(r, prior_r)
    reduced = np.eye(nl + 6 * p.n_frames)
    for _ in range(iterations):
        jg, jm = _jacobians(p, lens, poses, markers, free, r)
        sw = np.sqrt(w)[:, None, None]
        jgw, jmw, rw = jg * sw, jm * sw, r * np.sqrt(w)[:, None]
        u = np.einsum("kag,kah->gh", jgw, jgw)
        bg = np.einsum("kag,ka->g", jgw, rw)
        if nl and len(prior_r):
            u[:nl, :nl] += prior_j.T @ prior_j
            bg[:nl] += prior_j.T @ prior_r
        nm = p.n_markers
        on = p.marker >= 0
        v = np.zeros((nm, 3, 3))
        wgm = np.zeros((nm, u.shape[0], 3))
        bm = np.zeros((nm, 3))
        if nm:
            idx = p.marker[on]
            np.add.at(v, idx, np.einsum("kai,kaj->kij", jmw[on], jmw[on]))
            np.add.at(wgm, idx, np.einsum("kag,kaj->kgj", jgw[on], jmw[on]))
            np.add.at(bm, idx, np.einsum("kaj,ka->kj", jmw[on], rw[on]))
        improved = False
        for _attempt in range(10):
            ud = u + lam * np.diag(np.diag(u) + 1e-9)
            vd = v + lam * (np.eye(3)[None] * (np.diagonal(v, axis1=1, axis2=2)[:, None, :] + 1e-9))
            try:
                vinv = np.linalg.inv(vd) if nm else v
                s = ud - np.einsum("mgi,mij,mhj->gh", wgm, vinv, wgm) if nm else ud
                rhs = bg - np.einsum("mgi,mij,mj->g", wgm, vinv, bm) if nm else bg
                dg = -np.linalg.solve(s, rhs)
            except np.linalg.LinAlgError:
                lam *= 10.0
                continue
            dm = -np.einsum("mij,mj->mi", vinv, bm + np.einsum("mgi,g->mi", wgm, dg)) if nm else markers * 0
            new_lens = lens.copy()
            new_lens[free] += dg[:nl]
            new_poses = poses + dg[nl:].reshape(-1, 6)
            new_markers = markers + dm
            new_r = _residuals(p, new_lens, new_poses, new_markers)
            new_prior_r = _priors(new_lens, free, centre, size[0], p.focal_prior)[1]
            new_cost, new_w = _cost(new_r, new_prior_r)
            if np.isfinite(new_cost) and new_cost < cost and new_lens[0] > 0:
                step = float(np.max(np.abs(dg[:nl] / np.maximum(np.abs(lens[free]), 1e-3)))) if nl else 0.0
                lens, poses, markers, r, prior_r, w = new_lens, new_poses, new_markers, new_r, new_prior_r, new_w
                done = (cost - new_cost) < 1e-7 * max(cost, 1e-12) or (step < 1e-8 and cost - new_cost < 1e-6)
                cost = new_cost
                lam = max(lam / 5.0, 1e-9)
                improved = True
                break
            lam *= 10.0
        if not improved or done:
            break
    # covariance of the globals: inverse of the reduced normal matrix without damping
    jg, jm = _jacobians(p, lens, poses, markers, free, r)
    sw = np.sqrt(w)[:, None, None]
    jgw, jmw = jg * sw, jm * sw
    u = np.einsum("kag,kah->gh", jgw, jgw)
    if nl and len(prior_j):
        u[:nl, :nl] += prior_j.T @ prior_j
    if p.n_markers:
        on = p.marker >= 0
        idx = p.marker[on]
        v = np.zeros((p.n_markers, 3, 3))
        wgm = np.zeros((p.n_markers, u.shape[0], 3))
        np.add.at(v, idx, np.einsum("kai,kaj->kij", jmw[on], jmw[on]))
        np.add.at(wgm, idx, np.einsum("kag,kaj->kgj", jgw[on], jmw[on]))
        u = u - np.einsum("mgi,mij,mhj->gh", wgm, np.linalg.pinv(v), wgm)
    try:
        reduced = np.linalg.inv(u)
    except np.linalg.LinAlgError:
        reduced = np.linalg.pinv(u)
    return lens, poses, markers, reduced


# -- building the problem -----------------------------------------------------------------
def _build(observations: Sequence[LensObservation], markers_per_frame: list[list[int]], size: tuple[int, int],
           focal_prior: float) -> _Problem:
    frame: list[NDArray[np.int64]] = []
    marker: list[NDArray[np.int64]] = []
    obj: list[FloatArray] = []
    obs: list[FloatArray] = []
    normal: list[FloatArray] = []
    marker_frame: list[int] = []
    for f, o in enumerate(observations):
        n = len(o.fixed_mm) + len(o.edge_mm)
        frame.append(np.full(n, f))
        marker.append(np.full(n, -1))
        obj.append(np.column_stack([o.fixed_mm[:, :2], -o.fixed_mm[:, 2]]))
        obj.append(np.column_stack([o.edge_mm[:, :2], -o.edge_mm[:, 2]]))
        obs.append(o.fixed_px)
        obs.append(o.edge_px)
        normal.append(np.zeros((len(o.fixed_mm), 2)))
        normal.append(o.edge_normal)
        for i in markers_per_frame[f]:
            s = o.markers[i]
            h = s.size_mm / 2.0
            m = len(marker_frame)
            marker_frame.append(f)
            frame.append(np.full(4, f))
            marker.append(np.full(4, m))
            obj.append(np.array([[-h, -h, -s.height_mm], [h, -h, -s.height_mm], [h, h, -s.height_mm],
                                 [-h, h, -s.height_mm]]))
            obs.append(np.asarray(s.corners_px, dtype=np.float64).reshape(4, 2))
            normal.append(np.zeros((4, 2)))
    return _Problem(np.concatenate(frame).astype(np.int64), np.concatenate(marker).astype(np.int64),
                    np.concatenate(obj), np.concatenate(obs), np.array(marker_frame, dtype=np.int64),
                    len(observations), np.concatenate(normal), _reference_px(size), focal_prior)


def _initial_pose(o: LensObservation, cam: CameraIntrinsics) -> tuple[FloatArray, FloatArray]:
    from calibration.table import solve_pose

    obj = np.column_stack([o.fixed_mm[:, :2], -o.fixed_mm[:, 2]])
    rvec, tvec, _rms = solve_pose(obj, o.fixed_px, cam)
    return rvec, tvec


def _initial_marker(s: MarkerSighting, cam: CameraIntrinsics, rvec: FloatArray, tvec: FloatArray) -> FloatArray:
    rot = cv2.Rodrigues(np.asarray(rvec, dtype=np.float64))[0]
    rays = np.column_stack([cam.normalized(s.corners_px), np.ones(4)])
    origin = -rot.T @ tvec
    dirs = rays @ rot
    with np.errstate(divide="ignore", invalid="ignore"):
        t = (-s.height_mm - origin[2]) / dirs[:, 2]
    mm = origin[:2] + t[:, None] * dirs[:, :2]
    centre = mm.mean(axis=0)
    edge = mm[1] - mm[0]
    return np.array([centre[0], centre[1], math.atan2(edge[1], edge[0])])


def fit_lens(observations: Sequence[LensObservation], image_size: tuple[int, int], *,
             initial: CameraIntrinsics | None = None, min_markers: int = MIN_BASE_MARKERS) -> LensFit:
    """Estimate the lens (focal, k1, k2, maybe the principal point) from markers in one or more frames.

    Parameters
    ----------
    observations
        One per frame: the corner markers' known points and the base markers seen.
    image_size
        (width, height) of the frames.
    initial
        A first guess (default: the focal length from the first frame's fixed points).
    min_markers
        Fewest base markers (over all frames) needed.

    Raises
    ------
    CalibrationError
        When there are too few markers or the fit fails.
    """
    from calibration.table import estimate_focal

    if not observations:
        raise CalibrationError("no frame to estimate the lens from")
    checked = [edges_meeting_corners(o) for o in observations]
    if any(n for _o, n in checked):
        logger.info("%d side(s) of the table's edge left out: they do not meet the corner markers",
                    sum(n for _o, n in checked))
    observations = [o for o, _n in checked]
    count = sum(len(o.markers) for o in observations)
    edges = sum(len(o.edge_mm) for o in observations)
    if edges >= MIN_EDGE_POINTS:
        min_markers = 0
    if count < min_markers:
        raise CalibrationError(f"only {count} base marker(s) seen; at least {min_markers} spread over the table "
                               "are needed to estimate the lens from the markers")
    first = observations[0]
    if initial is None:
        obj = np.column_stack([first.fixed_mm[:, :2], -first.fixed_mm[:, 2]])
        initial, _note = estimate_focal(obj, first.fixed_px, image_size)
    cam0 = CameraIntrinsics.pinhole(initial.focal_px, image_size, estimated=True)
    # a first guess with a lens (the previous pass, the last frames) starts there, past the focal-only stage
    warm = initial.has_distortion
    start_cam = _intrinsics(_lens_vector(initial), image_size) if warm else cam0
    poses = np.array([np.concatenate(_initial_pose(o, start_cam)) for o in observations])
    keep = [list(range(len(o.markers))) for o in observations]
    lens = _lens_vector(start_cam)
    rejected = 0
    for _round in range(3):
        problem = _build(observations, keep, image_size, initial.focal_px)
        markers = np.array([_initial_marker(observations[f].markers[i], _intrinsics(lens, image_size),
                                            poses[f, :3], poses[f, 3:])
                            for f in range(len(observations)) for i in keep[f]]).reshape(-1, 3)
        # staged: focal and pose first, then the distortion, then the richest model the data allow
        if not warm:
            lens, poses, markers, _cov = _solve(problem, lens, poses, markers, [0], image_size)
        model = ["f", "k1", "k2"]
        edge_count = int(np.sum(np.any(problem.normal != 0.0, axis=1)))
        if problem.n_markers >= MIN_MARKERS_FOR_CENTRE or edge_count >= MIN_EDGE_POINTS_FOR_CENTRE:
            model += ["cx", "cy"]
        if problem.n_markers and MARKER_SCALE_PRIOR_SD > 0:
            model += ["ms"]
        while True:
            free = [_LENS_NAMES.index(n) for n in model]
            trial_lens, trial_poses, trial_markers, cov = _solve(problem, lens.copy(), poses.copy(), markers.copy(),
                                                                 free, image_size)
            r = _residuals(problem, trial_lens, trial_poses, trial_markers)
            dof = max(1, 2 * len(r) - len(free) - 6 * problem.n_frames - 3 * problem.n_markers)
            sigma2 = float(np.sum(np.minimum(np.sum(r**2, axis=1), 9 * HUBER_PX**2))) / dof
            sd = dict(zip(model, np.sqrt(np.abs(np.diag(cov))[:len(free)] * sigma2)))
            drop: tuple[str, ...] = ()
            if "cx" in model and sd["cx"] > 0.5 * CENTRE_PRIOR_FRACTION * image_size[0]:
                drop = ("cx", "cy")
            elif "k2" in model and sd["k2"] > MAX_K2_SD:
                drop = ("k2",)
            elif "k1" in model and sd["k1"] > MAX_K1_SD:
                drop = ("k1",)
            if not drop:
                break
            model = [n for n in model if n not in drop]
            default = _lens_vector(cam0)
            for name in drop:  # a value left out of the model takes its plain value again
                lens[_LENS_NAMES.index(name)] = default[_LENS_NAMES.index(name)]
        lens, poses, markers = trial_lens, trial_poses, trial_markers
        # reject markers that do not fit (a wrong id, a marker not at the base height, bad corners)
        per_marker = np.zeros(problem.n_markers)
        np.add.at(per_marker, problem.marker[problem.marker >= 0], np.sum(r[problem.marker >= 0] ** 2, axis=1))
        per_marker = np.sqrt(per_marker / 4.0)
        limit = max(4.0 * float(np.median(per_marker)) if len(per_marker) else 0.0, 1.0)
        bad = per_marker > limit
        on_edge = np.any(problem.normal != 0.0, axis=1)
        edge_r = np.linalg.norm(r[on_edge], axis=1)
        edge_bad = edge_r > max(4.0 * float(np.median(edge_r)) if len(edge_r) else 0.0, 1.0)
        if not np.any(bad) and not np.any(edge_bad):
            break
        if np.any(edge_bad):
            start, kept_obs = 0, []
            for o in observations:
                ok = ~edge_bad[start:start + len(o.edge_mm)]
                start += len(o.edge_mm)
                kept_obs.append(o.with_edges(o.edge_mm[ok], o.edge_px[ok], o.edge_normal[ok]))
            observations = kept_obs
        flat = [(f, i) for f in range(len(observations)) for i in keep[f]]
        dropped = {flat[j] for j in np.flatnonzero(bad)}
        rejected += len(dropped)
        keep = [[i for i in keep[f] if (f, i) not in dropped] for f in range(len(observations))]
        if sum(len(k) for k in keep) < min_markers and sum(len(o.edge_mm) for o in observations) < MIN_EDGE_POINTS:
            raise CalibrationError("too few base markers fit one lens to estimate it from the markers")
        if not warm:
            lens[1:] = _lens_vector(cam0)[1:]
    free = [_LENS_NAMES.index(n) for n in model]
    nl = len(free)
    last = nl + 6 * (problem.n_frames - 1)
    idx = list(range(nl)) + list(range(last, last + 6))
    cov_all = cov * sigma2
    fixed = (problem.marker < 0) & ~np.any(problem.normal != 0.0, axis=1)
    fixed_rms = float(np.sqrt(np.mean(np.sum(r[fixed] ** 2, axis=1)))) if np.any(fixed) else 0.0
    rms = float(np.sqrt(np.mean(np.sum(r**2, axis=1))))
    if not (np.all(np.isfinite(lens)) and lens[0] > 0 and np.all(np.isfinite(poses))):
        raise CalibrationError("the lens could not be estimated from the markers (the fit did not converge)")
    fit = LensFit(_intrinsics(lens, image_size), poses[:, :3].copy(), poses[:, 3:].copy(), rms, tuple(model),
                   tuple(model) + ("rx", "ry", "rz", "tx", "ty", "tz"), cov_all[np.ix_(idx, idx)],
                  problem.n_markers, rejected, len(observations), fixed_rms,
                  _report_sd(sd, lens, image_size), int(sum(len(o.edge_mm) for o in observations)))
    return fit


def markers_alone_if_better(fit: LensFit, observation: LensObservation, image_size: tuple[int, int],
                            corner_ok_px: float) -> tuple[LensFit, LensObservation]:
    """``fit`` (of ``observation``, one frame) or, when the table's edges misled it, the lens from the markers alone.

    A lens fitted with the table's edges that fits the corner markers worse than
    ``corner_ok_px`` (a right one fits them to a few tenths of a pixel) was bent by edge points
    that are not the table's straight edge (a wavy cloth, clutter along it) yet meet the
    corner markers. The base markers alone, when there are enough, give another lens; the
    one that fits the corner markers better is returned, with the observation it came from.
    """
    if fit.fixed_rms_px <= corner_ok_px or not len(observation.edge_mm):
        return fit, observation
    logger.info("lens from the markers and the edges fits the corner markers to %.2f px: trying the markers alone",
                fit.fixed_rms_px)
    alone = LensObservation(observation.fixed_mm, observation.fixed_px, observation.markers)
    try:
        other = fit_lens([alone], image_size)
    except (CalibrationError, cv2.error, np.linalg.LinAlgError) as exc:
        logger.info("lens not estimated from the markers alone: %s", exc)
        return fit, observation
    return (other, alone) if other.fixed_rms_px < fit.fixed_rms_px else (fit, observation)


def _report_sd(sd: dict[str, float], lens: FloatArray, size: tuple[int, int]) -> dict[str, float]:
    """Standard deviations in the user's terms: k1 and k2 from kappa1 and kappa2 (focal held)."""
    q = (lens[0] / _reference_px(size)) ** 2
    out = {n: float(v) for n, v in sd.items()}
    if "k1" in out:
        out["k1"] = float(sd["k1"] * q)
    if "k2" in out:
        out["k2"] = float(sd["k2"] * q * q)
    return out


# -- expected error ---------------------------------------------------------------------
def expected_error_mm(fit: LensFit, table_mm: tuple[float, float], *, height_mm: float = 0.0, grid: int = 7,
                      trials: int = 40, seed: int = 0) -> tuple[float, float, float]:
    """Position error across the table from the lens and pose uncertainty: (centre, edge, RMS) mm.

    Lenses and poses are drawn from the fit's covariance; the image point of each grid
    point under the estimate is mapped back through each draw.
    """
    from calibration.setup import TableSize
    from calibration.table import TableCalibration

    w, d = table_mm
    xs = np.linspace(0.02, 0.98, grid) * w
    ys = np.linspace(0.02, 0.98, grid) * d
    gx, gy = np.meshgrid(xs, ys)
    truth = np.column_stack([gx.ravel(), gy.ravel()])
    size = TableSize(w, d)
    nominal = TableCalibration(fit.intrinsics, fit.rvecs[-1], fit.tvecs[-1], size)
    seen = nominal.to_image_px(truth, height_mm=height_mm)
    errs = []
    for cam, rvec, tvec in fit.samples(trials, seed):
        cal = TableCalibration(cam, rvec, tvec, size)
        errs.append(np.linalg.norm(cal.to_table_mm(seen, height_mm=height_mm) - truth, axis=1))
    e = np.array(errs)
    per_point = np.sqrt(np.nanmean(e**2, axis=0)).reshape(grid, grid)
    centre = float(per_point[grid // 2, grid // 2])
    edge = float(max(per_point[0].max(), per_point[-1].max(), per_point[:, 0].max(), per_point[:, -1].max()))
    return centre, edge, float(np.sqrt(np.nanmean(e**2)))


# -- synthetic data (tests, doctests, benchmark) -----------------------------------------
def synthetic_observation(cam: CameraIntrinsics, table: object, *, rvec: ArrayLike, tvec: ArrayLike,
                          markers: int = 12, noise_px: float = 0.0, seed: int = 0, corner_mm: float = 60.0,
                          marker_mm: float = 12.0, height_mm: float = 3.0, edge_points: int = 0,
                          border_mm: Sequence[float] = (0.0, 0.0, 0.0, 0.0)) -> LensObservation:
    """Project corner markers and ``markers`` random base markers through ``cam`` exactly.

    With ``edge_points``, that many points on each side of the table's edge (y = 0, x = width,
    y = depth, x = 0) between the corner markers, as :func:`calibration.edges.find_edge_points`
    gives them; ``border_mm`` puts what is seen of each side that far outside the table (the
    outer edge of a border around the mat, taken for the table's).
    """
    from calibration.table import corner_object_points

    rng = np.random.default_rng(seed)
    w, d = float(table.width_mm), float(table.depth_mm)  # type: ignore[attr-defined]
    corners = corner_object_points(table, corner_mm)  # type: ignore[arg-type]
    fixed = np.concatenate([corners[i] for i in (0, 1, 2, 3)])
    fixed3 = np.column_stack([fixed, np.zeros(len(fixed))])
    r = np.asarray(rvec, dtype=np.float64)
    t = np.asarray(tvec, dtype=np.float64)

    def project(p3: FloatArray, noisy: bool = True) -> FloatArray:
        pts = np.column_stack([p3[:, :2], -p3[:, 2]])
        px, _ = cv2.projectPoints(pts, r, t, cam.matrix, cam.distortion)
        out: FloatArray = px.reshape(-1, 2).astype(np.float64)
        return out + rng.normal(0.0, noise_px, (len(p3), 2)) if noisy else out

    sightings = []
    h = marker_mm / 2.0
    for k in range(markers):
        cx, cy = rng.uniform(0.08, 0.92) * w, rng.uniform(0.08, 0.92) * d
        a = rng.uniform(0.0, 2.0 * math.pi)
        c, s = math.cos(a), math.sin(a)
        sq = np.array([[-h, -h], [h, -h], [h, h], [-h, h]]) @ np.array([[c, s], [-s, c]]) + (cx, cy)
        px = project(np.column_stack([sq, np.full(4, height_mm)]))
        sightings.append(MarkerSighting(4 + k, px, marker_mm, height_mm))
    fixed_px = project(fixed3)
    edge_mm, edge_px, edge_normal = [np.zeros((0, 3))], [np.zeros((0, 2))], [np.zeros((0, 2))]
    along = np.linspace(0.0, 1.0, edge_points + 2)[1:-1]
    margin = corner_mm * 1.3
    for start, end, out, border in zip(((0, 0), (w, 0), (0, d), (0, 0)), ((w, 0), (w, d), (w, d), (0, d)),
                                       ((0, -1), (1, 0), (0, 1), (-1, 0)), border_mm if edge_points else ()):
        p0, p1 = np.array(start, dtype=np.float64), np.array(end, dtype=np.float64)
        step = (p1 - p0) / float(np.linalg.norm(p1 - p0))
        on = p0 + margin * step + along[:, None] * (p1 - p0 - 2 * margin * step)
        seen = on + border * np.array(out, dtype=np.float64)
        exact = project(np.column_stack([seen, np.zeros(len(on))]), noisy=False)
        tangent = project(np.column_stack([seen + step, np.zeros(len(on))]), noisy=False) - exact
        tangent /= np.linalg.norm(tangent, axis=1, keepdims=True)
        normal = np.column_stack([-tangent[:, 1], tangent[:, 0]])
        edge_mm.append(np.column_stack([on, np.zeros(len(on))]))
        edge_px.append(exact + normal * rng.normal(0.0, noise_px, (len(on), 1)))
        edge_normal.append(normal)
    return LensObservation(fixed3, fixed_px, tuple(sightings), np.concatenate(edge_mm), np.concatenate(edge_px),
                           np.concatenate(edge_normal))
