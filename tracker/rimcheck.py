"""Whether each side's rim colour stands apart from the mat, the table's border and the other side.

Base mode tells a bare base by the colour of its rim (``setup.bases.sides``). A rim the
colour of the mat, of the table's border or of the other side cannot be found reliably:
white, yellow and orange rims bring most of the false bases on real tables (paper, a light
border, terrain and dice share those colours). :func:`rim_colour_warnings` measures the
colours as the camera sees them in the calibration photo: the mat's main colours on the
rectified plan, the border just outside the play area, and each rim as the bases found in
the photo show it (a thin rim blurred and lit on its edge can stand far nearer the mat than
its paint), else its paint through the white balance the corner markers' paper and ink
reveal. It names, for each rim too close to one of them (CIE76 colour difference below
:data:`MIN_DELTA_E`), a colour that would work, seen through the same white balance.

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
from typing import Any

import cv2
import numpy as np

from calibration.aruco import get_dictionary
from calibration.setup import CORNER_IDS, Setup
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


def white_balance(image: np.ndarray, calibration: TableMapping,
                  setup: Setup) -> tuple[np.ndarray, np.ndarray] | None:
    """The frame's black and white as the corner markers show them: ((b, g, r) of the ink, of the paper).

    Each corner marker's cells are known (its id's pattern in the setup's dictionary, laid
    with its top edge toward y = 0): the median colour at the centres of its black cells and
    of its white ones, over the four markers. None when they are not in the frame or show no
    contrast (the paper not clearly lighter than the ink).
    """
    size = setup.markers.corner_size_mm
    w, d = setup.table.width_mm, setup.table.depth_mm
    cell = size / 6.0
    dictionary = get_dictionary(setup.markers.dictionary)
    black, white = [], []
    for mid, (x0, y0) in zip(CORNER_IDS, ((0.0, 0.0), (w - size, 0.0), (w - size, d - size), (0.0, d - size))):
        bits = np.asarray(dictionary.generateImageMarker(mid, 6), np.uint8) > 127
        r, c = np.mgrid[0:6, 0:6]
        for dy, dx in ((-0.2, -0.2), (-0.2, 0.2), (0.2, -0.2), (0.2, 0.2), (0.0, 0.0)):
            pts = np.column_stack([x0 + (c.ravel() + 0.5 + dx) * cell, y0 + (r.ravel() + 0.5 + dy) * cell])
            px = calibration.to_image_px(pts)
            h, wi = image.shape[:2]
            q = np.round(px).astype(int)
            inside = (q[:, 0] >= 0) & (q[:, 0] < wi) & (q[:, 1] >= 0) & (q[:, 1] < h)
            colours = np.asarray(image[q[inside, 1], q[inside, 0]], np.float64).reshape(-1, 3)
            white += list(colours[bits.ravel()[inside]])
            black += list(colours[~bits.ravel()[inside]])
    if len(black) < 20 or len(white) < 20:
        return None
    ink, paper = np.median(np.array(black), axis=0), np.median(np.array(white), axis=0)
    if float(np.min(paper - ink)) < 40.0:
        return None
    return ink, paper


def as_seen(colour: Sequence[float], balance: tuple[np.ndarray, np.ndarray] | None) -> tuple[float, float, float]:
    """A paint's colour (BGR) as this frame would show it: its black-to-white range mapped onto the
    ink-to-paper range the corner markers show (:func:`white_balance`); the colour itself without one."""
    c = np.asarray(colour, np.float64)
    if balance is not None:
        ink, paper = balance
        c = np.clip(ink + (paper - ink) * c / 255.0, 0.0, 255.0)
    return (float(c[0]), float(c[1]), float(c[2]))


def rims_seen(image: np.ndarray, calibration: TableMapping, setup: Setup,
              balance: tuple[np.ndarray, np.ndarray] | None) -> dict[str, tuple[float, float, float]]:
    """Each side's rim colour as this frame shows it (BGR): learnt from its bases found in the frame
    (:func:`tracker.bases.rims_in_frame`), else its paint through the white balance (:func:`as_seen`)."""
    from tracker.bases import PlanView, find_bases, rims_in_frame

    view = PlanView(calibration, setup)
    learnt = rims_in_frame(image, view, setup, find_bases(image, view, setup))
    return {name: learnt.get(name) or as_seen(hex_bgr(colour), balance) for name, colour in setup.bases.sides.items()}


def rim_colour_warnings(image: np.ndarray, calibration: TableMapping, setup: Setup) -> list[dict[str, Any]]:
    """Warnings for the sides whose rim colour, as the frame shows it, is too close to the mat, the
    border or the other side, as messages ``{"msg", "params"}`` (the edges word them in French and
    English: ``tabletracker/locale/<lang>.rims.po``).

    The rims are measured as the frame shows them (:func:`rims_seen`), as are the mat and the
    border. Each warning names what the colour is too close to and proposes one (seen through
    the frame's white balance) that stands apart from all of them. Empty when every side's
    colour is fine (or the setup names no sides).
    """
    sides = dict(setup.bases.sides)
    if not sides or image.ndim != 3:
        return []
    mats = [(c, s) for c, s in mat_colours(image, calibration, setup) if s >= MIN_MAT_SHARE]
    border = border_colour(image, calibration, setup)
    backgrounds: list[tuple[str, tuple[float, float, float]]] = [("rims.the_mat", c) for c, _ in mats]
    if border is not None:
        backgrounds.append(("rims.the_border", border))
    balance = white_balance(image, calibration, setup)
    seen = rims_seen(image, calibration, setup, balance)
    out = []
    for name, colour in sides.items():
        rim = seen[name]
        problems: list[dict[str, Any]] = []
        for what, c in backgrounds:
            de = delta_e(rim, c)
            if de < MIN_DELTA_E and not any(p["msg"] == what for p in problems):
                problems.append({"msg": what, "params": {"de": round(de)}})
        for other, oc in sides.items():
            if other != name:
                de = delta_e(rim, seen[other])
                if de < MIN_DELTA_E:
                    problems.append({"msg": "rims.other_side",
                                     "params": {"side": other, "colour": oc, "de": round(de)}})
        _, s_rim, _ = cv2.cvtColor(np.array([[hex_bgr(colour)]], np.uint8), cv2.COLOR_BGR2HSV)[0, 0]
        if not problems and int(s_rim) >= 60:
            continue
        avoid = [c for _, c in backgrounds] + [seen[other] for other in sides if other != name]
        best = _suggest(avoid, exclude=set(sides.values()), balance=balance)
        advice: Any = "" if best is None else {"msg": "rims.advice", "params": {
            "name": {"msg": f"rims.colour.{best[0]}"}, "colour": best[1], "de": round(best[2])}}
        params: dict[str, Any] = {"side": name, "colour": colour, "seen": _hex(rim), "advice": advice}
        if problems:
            msg = "rims.too_close"
            params["what"] = problems
        else:
            msg = "rims.grey"
        out.append({"msg": msg, "params": params})
    return out


def _hex(bgr: Sequence[float]) -> str:
    return "#{:02x}{:02x}{:02x}".format(*(int(round(float(v))) for v in (bgr[2], bgr[1], bgr[0])))


def _suggest(avoid: Sequence[Sequence[float]], exclude: set[str],
             balance: tuple[np.ndarray, np.ndarray] | None = None) -> tuple[str, str, float] | None:
    """The suggested colour farthest (by its nearest, as the frame would show it) from every colour to avoid."""
    best: tuple[str, str, float] | None = None
    for name, colour in SUGGESTIONS:
        if colour in exclude:
            continue
        nearest = min((delta_e(as_seen(hex_bgr(colour), balance), a) for a in avoid), default=math.inf)
        if best is None or nearest > best[2]:
            best = (name, colour, nearest)
    if best is None or best[2] < MIN_DELTA_E:
        return None
    return best
