"""A pinhole camera with OpenCV lens distortion, posed above the table.

The pose follows the shared convention: a table point ``(x_mm, y_mm, -height_mm)``
maps to camera coordinates ``X_cam = R X + t`` (``R`` from ``rvec``), exactly as
``cv2.projectPoints`` and ``cv2.solvePnP`` do.

Examples
--------
>>> cam = look_at_camera(600, 600, image_size=(1920, 1080), height_mm=1000)
>>> px = cam.project_table([[300.0, 300.0]])
>>> [round(float(v), 3) for v in px[0]]
[960.0, 540.0]
>>> cam.image_size
(1920, 1080)
>>> look_at_camera(600, 600, tilt_deg=95)
Traceback (most recent call last):
...
ValueError: tilt_deg must be in [0, 80) degrees, got 95
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Sequence

import cv2
import numpy as np

Distortion = tuple[float, float, float, float, float]
NO_DISTORTION: Distortion = (0.0, 0.0, 0.0, 0.0, 0.0)


def _readonly(a: Any, shape: tuple[int, ...]) -> np.ndarray:
    arr = np.array(a, dtype=np.float64).reshape(shape)
    arr.flags.writeable = False
    return arr


@dataclass(frozen=True, eq=False)
class CameraModel:
    """Intrinsics, distortion and pose of a camera over the table.

    Attributes
    ----------
    matrix : (3, 3) float, pixels
    distortion : (5,) float, OpenCV order ``(k1, k2, p1, p2, k3)``
    rvec, tvec : (3,) float; table frame (mm, z = -height) to camera frame
    image_size : (width, height) in pixels
    """

    matrix: np.ndarray
    distortion: np.ndarray
    rvec: np.ndarray
    tvec: np.ndarray
    image_size: tuple[int, int]

    def __post_init__(self) -> None:
        object.__setattr__(self, "matrix", _readonly(self.matrix, (3, 3)))
        object.__setattr__(self, "distortion", _readonly(self.distortion, (5,)))
        object.__setattr__(self, "rvec", _readonly(self.rvec, (3,)))
        object.__setattr__(self, "tvec", _readonly(self.tvec, (3,)))
        w, h = self.image_size
        if int(w) <= 0 or int(h) <= 0:
            raise ValueError(f"image_size must be two positive integers, got {self.image_size!r}")
        object.__setattr__(self, "image_size", (int(w), int(h)))

    @property
    def rotation(self) -> np.ndarray:
        """The (3, 3) rotation matrix ``R`` of the pose."""
        return cv2.Rodrigues(self.rvec)[0]

    @property
    def centre_mm(self) -> np.ndarray:
        """The camera's optical centre in the table frame, (3,) mm (z = -height)."""
        return -self.rotation.T @ self.tvec

    def project(self, points_xyz: Any) -> np.ndarray:
        """Project (N, 3) table-frame points (z = -height) to (N, 2) distorted image pixels."""
        pts = np.asarray(points_xyz, dtype=np.float64).reshape(-1, 3)
        if len(pts) == 0:
            return np.zeros((0, 2))
        px, _ = cv2.projectPoints(pts, self.rvec, self.tvec, self.matrix, self.distortion)
        return px.reshape(-1, 2)

    def project_table(self, points_mm: Any, height_mm: float = 0.0) -> np.ndarray:
        """Project (N, 2) table points at ``height_mm`` above the table to (N, 2) pixels."""
        pts = np.asarray(points_mm, dtype=np.float64).reshape(-1, 2)
        xyz = np.column_stack([pts, np.full(len(pts), -float(height_mm))])
        return self.project(xyz)

    def project_undistorted(self, points_xyz: Any) -> np.ndarray:
        """Project (N, 3) table-frame points ignoring lens distortion (ideal pinhole), pixels."""
        pts = np.asarray(points_xyz, dtype=np.float64).reshape(-1, 3)
        px, _ = cv2.projectPoints(pts, self.rvec, self.tvec, self.matrix, np.zeros(5))
        return px.reshape(-1, 2)

    def normalized_rays(self, points_px: Any) -> np.ndarray:
        """Undistort (N, 2) pixels to (N, 2) normalized camera coordinates ``(X/Z, Y/Z)``.

        Newton's method on OpenCV's (k1, k2, p1, p2, k3) model, to full float64
        precision (round trip through ``cv2.projectPoints`` < 1e-9 px).
        """
        pts = np.asarray(points_px, dtype=np.float64).reshape(-1, 2)
        k = self.matrix
        xd = (pts[:, 0] - k[0, 2]) / k[0, 0]
        yd = (pts[:, 1] - k[1, 2]) / k[1, 1]
        if not np.any(self.distortion):
            return np.column_stack([xd, yd])
        k1, k2, p1, p2, k3 = (float(v) for v in self.distortion)
        x, y = xd.copy(), yd.copy()
        for _ in range(30):
            r2 = x * x + y * y
            radial = 1 + r2 * (k1 + r2 * (k2 + r2 * k3))
            dr = k1 + r2 * (2 * k2 + 3 * k3 * r2)
            fx = x * radial + 2 * p1 * x * y + p2 * (r2 + 2 * x * x) - xd
            fy = y * radial + p1 * (r2 + 2 * y * y) + 2 * p2 * x * y - yd
            jxx = radial + 2 * x * x * dr + 2 * p1 * y + 6 * p2 * x
            jyy = radial + 2 * y * y * dr + 6 * p1 * y + 2 * p2 * x
            jxy = 2 * x * y * dr + 2 * p1 * x + 2 * p2 * y
            det = jxx * jyy - jxy * jxy
            step_x = (jyy * fx - jxy * fy) / det
            step_y = (jxx * fy - jxy * fx) / det
            x -= step_x
            y -= step_y
            if max(float(np.abs(step_x).max()), float(np.abs(step_y).max())) < 1e-13:
                break
        return np.column_stack([x, y])

    def to_dict(self) -> dict[str, Any]:
        """Return the JSON form used by the sample truth files (``camera`` and ``pose``)."""
        return {
            "camera": {"matrix": self.matrix.tolist(), "distortion": self.distortion.tolist()},
            "pose": {"rvec": self.rvec.tolist(), "tvec": self.tvec.tolist()},
        }


def _look_rotation(centre: np.ndarray, target: np.ndarray, yaw_rad: float) -> np.ndarray:
    """Rotation whose camera z looks from ``centre`` at ``target`` with image x near table +x (rotated by yaw)."""
    z = target - centre
    z = z / np.linalg.norm(z)
    x_hint = np.array([math.cos(yaw_rad), math.sin(yaw_rad), 0.0])
    x = x_hint - z * float(x_hint @ z)
    x = x / np.linalg.norm(x)
    y = np.cross(z, x)
    return np.vstack([x, y, z])  # rows: camera axes in table coordinates


def look_at_camera(
    table_w_mm: float,
    table_d_mm: float,
    image_size: tuple[int, int] = (1920, 1080),
    height_mm: float = 1200.0,
    tilt_deg: float = 0.0,
    yaw_deg: float = 0.0,
    fov_margin: float = 1.1,
    distortion: Sequence[float] = NO_DISTORTION,
) -> CameraModel:
    """Return a camera ``height_mm`` above the table that frames the whole play area.

    The camera looks at the table's centre. With ``tilt_deg`` > 0 it stands back from
    the centre toward the ``y = depth`` edge (the players' side) by ``height * tan(tilt)``;
    ``yaw_deg`` turns the whole set-up about the vertical through the table centre (the
    image x axis follows table +x rotated by ``yaw_deg`` toward +y). The focal length is
    the largest that keeps the table, enlarged by ``fov_margin``, inside the image with
    the lens distortion applied; the principal point is the image centre.

    Parameters
    ----------
    table_w_mm, table_d_mm : float
        Play area size in mm.
    image_size : (int, int)
        Image width and height in pixels.
    height_mm : float
        Camera height above the table top, mm.
    tilt_deg : float
        Angle between the optical axis and the vertical, degrees in [0, 80).
    yaw_deg : float
        Rotation of the view about the vertical, degrees.
    fov_margin : float
        >= 1; 1.1 leaves 10 % of free border around the table.
    distortion : sequence of 5 floats
        OpenCV ``(k1, k2, p1, p2, k3)``.

    Raises
    ------
    ValueError
        On a non-positive size or height, a tilt outside [0, 80) or a margin below 1.
    """
    if table_w_mm <= 0 or table_d_mm <= 0:
        raise ValueError(f"table size must be positive, got {table_w_mm} x {table_d_mm} mm")
    if height_mm <= 0:
        raise ValueError(f"height_mm must be positive, got {height_mm}")
    if not 0 <= tilt_deg < 80:
        raise ValueError(f"tilt_deg must be in [0, 80) degrees, got {tilt_deg}")
    if fov_margin < 1:
        raise ValueError(f"fov_margin must be >= 1, got {fov_margin}")
    dist = tuple(float(v) for v in distortion)
    if len(dist) != 5:
        raise ValueError(f"distortion must have 5 coefficients (k1, k2, p1, p2, k3), got {len(dist)}")
    w, h = int(image_size[0]), int(image_size[1])
    yaw = math.radians(yaw_deg)
    tilt = math.radians(tilt_deg)
    target = np.array([table_w_mm / 2, table_d_mm / 2, 0.0])
    back = height_mm * math.tan(tilt)
    # "Back" is toward +y for yaw 0, turned with the yaw.
    centre = target + np.array([-math.sin(yaw) * back, math.cos(yaw) * back, -height_mm])
    rot = _look_rotation(centre, target, yaw)
    rvec = cv2.Rodrigues(rot)[0].ravel()
    tvec = -rot @ centre
    # Outline of the table, densely sampled, in camera coordinates.
    s = np.linspace(0.0, 1.0, 41)
    outline = np.concatenate([
        np.column_stack([s * table_w_mm, np.zeros_like(s)]),
        np.column_stack([s * table_w_mm, np.full_like(s, table_d_mm)]),
        np.column_stack([np.zeros_like(s), s * table_d_mm]),
        np.column_stack([np.full_like(s, table_w_mm), s * table_d_mm]),
    ])
    xyz = np.column_stack([outline, np.zeros(len(outline))]) @ rot.T + tvec
    xn, yn = xyz[:, 0] / xyz[:, 2], xyz[:, 1] / xyz[:, 2]
    cx, cy = w / 2.0, h / 2.0
    f = min(cx / (fov_margin * np.abs(xn).max()), cy / (fov_margin * np.abs(yn).max()))
    half_w, half_h = cx / fov_margin, cy / fov_margin
    table_xyz = np.column_stack([outline, np.zeros(len(outline))])

    def fits(focal: float) -> bool:
        cam = CameraModel(np.array([[focal, 0, cx], [0, focal, cy], [0, 0, 1.0]]), dist, rvec, tvec, (w, h))
        px = cam.project(table_xyz)
        return bool(np.all(np.abs(px[:, 0] - cx) <= half_w + 1e-6) and np.all(np.abs(px[:, 1] - cy) <= half_h + 1e-6))

    # Barrel distortion pulls the table inward: grow the focal length while it still fits;
    # pincushion pushes it out: shrink until it fits.
    for _ in range(200):
        if fits(f):
            break
        f *= 0.98
    else:
        raise ValueError("cannot frame the table with this distortion; use milder coefficients")
    lo, hi = f, f
    while fits(hi * 1.05) and hi < 20 * f:
        hi *= 1.05
    hi *= 1.05
    lo = hi / 1.05
    for _ in range(30):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if fits(mid) else (lo, mid)
    return CameraModel(np.array([[lo, 0, cx], [0, lo, cy], [0, 0, 1.0]]), dist, rvec, tvec, (w, h))
