"""Camera calibration from photos of the kit's ChArUco board.

The board (``calibration.board.KIT_BOARD``: 7 x 5 squares of 30 mm, 22 mm markers from
``DICT_5X5_100``) is found with ``cv2.aruco.CharucoDetector``; its chessboard corners from
every usable photo go to ``cv2.calibrateCameraExtended``. A good calibration has an RMS
reprojection error below 0.3 px.

Examples
--------
>>> board = make_board(BoardSpec(squares_x=5, squares_y=4))
>>> board.getChessboardCorners().shape
(12, 3)
>>> make_board(BoardSpec(marker_mm=40.0))
Traceback (most recent call last):
...
calibration.errors.CalibrationError: the board's markers (40 mm) must be smaller than its squares (30 mm)
"""

from __future__ import annotations

import logging
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from calibration.aruco import get_dictionary
from calibration.board import KIT_BOARD, BoardSpec
from calibration.camera import CameraIntrinsics
from calibration.errors import CalibrationError
from tabletracker.words import Said

logger = logging.getLogger(__name__)

MIN_VIEWS = 4
"""Fewest usable photos for the full lens model (tangential terms); fewer get a simpler model."""

MIN_CORNERS_PER_VIEW = 8
"""Fewest chessboard corners for a photo to be used."""

GOOD_RMS_PX = 0.3
"""A calibration with an RMS error below this is good."""

MAX_RMS_PX = 2.0
"""Above this RMS error the photos do not fit one camera: the calibration is refused."""

MANY_VIEWS = 15
"""From this many usable photos the sixth-order radial term k3 is fitted too."""

MIN_COVERAGE = 0.5
"""Below this fraction of the image covered by the board, distortion near the edges is a guess."""

MAX_FOCAL_SPREAD = 0.05
"""Refuse a calibration whose focal length is uncertain by more than this fraction."""


@dataclass(frozen=True)
class ViewReport:
    """What one photo gave: corners found (and where), whether it was used, its own RMS error."""

    name: str
    corners_found: int
    used: bool
    reason: str = ""
    rms_px: float | None = None
    corners_px: NDArray[np.float64] = field(default_factory=lambda: np.zeros((0, 2)))

    def __post_init__(self) -> None:
        corners = np.array(self.corners_px, dtype=np.float64).reshape(-1, 2)
        corners.flags.writeable = False
        object.__setattr__(self, "corners_px", corners)


def image_coverage(report: Sequence[ViewReport], image_size: tuple[int, int]) -> float:
    """Return the fraction of the image inside the convex hull of every corner used.

    Lens distortion is measured only where the board was seen; outside, it is extrapolated.

    Examples
    --------
    >>> r = ViewReport("a", 4, True, corners_px=[[0, 0], [50, 0], [50, 50], [0, 50]])
    >>> image_coverage([r], (100, 100))
    0.25
    """
    used = [r.corners_px for r in report if r.used and len(r.corners_px)]
    if not used:
        return 0.0
    points = np.concatenate(used).astype(np.float32)
    if len(points) < 3:
        return 0.0
    hull = cv2.convexHull(points)
    return float(cv2.contourArea(hull)) / float(image_size[0] * image_size[1])


def make_board(spec: BoardSpec = KIT_BOARD) -> cv2.aruco.CharucoBoard:
    """Return OpenCV's ChArUco board for ``spec`` (lengths in mm).

    Raises
    ------
    CalibrationError
        For a board OpenCV cannot build (bad sizes or dictionary).
    """
    if spec.squares_x < 2 or spec.squares_y < 2:
        raise CalibrationError(
            f"the board needs at least 2 x 2 squares, got {spec.squares_x} x {spec.squares_y}",
            msg_id="camera.board_too_small", params={"x": str(spec.squares_x), "y": str(spec.squares_y)})
    if spec.square_mm <= 0 or spec.marker_mm <= 0:
        raise CalibrationError(
            f"square and marker sizes must be positive, got {spec.square_mm:g} mm and {spec.marker_mm:g} mm",
            msg_id="camera.sizes_positive", params={"square": f"{spec.square_mm:g}", "marker": f"{spec.marker_mm:g}"})
    if spec.marker_mm >= spec.square_mm:
        raise CalibrationError(
            f"the board's markers ({spec.marker_mm:g} mm) must be smaller than its squares ({spec.square_mm:g} mm)",
            msg_id="camera.markers_too_large",
            params={"square": f"{spec.square_mm:g}", "marker": f"{spec.marker_mm:g}"})
    dictionary = get_dictionary(spec.dictionary)
    markers_needed = (spec.squares_x * spec.squares_y) // 2
    available = dictionary.bytesList.shape[0]
    if markers_needed > available:
        raise CalibrationError(
            f"a {spec.squares_x} x {spec.squares_y} board needs {markers_needed} markers but {spec.dictionary} "
            f"has only {available}; choose a larger dictionary", msg_id="camera.dictionary_too_small",
            params={"x": str(spec.squares_x), "y": str(spec.squares_y), "needed": str(markers_needed),
                    "dictionary": spec.dictionary, "available": str(available)})
    return cv2.aruco.CharucoBoard((spec.squares_x, spec.squares_y), float(spec.square_mm), float(spec.marker_mm),
                                  dictionary)


def detect_board(image: NDArray[np.uint8],
                 board: cv2.aruco.CharucoBoard) -> tuple[NDArray[np.float64], NDArray[np.int64]]:
    """Return the board's chessboard corners found in ``image``: (N, 2) px and their (N,) ids."""
    gray = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY) if image.ndim == 3 else image
    params = cv2.aruco.DetectorParameters()
    params.cornerRefinementMethod = cv2.aruco.CORNER_REFINE_NONE  # the chessboard corners are refined instead
    detector = cv2.aruco.CharucoDetector(board, cv2.aruco.CharucoParameters(), params)
    corners, ids, _marker_corners, _marker_ids = detector.detectBoard(gray)
    if ids is None or corners is None or len(ids) == 0:
        return np.zeros((0, 2)), np.zeros(0, dtype=np.int64)
    return np.asarray(corners, np.float64).reshape(-1, 2), np.asarray(ids, np.int64).reshape(-1)


def _load(item: NDArray[np.uint8] | str | Path, index: int) -> tuple[str, NDArray[np.uint8]]:
    if isinstance(item, (str, Path)):
        from calibration.store import load_image  # file I/O stays in the edge module

        return str(item), load_image(item)
    array = np.asarray(item)
    if array.dtype != np.uint8 or array.ndim not in (2, 3):
        raise CalibrationError(f"image {index + 1}: expected an 8-bit grey or BGR image, "
                               f"got {array.dtype} {array.shape}")
    return f"image {index + 1}", array


def calibrate_camera(images: Sequence[NDArray[np.uint8] | str | Path], board: BoardSpec = KIT_BOARD, *,
                     names: Sequence[str] | None = None) -> tuple[CameraIntrinsics, float, tuple[ViewReport, ...]]:
    """Calibrate a camera from photos of a ChArUco board (see :func:`calibrate_camera_model`)."""
    cam, rms, reports, _model = calibrate_camera_model(images, board, names=names)
    return cam, rms, reports


def calibrate_camera_model(images: Sequence[NDArray[np.uint8] | str | Path], board: BoardSpec = KIT_BOARD, *,
                           names: Sequence[str] | None = None
                           ) -> tuple[CameraIntrinsics, float, tuple[ViewReport, ...], str]:
    """Calibrate a camera from photos of a ChArUco board, with the richest lens model they support.

    From few photos (or photos that are much alike) a full lens model is not determined;
    rather than refusing, the richest model of :data:`LENS_MODELS` whose values are all
    well determined (:data:`WELL_DETERMINED`) is used, down to the focal length alone with
    the principal point at the image centre; its name is returned.

    Parameters
    ----------
    images : sequence of (H, W[, 3]) uint8 arrays or image paths
        Photos of the whole board from different angles, all at the same resolution.
    board : BoardSpec
        The printed board (the kit's by default).
    names : sequence of str, optional
        Names of the images for the report (default: their paths, or "image N").

    Returns
    -------
    intrinsics : CameraIntrinsics
    rms_px : float
        RMS reprojection error over all corners used (good below 0.3 px).
    report : tuple of ViewReport
        One per photo: corners found, used or why not, and its RMS error.
    model : str
        The lens model chosen.

    Raises
    ------
    CalibrationError
        No usable photo (saying what to do), photos of different sizes, a series that does
        not fit one camera, or one whose focal length even the simplest model cannot tell.
    """
    cv_board = make_board(board)
    total = (board.squares_x - 1) * (board.squares_y - 1)
    reports: list[ViewReport] = []
    obj_points, img_points, used_index = [], [], []
    views_seen: list[tuple[str, NDArray[Any], NDArray[Any]]] = []
    size: tuple[int, int] | None = None
    for i, item in enumerate(images):
        name, image = _load(item, i)
        if names is not None and i < len(names):
            name = names[i]
        h, w = image.shape[:2]
        if size is None:
            size = (w, h)
        elif size != (w, h):
            raise CalibrationError(
                f"{name}: is {w}x{h} but the first photo is {size[0]}x{size[1]}; "
                "take every photo at the same resolution as the camera will stream", msg_id="camera.other_size",
                params={"name": name, "size": f"{w}x{h}", "first": f"{size[0]}x{size[1]}"})
        corners, ids = detect_board(image, cv_board)
        reason = ""
        if len(ids) < MIN_CORNERS_PER_VIEW:
            reason = Said(f"only {len(ids)} of {total} board corners found", "camera.view.few_corners",
                          found=str(len(ids)), total=str(total))
        elif cv_board.checkCharucoCornersCollinear(ids.reshape(-1, 1).astype(np.int32)):
            reason = Said("the corners found lie on one line", "camera.view.one_line")
        if reason:
            reports.append(ViewReport(name, len(ids), False, reason))
            continue
        twin = _same_view(ids, corners, views_seen)
        if twin is not None:
            reports.append(ViewReport(name, len(ids), False, Said(f"the same view as {twin} (move the board or camera)",
                                                                  "camera.view.same", other=twin)))
            continue
        views_seen.append((name, ids.reshape(-1), corners.reshape(-1, 2)))
        obj, img = cv_board.matchImagePoints(corners.reshape(-1, 1, 2).astype(np.float32),  # type: ignore[call-overload]
                                             ids.reshape(-1, 1))
        obj_points.append(obj.astype(np.float32))
        img_points.append(img.astype(np.float32))
        used_index.append(len(reports))
        reports.append(ViewReport(name, len(ids), True, corners_px=corners))
    if size is None:
        raise CalibrationError("no photo given: pass photos of the ChArUco board", msg_id="camera.no_photo")
    if not obj_points:
        raise CalibrationError(
            f"only {len(obj_points)} of {len(reports)} photos show enough of the board (at least one, and "
            f"{MIN_VIEWS} or more for a full lens model, with {MIN_CORNERS_PER_VIEW} or more corners are needed): "
            "take more photos from different angles, each with the whole board in view, in even light without "
            "glare on the board" + _unused_text(reports), msg_id="camera.too_few_views",
            params={"usable": str(len(obj_points)), "photos": str(len(reports)), "views": str(MIN_VIEWS),
                    "corners": str(MIN_CORNERS_PER_VIEW), "unused": _unused_words(reports)})
    model, (rms, matrix, dist, std_intr, per_view) = _choose_model(obj_points, img_points, size)
    per_view = np.asarray(per_view).reshape(-1)
    for k, index in enumerate(used_index):
        r = reports[index]
        reports[index] = ViewReport(r.name, r.corners_found, True, "", float(per_view[k]), r.corners_px)
    intrinsics = CameraIntrinsics(matrix, np.asarray(dist).reshape(-1)[:5], size)
    _check_result(float(rms), intrinsics, np.asarray(std_intr).reshape(-1), reports)
    coverage = image_coverage(reports, size)
    if coverage < MIN_COVERAGE:  # the command line warns in the user's language (image_coverage tells a caller)
        logger.info("the board covered %.0f %% of the image: lens distortion near its edges is extrapolated",
                    100 * coverage)
    logger.info("camera calibrated from %d photos: RMS %.3f px, f = %.1f px, lens model %s", len(obj_points), rms,
                intrinsics.focal_px, model)
    return intrinsics, float(rms), tuple(reports), model


_NO_TANGENT = cv2.CALIB_ZERO_TANGENT_DIST | cv2.CALIB_FIX_K3
_FIXED_CENTRE = cv2.CALIB_FIX_PRINCIPAL_POINT | cv2.CALIB_FIX_ASPECT_RATIO
LENS_MODELS: tuple[tuple[str, int, tuple[str, ...]], ...] = (
    ("focal, principal point, k1, k2, k3, p1, p2", 0, ("f", "c", "k1", "k2", "k3", "p")),
    ("focal, principal point, k1, k2, p1, p2", cv2.CALIB_FIX_K3, ("f", "c", "k1", "k2", "p")),
    ("focal, principal point, k1, k2", _NO_TANGENT, ("f", "c", "k1", "k2")),
    ("focal, principal point, k1", _NO_TANGENT | cv2.CALIB_FIX_K2, ("f", "c", "k1")),
    ("focal, k1 (principal point at the centre)", _NO_TANGENT | cv2.CALIB_FIX_K2 | _FIXED_CENTRE, ("f", "k1")),
    ("focal only (principal point at the centre, no distortion)",
     _NO_TANGENT | cv2.CALIB_FIX_K1 | cv2.CALIB_FIX_K2 | _FIXED_CENTRE, ("f",)),
)
"""Lens models from the richest to the simplest: name, OpenCV flags, what is estimated."""

MODEL_RMS_SLACK = 1.5
"""A simpler lens model is kept only if its RMS error is within this factor of the richest model's."""

WELL_DETERMINED = {"f": 0.01, "c": 0.01, "k1": 0.02, "k2": 0.05, "k3": 0.1, "p": 0.002}
"""Largest standard deviation of each estimated value for a model to count as supported by the
photos (focal and principal point as a fraction of the image width, the others as they are)."""


def _supported(std: NDArray[np.float64], matrix: NDArray[np.float64], width: int, estimated: tuple[str, ...]) -> bool:
    std = np.where(np.isfinite(std), std, np.inf)
    sds = {"f": max(std[0], std[1]) / matrix[0, 0], "c": max(std[2], std[3]) / width,
           "k1": std[4], "k2": std[5], "p": max(std[6], std[7]), "k3": std[8]}
    return all(sds[name] <= WELL_DETERMINED[name] for name in estimated)


def _choose_model(obj_points: list[Any], img_points: list[Any], size: tuple[int, int]
                  ) -> tuple[str, tuple[float, NDArray[np.float64], NDArray[np.float64], NDArray[np.float64], Any]]:
    """Calibrate with the richest lens model the photos determine well (:data:`WELL_DETERMINED`).

    k3 is tried only from :data:`MANY_VIEWS` photos (with a small board and few views it
    soaks up noise), the full model only from :data:`MIN_VIEWS`. When no model is well
    determined the simplest is returned (the caller's checks then say what is missing).
    """
    candidates = [m for m in LENS_MODELS if "k3" not in m[2] or len(obj_points) >= MANY_VIEWS]
    if len(obj_points) < MIN_VIEWS:
        candidates = [m for m in candidates if "p" not in m[2]]
    results = []
    for name, flags, estimated in candidates:
        try:
            rms, matrix, dist, _r, _t, std_intr, _std_ext, per_view = cv2.calibrateCameraExtended(
                obj_points, img_points, size, np.eye(3), np.zeros(5), flags=flags)
        except cv2.error as exc:
            logger.info("lens model %s: %s", name, exc)
            continue
        m = np.asarray(matrix, dtype=np.float64)
        if np.all(np.isfinite(m)) and math.isfinite(rms):
            results.append((name, estimated, (float(rms), m, np.asarray(dist, dtype=np.float64),
                                              np.asarray(std_intr, dtype=np.float64).reshape(-1), per_view)))
    if not results:
        raise CalibrationError("OpenCV could not calibrate from these photos: take them again, sharper, with the "
                               "whole board in view", msg_id="camera.opencv_failed")
    # a simpler model that fits clearly worse than the richest is biased (a lens it leaves out), not simpler
    best_rms = min(r[2][0] for r in results)
    for name, estimated, fit in results:
        if fit[0] <= MODEL_RMS_SLACK * best_rms + 0.05 and _supported(fit[3], fit[1], size[0], estimated):
            return name, fit
        logger.info("lens model %s not well determined by these %d photos (RMS %.3f px)", name, len(obj_points),
                    fit[0])
    raise CalibrationError(
        f"these {len(obj_points)} photo(s) do not tell the camera's focal length and lens apart (the photos are too "
        "alike): add photos with the board tilted 20-45 degrees toward and away from the camera, and near the image "
        "corners", msg_id="camera.too_alike", params={"n": str(len(obj_points))})


SAME_VIEW_PX = 2.0
"""Two photos whose common board corners all lie within this many pixels are one view."""


def _same_view(ids: NDArray[Any], corners: NDArray[Any], seen: list[tuple[str, NDArray[Any], NDArray[Any]]]
               ) -> str | None:
    """Name of an earlier photo showing the board at the same place (a repeated photo adds nothing)."""
    ids = ids.reshape(-1)
    pts = corners.reshape(-1, 2)
    for name, other_ids, other_pts in seen:
        common, a, b = np.intersect1d(ids, other_ids, return_indices=True)
        if len(common) >= MIN_CORNERS_PER_VIEW and np.max(np.linalg.norm(pts[a] - other_pts[b], axis=1)) < SAME_VIEW_PX:
            return name
    return None


def _unused_words(reports: list[ViewReport]) -> Any:
    """:func:`_unused_text` as a message (an empty text when every photo was used)."""
    unused = [_message("camera.view.unused", name=r.name, reason=_message(r.reason.msg_id, **r.reason.params)
                     if isinstance(r.reason, Said) else r.reason) for r in reports if not r.used]
    return _message("camera.not_usable", photos=unused) if unused else ""


def _message(msg_id: str, **params: Any) -> dict[str, Any]:
    """A message as a parameter of another (``{"msg": id, "params": {...}}``)."""
    return {"msg": msg_id, "params": params}


def _unused_text(reports: list[ViewReport]) -> str:
    unused = [f"{r.name} ({r.reason})" for r in reports if not r.used]
    return f". Not usable: {'; '.join(unused)}" if unused else ""


def _check_result(rms: float, cam: CameraIntrinsics, std: NDArray[np.float64], reports: list[ViewReport]) -> None:
    if not math.isfinite(rms) or rms > MAX_RMS_PX:
        worst = sorted((r for r in reports if r.used), key=lambda r: -(r.rms_px or 0.0))[:3]
        raise CalibrationError(
            f"the photos do not fit one camera (RMS error {rms:.2f} px, good is below {GOOD_RMS_PX} px): remove "
            f"blurred photos or ones where the board is not flat; worst: "
            + ", ".join(f"{r.name} ({r.rms_px:.2f} px)" for r in worst), msg_id="camera.not_one_camera",
            params={"rms": round(rms, 2), "good": GOOD_RMS_PX,
                    "worst": [_message("camera.worst", name=r.name, rms=round(r.rms_px or 0.0, 2)) for r in worst]})
    spread = float(std[0] / cam.matrix[0, 0]) if std.size and math.isfinite(std[0]) else math.inf
    if spread > MAX_FOCAL_SPREAD:
        raise CalibrationError(
            f"the photos are too alike to tell the focal length (uncertain by {100 * spread:.0f} %): add photos with "
            "the board tilted 20-45 degrees toward and away from the camera, and near the image corners",
            msg_id="camera.focal_uncertain", params={"pct": f"{100 * spread:.0f}"})
