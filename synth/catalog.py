"""The bundled sample scenes: table sizes, cameras, lenses and contents, with fixed seeds.

Each entry of :data:`SCENES` names a scene, says in one line what it shows and builds
its :class:`~synth.scene.SceneSpec`. Models are placed at random (seeded) without
overlapping each other, the corner markers or the terrain.

Examples
--------
>>> spec = build_scene("hf600_1080p_top")
>>> spec.table_w_mm, spec.camera.image_size, len(spec.models) >= 10
(600.0, (1920, 1080), True)
>>> build_scene("nope")
Traceback (most recent call last):
...
ValueError: unknown sample scene 'nope'; scenes are: hf600_1080p_top, ...
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

import numpy as np

from synth.camera import look_at_camera
from synth.scene import (
    FIGURE_COLOURS,
    BareBaseSpec,
    HandSpec,
    ModelSpec,
    SceneSpec,
    TerrainBlock,
    make_setup,
)

MILD = (-0.04, 0.01, 0.0, 0.0, 0.0)
WEBCAM = (-0.28, 0.09, 0.0005, -0.0004, 0.0)
WEBCAM_SOFT = (-0.21, 0.05, -0.0003, 0.0004, 0.0)
HD = (1920, 1080)
UHD = (3840, 2160)
FIRST_SAMPLE_MARKER = 10


@dataclass(frozen=True)
class SceneRecipe:
    """How to build one sample scene."""

    name: str
    description: str
    table: tuple[float, float]
    image_size: tuple[int, int]
    height_mm: float
    tilt_deg: float
    distortion: tuple[float, float, float, float, float]
    models: int
    bases: int
    seed: int
    yaw_deg: float = 0.0
    marker_mm: float = 12.0
    terrain: int = 2
    hands: int = 0
    noise_sigma: float = 2.0
    blur_sigma: float = 0.5
    jpeg_quality: int = 90
    base_sizes: tuple[float, ...] = (25.0, 32.0, 40.0)
    fov_margin: float = 1.1


RECIPES: tuple[SceneRecipe, ...] = (
    SceneRecipe("hf600_1080p_top", "High Fire 60x60 cm, 1080p straight down from 0.9 m, mild lens",
                (600, 600), HD, 900, 0, MILD, 14, 5, 1),
    SceneRecipe("hf600_1080p_tilt20_webcam", "60x60 cm, 1080p webcam (k1 -0.28) at 0.8 m tilted 20 deg",
                (600, 600), HD, 800, 20, WEBCAM, 16, 6, 2, fov_margin=1.03),
    SceneRecipe("hf600_1080p_tilt30", "60x60 cm, 1080p from 1.0 m tilted 30 deg: figures hide parts of "
                "their neighbours' markers", (600, 600), HD, 1000, 30, MILD, 18, 6, 3),
    SceneRecipe("hf600_1080p_hand", "60x60 cm, 1080p from 0.9 m tilted 10 deg, a hand over the table "
                "hides a few models", (600, 600), HD, 900, 10, MILD, 14, 5, 4, hands=1),
    SceneRecipe("hf600_1080p_noisy", "60x60 cm, 1080p webcam turned 8 deg, tilted 15 deg, heavy noise, "
                "blur and JPEG 75", (600, 600), HD, 800, 15, WEBCAM_SOFT, 12, 5, 5, yaw_deg=-8, fov_margin=1.02,
                noise_sigma=5.0, blur_sigma=1.0, jpeg_quality=75),
    SceneRecipe("hf600_4k_tilt10_webcam", "60x60 cm, 4K webcam-like lens (k1 -0.21) from 1.2 m tilted "
                "10 deg, turned 15 deg", (600, 600), UHD, 1200, 10, WEBCAM_SOFT, 20, 8, 6, yaw_deg=15),
    SceneRecipe("t900_1080p_16mm", "Feu a Volonte 90x90 cm, 1080p from 1.2 m tilted 10 deg, 16 mm "
                "markers on 32/40 mm bases", (900, 900), HD, 1200, 10, MILD, 12, 6, 7, marker_mm=16.0,
                base_sizes=(32.0, 40.0)),
    SceneRecipe("t900_4k_top", "90x90 cm, 4K straight down from 1.3 m, mild lens", (900, 900), UHD,
                1300, 0, MILD, 22, 8, 8),
    SceneRecipe("ff1219_4k_top", "Firefight 4x4 ft, 4K straight down from 1.4 m, mild lens",
                (1219.2, 1219.2), UHD, 1400, 0, MILD, 25, 10, 9, terrain=3),
    SceneRecipe("t900_4k_tilt30_webcam", "90x90 cm, 4K webcam-like lens (k1 -0.28) from 1.0 m tilted "
                "30 deg", (900, 900), UHD, 1000, 30, WEBCAM, 20, 8, 10, terrain=3, fov_margin=1.05),
    SceneRecipe("ff1219_1080p_too_small", "4x4 ft at 1080p from 1.4 m: 12 mm markers are about 10 px, "
                "too small to read (locate must say so; base mode still works)",
                (1219.2, 1219.2), HD, 1400, 0, MILD, 15, 6, 11, terrain=3),
    SceneRecipe("t1200x1800_4k_tilt10", "120x180 cm, 4K from 1.6 m tilted 10 deg, long side across "
                "the image", (1200, 1800), UHD, 1600, 10, MILD, 25, 10, 12, yaw_deg=90, terrain=3),
)
SCENES = {r.name: r for r in RECIPES}


def build_scene(name: str) -> SceneSpec:
    """Return the :class:`SceneSpec` of the sample scene ``name``."""
    recipe = SCENES.get(name)
    if recipe is None:
        raise ValueError(f"unknown sample scene {name!r}; scenes are: {', '.join(SCENES)}")
    return scene_from_recipe(recipe)


def scene_from_recipe(r: SceneRecipe) -> SceneSpec:
    """Place terrain, models, bare bases and hands for ``r`` (deterministic in ``r.seed``)."""
    rng = np.random.default_rng(1000 + r.seed)
    w, d = r.table
    terrain = random_terrain(rng, w, d, r.terrain)
    placed: list[tuple[float, float, float]] = []
    models = []
    for i in range(r.models):
        base = float(r.base_sizes[i % len(r.base_sizes)])
        x, y = place(rng, w, d, base, placed, terrain)
        placed.append((x, y, base))
        models.append(model_at(FIRST_SAMPLE_MARKER + 3 * i + int(rng.integers(0, 3)), x, y, base, i, rng,
                               marker_mm=r.marker_mm))
    bases = []
    for i in range(r.bases):
        dia = float((25.0, 32.0, 40.0, 20.0, 50.0)[i % 5])
        x, y = place(rng, w, d, dia, placed, terrain)
        placed.append((x, y, dia))
        bases.append(BareBaseSpec(x, y, dia, ("red", "blue")[i % 2],
                                  figure_height_mm=float(rng.uniform(22, 34)) if i % 3 else 0.0,
                                  figure_colour=FIGURE_COLOURS[(i + 2) % len(FIGURE_COLOURS)],
                                  facing_deg=float(rng.uniform(0, 360))))
    hands = []
    for _ in range(r.hands):
        m = models[int(rng.integers(0, len(models)))]
        hands.append(HandSpec(m.x_mm, m.y_mm, 150.0, from_deg=90.0 + float(rng.uniform(-30, 30))))
    setup = make_setup(w, d, models=models, base_size_mm=r.marker_mm)
    camera = look_at_camera(w, d, image_size=r.image_size, height_mm=r.height_mm, tilt_deg=r.tilt_deg,
                            yaw_deg=r.yaw_deg, distortion=r.distortion, fov_margin=r.fov_margin)
    return SceneSpec(setup, camera, tuple(models), tuple(bases), tuple(terrain), tuple(hands),
                     noise_sigma=r.noise_sigma, blur_sigma=r.blur_sigma, jpeg_quality=r.jpeg_quality,
                     seed=r.seed, notes=r.description)


def model_at(marker_id: int, x: float, y: float, base: float, i: int, rng: np.random.Generator,
             *, marker_mm: float = 12.0, facing_deg: float | None = None) -> ModelSpec:
    """A model with the kit's conventions: the marker toward the front, a figure at the back.

    Every third model is a token (marker centred, no figure); the others carry the marker
    as far forward as the base allows and a figure behind it.
    """
    facing = float(rng.uniform(0, 360)) if facing_deg is None else facing_deg
    side = ("red", "blue")[(i // 2) % 2]
    if i % 3 == 2:
        return ModelSpec(marker_id, x, y, base, facing, 0.0, side, figure_height_mm=0.0)
    # Marker (with its 2 mm quiet zone) as far forward as fits in the base, at most 7 mm.
    offset = float(min(7.0, max(0.0, round(math.sqrt((base / 2 - 0.5) ** 2 - (marker_mm / 2) ** 2)
                                          - marker_mm / 2, 1))))
    return ModelSpec(marker_id, x, y, base, facing, offset, side,
                     figure_height_mm=float(rng.uniform(24, 36)),
                     figure_colour=FIGURE_COLOURS[i % len(FIGURE_COLOURS)],
                     figure_radius_mm=min(0.18 * base, (base / 2 + offset - marker_mm / 2 - 1.0) / 2 - 0.5))


def random_terrain(rng: np.random.Generator, w: float, d: float, count: int) -> list[TerrainBlock]:
    """Up to ``count`` terrain pieces: ruins (block), a wall (thin, long) and a forest (flat area)."""
    kinds = (("ruins", 60.0, (95, 105, 115)), ("wall", 40.0, (120, 130, 140)), ("forest", 0.0, (40, 80, 50)))
    out = []
    for k in range(count):
        kind, height, colour = kinds[k % 3]
        for _ in range(200):
            cx, cy = rng.uniform(0.25 * w, 0.75 * w), rng.uniform(0.25 * d, 0.75 * d)
            if kind == "wall":
                sx, sy = (0.22 * w, 10.0) if rng.random() < 0.5 else (10.0, 0.22 * d)
            else:
                sx, sy = rng.uniform(0.1, 0.16) * w, rng.uniform(0.08, 0.14) * d
            pts = ((cx - sx / 2, cy - sy / 2), (cx + sx / 2, cy - sy / 2), (cx + sx / 2, cy + sy / 2),
                   (cx - sx / 2, cy + sy / 2))
            if kind == "forest":  # an irregular felt area
                ang = np.linspace(0, 2 * np.pi, 9)[:-1]
                rad = rng.uniform(0.8, 1.1, 8)
                pts = tuple((cx + sx / 2 * r * math.cos(a), cy + sy / 2 * r * math.sin(a)) for a, r in zip(ang, rad))
            if all(_boxes_apart(pts, t.points_mm, 30.0) for t in out):
                out.append(TerrainBlock(f"{kind}-{k + 1}", kind, tuple((round(x, 1), round(y, 1)) for x, y in pts),
                                        height, colour))
                break
    return out


def _boxes_apart(a: Sequence[tuple[float, float]], b: Sequence[tuple[float, float]], gap: float) -> bool:
    ax = [p[0] for p in a]
    ay = [p[1] for p in a]
    bx = [p[0] for p in b]
    by = [p[1] for p in b]
    return (min(ax) > max(bx) + gap or min(bx) > max(ax) + gap or
            min(ay) > max(by) + gap or min(by) > max(ay) + gap)


def place(rng: np.random.Generator, w: float, d: float, base: float,
          placed: Sequence[tuple[float, float, float]], terrain: Sequence[TerrainBlock],
          corner_mm: float = 60.0) -> tuple[float, float]:
    """A random base centre clear of the edges, corner markers, terrain and other bases."""
    r = base / 2
    for _ in range(5000):
        x = float(rng.uniform(r + 15, w - r - 15))
        y = float(rng.uniform(r + 15, d - r - 15))
        near_corner = (min(x, w - x) < corner_mm + 20 + r) and (min(y, d - y) < corner_mm + 20 + r)
        if near_corner:
            continue
        if any(math.hypot(x - px, y - py) < r + pb / 2 + 8 for px, py, pb in placed):
            continue
        box = ((x - r, y - r), (x + r, y - r), (x + r, y + r), (x - r, y + r))
        if not all(_boxes_apart(box, t.points_mm, 8.0) for t in terrain):
            continue
        return round(x, 2), round(y, 2)
    raise ValueError(f"cannot place a {base} mm base on a {w} x {d} mm table: it is full")
