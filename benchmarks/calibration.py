"""Calibration accuracy on the sample images: run ``.venv/bin/python benchmarks/calibration.py``.

For every ``sample_images/*.json`` scene (ground truth written by the renderer in synth/):

- corner RMS: reprojection error of the 16 corner-marker corners, px (target <= 0.3);
- table-point error, mm, over a 13 x 13 grid across the table, mapping the true image of
  each point back with the calibration (target <= 0.5 mm at 1080p over 1200 mm when the
  camera is calibrated):
  ``true K`` with the true intrinsics; ``no dist`` with the true matrix but distortion
  ignored (what an uncalibrated webcam lens costs); ``est f`` with the focal length
  estimated from the image alone (no camera calibration);
- ``pred``: the error :meth:`TableCalibration.expected_error_mm` predicts (max, mm).

Then the ChArUco photos in ``sample_images/charuco/`` are calibrated (RMS px, focal error
against their truth when it is given). ``--synthetic`` adds scenes rendered by the test
renderer (tests/calibration/synthetic.py) so the figures exist before the samples do.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from calibration.camera import CameraIntrinsics  # noqa: E402
from calibration.charuco import calibrate_camera, image_coverage  # noqa: E402
from calibration.errors import CalibrationError  # noqa: E402
from calibration.setup import parse_setup  # noqa: E402
from calibration.store import load_image  # noqa: E402
from calibration.table import TableCalibration, calibrate_table  # noqa: E402

GRID = 13


def _grid(width: float, depth: float) -> np.ndarray:
    xs, ys = np.meshgrid(np.linspace(0, width, GRID), np.linspace(0, depth, GRID))
    return np.column_stack([xs.ravel(), ys.ravel()])


def _errors(cal: TableCalibration, truth: TableCalibration) -> tuple[float, float]:
    points = _grid(truth.table.width_mm, truth.table.depth_mm)
    px = truth.to_image_px(points)
    err = np.linalg.norm(cal.to_table_mm(px) - points, axis=1)
    return float(np.nanmax(err)), float(np.sqrt(np.nanmean(err**2)))


def evaluate(name: str, image: np.ndarray, setup_doc: dict, cam: CameraIntrinsics, rvec: np.ndarray,
             tvec: np.ndarray) -> dict:
    setup = parse_setup(setup_doc, source=name)
    truth = TableCalibration(cam, rvec, tvec, setup.table)
    row: dict = {"scene": name, "size": f"{cam.image_size[0]}x{cam.image_size[1]}",
                 "table": f"{setup.table.width_mm:g}x{setup.table.depth_mm:g}",
                 "dist": float(np.abs(cam.distortion).max()) > 0}
    try:
        cal = calibrate_table(image, setup, cam, source=name)
    except CalibrationError as exc:
        row["error"] = str(exc)
        return row
    row["rms_px"] = cal.reprojection_rms_px
    row["true_max"], row["true_rms"] = _errors(cal, truth)
    row["pred_max"] = cal.expected_error_mm(trials=60).max_mm
    no_dist = CameraIntrinsics(cam.matrix, np.zeros(5), cam.image_size)
    try:
        row["nodist_max"], _ = _errors(calibrate_table(image, setup, no_dist, source=name), truth)
    except CalibrationError:
        row["nodist_max"] = float("nan")
    try:
        est = calibrate_table(image, setup, None, source=name)
        row["est_max"], _ = _errors(est, truth)
        row["est_f_err"] = est.intrinsics.focal_px / cam.focal_px - 1.0
    except CalibrationError:
        row["est_max"] = row["est_f_err"] = float("nan")
    return row


def sample_scenes(folder: Path):  # type: ignore[no-untyped-def]
    for js in sorted(folder.glob("*.json")):
        doc = json.loads(js.read_text(encoding="utf-8"))
        if "pose" not in doc or "camera" not in doc:
            continue
        size = tuple(doc["image_size"])
        cam = CameraIntrinsics(np.array(doc["camera"]["matrix"]), np.array(doc["camera"]["distortion"]), size)
        image = load_image(folder / doc["image"])
        yield js.stem, image, doc["setup"], cam, np.array(doc["pose"]["rvec"]), np.array(doc["pose"]["tvec"])


def synthetic_scenes():  # type: ignore[no-untyped-def]
    from tests.calibration import synthetic as S

    cases = [
        ("syn-1080p-1200-flat", 1200, 1200, (1920, 1080), 0, (0, 0, 0, 0, 0)),
        ("syn-1080p-1200-tilt20-dist", 1200, 1200, (1920, 1080), 20, (-0.12, 0.05, 0, 0, 0)),
        ("syn-1080p-1200-tilt30-dist", 1200, 1200, (1920, 1080), 30, (-0.12, 0.05, 0, 0, 0)),
        ("syn-1080p-600-tilt15-dist", 600, 600, (1920, 1080), 15, (-0.12, 0.05, 0, 0, 0)),
        ("syn-4k-1200x1800-tilt25-dist", 1800, 1200, (3840, 2160), 25, (-0.1, 0.03, 0, 0, 0)),
    ]
    for name, w, d, size, tilt, dist in cases:
        scene = S.table_scene(w, d, image_size=size, tilt_deg=tilt, distortion=dist, supersample=2)
        setup = {"table": {"width_mm": w, "depth_mm": d}}
        yield name, scene.image, setup, scene.cam, scene.rvec, scene.tvec


def charuco_figures(folder: Path) -> None:
    photos = sorted(p for p in folder.glob("*") if p.suffix.lower() in (".jpg", ".jpeg", ".png"))
    if not photos:
        print(f"\nChArUco: no photos in {folder}")
        return
    start = time.perf_counter()
    try:
        cam, rms, report = calibrate_camera(photos)
    except CalibrationError as exc:
        print(f"\nChArUco: {len(photos)} photos: calibration refused: {exc}")
        return
    used = sum(r.used for r in report)
    print(f"\nChArUco: {used} of {len(photos)} photos used, RMS {rms:.3f} px (target < 0.3), "
          f"f = {cam.focal_px:.1f} px, board covered {100 * image_coverage(report, cam.image_size):.0f} % "
          f"of the image, {time.perf_counter() - start:.1f} s")
    truth_file = folder / "truth.json"
    if truth_file.exists():
        doc = json.loads(truth_file.read_text(encoding="utf-8"))
        true = CameraIntrinsics(np.array(doc["camera"]["matrix"]), np.array(doc["camera"]["distortion"]),
                                tuple(doc["image_size"]))
        seen = np.concatenate([r.corners_px for r in report if r.used])
        lens = np.linalg.norm((cam.undistort_px(seen) - seen) - (true.undistort_px(seen) - seen), axis=1)
        print(f"  against the true camera: focal {100 * (cam.focal_px / true.focal_px - 1):+.2f} %, principal point "
              f"{np.linalg.norm(cam.matrix[:2, 2] - true.matrix[:2, 2]):.1f} px off, distortion correction within "
              f"{lens.max():.2f} px where the board was seen")


def _mm(value: float) -> str:
    return "refused" if not np.isfinite(value) else f"{value:.2f}"


def print_table(rows: list[dict]) -> None:
    head = (f"{'scene':32s} {'image':>9s} {'table mm':>10s} {'rms px':>7s} {'true K':>15s} {'pred':>6s} "
            f"{'no dist':>8s} {'est f':>7s} {'f err':>6s}")
    print(head)
    print("-" * len(head))
    for r in rows:
        if "error" in r:
            reason = r["error"].split(": ", 1)[-1].split(". ")[0]
            print(f"{r['scene']:32s} {r['size']:>9s} {r['table']:>10s}  not calibrated: {reason}")
            continue
        print(f"{r['scene']:32s} {r['size']:>9s} {r['table']:>10s} {r['rms_px']:7.3f} "
              f"{r['true_max']:6.3f} / {r['true_rms']:5.3f} {r['pred_max']:6.3f} {_mm(r['nodist_max']):>8s} "
              f"{_mm(r['est_max']):>7s} {100 * r['est_f_err']:+5.1f}%")
    ok = [r for r in rows if "error" not in r]
    if ok:
        print("-" * len(head))
        print(f"corner RMS: worst {max(r['rms_px'] for r in ok):.3f} px, median "
              f"{float(np.median([r['rms_px'] for r in ok])):.3f} px (target <= 0.3)")
        print(f"table points with true intrinsics: worst {max(r['true_max'] for r in ok):.3f} mm (target <= 0.5)")
        dist = [r for r in ok if r["dist"]]
        if dist:
            print(f"distortion ignored (scenes with distortion): worst {np.nanmax([r['nodist_max'] for r in dist]):.2f} mm")
        print(f"focal estimated from one view: worst {np.nanmax([r['est_max'] for r in ok]):.2f} mm")
    print("columns: true K = max / RMS mm with true intrinsics; pred = predicted max mm; no dist = max mm with "
          "distortion ignored; est f = max mm with the focal length estimated from the image; f err = its error")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=Path, default=ROOT / "sample_images")
    parser.add_argument("--synthetic", action="store_true", help="add scenes from the test renderer")
    args = parser.parse_args()
    rows = []
    start = time.perf_counter()
    for scene in sample_scenes(args.samples):
        rows.append(evaluate(*scene))
    if not rows:
        print(f"no sample scenes in {args.samples}: using the test renderer's scenes")
    if args.synthetic or not rows:
        for scene in synthetic_scenes():
            rows.append(evaluate(*scene))
    print_table(rows)
    print(f"({len(rows)} scenes in {time.perf_counter() - start:.1f} s)")
    charuco_figures(args.samples / "charuco")
    return 0


if __name__ == "__main__":
    sys.exit(main())
