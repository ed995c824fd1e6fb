"""Camera intrinsics: the pinhole matrix and lens distortion of one camera at one resolution.

A :class:`CameraIntrinsics` is frozen and its arrays are read-only. It comes from a
ChArUco calibration (:mod:`calibration.charuco`), from a setup file's ``camera`` block
(:meth:`CameraIntrinsics.from_settings`) or, lacking both, from a single view of the
table (:func:`calibration.table.calibrate_table` sets ``estimated=True``).

Examples
--------
>>> cam = CameraIntrinsics.pinhole(1400.0, (1920, 1080))
>>> float(cam.matrix[0, 2]), float(cam.matrix[1, 2]), cam.estimated
(959.5, 539.5, False)
>>> cam.scaled_to((960, 540)).focal_px
700.0
>>> CameraIntrinsics(np.eye(3), np.zeros(5), (0, 10))
Traceback (most recent call last):
...
calibration.errors.CalibrationError: image_size must be two positive integers (width, height), got (0, 10)
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import cv2
import numpy as np
from numpy.typing import ArrayLike, NDArray

from calibration.errors import CalibrationError

if TYPE_CHECKING:
    from calibration.setup import CameraSettings

DISTORTION_LENGTHS = (4, 5, 8, 12, 14)
"""Numbers of distortion coefficients OpenCV accepts, in its order (k1, k2, p1, p2, k3, ...)."""

_UNDISTORT_CRITERIA = (cv2.TERM_CRITERIA_COUNT | cv2.TERM_CRITERIA_EPS, 100, 1e-12)


def _readonly(values: ArrayLike, shape: tuple[int, ...] | None, name: str) -> NDArray[np.float64]:
    array = np.array(values, dtype=np.float64)
    if shape is not None and array.shape != shape:
        raise CalibrationError(f"{name} must have shape {shape}, got {array.shape}")
    if not np.all(np.isfinite(array)):
        raise CalibrationError(f"{name} must hold finite numbers, got {array.tolist()}")
    array.flags.writeable = False
    return array


@dataclass(frozen=True)
class CameraIntrinsics:
    """The pinhole model and distortion of a camera at one image size.

    Parameters
    ----------
    matrix : (3, 3) float
        OpenCV camera matrix ``[[fx, 0, cx], [0, fy, cy], [0, 0, 1]]`` in pixels.
    distortion : (k,) float
        OpenCV distortion coefficients (k1, k2, p1, p2[, k3, ...]); k is 4, 5, 8, 12 or 14.
    image_size : (int, int)
        (width, height) in pixels of the images this model describes.
    estimated : bool
        True when guessed from a single view of the table (focal length only, principal
        point at the image centre, no distortion): positions are then less accurate.
    """

    matrix: NDArray[np.float64]
    distortion: NDArray[np.float64] = field(default_factory=lambda: np.zeros(5))
    image_size: tuple[int, int] = (0, 0)
    estimated: bool = False

    def __post_init__(self) -> None:
        size = tuple(self.image_size)
        if len(size) != 2 or not all(isinstance(v, (int, np.integer)) and v > 0 for v in size):
            raise CalibrationError(
                f"image_size must be two positive integers (width, height), got {self.image_size!r}")
        object.__setattr__(self, "image_size", (int(size[0]), int(size[1])))
        matrix = _readonly(self.matrix, (3, 3), "camera matrix")
        if matrix[0, 0] <= 0 or matrix[1, 1] <= 0:
            raise CalibrationError(
                f"camera matrix focal lengths fx, fy must be positive, got {matrix[0, 0]}, {matrix[1, 1]}")
        if not np.allclose(matrix[2], (0.0, 0.0, 1.0)) or matrix[1, 0] != 0.0:
            raise CalibrationError(
                f"camera matrix must look like [[fx, 0, cx], [0, fy, cy], [0, 0, 1]], got {matrix.tolist()}")
        distortion = _readonly(np.ravel(self.distortion), None, "distortion")
        if distortion.size not in DISTORTION_LENGTHS:
            raise CalibrationError(
                f"distortion must have 4, 5, 8, 12 or 14 coefficients (OpenCV's order), got {distortion.size}")
        object.__setattr__(self, "matrix", matrix)
        object.__setattr__(self, "distortion", distortion)
        object.__setattr__(self, "estimated", bool(self.estimated))

    # -- constructors ------------------------------------------------------------
    @classmethod
    def pinhole(cls, focal_px: float, image_size: tuple[int, int], *, estimated: bool = False) -> CameraIntrinsics:
        """Return a distortion-free camera of focal ``focal_px`` with the principal point at the centre.

        The centre of a ``w`` x ``h`` image is ``((w - 1) / 2, (h - 1) / 2)`` in OpenCV's
        pixel-centre convention.
        """
        w, h = image_size
        matrix = np.array([[focal_px, 0.0, (w - 1) / 2.0], [0.0, focal_px, (h - 1) / 2.0], [0.0, 0.0, 1.0]])
        return cls(matrix, np.zeros(5), (int(w), int(h)), estimated)

    @classmethod
    def from_settings(cls, camera_settings: CameraSettings, image_size: tuple[int, int]) -> CameraIntrinsics:
        """Return the intrinsics written in a setup file's ``camera`` block, for ``image_size``."""
        return cls(np.array(camera_settings.matrix, dtype=np.float64),
                   np.array(camera_settings.distortion, dtype=np.float64), image_size)

    # -- properties --------------------------------------------------------------
    @property
    def focal_px(self) -> float:
        """Mean focal length (fx + fy) / 2 in pixels."""
        return float((self.matrix[0, 0] + self.matrix[1, 1]) / 2.0)

    @property
    def has_distortion(self) -> bool:
        """Whether any distortion coefficient is non-zero."""
        return bool(np.any(self.distortion != 0.0))

    @property
    def horizontal_fov_deg(self) -> float:
        """Horizontal field of view in degrees."""
        return math.degrees(2.0 * math.atan2(self.image_size[0] / 2.0, self.matrix[0, 0]))

    # -- conversions ---------------------------------------------------------------
    def scaled_to(self, image_size: tuple[int, int]) -> CameraIntrinsics:
        """Return these intrinsics for the same camera streaming at another resolution.

        Only valid when the new size keeps the aspect ratio (the camera scales, not crops).

        Raises
        ------
        CalibrationError
            When the aspect ratios differ by more than 1 %.
        """
        w0, h0 = self.image_size
        w1, h1 = image_size
        if (w0, h0) == (w1, h1):
            return self
        if abs((w1 / h1) / (w0 / h0) - 1.0) > 0.01:
            raise CalibrationError(
                f"the camera was calibrated at {w0}x{h0} but the image is {w1}x{h1} (another shape): "
                f"calibrate the camera again at {w1}x{h1}")
        sx, sy = w1 / w0, h1 / h0
        m = np.array(self.matrix)
        m[0, 0] *= sx
        m[1, 1] *= sy
        m[0, 2] = (m[0, 2] + 0.5) * sx - 0.5
        m[1, 2] = (m[1, 2] + 0.5) * sy - 0.5
        return CameraIntrinsics(m, self.distortion, (int(w1), int(h1)), self.estimated)

    def normalized(self, points_px: ArrayLike) -> NDArray[np.float64]:
        """Return the undistorted normalised image coordinates (x/z, y/z) of pixels.

        Parameters
        ----------
        points_px : (N, 2) float
            Pixel coordinates in the (distorted) image.

        Returns
        -------
        (N, 2) float
            Ray directions (x, y, 1) in the camera frame, without their 1.
        """
        pts = np.asarray(points_px, dtype=np.float64).reshape(-1, 1, 2)
        if pts.shape[0] == 0:
            return np.zeros((0, 2))
        out = cv2.undistortPoints(pts, self.matrix, self.distortion, criteria=_UNDISTORT_CRITERIA)
        return np.asarray(out, dtype=np.float64).reshape(-1, 2)

    def undistort_px(self, points_px: ArrayLike) -> NDArray[np.float64]:
        """Return where (N, 2) pixels would be in a distortion-free image with the same matrix."""
        n = self.normalized(points_px)
        return n * np.diag(self.matrix)[:2] + self.matrix[:2, 2]

    def distort_px(self, ideal_px: ArrayLike) -> NDArray[np.float64]:
        """Return where (N, 2) pixels of the distortion-free image appear in the real image.

        The inverse of :meth:`undistort_px`.
        """
        pts = np.asarray(ideal_px, dtype=np.float64).reshape(-1, 2)
        if len(pts) == 0:
            return np.zeros((0, 2))
        rays = np.column_stack([(pts - self.matrix[:2, 2]) / np.diag(self.matrix)[:2], np.ones(len(pts))])
        px, _ = cv2.projectPoints(rays, np.zeros(3), np.zeros(3), self.matrix, self.distortion)
        return np.asarray(px, dtype=np.float64).reshape(-1, 2)
