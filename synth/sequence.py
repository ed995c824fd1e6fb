"""The rendered tracker sequence (issue 3 item 6): frames, per-frame truth, events, game file.

One camera over a 60 x 60 cm table; eight models in four units (two per side), two
bare bases, a ruin and a wall. Models are lifted and put down one at a time (missing
while held above the table), a hand passes over the table, a bare base appears, one
frame number is dropped and one file is empty (a corrupt frame).

:func:`sequence_plan_4k` is its 4K counterpart for the benchmark (issue 9: "4K frames of
120-180 cm tables"): a 120 x 120 cm table seen by a 3840 x 2160 camera from twice the
height (so markers span about as many pixels as at 1080p over 60 cm), sixteen models in
eight units, three bare bases, two ruins and a wall, five moves, a hand passing and the
same dropped and corrupt frames. It is not bundled: ``benchmarks/tracker.py`` renders it
once into its cache.

Examples
--------
>>> plan = sequence_plan()
>>> plan.dropped_frames, plan.corrupt_frames
((20,), (31,))
>>> [e.marker_id for e in plan.moves]
[10, 14, 12, 16]
>>> sorted(m.marker_id for m in plan.frame(9).models)  # marker 10 is in the air
[11, 12, 13, 14, 15, 16, 17]
>>> big = sequence_plan_4k()
>>> big.table_mm, big.image_size, [e.marker_id for e in big.moves]
(1200.0, (3840, 2160), [20, 30, 22, 26, 32])
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


ModelRow = tuple[int, str, float, float, float, float, str, tuple[int, int, int]]


@dataclass(frozen=True)
class SequencePlan:
    """The whole sequence: moves, hands, the new base, dropped and corrupt frames; and the table
    (models as :data:`_MODELS` rows, terrain, bare bases) and camera it is rendered with
    (defaults: the bundled 1080p sequence's). ``units`` (rows of :data:`UNITS`) make its game
    file; a plan without them has none."""

    moves: tuple[Move, ...]
    hands: tuple[tuple[int, HandSpec], ...]
    base_appears_frame: int
    dropped_frames: tuple[int, ...]
    corrupt_frames: tuple[int, ...]
    frame_count: int = FRAME_COUNT
    table_mm: float = TABLE_MM
    models: tuple[ModelRow, ...] = _MODELS
    units: tuple[tuple[str, str, str, str], ...] = UNITS
    terrain: tuple[TerrainBlock, ...] = TERRAIN
    start_bases: tuple[BareBaseSpec, ...] = START_BASES
    new_base: BareBaseSpec = NEW_BASE
    image_size: tuple[int, int] = IMAGE_SIZE
    camera_height_mm: float = 800.0

    def initial_models(self) -> tuple[ModelSpec, ...]:
        return tuple(ModelSpec(mid, x, y, base, facing, _offset(base), side, figure_height_mm=30.0,
                               figure_colour=colour, figure_radius_mm=_figure_radius(base))
                     for mid, _u, x, y, base, facing, side, colour in self.models)

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
        bases = self.start_bases + ((self.new_base,) if n >= self.base_appears_frame else ())
        hands = tuple(h for f, h in self.hands if f == n)
        return Frame(n, tuple(models), bases, hands, tuple(lifted))

    def written_frames(self) -> tuple[int, ...]:
        return tuple(n for n in range(self.frame_count) if n not in self.dropped_frames)


def _offset(base: float) -> float:
    return 4.0 if base < 30 else 7.0


def _figure_radius(base: float) -> float:
    return min(0.18 * base, (base / 2 + _offset(base) - 6.0 - 1.0) / 2 - 0.5)


def _hands(passing: tuple[tuple[float, float], ...], last: tuple[float, float]) -> tuple[tuple[int, HandSpec], ...]:
    """A hand passing over the table on frames 14-17 (palm at ``passing``, the arm from the
    players' side), and one at ``last`` on frame 41, over a model just put down."""
    hands = tuple((f, HandSpec(x, y, 150.0, from_deg=95.0)) for f, (x, y) in zip((14, 15, 16, 17), passing))
    return hands + ((41, HandSpec(last[0], last[1], 160.0, from_deg=80.0)),)


def sequence_plan() -> SequencePlan:
    """The fixed plan of the bundled sequence."""
    moves = (
        Move(10, 8, 11, (150.0, 360.0), 300.0),
        Move(14, 22, 25, (250.0, 200.0), 60.0),
        Move(12, 27, 29, (390.0, 400.0), 225.0),
        Move(16, 38, 41, (455.0, 225.0), 150.0),
    )
    hands = _hands(((150.0, 200.0), (230.0, 230.0), (330.0, 260.0), (430.0, 280.0)), (470.0, 260.0))
    return SequencePlan(moves, hands, base_appears_frame=35, dropped_frames=(20,), corrupt_frames=(31,))


#: The 4K sequence's table (120 x 120 cm): sixteen models in eight units, the blue side along
#: y = 0 and the red one along y = 1200 (the players' side), as in the bundled one.
MODELS_4K: tuple[ModelRow, ...] = (
    (20, "red-1", 280.0, 940.0, 25.0, 270.0, "red", (50, 60, 150)),
    (21, "red-1", 330.0, 975.0, 25.0, 280.0, "red", (50, 60, 150)),
    (22, "red-2", 840.0, 960.0, 32.0, 250.0, "red", (40, 110, 170)),
    (23, "red-2", 920.0, 910.0, 32.0, 235.0, "red", (40, 110, 170)),
    (24, "red-3", 560.0, 1050.0, 25.0, 265.0, "red", (60, 70, 90)),
    (25, "red-3", 615.0, 1020.0, 25.0, 290.0, "red", (60, 70, 90)),
    (26, "red-4", 1050.0, 760.0, 40.0, 200.0, "red", (70, 120, 160)),
    (27, "red-4", 1090.0, 830.0, 40.0, 215.0, "red", (70, 120, 160)),
    (30, "blue-1", 320.0, 300.0, 25.0, 80.0, "blue", (120, 70, 40)),
    (31, "blue-1", 410.0, 260.0, 25.0, 95.0, "blue", (120, 70, 40)),
    (32, "blue-2", 860.0, 280.0, 40.0, 110.0, "blue", (90, 90, 90)),
    (33, "blue-2", 960.0, 350.0, 40.0, 120.0, "blue", (90, 90, 90)),
    (34, "blue-3", 600.0, 150.0, 32.0, 85.0, "blue", (30, 60, 60)),
    (35, "blue-3", 655.0, 185.0, 32.0, 100.0, "blue", (30, 60, 60)),
    (36, "blue-4", 150.0, 560.0, 25.0, 10.0, "blue", (110, 110, 110)),
    (37, "blue-4", 180.0, 625.0, 25.0, 20.0, "blue", (110, 110, 110)),
)
TERRAIN_4K = (
    TerrainBlock("ruins-1", "ruins", ((500.0, 500.0), (670.0, 500.0), (670.0, 630.0), (500.0, 630.0)), 60.0,
                 (95, 105, 115)),
    TerrainBlock("ruins-2", "ruins", ((150.0, 760.0), (290.0, 760.0), (290.0, 860.0), (150.0, 860.0)), 80.0,
                 (100, 100, 110)),
    TerrainBlock("wall-1", "wall", ((800.0, 540.0), (1040.0, 540.0), (1040.0, 560.0), (800.0, 560.0)), 40.0,
                 (120, 130, 140)),
)
START_BASES_4K = (BareBaseSpec(200.0, 430.0, 32.0, "blue", figure_height_mm=28.0, facing_deg=0.0),
                  BareBaseSpec(1080.0, 640.0, 25.0, "red", figure_height_mm=26.0, facing_deg=180.0),
                  BareBaseSpec(700.0, 800.0, 40.0, "red", figure_height_mm=32.0, facing_deg=250.0))
NEW_BASE_4K = BareBaseSpec(600.0, 860.0, 32.0, "blue", figure_height_mm=30.0, facing_deg=300.0)


def sequence_plan_4k() -> SequencePlan:
    """The 4K sequence (benchmark only): a 120 x 120 cm table, its own moves (140-220 mm), a hand
    reaching over the blue side's models, then one over a model just put down; the bundled
    sequence's frame numbering (the same dropped and corrupt frames, the base appearing at 35)."""
    moves = (
        Move(20, 8, 11, (300.0, 720.0), 300.0),
        Move(30, 22, 25, (480.0, 410.0), 60.0),
        Move(22, 27, 29, (780.0, 800.0), 225.0),
        Move(26, 32, 34, (960.0, 650.0), 160.0),
        Move(32, 38, 41, (910.0, 460.0), 150.0),
    )
    hands = _hands(((420.0, 230.0), (330.0, 270.0), (640.0, 200.0), (900.0, 310.0)), (930.0, 500.0))
    return SequencePlan(moves, hands, base_appears_frame=35, dropped_frames=(20,), corrupt_frames=(31,),
                        table_mm=1200.0, models=MODELS_4K, units=(), terrain=TERRAIN_4K, start_bases=START_BASES_4K,
                        new_base=NEW_BASE_4K, image_size=(3840, 2160), camera_height_mm=1600.0)


def sequence_camera(plan: SequencePlan | None = None) -> CameraModel:
    """The one camera of the sequence: 1080p, 0.8 m up, tilted 8 degrees, a mild lens (``plan``'s
    image size and height: the 4K one 1.6 m up)."""
    plan = plan or sequence_plan()
    return look_at_camera(plan.table_mm, plan.table_mm, image_size=plan.image_size, height_mm=plan.camera_height_mm,
                          tilt_deg=8.0, distortion=(-0.05, 0.01, 0.0, 0.0, 0.0), fov_margin=1.04)


def frame_spec(plan: SequencePlan, n: int, camera: CameraModel) -> SceneSpec:
    """The :class:`SceneSpec` of frame ``n``."""
    fr = plan.frame(n)
    setup = make_setup(plan.table_mm, plan.table_mm, models=plan.initial_models())
    return SceneSpec(setup, camera, fr.models, fr.bases, plan.terrain, fr.hands, noise_sigma=1.5, blur_sigma=0.5,
                     jpeg_quality=85, seed=SEED, noise_seed=SEED + 1 + n, supersample=SUPERSAMPLE,
                     notes=f"sequence frame {n}" + (f"; lifted: {list(fr.lifted)}" if fr.lifted else "")
                     + ("; a hand over the table" if fr.hands else ""))


def game_document(plan: SequencePlan) -> dict[str, Any]:
    """The game file (CONVENTIONS.md) of the sequence's first frame: four units, two terrain pieces."""
    models = []
    for m, (mid, unit, *_rest) in zip(plan.initial_models(), plan.models):
        profile = next(u[3] for u in plan.units if u[0] == unit)
        models.append({"id": f"m{mid}", "unit": unit, "marker_id": mid, "x_mm": m.x_mm, "y_mm": m.y_mm,
                       "base_mm": m.base_mm, "facing_deg": m.facing_deg, "height_mm": m.figure_height_mm,
                       "profile": profile, "weapons": list(KIT[profile]), "status": []})
    units = [{"id": uid, "side": side, "name": name,
              "leader": f"m{next(mid for mid, u, *_r in plan.models if u == uid)}"}
             for uid, side, name, _p in plan.units]
    ruins = plan.terrain[0]
    terrain = [
        {"id": ruins.terrain_id, "kind": "ruins", "shape": "area", "points_mm": [list(p) for p in ruins.points_mm],
         "height_mm": ruins.height_mm},
        {"id": "wall-1", "kind": "wall", "shape": "line", "points_mm": [list(p) for p in WALL_LINE_MM],
         "height_mm": plan.terrain[1].height_mm},
    ]
    sample = json.loads(FIREFIGHT_SAMPLE.read_text(encoding="utf-8"))
    used = [u[3] for u in plan.units]
    profiles = {name: sample["profiles"][name] for name in used}
    weapons = {w: sample["weapons"][w] for w in dict.fromkeys(w for name in used for w in KIT[name])}
    return {"ruleset": "firefight", "name": "Rendered tracker sequence (sample_images/sequence)",
            "table": {"width_mm": plan.table_mm, "depth_mm": plan.table_mm}, "units": units, "models": models,
            "terrain": terrain, "objectives": [{"id": "obj-1", "x_mm": 300.0, "y_mm": 300.0}],
            "profiles": profiles, "weapons": weapons}


def write_sequence(out_dir: Path, plan: SequencePlan | None = None) -> dict[str, Any]:
    """Render every frame of ``plan`` (default: the bundled sequence) into ``out_dir`` with its truth,
    then ``truth.json``, ``game.json`` (a plan with units) and ``setup.json`` (written last: a folder
    with one holds the whole sequence)."""
    out_dir.mkdir(parents=True, exist_ok=True)
    for old in out_dir.glob("frame_*"):
        old.unlink()
    (out_dir / "setup.json").unlink(missing_ok=True)
    plan = plan or sequence_plan()
    camera = sequence_camera(plan)
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
    if plan.units:
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
    new = plan.new_base
    events.append({"type": "base_appears", "frame": plan.base_appears_frame, "x_mm": new.x_mm,
                   "y_mm": new.y_mm, "diameter_mm": new.diameter_mm, "side": new.side})
    for f in plan.dropped_frames:
        events.append({"type": "dropped_frame", "frame": f, "note": "no file with this number"})
    for f in plan.corrupt_frames:
        events.append({"type": "corrupt_frame", "frame": f, "image": f"frame_{f:04d}.jpg",
                       "note": "zero-byte file: cannot be decoded"})
    events.sort(key=lambda e: e.get("lifted_frame", e.get("frame", e.get("frames", [0])[0] if "frames" in e else 0)))
    setup_doc = setup_to_dict(setup)
    return {
        "description": f"Tracker sequence: {plan.table_mm / 10:g}x{plan.table_mm / 10:g} cm table, "
                       f"{'4K' if plan.image_size[0] > 2000 else '1080p'} camera {plan.camera_height_mm / 1000:g} m up "
                       "tilted 8 deg; models lifted and put down one at a time, a hand passing, a bare base appearing, "
                       "a dropped and a corrupt frame.",
        "image_size": list(camera.image_size), **camera.to_dict(), "setup": setup_doc,
        "frame_count": plan.frame_count, "frames": frames,
        "dropped_frames": list(plan.dropped_frames), "corrupt_frames": list(plan.corrupt_frames),
        "events": events,
        "initial_models": [{"marker_id": m.marker_id, "x_mm": m.x_mm, "y_mm": m.y_mm, "base_mm": m.base_mm,
                            "facing_deg": m.facing_deg, "offset_mm": m.offset_mm, "side": m.side}
                           for m in plan.initial_models()],
        "initial_bases": [{"x_mm": b.x_mm, "y_mm": b.y_mm, "diameter_mm": b.diameter_mm, "side": b.side}
                          for b in plan.start_bases],
    }
