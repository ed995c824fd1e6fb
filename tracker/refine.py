"""Sub-pixel marker corners from the four edges of the black square.

A 12 mm base marker is only 16-25 px across and its white quiet zone is 1-2 px wide, with
a dark base just beyond it. A corner-refinement window (OpenCV's ``CORNER_REFINE_SUBPIX``)
then sees the base's dark edge too and pulls each corner about a pixel inward. The edges
are better measured where they are long and straight: along each side of the square,
away from its corners, the black-to-white step is located to a fraction of a pixel on
profiles across the edge (the peak of the intensity gradient, parabola-interpolated), a
straight line is fitted to those points, and each corner is the intersection of its two
sides' lines.

Examples
--------
>>> img = np.full((40, 40), 230, np.uint8)
>>> img[10:30, 12:32] = 20                       # a black square from (11.5, 9.5) to (31.5, 29.5)
>>> c = np.array([[[12.3, 10.4], [30.6, 9.9], [31.2, 28.9], [11.9, 29.0]]])
>>> refine_corners(img, c).round(1).tolist()
[[[11.5, 9.5], [31.5, 9.5], [31.5, 29.5], [11.5, 29.5]]]
"""

from __future__ import annotations

import cv2
import numpy as np

#: Profiles are taken along the middle of each side, from EDGE_MARGIN to 1 - EDGE_MARGIN.
EDGE_MARGIN = 0.18
#: Profiles per side, and samples per profile.
PROFILES_PER_SIDE = 12
SAMPLES_PER_PROFILE = 13
#: Half-length of each profile across the edge, as a fraction of a module (cell) of the marker.
PROFILE_HALF_MODULES = 0.8
#: A refined corner farther than this from its first estimate (in modules) is not trusted.
MAX_SHIFT_MODULES = 1.0
#: Smallest grey-level rise across an edge that counts as the marker's edge.
MIN_EDGE_CONTRAST = 10.0


def refine_corners(gray: np.ndarray, corners_px: np.ndarray, *, cells: int = 6) -> np.ndarray:
    """Return corners refined by fitting lines to the square's edges.

    Parameters
    ----------
    gray : (H, W) uint8
        The image.
    corners_px : (N, 4, 2) float
        First estimates in OpenCV's order (within about half a module).
    cells : int
        Cells across the marker, its black border included (6 for a 4x4 dictionary).

    Returns
    -------
    (N, 4, 2) float
        Refined corners; a marker whose edges cannot be measured keeps its estimate.
    """
    return refine_corners_status(gray, corners_px, cells=cells)[0]


def refine_corners_status(gray: np.ndarray, corners_px: np.ndarray, *, cells: int = 6,
                          max_shift_modules: float = MAX_SHIFT_MODULES,
                          min_coverage: float = 0.0) -> tuple[np.ndarray, np.ndarray]:
    """Like :func:`refine_corners`, also returning (N,) bool: which markers were refined.

    ``max_shift_modules`` bounds how far a corner may move (in marker cells);
    ``min_coverage`` is the fraction of each side's profiles that must show a clean edge
    (a figure over a corner leaves two sides partly unmeasured).
    """
    quad = np.asarray(corners_px, dtype=np.float64).reshape(-1, 4, 2)
    n = len(quad)
    if not n:
        return quad.copy(), np.zeros(0, dtype=bool)
    # (small arrays: numpy's per-call cost dominates, so the cheapest equivalent calls are used:
    # an index for np.roll, the square root of the sum of squares np.linalg.norm computes)
    a = quad
    b = quad[:, NEXT_CORNER]
    side = b - a
    length = vector_lengths(side)                                        # (N, 4)
    u = side / np.maximum(length, 1e-9)[..., None]
    normal = np.empty_like(u)
    normal[..., 0], normal[..., 1] = -u[..., 1], u[..., 0]
    mid = (a + b) / 2 - quad.mean(axis=1, keepdims=True)
    normal *= np.where((normal * mid).sum(-1) < 0, -1.0, 1.0)[..., None]   # outward
    module = length.mean(axis=1) / cells                                 # (N,)
    half = np.maximum(1.0, PROFILE_HALF_MODULES * module)
    offsets = half[:, None] * _UNIT[None, :]                             # (N, K)
    base = a[:, :, None, :] + _ALONG[None, None, :, None] * side[:, :, None, :]    # (N, 4, m, 2)
    pts = (base[:, :, :, None, :]
           + offsets[:, None, None, :, None] * normal[:, :, None, None, :])        # (N, 4, m, K, 2)
    flat = pts.reshape(-1, SAMPLES_PER_PROFILE, 2).astype(np.float32)
    src = np.ascontiguousarray(gray)
    # OpenCV's remap takes maps under 32767 rows: many markers are sampled in chunks
    prof = np.concatenate([cv2.remap(src, np.ascontiguousarray(part[..., 0]), np.ascontiguousarray(part[..., 1]),
                                     cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
                           for part in remap_chunks(flat)]).astype(np.float64)
    s = _crossings(prof) * np.repeat(half, 4 * PROFILES_PER_SIDE)       # px along the normal
    s = s.reshape(n, 4, PROFILES_PER_SIDE)
    edge = base + s[..., None] * normal[:, :, None, :]                   # (N, 4, m, 2), NaN where unclear
    point, direction, ok = _fit_lines(edge)
    coverage = np.isfinite(edge[..., 0]).mean(axis=-1).min(axis=-1)          # (N,) worst side
    corners = _intersect(point[:, [3, 0, 1, 2]], direction[:, [3, 0, 1, 2]], point, direction)
    good = (ok.all(axis=1) & np.isfinite(corners).all(axis=(1, 2)) & (coverage >= min_coverage)
            & (vector_lengths(np.nan_to_num(corners) - quad).max(axis=1) <= max_shift_modules * module))
    return np.where(good[:, None, None], corners, quad), good


#: Each corner's next, clockwise (``np.roll(quad, -1, axis=1)``'s order, by an index).
NEXT_CORNER = [1, 2, 3, 0]
#: Where the profiles lie along a side, and their samples across it (in half-lengths).
_ALONG = np.linspace(EDGE_MARGIN, 1 - EDGE_MARGIN, PROFILES_PER_SIDE)
_UNIT = np.linspace(-1.0, 1.0, SAMPLES_PER_PROFILE)


def vector_lengths(v: np.ndarray) -> np.ndarray:
    """``np.linalg.norm(v, axis=-1)`` for (..., 2) vectors, the same values at less cost."""
    return np.asarray(np.sqrt((v * v).sum(axis=-1)))


def remap_chunks(rows: np.ndarray) -> list[np.ndarray]:
    """``rows`` (an (M, K, 2) map for ``cv2.remap``) in parts under 30000 rows each, as
    ``np.array_split`` cuts it (OpenCV takes maps under 32767 rows); one part without a copy
    (``np.array_split`` costs a tenth of a millisecond even then, on every call)."""
    chunks = max(1, -(-len(rows) // 30000))
    return [rows] if chunks == 1 else list(np.array_split(rows, chunks))


def _crossings(prof: np.ndarray) -> np.ndarray:
    """Where each profile rises halfway from its dark (inside) to its bright (outside) level.

    Positions are in units of the profile's half-length (-1 .. 1); the crossing nearest the
    steepest rise is taken and interpolated linearly between samples. NaN where the
    profile shows no clean step.
    """
    m, k = prof.shape
    grad = prof[:, 1:] - prof[:, :-1]                       # np.diff's values, without its overhead
    peak = np.argmax(grad, axis=1)
    strong = grad[np.arange(m), peak] >= MIN_EDGE_CONTRAST / 2
    before = np.arange(k)[None, :] <= peak[:, None]
    lo = np.where(before, prof, np.inf).min(axis=1)
    hi = np.where(~before, prof, -np.inf).max(axis=1)
    level = (lo + hi) / 2.0
    above = prof >= level[:, None]
    rising = ~above[:, :-1] & above[:, 1:]                  # crosses between i and i + 1
    dist = np.where(rising, np.abs(np.arange(k - 1)[None, :] - peak[:, None]), k + 1)
    i = np.argmin(dist, axis=1)
    rows = np.arange(m)
    a, b = prof[rows, i], prof[rows, i + 1]
    f = np.where(b != a, (level - a) / np.where(b != a, b - a, 1.0), 0.5)
    step = 2.0 / (k - 1)
    out = -1.0 + (i + f) * step
    valid = rising[rows, i] & strong & (hi - lo >= MIN_EDGE_CONTRAST)
    return np.where(valid, out, np.nan)


def _fit_lines(edge: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Total least squares lines through (N, 4, m, 2) points (NaN = missing), one trimming pass.

    Returns points (N, 4, 2), directions (N, 4, 2) and which lines had enough points (N, 4).
    """
    valid = np.isfinite(edge).all(axis=-1)
    # (the missing points weigh nothing below: zero for them, as np.nan_to_num gives for a NaN,
    # at a third of its cost)
    p = np.where(valid[..., None], edge, 0.0)
    for _ in range(2):
        w = valid.astype(np.float64)
        count = w.sum(axis=-1)
        mean = (p * w[..., None]).sum(axis=-2) / np.maximum(count, 1)[..., None]
        d = (p - mean[..., None, :]) * w[..., None]
        sxx = (d[..., 0] ** 2).sum(-1)
        syy = (d[..., 1] ** 2).sum(-1)
        sxy = (d[..., 0] * d[..., 1]).sum(-1)
        theta = 0.5 * np.arctan2(2 * sxy, sxx - syy)
        direction = np.empty(theta.shape + (2,))
        direction[..., 0], direction[..., 1] = np.cos(theta), np.sin(theta)
        nrm = np.empty_like(direction)
        nrm[..., 0], nrm[..., 1] = -direction[..., 1], direction[..., 0]
        r = np.abs(((p - mean[..., None, :]) * nrm[..., None, :]).sum(-1))
        ranked = np.sort(np.where(valid, r, np.inf), axis=-1)
        mid = np.minimum(np.maximum((count.astype(int) - 1) // 2, 0), r.shape[-1] - 1)
        # each row's middle value (np.take_along_axis's, by a flat index: a fifth of its cost)
        flat = ranked.reshape(-1, ranked.shape[-1])
        med = flat[np.arange(len(flat)), mid.reshape(-1)].reshape(mid.shape)
        med = np.where(np.isfinite(med), med, 0.0)
        keep = valid & (r <= np.maximum(3 * med, 0.15)[..., None])
        if (keep == valid).all():
            break
        valid = keep
    return mean, direction, valid.sum(axis=-1) >= 3


def _intersect(p: np.ndarray, r: np.ndarray, q: np.ndarray, s: np.ndarray) -> np.ndarray:
    """Intersections of lines (p + t r) and (q + u s), elementwise over leading axes."""
    cross = r[..., 0] * s[..., 1] - r[..., 1] * s[..., 0]
    qp = q - p
    with np.errstate(divide="ignore", invalid="ignore"):
        t = (qp[..., 0] * s[..., 1] - qp[..., 1] * s[..., 0]) / cross
        out = p + t[..., None] * r
    return np.where((np.abs(cross) > 1e-9)[..., None], out, np.nan)
