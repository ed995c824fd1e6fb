"""The rendered tracker sequence (issue 3 item 6): frames, per-frame truth, events, game file.

One camera over a 60 x 60 cm table; eight models in four units (two per side), two
bare bases, a ruin and a wall. Models are lifted and put down one at a time (missing
while held above the table), a hand passes over the table, a bare base appears, one
frame number is dropped and one file is empty (a corrupt frame).

Examples
--------
>>> plan = sequence_plan()
>>> plan.dropped_frames, plan.corrupt_frames
((20,), (31,))
>>> [e.marker_id for e in plan.moves]
[10, 14, 12, 16]
>>> sorted(m.marker_id for m in plan.frame(9).models)  # marker 10 is in the air
[11, 12, 13, 14, 15, 16, 17]
"""

from __future__ import annotations

import json
import logging
import math
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from calibration.setup import setup_to_dict
from synth.camera import CameraModel, look_at_camera
from synth.render import StaticLayer, render_scene
from synth.samples import write_sample
from synth.scene import BareBaseSpec, HandSpec, ModelSpec, SceneSpec, TerrainBlock, make_setup

log = logging.getLogger(__name__)

TABLE_MM = 600.0
FRAME_COUNT = 48
IMAGE_SIZE = (1920, 1080)
SEED = 4242
SUPERSAMPLE = 2  # with 4x4 extra rays on every ink edge, markers stay exact; twice as fast as 3

# (marker id, unit, x, y, base, facing, side, figure colour)
_MODELS = (
    (10, "red-1", 140.0, 470.0, 25.0, 270.0, "red", (50, 60, 150)),
    (11, "red-1", 175.0, 485.0, 25.0, 280.0, "red", (50, 60, 150)),
    (12, "red-2", 420.0, 480.0, 32.0, 250.0, "red", (40, 110, 170)),
    (13, "red-2", 460.0, 455.0, 32.0, 235.0, "red", (40, 110, 170)),
    (14, "blue-1", 160.0, 150.0, 25.0, 80.0, "blue", (120, 70, 40)),
    (15, "blue-1", 205.0, 130.0, 25.0, 95.0, "blue", (120, 70, 40)),
    (16, "blue-2", 430.0, 140.0, 40.0, 110.0, "blue", (90, 90, 90)),
    (17, "blue-2", 480.0, 175.0, 40.0, 120.0, "blue", (90, 90, 90)),
)
UNITS = (("red-1", "A", "Battle Brothers", "Battle Brother"), ("red-2", "A", "Snipers", "Sniper"),
         ("blue-1", "B", "Cultists", "Cultist"), ("blue-2", "B", "Bikers", "Biker"))
# What each profile's figures carry. The profiles' and weapons' stats are the Firefight sample
# game's (rules/data/games/firefight-sample.json, whose weapons are the bundled rosters'), so the
# sequence's game file can be played (tabletracker resolve, the web page) as it is written.
KIT = {"Battle Brother": ("rifle", "bayonet"), "Sniper": ("sniper rifle",), "Cultist": ("rifle", "bayonet"),
       "Biker": ("rifle", "bayonet")}
FIREFIGHT_SAMPLE = Path(__file__).resolve().parents[1] / "rules" / "data" / "games" / "firefight-sample.json"
TERRAIN = (
    TerrainBlock("ruins-1", "ruins", ((250.0, 250.0), (335.0, 250.0), (335.0, 315.0), (250.0, 315.0)), 60.0,
                 (95, 105, 115)),
    TerrainBlock("wall-1", "wall", ((400.0, 270.0), (520.0, 270.0), (520.0, 280.0), (400.0, 280.0)), 40.0,
                 (120, 130, 140)),
)
WALL_LINE_MM = ((400.0, 275.0), (520.0, 275.0))
START_BASES = (BareBaseSpec(95.0, 300.0, 32.0, "blue", figure_height_mm=28.0, facing_deg=0.0),
               BareBaseSpec(540.0, 330.0, 25.0, "red", figure_height_mm=26.0, facing_deg=180.0))
NEW_BASE = BareBaseSpec(300.0, 420.0, 32.0, "blue", figure_height_mm=30.0, facing_deg=300.0)


@dataclass(frozen=True)
class Move:
    """Marker ``marker_id`` lifted at ``lifted_frame``, in the air until ``placed_frame``."""

    marker_id: int
    lifted_frame: int
    placed_frame: int
    to_mm: tuple[float, float]
    to_facing_deg: float

    @property
    def hidden_frames(self) -> tuple[int, ...]:
        return tuple(range(self.lifted_frame, self.placed_frame))


@dataclass(frozen=True)
class Frame:
    """What one frame shows."""

    number: int
    models: tuple[ModelSpec, ...]
    bases: tuple[BareBaseSpec, ...]
    hands: tuple[HandSpec, ...]
    lifted: tuple[int, ...]


@dataclass(frozen=True)
class SequencePlan:
    """The whole sequence: moves, hands, the new base, dropped and corrupt frames."""

    moves: tuple[Move, ...]
    hands: tuple[tuple[int, HandSpec], ...]
    base_appears_frame: int
    dropped_frames: tuple[int, ...]
    corrupt_frames: tuple[int, ...]
    frame_count: int = FRAME_COUNT

    def initial_models(self) -> tuple[ModelSpec, ...]:
        return tuple(ModelSpec(mid, x, y, base, facing, _offset(base), side, figure_height_mm=30.0,
                               figure_colour=colour, figure_radius_mm=_figure_radius(base))
                     for mid, _u, x, y, base, facing, side, colour in _MODELS)

    def frame(self, n: int) -> Frame:
        """The state of the table at frame ``n``."""
        models = []
        lifted = []
        for m in self.initial_models():
            state = m
            for mv in self.moves:
                if mv.marker_id != m.marker_id:
                    continue
                if n >= mv.placed_frame:
                    state = replace(state, x_mm=mv.to_mm[0], y_mm=mv.to_mm[1], facing_deg=mv.to_facing_deg)
                elif n >= mv.lifted_frame:
                    state = None
                    break
            if state is None:
                lifted.append(m.marker_id)
            else:
                models.append(state)
        bases = START_BASES + ((NEW_BASE,) if n >= self.base_appears_frame else ())
        hands = tuple(h for f, h in self.hands if f == n)
        return Frame(n, tuple(models), bases, hands, tuple(lifted))

    def written_frames(self) -> tuple[int, ...]:
        return tuple(n for n in range(self.frame_count) if n not in self.dropped_frames)


def _offset(base: float) -> float:
    return 4.0 if base < 30 else 7.0


def _figure_radius(base: float) -> float:
    return min(0.18 * base, (base / 2 + _offset(base) - 6.0 - 1.0) / 2 - 0.5)


def sequence_plan() -> SequencePlan:
    """The fixed plan of the bundled sequence."""
    moves = (
        Move(10, 8, 11, (150.0, 360.0), 300.0),
        Move(14, 22, 25, (250.0, 200.0), 60.0),
        Move(12, 27, 29, (390.0, 400.0), 225.0),
        Move(16, 38, 41, (455.0, 225.0), 150.0),
    )
    hands = tuple((f, HandSpec(x, y, 150.0, from_deg=95.0)) for f, (x, y) in
                  zip((14, 15, 16, 17), ((150.0, 200.0), (230.0, 230.0), (330.0, 260.0), (430.0, 280.0))))
    hands += ((41, HandSpec(470.0, 260.0, 160.0, from_deg=80.0)),)
    return SequencePlan(moves, hands, base_appears_frame=35, dropped_frames=(20,), corrupt_frames=(31,))


def sequence_camera() -> CameraModel:
    """The one camera of the sequence: 1080p, 0.8 m up, tilted 8 degrees, a mild lens."""
    return look_at_camera(TABLE_MM, TABLE_MM, image_size=IMAGE_SIZE, height_mm=800.0, tilt_deg=8.0,
                          distortion=(-0.05, 0.01, 0.0, 0.0, 0.0), fov_margin=1.04)


def frame_spec(plan: SequencePlan, n: int, camera: CameraModel) -> SceneSpec:
    """The :class:`SceneSpec` of frame ``n``."""
    fr = plan.frame(n)
    setup = make_setup(TABLE_MM, TABLE_MM, models=plan.initial_models())
    return SceneSpec(setup, camera, fr.models, fr.bases, TERRAIN, fr.hands, noise_sigma=1.5, blur_sigma=0.5,
                     jpeg_quality=85, seed=SEED, noise_seed=SEED + 1 + n, supersample=SUPERSAMPLE,
                     notes=f"sequence frame {n}" + (f"; lifted: {list(fr.lifted)}" if fr.lifted else "")
                     + ("; a hand over the table" if fr.hands else ""))


def game_document(plan: SequencePlan) -> dict[str, Any]:
    """The game file (CONVENTIONS.md) of the sequence's first frame: four units, two terrain pieces."""
    models = []
    for m, (mid, unit, *_rest) in zip(plan.initial_models(), _MODELS):
        profile = next(u[3] for u in UNITS if u[0] == unit)
        models.append({"id": f"m{mid}", "unit": unit, "marker_id": mid, "x_mm": m.x_mm, "y_mm": m.y_mm,
                       "base_mm": m.base_mm, "facing_deg": m.facing_deg, "height_mm": m.figure_height_mm,
                       "profile": profile, "weapons": list(KIT[profile]), "status": []})
    units = [{"id": uid, "side": side, "name": name,
              "leader": f"m{next(mid for mid, u, *_r in _MODELS if u == uid)}"} for uid, side, name, _p in UNITS]
    ruins = TERRAIN[0]
    terrain = [
        {"id": ruins.terrain_id, "kind": "ruins", "shape": "area", "points_mm": [list(p) for p in ruins.points_mm],
         "height_mm": ruins.height_mm},
        {"id": "wall-1", "kind": "wall", "shape": "line", "points_mm": [list(p) for p in WALL_LINE_MM],
         "height_mm": TERRAIN[1].height_mm},
    ]
    sample = json.loads(FIREFIGHT_SAMPLE.read_text(encoding="utf-8"))
    used = [u[3] for u in UNITS]
    profiles = {name: sample["profiles"][name] for name in used}
    weapons = {w: sample["weapons"][w] for w in dict.fromkeys(w for name in used for w in KIT[name])}
    return {"ruleset": "firefight", "name": "Rendered tracker sequence (sample_images/sequence)",
            "table": {"width_mm": TABLE_MM, "depth_mm": TABLE_MM}, "units": units, "models": models,
            "terrain": terrain, "objectives": [{"id": "obj-1", "x_mm": 300.0, "y_mm": 300.0}],
            "profiles": profiles, "weapons": weapons}


def write_sequence(out_dir: Path) -> dict[str, Any]:
    """Render every frame into ``out_dir`` with its truth, then ``truth.json``, ``game.json``, ``setup.json``."""
    out_dir.mkdir(parents=True, exist_ok=True)
    for old in out_dir.glob("frame_*"):
        old.unlink()
    plan = sequence_plan()
    camera = sequence_camera()
    static = StaticLayer()
    frames = []
    hand_occlusions: dict[str, list[int]] = {}
    setup = None
    for n in range(plan.frame_count):
        if n in plan.dropped_frames:
            continue
        stem = out_dir / f"frame_{n:04d}"
        if n in plan.corrupt_frames:
            stem.with_suffix(".jpg").write_bytes(b"")
            frames.append({"frame": n, "image": f"frame_{n:04d}.jpg", "truth": None, "corrupt": True})
            continue
        spec = frame_spec(plan, n, camera)
        setup = spec.setup
        image, truth = render_scene(spec, static)
        fr = plan.frame(n)
        truth["frame"] = n
        truth["lifted_models"] = list(fr.lifted)
        write_sample(stem, image, truth)
        frames.append({"frame": n, "image": f"frame_{n:04d}.jpg", "truth": f"frame_{n:04d}.json"})
        if fr.hands:
            hand_occlusions[str(n)] = [m["marker_id"] for m in truth["models"]
                                       if m["marker_visible_fraction"] < 0.9]
    assert setup is not None
    doc = _truth_document(plan, camera, setup, frames, hand_occlusions)
    (out_dir / "truth.json").write_text(json.dumps(doc, indent=1) + "\n", encoding="utf-8")
    (out_dir / "game.json").write_text(json.dumps(game_document(plan), indent=1) + "\n", encoding="utf-8")
    setup_doc = setup_to_dict(setup)
    setup_doc["camera"] = {"matrix": camera.matrix.tolist(), "distortion": camera.distortion.tolist()}
    (out_dir / "setup.json").write_text(json.dumps(setup_doc, indent=1) + "\n", encoding="utf-8")
    log.info("wrote %d frames to %s", len(frames), out_dir)
    return doc


def _truth_document(plan: SequencePlan, camera: CameraModel, setup: Any, frames: list[dict[str, Any]],
                    hand_occlusions: dict[str, list[int]]) -> dict[str, Any]:
    initial = {m.marker_id: m for m in plan.initial_models()}
    events: list[dict[str, Any]] = []
    for mv in plan.moves:
        start = initial[mv.marker_id]
        events.append({
            "type": "move", "marker_id": mv.marker_id, "from_mm": [start.x_mm, start.y_mm],
            "to_mm": list(mv.to_mm), "from_facing_deg": start.facing_deg, "to_facing_deg": mv.to_facing_deg,
            "distance_mm": round(math.hypot(mv.to_mm[0] - start.x_mm, mv.to_mm[1] - start.y_mm), 3),
            "lifted_frame": mv.lifted_frame, "placed_frame": mv.placed_frame,
            "hidden_frames": list(mv.hidden_frames)})
    hand_frames = sorted({f for f, _h in plan.hands})
    events.append({"type": "hand", "frames": hand_frames,
                   "hands": [{"frame": f, "x_mm": h.x_mm, "y_mm": h.y_mm, "height_mm": h.height_mm}
                             for f, h in plan.hands],
                   "occluded_markers": hand_occlusions,
                   "note": "markers under 90 % visible in each hand frame; they keep their last position"})
    events.append({"type": "base_appears", "frame": plan.base_appears_frame, "x_mm": NEW_BASE.x_mm,
                   "y_mm": NEW_BASE.y_mm, "diameter_mm": NEW_BASE.diameter_mm, "side": NEW_BASE.side})
    for f in plan.dropped_frames:
        events.append({"type": "dropped_frame", "frame": f, "note": "no file with this number"})
    for f in plan.corrupt_frames:
        events.append({"type": "corrupt_frame", "frame": f, "image": f"frame_{f:04d}.jpg",
                       "note": "zero-byte file: cannot be decoded"})
    events.sort(key=lambda e: e.get("lifted_frame", e.get("frame", e.get("frames", [0])[0] if "frames" in e else 0)))
    setup_doc = setup_to_dict(setup)
    return {
        "description": "Tracker sequence: 60x60 cm table, 1080p camera 0.8 m up tilted 8 deg; models lifted and "
                       "put down one at a time, a hand passing, a bare base appearing, a dropped and a corrupt frame.",
        "image_size": list(camera.image_size), **camera.to_dict(), "setup": setup_doc,
        "frame_count": plan.frame_count, "frames": frames,
        "dropped_frames": list(plan.dropped_frames), "corrupt_frames": list(plan.corrupt_frames),
        "events": events,
        "initial_models": [{"marker_id": m.marker_id, "x_mm": m.x_mm, "y_mm": m.y_mm, "base_mm": m.base_mm,
                            "facing_deg": m.facing_deg, "offset_mm": m.offset_mm, "side": m.side}
                           for m in plan.initial_models()],
        "initial_bases": [{"x_mm": b.x_mm, "y_mm": b.y_mm, "diameter_mm": b.diameter_mm, "side": b.side}
                          for b in START_BASES],
    }
