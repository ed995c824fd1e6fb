"""Realistic webcam frames of a game table, with exact truth (issue 9).

:func:`realistic_scene` draws one frame's set-up from fixed seeds: a 1080p or 4K camera
over a 60 x 60 to 120 x 180 cm table, tilted up to 30 deg and turned any way, with an
ordinary webcam's barrel distortion (k1 down to -0.25); models on bases with flock,
plain plastic of any colour or a white disc with the marker printed straight on it;
markers 16-30 px across; bare bases whose rims tell the sides; terrain, dice and cards;
sometimes a hand over the table; and the photo's conditions (:mod:`synth.webcam`).
:func:`render_realistic` renders it and returns the image with its truth in the format
of the shared dev-scenes (``bases[]`` with ``id``, ``centre_mm``, ``marker_px``,
``visibility``, ``top``...; ``camera`` with ``in_setup``; ``corner_markers``; ``photo``),
and :func:`readable_from_true_outline` decides whether a marker's bits can be read at all.

Examples
--------
>>> spec, photo, meta = realistic_scene(5, "1080p")
>>> spec.camera.image_size, 0.0 <= meta["tilt_deg"] <= 30.0
((1920, 1080), True)
"""

from __future__ import annotations

import dataclasses
import functools
import math
from typing import Any

import cv2
import numpy as np

from calibration.setup import setup_to_dict
from synth.camera import look_at_camera
from synth.catalog import place, random_terrain
from synth.render import render_scene
from synth.scene import BareBaseSpec, HandSpec, ModelSpec, SceneSpec, TerrainBlock, hex_to_bgr, make_setup
from synth.webcam import PhotoSpec, apply_photo, random_photo

#: (image size, table sizes, base marker size) of each resolution: markers come out 16-30 px.
CONFIGS: dict[str, tuple[tuple[int, int], tuple[tuple[float, float], ...], float]] = {
    "1080p": ((1920, 1080), ((500.0, 500.0), (600.0, 600.0), (600.0, 750.0)), 12.0),
    "4K": ((3840, 2160), ((750.0, 750.0), (900.0, 900.0), (1200.0, 1200.0), (1200.0, 1800.0)), 12.0),
}
#: Rim colours (hex) the sides choose from, and mats (BGR) with their names.
RIM_COLOURS = {"red": "#c0392b", "blue": "#2e6fd8", "orange": "#f07d1e", "white": "#eeeeee",
               "yellow": "#f1c40f", "black": "#1c1c1c", "purple": "#8e44ad", "cyan": "#1abc9c"}
MATS = {"desert": (70, 105, 130), "grass": (60, 110, 80), "grey": (95, 100, 100), "dark": (50, 55, 60)}
TOP_COLOURS = ((28, 28, 28), (70, 70, 70), (40, 60, 110), (110, 80, 40), (60, 110, 60), (150, 150, 150))
FLOCK_COLOURS = ((50, 100, 90), (40, 90, 60), (60, 85, 110))


def _delta_e(bgr_a: tuple[int, int, int], bgr_b: tuple[int, int, int]) -> float:
    """CIE76 colour difference of two BGR colours."""
    lab = cv2.cvtColor(np.array([[bgr_a, bgr_b]], np.uint8), cv2.COLOR_BGR2LAB).astype(np.float64)[0]
    lab[:, 0] *= 100.0 / 255.0
    lab[:, 1:] -= 128.0
    return float(np.linalg.norm(lab[0] - lab[1]))


def _colour(values: np.ndarray) -> tuple[int, int, int]:
    return (int(values[0]), int(values[1]), int(values[2]))


def realistic_scene(seed: int, resolution: str = "1080p", *, rims_first: tuple[str, ...] = ()
                    ) -> tuple[SceneSpec, PhotoSpec, dict[str, Any]]:
    """Draw one realistic frame's scene, photo conditions and notes (deterministic in ``seed``).

    ``rims_first`` names rim colours (keys of :data:`RIM_COLOURS`) the two sides take first, in
    that order, among those standing apart from the mat (Delta E >= 25); the rest of the draw
    is the same (the base-mode benchmark uses it to measure white, yellow and orange rims).
    """
    rng = np.random.default_rng(90_000 + seed)
    size, tables, marker_mm = CONFIGS[resolution]
    w, d = tables[int(rng.integers(0, len(tables)))]
    mat_name = str(rng.choice(sorted(MATS)))
    mat = MATS[mat_name]
    pool = [k for k, v in RIM_COLOURS.items() if _delta_e(hex_to_bgr(v), mat) >= 25.0]
    a, b = rng.choice(len(pool), 2, replace=False)
    chosen = [c for c in rims_first if c in pool][:2]
    chosen += [c for c in (pool[int(a)], pool[int(b)]) + tuple(pool) if c not in chosen][:2 - len(chosen)]
    sides = {c: RIM_COLOURS[c] for c in chosen}
    side_names = list(sides)
    terrain = list(random_terrain(rng, w, d, int(rng.integers(1, 4))))
    placed: list[tuple[float, float, float]] = []
    models: list[ModelSpec] = []
    n_models = int(rng.integers(10, 18 if w * d <= 600 * 750 else 26))
    ids = rng.permutation(np.arange(4, 250))[:n_models]
    for i, marker_id in enumerate(ids.tolist()):
        base = float(rng.choice([25.0, 25.0, 32.0, 40.0]))
        try:
            x, y = place(rng, w, d, base, placed, terrain)
        except ValueError:
            break
        placed.append((x, y, base))
        top = str(rng.choice(["plastic", "flock", "whitedisc"]))
        facing = float(rng.uniform(0, 360))
        # the marker toward the front, the figure behind it (a token: marker centred, no figure)
        token = rng.random() < 0.2
        room = math.sqrt(max((base / 2 - 0.8) ** 2 - (marker_mm * (0.5 if top == "whitedisc" else 4 / 6)) ** 2, 0.0))
        offset = 0.0 if token else float(round(min(6.0, max(0.0, room - marker_mm / 2 - 0.3)), 2))
        top_colour = (FLOCK_COLOURS[int(rng.integers(0, 3))] if top == "flock"
                      else TOP_COLOURS[int(rng.integers(0, len(TOP_COLOURS)))])
        models.append(ModelSpec(int(marker_id), x, y, base, facing, offset, side_names[i % 2],
                                figure_height_mm=0.0 if token else float(rng.uniform(18, 34)),
                                figure_colour=_colour(rng.integers(30, 200, 3)),
                                # a figure a quarter to a third of the base wide, standing near the
                                # back rim, sometimes over the back of the marker (as real ones do)
                                figure_radius_mm=float(base * rng.uniform(0.12, 0.17)),
                                figure_back_mm=float(base * rng.uniform(0.28, 0.4)),
                                top=top, top_colour=top_colour))
    bares: list[BareBaseSpec] = []
    for i in range(int(rng.integers(3, 8))):
        dia = float(rng.choice([20.0, 25.0, 32.0, 40.0, 50.0]))
        try:
            x, y = place(rng, w, d, dia, placed, terrain)
        except ValueError:
            break
        placed.append((x, y, dia))
        top = str(rng.choice(["plastic", "flock"]))
        bares.append(BareBaseSpec(x, y, dia, side_names[i % 2],
                                  figure_height_mm=float(rng.uniform(18, 34)) if rng.random() < 0.8 else 0.0,
                                  figure_colour=_colour(rng.integers(30, 200, 3)),
                                  facing_deg=float(rng.uniform(0, 360)), top=top,
                                  top_colour=(FLOCK_COLOURS[i % 3] if top == "flock" else TOP_COLOURS[i % 6])))
    # distractors: dice (white cubes) and a card on the table
    for k in range(int(rng.integers(0, 4))):
        try:
            x, y = place(rng, w, d, 16.0, placed, terrain)
        except ValueError:
            break
        placed.append((x, y, 16.0))
        terrain.append(TerrainBlock(f"die-{k}", "die", ((x - 8, y - 8), (x + 8, y - 8), (x + 8, y + 8), (x - 8, y + 8)),
                                    16.0, (225, 228, 228)))
    if rng.random() < 0.5:
        try:
            x, y = place(rng, w, d, 70.0, placed, terrain)
            placed.append((x, y, 70.0))
            terrain.append(TerrainBlock("card", "card", ((x - 32, y - 44), (x + 32, y - 44), (x + 32, y + 44),
                                                         (x - 32, y + 44)), 0.0, (215, 220, 222)))
        except ValueError:
            pass
    hands: list[HandSpec] = []
    if rng.random() < 0.4 and models:
        m = models[int(rng.integers(0, len(models)))]
        hands.append(HandSpec(m.x_mm + float(rng.uniform(-40, 40)), m.y_mm + float(rng.uniform(-40, 40)),
                              float(rng.uniform(60, 200)), from_deg=float(rng.uniform(0, 360)),
                              colour=_colour(np.array([rng.integers(90, 140), rng.integers(130, 170),
                                                       rng.integers(180, 225)]))))
    setup = make_setup(w, d, models=models, base_size_mm=marker_mm, sides=sides)
    tilt = float(rng.uniform(0.0, 30.0))
    yaw = float(rng.uniform(-12, 12)) + (90.0 if d > w * 1.2 else 0.0) + float(rng.choice([0.0, 180.0]))
    k1 = float(rng.uniform(-0.25, 0.0))
    camera = look_at_camera(w, d, image_size=size, height_mm=max(w, d) * float(rng.uniform(1.1, 1.5)),
                            tilt_deg=tilt, yaw_deg=yaw, distortion=(k1, 0.2 * k1 * k1, 0.0, 0.0, 0.0),
                            fov_margin=float(rng.uniform(1.08, 1.2)))
    border = (226, 228, 228) if rng.random() < 0.5 else None
    spec = SceneSpec(setup, camera, tuple(models), tuple(bares), tuple(terrain), tuple(hands),
                     noise_sigma=0.0, blur_sigma=0.0, seed=seed, mat_colour=mat, border_colour=border,
                     mat_patches=float(rng.uniform(0.0, 0.6)),
                     notes=f"realistic {resolution} seed {seed}")
    photo = random_photo(rng)
    meta = {"tilt_deg": tilt, "yaw_deg": yaw, "k1": k1, "mat": mat_name, "in_setup": bool(rng.random() < 0.5),
            "resolution": resolution}
    return spec, photo, meta


def render_realistic(seed: int, resolution: str = "1080p", *, rims_first: tuple[str, ...] = (),
                     photo_changes: dict[str, Any] | None = None
                     ) -> tuple[np.ndarray, dict[str, Any], dict[str, Any]]:
    """Render one realistic frame: (BGR image after JPEG, truth, setup document).

    The setup document holds the camera only when the scene says the user calibrated it
    (``truth["camera"]["in_setup"]``); the truth always holds it. ``photo_changes`` replaces
    fields of the drawn photo conditions (:class:`synth.webcam.PhotoSpec`), the scene staying
    the same: the weak conditions (motion blur, low JPEG quality) measured on every frame.
    """
    spec, photo, meta = realistic_scene(seed, resolution, rims_first=rims_first)
    if photo_changes:
        photo = dataclasses.replace(photo, **photo_changes)
    clean, raw = render_scene(spec)
    image = apply_photo(clean, photo, seed=seed)
    cam = spec.camera
    mk = spec.setup.markers
    bases: list[dict[str, Any]] = []
    hands = [(h.x_mm, h.y_mm, h.palm_mm) for h in spec.hands]
    for m, t in zip(spec.models, raw["models"]):
        bases.append({"id": m.marker_id, "centre_mm": [m.x_mm, m.y_mm], "diameter_mm": m.base_mm,
                      "facing_deg": m.facing_deg, "marker_offset_mm": m.offset_mm,
                      "marker_corners_px": t["marker_corners_px"], "marker_px": t["marker_size_px"],
                      "visibility": t["marker_visible_fraction"], "side": m.side, "top": m.top})
    for b, t in zip(spec.bases, raw["bases"]):
        # a hand over a bare base hides it (its rim's visible share is not measured)
        under_hand = any(math.hypot(b.x_mm - hx, b.y_mm - hy) < 0.8 * palm for hx, hy, palm in hands)
        bases.append({"id": None, "centre_mm": [b.x_mm, b.y_mm], "diameter_mm": b.diameter_mm,
                      "visibility": 0.0 if under_hand else 1.0, "side": b.side, "top": b.top})
    corners = [{"id": c["id"], "corners_px": c["corners_px"], "visibility": c["visible_fraction"]}
               for c in raw["corners"]]
    setup_doc = setup_to_dict(spec.setup)
    camera = {"matrix": cam.matrix.tolist(), "distortion": cam.distortion.tolist(), "rvec": cam.rvec.tolist(),
              "tvec": cam.tvec.tolist(), "in_setup": meta["in_setup"], "tilt_deg": meta["tilt_deg"]}
    if meta["in_setup"]:
        setup_doc["camera"] = {"matrix": cam.matrix.tolist(), "distortion": cam.distortion.tolist()}
    else:
        setup_doc.pop("camera", None)
    truth = {"seed": seed, "image_size": list(cam.image_size), "camera": camera, "bases": bases,
             "corner_markers": corners, "photo": photo.to_dict(), "meta": meta,
             "table": {"width_mm": spec.table_w_mm, "depth_mm": spec.table_d_mm}, "marker_mm": mk.base_size_mm}
    return image, truth, setup_doc


@functools.lru_cache(maxsize=8)
def _all_codes(dictionary: str) -> np.ndarray:
    """(ids, 4 rotations, bits*bits) data bits of every id of ``dictionary`` (1 = white)."""
    d = cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, dictionary))
    n = int(d.markerSize)
    out = np.zeros((int(d.bytesList.shape[0]), 4, n * n), np.uint8)
    for i in range(out.shape[0]):
        img = cv2.aruco.generateImageMarker(d, i, n + 2, borderBits=1)[1:-1, 1:-1] > 127
        for r in range(4):
            out[i, r] = np.rot90(img, -r).reshape(-1)
    return out


def readable_from_true_outline(image: np.ndarray, corners_px: Any, marker_id: int,
                               dictionary: str = "DICT_4X4_250") -> bool:
    """Whether a marker's bits can be read from its TRUE outline (the detector's ceiling).

    The true outline is warped to a square, each cell's middle is averaged and
    thresholded at mid-grey (halfway between the darkest and the brightest cell); the
    marker is readable when its data bits are its own code, or one bit off it while every
    other id (in any rotation) is at least two bits off.
    """
    gray = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY) if image.ndim == 3 else image
    codes = _all_codes(dictionary)
    n = int(round(math.sqrt(codes.shape[2]))) + 2
    s = 8
    size = n * s
    dst = np.float32([[0, 0], [size, 0], [size, size], [0, size]])
    src = (np.asarray(corners_px, np.float64).reshape(4, 2) + 0.5).astype(np.float32)
    h = cv2.getPerspectiveTransform(src, dst)
    patch = cv2.warpPerspective(gray, h, (size, size), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    cells = patch.reshape(n, s, n, s)[:, 2:s - 2, :, 2:s - 2].mean(axis=(1, 3)).astype(np.float64)
    bits = (cells > (cells.min() + cells.max()) / 2)[1:-1, 1:-1].reshape(-1)
    dist = (codes != bits[None, None, :]).sum(axis=2)
    own = int(dist[marker_id, 0])
    if own == 0:
        return True
    others = dist.copy()
    others[marker_id, 0] = 99
    return own == 1 and int(others.min()) >= 2
