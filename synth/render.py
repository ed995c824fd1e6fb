"""Render a :class:`~synth.scene.SceneSpec` into a BGR image and its ground truth.

The scene is ray cast into a supersampled z-buffer (:mod:`synth.raster`): the textured
mat, the four corner markers and every base marker (black modules on white paper with
a quiet zone, through the exact projective mapping and lens distortion), round bases
as cylinders with a side-coloured rim, a figure (capsule) on each base, terrain blocks
and hands. The canvas is then area-downsampled, blurred and given sensor noise.

Examples
--------
>>> from synth.camera import look_at_camera
>>> from synth.scene import SceneSpec, ModelSpec, make_setup
>>> models = (ModelSpec(17, 150, 100, base_mm=25, facing_deg=270, figure_height_mm=0),)
>>> spec = SceneSpec(make_setup(300, 200, models=models, corner_size_mm=40),
...                  look_at_camera(300, 200, image_size=(320, 240), height_mm=500), models=models)
>>> image, truth = render_scene(spec)
>>> image.shape, image.dtype.name
((240, 320, 3), 'uint8')
>>> truth["models"][0]["marker_visible_fraction"]
1.0
"""

from __future__ import annotations

import math
from typing import Any

import cv2
import numpy as np

from calibration.setup import setup_to_dict
from synth.camera import CameraModel
from synth.raster import Canvas, RayGrid, inside_polygon
from synth.scene import HandSpec, SceneSpec, TerrainBlock, hex_to_bgr

PAPER = (228, 232, 232)
INK = (28, 28, 30)
BASE_TOP = (55, 60, 58)
WOOD = (45, 75, 110)
FLOOR = (45, 45, 50)
TABLE_BORDER_MM = 50.0
CORNER_QUIET_MM = 10.0
BASE_MARKER_QUIET_CELLS = 1.0  # white margin of one module (2 mm on a 12 mm 4x4 marker); trimmed to the base
RIM_TOP_MM = 1.5  # coloured ring on the top edge of a base
MARKER_SUBSAMPLES = 4  # extra rays per supersample on printed markers (exact corners)
MARKER_DEPTH_BIAS_MM = 0.05  # printed paper lies on its surface: win the depth tie


def marker_bits(dictionary: str, marker_id: int) -> np.ndarray:
    """Return the marker's cells (black border included) as a (n, n) uint8 array of 0/255."""
    d = cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, dictionary))
    cells = d.markerSize + 2
    return cv2.aruco.generateImageMarker(d, marker_id, cells, borderBits=1)


def marker_cells(dictionary: str) -> int:
    """Cells across a marker of ``dictionary``, black border included (6 for 4x4)."""
    return int(cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, dictionary)).markerSize) + 2


def marker_corners_mm(center: tuple[float, float], size_mm: float, facing_deg: float) -> np.ndarray:
    """OpenCV-ordered corners (4, 2) of a marker whose top edge points along ``facing_deg``.

    >>> marker_corners_mm((30, 30), 60, 270).round(6).tolist()
    [[0.0, 0.0], [60.0, 0.0], [60.0, 60.0], [0.0, 60.0]]
    """
    col, row = _marker_axes(facing_deg)
    a = size_mm / 2
    c = np.asarray(center, dtype=np.float64)
    return np.array([c + sx * a * col + sy * a * row for sx, sy in ((-1, -1), (1, -1), (1, 1), (-1, 1))]) + 0.0


def _marker_axes(facing_deg: float) -> tuple[np.ndarray, np.ndarray]:
    """Table-frame directions of the marker image's columns (+x) and rows (+y)."""
    t = math.radians(facing_deg)
    col = np.array([-math.sin(t), math.cos(t)])
    row = np.array([-math.cos(t), -math.sin(t)])
    # Exact axes for the right angles (corner markers): no -0.0 or 1e-17 residues.
    return np.where(np.abs(col) < 1e-12, 0.0, col), np.where(np.abs(row) < 1e-12, 0.0, row)


def _draw_marker(canvas: Canvas, bits: np.ndarray, center: tuple[float, float], size_mm: float,
                 facing_deg: float, height_mm: float, quiet_mm: float, label: int,
                 clip_disc: tuple[float, float, float] | None = None) -> int:
    col, row = _marker_axes(facing_deg)
    half = size_mm / 2
    paper = half + quiet_mm
    outline = marker_corners_mm(center, 2 * paper, facing_deg)
    pts = np.column_stack([outline, np.full(4, -height_mm)])
    n = bits.shape[0]
    black = bits == 0
    cx, cy = center

    def local(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return (x - cx) * col[0] + (y - cy) * col[1], (x - cx) * row[0] + (y - cy) * row[1]

    def on_paper(x: np.ndarray, y: np.ndarray) -> np.ndarray:
        u, v = local(x, y)
        hit = (np.abs(u) < paper) & (np.abs(v) < paper)
        if clip_disc is not None:
            hit &= (x - clip_disc[0]) ** 2 + (y - clip_disc[1]) ** 2 <= clip_disc[2] ** 2
        return hit

    def in_square(x: np.ndarray, y: np.ndarray) -> np.ndarray:
        u, v = local(x, y)
        return (np.abs(u) < half) & (np.abs(v) < half)

    def ink(x: np.ndarray, y: np.ndarray) -> np.ndarray:
        u, v = local(x, y)
        inside = (np.abs(u) < half) & (np.abs(v) < half)
        i = np.clip(np.floor((v + half) * (n / size_mm)), 0, n - 1).astype(np.intp)
        j = np.clip(np.floor((u + half) * (n / size_mm)), 0, n - 1).astype(np.intp)
        return inside & black[i, j]

    return canvas.printed(canvas.bbox_of(pts, margin_px=3.0), height_mm, on_paper, ink, in_square, PAPER, INK,
                          subsamples=MARKER_SUBSAMPLES, bias_mm=MARKER_DEPTH_BIAS_MM, label=label)


def _mat_texture(spec: SceneSpec, rng: np.random.Generator) -> tuple[np.ndarray, float]:
    """The table top (mat + wooden border) as an image at ``ppmm`` pixels per mm."""
    ppmm = 1.0
    b = TABLE_BORDER_MM
    w = int(math.ceil((spec.table_w_mm + 2 * b) * ppmm))
    h = int(math.ceil((spec.table_d_mm + 2 * b) * ppmm))
    base = np.asarray(spec.mat_colour, np.float32)
    tex = np.empty((h, w, 3), np.float32)
    tex[...] = base
    for scale, amp in ((60.0, 10.0), (15.0, 6.0), (3.0, 5.0)):
        noise = rng.normal(0, 1, (max(h // int(scale) + 2, 2), max(w // int(scale) + 2, 2))).astype(np.float32)
        noise = cv2.resize(noise, (w, h), interpolation=cv2.INTER_CUBIC)
        tex += amp * noise[..., None] * np.array([1.0, 1.1, 0.9], np.float32)
    tex += rng.normal(0, 3.0, (h, w, 1)).astype(np.float32)
    xs = (np.arange(w) + 0.5) / ppmm - b
    ys = (np.arange(h) + 0.5) / ppmm - b
    outside = ((xs[None, :] < 0) | (xs[None, :] > spec.table_w_mm) |
               (ys[:, None] < 0) | (ys[:, None] > spec.table_d_mm))
    if spec.mat_patches > 0:
        blob = rng.normal(0, 1, (max(h // 80 + 2, 2), max(w // 80 + 2, 2))).astype(np.float32)
        blob = np.clip(cv2.resize(blob, (w, h), interpolation=cv2.INTER_CUBIC) - 0.3, 0, 1)
        grass = np.array([40, 95, 60], np.float32)
        tex += spec.mat_patches * blob[..., None] * (grass - tex)
    border = WOOD if spec.border_colour is None else spec.border_colour
    tex[outside] = np.asarray(border, np.float32) + rng.normal(0, 4.0, (int(outside.sum()), 1)).astype(np.float32)
    return np.clip(tex, 0, 255).astype(np.uint8), ppmm


def draw_mat(spec: SceneSpec, camera: CameraModel, rng: np.random.Generator,
             grid: RayGrid | None = None) -> np.ndarray:
    """The table top (mat, wooden border, floor) as seen by ``camera``, output resolution.

    The mat's texture is smooth at the pixel scale, so it is sampled once per output
    pixel and serves as the canvas background.
    """
    tex, ppmm = _mat_texture(spec, rng)
    b = TABLE_BORDER_MM
    xn, yn = (grid or RayGrid(camera, 1)).output_pixels()
    xn, yn = xn.astype(np.float32), yn.astype(np.float32)
    rot = camera.rotation.astype(np.float32)
    c = camera.centre_mm
    dx = xn * rot[0, 0] + yn * rot[1, 0] + rot[2, 0]
    dy = xn * rot[0, 1] + yn * rot[1, 1] + rot[2, 1]
    dz = xn * rot[0, 2] + yn * rot[1, 2] + rot[2, 2]
    lam = np.float32(-c[2]) / dz
    mx = (np.float32(c[0] + b) + lam * dx) * np.float32(ppmm) - np.float32(0.5)
    my = (np.float32(c[1] + b) + lam * dy) * np.float32(ppmm) - np.float32(0.5)
    return cv2.remap(tex, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT, borderValue=FLOOR)


def _flat_shader(colour: tuple[int, int, int], inside: Any) -> Any:
    def shader(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        out = np.empty(x.shape + (3,), np.uint8)
        out[...] = colour
        return inside(x, y), out
    return shader


WHITE_TOP = (232, 236, 236)
FLOCK_GRAIN_MM = 0.6   # size of a flock grain
FLOCK_AMPLITUDE = 28.0


def _draw_base(canvas: Canvas, x: float, y: float, diameter: float, height: float,
               rim: tuple[int, int, int], top: str = "plastic",
               top_colour: tuple[int, int, int] = BASE_TOP) -> None:
    r = diameter / 2
    canvas.cylinder_wall(x, y, r, 0.0, height, rim)
    inner2 = (r - RIM_TOP_MM) ** 2
    colour = WHITE_TOP if top == "whitedisc" else top_colour

    def shader(px: np.ndarray, py: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        d2 = (px - x) ** 2 + (py - y) ** 2
        if top == "flock":
            # a grainy texture: a hash of the grain cell, the same in every frame
            gx = np.floor(px / FLOCK_GRAIN_MM).astype(np.int64)
            gy = np.floor(py / FLOCK_GRAIN_MM).astype(np.int64)
            h = (gx * 73856093) ^ (gy * 19349663)
            grain = ((h % 1009) / 1008.0 - 0.5) * 2.0 * FLOCK_AMPLITUDE
            out = np.clip(np.asarray(colour, np.float64) + grain[..., None], 0, 255).astype(np.uint8)
        else:
            out = np.empty(px.shape + (3,), np.uint8)
            out[...] = colour
        out[d2 > inner2] = rim
        return d2 <= r * r, out

    bbox = canvas.bbox_of_box(x - r, x + r, y - r, y + r, height, height)
    canvas.plane(bbox, height, shader)


def figure_geometry(x: float, y: float, base_mm: float, facing_deg: float, base_height: float,
                    figure_height: float, radius: float | None = None,
                    back_mm: float | None = None) -> tuple[np.ndarray, np.ndarray, float]:
    """Return the capsule ``(pa, pb, radius)`` of a figure standing at the back of its base
    (its axis ``back_mm`` behind the base centre; default: just inside the rim)."""
    rf = radius if radius is not None else 0.18 * base_mm
    back = max(base_mm / 2 - rf - 0.5, 0.0) if back_mm is None else back_mm
    t = math.radians(facing_deg)
    fx, fy = x - back * math.cos(t), y - back * math.sin(t)
    bottom = base_height + rf
    top = max(figure_height - rf, bottom)
    return np.array([fx, fy, -bottom]), np.array([fx, fy, -top]), rf


def _draw_figure(canvas: Canvas, x: float, y: float, base_mm: float, facing_deg: float,
                 base_height: float, figure_height: float, colour: tuple[int, int, int],
                 radius: float | None = None, back_mm: float | None = None) -> None:
    if figure_height <= base_height:
        return
    pa, pb, rf = figure_geometry(x, y, base_mm, facing_deg, base_height, figure_height, radius, back_mm)
    canvas.capsule(pa, pb, rf, colour)
    # A head, slightly forward: gives the silhouette some shape.
    t = math.radians(facing_deg)
    head = pb + np.array([0.25 * rf * math.cos(t), 0.25 * rf * math.sin(t), 0.0])
    canvas.capsule(head, head, 0.75 * rf, tuple(min(255, int(c * 1.3) + 20) for c in colour))


def _draw_terrain(canvas: Canvas, block: TerrainBlock) -> None:
    poly = np.asarray(block.points_mm)
    if block.height_mm > 0:
        for i in range(len(poly)):
            canvas.wall(tuple(poly[i]), tuple(poly[(i + 1) % len(poly)]), block.height_mm, block.colour)
    top = tuple(min(255, int(c * 1.15)) for c in block.colour)
    bbox = canvas.bbox_of_box(poly[:, 0].min(), poly[:, 0].max(), poly[:, 1].min(), poly[:, 1].max(),
                              block.height_mm, block.height_mm)
    canvas.plane(bbox, block.height_mm, _flat_shader(top, lambda x, y: inside_polygon(x, y, poly)),
                 bias_mm=0.01 if block.height_mm == 0 else 0.0)


def hand_capsules(hand: HandSpec) -> list[tuple[np.ndarray, np.ndarray, float]]:
    """The capsules (pa, pb, radius) of a hand: palm, four fingers, thumb and forearm."""
    t = math.radians(hand.from_deg)
    back = np.array([math.cos(t), math.sin(t), 0.0])  # toward the arm
    side = np.array([-math.sin(t), math.cos(t), 0.0])
    up = np.array([0.0, 0.0, -1.0])
    c = np.array([hand.x_mm, hand.y_mm, -hand.height_mm])
    p = hand.palm_mm
    out = [(c + 0.25 * p * back, c - 0.15 * p * back, 0.28 * p)]
    for k in range(4):
        base = c - 0.3 * p * back + (k - 1.5) * 0.16 * p * side
        out.append((base, base - 0.4 * p * back - 0.1 * p * up, 0.08 * p))
    thumb = c + 0.35 * p * side
    out.append((thumb, thumb + 0.3 * p * side - 0.3 * p * back, 0.09 * p))
    elbow = c + 4.0 * p * back + 1.2 * p * up
    out.append((c + 0.3 * p * back, elbow, 0.3 * p))
    return out


def _draw_hand(canvas: Canvas, hand: HandSpec) -> None:
    for pa, pb, r in hand_capsules(hand):
        canvas.capsule(pa, pb, r, hand.colour)


def _degrade(spec: SceneSpec, image: np.ndarray, seed: int) -> np.ndarray:
    """Blur (optics), then add sensor noise (OpenCV's seeded generator: fast and repeatable)."""
    out = image.astype(np.float32)
    if spec.blur_sigma > 0:
        out = cv2.GaussianBlur(out, (0, 0), spec.blur_sigma)
    if spec.noise_sigma > 0:
        noise = np.empty(out.shape, np.float32)
        cv2.setRNGSeed(int(seed) & 0x7FFFFFFF)
        cv2.randn(noise, 0.0, float(spec.noise_sigma))
        out += noise
    return np.clip(np.rint(out), 0, 255).astype(np.uint8)


class StaticLayer:
    """A cache of what does not change between frames of one set-up (mat, corner markers, terrain).

    Pass the same instance to :func:`render_scene` for every frame of a sequence: the
    static part is drawn once, and each frame starts from a copy of it. Frames must
    share the camera, setup, terrain, corner ids, mat colour and ``seed``.
    """

    def __init__(self) -> None:
        self._key: tuple[Any, ...] | None = None
        self._buffers: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None
        self._own: dict[int, int] = {}

    @staticmethod
    def key(spec: SceneSpec) -> tuple[Any, ...]:
        cam = spec.camera
        return (cam.matrix.tobytes(), cam.distortion.tobytes(), cam.rvec.tobytes(), cam.tvec.tobytes(),
                cam.image_size, spec.samples_per_pixel, repr(spec.setup), spec.terrain, spec.corner_ids,
                spec.mat_colour, spec.border_colour, spec.mat_patches, spec.seed)


def _draw_static(canvas: Canvas, spec: SceneSpec) -> dict[int, int]:
    rng = np.random.default_rng(spec.seed)
    canvas.set_background(draw_mat(spec, spec.camera, rng, canvas.grid))
    mk = spec.setup.markers
    own: dict[int, int] = {}
    w, d = spec.table_w_mm, spec.table_d_mm
    a = mk.corner_size_mm / 2
    corner_centres = [(a, a), (w - a, a), (w - a, d - a), (a, d - a)]
    for k in spec.corner_ids:
        own[k] = _draw_marker(canvas, marker_bits(mk.dictionary, k), corner_centres[k], mk.corner_size_mm,
                              270.0, 0.0, CORNER_QUIET_MM, label=k + 1)
    for block in spec.terrain:
        _draw_terrain(canvas, block)
    return own


def render_scene(spec: SceneSpec, static: StaticLayer | None = None) -> tuple[np.ndarray, dict[str, Any]]:
    """Render ``spec``; return the BGR uint8 image (before JPEG) and its truth dict.

    The truth follows the sample format of the team brief (camera, pose, setup, corners,
    models with ``marker_visible_fraction``, bases, terrain) plus projected pixel
    corners of every marker (``corners_px`` / ``marker_corners_px``, distorted image).
    ``static`` (optional) caches the unchanging part across the frames of a sequence.
    The mat and the corner markers depend on ``spec.seed``; the sensor noise on
    ``spec.noise_seed`` (default: ``seed``).
    """
    canvas = Canvas(spec.camera, spec.samples_per_pixel)
    if static is None:
        own = _draw_static(canvas, spec)
    else:
        key = StaticLayer.key(spec)
        if static._key != key or static._buffers is None:
            static._own = _draw_static(canvas, spec)
            static._buffers = (canvas.colour.copy(), canvas.depth.copy(), canvas.label.copy())
            static._key = key
        else:
            canvas.colour[...] = static._buffers[0]
            canvas.depth[...] = static._buffers[1]
            canvas.label[...] = static._buffers[2]
        own = dict(static._own)
    noise_seed = spec.seed if spec.noise_seed is None else spec.noise_seed
    mk = spec.setup.markers
    sides = {k: hex_to_bgr(v) for k, v in spec.setup.bases.sides.items()}
    bh = mk.base_height_mm
    for m in spec.models:
        _draw_base(canvas, m.x_mm, m.y_mm, m.base_mm, bh, sides[m.side], m.top, m.top_colour)
        # on a white disc the marker is printed straight on the top: the disc is its margin
        quiet = (0.0 if m.top == "whitedisc" else
                 mk.size_for(m.marker_id) * BASE_MARKER_QUIET_CELLS / marker_cells(mk.dictionary))
        own[m.marker_id] = _draw_marker(canvas, marker_bits(mk.dictionary, m.marker_id), m.marker_center_mm,
                                        mk.size_for(m.marker_id), m.facing_deg, bh, quiet,
                                        label=m.marker_id + 1, clip_disc=(m.x_mm, m.y_mm, m.base_mm / 2))
        _draw_figure(canvas, m.x_mm, m.y_mm, m.base_mm, m.facing_deg, bh, m.figure_height_mm,
                     m.figure_colour, m.figure_radius_mm, m.figure_back_mm)
    for b in spec.bases:
        _draw_base(canvas, b.x_mm, b.y_mm, b.diameter_mm, bh, sides[b.side], b.top, b.top_colour)
        _draw_figure(canvas, b.x_mm, b.y_mm, b.diameter_mm, b.facing_deg, bh, b.figure_height_mm,
                     b.figure_colour)
    for hand in spec.hands:
        _draw_hand(canvas, hand)
    counts = np.bincount(canvas.label.ravel())
    visible = {mid: (float(counts[mid + 1]) / n if n and mid + 1 < len(counts) else 0.0)
               for mid, n in own.items()}
    w_px, h_px = spec.camera.image_size
    small = cv2.resize(canvas.colour, (w_px, h_px), interpolation=cv2.INTER_AREA)
    image = _degrade(spec, small, noise_seed)
    return image, build_truth(spec, visible)


def build_truth(spec: SceneSpec, visible: dict[int, float], name: str = "") -> dict[str, Any]:
    """Return the ground-truth document of ``spec`` (``visible``: marker id -> visible fraction)."""
    cam = spec.camera
    mk = spec.setup.markers
    w, d = spec.table_w_mm, spec.table_d_mm
    a = mk.corner_size_mm / 2
    centres = [(a, a), (w - a, a), (w - a, d - a), (a, d - a)]
    setup_doc = setup_to_dict(spec.setup)
    setup_doc.pop("camera", None)
    corners = []
    for k in spec.corner_ids:
        c = marker_corners_mm(centres[k], mk.corner_size_mm, 270.0)
        corners.append({"id": k, "center_mm": [round(v, 6) for v in centres[k]], "corners_mm": _r(c),
                        "corners_px": _r(cam.project_table(c, 0.0)),
                        "visible_fraction": round(visible.get(k, 0.0), 4)})
    models = []
    for m in spec.models:
        size = mk.size_for(m.marker_id)
        c = marker_corners_mm(m.marker_center_mm, size, m.facing_deg)
        px = cam.project_table(c, mk.base_height_mm)
        models.append({
            "marker_id": m.marker_id, "x_mm": m.x_mm, "y_mm": m.y_mm, "base_mm": m.base_mm,
            "facing_deg": m.facing_deg, "offset_mm": m.offset_mm, "height_mm": mk.base_height_mm,
            "figure_height_mm": m.figure_height_mm, "side": m.side,
            "marker_center_mm": [round(v, 6) for v in m.marker_center_mm],
            "marker_corners_mm": _r(c), "marker_corners_px": _r(px),
            "marker_size_px": round(_side_px(px), 2),
            "marker_visible_fraction": round(visible.get(m.marker_id, 0.0), 4),
        })
    bases = [{"x_mm": b.x_mm, "y_mm": b.y_mm, "diameter_mm": b.diameter_mm, "side": b.side,
              "figure_height_mm": b.figure_height_mm,
              "center_px": _r(cam.project_table([[b.x_mm, b.y_mm]], mk.base_height_mm)[0])}
             for b in spec.bases]
    terrain = [{"id": t.terrain_id, "kind": t.kind, "points_mm": [list(p) for p in t.points_mm],
                "height_mm": t.height_mm} for t in spec.terrain]
    hands = [{"x_mm": h.x_mm, "y_mm": h.y_mm, "height_mm": h.height_mm, "from_deg": h.from_deg}
             for h in spec.hands]
    out: dict[str, Any] = {"image": f"{name}.jpg" if name else "", "image_size": list(cam.image_size)}
    out.update(cam.to_dict())
    out.update({
        "setup": setup_doc, "corners": corners, "models": models, "bases": bases, "terrain": terrain,
        "hands": hands,
        "render": {"seed": spec.seed, "noise_sigma": spec.noise_sigma, "blur_sigma": spec.blur_sigma,
                   "jpeg_quality": spec.jpeg_quality, "supersample": spec.samples_per_pixel,
                   "camera_centre_mm": _r(cam.centre_mm)},
        "notes": spec.notes,
    })
    return out


def _side_px(px: np.ndarray) -> float:
    return float(np.mean([np.linalg.norm(px[i] - px[(i + 1) % 4]) for i in range(4)]))


def _r(a: Any, nd: int = 4) -> Any:
    return np.round(np.asarray(a, dtype=np.float64), nd).tolist()


__all__ = ["render_scene", "build_truth", "StaticLayer", "draw_mat", "marker_corners_mm", "marker_bits",
           "marker_cells", "figure_geometry", "hand_capsules"]
