"""Test support: a table mapping built from a sample's true camera and pose."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np


@dataclass(frozen=True, eq=False)
class PoseMapping:
    """Image px <-> table mm from a known camera (matrix, distortion, rvec, tvec)."""

    matrix: np.ndarray
    distortion: np.ndarray
    rvec: np.ndarray
    tvec: np.ndarray

    @classmethod
    def from_truth(cls, truth: dict[str, Any]) -> PoseMapping:
        return cls(np.array(truth["camera"]["matrix"], float), np.array(truth["camera"]["distortion"], float),
                   np.array(truth["pose"]["rvec"], float), np.array(truth["pose"]["tvec"], float))

    def to_image_px(self, points_mm: np.ndarray, *, height_mm: float = 0.0) -> np.ndarray:
        p = np.asarray(points_mm, float).reshape(-1, 2)
        xyz = np.column_stack([p, np.full(len(p), -height_mm)])
        px, _ = cv2.projectPoints(xyz, self.rvec, self.tvec, self.matrix, self.distortion)
        return px.reshape(-1, 2)

    def to_table_mm(self, points_px: np.ndarray, *, height_mm: float = 0.0) -> np.ndarray:
        p = np.asarray(points_px, float).reshape(-1, 1, 2)
        n = cv2.undistortPoints(p, self.matrix, self.distortion,
                                criteria=(cv2.TERM_CRITERIA_COUNT | cv2.TERM_CRITERIA_EPS, 50, 1e-12)).reshape(-1, 2)
        rot = cv2.Rodrigues(self.rvec)[0]
        centre = -rot.T @ self.tvec
        rays = np.column_stack([n, np.ones(len(n))]) @ rot        # R^T d for each row d
        lam = (-height_mm - centre[2]) / rays[:, 2]
        return (centre[None, :2] + lam[:, None] * rays[:, :2])


def marker_layer(marker_id: int, quad_px: np.ndarray, size: int) -> tuple[np.ndarray, np.ndarray]:
    """A 4x4 marker printed on the image quad ``quad_px`` (OpenCV's corner order) of a
    ``size`` x ``size`` image: (grey levels, white around it) and its coverage (0-1), float32."""
    tex = cv2.aruco.generateImageMarker(cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_250), marker_id, 120)
    h = cv2.getPerspectiveTransform(np.float32([[-0.5, -0.5], [119.5, -0.5], [119.5, 119.5], [-0.5, 119.5]]),
                                    np.asarray(quad_px, np.float32))
    warped = cv2.warpPerspective(tex, h, (size, size), flags=cv2.INTER_AREA, borderValue=255)
    mask = cv2.warpPerspective(np.full((120, 120), 255, np.uint8), h, (size, size), flags=cv2.INTER_AREA)
    return warped.astype(np.float32), mask.astype(np.float32) / 255.0


# ---------------------------------------------------------------------------------------------
# Sample images (cached per process: each is read and located once)

import functools  # noqa: E402
import json  # noqa: E402
from pathlib import Path  # noqa: E402

SAMPLES = Path(__file__).resolve().parents[2] / "sample_images"


@functools.lru_cache(maxsize=None)
def sample(name: str) -> tuple[np.ndarray, dict[str, Any]]:
    """Return a sample image (read-only) and its ground truth."""
    image = cv2.imread(str(SAMPLES / f"{name}.jpg"), cv2.IMREAD_COLOR)
    if image is None:
        raise FileNotFoundError(f"sample image {name}.jpg is missing from {SAMPLES}")
    image.flags.writeable = False
    return image, json.loads((SAMPLES / f"{name}.json").read_text())


def setup_document(truth: dict[str, Any], *, camera: bool = True) -> dict[str, Any]:
    """The sample's setup file, with the camera intrinsics as 'calibrate-camera' would give them."""
    doc = json.loads(json.dumps(truth["setup"]))
    if camera:
        doc["camera"] = json.loads(json.dumps(truth["camera"]))     # a copy: the truth is cached
    return doc


@functools.lru_cache(maxsize=None)
def located(name: str):  # type: ignore[no-untyped-def]
    """Calibrate the sample from its corner markers (known intrinsics) and locate everything."""
    from calibration.setup import parse_setup
    from calibration.table import calibrate_table
    from tracker.locate import locate_all

    image, truth = sample(name)
    setup = parse_setup(setup_document(truth))
    cal = calibrate_table(np.ascontiguousarray(image), setup)
    return locate_all(np.ascontiguousarray(image), cal, setup), cal, setup
