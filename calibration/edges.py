"""Points on the table's four straight edges, found in the image near where a lens model puts them.

The corner markers lie flush with the table's edges (docs/markers.md), so the play area's
border is four straight lines of the table plane: x = 0, x = width, y = 0, y = depth. A
lens with distortion bends them in the image; how much they bend measures the distortion,
even where few base markers are in view (:mod:`calibration.lens`).

:func:`find_edge_points` walks along each edge between the corner markers, and at each
step looks across the edge (along the image normal of its projection under the current
model) for the first strong colour change, starting from inside the table: the mat's
border. Each point found is kept with that normal, since only the distance across the
edge is measured.
"""

from __future__ import annotations

import cv2
import numpy as np
from numpy.typing import ArrayLike, NDArray

from calibration.camera import CameraIntrinsics

FloatArray = NDArray[np.float64]

EDGE_SAMPLES = 40
"""Points looked for along each edge."""

MIN_STEP_CONTRAST = 12.0
"""Smallest colour change (sum over B, G, R of 8-bit levels, per pixel) that counts as the edge."""

MAT_SAMPLE_PX = 6
"""Pixels at the inner start of each profile whose colour, along an edge, is taken as the mat's."""

CANDIDATE_FRACTION = 0.25
"""Colour changes at least this share of the strongest in their profile are candidate edge places."""

JUMP_COST_PER_PX = 0.15
"""Cost of the edge moving by one pixel across between two neighbouring samples (a strong change scores 1)."""

END_COST_PER_PX = 0.1
"""Cost per pixel of the edge's distance from the expected line at its two ends, next to the corner
markers, which lie flush with the edges (the first guess fits them, so it is right there)."""

BOX_PX = 4
"""The colour on each side of a place is averaged over this many pixels across the edge."""

ALONG_PX = (-6.0, -3.0, 0.0, 3.0, 6.0)
"""Offsets along the edge of the parallel profiles averaged at each point."""
"""The edge is the first change, from inside, at least this share of the strongest in the profile."""


def find_edge_points(image: NDArray[np.uint8], cam: CameraIntrinsics, rvec: ArrayLike, tvec: ArrayLike,
                     table_mm: tuple[float, float], *, corner_mm: float = 60.0, window_px: float = 20.0,
                     inside_px: float | None = None) -> tuple[FloatArray, FloatArray, FloatArray]:
    """Return points seen on the table's edges: (table x, y, 0) mm, image px, unit normals.

    Parameters
    ----------
    image
        The BGR (or grey) frame.
    cam, rvec, tvec
        The current lens and pose (where the edges are expected).
    table_mm
        (width, depth) of the play area.
    corner_mm
        Side of the corner markers: the edge is sampled between them.
    window_px
        How far outside the expected edge to look.
    inside_px
        How far inside to start looking (default ``window_px / 2``).
    """
    w, d = table_mm
    margin = corner_mm * 1.3
    t = np.linspace(0.0, 1.0, EDGE_SAMPLES + 2)[1:-1]
    edges = [
        np.column_stack([margin + t * (w - 2 * margin), np.zeros_like(t)]),
        np.column_stack([np.full_like(t, w), margin + t * (d - 2 * margin)]),
        np.column_stack([margin + t * (w - 2 * margin), np.full_like(t, d)]),
        np.column_stack([np.zeros_like(t), margin + t * (d - 2 * margin)]),
    ]
    along = [np.array([1.0, 0.0]), np.array([0.0, 1.0]), np.array([1.0, 0.0]), np.array([0.0, 1.0])]
    rvec_a = np.asarray(rvec, dtype=np.float64).reshape(3)
    tvec_a = np.asarray(tvec, dtype=np.float64).reshape(3)

    def project(mm: FloatArray) -> FloatArray:
        pts = np.column_stack([mm, np.zeros(len(mm))])
        px, _ = cv2.projectPoints(pts, rvec_a, tvec_a, cam.matrix, cam.distortion)
        return np.asarray(px, dtype=np.float64).reshape(-1, 2)

    colour = image if image.ndim == 3 else cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)  # sampled as 8-bit: no full copy
    height, width = image.shape[:2]
    centre_px = project(np.array([[w / 2.0, d / 2.0]]))[0]
    inside = window_px / 2.0 if inside_px is None else inside_px
    offsets = np.arange(-inside - BOX_PX, window_px + BOX_PX + 1.0, 1.0)
    out_mm, out_px, out_n = [], [], []
    for mm, direction in zip(edges, along):
        px = project(mm)
        ahead = project(mm + direction * 2.0)
        tangent = ahead - px
        tangent /= np.maximum(np.linalg.norm(tangent, axis=1, keepdims=True), 1e-9)
        normal = np.column_stack([-tangent[:, 1], tangent[:, 0]])
        outward = np.sign(np.sum((px - centre_px) * normal, axis=1))
        normal *= np.where(outward == 0, 1.0, outward)[:, None]
        across = px[:, None, :] + offsets[None, :, None] * normal[:, None, :]    # (n, m, 2)
        inside_image = np.all((across[..., 0] >= 8) & (across[..., 0] <= width - 9)
                              & (across[..., 1] >= 8) & (across[..., 1] <= height - 9), axis=1)
        values = np.zeros((len(px), len(offsets), 3), dtype=np.float32)
        for shift_along in ALONG_PX:   # average a few parallel profiles: the mat's texture fades, the edge stays
            samples = across + shift_along * tangent[:, None, :]
            values += cv2.remap(colour, samples[..., 0].astype(np.float32), samples[..., 1].astype(np.float32),
                                cv2.INTER_LINEAR).astype(np.float32)
        values /= len(ALONG_PX)
        # contrast between the mean colour of BOX_PX pixels before and after each place
        csum = np.concatenate([np.zeros((len(px), 1, 3), np.float32), np.cumsum(values, axis=1)], axis=1)
        h = BOX_PX
        m = len(offsets)
        before = (csum[:, h:m - h + 1] - csum[:, :m - 2 * h + 1]) / h
        after = (csum[:, 2 * h:] - csum[:, h:m - h + 1]) / h
        step = np.abs(after - before).sum(axis=2)                                 # place j: between j+h-1 and j+h
        # the play area's border leaves the mat: mat colour on the inner side, another colour beyond.
        # The mat's colour is the median, along this edge, of the start of every profile (well inside)
        mat = np.median(values[inside_image, :MAT_SAMPLE_PX].reshape(-1, 3), axis=0) if np.any(inside_image) \
            else np.median(values[:, :MAT_SAMPLE_PX].reshape(-1, 3), axis=0)
        leaves_mat = np.abs(after - mat).sum(axis=2) - np.abs(before - mat).sum(axis=2)
        raw_step = step
        step = np.minimum(step, np.maximum(leaves_mat, 0.0))
        cands: list[tuple[int, FloatArray, FloatArray]] = []
        for k in np.flatnonzero(inside_image).tolist():
            profile = step[k]
            strongest = float(profile.max())
            if strongest < MIN_STEP_CONTRAST:
                continue
            places, strengths = _peaks(profile, max(MIN_STEP_CONTRAST, CANDIDATE_FRACTION * strongest))
            cands.append((int(k), offsets[0] + places + h - 0.5, strengths))
        found_k, found_s = _best_path(cands, len(px))
        # place each chosen edge on the peak of the plain colour change next to it (sub-pixel)
        for i, (k, s_k) in enumerate(zip(found_k, found_s)):
            j: int = int(round(s_k - offsets[0] - h + 0.5))
            lo, hi = max(1, j - 2), min(raw_step.shape[1] - 2, j + 2)
            if lo > hi:
                continue
            jj: int = lo + int(np.argmax(raw_step[k, lo:hi + 1]))
            a, b, c = raw_step[k, jj - 1], raw_step[k, jj], raw_step[k, jj + 1]
            denom = a - 2 * b + c
            shift = 0.5 * (a - c) / denom if denom < 0 else 0.0
            found_s[i] = float(offsets[0] + jj + h - 0.5 + shift)
        keep = _smooth_inliers(t[found_k], np.asarray(found_s)) if found_k else np.zeros(0, dtype=bool)
        for k, s_k, ok in zip(found_k, found_s, keep):
            if ok:
                out_mm.append(mm[k])
                out_px.append(px[k] + s_k * normal[k])
                out_n.append(normal[k])
    if not out_mm:
        return np.zeros((0, 3)), np.zeros((0, 2)), np.zeros((0, 2))
    mm_arr = np.array(out_mm)
    return np.column_stack([mm_arr, np.zeros(len(mm_arr))]), np.array(out_px), np.array(out_n)


def _smooth_inliers(t: FloatArray, s: FloatArray, *, degree: int = 3, min_px: float = 2.0) -> NDArray[np.bool_]:
    """Points whose offset across the edge lies on a smooth curve along it (clutter, hands, bases dropped).

    The lens bends the edge smoothly, so the offsets from the expected line follow a
    low-order polynomial of the place along the edge; a robust fit (trimmed, three rounds)
    keeps the points within ``max(min_px, 3 MAD)`` of it.
    """
    keep = np.ones(len(t), dtype=bool)
    if len(t) <= degree + 3:
        return keep
    for _ in range(4):
        coef = np.polyfit(t[keep], s[keep], degree)
        resid = np.abs(s - np.polyval(coef, t))
        mad = float(np.median(resid[keep])) * 1.4826
        new = resid <= max(min_px, 3.0 * mad)
        if new.sum() <= degree + 2 or np.array_equal(new, keep):
            keep = new if new.sum() > degree + 2 else keep
            break
        keep = new
    return keep


def _peaks(profile: FloatArray, floor: float) -> tuple[FloatArray, FloatArray]:
    """Local maxima of ``profile`` at least ``floor``: sub-pixel places and heights."""
    p = np.asarray(profile, dtype=np.float64)
    inner = (p[1:-1] >= p[:-2]) & (p[1:-1] > p[2:]) & (p[1:-1] >= floor)
    idx = np.flatnonzero(inner) + 1
    a, b, c = p[idx - 1], p[idx], p[idx + 1]
    denom = a - 2 * b + c
    shift = np.where(denom < 0, 0.5 * (a - c) / np.where(denom < 0, denom, -1.0), 0.0)
    return (idx + shift).astype(np.float64), b.astype(np.float64)


def _best_path(cands: list[tuple[int, FloatArray, FloatArray]], n: int) -> tuple[list[int], list[float]]:
    """Choose one candidate per sample along an edge: strong, continuous, near the line at both ends.

    Dynamic programming (Viterbi) over the samples that have candidates: each candidate
    scores minus its strength (relative to the edge's strongest), each step along the edge
    costs :data:`JUMP_COST_PER_PX` per pixel of jump across, and the first and last samples
    cost :data:`END_COST_PER_PX` per pixel away from the expected line.
    """
    if not cands:
        return [], []
    top = max(float(v.max()) for _k, _s, v in cands if len(v)) if any(len(v) for _k, _s, v in cands) else 1.0
    cands = [(k, s, v) for k, s, v in cands if len(s)]
    if not cands:
        return [], []
    costs = [-(cands[0][2] / top) + END_COST_PER_PX * np.abs(cands[0][1])]
    back: list[NDArray[np.int64]] = []
    for i in range(1, len(cands)):
        _k, s, v = cands[i]
        prev_s = cands[i - 1][1]
        gap = max(1, cands[i][0] - cands[i - 1][0])
        trans = costs[-1][None, :] + JUMP_COST_PER_PX * np.abs(s[:, None] - prev_s[None, :]) / gap
        best = np.argmin(trans, axis=1)
        cost = trans[np.arange(len(s)), best] - v / top
        if i == len(cands) - 1:
            cost = cost + END_COST_PER_PX * np.abs(s)
        costs.append(cost)
        back.append(best)
    j = int(np.argmin(costs[-1]))
    chosen = [j]
    for b in reversed(back):
        j = int(b[j])
        chosen.append(j)
    chosen.reverse()
    return [k for k, _s, _v in cands], [float(c[1][j]) for c, j in zip(cands, chosen)]
