"""Tracker benchmark: accuracy and speed on rendered frames with known truth, beside a baseline.

Run: ``.venv/bin/python benchmarks/tracker.py [--seeds N] [--frames N] [--quick]``

Two configurations (issue 3): a 1080p camera over a 600 x 600 mm table and a 4K camera
over 1200 x 1200 mm, several random layouts each (models with markers at random
places, facings and offsets, bare bases with figures, camera tilt 0-25 deg, mild lens
distortion). The camera intrinsics are known (as after ``calibrate-camera``); the table
pose comes from the corner markers of each image (``calibration.table.calibrate_table``).

Figures, each beside the baseline (plain ``cv2.aruco`` defaults + one homography from the
four corner-marker centres, no height correction):

- markers found (of those at least 90 % visible), false or wrong ids;
- base centre error RMS / max (mm), facing error p95 (deg);
- bare bases found and their centre RMS (mm) (the baseline has no base mode); the same
  found as the tracker's incremental search finds them: in the sweep's tiles, and fitted
  again in the small regions around the bases found on the whole plan;
- ms per frame, median, one thread (CPU time, and wall clock beside it): the tracker
  following a still table (frames with fresh sensor noise each, 30 frames per second)
  after its first full scan, full marker scans and the incremental bare-base searches
  included at their intervals; the baseline detecting every frame. Mean, p90 and max
  beside the median: a frame that pays for a big search is what players notice;
- bare bases as the tracker holds them at the end of the timed frames (its incremental
  searches: refits around known bases, new ones looked for tile by tile) against the truth,
  and the timed frames in which it held a model seen under an id no model carries.

Rendered frames are cached in the temporary folder ``tabletracker-bench`` (delete it to re-render).
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import tempfile
import time
from pathlib import Path

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from calibration.camera import CameraIntrinsics  # noqa: E402
from calibration.setup import parse_setup  # noqa: E402
from calibration.table import calibrate_table  # noqa: E402
from synth.camera import look_at_camera  # noqa: E402
from synth.catalog import model_at  # noqa: E402
from synth.render import render_scene  # noqa: E402
from synth.scene import BareBaseSpec, ModelSpec, SceneSpec, make_setup  # noqa: E402
from tracker.locate import locate_all  # noqa: E402
from tracker.markers import facing_from_corners  # noqa: E402
from tracker.bases import PlanView, find_bases_in  # noqa: E402
from tracker.pipeline import BASE_TILE_PX, Tracker, sweep_tiles  # noqa: E402
from tracker.tracking import BASE_GATE_MM  # noqa: E402
from tracker.sources import Frame  # noqa: E402

CACHE = Path(tempfile.gettempdir()) / "tabletracker-bench"
CONFIGS = {"1080p / 600 mm": ((1920, 1080), 600.0), "4K / 1200 mm": ((3840, 2160), 1200.0)}
VISIBLE = 0.9


def layout(seed: int, table_mm: float) -> tuple[list[ModelSpec], list[BareBaseSpec]]:
    """Random non-overlapping models (with markers) and bare bases on the table."""
    rng = np.random.default_rng(seed)
    placed: list[tuple[float, float, float]] = []
    margin = 70.0

    def spot(diameter: float) -> tuple[float, float] | None:
        for _ in range(200):
            x, y = rng.uniform(margin, table_mm - margin, 2)
            if all(math.hypot(x - px, y - py) > (diameter + pd) / 2 + 3 for px, py, pd in placed):
                placed.append((x, y, diameter))
                return float(x), float(y)
        return None

    n_models = 16 if table_mm <= 600 else 30
    models = []
    ids = rng.permutation(np.arange(4, 250))[:n_models]
    for i, marker_id in enumerate(ids):
        base = float(rng.choice([25.0, 32.0, 40.0]))
        at = spot(base)
        if at is None:
            continue
        # the kit's convention (synth.catalog): marker toward the front, figure behind it,
        # every third model a token with its marker centred
        models.append(model_at(int(marker_id), at[0], at[1], base, i, rng))
    bases = []
    for _ in range(8 if table_mm <= 600 else 14):
        d = float(rng.choice([20.0, 25.0, 32.0, 40.0, 50.0]))
        at = spot(d)
        if at is None:
            continue
        bases.append(BareBaseSpec(at[0], at[1], d, str(rng.choice(["red", "blue"])),
                                  figure_height_mm=float(rng.uniform(20, 40)), facing_deg=float(rng.uniform(0, 360))))
    return models, bases


def rendered(config: str, seed: int) -> tuple[np.ndarray, dict]:
    """Render (or load from the cache) one benchmark frame and its truth."""
    size, table = CONFIGS[config]
    stem = CACHE / f"{size[0]}x{size[1]}_{int(table)}_{seed}"
    if stem.with_suffix(".jpg").exists() and stem.with_suffix(".json").exists():
        return cv2.imread(str(stem.with_suffix(".jpg"))), json.loads(stem.with_suffix(".json").read_text())
    rng = np.random.default_rng(1000 + seed)
    models, bases = layout(seed, table)
    setup = make_setup(table, table, models=models)
    tilt = float(rng.uniform(0, 25))
    cam = look_at_camera(table, table, image_size=size, height_mm=table * float(rng.uniform(1.4, 1.8)),
                         tilt_deg=tilt, yaw_deg=float(rng.uniform(-5, 5)),
                         distortion=(float(rng.uniform(-0.08, 0.0)), 0.01, 0.0, 0.0, 0.0))
    spec = SceneSpec(setup, cam, models=tuple(models), bases=tuple(bases), seed=seed,
                     notes=f"benchmark {config} seed {seed}, tilt {tilt:.1f} deg")
    image, truth = render_scene(spec)
    CACHE.mkdir(exist_ok=True)
    ok, jpg = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, spec.jpeg_quality])
    stem.with_suffix(".jpg").write_bytes(jpg.tobytes())
    stem.with_suffix(".json").write_text(json.dumps(truth))
    return cv2.imdecode(jpg, cv2.IMREAD_COLOR), truth


def setup_of(truth: dict):  # type: ignore[no-untyped-def]
    doc = dict(truth["setup"])
    doc["camera"] = truth["camera"]
    return parse_setup(doc, source="benchmark truth")


# ------------------------------------------------------------------------------ methods


def ours(image: np.ndarray, truth: dict) -> tuple[dict[int, tuple[float, float, float]], list, object]:
    """Our pipeline on one image: {id: (x, y, facing)}, bare bases, calibration."""
    setup = setup_of(truth)
    size = (image.shape[1], image.shape[0])
    cal = calibrate_table(image, setup, CameraIntrinsics.from_settings(setup.camera, size))
    found = locate_all(image, cal, setup)
    return {m.marker_id: (m.x_mm, m.y_mm, m.facing_deg) for m in found.models}, list(found.bases), cal


def by_regions(image: np.ndarray, truth: dict, cal: object, models: dict, bases: list) -> tuple[list, list]:
    """Bare bases found as the tracker's incremental search finds them: in the sweep's tiles,
    and fitted again in the small regions around the bases found on the whole plan."""
    setup = setup_of(truth)
    view = PlanView(cal, setup)  # type: ignore[arg-type]
    here = [(x, y) for x, y, _ in models.values()]
    w, d = setup.table.width_mm, setup.table.depth_mm
    tiles = find_bases_in(image, view, setup, sweep_tiles(w, d, BASE_TILE_PX / view.px_per_mm), exclude_mm=here)
    g = BASE_GATE_MM
    fits = find_bases_in(image, view, setup, [(b.x_mm - g, b.y_mm - g, b.x_mm + g, b.y_mm + g) for b in bases],
                         exclude_mm=here)
    return list(tiles), list(fits)


class Baseline:
    """Plain cv2.aruco defaults and one homography from the corner-marker centres."""

    def __init__(self, truth: dict) -> None:
        self.setup = setup_of(truth)
        self.detector = cv2.aruco.ArucoDetector(
            cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, self.setup.markers.dictionary)),
            cv2.aruco.DetectorParameters())
        w, d = self.setup.table.width_mm, self.setup.table.depth_mm
        h = self.setup.markers.corner_size_mm / 2
        self.corner_mm = np.array([[h, h], [w - h, h], [w - h, d - h], [h, d - h]], np.float64)
        self.homography: np.ndarray | None = None

    def locate(self, image: np.ndarray) -> dict[int, tuple[float, float, float]]:
        gray = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
        corners, ids, _ = self.detector.detectMarkers(gray)
        if ids is None:
            return {}
        ids = ids.reshape(-1)
        c = np.asarray(corners, np.float64).reshape(-1, 4, 2)
        if self.homography is None:
            if not all((ids == k).any() for k in range(4)):
                return {}
            centres = np.array([c[list(ids).index(k)].mean(axis=0) for k in range(4)])
            self.homography = cv2.getPerspectiveTransform(centres.astype(np.float32), self.corner_mm.astype(np.float32))
        out = {}
        for marker_id, quad in zip(ids.tolist(), c):
            if marker_id < 4 or marker_id in out:
                continue
            mm = cv2.perspectiveTransform(quad.reshape(-1, 1, 2), self.homography).reshape(4, 2)
            centre = mm.mean(axis=0)
            facing = float(facing_from_corners(mm[None])[0])
            off = self.setup.markers.for_marker(marker_id).offset_mm
            a = math.radians(facing)
            out[marker_id] = (float(centre[0] - off * math.cos(a)), float(centre[1] - off * math.sin(a)), facing)
        return out


# ------------------------------------------------------------------------------ scoring


def score_models(found: dict[int, tuple[float, float, float]], truth: dict) -> dict[str, list]:
    want = {m["marker_id"]: m for m in truth["models"]}
    visible = {k for k, m in want.items() if m["marker_visible_fraction"] >= VISIBLE}
    out: dict[str, list] = {"visible": [len(visible)], "found": [len(visible & set(found))],
                            "false": [len(set(found) - set(want))], "err": [], "facing": [], "wrong": [0]}
    for k, (x, y, f) in found.items():
        if k not in want:
            continue
        t = want[k]
        e = math.hypot(x - t["x_mm"], y - t["y_mm"])
        if e > 15.0:
            out["wrong"][0] += 1        # an id read on another model's marker
            continue
        out["err"].append(e)
        out["facing"].append(abs((f - t["facing_deg"] + 180.0) % 360.0 - 180.0))
    return out


def score_bases(found: list, truth: dict) -> dict[str, list]:
    out: dict[str, list] = {"bases": [len(truth["bases"])], "bases_found": [0], "base_err": [], "base_side": [0],
                            "base_false": [0]}
    places = [(b["x_mm"], b["y_mm"]) for b in truth["bases"]] + [(m["x_mm"], m["y_mm"]) for m in truth["models"]]
    for f in found:   # a circle where there is neither a bare base nor a model
        if min(math.hypot(f.x_mm - x, f.y_mm - y) for x, y in places) > 6.0:
            out["base_false"][0] += 1
    for b in truth["bases"]:
        near = [f for f in found if math.hypot(f.x_mm - b["x_mm"], f.y_mm - b["y_mm"]) <= 6.0]
        if near:
            f = min(near, key=lambda f: math.hypot(f.x_mm - b["x_mm"], f.y_mm - b["y_mm"]))
            out["bases_found"][0] += 1
            out["base_err"].append(math.hypot(f.x_mm - b["x_mm"], f.y_mm - b["y_mm"]))
            out["base_side"][0] += int(f.side == b["side"] and f.diameter_mm == b["diameter_mm"])
    return out


def merge(acc: dict[str, list], more: dict[str, list]) -> None:
    for k, v in more.items():
        acc.setdefault(k, []).extend(v)


def timing(image: np.ndarray, truth: dict, cal: object, frames: int) -> dict[str, float]:
    """Median ms per frame, wall clock and CPU time: tracker (steady state) and baseline.

    CPU time (``time.process_time``, one thread) is what a frame costs on one core even
    when other processes share the machine; wall time is given beside it.
    """
    setup = setup_of(truth)
    rng = np.random.default_rng(0)
    noisy = [np.clip(image.astype(np.int16) + rng.normal(0, 2, image.shape).astype(np.int16), 0, 255).astype(np.uint8)
             for _ in range(min(frames, 8))]
    tracker = Tracker(setup, cal)
    tracker.process(Frame(0, 0.0, noisy[0]))          # first full scan, plan maps
    wall, cpu = [], []
    truth_ids = {m["marker_id"] for m in truth["models"]}
    false_frames, false_ids = 0, set()
    for i in range(1, frames + 1):
        img = noisy[i % len(noisy)]
        t, c = time.perf_counter(), time.process_time()
        tracker.process(Frame(i, i / 30.0, img))
        wall.append((time.perf_counter() - t) * 1000)
        cpu.append((time.process_time() - c) * 1000)
        # (outside the timing) a model seen now under an id no model on the table carries
        phantom = {m.marker_id for m in tracker.state.models if m.seen} - truth_ids
        false_frames += bool(phantom)
        false_ids |= phantom
    base = Baseline(truth)
    base.locate(noisy[0])
    base_wall, base_cpu = [], []
    for i in range(1, min(frames, 10) + 1):
        t, c = time.perf_counter(), time.process_time()
        base.locate(noisy[i % len(noisy)])
        base_wall.append((time.perf_counter() - t) * 1000)
        base_cpu.append((time.process_time() - c) * 1000)
    tracked = [b for b in tracker.state.bases if b.seen]
    near = [min((math.hypot(f.x_mm - b["x_mm"], f.y_mm - b["y_mm"]) for f in tracked), default=math.inf)
            for b in truth["bases"]]
    return {"wall": float(np.median(wall)), "cpu": float(np.median(cpu)), "cpu_mean": float(np.mean(cpu)),
            "cpu_p90": float(np.percentile(cpu, 90)), "cpu_max": float(np.max(cpu)),
            "slowest": [int(i) + 1 for i in np.argsort(cpu)[::-1][:3]], "frames": frames,
            "tracked_found": sum(d <= 6.0 for d in near), "tracked_of": len(near),
            "tracked_rms": rms([d for d in near if d <= 6.0]),
            "false_frames": false_frames, "false_ids": sorted(false_ids),
            "base_wall": float(np.median(base_wall)), "base_cpu": float(np.median(base_cpu))}


def rms(v: list[float]) -> float:
    return float(math.sqrt(np.mean(np.square(v)))) if v else float("nan")


def report(config: str, a: dict[str, list], b: dict[str, list], t: dict[str, float]) -> None:
    def pct(x: dict[str, list], k: str, n: str) -> str:
        return f"{100.0 * sum(x[k]) / max(sum(x[n]), 1):.1f} % ({sum(x[k])}/{sum(x[n])})"

    rows = [
        ("markers >= 90 % visible found", pct(a, "found", "visible"), pct(b, "found", "visible")),
        ("false ids / wrong ids", f"{sum(a['false'])} / {sum(a['wrong'])}", f"{sum(b['false'])} / {sum(b['wrong'])}"),
        ("base centre RMS mm", f"{rms(a['err']):.3f}", f"{rms(b['err']):.3f}"),
        ("base centre max mm", f"{max(a['err'], default=float('nan')):.3f}", f"{max(b['err'], default=float('nan')):.3f}"),
        ("facing p95 deg", f"{np.percentile(a['facing'], 95):.2f}" if a["facing"] else "nan",
         f"{np.percentile(b['facing'], 95):.2f}" if b["facing"] else "nan"),
        ("bare bases found", pct(a, "bases_found", "bases"), "no base mode"),
        ("bare base centre RMS mm", f"{rms(a['base_err']):.3f}", "-"),
        ("circles where nothing stands", f"{sum(a['base_false'])}", "-"),
        ("bare bases by sweep tiles / RMS", f"{pct(a, 'tiles_bases_found', 'tiles_bases')} / "
         f"{rms(a['tiles_base_err']):.3f}", "-"),
        ("bare bases by fits around / RMS", f"{pct(a, 'fits_bases_found', 'fits_bases')} / "
         f"{rms(a['fits_base_err']):.3f}", "-"),
        ("bare base size+side right", pct(a, "base_side", "bases_found"), "-"),
        ("ms/frame CPU, median (1 thread)", f"{t['cpu']:.1f}", f"{t['base_cpu']:.1f}"),
        ("ms/frame CPU, mean / p90", f"{t['cpu_mean']:.1f} / {t['cpu_p90']:.1f}", "-"),
        ("ms/frame CPU, max (frame)", f"{t['cpu_max']:.1f} ({t['slowest'][0]})", "-"),
        (f"bare bases tracked after {t['frames']} frames",
         f"{t['tracked_found']}/{t['tracked_of']}, RMS {t['tracked_rms']:.3f}", "-"),
        (f"frames with a false id of {t['frames']}", f"{t['false_frames']} {t['false_ids'] or ''}".strip(), "-"),
        ("ms/frame wall clock, median", f"{t['wall']:.1f}", f"{t['base_wall']:.1f}"),
    ]
    print(f"\n== {config} ==")
    print(f"{'':34s} {'tracker':>26s} {'baseline':>22s}")
    for name, x, y in rows:
        print(f"{name:34s} {x:>26s} {y:>22s}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seeds", type=int, default=4, help="random layouts per configuration")
    parser.add_argument("--frames", type=int, default=150,
                        help="frames timed per configuration (150 = 5 s of video: a whole sweep of the table at 4K)")
    parser.add_argument("--only", choices=sorted(CONFIGS), help="one configuration")
    args = parser.parse_args()
    cv2.setNumThreads(1)
    for config in CONFIGS:
        if args.only and config != args.only:
            continue
        a: dict[str, list] = {}
        b: dict[str, list] = {}
        t: dict[str, float] = {}
        for seed in range(args.seeds):
            image, truth = rendered(config, seed)
            found, bases, cal = ours(image, truth)
            merge(a, score_models(found, truth))
            merge(a, score_bases(bases, truth))
            tiles, fits = by_regions(image, truth, cal, found, bases)
            merge(a, {f"tiles_{k}": v for k, v in score_bases(tiles, truth).items()})
            merge(a, {f"fits_{k}": v for k, v in score_bases(fits, truth).items()})
            merge(b, score_models(Baseline(truth).locate(image), truth))
            if seed == 0:
                t = timing(image, truth, cal, args.frames)
        report(config, a, b, t)
    return 0


if __name__ == "__main__":
    sys.exit(main())
