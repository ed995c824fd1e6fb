"""The lens from the markers, and network cameras: run ``.venv/bin/python benchmarks/lens.py``.

1. Renders (synth/, 1920 x 1080, a 600 x 600 mm table, 16 models with 12 mm markers), for
   webcam barrel distortion k1 in {0, -0.10, -0.25} and tilt in {0, 15, 30} degrees, each
   frame then blurred (sigma 0.8 px), given sensor noise (sigma 3) and JPEG-encoded at
   quality 80 here (synth/ itself is not changed). For each: calibrate WITHOUT a camera
   file (lens from the markers and the table's edges) and WITH the true one, and print

   - ``grid``: base-centre RMS over a 13 x 13 grid of points at base height (true image of
     each point mapped back through the calibration: the calibration's own error);
   - ``located``: RMS of the base centres the tracker reports (``locate``) against the
     truth (includes the marker detector's own error);
   - focal error (%) and k1 error of the estimate, and the lens model chosen.

2. The six independent frames in ``../shared/dev-scenes`` (when present): the same figures
   (``located`` only where the current detector reads markers).

3. A network camera: an MJPEG server on 127.0.0.1 at 30 frames/s; for each frame the
   delay from the server writing it to the tracker receiving it, against one frame time
   (33 ms), with a tracker that takes 50 ms a frame (slower than the camera: only the
   newest frame must be handed over, never a backlog), beside the same measure for an
   ideal local camera (a thread capturing at 30 frames/s, the newest frame at hand).

``--quick`` runs one render per tilt only.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from pathlib import Path
from typing import Any

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from calibration.camera import CameraIntrinsics  # noqa: E402
from calibration.errors import CalibrationError  # noqa: E402
from calibration.setup import Setup, parse_setup, setup_to_dict  # noqa: E402
from calibration.table import TableCalibration, calibrate_table  # noqa: E402

DEV_SCENES = ROOT.parent / "shared" / "dev-scenes"
if not DEV_SCENES.is_dir():
    DEV_SCENES = Path("/work/shared/dev-scenes")
GRID = 13


def grid_rms(cal: TableCalibration, truth_cam: CameraIntrinsics, rvec: Any, tvec: Any, height_mm: float) -> float:
    w, d = cal.table.width_mm, cal.table.depth_mm
    xs, ys = np.meshgrid(np.linspace(0.03 * w, 0.97 * w, GRID), np.linspace(0.03 * d, 0.97 * d, GRID))
    pts = np.column_stack([xs.ravel(), ys.ravel()])
    true_cal = TableCalibration(truth_cam, np.asarray(rvec, float), np.asarray(tvec, float), cal.table)
    px = true_cal.to_image_px(pts, height_mm=height_mm)
    err = np.linalg.norm(cal.to_table_mm(px, height_mm=height_mm) - pts, axis=1)
    return float(np.sqrt(np.nanmean(err**2)))


def located_rms(image: np.ndarray, cal: TableCalibration, setup: Setup, truth: dict[int, tuple[float, float]]
                ) -> tuple[float, int]:
    from tracker.locate import locate_all

    found = locate_all(image, cal, setup, bare_bases=False)
    errs = [math.dist((m.x_mm, m.y_mm), truth[m.marker_id]) for m in found.models if m.marker_id in truth]
    return (float(np.sqrt(np.mean(np.square(errs)))) if errs else float("nan")), len(errs)


def degrade(image: np.ndarray, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    out = cv2.GaussianBlur(image.astype(np.float32), (0, 0), 0.8)
    out += rng.normal(0.0, 3.0, out.shape).astype(np.float32)
    ok, data = cv2.imencode(".jpg", np.clip(out, 0, 255).astype(np.uint8), [cv2.IMWRITE_JPEG_QUALITY, 80])
    assert ok
    return cv2.imdecode(data, cv2.IMREAD_COLOR)


def row(name: str, res: dict[str, Any]) -> str:
    def f(v: Any, fmt: str) -> str:
        return "-" if v is None or (isinstance(v, float) and math.isnan(v)) else format(v, fmt)
    return (f"{name:26s} {f(res.get('grid_none'), '6.2f')} {f(res.get('located_none'), '8.2f')} "
            f"{f(res.get('grid_cam'), '8.2f')} {f(res.get('located_cam'), '8.2f')} {f(res.get('n'), '4d')} "
            f"{f(res.get('focal_err_pct'), '+7.2f')} {f(res.get('k1_err'), '+7.3f')}  {res.get('model', '-')}")


HEADER = (f"{'scene':26s} {'grid':>6s} {'located':>8s} {'grid+cam':>8s} {'loc+cam':>8s} {'n':>4s} "
          f"{'f err%':>7s} {'k1 err':>7s}  lens model (no camera file)")


def evaluate(image: np.ndarray, setup: Setup, cam: CameraIntrinsics, rvec: Any, tvec: Any,
             truth: dict[int, tuple[float, float]]) -> dict[str, Any]:
    res: dict[str, Any] = {}
    height = setup.markers.base_height_mm
    doc = setup_to_dict(setup)
    doc.pop("camera", None)
    bare = parse_setup(doc)
    try:
        cal = calibrate_table(image, bare)
        res["grid_none"] = grid_rms(cal, cam, rvec, tvec, height)
        res["located_none"], res["n"] = located_rms(image, cal, bare, truth)
        res["focal_err_pct"] = 100.0 * (cal.intrinsics.focal_px / cam.focal_px - 1.0)
        res["k1_err"] = float(cal.intrinsics.distortion[0] - cam.distortion[0])
        res["model"] = "+".join(cal.lens.model) if cal.lens is not None else "focal only (no lens fit)"
        res["time_s"] = None
    except CalibrationError as exc:
        res["model"] = f"FAILED: {exc}"[:60]
    cal_cam = calibrate_table(image, bare, cam)
    res["grid_cam"] = grid_rms(cal_cam, cam, rvec, tvec, height)
    res["located_cam"], _n = located_rms(image, cal_cam, bare, truth)
    return res


def renders(quick: bool) -> list[dict[str, Any]]:
    from synth.camera import look_at_camera
    from synth.render import render_scene
    from synth.scene import ModelSpec, SceneSpec, make_setup

    rng = np.random.default_rng(7)
    models = tuple(ModelSpec(10 + i, float(rng.uniform(80, 520)), float(rng.uniform(80, 520)), base_mm=25,
                             facing_deg=float(rng.uniform(0, 360)), figure_height_mm=0.0) for i in range(16))
    setup = make_setup(600, 600, models=models)
    out = []
    k1s = (-0.25,) if quick else (0.0, -0.10, -0.25)
    for k1 in k1s:
        for tilt in (0.0, 15.0, 30.0):
            cam_model = look_at_camera(600, 600, image_size=(1920, 1080), height_mm=800.0, tilt_deg=tilt,
                                       yaw_deg=5.0, distortion=(k1, 0.05 * abs(k1), 0.0, 0.0, 0.0))
            spec = SceneSpec(setup, cam_model, models=models, noise_sigma=0.0, blur_sigma=0.0, seed=int(tilt),
                             supersample=2)
            image, truth = render_scene(spec)
            image = degrade(image, seed=int(100 * tilt + 1000 * abs(k1)))
            cam = CameraIntrinsics(cam_model.matrix, cam_model.distortion, cam_model.image_size)
            truth_xy = {m["marker_id"]: (m["x_mm"], m["y_mm"]) for m in truth["models"]}
            t0 = time.perf_counter()
            res = evaluate(image, setup, cam, cam_model.rvec, cam_model.tvec, truth_xy)
            res["seconds"] = time.perf_counter() - t0
            res["name"] = f"k1 {k1:+.2f} tilt {tilt:2.0f}"
            print(row(res["name"], res), flush=True)
            out.append(res)
    return out


def dev_scenes() -> list[dict[str, Any]]:
    out = []
    for folder in sorted(p for p in DEV_SCENES.glob("*") if p.is_dir()):
        truth = json.loads((folder / "truth.json").read_text())
        setup = parse_setup(json.loads((folder / "setup.json").read_text()))
        image = cv2.imread(str(folder / "image.jpg"))
        c = truth["camera"]
        cam = CameraIntrinsics(np.array(c["matrix"]), np.array(c["distortion"]), tuple(truth["image_size"]))
        truth_xy = {b["id"]: tuple(b["centre_mm"]) for b in truth["bases"] if b["id"] is not None}
        res = evaluate(image, setup, cam, c["rvec"], c["tvec"], truth_xy)
        res["name"] = f"{folder.name} k1 {c['distortion'][0]:+.2f} t{c['tilt_deg']:.0f}"
        print(row(res["name"], res), flush=True)
        out.append(res)
    return out


def url_latency(frames_n: int = 90) -> None:
    sys.path.insert(0, str(ROOT))
    from tests.tracker.mjpeg_server import CameraServer
    from tracker.sources import frames_from_url

    with CameraServer(fps=30.0) as cam:
        cam.size = (1280, 720)
        frames = frames_from_url(cam.url("/video"))
        delays, gaps = [], []
        try:
            last_index = None
            for frame in frames:
                if frame.image is None:
                    continue
                got = time.time()
                value = int(np.median(frame.image[0:8, 0:8]))  # the server paints frame k with grey k % 256
                sent = [t for k, t in cam.sent_at.items() if k % 256 == value]
                if sent:
                    delays.append(1000.0 * (got - max(sent)))
                if last_index is not None:
                    gaps.append(frame.index - last_index)
                last_index = frame.index
                time.sleep(0.050)  # a tracker slower than the camera
                if len(delays) >= frames_n:
                    break
        finally:
            frames.close()  # type: ignore[attr-defined]
    d = np.array(delays)
    usb = np.array(local_camera_delays(len(delays)))
    print(f"\nnetwork camera (MJPEG 1280x720 at 30 fps, tracker at 20 fps): delay from the camera writing a frame "
          f"to the tracker receiving it: median {np.median(d):.1f} ms, p95 {np.percentile(d, 95):.1f} ms, "
          f"max {d.max():.1f} ms; only the newest frame is handed over")
    print(f"a local camera in the same conditions (newest frame at hand, no network, no JPEG): median "
          f"{np.median(usb):.1f} ms, p95 {np.percentile(usb, 95):.1f} ms; the network camera is later by "
          f"{np.median(d) - np.median(usb):.1f} ms at the median, {np.percentile(d, 95) - np.percentile(usb, 95):.1f} ms "
          f"at p95 (one frame time: 33.3 ms)")


def local_camera_delays(n: int, fps: float = 30.0) -> list[float]:
    """The same measure for an ideal local camera: a thread 'captures' at ``fps``, the tracker takes the newest."""
    import threading

    latest: dict[str, float] = {}
    stop = threading.Event()

    def capture() -> None:
        while not stop.is_set():
            latest["t"] = time.time()
            time.sleep(1.0 / fps)

    thread = threading.Thread(target=capture, daemon=True)
    thread.start()
    out = []
    try:
        time.sleep(0.1)
        for _ in range(n):
            out.append(1000.0 * (time.time() - latest["t"]))
            time.sleep(0.050)
    finally:
        stop.set()
        thread.join()
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="one distortion strength only")
    parser.add_argument("--no-renders", action="store_true")
    args = parser.parse_args()
    print("base-centre RMS, mm (grid: calibration alone; located: what the tracker reports); "
          "'+cam' with the true camera file")
    print(HEADER)
    results = [] if args.no_renders else renders(args.quick)
    if results:
        g = [r["grid_none"] for r in results if r.get("grid_none") is not None]
        loc = [r["located_none"] for r in results if r.get("located_none") is not None and not math.isnan(r["located_none"])]
        print(f"renders: worst grid RMS without camera file {max(g):.2f} mm, worst located RMS {max(loc):.2f} mm; "
              f"|focal error| max {max(abs(r['focal_err_pct']) for r in results if 'focal_err_pct' in r):.2f} %, "
              f"|k1 error| max {max(abs(r['k1_err']) for r in results if 'k1_err' in r):.3f}")
    if DEV_SCENES.is_dir():
        print("\nindependent dev scenes")
        print(HEADER)
        dev_scenes()
    url_latency()


if __name__ == "__main__":
    main()
