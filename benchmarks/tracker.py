"""Tracker benchmark: accuracy and speed on rendered frames with known truth, beside a baseline.

Run: ``.venv/bin/python benchmarks/tracker.py [--quick | --full] [--seeds N] [--frames N]``

Three parts (``--parts`` chooses):

``realistic`` (issue 9): webcam-like renders (:mod:`synth.realistic`: 1080p and 4K, tables
60 x 60 to 120 x 180 cm, tilt to 30 deg, barrel distortion to k1 = -0.25, motion and focus
blur, JPEG 70-95, noise, glare, vignetting, exposure and white balance off, hands, flock,
plastic and white-disc tops, dice and cards), fixed seeds. For each marker the benchmark
decides whether its bits can be read from its TRUE outline
(:func:`synth.realistic.readable_from_true_outline`); recall is counted against that
ceiling, per condition, beside plain OpenCV (defaults, corner-centre homography). Figures:
recall, false ids (an id no base carries) and wrong ids (a base reported > 15 mm from where
that id is), base-centre RMS (camera given / estimated), bare bases found, precision and
RMS, frames with no answer although the four corners are visible, and although enough corner
markers are readable from their true outline (two with the true camera or a camera given,
all four where the lens is estimated: :func:`corners_readable`). The same figures are
given with the TRUE camera intrinsics handed to the calibration (the detector on its own,
apart from the lens estimate); the base-centre rows are split by the frame's own setup
(a camera file given, or none: the lens estimated from the markers, calibration.lens), so
in the "camera estimated" row the true camera's column is the same frames with the true lens.

``weak`` : the realistic part's scenes (seeds 0..N-1 at each resolution), every frame under the
conditions the mix has least of: a 2-5 px motion blur in any direction and JPEG quality 70-79
(:func:`weak_photo`; the frame's other conditions as drawn), so that those conditions are
measured on hundreds of markers instead of a few frames' worth.

``dev`` : the six frames of ``../shared/dev-scenes`` (independent renderer, their own
``decodable.json`` ceiling), the same figures, printed separately.

``bases`` : base mode alone, the true camera given: realistic renders whose sides take white,
yellow and orange rims (and the others) in turn, each standing apart from the mat by Delta E
>= 25, then the dev-scenes; bare bases found, reported that are real and centre RMS, per
frame and per rim colour (``--dump DIR`` writes crops of the missed and false ones).

``sequence`` : the bundled 48-frame tracker sequence through the webcam model, a still camera
and blurred sequences (motion blur on the handling frames and camera shake, JPEG 70-85,
exposure drift): moves reported within 1 mm, false "hidden" events, ms per frame; with
``--full`` (or ``--sequences 4K``) also its 4K counterpart, a 120 x 120 cm table at
3840 x 2160 (rendered once into the cache), under the same conditions.

``locate`` : ``tabletracker locate`` on a 4K realistic render, start-up included, wall and
CPU (target <= 1.5 s wall).

``clean`` : the earlier clean-render configurations and the tracker's speed (below).

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
from typing import Any

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
from tracker.bases import PlanView, find_bases_in  # noqa: E402
from tracker.locate import locate_all  # noqa: E402
from tracker.markers import facing_from_corners  # noqa: E402
from tracker.pipeline import BASE_TILE_PX, Tracker, sweep_tiles  # noqa: E402
from tracker.sources import Frame  # noqa: E402
from tracker.tracking import BASE_GATE_MM  # noqa: E402

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
    if truth.get("camera") is not None:
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


# ------------------------------------------------------------------------------ realistic frames

DEV_SCENES = ROOT.parent / "shared" / "dev-scenes"


def weak_photo(seed: int, resolution: str) -> dict[str, Any]:
    """The weak conditions forced on a frame of the ``weak`` part: a motion blur of 2-5 px in any
    direction and a JPEG quality of 70-79 (the rest of the frame's conditions as drawn)."""
    rng = np.random.default_rng(70_000 + seed + (5_000 if resolution == "4K" else 0))
    return {"motion_px": float(rng.uniform(2.0, 5.0)), "motion_deg": float(rng.uniform(0.0, 180.0)),
            "jpeg_quality": int(rng.integers(70, 80))}


def realistic_frame(seed: int, resolution: str, *, weak: bool = False
                    ) -> tuple[np.ndarray, dict[str, Any], dict[str, Any], dict[str, bool]]:
    """Render (or load from the cache) one realistic frame: image, truth, setup, readable flags.

    ``weak``: the same scene under the weak conditions (:func:`weak_photo`)."""
    from synth.realistic import readable_from_true_outline, render_realistic

    stem = CACHE / f"realistic{'-weak' if weak else ''}_{RENDER_VERSION}_{resolution}_{seed}"
    paths = [stem.with_suffix(e) for e in (".png", ".json")]
    if all(p.exists() for p in paths):
        doc = json.loads(paths[1].read_text())
        return cv2.imread(str(paths[0])), doc["truth"], doc["setup"], doc["decodable"]
    image, truth, setup_doc = render_realistic(seed, resolution,
                                               photo_changes=weak_photo(seed, resolution) if weak else None)
    decodable = {str(b["id"]): readable_from_true_outline(image, b["marker_corners_px"], b["id"])
                 for b in truth["bases"] if b["id"] is not None}
    CACHE.mkdir(exist_ok=True)
    cv2.imwrite(str(paths[0]), image)      # already JPEG-compressed by the render: stored losslessly
    paths[1].write_text(json.dumps({"truth": truth, "setup": setup_doc, "decodable": decodable}))
    return cv2.imread(str(paths[0])), truth, setup_doc, decodable


#: Bump when the realistic renderer changes (invalidates the cached frames).
RENDER_VERSION = "r3"


def run_locate(image: np.ndarray, setup_doc: dict[str, Any], truth: dict[str, Any], *, true_camera: bool
               ) -> tuple[list[dict[str, Any]] | None, list[dict[str, Any]] | None, float]:
    """``locate`` on one frame: (models, bases) JSON items, None when no answer; seconds taken."""
    doc = dict(setup_doc)
    if true_camera:
        doc["camera"] = {"matrix": truth["camera"]["matrix"], "distortion": truth["camera"]["distortion"]}
    t = time.perf_counter()
    try:
        setup = parse_setup(doc, source="benchmark setup")
        cal = calibrate_table(image, setup)
        found = locate_all(image, cal, setup)
    except ValueError as exc:
        print(f"    no answer: {exc}"[:200])
        return None, None, time.perf_counter() - t
    return [m.to_dict() for m in found.models], [b.to_dict() for b in found.bases], time.perf_counter() - t


def corners_readable(image: np.ndarray, truth: dict[str, Any], setup_doc: dict[str, Any]) -> dict[int, bool]:
    """Corner id -> whether its bits read from its TRUE outline (the test the base markers get).

    The outline is the truth's ``corners_px`` (our renders) or its ``corners_mm`` on the table
    plane projected through the true camera (the dev-scenes)."""
    from synth.realistic import readable_from_true_outline

    gray = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY) if image.ndim == 3 else image
    dictionary = str(setup_doc.get("markers", {}).get("dictionary", "DICT_4X4_250"))
    cam = truth["camera"]
    out = {}
    for c in truth.get("corner_markers", []):
        px = c.get("corners_px")
        if px is None:
            obj = np.array([[x, y, 0.0] for x, y in c["corners_mm"]], np.float64)
            px, _ = cv2.projectPoints(obj, np.asarray(cam["rvec"], np.float64), np.asarray(cam["tvec"], np.float64),
                                      np.asarray(cam["matrix"], np.float64), np.asarray(cam["distortion"], np.float64))
        out[int(c["id"])] = readable_from_true_outline(gray, px, int(c["id"]), dictionary)
    return out


def baseline_models(image: np.ndarray, setup_doc: dict[str, Any]) -> list[dict[str, Any]] | None:
    """Plain OpenCV on one frame, as ``locate`` items."""
    b = Baseline({"setup": {k: v for k, v in setup_doc.items() if k != "camera"}, "camera": None})
    found = b.locate(image)
    if b.homography is None:
        return None
    return [{"marker_id": k, "x_mm": x, "y_mm": y} for k, (x, y, _) in found.items()]


def marker_conditions(b: dict[str, Any], truth: dict[str, Any]) -> list[str]:
    """The conditions one marker is counted under."""
    photo = truth.get("photo", {})
    px = float(b.get("marker_px") or 0.0)
    size = truth.get("image_size", [0, 0])
    motion = photo.get("motion_px", 0.0) if isinstance(photo.get("motion_px"), (int, float)) else \
        (photo.get("motion") or {}).get("length", 0.0) if isinstance(photo.get("motion"), dict) else 0.0
    jpeg_q = photo.get("jpeg_quality", photo.get("jpeg", 95))
    out = ["all", "4K" if max(size) > 2000 else "1080p", f"top {b.get('top', '?')}",
           "16-20 px" if px < 20 else "20-25 px" if px < 25 else "25+ px",
           "camera given" if truth["camera"].get("in_setup") else "camera estimated"]
    if motion and motion >= 2.0:
        out.append("motion >= 2 px")
    if jpeg_q < 80:
        out.append("JPEG < 80")
    if truth["camera"].get("tilt_deg", 0.0) >= 15:
        out.append("tilt >= 15 deg")
    return out


def realistic_part(frames: list[tuple[str, np.ndarray, dict[str, Any], dict[str, Any], dict[str, bool]]],
                   title: str) -> None:
    """Score ours (estimated and true camera) and the baseline over ``frames``; print the tables."""
    from benchmarks.realistic_score import (
        CORNERS_NEEDED_CAMERA_KNOWN,
        CORNERS_NEEDED_LENS_ESTIMATED,
        MARKER_MIN_PX,
        MARKER_VISIBLE,
        Score,
        bare_by_rim,
        score_frame,
    )

    totals = {"ours": Score(), "ours, true camera": Score(), "baseline": Score()}
    per_cond: dict[str, dict[str, list[int]]] = {}
    per_rim: dict[str, dict[str, Any]] = {}
    seconds: list[float] = []
    for label, image, truth, setup_doc, decodable in frames:
        models, bases, dt = run_locate(image, setup_doc, truth, true_camera=False)
        seconds.append(dt)
        known = bool(truth["camera"].get("in_setup"))
        corners = corners_readable(image, truth, setup_doc)
        s_ours = score_frame(truth, decodable, models, bases, camera_known=known, label=label, corners_readable=corners,
                             corners_needed=CORNERS_NEEDED_CAMERA_KNOWN if known else CORNERS_NEEDED_LENS_ESTIMATED)
        tm, tb, _ = (models, bases, 0.0) if known else run_locate(image, setup_doc, truth, true_camera=True)
        # filed under the frame's own camera status, so that each row compares the same frames:
        # "camera estimated" is ours with the lens from the markers against the true lens there
        s_true = score_frame(truth, decodable, tm, tb, camera_known=known, label=label, corners_readable=corners,
                             corners_needed=CORNERS_NEEDED_CAMERA_KNOWN)
        if tb is not None:
            for rim, r in bare_by_rim(truth, tb, dict(setup_doc.get("bases", {}).get("sides", {}))).items():
                acc = per_rim.setdefault(rim, {"expected": 0, "found": 0, "reported": 0, "false": 0, "err": []})
                for k, v in r.items():
                    acc[k] = acc[k] + v
        s_base = score_frame(truth, decodable, baseline_models(image, setup_doc), [], camera_known=known, label=label)
        for name, sc in zip(totals, (s_ours, s_true, s_base)):
            totals[name].add(sc)
        got = {name: {int(m["marker_id"]) for m in (ms or [])} for name, ms in
               (("ours", models), ("true", tm), ("base", baseline_models(image, setup_doc)))}
        by_id = {b["id"]: b for b in truth["bases"] if b.get("id") is not None}
        for mid, b in by_id.items():
            if not (b.get("visibility", 1) >= MARKER_VISIBLE and (b.get("marker_px") or 0) >= MARKER_MIN_PX
                    and decodable.get(str(mid))):
                continue
            for cond in marker_conditions(b, truth):
                row = per_cond.setdefault(cond, {"n": [0], "ours": [0], "true": [0], "base": [0]})
                row["n"][0] += 1
                for name in ("ours", "true", "base"):
                    row[name][0] += int(mid in got[name] and not _far(got, name, mid, b, models, tm))
        print(f"  {label}: ours {s_ours.found}/{s_ours.decodable} (true camera {s_true.found}), "
              f"baseline {s_base.found}, false/wrong {s_ours.false_ids}/{s_ours.wrong}, "
              f"bare {s_ours.bare_found}/{s_ours.bare_expected} of {s_ours.bare_reported} reported, {dt:.1f} s")
    print(f"\n== {title}: {len(frames)} frames ==")
    print(f"{'':50s} {'ours':>16s} {'ours, true cam':>16s} {'baseline':>16s}")

    def pct(a: int, b: int) -> str:
        return f"{100.0 * a / b:.1f} % ({a}/{b})" if b else "-"

    sc = list(totals.values())
    n_known = sum(bool(f[2]["camera"].get("in_setup")) for f in frames)
    rows = [
        ("markers found, of readable (ceiling)", [pct(x.found, x.decodable) for x in sc]),
        ("markers found, of all expected", [pct(x.found_any, x.expected) for x in sc]),
        ("false ids / wrong ids", [f"{x.false_ids} / {x.wrong}" for x in sc]),
        (f"base centre RMS mm, camera given ({n_known} fr.)", [_mm(x.err_known_cam_mm) for x in sc]),
        (f"base centre RMS mm, camera estimated ({len(frames) - n_known} fr.)", [_mm(x.err_est_cam_mm) for x in sc]),
        ("frames with no answer (4 corners visible)", [str(x.no_answer) for x in sc]),
        ("no answer, >= 2 corners readable (4 if lens est.)",
         [f"{x.no_answer_readable} of {x.corners_enough}" for x in sc[:2]] + ["-"]),
        ("bare bases found", [pct(x.bare_found, x.bare_expected) for x in sc[:2]] + ["no base mode"]),
        ("bare bases: reported that are real", [pct(x.bare_reported - x.bare_false, x.bare_reported)
                                                for x in sc[:2]] + ["-"]),
        ("bare base centre RMS mm", [f"{Score.rms(x.bare_err_mm):.2f}" for x in sc[:2]] + ["-"]),
    ]
    for name, vals in rows:
        print(f"{name:50s} " + " ".join(f"{v:>16s}" for v in vals))
    print(f"{'locate s/frame, median (wall)':50s} {float(np.median(seconds)):>16.2f}")
    print("  bare bases per rim colour, true camera (found / reported that are real / centre RMS mm):")
    for rim, r in sorted(per_rim.items()):
        real = pct(r['reported'] - r['false'], r['reported'])
        print(f"    {rim:12s} {pct(r['found'], r['expected']):>16s} {real:>16s}"
              f" {Score.rms(r['err']):>8.2f}")
    print("  recall against the readable ceiling, per condition:")
    for cond, row in sorted(per_cond.items(), key=lambda kv: (kv[0] != "all", kv[0])):
        n = row["n"][0]
        print(f"    {cond:46s} " + " ".join(f"{pct(row[k][0], n):>16s}" for k in ("ours", "true", "base")))
    for name in ("ours", "ours, true camera"):
        if totals[name].no_answer_frames:
            need = "2 (4 where the lens is estimated)" if name == "ours" else "2"
            print(f"  no answer ({name}) with >= {need} corners readable:", " ".join(totals[name].no_answer_frames))
    for name in ("ours", "ours, true camera"):
        missed = totals[name].missed[:40]
        if missed:
            how = "the lens estimated where no camera is given" if name == "ours" else "the true camera"
            print(f"  missed with {how} (frame:id(top,px)):", " ".join(missed))


def _mm(errors: list[float]) -> str:
    """An RMS in mm, or '-' when no base of that kind was located."""
    from benchmarks.realistic_score import Score

    return f"{Score.rms(errors):.2f} ({len(errors)})" if errors else "-"


def _far(got: dict[str, set[int]], name: str, mid: int, b: dict[str, Any],
         models: list[dict[str, Any]] | None, true_models: list[dict[str, Any]] | None) -> bool:
    """Whether the reported model ``mid`` lies more than 15 mm from its truth (a wrong reading)."""
    items = {"ours": models, "true": true_models}.get(name)
    if not items:
        return False
    for m in items:
        if int(m["marker_id"]) == mid:
            return math.hypot(m["x_mm"] - b["centre_mm"][0], m["y_mm"] - b["centre_mm"][1]) > 15.0
    return False


def dev_frames() -> list[tuple[str, np.ndarray, dict[str, Any], dict[str, Any], dict[str, bool]]]:
    """The shared dev-scenes (skipped with a message when ``../shared`` is absent)."""
    if not DEV_SCENES.is_dir():
        print(f"(no {DEV_SCENES}: dev-scenes skipped)")
        return []
    out = []
    for d in sorted(p for p in DEV_SCENES.iterdir() if p.is_dir()):
        truth = json.loads((d / "truth.json").read_text())
        flags = json.loads((d / "decodable.json").read_text())["flags"]
        out.append((d.name, cv2.imread(str(d / "image.jpg")), truth, json.loads((d / "setup.json").read_text()),
                    {str(k): bool(v) for k, v in flags.items()}))
    return out


#: Bump when the 4K sequence's plan or renderer changes (invalidates its cached frames).
SEQUENCE_4K_VERSION = "s1"


def sequence_4k_folder() -> Path:
    """The 4K sequence (:func:`synth.sequence.sequence_plan_4k`), rendered once into the cache (a
    minute or two) and read from there after; ``setup.json``, written last, marks a whole one."""
    from synth.sequence import sequence_plan_4k, write_sequence

    folder = CACHE / f"sequence4k_{SEQUENCE_4K_VERSION}"
    if not (folder / "setup.json").exists():
        print(f"(rendering the 4K sequence into {folder}, once)")
        write_sequence(folder, sequence_plan_4k())
    return folder


def sequence_part(conditions: int, resolutions: tuple[str, ...] = ("1080p",)) -> None:
    """The tracker sequences seen through a webcam: every frame degraded (fixed seeds).

    ``1080p``: the bundled 48-frame sequence (``sample_images/sequence``, 60 x 60 cm);
    ``4K``: the same events on a 120 x 120 cm table at 3840 x 2160
    (:func:`synth.sequence.sequence_plan_4k`: sixteen models, five moves, hands over models,
    markers as many pixels wide as at 1080p), rendered once into the cache.

    Two kinds of condition, ``conditions`` of each (the same ones at both resolutions):

    - ``still camera``: one set of webcam conditions (:func:`synth.webcam.random_photo`;
      fresh sensor noise every frame, and its motion blur, if any, on the frames where a
      model is lifted or put down, as a hand moving over the table gives);
    - ``blurred``: :func:`synth.webcam.sequence_photos`: 'hard' conditions, JPEG 70-85, the
      exposure drifting by up to 15 %, a 2-5 px motion blur on every frame where a model is
      lifted or put down (and the frame before), and on 15 % of the others (camera shake).

    The tracker runs over the 48 frames. Figures: the moves reported (from, to and distance
    within 1 mm of the truth), "hidden" events for models nobody touched (nor a hand
    covered) at that moment (a moved model's before its lift count too), ms per frame (CPU),
    and the CPU per frame by the expensive steps it ran
    (:attr:`tracker.pipeline.Tracker.last_steps`), with the slowest frames.
    """
    from tracker.sources import SAMPLE_SEQUENCE

    for res in resolutions:
        folder = SAMPLE_SEQUENCE if res == "1080p" else sequence_4k_folder()
        _sequence_runs(res, folder, conditions)


def _sequence_runs(res: str, folder: Path, conditions: int) -> None:
    """:func:`sequence_part` on the sequence in ``folder``."""
    from dataclasses import replace as dc_replace

    from calibration.setup import load_setup
    from synth.webcam import apply_photo, random_photo, sequence_photos
    from tracker.sources import frames_from_folder
    from tracker.tracking import HIDE_AFTER_FRAMES

    truth = json.loads((folder / "truth.json").read_text())
    moves = [e for e in truth["events"] if e["type"] == "move"]
    lifts = [(int(e["marker_id"]), int(e["lifted_frame"])) for e in moves]
    covered = {int(k): v for e in truth["events"] if e["type"] == "hand" for k, v in e["occluded_markers"].items()}
    busy = {f for m in moves for f in (m["lifted_frame"] - 1, m["lifted_frame"], m["placed_frame"],
                                       m["placed_frame"] - 1)}
    n_frames = int(truth.get("frame_count", 48))
    w, h = truth["image_size"]
    table = truth["setup"]["table"]
    print(f"\n== realistic sequences, {res}: the {n_frames}-frame sequence ({w} x {h}, "
          f"{table['width_mm'] / 10:g} x {table['depth_mm'] / 10:g} cm, {len(truth['initial_models'])} models, "
          f"{len(moves)} moves) under webcam conditions ==")
    for kind in ("still camera", "blurred"):
        total_ok = total = false_hidden = 0
        cpu: list[float] = []
        by_steps: dict[str, list[float]] = {}
        slowest: list[tuple[float, str]] = []
        for c in range(conditions):
            rng = np.random.default_rng(500 + c if kind == "still camera" else 700 + c)
            if kind == "still camera":
                photo = random_photo(rng)
                photos = [photo if i in busy else dc_replace(photo, motion_px=0.0) for i in range(n_frames + 1)]
            else:
                photos = sequence_photos(rng, n_frames + 1, busy)
            tracker = Tracker(load_setup(folder / "setup.json"))
            events: list[dict[str, Any]] = []
            for frame in frames_from_folder(folder):
                if frame.image is not None:
                    p = photos[min(frame.index, len(photos) - 1)]
                    frame = dc_replace(frame, image=apply_photo(frame.image, p, seed=1000 * c + frame.index))
                t0 = time.process_time()
                out = tracker.process(frame)
                if frame.index > 0:
                    ms = (time.process_time() - t0) * 1000.0
                    steps = "+".join(tracker.last_steps) or "following"
                    cpu.append(ms)
                    by_steps.setdefault(steps, []).append(ms)
                    slowest.append((ms, f"{c}#{frame.index} {steps}"))
                events += [dict(e, frame=frame.index) if "frame" not in e else e for e in out]
            ok = 0
            bad: list[str] = []
            for m in moves:
                got = [e for e in events if e["type"] == "moved" and e.get("marker_id") == m["marker_id"]]
                good = [e for e in got if math.dist(e["from_mm"], m["from_mm"]) <= 1.0
                        and math.dist(e["to_mm"], m["to_mm"]) <= 1.0
                        and abs(e["distance_mm"] - m["distance_mm"]) <= 1.0]
                ok += bool(good)
                if not good:
                    bad.append(f"{m['marker_id']}: " + (", ".join(f"{e['from_mm']}->{e['to_mm']}" for e in got)
                                                        or "no move"))
            # (a model is hidden at the HIDE_AFTER_FRAMES-th frame in a row without it)
            # a moved model may be hidden from its lift until its move is reported (its old place
            # is empty; its new one is found by a later scan), never before its lift nor after:
            # a "hidden" then is as false as for a model never touched
            lifted = {(marker_id, f) for marker_id, start in lifts
                      for f in range(start, min([int(e["frame"]) for e in events if e["type"] == "moved"
                                                 and e["marker_id"] == marker_id and int(e["frame"]) >= start],
                                                default=len(photos)) + 1)}
            wrong_hidden = [e for e in events if e["type"] == "hidden"
                            and (e["marker_id"], int(e["frame"])) not in lifted
                            and not any(e["marker_id"] in covered.get(int(e["frame"]) - k, [])
                                        for k in range(HIDE_AFTER_FRAMES))]
            total_ok += ok
            total += len(moves)
            false_hidden += len(wrong_hidden)
            p0 = photos[0]
            blurred = sum(p.motion_px > 0 for p in photos)
            print(f"  {res} {kind} {c}: motion {max(p.motion_px for p in photos):.1f} px on {blurred} frames, defocus "
                  f"{p0.defocus_sigma:.2f}, JPEG {p0.jpeg_quality}, exposure {min(p.exposure for p in photos):.2f}-"
                  f"{max(p.exposure for p in photos):.2f}: moves within 1 mm {ok}/{len(moves)}, hidden for "
                  f"models not touched then {len(wrong_hidden)}" + (f"  (missed {'; '.join(bad)})" if bad else "")
                  + (f"  (hidden: {[(e['marker_id'], e['frame']) for e in wrong_hidden]})" if wrong_hidden else ""))
        print(f"  {res} {kind}: moves within 1 mm {total_ok}/{total}; false 'hidden': {false_hidden}; ms/frame CPU "
              f"median {float(np.median(cpu)):.1f}, max {float(np.max(cpu)):.1f}")
        print("    CPU ms by step (frames: median / max): " + ", ".join(
            f"{k} {len(v)}: {float(np.median(v)):.1f} / {max(v):.1f}"
            for k, v in sorted(by_steps.items(), key=lambda kv: -len(kv[1]))))
        print("    slowest frames (condition#frame steps): " + ", ".join(
            f"{label} {ms:.0f}" for ms, label in sorted(slowest, reverse=True)[:5]))


#: Rim colours the base-mode part's frames take first, frame after frame: the light rims (white,
#: yellow, orange) that paper, dice, the table's border and terrain share, beside the others.
BASES_RIMS_FIRST: tuple[tuple[str, ...], ...] = (
    ("white", "red"), ("yellow", "blue"), ("orange", "purple"), ("white", "yellow"), ("orange", "cyan"),
    ("yellow", "black"), ("white", "orange"), ("red", "blue"),
)


def bases_frame(seed: int, resolution: str, rims_first: tuple[str, ...]
                ) -> tuple[np.ndarray, dict[str, Any], dict[str, Any]]:
    """Render (or load from the cache) one realistic frame whose sides take ``rims_first`` first."""
    from synth.realistic import render_realistic

    stem = CACHE / f"bases_{RENDER_VERSION}_{resolution}_{seed}_{'-'.join(rims_first)}"
    paths = [stem.with_suffix(e) for e in (".png", ".json")]
    if all(p.exists() for p in paths):
        doc = json.loads(paths[1].read_text())
        return cv2.imread(str(paths[0])), doc["truth"], doc["setup"]
    image, truth, setup_doc = render_realistic(seed, resolution, rims_first=rims_first)
    CACHE.mkdir(exist_ok=True)
    cv2.imwrite(str(paths[0]), image)
    paths[1].write_text(json.dumps({"truth": truth, "setup": setup_doc}))
    return cv2.imread(str(paths[0])), truth, setup_doc


def _dump_base_crops(dump: Path, label: str, image: np.ndarray, truth: dict[str, Any], setup_doc: dict[str, Any],
                     bases: list[dict[str, Any]]) -> None:
    """Write crops of the missed true bases and of the false reported ones (for a person to look at)."""
    from calibration.camera import CameraIntrinsics
    from calibration.table import calibrate_table as calibrate

    doc = dict(setup_doc)
    doc["camera"] = {"matrix": truth["camera"]["matrix"], "distortion": truth["camera"]["distortion"]}
    setup = parse_setup(doc, source="benchmark setup")
    size = (image.shape[1], image.shape[0])
    cal = calibrate(image, setup, CameraIntrinsics.from_settings(setup.camera, size))
    dump.mkdir(parents=True, exist_ok=True)
    true_bases = truth["bases"]

    def crop(name: str, x: float, y: float, dia: float) -> None:
        c = cal.to_image_px(np.array([[x, y], [x + dia, y]]), height_mm=3.0)
        r = int(max(20, 1.6 * np.linalg.norm(c[1] - c[0])))
        cx, cy = int(c[0][0]), int(c[0][1])
        patch = image[max(0, cy - r):cy + r, max(0, cx - r):cx + r]
        if patch.size:
            big = cv2.resize(patch, None, fx=max(1, 200 // max(1, 2 * r)), fy=max(1, 200 // max(1, 2 * r)),
                             interpolation=cv2.INTER_NEAREST)
            cv2.imwrite(str(dump / f"{label}_{name}.png"), big)

    for k, t in enumerate(true_bases):
        if t.get("id") is not None or t.get("visibility", 1.0) < 0.75:
            continue
        d = [math.hypot(f["x_mm"] - t["centre_mm"][0], f["y_mm"] - t["centre_mm"][1]) for f in bases]
        if not d or min(d) > t["diameter_mm"] / 2:
            crop(f"missed{k}_{t.get('side')}_{t['diameter_mm']:g}", *t["centre_mm"], t["diameter_mm"])
    for k, f in enumerate(bases):
        near = min((math.hypot(f["x_mm"] - t["centre_mm"][0], f["y_mm"] - t["centre_mm"][1]) - t["diameter_mm"] / 2
                    for t in true_bases), default=math.inf)
        if near > 0.0:
            crop(f"false{k}_{f['side']}_{f['diameter_mm']:g}", f["x_mm"], f["y_mm"], f["diameter_mm"])


def bases_part(n_hd: int, n_4k: int, dump: Path | None = None, first_seed: int = 0) -> None:
    """Base mode on realistic frames, the true camera given: per rim colour and per frame.

    The project's own renders (:func:`synth.realistic.render_realistic`) with the sides' rim
    colours taken from :data:`BASES_RIMS_FIRST` in turn (each only where it stands apart
    from the mat by Delta E >= 25), then the shared dev-scenes one by one. Figures: bare
    bases found (at least 75 % of the rim visible), reported bases that are real, centre
    RMS (mm), as ``benchmarks/realistic_score.py`` counts them. ``dump``: a folder where
    crops of the missed and false bases are written. ``first_seed``: the frames' first seed (see
    ``--first-seed``).
    """
    from benchmarks.realistic_score import Score, bare_by_rim, score_frame

    def pct(a: int, b: int) -> str:
        return f"{100.0 * a / b:.1f} % ({a}/{b})" if b else "-"

    frames = []
    for res, n in (("1080p", n_hd), ("4K", n_4k)):
        for seed in range(first_seed, first_seed + n):
            rims = BASES_RIMS_FIRST[(seed + (3 if res == "4K" else 0)) % len(BASES_RIMS_FIRST)]
            image, truth, setup_doc = bases_frame(seed, res, rims)
            frames.append((f"{res}#{seed}", image, truth, setup_doc, "own"))
    for label, image, truth, setup_doc, _ in dev_frames():
        frames.append((label, image, truth, setup_doc, "dev"))
    for group, title in (("own", "realistic renders, light rims in the mix"), ("dev", "shared dev-scenes")):
        chosen = [f for f in frames if f[4] == group]
        if not chosen:
            continue
        print(f"\n== bare bases, true camera: {title} ({len(chosen)} frames) ==")
        total = Score()
        per_rim: dict[str, dict[str, Any]] = {}
        for label, image, truth, setup_doc, _ in chosen:
            _, bases, dt = run_locate(image, setup_doc, truth, true_camera=True)
            sc = score_frame(truth, {}, [], bases, camera_known=True, label=label)
            total.add(sc)
            sides = dict(setup_doc.get("bases", {}).get("sides", {}))
            for rim, r in bare_by_rim(truth, bases, sides).items():
                acc = per_rim.setdefault(rim, {"expected": 0, "found": 0, "reported": 0, "false": 0, "err": []})
                for k, v in r.items():
                    acc[k] = acc[k] + v
            print(f"  {label:12s} rims {'/'.join(sides):14s} found {pct(sc.bare_found, sc.bare_expected):>16s}"
                  f" real {pct(sc.bare_reported - sc.bare_false, sc.bare_reported):>16s}"
                  f" RMS {Score.rms(sc.bare_err_mm):5.2f} mm  ({dt:.1f} s)")
            if dump is not None and bases is not None:
                _dump_base_crops(dump, label, image, truth, setup_doc, bases)
        print(f"  {'all':12s} {'':19s} found {pct(total.bare_found, total.bare_expected):>16s}"
              f" real {pct(total.bare_reported - total.bare_false, total.bare_reported):>16s}"
              f" RMS {Score.rms(total.bare_err_mm):5.2f} mm")
        print("  per rim colour (found / reported that are real / centre RMS mm):")
        for rim, r in sorted(per_rim.items()):
            print(f"    {rim:10s} {pct(r['found'], r['expected']):>16s} "
                  f"{pct(r['reported'] - r['false'], r['reported']):>16s} {Score.rms(r['err']):6.2f}")


def locate_part(runs: int) -> None:
    """``tabletracker locate`` on a 4K realistic render (JPEG), start-up included: wall and CPU.

    The command runs as a user runs it (a new process each time, OpenCV's default threads).
    Two start-ups: the project's modules compiled from source (no bytecode: the first run
    after an install or an edit, and every run where ``PYTHONDONTWRITEBYTECODE`` is set) and
    from their bytecode (``__pycache__`` written by the first run). CPU is the process's user +
    system time (it can exceed wall: base mode runs beside the marker scan); wall clock depends
    on what else the machine runs (the load average is printed beside it). Target: <= 1.5 s
    wall on an otherwise idle machine.
    """
    import os
    import resource
    import shutil
    import subprocess

    image, truth, setup_doc = bases_frame(0, "4K", BASES_RIMS_FIRST[3])
    folder = CACHE / "locate-4k"
    folder.mkdir(parents=True, exist_ok=True)
    photo = folder / "photo.jpg"
    cv2.imwrite(str(photo), image, [cv2.IMWRITE_JPEG_QUALITY, 92])
    setup_path = folder / "setup.json"
    setup_path.write_text(json.dumps(setup_doc))
    exe = Path(sys.executable).with_name("tabletracker")
    cmd = [str(exe)] if exe.exists() else [sys.executable, "-m", "tabletracker.cli"]
    cmd += ["locate", str(photo), "--setup", str(setup_path), "--json"]
    print(f"\n== locate on a 4K realistic render ({image.shape[1]}x{image.shape[0]} JPEG, camera "
          f"{'given' if 'camera' in setup_doc else 'estimated'}), {runs} runs each ==")
    for label, bytecode in (("from source (no bytecode)", False), ("from bytecode", True)):
        env = dict(os.environ)
        if bytecode:
            env.pop("PYTHONDONTWRITEBYTECODE", None)
            subprocess.run(cmd, env=env, stdout=subprocess.DEVNULL, check=True, cwd=ROOT)    # writes __pycache__
        else:
            env["PYTHONDONTWRITEBYTECODE"] = "1"
            for package in ("tabletracker", "calibration", "tracker", "rules", "server", "synth"):
                for cache in (ROOT / package).rglob("__pycache__"):       # the project's bytecode only
                    shutil.rmtree(cache, ignore_errors=True)
        walls, cpus = [], []
        for _ in range(runs):
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            t = time.perf_counter()
            subprocess.run(cmd, env=env, stdout=subprocess.DEVNULL, check=True, cwd=ROOT)
            walls.append(time.perf_counter() - t)
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpus.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
        print(f"  {label:28s} wall median {float(np.median(walls)):.2f} s (min {min(walls):.2f}), CPU median "
              f"{float(np.median(cpus)):.2f} s; load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="fewer frames (about a minute)")
    parser.add_argument("--full", action="store_true", help="more realistic frames (20 + 12) and seeds")
    parser.add_argument("--parts", default="realistic,dev,sequence,clean",
                        help="comma-separated: realistic, weak, dev, bases, sequence, locate, clean")
    parser.add_argument("--dump", type=Path, default=None,
                        help="bases part: write crops of missed and false bases to this folder")
    parser.add_argument("--weak", type=int, default=None,
                        help="weak part: frames per resolution (default 6, 12 with --full)")
    parser.add_argument("--sequences", default=None,
                        help="sequence part: comma-separated 1080p, 4K (default: 1080p; both with --full)")
    parser.add_argument("--first-seed", type=int, default=0,
                        help="realistic, weak and bases parts: the frames' first seed (the default 0 gives the frames "
                             "the detector was tuned on; 100 and up, frames it never saw: a held-out check)")
    parser.add_argument("--seeds", type=int, default=None, help="random layouts per clean configuration")
    parser.add_argument("--frames", type=int, default=None,
                        help="frames timed per clean configuration (150 = 5 s of video: a whole sweep at 4K)")
    parser.add_argument("--only", choices=sorted(CONFIGS), help="one clean configuration")
    args = parser.parse_args()
    cv2.setNumThreads(1)
    parts = set(args.parts.split(","))
    n_hd, n_4k = (3, 2) if args.quick else (20, 12) if args.full else (6, 4)
    if "realistic" in parts:
        frames = []
        for res, n in (("1080p", n_hd), ("4K", n_4k)):
            for seed in range(args.first_seed, args.first_seed + n):
                image, truth, setup_doc, decodable = realistic_frame(seed, res)
                frames.append((f"{res}#{seed}", image, truth, setup_doc, decodable))
        realistic_part(frames, "realistic renders (synth.realistic)")
    if "weak" in parts:
        n_weak = args.weak if args.weak is not None else (2 if args.quick else 12 if args.full else 6)
        frames = []
        for res in ("1080p", "4K"):
            for seed in range(args.first_seed, args.first_seed + n_weak):
                image, truth, setup_doc, decodable = realistic_frame(seed, res, weak=True)
                frames.append((f"{res}#{seed}w", image, truth, setup_doc, decodable))
        realistic_part(frames, "realistic renders, every frame with a 2-5 px motion blur and JPEG 70-79")
    if "dev" in parts:
        frames = dev_frames()
        if frames:
            realistic_part(frames, "shared dev-scenes (independent renderer)")
    if "bases" in parts:
        bases_part(n_hd, n_4k, args.dump, args.first_seed)
    if "locate" in parts:
        locate_part(2 if args.quick else 5 if args.full else 3)
    if "sequence" in parts:
        resolutions = tuple(args.sequences.split(",")) if args.sequences else \
            ("1080p", "4K") if args.full else ("1080p",)
        sequence_part(1 if args.quick else 4 if args.full else 2, resolutions)
    if "clean" in parts:
        seeds = args.seeds if args.seeds is not None else (1 if args.quick else 4 if args.full else 2)
        timed = args.frames if args.frames is not None else (30 if args.quick else 150 if args.full else 90)
        clean_part(seeds, timed, args.only)
    return 0


def clean_part(seeds: int, frames: int, only: str | None) -> None:
    """The clean-render configurations: accuracy beside the baseline, and the tracker's speed."""
    for config in CONFIGS:
        if only and config != only:
            continue
        a: dict[str, list] = {}
        b: dict[str, list] = {}
        t: dict[str, float] = {}
        for seed in range(seeds):
            image, truth = rendered(config, seed)
            found, bases, cal = ours(image, truth)
            merge(a, score_models(found, truth))
            merge(a, score_bases(bases, truth))
            tiles, fits = by_regions(image, truth, cal, found, bases)
            merge(a, {f"tiles_{k}": v for k, v in score_bases(tiles, truth).items()})
            merge(a, {f"fits_{k}": v for k, v in score_bases(fits, truth).items()})
            merge(b, score_models(Baseline(truth).locate(image), truth))
            if seed == 0:
                t = timing(image, truth, cal, frames)
        report(config, a, b, t)


if __name__ == "__main__":
    sys.exit(main())
