"""Table calibration: the table's pose from its four corner markers, pixels <-> table mm.

The table frame (docs/units.md): origin at the play area's corner under marker 0, x toward
marker 1, y toward marker 3, millimetres. In 3D a point ``height_mm`` above the table is
``(x_mm, y_mm, -height_mm)`` (z points down into the table) and the camera pose maps it to
camera coordinates as ``cv2.projectPoints`` does: ``X_cam = R X + t``.

:func:`calibrate_table` finds markers 0-3 in one frame, checks that they lie as they must
(order round the table, orientation), and solves the pose from their 16 sub-pixel corners.
Without intrinsics it estimates the focal length from this view alone.

Examples
--------
>>> from calibration.setup import TableSize
>>> cam = CameraIntrinsics.pinhole(1000.0, (1280, 960))
>>> cal = TableCalibration(cam, rvec=(0.0, 0.0, 0.0), tvec=(-300.0, -300.0, 1500.0),
...                        table=TableSize(600.0, 600.0))
>>> px = cal.to_image_px([[300.0, 300.0], [0.0, 0.0]])
>>> px.round(2).tolist()
[[639.5, 479.5], [439.5, 279.5]]
>>> cal.to_table_mm(px).round(6).tolist()
[[300.0, 300.0], [0.0, 0.0]]
>>> cal.to_table_mm([[439.5, 279.5]], height_mm=30.0).round(3).tolist()
[[6.0, 6.0]]
"""

from __future__ import annotations

import logging
import math
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

import cv2
import numpy as np
from numpy.typing import ArrayLike, NDArray

from calibration.aruco import (
    DEFAULT_MIN_SIDE_PX,
    MIN_READABLE_MARKER_PX,
    MarkerDetections,
    detect_markers,
    get_dictionary,
    read_corner_markers,
    refine_corners_by_edges,
)
from calibration.camera import CameraIntrinsics
from calibration.errors import CalibrationError, ShapeError
from calibration.setup import CORNER_IDS, Setup, TableSize
from tabletracker.words import Said

if TYPE_CHECKING:   # the lens fit is imported where an unknown lens is measured: a known one never needs it
    from calibration.lens import LensFit, LensObservation, MarkerSighting

logger = logging.getLogger(__name__)

MAX_CORNER_RMS_PX = 2.0
"""Above this corner reprojection error the markers do not lie as the setup file says."""

UNMODELLED_LENS_RMS_FRACTION = 0.005
"""The limit, as a fraction of the image diagonal (at least 6 px), when the lens model has
no distortion (estimated, or none given): a webcam lens alone leaves up to about 0.2 % of
the diagonal in the residual (9 px at 4K), so below this a wrong table size cannot be told
from an unmodelled lens and only a warning is given."""

DEFAULT_HFOV_DEG = 70.0
"""Horizontal field of view assumed when one view cannot tell the focal length (typical webcam)."""

LENS_CORNER_RMS_OK_PX = 1.0
"""A lens estimated from the markers is kept when it fits the corner markers this well, or better
than the distortion-free model does."""

MIN_CORNERS_KNOWN_LENS = 2
"""Corner markers needed for the pose when the lens is known (each gives four points)."""

COVERED_CORNER_PX = 3.0
"""A corner-marker corner this far (px) from where the corners kept put it is taken as covered, see
:func:`solve_pose_uncovered`."""

COVERED_CORNER_RATIO = 10.0
"""... and only when it is this many times farther than the kept corners' RMS: a wrong table
size or marker size moves every corner alike and is still refused."""

MAX_COVERED_CORNERS = 2
"""At most this many corners of the corner markers are left out of the pose as covered."""

MIN_CORNER_NOISE_PX = 0.05
"""Floor of the per-coordinate corner noise used to predict the position error."""

_FOCAL_RANGE = (0.25, 8.0)  # focal length search, in image widths
_FOCAL_AMBIGUITY = 1.3  # ratio of the plausible focal interval above which one view cannot tell f


def corner_object_points(table: TableSize, corner_size_mm: float) -> dict[int, NDArray[np.float64]]:
    """Return each corner marker's four corners in table mm, in OpenCV's corner order.

    Examples
    --------
    >>> corner_object_points(TableSize(600, 400), 60.0)[2].tolist()
    [[540.0, 340.0], [600.0, 340.0], [600.0, 400.0], [540.0, 400.0]]
    """
    h = corner_size_mm / 2.0
    w, d = table.width_mm, table.depth_mm
    centres = {0: (h, h), 1: (w - h, h), 2: (w - h, d - h), 3: (h, d - h)}
    square = np.array([[-h, -h], [h, -h], [h, h], [-h, h]])
    return {k: square + np.array(c) for k, c in centres.items()}


def _as3d(points_mm: NDArray[np.float64], height_mm: float) -> NDArray[np.float64]:
    return np.column_stack([points_mm, np.full(len(points_mm), -float(height_mm))])


def _points(values: ArrayLike, name: str) -> NDArray[np.float64]:
    pts = np.asarray(values, dtype=np.float64)
    if pts.ndim == 1 and pts.shape == (2,):
        pts = pts.reshape(1, 2)
    if pts.ndim != 2 or pts.shape[1] != 2:
        raise ShapeError(f"{name} must have shape (N, 2), got {pts.shape}")
    return pts


def _readonly(values: ArrayLike, shape: tuple[int, ...]) -> NDArray[np.float64]:
    a = np.array(values, dtype=np.float64).reshape(shape)
    a.flags.writeable = False
    return a


@dataclass(frozen=True)
class PositionError:
    """Expected error of table positions read from the image, over a grid across the table.

    ``max_mm`` and ``rms_mm`` come from re-solving the pose with the corners perturbed by
    ``sigma_px`` (per coordinate); lens distortion the model does not know is not included.
    """

    max_mm: float
    rms_mm: float
    sigma_px: float
    trials: int
    height_mm: float = 0.0
    centre_mm: float = 0.0
    edge_mm: float = 0.0
    """RMS error at the table's centre and the worst RMS along its edges."""


@dataclass(frozen=True)
class MarkerReadability:
    """How large a base marker appears at the worst place on the table."""

    marker_mm: float
    min_side_px: float
    at_mm: tuple[float, float]
    required_px: float = MIN_READABLE_MARKER_PX

    @property
    def ok(self) -> bool:
        """Whether every base marker is large enough to be read."""
        return self.min_side_px >= self.required_px

    @property
    def smallest_marker_mm(self) -> float:
        """Smallest marker side that would be read everywhere with this camera and table."""
        return self.marker_mm * self.required_px / self.min_side_px

    def largest_table_mm(self, table: TableSize) -> tuple[float, float]:
        """Largest table of the same shape this camera could frame with readable markers."""
        scale = self.min_side_px / self.required_px
        return table.width_mm * scale, table.depth_mm * scale


@dataclass(frozen=True)
class TableCalibration:
    """Where the table is for one camera: intrinsics plus the table's pose.

    Parameters
    ----------
    intrinsics : CameraIntrinsics
    rvec, tvec : (3,) float
        Rodrigues rotation and translation (mm) from the 3D table frame to the camera.
    table : TableSize
    corner_size_mm : float
        Side of the corner markers' black square.
    reprojection_rms_px : float
        RMS distance between detected and reprojected corner-marker corners.
    corner_ids : tuple of int
        Corner markers the pose was solved from.
    corners_px : (4 * len(corner_ids), 2) float
        Their detected corners, marker by marker in OpenCV's order (empty when not kept).
    warnings : tuple of str
        What the user should know about this calibration's accuracy.
    lens : LensFit, optional
        When the lens was estimated from the markers: the estimate and its uncertainty.
    """

    intrinsics: CameraIntrinsics
    rvec: NDArray[np.float64]
    tvec: NDArray[np.float64]
    table: TableSize
    corner_size_mm: float = 60.0
    reprojection_rms_px: float = 0.0
    corner_ids: tuple[int, ...] = CORNER_IDS
    corners_px: NDArray[np.float64] = field(default_factory=lambda: np.zeros((0, 2)))
    warnings: tuple[str, ...] = ()
    lens: LensFit | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "rvec", _readonly(self.rvec, (3,)))
        object.__setattr__(self, "tvec", _readonly(self.tvec, (3,)))
        object.__setattr__(self, "corners_px", _readonly(self.corners_px, (-1, 2)))
        object.__setattr__(self, "corner_ids", tuple(int(i) for i in self.corner_ids))
        object.__setattr__(self, "warnings", tuple(self.warnings))
        if not (np.all(np.isfinite(self.rvec)) and np.all(np.isfinite(self.tvec))):
            raise CalibrationError("the table pose (rvec, tvec) must be finite numbers")

    # -- geometry ------------------------------------------------------------------
    @property
    def rotation(self) -> NDArray[np.float64]:
        """(3, 3) rotation matrix R of ``X_cam = R X + t``."""
        return np.asarray(cv2.Rodrigues(np.asarray(self.rvec))[0], dtype=np.float64)

    @property
    def camera_position_mm(self) -> NDArray[np.float64]:
        """Camera centre in the 3D table frame (its z is minus its height above the table)."""
        return -self.rotation.T @ self.tvec

    @property
    def camera_height_mm(self) -> float:
        """Height of the camera above the table top."""
        return float(-self.camera_position_mm[2])

    def to_table_mm(self, points_px: ArrayLike, *, height_mm: float = 0.0) -> NDArray[np.float64]:
        """Map image pixels to table mm on the plane ``height_mm`` above the table.

        Lens distortion is removed, then the ray through each pixel is intersected with
        the plane z = -height_mm. A ray that does not meet the plane in front of the
        camera gives NaN.

        Parameters
        ----------
        points_px : (N, 2) float
            Pixel coordinates in the camera image.
        height_mm : float
            Height of the points above the table (a marker on a 3 mm base: 3.0).

        Returns
        -------
        (N, 2) float
            Table coordinates in mm.
        """
        pts = _points(points_px, "points_px")
        if len(pts) == 0:
            return np.zeros((0, 2))
        rays = np.column_stack([self.intrinsics.normalized(pts), np.ones(len(pts))])
        rot = self.rotation
        origin = -rot.T @ self.tvec
        dirs = rays @ rot  # (R^T d)^T for each ray
        with np.errstate(divide="ignore", invalid="ignore"):
            s = (-float(height_mm) - origin[2]) / dirs[:, 2]
        out = origin[:2] + s[:, None] * dirs[:, :2]
        out[~(s > 0)] = np.nan
        return np.asarray(out, dtype=np.float64)

    def to_image_px(self, points_mm: ArrayLike, *, height_mm: float = 0.0) -> NDArray[np.float64]:
        """Map table mm on the plane ``height_mm`` above the table to image pixels (with distortion).

        Parameters
        ----------
        points_mm : (N, 2) float
            Table coordinates in mm.
        height_mm : float
            Height of the points above the table.

        Returns
        -------
        (N, 2) float
            Pixel coordinates in the camera image.
        """
        pts = _points(points_mm, "points_mm")
        if len(pts) == 0:
            return np.zeros((0, 2))
        px, _ = cv2.projectPoints(_as3d(pts, height_mm), np.asarray(self.rvec), np.asarray(self.tvec),
                                  self.intrinsics.matrix, self.intrinsics.distortion)
        return np.asarray(px, dtype=np.float64).reshape(-1, 2)

    # -- the top-down plan ---------------------------------------------------------
    def plan_size(self, px_per_mm: float) -> tuple[int, int]:
        """(width, height) in pixels of the top-down plan image at ``px_per_mm``."""
        return (max(1, math.ceil(self.table.width_mm * px_per_mm)),
                max(1, math.ceil(self.table.depth_mm * px_per_mm)))

    def homography_to_plan(self, px_per_mm: float, *, height_mm: float = 0.0) -> NDArray[np.float64]:
        """Return the 3x3 homography from undistorted image pixels to plan pixels.

        Plan pixel (i, j) covers table mm ``[i, i + 1] / px_per_mm`` (its centre at
        ``(i + 0.5) / px_per_mm``). Use it with ``cv2.warpPerspective(frame, H,
        cal.plan_size(px_per_mm))``; it ignores lens distortion, so for a camera with
        distortion undistort the frame first or use :meth:`warp_to_plan`, which is exact.
        """
        if px_per_mm <= 0:
            raise ShapeError(f"px_per_mm must be positive, got {px_per_mm}")
        rot = self.rotation
        plane = np.column_stack([rot[:, 0], rot[:, 1], self.tvec - float(height_mm) * rot[:, 2]])
        image_from_mm = self.intrinsics.matrix @ plane
        plan_from_mm = np.array([[px_per_mm, 0.0, -0.5], [0.0, px_per_mm, -0.5], [0.0, 0.0, 1.0]])
        h = plan_from_mm @ np.linalg.inv(image_from_mm)
        return np.asarray(h / h[2, 2], dtype=np.float64)

    def plan_maps(self, px_per_mm: float, *, height_mm: float = 0.0) -> tuple[NDArray[np.float32], NDArray[np.float32]]:
        """Return ``cv2.remap`` maps from plan pixels to image pixels, distortion included.

        Compute them once per calibration and call ``cv2.remap(frame, *maps, cv2.INTER_LINEAR)``.
        """
        w, h = self.plan_size(px_per_mm)
        xs = (np.arange(w) + 0.5) / px_per_mm
        ys = (np.arange(h) + 0.5) / px_per_mm
        gx, gy = np.meshgrid(xs, ys)
        px = self.to_image_px(np.column_stack([gx.ravel(), gy.ravel()]), height_mm=height_mm)
        return (px[:, 0].reshape(h, w).astype(np.float32), px[:, 1].reshape(h, w).astype(np.float32))

    def warp_to_plan(self, image: NDArray[np.uint8], px_per_mm: float, *, height_mm: float = 0.0) -> NDArray[np.uint8]:
        """Return the top-down plan of the table from a camera frame (exact, distortion removed)."""
        map_x, map_y = self.plan_maps(px_per_mm, height_mm=height_mm)
        return np.asarray(cv2.remap(image, map_x, map_y, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT),
                          dtype=np.uint8)

    # -- accuracy ------------------------------------------------------------------
    def object_points(self) -> NDArray[np.float64]:
        """(4 * len(corner_ids), 3) table-frame corners of the corner markers used."""
        pts = corner_object_points(self.table, self.corner_size_mm)
        return _as3d(np.concatenate([pts[i] for i in self.corner_ids]), 0.0)

    def expected_error_mm(self, *, height_mm: float = 0.0, trials: int = 100, grid: int = 9,
                          sigma_px: float | None = None, seed: int = 0) -> PositionError:
        """Predict the position error across the table from the corner noise.

        The corners are perturbed with Gaussian noise of ``sigma_px`` per coordinate
        (default: the measured residual, corrected for the 6 pose parameters, with a floor
        of :data:`MIN_CORNER_NOISE_PX`), the pose is solved again (and the focal length too
        when it was estimated) and a ``grid`` x ``grid`` set of table points is mapped
        through the perturbed calibration. Returns the largest and RMS error in mm.
        """
        if self.lens is not None:  # lens from the markers: its own covariance says it all
            from calibration.lens import expected_error_mm

            centre, edge, rms = expected_error_mm(self.lens, (self.table.width_mm, self.table.depth_mm),
                                                  height_mm=height_mm, grid=grid, trials=max(10, trials // 2),
                                                  seed=seed)
            return PositionError(edge, rms, self.lens.rms_px, max(10, trials // 2), float(height_mm), centre, edge)
        obj = self.object_points()
        observed = self.corners_px if len(self.corners_px) == len(obj) else self.to_image_px(obj[:, :2])
        if sigma_px is None:
            n = 2 * len(obj)
            sigma_px = self.reprojection_rms_px / math.sqrt(2.0) * math.sqrt(n / max(n - 6, 1))
            sigma_px = max(sigma_px, MIN_CORNER_NOISE_PX)
        margin = 0.02
        xs = np.linspace(margin, 1 - margin, grid) * self.table.width_mm
        ys = np.linspace(margin, 1 - margin, grid) * self.table.depth_mm
        gx, gy = np.meshgrid(xs, ys)
        truth = np.column_stack([gx.ravel(), gy.ravel()])
        seen_px = self.to_image_px(truth, height_mm=height_mm)
        rng = np.random.default_rng(seed)
        n_trials = trials if not self.intrinsics.estimated else max(10, trials // 4)
        errors = []
        for _ in range(n_trials):
            noisy = observed + rng.normal(0.0, sigma_px, observed.shape)
            cam = self.intrinsics
            if cam.estimated and not cam.has_distortion:
                cam, _note = estimate_focal(obj, noisy, cam.image_size, around=cam.focal_px)
            rvec, tvec, _rms = solve_pose(obj, noisy, cam, guess=(self.rvec, self.tvec))
            other = TableCalibration(cam, rvec, tvec, self.table, self.corner_size_mm)
            errors.append(np.linalg.norm(other.to_table_mm(seen_px, height_mm=height_mm) - truth, axis=1))
        err = np.concatenate(errors)
        per_point = np.sqrt(np.mean(np.array(errors) ** 2, axis=0)).reshape(grid, grid)
        edge = float(max(per_point[0].max(), per_point[-1].max(), per_point[:, 0].max(), per_point[:, -1].max()))
        return PositionError(float(err.max()), float(np.sqrt(np.mean(err**2))), float(sigma_px), n_trials,
                             float(height_mm), float(per_point[grid // 2, grid // 2]), edge)

    def marker_readability(self, marker_mm: float, *, height_mm: float = 0.0, grid: int = 11) -> MarkerReadability:
        """Return the smallest side in pixels of a ``marker_mm`` marker anywhere on the table.

        Squares at 0 and 45 degrees are projected at a grid of places (table corners
        included); the far corner of a tilted view is usually the worst.
        """
        h = marker_mm / 2.0
        xs = np.linspace(h, self.table.width_mm - h, grid)
        ys = np.linspace(h, self.table.depth_mm - h, grid)
        square = np.array([[-h, -h], [h, -h], [h, h], [-h, h]])
        turned = np.array([[0.0, -1.0], [1.0, 0.0], [0.0, 1.0], [-1.0, 0.0]]) * h * math.sqrt(2.0)
        gx, gy = np.meshgrid(xs, ys)
        places = np.column_stack([gx.ravel(), gy.ravel()])
        shapes = np.concatenate([places[:, None, :] + square, places[:, None, :] + turned])  # (2P, 4, 2)
        px = self.to_image_px(shapes.reshape(-1, 2), height_mm=height_mm).reshape(-1, 4, 2)
        sides = np.linalg.norm(px - np.roll(px, -1, axis=1), axis=2).min(axis=1)
        k = int(np.argmin(sides))
        at = places[k % len(places)]
        best = (float(sides[k]), (float(at[0]), float(at[1])))
        return MarkerReadability(float(marker_mm), best[0], best[1])


# -- solving ----------------------------------------------------------------------
def solve_pose(object_points: NDArray[np.float64], image_points: NDArray[np.float64], intrinsics: CameraIntrinsics,
               *, guess: tuple[ArrayLike, ArrayLike] | None = None,
               ) -> tuple[NDArray[np.float64], NDArray[np.float64], float]:
    """Solve the table pose from planar points (IPPE, then Levenberg-Marquardt refinement).

    Returns
    -------
    rvec, tvec : (3,) float
    rms_px : float
        RMS reprojection error of the points.
    """
    obj = np.ascontiguousarray(object_points, dtype=np.float64).reshape(-1, 1, 3)
    img = np.ascontiguousarray(image_points, dtype=np.float64).reshape(-1, 1, 2)
    found: tuple[NDArray[np.float64], NDArray[np.float64]] | None = None
    if guess is not None:
        found = (np.array(guess[0], dtype=np.float64).reshape(3, 1), np.array(guess[1], dtype=np.float64).reshape(3, 1))
    else:
        for method in (cv2.SOLVEPNP_IPPE, cv2.SOLVEPNP_ITERATIVE):  # IPPE can return NaN on exact points
            ok, r, t = cv2.solvePnP(obj, img, intrinsics.matrix, intrinsics.distortion, flags=method)
            if ok and np.all(np.isfinite(r)) and np.all(np.isfinite(t)):
                found = (np.asarray(r, dtype=np.float64), np.asarray(t, dtype=np.float64))
                break
        if found is None:
            raise CalibrationError("could not solve the table's pose from the corner markers")
    rvec, tvec = found
    refined_r, refined_t = cv2.solvePnPRefineLM(obj, img, intrinsics.matrix, intrinsics.distortion,
                                                rvec.copy(), tvec.copy())
    if np.all(np.isfinite(refined_r)) and np.all(np.isfinite(refined_t)):  # LM gives NaN on exact data
        rvec, tvec = np.asarray(refined_r, dtype=np.float64), np.asarray(refined_t, dtype=np.float64)
    proj, _ = cv2.projectPoints(obj, rvec, tvec, intrinsics.matrix, intrinsics.distortion)
    rms = float(np.sqrt(np.mean(np.sum((proj - img) ** 2, axis=2))))
    return rvec.reshape(3), tvec.reshape(3), rms


def solve_pose_uncovered(object_points: NDArray[np.float64], image_points: NDArray[np.float64],
                         intrinsics: CameraIntrinsics) -> tuple[NDArray[np.float64], NDArray[np.float64], float,
                                                                NDArray[np.bool_]]:
    """:func:`solve_pose` leaving out the corners a hand or a figure covers: rvec, tvec, RMS, points used.

    A hand over a corner marker hides one corner of its black square; the outline OpenCV
    finds is then cut along the hand, and the "corner" it reports lies on the hand's edge,
    many pixels from the real one (20 px on a 1080p frame: 4.5 px RMS over the sixteen
    points, a frame refused with the true lens). With the lens known, the other corners
    fix the pose. The corners farthest from the fit are left out one by one (at most
    :data:`MAX_COVERED_CORNERS`); the most left out such that each is at least
    :data:`COVERED_CORNER_PX` from where the corners kept put it, and
    :data:`COVERED_CORNER_RATIO` times farther than they lie from their own fit, are taken
    as covered. Judging each against the corners finally kept, not against the others
    still in, matters when an arm cuts two corners of one marker (a blurred frame: 8 and
    4 px off): either one left out alone still leaves the other in the RMS it is compared
    with. The RMS is that of the points used.
    """
    obj = np.asarray(object_points, dtype=np.float64).reshape(-1, 3)
    img = np.asarray(image_points, dtype=np.float64).reshape(-1, 2)
    used = np.ones(len(obj), dtype=bool)
    rvec, tvec, rms = solve_pose(obj, img, intrinsics)
    best = (rvec, tvec, rms, used)
    while rms > COVERED_CORNER_PX / COVERED_CORNER_RATIO and (~used).sum() < MAX_COVERED_CORNERS \
            and used.sum() > 4 * MIN_CORNERS_KNOWN_LENS:
        proj, _ = cv2.projectPoints(obj, rvec, tvec, intrinsics.matrix, intrinsics.distortion)
        error = np.where(used, np.linalg.norm(proj.reshape(-1, 2) - img, axis=1), -1.0)
        used = used.copy()
        used[int(np.argmax(error))] = False
        rvec, tvec, rms = solve_pose(obj[used], img[used], intrinsics)
        proj, _ = cv2.projectPoints(obj[~used], rvec, tvec, intrinsics.matrix, intrinsics.distortion)
        off = np.linalg.norm(proj.reshape(-1, 2) - img[~used], axis=1)
        if np.any(off < COVERED_CORNER_PX):  # the next worst would lie nearer still: nothing more is covered
            break
        if np.all(off >= COVERED_CORNER_RATIO * rms):
            best = (rvec, tvec, rms, used)
    rvec, tvec, rms, used = best
    if not used.all():
        logger.info("corner point(s) %s of the corner markers left out of the pose as covered (the others fit "
                    "to %.2f px)", np.nonzero(~used)[0].tolist(), rms)
    return rvec, tvec, rms, used


def _rms_for_focal(obj: NDArray[np.float64], img: NDArray[np.float64], image_size: tuple[int, int], f: float) -> float:
    cam = CameraIntrinsics.pinhole(f, image_size, estimated=True)
    try:
        rms = solve_pose(obj, img, cam)[2]
    except (cv2.error, CalibrationError):
        return math.inf
    return rms if math.isfinite(rms) else math.inf


def lens_estimated(lens: LensFit) -> Said:
    """The warning of a calibration without a camera file whose lens was estimated from the markers."""
    return Said(f"no camera calibration given: lens estimated from the markers on the table ({lens.describe()})",
                "calibration.lens_estimated", lens=lens.words())


def estimate_focal(obj: NDArray[np.float64], img: NDArray[np.float64], image_size: tuple[int, int], *,
                   around: float | None = None) -> tuple[CameraIntrinsics, Said | None]:
    """Estimate the focal length from one view of planar points (principal point at the centre).

    A 1-D search on the focal length minimises the reprojection error of the points. When
    the view is nearly straight down, perspective barely depends on the focal length;
    then the focal length of a typical webcam (:data:`DEFAULT_HFOV_DEG`) is used if it
    fits the plausible interval, and the note says so.

    Returns
    -------
    intrinsics : CameraIntrinsics
        Marked ``estimated=True``, no distortion.
    note : str or None
        A sentence for the user when the focal length is poorly determined.
    """
    width = image_size[0]
    if around is None:
        lo, hi, steps = _FOCAL_RANGE[0] * width, _FOCAL_RANGE[1] * width, 48
    else:
        lo, hi, steps = around / 1.5, around * 1.5, 8
    fs = np.geomspace(lo, hi, steps)
    rms = np.array([_rms_for_focal(obj, img, image_size, f) for f in fs])
    k = int(np.argmin(rms))
    a, b = fs[max(k - 1, 0)], fs[min(k + 1, steps - 1)]
    best_f = _golden_min(lambda f: _rms_for_focal(obj, img, image_size, f), a, b)
    best = _rms_for_focal(obj, img, image_size, best_f)
    # interval of focal lengths whose fit is as good as the noise allows
    tolerance = max(0.05, 0.25 * best)
    plausible = np.append(fs[rms <= best + tolerance], best_f)
    f_lo, f_hi = float(plausible.min()), float(plausible.max())
    note = None
    if around is None and f_hi / f_lo > _FOCAL_AMBIGUITY:
        typical = width / 2.0 / math.tan(math.radians(DEFAULT_HFOV_DEG / 2.0))
        chosen = float(np.clip(typical, f_lo, f_hi))
        note = Said(f"this view cannot tell the focal length (anything from {f_lo:.0f} to {f_hi:.0f} px fits: "
                    f"the camera looks nearly straight down); assumed {chosen:.0f} px, a {DEFAULT_HFOV_DEG:.0f} "
                    "degree webcam: heights above the table are corrected less exactly", "calibration.focal_ambiguous",
                    low=f"{f_lo:.0f}", high=f"{f_hi:.0f}", focal=f"{chosen:.0f}", fov=f"{DEFAULT_HFOV_DEG:.0f}")
        best_f = chosen
    return CameraIntrinsics.pinhole(float(best_f), image_size, estimated=True), note


def _golden_min(fn, a: float, b: float, iterations: int = 40) -> float:  # type: ignore[no-untyped-def]
    """Minimise ``fn`` on [a, b] (log scale) by golden-section search."""
    la, lb = math.log(a), math.log(b)
    g = (math.sqrt(5.0) - 1.0) / 2.0
    c, d = lb - g * (lb - la), la + g * (lb - la)
    fc, fd = fn(math.exp(c)), fn(math.exp(d))
    for _ in range(iterations):
        if fc < fd:
            lb, d, fd = d, c, fc
            c = lb - g * (lb - la)
            fc = fn(math.exp(c))
        else:
            la, c, fc = c, d, fd
            d = la + g * (lb - la)
            fd = fn(math.exp(d))
        if lb - la < 1e-5:  # focal length to 0.001 %
            break
    return math.exp((la + lb) / 2.0)


# -- finding and checking the corner markers ----------------------------------------
def find_corner_markers(image: NDArray[np.uint8], setup: Setup, *, source: str = "the image",
                        camera: CameraIntrinsics | None = None) -> MarkerDetections:
    """Detect the four corner markers, or explain which are missing and what to check.

    With ``camera`` (a lens model), marker edges are straightened before their corners
    are fitted.

    Raises
    ------
    CalibrationError
        When a corner id is missing or seen twice.
    """
    return _find_markers(image, setup, source=source, camera=camera)[0]


def _find_markers(image: NDArray[np.uint8], setup: Setup, *, source: str = "the image",
                  camera: CameraIntrinsics | None = None, min_corners: int = 4, large_first: bool = False
                  ) -> tuple[MarkerDetections, MarkerDetections]:
    """Return the corner markers (at least ``min_corners`` of them) and every marker found.

    With ``large_first``, squares well under a corner marker's size are left out of a first
    look (at 4K the base markers' refinement is half the work); only when that does not find
    each corner marker exactly once is every square looked at. The corners found are the
    same: each marker's outline and edge fit are its own.
    """
    if large_first:
        side = _corner_side_guess_px(image.shape[:2], setup)
        large = detect_markers(image, dictionary=setup.markers.dictionary, camera=camera,
                               min_side_px=max(DEFAULT_MIN_SIDE_PX, LARGE_FIRST_FRACTION * side))
        corners = large.select(np.isin(large.ids, CORNER_IDS))
        if sorted(corners.ids.tolist()) == list(CORNER_IDS):
            return corners, large
    found = detect_markers(image, dictionary=setup.markers.dictionary, camera=camera)
    corners = found.select(np.isin(found.ids, CORNER_IDS))
    if len(set(corners.ids.tolist())) < len(CORNER_IDS):
        corners = _second_look(image, setup, corners, camera)
    ids = corners.ids.tolist()
    duplicates = sorted({i for i in ids if ids.count(i) > 1})
    if duplicates:
        raise CalibrationError(
            f"{source}: corner marker(s) {_join(duplicates)} seen more than once; "
            "keep exactly one of each corner marker 0-3 in view")
    missing = [i for i in CORNER_IDS if i not in ids]
    if len(missing) > len(CORNER_IDS) - min_corners:
        seen = found.ids.tolist()
        seen_text = f"markers seen: {_join(seen)}" if seen else "no ArUco marker at all was seen"
        seen_msg = ({"msg": "calibration.markers_seen", "params": {"ids": seen}} if seen
                    else {"msg": "calibration.no_marker_seen", "params": {}})
        raise CalibrationError(
            f"{source}: found {len(ids)} of the 4 corner markers ({seen_text}); missing corner marker(s) "
            f"{_join(missing)}. Check that the whole table is in view, the light is even with no glare "
            f"on the markers, each marker lies flat in its corner (0 top-left, 1 top-right, 2 bottom-right, "
            f"3 bottom-left) and that they were printed from the {setup.markers.dictionary} dictionary",
            msg_id="calibration.corners_missing",
            # the default source is a message too: the page words it ("l'image")
            params={"source": source if source != "the image" else {"msg": "calibration.the_image", "params": {}},
                    "found": len(ids), "seen": seen_msg, "missing": missing,
                    "dictionary": setup.markers.dictionary})
    return corners, found


LARGE_FIRST_FRACTION = 0.2
"""The first look for the corner markers with a known lens keeps squares of at least this
fraction of :func:`_corner_side_guess_px`. On the sample and dev scenes the corner markers
measure 0.32 to 0.78 of the guess and the base markers at most 0.16 (a 12 mm marker is a
fifth of a 60 mm one, and the table rarely spans the image's longer side)."""


def _corner_side_guess_px(shape: tuple[int, ...], setup: Setup) -> float:
    """A corner marker's side in px when the table's longer side spans the image's longer side."""
    return float(max(shape[:2]) * setup.markers.corner_size_mm / max(setup.table.width_mm, setup.table.depth_mm))


SECOND_LOOK_CONSTANTS = (5.0, 12.0)
"""Adaptive threshold constants tried, with OpenCV's own (7), when a corner marker is missing."""


def _second_look(image: NDArray[np.uint8], setup: Setup, corners: MarkerDetections,
                 camera: CameraIntrinsics | None) -> MarkerDetections:
    """Look again for missing corner markers with other threshold settings.

    Whether OpenCV closes the outline of a large marker seen through a strong lens
    depends on its adaptive threshold in a way that is hard to predict (one sample image:
    found with windows of 29, 41 or 53 px, not with 23, 35 or 47); a few other settings,
    tried only when a corner marker is missing, recover it. Then, as a last resort, squares are
    read against the four corner codes only: near where the corner markers found put the
    others when they tell (:func:`_expected_corners`), so that a base's disc misread as a
    corner marker elsewhere cannot spoil the layout; the pose then comes from those found.
    """
    if len(corners):
        side = float(np.median(corners.side_px))
    else:  # the table roughly fills the image
        side = _corner_side_guess_px(image.shape, setup)
    low, high = max(3, int(side * 0.3)), max(5, int(side * 0.7))
    sized = (low, high, max(2, (high - low) // 3))
    attempts: list[tuple[Any, float | None]] = [(sized, None), *((None, c) for c in SECOND_LOOK_CONSTANTS)]
    attempts.append(("white margin", None))
    for windows, constant in attempts:
        if windows == "white margin":
            again = _look_inside_white_margin(image, setup, side, camera)
        else:
            again = detect_markers(image, dictionary=setup.markers.dictionary, camera=camera,
                                   threshold_windows_px=windows, threshold_constant=constant)
        extra = again.select(np.isin(again.ids, CORNER_IDS) & ~np.isin(again.ids, corners.ids))
        if len(extra):
            logger.info("corner marker(s) %s found with threshold windows %s, constant %s",
                        extra.ids.tolist(), windows, constant)
            ids = np.concatenate([corners.ids, extra.ids])
            order = np.argsort(ids, kind="stable")
            corners = MarkerDetections(ids[order], np.concatenate([corners.corners_px, extra.corners_px])[order])
        if len(set(corners.ids.tolist())) == len(CORNER_IDS):
            break
    else:
        # Last resort: read outlined squares against the four corner codes only, with the most
        # cells corrected those four codes allow (glare, a finger over a cell): where the corner
        # markers found put the others when they can tell, else everywhere.
        expected = _expected_corners(corners, setup, camera)
        if expected is None:
            again = read_corner_markers(image, dictionary=setup.markers.dictionary, corner_ids=tuple(CORNER_IDS),
                                        min_side_px=max(8.0, side * 0.4), max_side_px=side * 2.5)
        else:
            again = _read_corners_where_expected(image, setup, expected)
        extra = again.select(np.isin(again.ids, CORNER_IDS) & ~np.isin(again.ids, corners.ids))
        if len(extra):
            logger.info("corner marker(s) %s read against the corner codes only", extra.ids.tolist())
            ids = np.concatenate([corners.ids, extra.ids])
            order = np.argsort(ids, kind="stable")
            corners = MarkerDetections(ids[order], np.concatenate([corners.corners_px, extra.corners_px])[order])
    return corners


CORNER_FIT_SIDES = 0.25
"""The corner markers found predict where the others are only when they fit one table to within
this fraction of their side (RMS). Measured on the realistic renders and the dev scenes, any two
(lens known) or three of the four: at most 0.018 with the lens known, 0.10 without (a homography
through the lens's unmodelled distortion). A marker turned or swapped fits far worse (0.35 side or
more on the tables of tests/calibration/synthetic.py), and is left to :func:`check_corner_layout`
to name."""

CORNER_PLACE_SIDES = 2.0
"""A corner marker read against the four corner codes only is kept when its centre lies within
this many of its sides of where the corner markers found put it. Measured as above, predicting
each corner marker from the others: at most 0.09 side off from three with the lens known (1.2
from two), 1.15 from three without. The false readings that cost two held-out 1080p frames
their answer (a base's disc outlined as a square, its marker inside read as corner 3, as corner
0: the real corner under an arm) lay 8 and 9 sides away."""

CORNER_SIDE_RATIO = 1.6
"""... and when its side is within this ratio of the side they predict (measured: 0.97 to 1.37;
the false readings above: about half)."""


def _expected_corners(corners: MarkerDetections, setup: Setup, camera: CameraIntrinsics | None
                      ) -> MarkerDetections | None:
    """Where the corner markers not in ``corners`` should be in the image, from those found.

    With the lens known, from the pose of two or more found markers; without, from the
    homography of three (through any distortion). None when too few were found, or when
    they do not fit one table (a marker turned or swapped, for the layout check to name).
    """
    ids = corners.ids.tolist()
    if len(set(ids)) != len(ids) or len(ids) < (MIN_CORNERS_KNOWN_LENS if camera is not None else 3):
        return None
    obj_by_id = corner_object_points(setup.table, setup.markers.corner_size_mm)
    obj = np.concatenate([obj_by_id[i] for i in ids])
    img = corners.corners_px.reshape(-1, 2)
    missing = [i for i in CORNER_IDS if i not in ids]
    wanted = np.concatenate([obj_by_id[i] for i in missing]) if missing else np.zeros((0, 2))
    if camera is not None:
        try:
            rvec, tvec, rms = solve_pose(_as3d(obj, 0.0), img, camera)
        except (CalibrationError, cv2.error):
            return None
        fitted = cv2.projectPoints(_as3d(wanted, 0.0), rvec, tvec, camera.matrix, camera.distortion)[0]
    else:
        homography, _ = cv2.findHomography(obj, img, 0)
        if homography is None:
            return None
        fit = cv2.perspectiveTransform(obj.reshape(-1, 1, 2), homography).reshape(-1, 2)
        rms = float(np.sqrt(np.mean(np.sum((fit - img) ** 2, axis=1))))
        fitted = cv2.perspectiveTransform(wanted.reshape(-1, 1, 2), homography)
    if not rms <= CORNER_FIT_SIDES * float(np.mean(corners.side_px)):
        logger.info("the corner markers found do not fit one table (%.1f px RMS): not used to place the others", rms)
        return None
    return MarkerDetections(np.array(missing, dtype=np.int64), np.asarray(fitted, dtype=np.float64).reshape(-1, 4, 2))


def _read_corners_where_expected(image: NDArray[np.uint8], setup: Setup, expected: MarkerDetections
                                 ) -> MarkerDetections:
    """Read each expected corner marker near its expected place only, against its own code.

    A reading elsewhere (a base's disc outlined as a square and misread) or of another
    size is no corner marker; one at the right place but turned is kept, for the layout
    check to name.
    """
    ids: list[int] = []
    quads: list[NDArray[np.float64]] = []
    for marker_id, want, centre, side in zip(expected.ids.tolist(), expected.corners_px, expected.centers_px,
                                             expected.side_px):
        reach = CORNER_PLACE_SIDES * float(side)
        if not (np.all(np.isfinite(want)) and reach > 0):
            continue
        x0, y0 = np.maximum(np.floor(want.min(axis=0) - reach), 0).astype(int)
        x1, y1 = np.minimum(np.ceil(want.max(axis=0) + reach), (image.shape[1], image.shape[0])).astype(int)
        if x1 - x0 < side / 2 or y1 - y0 < side / 2:
            continue                                   # out of the frame
        found = read_corner_markers(image[y0:y1, x0:x1], dictionary=setup.markers.dictionary,
                                    corner_ids=(marker_id,), min_side_px=max(8.0, side / CORNER_SIDE_RATIO),
                                    max_side_px=side * CORNER_SIDE_RATIO)
        for quad, at in zip(found.corners_px, found.centers_px):   # at most one: its fewest corrected cells
            if np.linalg.norm(at + (x0, y0) - centre) <= reach:
                ids.append(marker_id)
                quads.append(quad + (x0, y0))
    if not ids:
        return MarkerDetections.empty()
    return MarkerDetections(np.array(ids), np.array(quads))


def _look_inside_white_margin(image: NDArray[np.uint8], setup: Setup, side_px: float,
                              camera: CameraIntrinsics | None) -> MarkerDetections:
    """Detect markers in the image framed by a white margin.

    A corner marker whose quiet zone is cut off by the edge of the frame has no white
    around it there, and OpenCV drops outlines that touch the border; the margin gives
    them both back. Corners are then refined on the real image (with the lens model).
    """
    gray = np.asarray(cv2.cvtColor(image, cv2.COLOR_BGR2GRAY) if image.ndim == 3 else image, dtype=np.uint8)
    pad = max(8, int(side_px / 2))
    framed = np.asarray(cv2.copyMakeBorder(gray, pad, pad, pad, pad, cv2.BORDER_CONSTANT, value=255), dtype=np.uint8)
    found = detect_markers(framed, dictionary=setup.markers.dictionary, refine=False)
    corners = found.corners_px - pad
    bits = get_dictionary(setup.markers.dictionary).markerSize + 2
    return MarkerDetections(found.ids, refine_corners_by_edges(gray, corners, bits=bits, camera=camera))


def _join(values: list[int]) -> str:
    return ", ".join(str(v) for v in values)


def check_corner_layout(corners: MarkerDetections, table: TableSize, corner_size_mm: float = 60.0, *,
                        source: str = "the image") -> None:
    """Check that the four corner markers lie in the order and orientation the table frame needs.

    Going round the table seen from above, the markers must read 0, 1, 2, 3 (the image
    shows the table from above, so the same turning sense holds in the image), and each
    marker's top edge must face the edge between markers 0 and 1.

    Raises
    ------
    CalibrationError
        Naming the swapped or turned markers.
    """
    centres = {int(i): c for i, c in zip(corners.ids, corners.centers_px)}
    pts = np.array([centres[i] for i in CORNER_IDS])
    middle = pts.mean(axis=0)
    angles = np.arctan2(pts[:, 1] - middle[1], pts[:, 0] - middle[0])
    # increasing image angle (x right, y down) is clockwise on screen: the table's 0-1-2-3 sense
    order = [CORNER_IDS[i] for i in np.argsort(angles)]
    start = order.index(0)
    seq = order[start:] + order[:start]
    if seq != list(CORNER_IDS):
        # the rotation of the ring that needs the fewest moves tells which markers to swap
        rings = [order[r:] + order[:r] for r in range(4)]
        wrong = min(([want for want, got in zip(CORNER_IDS, ring) if want != got] for ring in rings), key=len)
        hint = ""
        if len(wrong) == 2:
            hint = f": markers {wrong[0]} and {wrong[1]} are swapped"
            if set(wrong) == {1, 3}:
                hint += " (or the image is mirrored: turn off the camera's mirror setting)"
        raise CalibrationError(
            f"{source}: the corner markers are in an impossible layout{hint}. Going round the table from "
            f"marker 0 they read {_join(seq)}; they must read 0, 1, 2, 3 (seen from above: 0 top-left, "
            "1 top-right, 2 bottom-right, 3 bottom-left)")
    expected = corner_object_points(table, corner_size_mm)
    mm_centres = np.array([expected[i].mean(axis=0) for i in CORNER_IDS], dtype=np.float32)
    to_image = cv2.getPerspectiveTransform(mm_centres, pts.astype(np.float32))
    turned = []
    for marker_id, detected in zip(corners.ids, corners.corners_px):
        want = cv2.perspectiveTransform(expected[int(marker_id)].reshape(-1, 1, 2), to_image).reshape(4, 2)
        costs = [np.linalg.norm(np.roll(want, -k, axis=0) - detected, axis=1).sum() for k in range(4)]
        k = int(np.argmin(costs))
        if k:
            turned.append(f"marker {int(marker_id)} is turned {90 * k} degrees clockwise")
    if turned:
        raise CalibrationError(
            f"{source}: {'; '.join(turned)}. Lay all four corner markers the same way round, "
            "their top edge (the one above the printed id) facing the edge between markers 0 and 1")


def marker_sightings(found: MarkerDetections, setup: Setup) -> tuple[MarkerSighting, ...]:
    """Base markers among ``found`` as lens observations (ids in play only, when the setup lists them)."""
    from calibration.lens import MarkerSighting

    in_play = set(setup.markers.per_marker)
    out = []
    for marker_id, corners in zip(found.ids.tolist(), found.corners_px):
        if marker_id in CORNER_IDS or (in_play and marker_id not in in_play):
            continue
        out.append(MarkerSighting(int(marker_id), np.array(corners, dtype=np.float64),
                                  setup.markers.size_for(int(marker_id)), setup.markers.base_height_mm))
    return tuple(out)


def lens_from_markers(image: NDArray[np.uint8], found: MarkerDetections, setup: Setup, obj: NDArray[np.float64],
                      img: NDArray[np.float64], size: tuple[int, int], initial: CameraIntrinsics, *,
                      observations_out: list[LensObservation] | None = None) -> tuple[LensFit | None, float | None]:
    """Estimate the lens from one frame: the corner points, the base markers and the table's edges.

    The table's edges are looked for twice: around where the distortion-free first guess
    puts them (a wide search), then around where the first lens estimate does (narrow).
    A lens that fits the corner markers worse than :data:`LENS_CORNER_RMS_OK_PX` is estimated
    again from the markers alone, and the one that fits them better kept; refused when it
    still fits them worse than no distortion at all.

    Returns the lens (None when the frame does not show enough to measure it, or the lens
    was refused) and, when refused, its corner-marker RMS (px).
    """
    from calibration.edges import find_edge_points
    from calibration.lens import LensObservation, fit_lens, markers_alone_if_better

    sightings = marker_sightings(found, setup)
    fixed = np.column_stack([obj[:, :2], -obj[:, 2]])
    table = (setup.table.width_mm, setup.table.depth_mm)
    cam = CameraIntrinsics.pinhole(initial.focal_px, size, estimated=True)
    try:
        rvec, tvec, pinhole_rms = solve_pose(obj, img, cam)
        for window, inside in ((max(12.0, 0.02 * size[0]), None), (max(5.0, 0.003 * size[0]), 4.0)):
            edge_mm, edge_px, normal = find_edge_points(image, cam, rvec, tvec, table,
                                                        corner_mm=setup.markers.corner_size_mm,
                                                        window_px=window, inside_px=inside)
            observation = LensObservation(fixed, img, sightings, edge_mm, edge_px, normal)
            fit = fit_lens([observation], size, initial=cam)
            cam, rvec, tvec = fit.intrinsics, fit.rvecs[-1], fit.tvecs[-1]
    except (CalibrationError, cv2.error, np.linalg.LinAlgError) as exc:
        logger.info("lens not estimated from the markers: %s", exc)
        return None, None
    fit, observation = markers_alone_if_better(fit, observation, size, LENS_CORNER_RMS_OK_PX)
    if fit.fixed_rms_px > max(LENS_CORNER_RMS_OK_PX, pinhole_rms):
        # a lens that fits the corner markers worse than no distortion at all was misled: do not use it
        logger.info("lens from the markers rejected: corner RMS %.2f px, %.2f px without distortion",
                    fit.fixed_rms_px, pinhole_rms)
        return None, fit.fixed_rms_px
    if observations_out is not None:
        observations_out.append(observation)
    return fit, None


def calibrate_table(image: NDArray[np.uint8], setup: Setup, intrinsics: CameraIntrinsics | None = None, *,
                    source: str = "the image", observations_out: list[LensObservation] | None = None
                    ) -> TableCalibration:
    """Calibrate the table from one frame showing its four corner markers.

    Parameters
    ----------
    image : (H, W) or (H, W, 3) uint8
        Grey or BGR camera frame.
    setup : Setup
        Table size, corner marker size and dictionary (and the camera, when given there).
    intrinsics : CameraIntrinsics, optional
        From ``calibrate-camera``. Without them (and without ``setup.camera``) the focal
        length is estimated from this view (principal point at the centre, no
        distortion), ``intrinsics.estimated`` is True and a warning says accuracy is lower.
    source : str
        Name of the image for error messages.
    observations_out : list, optional
        When the lens is estimated from the markers, what this frame showed of them is
        appended here (for :class:`calibration.refine.LensRefiner`, which combines frames).

    Returns
    -------
    TableCalibration

    Raises
    ------
    CalibrationError
        Missing corner markers (naming those seen and missing), markers swapped or turned,
        a pose that does not fit the table size, intrinsics for another image shape.
    """
    image = np.asarray(image)
    height, width = image.shape[:2]
    size = (int(width), int(height))
    if intrinsics is None and setup.camera is not None:
        intrinsics = CameraIntrinsics.from_settings(setup.camera, size)
    if intrinsics is not None:
        intrinsics = intrinsics.scaled_to(size)
    # with a known lens two corner markers (8 points) are enough for the pose
    # with a known lens only the corner markers are used (the others measure an unknown lens)
    corners, found = _find_markers(image, setup, source=source, camera=intrinsics,
                                   min_corners=MIN_CORNERS_KNOWN_LENS if intrinsics is not None else 4,
                                   large_first=intrinsics is not None)
    seen_ids = tuple(i for i in CORNER_IDS if i in corners.ids.tolist())
    warnings: list[str] = []
    if len(seen_ids) == len(CORNER_IDS):
        check_corner_layout(corners, setup.table, setup.markers.corner_size_mm, source=source)
    else:
        hidden = [i for i in CORNER_IDS if i not in seen_ids]
        warnings.append(Said(f"corner marker(s) {_join(hidden)} not seen: the table's pose comes from corner marker(s) "
                             f"{_join(list(seen_ids))} and the known lens", "calibration.corners_not_seen",
                             hidden=_join(hidden), seen=_join(list(seen_ids))))
    obj_by_id = corner_object_points(setup.table, setup.markers.corner_size_mm)
    obj = _as3d(np.concatenate([obj_by_id[i] for i in seen_ids]), 0.0)
    img = np.concatenate([corners.corners_px[list(corners.ids).index(i)] for i in seen_ids])
    lens: LensFit | None = None
    seen: list[LensObservation] = []
    pose: tuple[NDArray[np.float64], NDArray[np.float64]] | None = None
    if intrinsics is None:
        from calibration.lens import MIN_BASE_MARKERS

        intrinsics, note = estimate_focal(obj, img, size)
        lens, misfit_px = lens_from_markers(image, found, setup, obj, img, size, intrinsics, observations_out=seen)
        if lens is not None:
            intrinsics = lens.intrinsics
            pose = (lens.rvecs[-1], lens.tvecs[-1])
            warnings.append(lens_estimated(lens))
        elif misfit_px is not None:
            warnings.append(Said(
                f"no camera calibration given, and the lens measured from the markers on the table does not fit the "
                f"corner markers ({misfit_px:.1f} px): focal length estimated from this view "
                f"({intrinsics.focal_px:.0f} px, principal point at the image centre, lens distortion ignored); "
                "positions will be less accurate (often 5-10 mm at the table's edge): check that each corner marker "
                "lies flush in its corner of the play area, or run 'tabletracker calibrate-camera' and pass --camera",
                "calibration.lens_refused", rms=round(misfit_px, 1), focal=f"{intrinsics.focal_px:.0f}"))
        else:
            warnings.append(Said(
                f"no camera calibration given: focal length estimated from this view ({intrinsics.focal_px:.0f} px, "
                "principal point at the image centre, lens distortion ignored) because fewer than "
                f"{MIN_BASE_MARKERS} base markers were seen to measure the lens; positions will be less accurate "
                "(often 5-10 mm at the table's edge): put a dozen base markers spread over the table in view, "
                "or run 'tabletracker calibrate-camera' and pass --camera", "calibration.focal_from_view",
                focal=f"{intrinsics.focal_px:.0f}", markers=str(MIN_BASE_MARKERS)))
        if lens is None and note:
            warnings.append(note)
    if pose is None:
        rvec, tvec, rms, _used = solve_pose_uncovered(obj, img, intrinsics)
    else:
        rvec, tvec = pose
        proj, _ = cv2.projectPoints(obj, rvec, tvec, intrinsics.matrix, intrinsics.distortion)
        rms = float(np.sqrt(np.mean(np.sum((proj.reshape(-1, 2) - img) ** 2, axis=1))))
    cal = TableCalibration(intrinsics, rvec, tvec, setup.table, setup.markers.corner_size_mm, rms, seen_ids,
                           img, tuple(warnings), lens)
    if cal.camera_height_mm <= 0:
        raise CalibrationError(f"{source}: the solved camera is below the table; check the table size and markers")
    # a lens model without distortion leaves the distortion in the residual: allow for it, and say so
    limit = MAX_CORNER_RMS_PX
    if not intrinsics.has_distortion or lens is not None:
        limit = max(6.0, UNMODELLED_LENS_RMS_FRACTION * math.hypot(width, height))
    if rms > limit:
        raise CalibrationError(
            f"{source}: the corner markers do not fit a flat {setup.table.width_mm:g} x {setup.table.depth_mm:g} mm "
            f"table (corner error {rms:.1f} px, at most {limit:.1f} px expected). Check table.width_mm, "
            "table.depth_mm and markers.corner_size_mm in the setup file and that each marker lies flat and flush "
            "in its corner" + ("" if intrinsics.estimated else ", and that the camera calibration is for this camera"))
    if rms > MAX_CORNER_RMS_PX / 2 and (not intrinsics.has_distortion or lens is not None):
        cal = replace(cal, warnings=cal.warnings + (Said(
            f"the corner markers fit the model only to {rms:.1f} px: lens distortion the model does not know "
            "(calibrate the camera with 'tabletracker calibrate-camera' for millimetre accuracy), or a table size "
            "or corner marker size in the setup file that is not the real one", "calibration.corners_fit_poorly",
            rms=round(rms, 1)),))
    if observations_out is not None and cal.lens is not None:
        observations_out.extend(seen)
    logger.info("table calibrated: corner RMS %.3f px, camera %.0f mm above the table", rms, cal.camera_height_mm)
    return cal
