"""Small exact renderer for calibration tests: flat textures on the table seen by a camera.

Each texture is warped with the exact pinhole homography of its plane into a supersampled
ideal image, lens distortion is applied by remapping, then the image is box-filtered down.
Pixel centres follow OpenCV (integer coordinates), so ground truth is ``cv2.projectPoints``.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from calibration.camera import CameraIntrinsics

MARKER_TEXTURE_PX = 240
QUIET = 1.4


@dataclass(frozen=True)
class Texture:
    image: np.ndarray  # (h, w) uint8
    corners_mm: np.ndarray  # (4, 2) table mm of the image's TL, TR, BR, BL outer corners
    height_mm: float = 0.0


def look_at_pose(camera_mm: tuple[float, float, float], target_mm: tuple[float, float, float],
                 up_hint: tuple[float, float, float] = (0.0, -1.0, 0.0)) -> tuple[np.ndarray, np.ndarray]:
    """Return (rvec, tvec) of a camera at ``camera_mm`` (table frame, z = -height) looking at target.

    The image's y axis goes along the table's +y when the camera looks straight down.
    """
    c = np.asarray(camera_mm, float)
    z = np.asarray(target_mm, float) - c
    z /= np.linalg.norm(z)
    up = -np.asarray(up_hint, float)  # image y direction hint (down in image = +y table)
    x = np.cross(up, z)
    x /= np.linalg.norm(x)
    y = np.cross(z, x)
    rot = np.stack([x, y, z])  # rows: camera axes in table frame
    rvec, _ = cv2.Rodrigues(rot)
    tvec = -rot @ c
    return rvec.reshape(3), tvec.reshape(3)


def marker_texture(marker_id: int, dictionary: str = "DICT_4X4_250", px: int = MARKER_TEXTURE_PX) -> np.ndarray:
    d = cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, dictionary))
    return cv2.aruco.generateImageMarker(d, marker_id, px)


def square_mm(center: tuple[float, float], side: float) -> np.ndarray:
    x, y = center
    h = side / 2.0
    return np.array([[x - h, y - h], [x + h, y - h], [x + h, y + h], [x - h, y + h]])


def table_textures(width_mm: float, depth_mm: float, *, corner_mm: float = 60.0,
                   order: tuple[int, int, int, int] = (0, 1, 2, 3),
                   rotations: tuple[int, int, int, int] = (0, 0, 0, 0),
                   extra: tuple[tuple[int, float, float, float, float], ...] = ()) -> list[Texture]:
    """Corner markers (ids ``order`` at TL, TR, BR, BL) with quiet zones, plus extra markers.

    ``rotations`` turns each corner marker by k * 90 degrees. ``extra`` holds
    (id, x_mm, y_mm, side_mm, height_mm) base markers.
    """
    h = corner_mm / 2.0
    centres = [(h, h), (width_mm - h, h), (width_mm - h, depth_mm - h), (h, depth_mm - h)]
    mat = np.array([[0, 0], [width_mm, 0], [width_mm, depth_mm], [0, depth_mm]], float)
    out = [Texture(_mat_texture(), mat)]
    for marker_id, centre, rot in zip(order, centres, rotations):
        img = np.rot90(marker_texture(marker_id), k=rot).copy()
        # printed on paper with a quiet zone that overhangs the table edge
        out.append(Texture(np.full((64, 64), 245, np.uint8), square_mm(centre, corner_mm * QUIET)))
        out.append(Texture(img, square_mm(centre, corner_mm)))
    for marker_id, x, y, side, height in extra:
        out.append(Texture(np.full((64, 64), 250, np.uint8), square_mm((x, y), side * 1.5), height))
        out.append(Texture(marker_texture(marker_id), square_mm((x, y), side), height))
    return out


def _mat_texture(px: int = 512) -> np.ndarray:
    """A mottled mid-grey mat (seeded), so the table is not a flat colour."""
    rng = np.random.default_rng(7)
    coarse = rng.normal(0.0, 1.0, (16, 16)).astype(np.float32)
    mottled = cv2.resize(coarse, (px, px), interpolation=cv2.INTER_CUBIC)
    return np.clip(150 + 12 * mottled, 0, 255).astype(np.uint8)


def _points3d(points_mm: np.ndarray, height_mm: float) -> np.ndarray:
    p = np.asarray(points_mm, float).reshape(-1, 2)
    return np.column_stack([p, np.full(len(p), -height_mm)])


def project(cam: CameraIntrinsics, rvec: np.ndarray, tvec: np.ndarray, points_mm: np.ndarray,
            height_mm: float = 0.0, *, distort: bool = True) -> np.ndarray:
    dist = cam.distortion if distort else np.zeros(5)
    px, _ = cv2.projectPoints(_points3d(points_mm, height_mm), np.asarray(rvec, float), np.asarray(tvec, float),
                              cam.matrix, dist)
    return px.reshape(-1, 2)


def render(cam: CameraIntrinsics, rvec: np.ndarray, tvec: np.ndarray, textures: list[Texture], *,
           supersample: int = 3, background: int = 60, blur_sigma: float = 0.0, noise_sigma: float = 0.0,
           seed: int = 0) -> np.ndarray:
    """Return the grey uint8 image of ``textures`` seen by the camera."""
    w, h = cam.image_size
    s = supersample
    big = np.full((h * s, w * s), float(background), np.float32)
    # final px p -> supersampled q = s p + (s - 1) / 2
    scale = np.array([[s, 0, (s - 1) / 2.0], [0, s, (s - 1) / 2.0], [0, 0, 1]])
    for tex in textures:
        th, tw = tex.image.shape
        src = np.array([[-0.5, -0.5], [tw - 0.5, -0.5], [tw - 0.5, th - 0.5], [-0.5, th - 0.5]], np.float32)
        dst = project(cam, rvec, tvec, tex.corners_mm, tex.height_mm, distort=False)
        dst = (np.column_stack([dst, np.ones(4)]) @ scale.T)[:, :2].astype(np.float32)
        x0, y0 = np.maximum(np.floor(dst.min(axis=0)).astype(int) - 2, 0)
        x1, y1 = np.minimum(np.ceil(dst.max(axis=0)).astype(int) + 3, (w * s, h * s))
        if x1 <= x0 or y1 <= y0:
            continue
        shift = np.array([[1, 0, -x0], [0, 1, -y0], [0, 0, 1]], float)
        hom = shift @ cv2.getPerspectiveTransform(src, dst)
        box = (int(x1 - x0), int(y1 - y0))
        warped = cv2.warpPerspective(tex.image.astype(np.float32), hom, box, flags=cv2.INTER_LINEAR)
        mask = cv2.warpPerspective(np.ones((th, tw), np.float32), hom, box, flags=cv2.INTER_LINEAR,
                                   borderValue=0.0)
        region = big[y0:y1, x0:x1]
        big[y0:y1, x0:x1] = region * (1.0 - mask) + warped * mask
    if cam.has_distortion:
        step = 8
        gx = np.arange(0, w * s + step, step, dtype=np.float64)
        gy = np.arange(0, h * s + step, step, dtype=np.float64)
        qx, qy = np.meshgrid(gx, gy)
        p = np.column_stack([(qx.ravel() - (s - 1) / 2.0) / s, (qy.ravel() - (s - 1) / 2.0) / s])
        ideal = cam.undistort_px(p) * s + (s - 1) / 2.0
        mx = ideal[:, 0].reshape(qx.shape).astype(np.float32)
        my = ideal[:, 1].reshape(qx.shape).astype(np.float32)
        up = np.array([[step, 0.0, 0.0], [0.0, step, 0.0]])  # full (x, y) samples coarse (x, y) / step
        full_x = cv2.warpAffine(mx, up, (w * s, h * s), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
        full_y = cv2.warpAffine(my, up, (w * s, h * s), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
        big = cv2.remap(big, full_x, full_y, cv2.INTER_LINEAR, borderValue=float(background))
    img = cv2.resize(big, (w, h), interpolation=cv2.INTER_AREA)
    if blur_sigma > 0:
        img = cv2.GaussianBlur(img, (0, 0), blur_sigma)
    if noise_sigma > 0:
        img = img + np.random.default_rng(seed).normal(0.0, noise_sigma, img.shape).astype(np.float32)
    return np.clip(np.rint(img), 0, 255).astype(np.uint8)


@dataclass(frozen=True)
class Scene:
    image: np.ndarray
    cam: CameraIntrinsics
    rvec: np.ndarray
    tvec: np.ndarray
    width_mm: float
    depth_mm: float


def table_scene(width_mm: float = 600.0, depth_mm: float = 600.0, *, image_size: tuple[int, int] = (960, 720),
                focal_px: float | None = None, distortion: tuple[float, ...] = (0, 0, 0, 0, 0),
                camera_mm: tuple[float, float, float] | None = None, tilt_deg: float = 0.0,
                noise_sigma: float = 1.0, supersample: int = 3, **texture_kwargs) -> Scene:
    """A table seen from a camera ``camera_mm`` (default: above the centre, framing the table)."""
    w, h = image_size
    if focal_px is None:
        focal_px = 0.8 * w
    cam = CameraIntrinsics(np.array([[focal_px, 0, (w - 1) / 2 + 3.0], [0, focal_px, (h - 1) / 2 - 2.0], [0, 0, 1]]),
                           np.array(distortion, float), image_size)
    centre = (width_mm / 2, depth_mm / 2, 0.0)
    if camera_mm is None:
        # height so the table fills ~85 % of the shorter image side
        span = max(width_mm * h / w, depth_mm)
        height = focal_px * span / (0.85 * h)
        off = height * np.tan(np.radians(tilt_deg))
        camera_mm = (width_mm / 2, depth_mm / 2 + off, -height)
    rvec, tvec = look_at_pose(camera_mm, centre)
    tex = table_textures(width_mm, depth_mm, **texture_kwargs)
    image = render(cam, rvec, tvec, tex, noise_sigma=noise_sigma, blur_sigma=0.6, supersample=supersample)
    return Scene(image, cam, rvec, tvec, width_mm, depth_mm)


def board_texture(spec, px_per_mm: float = 8.0) -> np.ndarray:
    """The ChArUco board image, exactly ``spec.width_mm`` x ``spec.height_mm``."""
    from calibration.charuco import make_board

    board = make_board(spec)
    return board.generateImage((int(round(spec.width_mm * px_per_mm)), int(round(spec.height_mm * px_per_mm))),
                               marginSize=0)


def board_views(cam: CameraIntrinsics, spec, count: int = 8, *, distance_mm: float = 450.0,
                max_tilt_deg: float = 40.0, noise_sigma: float = 1.0, seed: int = 1) -> list[np.ndarray]:
    """Photos of a ChArUco board from ``count`` directions around it (seeded)."""
    rng = np.random.default_rng(seed)
    w, d = spec.width_mm, spec.height_mm
    paper = np.array([[-15, -15], [w + 15, -15], [w + 15, d + 15], [-15, d + 15]], float)
    textures = [Texture(np.full((64, 64), 250, np.uint8), paper),
                Texture(board_texture(spec), np.array([[0, 0], [w, 0], [w, d], [0, d]], float))]
    images = []
    for k in range(count):
        tilt = np.radians(max_tilt_deg * (0.3 + 0.7 * ((k % 4) / 3)))
        turn = 2 * np.pi * k / count + rng.uniform(-0.2, 0.2)
        # look beside the board so that it lands in turn near each part of the image
        aim = [(0, 0), (1, 1), (-1, 1), (1, -1), (-1, -1), (1, 0), (0, 1), (-1, 0)][k % 8]
        target = (w / 2 + 0.55 * w * aim[0] + rng.uniform(-10, 10), d / 2 + 0.55 * d * aim[1] + rng.uniform(-10, 10), 0.0)
        r = distance_mm * rng.uniform(0.9, 1.1)
        camera = (target[0] + r * np.sin(tilt) * np.cos(turn), target[1] + r * np.sin(tilt) * np.sin(turn),
                  -r * np.cos(tilt))
        rvec, tvec = look_at_pose(camera, target)
        images.append(render(cam, rvec, tvec, textures, background=90, noise_sigma=noise_sigma, blur_sigma=0.5,
                             seed=seed + k))
    return images
