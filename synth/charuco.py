"""Rendered photos of the kit's ChArUco board (calibration/board.py) under one fixed camera.

The board (printed with a white margin) lies at a different distance and angle in each
photo, over a plain table top; the camera has a webcam-like lens distortion. The truth
gives the camera matrix and distortion that ``calibrate-camera`` should recover, and
the pose of the board in each photo.

Examples
--------
>>> poses = board_poses()
>>> len(poses)
12
"""

from __future__ import annotations

import json
import logging
import math
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from calibration.board import KIT_BOARD, BoardSpec
from synth.camera import CameraModel
from synth.raster import RayGrid
from synth.samples import write_sample

log = logging.getLogger(__name__)

IMAGE_SIZE = (1280, 720)
MATRIX = ((900.0, 0.0, 640.0), (0.0, 900.0, 360.0), (0.0, 0.0, 1.0))
DISTORTION = (-0.26, 0.085, 0.0006, -0.0004, 0.0)
TEXTURE_PX_PER_MM = 8.0
PAPER_MARGIN_MM = 12.0
SS = 3
PAPER = (232, 234, 234)
BACKGROUND = (70, 95, 120)


def make_cv_board(spec: BoardSpec = KIT_BOARD) -> cv2.aruco.CharucoBoard:
    """OpenCV's board for ``spec`` (cv2 5.0 default, non-legacy pattern: a marker in the top-left square)."""
    d = cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, spec.dictionary))
    return cv2.aruco.CharucoBoard((spec.squares_x, spec.squares_y), float(spec.square_mm), float(spec.marker_mm), d)


_TARGETS = ((0.12, 0.15), (0.5, 0.12), (0.88, 0.15), (0.1, 0.5), (0.5, 0.5), (0.9, 0.5),
            (0.12, 0.85), (0.5, 0.88), (0.88, 0.85), (0.3, 0.3), (0.7, 0.7), (0.5, 0.5))


def board_poses(seed: int = 7) -> list[tuple[np.ndarray, np.ndarray]]:
    """Twelve (rvec, tvec) board-to-camera poses spread over the image: 300-480 mm away, tilted up to 40 deg."""
    rng = np.random.default_rng(seed)
    w, h = KIT_BOARD.width_mm, KIT_BOARD.height_mm
    cam = _camera(np.zeros(3), np.zeros(3))
    m = PAPER_MARGIN_MM
    paper = np.array([[-m, -m, 0], [w + m, -m, 0], [w + m, h + m, 0], [-m, h + m, 0]], np.float64)
    poses: list[tuple[np.ndarray, np.ndarray]] = []
    for k, (fu, fv) in enumerate(_TARGETS):
        tilt = math.radians(rng.uniform(10, 40) if k != 4 else 0.0)
        direction = rng.uniform(0, 2 * math.pi)
        spin = math.radians(rng.uniform(-30, 30) + (180 if k % 4 == 3 else 0))
        rot = cv2.Rodrigues(np.array([math.cos(direction), math.sin(direction), 0.0]) * tilt)[0] \
            @ cv2.Rodrigues(np.array([0.0, 0.0, spin]))[0]
        dist = rng.uniform(300, 480)
        for _ in range(60):
            ray = cam.normalized_rays([[fu * IMAGE_SIZE[0], fv * IMAGE_SIZE[1]]])[0]
            tvec = np.array([ray[0], ray[1], 1.0]) * dist - rot @ np.array([w / 2, h / 2, 0.0])
            rvec = cv2.Rodrigues(rot)[0].ravel()
            px, _ = cv2.projectPoints(paper, rvec, tvec, cam.matrix, cam.distortion)
            px = px.reshape(-1, 2)
            if px.min() >= 8 and px[:, 0].max() <= IMAGE_SIZE[0] - 8 and px[:, 1].max() <= IMAGE_SIZE[1] - 8:
                break
            fu, fv = 0.5 + 0.93 * (fu - 0.5), 0.5 + 0.93 * (fv - 0.5)  # draw it toward the centre
            dist *= 1.01
        poses.append((rvec, tvec))
    return poses


def _camera(rvec: np.ndarray, tvec: np.ndarray) -> CameraModel:
    return CameraModel(np.array(MATRIX), DISTORTION, rvec, tvec, IMAGE_SIZE)


def render_board(rvec: np.ndarray, tvec: np.ndarray, *, seed: int = 0, noise_sigma: float = 2.0,
                 blur_sigma: float = 0.6) -> np.ndarray:
    """Render the board at pose (rvec, tvec) (board mm -> camera mm) into a BGR image."""
    board = make_cv_board()
    w_mm, h_mm = KIT_BOARD.width_mm, KIT_BOARD.height_mm
    ppmm = TEXTURE_PX_PER_MM
    m = PAPER_MARGIN_MM
    tex_w, tex_h = int(round((w_mm + 2 * m) * ppmm)), int(round((h_mm + 2 * m) * ppmm))
    pattern = board.generateImage((int(round(w_mm * ppmm)), int(round(h_mm * ppmm))), marginSize=0, borderBits=1)
    tex = np.full((tex_h, tex_w), 255, np.uint8)
    off = int(round(m * ppmm))
    tex[off:off + pattern.shape[0], off:off + pattern.shape[1]] = pattern
    tex_bgr = np.where(tex[..., None] > 127, np.array(PAPER, np.uint8), np.array((25, 25, 28), np.uint8))
    cam = _camera(np.zeros(3), np.zeros(3))
    grid = RayGrid(cam, SS)
    rot = cv2.Rodrigues(np.asarray(rvec, np.float64))[0]
    t = np.asarray(tvec, np.float64)
    normal = rot[:, 2]
    wpx, hpx = IMAGE_SIZE
    out = np.empty((hpx * SS, wpx * SS, 3), np.uint8)
    for y0 in range(0, hpx * SS, 480):
        y1 = min(y0 + 480, hpx * SS)
        xn, yn = grid.block(0, wpx * SS, y0, y1)
        with np.errstate(all="ignore"):
            lam = float(normal @ t) / (normal[0] * xn + normal[1] * yn + normal[2])
            px, py, pz = lam * xn - t[0], lam * yn - t[1], lam - t[2]
            bx = rot[0, 0] * px + rot[1, 0] * py + rot[2, 0] * pz
            by = rot[0, 1] * px + rot[1, 1] * py + rot[2, 1] * pz
        mx = ((bx + m) * ppmm - 0.5).astype(np.float32)
        my = ((by + m) * ppmm - 0.5).astype(np.float32)
        out[y0:y1] = cv2.remap(tex_bgr, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT,
                               borderValue=BACKGROUND)
    image = cv2.resize(out, IMAGE_SIZE, interpolation=cv2.INTER_AREA).astype(np.float32)
    rng = np.random.default_rng(seed)
    # A soft light fall-off, as under a desk lamp.
    yy, xx = np.mgrid[0:hpx, 0:wpx]
    light = 1.0 - 0.18 * (((xx - 0.4 * wpx) / wpx) ** 2 + ((yy - 0.45 * hpx) / hpx) ** 2)
    image *= light[..., None].astype(np.float32)
    if blur_sigma > 0:
        image = cv2.GaussianBlur(image, (0, 0), blur_sigma)
    image += rng.standard_normal(image.shape, dtype=np.float32) * np.float32(noise_sigma)
    return np.clip(np.rint(image), 0, 255).astype(np.uint8)


def write_charuco_set(out_dir: Path) -> dict[str, Any]:
    """Render the twelve board photos into ``out_dir`` with ``truth.json``."""
    out_dir.mkdir(parents=True, exist_ok=True)
    for old in out_dir.glob("board_*"):
        old.unlink()
    cam = _camera(np.zeros(3), np.zeros(3))
    board = make_cv_board()
    chess = np.asarray(board.getChessboardCorners(), np.float64)
    images = []
    for k, (rvec, tvec) in enumerate(board_poses()):
        image = render_board(rvec, tvec, seed=100 + k)
        name = f"board_{k:02d}"
        px, _ = cv2.projectPoints(chess, rvec, tvec, cam.matrix, cam.distortion)
        entry = {"image": f"{name}.jpg", "rvec": np.round(rvec, 9).tolist(), "tvec": np.round(tvec, 6).tolist(),
                 "charuco_corners_px": np.round(px.reshape(-1, 2), 4).tolist()}
        images.append(entry)
        jpg, js = write_sample(out_dir / name, image, {"render": {"jpeg_quality": 92}})
        js.unlink()  # one truth file for the set
    doc = {
        "description": "The kit's ChArUco board photographed by one camera (webcam-like lens) at 12 poses",
        "board": {"squares_x": KIT_BOARD.squares_x, "squares_y": KIT_BOARD.squares_y,
                  "square_mm": KIT_BOARD.square_mm, "marker_mm": KIT_BOARD.marker_mm,
                  "dictionary": KIT_BOARD.dictionary, "legacy_pattern": False},
        "image_size": list(IMAGE_SIZE),
        "camera": {"matrix": [list(r) for r in MATRIX], "distortion": list(DISTORTION)},
        "images": images,
        "notes": "charuco_corners_px are the chessboard corners (ids 0..) projected with the true camera",
    }
    (out_dir / "truth.json").write_text(json.dumps(doc, indent=1) + "\n", encoding="utf-8")
    return doc
