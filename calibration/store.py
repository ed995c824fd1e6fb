"""Files of the calibration package: camera.json, calibration.json and camera images.

Every error names the file and, for JSON, the field (:class:`calibration.fields.Reader`).

Examples
--------
>>> import tempfile, pathlib
>>> cam = CameraIntrinsics.pinhole(1400.0, (1920, 1080))
>>> path = pathlib.Path(tempfile.mkdtemp()) / "camera.json"
>>> save_intrinsics(path, cam, rms_px=0.21)
>>> load_intrinsics(path).focal_px
1400.0
>>> _ = path.write_text('{"matrix": [[1, 0, 0]], "distortion": [], "image_size": [640, 480]}')
>>> load_intrinsics(path)  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
calibration.errors.CalibrationError: .../camera.json: matrix must be a 3x3 array of numbers
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

from calibration.camera import DISTORTION_LENGTHS, CameraIntrinsics
from calibration.errors import CalibrationError
from calibration.fields import Reader, read_json_file
from calibration.images import load_image as load_image  # the images' reader, kept importable from here
from calibration.setup import TableSize
from calibration.table import TableCalibration
from tabletracker.words import Said

CALIBRATION_FORMAT = "tabletracker-table-calibration"
CAMERA_FORMAT = "tabletracker-camera"
FORMAT_VERSION = 1


# -- JSON helpers -------------------------------------------------------------------
def _write_json(path: Path, document: dict[str, Any]) -> None:
    try:
        path.write_text(json.dumps(document, indent=2) + "\n", encoding="utf-8")
    except OSError as exc:
        raise CalibrationError(f"{path}: cannot write ({exc.strerror or exc})") from None


def intrinsics_to_dict(cam: CameraIntrinsics) -> dict[str, Any]:
    """Return the JSON document of camera intrinsics."""
    return {"matrix": cam.matrix.tolist(), "distortion": cam.distortion.tolist(),
            "image_size": list(cam.image_size), "estimated": cam.estimated}


def _parse_intrinsics(r: Reader) -> CameraIntrinsics:
    rows = r.array("matrix")
    if len(rows) != 3 or not all(isinstance(row, list) and len(row) == 3 for row in rows):
        r.fail("must be a 3x3 array of numbers", "matrix")
    matrix = [Reader({"row": row}, source=r.source, error=r.error, path=f"{r.where('matrix')}[{i}]").numbers("row")
              for i, row in enumerate(rows)]
    distortion = r.numbers("distortion")
    if len(distortion) not in DISTORTION_LENGTHS:
        r.fail(f"must have 4, 5, 8, 12 or 14 coefficients (OpenCV's order), got {len(distortion)}", "distortion")
    size = r.array("image_size")
    if len(size) != 2 or not all(isinstance(v, int) and not isinstance(v, bool) and v > 0 for v in size):
        r.fail(f"must be [width, height] in pixels (two positive integers), got {size!r}", "image_size")
    estimated = r.boolean("estimated", False)
    try:
        return CameraIntrinsics(np.array(matrix), np.array(distortion), (size[0], size[1]), estimated)
    except CalibrationError as exc:
        r.fail(f"is not a camera model: {exc}")
        raise  # unreachable: fail() raises


# -- camera.json --------------------------------------------------------------------
def save_intrinsics(path: str | Path, cam: CameraIntrinsics, *, rms_px: float | None = None,
                    views: int | None = None) -> None:
    """Write camera intrinsics (camera.json), with the calibration's RMS error when known."""
    doc: dict[str, Any] = {"format": CAMERA_FORMAT, "version": FORMAT_VERSION, **intrinsics_to_dict(cam)}
    if rms_px is not None:
        doc["rms_px"] = float(rms_px)
    if views is not None:
        doc["views"] = int(views)
    _write_json(Path(path), doc)


def load_intrinsics(path: str | Path) -> CameraIntrinsics:
    """Read camera.json as written by ``tabletracker calibrate-camera``.

    Raises
    ------
    CalibrationError
        Naming the file and the field at fault.
    """
    path = Path(path)
    r = Reader(read_json_file(path, what="camera file", error=CalibrationError), source=str(path),
               error=CalibrationError)
    r.only(("format", "version", "matrix", "distortion", "image_size", "estimated", "rms_px", "views"))
    _check_format(r, CAMERA_FORMAT)
    r.number("rms_px", None)
    r.integer("views", None)
    return _parse_intrinsics(r)


def _check_format(r: Reader, expected: str) -> None:
    fmt = r.string("format", expected)
    if fmt != expected:
        r.fail(f"must be {expected!r}, got {fmt!r} (is this the right file?)", "format")
    version = r.integer("version", FORMAT_VERSION)
    if version != FORMAT_VERSION:
        r.fail(f"must be {FORMAT_VERSION}, got {version} (written by another version of tabletracker)", "version")


# -- calibration.json ---------------------------------------------------------------
def calibration_to_dict(cal: TableCalibration) -> dict[str, Any]:
    """Return the JSON document of a table calibration."""
    return {
        "format": CALIBRATION_FORMAT, "version": FORMAT_VERSION,
        "camera": intrinsics_to_dict(cal.intrinsics),
        "pose": {"rvec": cal.rvec.tolist(), "tvec": cal.tvec.tolist()},
        "table": {"width_mm": cal.table.width_mm, "depth_mm": cal.table.depth_mm},
        "corner_size_mm": cal.corner_size_mm,
        "reprojection_rms_px": cal.reprojection_rms_px,
        "corner_ids": list(cal.corner_ids),
        "corners_px": cal.corners_px.tolist(),
        "warnings": list(cal.warnings),
        # each warning's message id and parameters (null for one without), for the edges to word it
        "warning_words": [{"msg": w.msg_id, "params": dict(w.params)} if isinstance(w, Said) else None
                          for w in cal.warnings],
    }


def save_calibration(path: str | Path, cal: TableCalibration) -> None:
    """Write a table calibration (calibration.json)."""
    _write_json(Path(path), calibration_to_dict(cal))


def parse_calibration(data: Any, *, source: str = "calibration file") -> TableCalibration:
    """Validate a parsed calibration document and return the :class:`TableCalibration`."""
    r = Reader(data, source=source, error=CalibrationError)
    r.only(("format", "version", "camera", "pose", "table", "corner_size_mm", "reprojection_rms_px",
            "corner_ids", "corners_px", "warnings", "warning_words"))
    _check_format(r, CALIBRATION_FORMAT)
    camera = r.child("camera")
    camera.only(("matrix", "distortion", "image_size", "estimated"))
    cam = _parse_intrinsics(camera)
    pose = r.child("pose")
    pose.only(("rvec", "tvec"))
    rvec = pose.numbers("rvec", length=3)
    tvec = pose.numbers("tvec", length=3)
    table = r.child("table")
    table.only(("width_mm", "depth_mm"))
    size = TableSize(table.number("width_mm", positive=True), table.number("depth_mm", positive=True))
    corner_mm = r.number("corner_size_mm", 60.0, positive=True)
    rms = r.number("reprojection_rms_px", 0.0)
    ids = r.array("corner_ids", [0, 1, 2, 3])
    if not ids or not all(isinstance(i, int) and not isinstance(i, bool) and 0 <= i <= 3 for i in ids):
        r.fail(f"must list corner marker ids from 0 to 3, got {ids!r}", "corner_ids")
    corners = r.array("corners_px", [])
    if corners and (len(corners) != 4 * len(ids) or not all(
            isinstance(p, list) and len(p) == 2 and all(isinstance(v, (int, float)) and not isinstance(v, bool)
                                                        for v in p) for p in corners)):
        r.fail(f"must hold {4 * len(ids)} [x, y] pixel pairs (4 per corner marker)", "corners_px")
    warnings = r.array("warnings", [])
    if not all(isinstance(w, str) for w in warnings):
        r.fail("must be an array of strings", "warnings")
    words = r.array("warning_words", [None] * len(warnings))
    if len(words) != len(warnings) or not all(
            w is None or (isinstance(w, dict) and isinstance(w.get("msg"), str) and isinstance(w.get("params"), dict))
            for w in words):
        r.fail("must hold, for each warning, null or its {\"msg\": id, \"params\": {...}}", "warning_words")
    warnings = [Said(w, m["msg"], **m["params"]) if m is not None else w for w, m in zip(warnings, words)]
    return TableCalibration(cam, np.array(rvec), np.array(tvec), size, corner_mm, rms, tuple(ids),
                            np.array(corners, dtype=np.float64).reshape(-1, 2), tuple(warnings))


def load_calibration(path: str | Path) -> TableCalibration:
    """Read calibration.json as written by ``tabletracker calibrate``.

    Raises
    ------
    CalibrationError
        Naming the file and the field at fault.
    """
    path = Path(path)
    return parse_calibration(read_json_file(path, what="calibration file", error=CalibrationError), source=str(path))
