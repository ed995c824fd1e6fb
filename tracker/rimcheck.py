"""Whether each side's rim colour stands apart from the mat, the table's border and the other side.

Base mode tells a bare base by the colour of its rim (``setup.bases.sides``). A rim the
colour of the mat, of the table's border or of the other side cannot be found reliably:
white, yellow and orange rims bring most of the false bases on real tables (paper, a light
border, terrain and dice share those colours). :func:`rim_colour_warnings` measures the
colours as the camera sees them in the calibration photo (the mat's main colours on the
rectified plan, the border just outside the play area) and names, for each rim colour
too close to one of them (CIE76 colour difference below :data:`MIN_DELTA_E`), a colour
that would work.

Examples
--------
>>> delta_e((43, 57, 192), (216, 111, 46)) > 25        # red and blue (BGR)
True
>>> round(delta_e((200, 200, 200), (205, 205, 205)))
2
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import cv2
import numpy as np

from calibration.setup import Setup
from tracker.markers import TableMapping

#: Rim and background colours closer than this (CIE76 Delta E) are hard to tell apart.
MIN_DELTA_E = 25.0
#: Colours proposed instead (name, hex): saturated paints easy to find in a shop.
SUGGESTIONS: tuple[tuple[str, str], ...] = (
    ("red", "#c0392b"), ("blue", "#2e6fd8"), ("magenta", "#c2187a"), ("cyan", "#1abc9c"),
    ("orange", "#f07d1e"), ("yellow", "#f1c40f"), ("purple", "#8e44ad"), ("green", "#27ae60"),
)
#: A mat colour counts when at least this share of the play area has it.
MIN_MAT_SHARE = 0.08


def _lab(bgr: Sequence[float]) -> np.ndarray:
    px = np.clip(np.array([[bgr]], dtype=np.float32) / 255.0, 0.0, 1.0)
    return np.asarray(cv2.cvtColor(px, cv2.COLOR_BGR2LAB)[0, 0], dtype=np.float64)


def delta_e(bgr_a: Sequence[float], bgr_b: Sequence[float]) -> float:
    """CIE76 colour difference between two BGR colours (0-255)."""
    return float(np.linalg.norm(_lab(bgr_a) - _lab(bgr_b)))


def hex_bgr(colour: str) -> tuple[int, int, int]:
    """``'#rrggbb'`` -> (b, g, r)."""
    r, g, b = (int(colour[i:i + 2], 16) for i in (1, 3, 5))
    return (b, g, r)


def mat_colours(image: np.ndarray, calibration: TableMapping, setup: Setup, *,
                clusters: int = 4) -> list[tuple[tuple[float, float, float], float]]:
    """The mat's main colours as seen (BGR) with their share of the play area, largest first."""
    w, d = setup.table.width_mm, setup.table.depth_mm
    c = setup.markers.corner_size_mm
    xs, ys = np.meshgrid(np.linspace(c, w - c, 60), np.linspace(c, d - c, 60))
    pts = np.stack([xs.ravel(), ys.ravel()], axis=1)
    return _clusters(_sample(image, calibration.to_image_px(pts)), clusters)


def border_colour(image: np.ndarray, calibration: TableMapping, setup: Setup) -> tuple[float, float, float] | None:
    """The median colour (BGR) of the band 10-30 mm outside the play area, where it is in the frame."""
    w, d = setup.table.width_mm, setup.table.depth_mm
    ring = []
    for off in (10.0, 20.0, 30.0):
        t = np.linspace(0.0, 1.0, 80)
        ring += [np.stack([t * w, np.full_like(t, -off)], 1), np.stack([t * w, np.full_like(t, d + off)], 1),
                 np.stack([np.full_like(t, -off), t * d], 1), np.stack([np.full_like(t, w + off), t * d], 1)]
    colours = _sample(image, calibration.to_image_px(np.concatenate(ring)))
    if len(colours) < 20:
        return None
    med = np.median(colours, axis=0)
    return (float(med[0]), float(med[1]), float(med[2]))


def _sample(image: np.ndarray, px: np.ndarray) -> np.ndarray:
    h, w = image.shape[:2]
    p = np.round(np.asarray(px, dtype=np.float64).reshape(-1, 2)).astype(int)
    inside = (p[:, 0] >= 0) & (p[:, 0] < w) & (p[:, 1] >= 0) & (p[:, 1] < h)
    p = p[inside]
    return np.asarray(image[p[:, 1], p[:, 0]], dtype=np.float32).reshape(-1, 3)


def _clusters(colours: np.ndarray, k: int) -> list[tuple[tuple[float, float, float], float]]:
    if len(colours) < k:
        return []
    criteria = (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, 20, 1.0)
    cv2.setRNGSeed(7)
    # the stubs refuse bestLabels=None, which OpenCV takes
    _, labels, centres = cv2.kmeans(colours, k, None, criteria, 3, cv2.KMEANS_PP_CENTERS)  # type: ignore[call-overload]
    share = np.bincount(labels.ravel(), minlength=k) / len(labels)
    order = np.argsort(share)[::-1]
    return [((float(centres[i][0]), float(centres[i][1]), float(centres[i][2])), float(share[i])) for i in order]


def rim_colour_warnings(image: np.ndarray, calibration: TableMapping, setup: Setup) -> list[str]:
    """Warnings for the sides whose rim colour is too close to the mat, the border or the other side.

    Each names what the colour is too close to and proposes one that stands apart from
    all of them. Empty when every side's colour is fine (or the setup names no sides).
    """
    sides = dict(setup.bases.sides)
    if not sides or image.ndim != 3:
        return []
    mats = [(c, s) for c, s in mat_colours(image, calibration, setup) if s >= MIN_MAT_SHARE]
    border = border_colour(image, calibration, setup)
    backgrounds: list[tuple[str, tuple[float, float, float]]] = [("the mat", c) for c, _ in mats]
    if border is not None:
        backgrounds.append(("the table's border", border))
    out = []
    for name, colour in sides.items():
        rim = hex_bgr(colour)
        problems = []
        for what, c in backgrounds:
            de = delta_e(rim, c)
            if de < MIN_DELTA_E:
                problems.append((what, de))
        for other, oc in sides.items():
            if other != name:
                de = delta_e(rim, hex_bgr(oc))
                if de < MIN_DELTA_E:
                    problems.append((f"side {other}'s rim ({oc})", de))
        _, s_rim, _ = cv2.cvtColor(np.array([[rim]], np.uint8), cv2.COLOR_BGR2HSV)[0, 0]
        grey = int(s_rim) < 60
        if not problems and not grey:
            continue
        avoid = [c for _, c in backgrounds] + [hex_bgr(oc) for other, oc in sides.items() if other != name]
        best = _suggest(avoid, exclude=set(sides.values()))
        what = ", ".join(f"{w} (colour difference {de:.0f})" for w, de in problems)
        text = f"side {name}'s rim colour {colour} "
        if problems:
            text += f"is too close to {what} as the camera sees them, so its bare bases will be missed or confused"
        else:
            text += ("is white, grey or black: bare bases are found by the hue of their rim, and paper, dice and the "
                     "table's border share it")
        if best is not None:
            text += f"; a {best[0]} rim ({best[1]}) would stand apart (colour difference {best[2]:.0f} or more)"
        out.append(text)
    return out


def _suggest(avoid: Sequence[Sequence[float]], exclude: set[str]) -> tuple[str, str, float] | None:
    """The suggested colour farthest (by its nearest) from every colour to avoid."""
    best: tuple[str, str, float] | None = None
    for name, colour in SUGGESTIONS:
        if colour in exclude:
            continue
        nearest = min((delta_e(hex_bgr(colour), a) for a in avoid), default=math.inf)
        if best is None or nearest > best[2]:
            best = (name, colour, nearest)
    if best is None or best[2] < MIN_DELTA_E:
        return None
    return best
