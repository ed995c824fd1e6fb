"""Read square candidates directly on the marker's cell grid, against the ids in play.

OpenCV's ArUco detector throws away most small markers of a real webcam frame although
their bits are plain to see: a 16-22 px marker blurred by a pixel and JPEG-compressed
often closes no clean outline at the first threshold, or its outline is that of the
white paper (or white disc) around it, or one cell reads wrong. The quadrilaterals it
rejects are nearly always there, though. Here each candidate quadrilateral is read again:

1. hypotheses for the black square: the candidate itself, and the candidate shrunk by
   the quiet zone (one cell each side, the paper's outline), each refitted on the
   square's edges (:mod:`tracker.refine`) when the edges can be measured;
2. each hypothesis is nudged by up to half a pixel and a few per cent of scale (corners
   of a blurred 16 px square are uncertain by about that much) and sampled at the centre
   of every cell (border included); the cells are split into dark and light at the
   midpoint between the two groups (a per-marker threshold, immune to glare, vignetting
   and exposure). A square of the marker's known size (from the calibration) is only misplaced: it is
   also moved and turned, unscaled, to where its cells split cleanest (:func:`align_squares`).
   Such squares come from dark regions joined to a figure (:func:`known_size_squares`),
   from the places where a dark square sits in a light frame (:func:`ring_squares`: a
   marker blurred by motion, whose ink no threshold keeps whole) and from outlines
   snapped to the known size at their centre and angle (:func:`snapped_squares`);
3. the cell pattern is compared, in its four rotations, with the codes of the ids in play
   only (the setup's ``per_marker`` list or the game's models, and the corner ids for
   corner markers): far fewer codes than the dictionary's 250, so a reading one or two
   cells off is still unambiguous. A reading is accepted when its distance to the best
   code is at most ``max_errors`` and every other code in play is at least
   :data:`MIN_MARGIN` cells farther; the number of cells corrected is returned (the
   confidence the JSON reports);
4. a square of known size placed for a blurred marker whose cells split into no code in play
   is read by fitting the codes in play, blurred along a few directions and lengths, to its
   grey levels (:func:`read_blurred`).

Examples
--------
>>> img = np.full((60, 60), 200, np.uint8)
>>> d = cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_250)
>>> img[18:38, 18:38] = cv2.aruco.generateImageMarker(d, 42, 20) // 2 + 20
>>> quad = np.array([[[18.6, 17.7], [37.0, 17.6], [37.4, 37.3], [17.8, 37.2]]])   # a rough outline
>>> r = read_candidates(img, quad, "DICT_4X4_250", [42, 43, 99])
>>> r.ids.tolist(), r.errors.tolist(), bool(np.abs(r.corners - [[17.5, 17.5], [37.5, 17.5], [37.5, 37.5],
...                                                                [17.5, 37.5]]).max() < 0.6)
([42], [0], True)
>>> turned = read_candidates(img, np.roll(quad, 1, axis=1)[:, ::-1], "DICT_4X4_250", [42])
>>> bool(np.abs(turned.corners - r.corners).max() < 1e-6)        # any order in, OpenCV's order out
True
>>> read_candidates(img, quad, "DICT_4X4_250", [43, 99]).ids.tolist()      # 42 is not in play
[]
"""

from __future__ import annotations

import functools
import math
import threading
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace

import cv2
import numpy as np
from numpy.typing import NDArray

from calibration.aruco import get_dictionary
from tracker.blobs import regions
from tracker.refine import NEXT_CORNER, refine_corners_status, remap_chunks, vector_lengths

#: Another code in play must be at least this many cells farther than the accepted one.
MIN_MARGIN = 3
#: A data cell nearer the dark/light threshold than this fraction of the gap between the dark and
#: the light means reads neither surely (a figure's grey over it, or a blurred edge).
UNSURE_CELL = 0.25
#: A reading whose cells split less cleanly than this must tell the ids in play apart on its sure cells.
UNSURE_MAX_SPREAD = 0.3
#: Smallest grey-level difference between the dark and the light cells of a marker.
MIN_CONTRAST = 22.0
#: A reading whose dark and light cells overlap this much (spread / gap) is not trusted.
MAX_SPREAD = 0.45
#: Border cells (of 20 in a 4x4 dictionary) that may read light: motion blur bleeds the
#: quiet zone into the border along its direction.
MAX_LIGHT_BORDER_CELLS = 4
#: ... and a reading with cells corrected must be cleaner than this.
MAX_SPREAD_CORRECTED = 0.25
#: Nudges tried around each hypothesis: shifts in px and scales.
SHIFTS_PX = (-0.5, 0.0, 0.5)
SCALES = (0.95, 1.0, 1.05)
#: Sample points per cell side (on the middle half of the cell).
CELL_SAMPLES = 3


@dataclass(frozen=True)
class Readings:
    """Candidates read as ids in play: corners (N, 4, 2) in OpenCV's order, ids, cells corrected."""

    corners: NDArray[np.float64]
    ids: NDArray[np.int64]
    errors: NDArray[np.int64]
    #: How much the dark and light cells spread around their means, over the gap between them.
    spread: NDArray[np.float64]

    @classmethod
    def empty(cls) -> Readings:
        """No reading."""
        return cls(np.zeros((0, 4, 2)), np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0))

    def __len__(self) -> int:
        return int(self.ids.shape[0])

    @classmethod
    def concat(cls, parts: list[Readings]) -> Readings:
        """All the readings of ``parts``, in order."""
        parts = [p for p in parts if len(p)]
        if not parts:
            return cls.empty()
        return cls(np.concatenate([p.corners for p in parts]), np.concatenate([p.ids for p in parts]),
                   np.concatenate([p.errors for p in parts]), np.concatenate([p.spread for p in parts]))

    def select(self, mask: NDArray[np.bool_]) -> Readings:
        """The readings where ``mask`` is true."""
        return Readings(self.corners[mask], self.ids[mask], self.errors[mask], self.spread[mask])


@functools.lru_cache(maxsize=64)
def _codes(dictionary: str, ids: tuple[int, ...]) -> tuple[NDArray[np.uint8], NDArray[np.int64], NDArray[np.int64]]:
    """Cell patterns (border included, 1 = light) of ``ids`` in 4 rotations: (K*4, n*n), ids, rotations.

    Rotation r means the marker's pattern appears turned by r quarter turns clockwise in the
    sampled grid; its OpenCV corners are then the sampled corners rolled back by r.
    """
    d = get_dictionary(dictionary)
    n = int(d.markerSize) + 2
    rows, owners, turns = [], [], []
    for marker_id in ids:
        img = cv2.aruco.generateImageMarker(d, int(marker_id), n, borderBits=1) > 127
        for r in range(4):
            rows.append(np.rot90(img, -r).reshape(-1))
            owners.append(int(marker_id))
            turns.append(r)
    return (np.array(rows, dtype=np.uint8).reshape(-1, n * n), np.array(owners, np.int64),
            np.array(turns, np.int64))


@functools.lru_cache(maxsize=8)
def _sample_grid(n: int) -> NDArray[np.float64]:
    """Unit-square points (n*n*s*s, 2) on the middle half of every cell, row by row."""
    s = CELL_SAMPLES
    inner = (np.arange(s) + 0.5) / s * 0.5 + 0.25                # middle half of a cell
    c = (np.arange(n)[:, None] + inner[None, :]).reshape(-1) / n  # (n*s,)
    ys, xs = np.meshgrid(c, c, indexing="ij")                     # (n*s, n*s)
    pts = np.stack([xs, ys], axis=-1).reshape(n, s, n, s, 2).transpose(0, 2, 1, 3, 4)
    return pts.reshape(-1, 2)


def _homographies(quads: NDArray[np.float64]) -> NDArray[np.float64]:
    """(N, 3, 3) maps from the unit square to each quad (pixel centres at integers).

    Heckbert's closed form for the square-to-quadrilateral projective map, vectorised.
    """
    q = np.asarray(quads, dtype=np.float64).reshape(-1, 4, 2) + 0.5
    x0, x1, x2, x3 = (q[:, k, 0] for k in range(4))
    y0, y1, y2, y3 = (q[:, k, 1] for k in range(4))
    sx, sy = x0 - x1 + x2 - x3, y0 - y1 + y2 - y3
    dx1, dx2, dy1, dy2 = x1 - x2, x3 - x2, y1 - y2, y3 - y2
    den = dx1 * dy2 - dx2 * dy1
    den = np.where(np.abs(den) < 1e-12, 1e-12, den)
    g = (sx * dy2 - dx2 * sy) / den
    h = (dx1 * sy - sx * dy1) / den
    out = np.empty((len(q), 3, 3))
    out[:, 0, 0], out[:, 0, 1], out[:, 0, 2] = x1 - x0 + g * x1, x3 - x0 + h * x3, x0
    out[:, 1, 0], out[:, 1, 1], out[:, 1, 2] = y1 - y0 + g * y1, y3 - y0 + h * y3, y0
    out[:, 2, 0], out[:, 2, 1], out[:, 2, 2] = g, h, 1.0
    return out


def _sample_points(quads: NDArray[np.float64], n: int) -> NDArray[np.float32]:
    """(N, P, 2) image points (pixel-centre coordinates) sampled in the cells of each quad."""
    # float32 throughout: sub-pixel positions to 1e-3 px at 4K, half the memory traffic of float64
    hom = _homographies(quads).astype(np.float32)
    p = _homogeneous(n)                                                 # (P, 3)
    mapped = np.matmul(p[None], hom.transpose(0, 2, 1))                 # (N, P, 3); einsum is far slower
    xy: NDArray[np.float32] = mapped[..., :2] / mapped[..., 2:3] - np.float32(0.5)   # back to pixel centres
    return xy


@functools.lru_cache(maxsize=8)
def _homogeneous(n: int) -> NDArray[np.float32]:
    """:func:`_sample_grid`'s points with a third coordinate 1, float32 (read-only: made once, not
    on every cell reading)."""
    grid = _sample_grid(n)
    p = np.concatenate([grid, np.ones((len(grid), 1))], axis=1).astype(np.float32)
    p.flags.writeable = False
    return p


def _means_at(gray: NDArray[np.uint8], xy: NDArray[np.float32], n: int) -> NDArray[np.float64]:
    """(N, n*n) mean grey level of the samples ``xy`` (N, P, 2) of each cell."""
    rows = xy.reshape(-1, xy.shape[-2], 2)
    return _means_of(gray, np.ascontiguousarray(rows[..., 0]), np.ascontiguousarray(rows[..., 1]), n)


def _means_of(gray: NDArray[np.uint8], xs: NDArray[np.float32], ys: NDArray[np.float32], n: int
              ) -> NDArray[np.float64]:
    """(N, n*n) mean grey level of the samples of each cell, their x and y (N, P) given apart."""
    vals = np.concatenate([cv2.remap(gray, x, y, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
                           for x, y in zip(remap_chunks(xs), remap_chunks(ys))]) if len(xs) else \
        np.zeros((0, xs.shape[1]), np.uint8)
    s2 = CELL_SAMPLES * CELL_SAMPLES
    # the samples of a cell summed as integers (9 x 255 fits 16 bits), then one division
    sums = vals.reshape(len(xs), n * n, s2).sum(axis=2, dtype=np.uint16)
    means: NDArray[np.float64] = sums / float(s2)
    return means


def _cell_means(gray: NDArray[np.uint8], quads: NDArray[np.float64], n: int) -> NDArray[np.float64]:
    """(N, n*n) mean grey level at the middle of each cell of each quad."""
    return _means_at(gray, _sample_points(quads, n), n)


def _nudged_cell_means(gray: NDArray[np.uint8], quads: NDArray[np.float64], n: int,
                       scales: tuple[float, ...] = SCALES) -> NDArray[np.float64]:
    """(N*V, n*n) the cell means of every :func:`_nudged` version of each quad, in its order.

    A nudge scales and shifts the quad about its centre: an affine map of the image, so the
    nudged quad's homography is that map after the quad's, and its samples are the quad's
    samples moved by it (one homography per quad instead of one per version).
    """
    xy = _sample_points(quads, n)                                        # (N, P, 2)
    count, p = xy.shape[:2]
    # the samples are pixel-centre coordinates (0.5 less than the corners'): shift the centre alike
    c = quads.mean(axis=1).astype(np.float32) - np.float32(0.5)                        # (N, 2)
    scale = np.repeat(np.asarray(scales, np.float32), len(SHIFTS_PX) ** 2)[None, :, None]   # (1, V, 1)
    shift = np.array([(dx, dy) for dx in SHIFTS_PX for dy in SHIFTS_PX] * len(scales), np.float32)
    # centre + (sample - centre) * scale + shift, x and y each in one (N, V, P) array built in
    # place: the same sums in the same order as the broadcast over (N, V, P, 2), with rows of P
    # values for numpy's inner loops, and the maps OpenCV samples with, without copying them apart
    moved = []
    for k in range(2):
        m = np.multiply((xy[..., k] - c[:, k, None]).reshape(count, 1, p), scale)
        m += c[:, k, None, None]
        m += shift[None, :, k, None]
        moved.append(m.reshape(-1, p))
    return _means_of(gray, moved[0], moved[1], n)


@functools.lru_cache(maxsize=8)
def _inner_border(n: int) -> tuple[NDArray[np.intp], NDArray[np.intp]]:
    """Indices of the data cells and of the border cells of an n x n grid (row by row)."""
    grid = np.arange(n * n).reshape(n, n)
    inner = grid[1:-1, 1:-1].reshape(-1)
    return inner, np.setdiff1d(grid.reshape(-1), inner)


def _packed(bits: NDArray[np.uint8]) -> NDArray[np.uint64]:
    """(M,) each row of 0/1 cells (M, B), B <= 64, as the bits of one integer."""
    b = np.packbits(np.asarray(bits, np.uint8), axis=1, bitorder="little")
    b = np.pad(b, ((0, 0), (0, 8 - b.shape[1])))
    return np.ascontiguousarray(b).view(np.uint64)[:, 0]


def _code_distances(bits: NDArray[np.uint8], codes: NDArray[np.uint64]) -> NDArray[np.int64]:
    """(M, K) how many cells of each reading (M, B) differ from each code (K,) packed by :func:`_packed`:
    one XOR and bit count per pair, not B comparisons."""
    dist: NDArray[np.int64] = np.bitwise_count(_packed(bits)[:, None] ^ codes[None, :]).astype(np.int64)
    return dist


def _split(cells: NDArray[np.float64]
           ) -> tuple[NDArray[np.uint8], NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]:
    """Two-means split of each row of cell values: bits (1 = light), contrast, spread/gap, threshold."""
    lo = cells.min(axis=1, keepdims=True)
    hi = cells.max(axis=1, keepdims=True)
    t = (lo + hi) / 2
    last: NDArray[np.bool_] | None = None
    for _ in range(4):
        light = cells > t
        if last is not None and np.array_equal(light, last):
            # the same split as the pass before: its means and threshold again, to the bit (the
            # remaining passes would change nothing; most rows settle in one or two)
            break
        last = light
        n_light = light.sum(axis=1, keepdims=True)
        m_light = np.where(n_light > 0, (cells * light).sum(axis=1, keepdims=True) / np.maximum(n_light, 1), hi)
        n_dark = cells.shape[1] - n_light
        m_dark = np.where(n_dark > 0, (cells * ~light).sum(axis=1, keepdims=True) / np.maximum(n_dark, 1), lo)
        t = (m_light + m_dark) / 2
    bits = (cells > t).astype(np.uint8)
    gap = (m_light - m_dark)[:, 0]
    dev = np.abs(cells - np.where(bits > 0, m_light, m_dark))
    spread = np.sqrt((dev ** 2).mean(axis=1)) / np.maximum(gap, 1e-6)
    return bits, gap, spread, t[:, 0]


def _nudged(quads: NDArray[np.float64], scales: tuple[float, ...] = SCALES) -> NDArray[np.float64]:
    """(N, V, 4, 2) versions of each quad (N, 4, 2) shifted and scaled about its centre."""
    c = quads.mean(axis=1, keepdims=True)[:, None]                           # (N, 1, 1, 2)
    scale = np.repeat(np.asarray(scales, np.float64), len(SHIFTS_PX) ** 2)
    shift = np.array([(dx, dy) for dx in SHIFTS_PX for dy in SHIFTS_PX] * len(scales), np.float64)
    out: NDArray[np.float64] = c + (quads[:, None] - c) * scale[None, :, None, None] + shift[None, :, None, :]
    return out


def _promising(gray: NDArray[np.uint8], raw: NDArray[np.float64], n: int, inner: NDArray[np.intp],
               border: NDArray[np.intp], data_codes: NDArray[np.uint8], max_errors: int) -> NDArray[np.bool_]:
    """(N,) whether any first guess of a candidate (N, R, 4, 2), read roughly, comes near a code
    in play: only those are read in full (most candidates are texture, dice, terrain)."""
    cells = _cell_means(gray, raw.reshape(-1, 4, 2), n)
    bits, gap, _, t = _split(cells[:, inner])
    light = (cells[:, border] > t[:, None]).sum(axis=1)
    dist = _code_distances(bits, _packed(data_codes)).min(axis=1)
    ok = (gap >= 0.7 * MIN_CONTRAST) & (light <= 2 * MAX_LIGHT_BORDER_CELLS) & (dist <= max_errors + PRESCREEN_SLACK)
    promising: NDArray[np.bool_] = ok.reshape(raw.shape[0], raw.shape[1]).any(axis=1)
    return promising


#: A candidate read roughly (no nudge, no edge fit) may be this many cells farther from a
#: code in play than finally allowed, and still be read in full.
PRESCREEN_SLACK = 4


def side_lengths(quads: NDArray[np.float64]) -> NDArray[np.float64]:
    """Return the mean edge length of each quadrilateral (N, 4, 2) -> (N,)."""
    q = np.asarray(quads, dtype=np.float64).reshape(-1, 4, 2)
    # (np.linalg.norm's values, and np.roll's order, by their cheapest calls: this runs on every frame)
    sides: NDArray[np.float64] = vector_lengths(q - q[:, NEXT_CORNER]).mean(axis=1)
    return sides


def clockwise(quads: NDArray[np.float64]) -> NDArray[np.float64]:
    """Quads with their corners clockwise in the image (y down)."""
    q = np.asarray(quads, dtype=np.float64).reshape(-1, 4, 2)
    a, b, c = q[:, 0], q[:, 1], q[:, 2]
    cross = (b[:, 0] - a[:, 0]) * (c[:, 1] - b[:, 1]) - (b[:, 1] - a[:, 1]) * (c[:, 0] - b[:, 0])
    out: NDArray[np.float64] = np.where((cross < 0)[:, None, None], q[:, ::-1], q)
    return out


def raw_hypotheses(quads: NDArray[np.float64], cells: int, *, quiet_cells: float = 1.0) -> NDArray[np.float64]:
    """(N, R, 4, 2) first guesses of the black square for each candidate (clockwise corners).

    The candidate itself; the candidate as the paper's outline (shrunk by the quiet zone),
    and that outline grown by blur; and, for a figure or a finger over one corner, the
    candidate with each corner in turn replaced by the parallelogram of the other three.
    """
    q = clockwise(quads)
    c = q.mean(axis=1, keepdims=True)
    margin = cells / (cells + 2 * quiet_cells)
    out = [c + (q - c) * f for f in (1.0, margin, margin * BLUR_SHRINK)]
    for k in range(4):
        fixed = q.copy()
        fixed[:, k] = q[:, (k - 1) % 4] + q[:, (k + 1) % 4] - q[:, (k + 2) % 4]
        out.append(fixed)
    return np.stack(out, axis=1)


def hypotheses(gray: NDArray[np.uint8], raw: NDArray[np.float64], cells: int) -> NDArray[np.float64]:
    """(N, 2R, 4, 2) the first guesses ``raw`` (N, R, 4, 2), and each fitted to the square's edges."""
    flat = raw.reshape(-1, 4, 2)
    refined, ok = refine_corners_status(gray, flat, cells=cells, max_shift_modules=1.2)
    fitted = np.where(ok[:, None, None], refined, flat).reshape(raw.shape)
    return np.concatenate([fitted, raw], axis=1)


#: A paper outline smeared by motion blur is larger than the paper: also tried this much smaller.
BLUR_SHRINK = 0.85


def _in_play(dictionary: str, allowed_ids: Iterable[int]
             ) -> tuple[tuple[int, ...], int, tuple[NDArray[np.uint8], NDArray[np.int64], NDArray[np.int64]]]:
    """The ids in play (sorted), the cells across a marker (border included), their :func:`_codes`."""
    allowed = tuple(sorted({int(i) for i in allowed_ids}))
    return allowed, int(get_dictionary(dictionary).markerSize) + 2, _codes(dictionary, allowed)


def read_candidates(gray: NDArray[np.uint8], quads: NDArray[np.float64], dictionary: str,
                    allowed_ids: Iterable[int], *, max_errors: int = 1,
                    quiet_cells: float = 1.0, known_size: bool = False,
                    scales: tuple[float, ...] = SCALES, blurred: bool = False) -> Readings:
    """Read each candidate quad as one of ``allowed_ids`` (see the module's docstring).

    Parameters
    ----------
    gray : (H, W) uint8
    quads : (N, 4, 2) float
        Candidate outlines, image px, any corner order.
    dictionary : str
        The ArUco dictionary.
    allowed_ids : iterable of int
        The ids that can be on the table.
    max_errors : int
        Most data cells (inside the border) that may read wrong.
    quiet_cells : float
        Width of the white margin around the black square, in cells (a candidate may be
        the margin's outline).
    known_size : bool
        The candidates are already squares of the marker's size (:func:`known_size_squares`,
        :func:`ring_squares`, :func:`snapped_squares`): only they, their edge fits and (those
        whose rough reading is promising) the same squares aligned on the cells
        (:func:`align_squares`) are read, not the paper's or a blurred outline.

    scales : tuple of float
        The scales each hypothesis is also read at (see :data:`SCALES`; squares whose size
        the calibration gives may leave them out).
    blurred : bool
        With ``known_size``: the aligned squares that read as no id are also read as the
        codes in play seen through a motion blur (:func:`read_blurred`).

    Returns
    -------
    Readings
        One per candidate read (several candidates may give the same marker: see
        :func:`best_per_marker`).
    """
    allowed, n, (codes, owners, turns) = _in_play(dictionary, allowed_ids)
    q = np.asarray(quads, dtype=np.float64).reshape(-1, 4, 2)
    if not len(q) or not allowed:
        return Readings.empty()
    g = np.ascontiguousarray(gray)
    inner, border = _inner_border(n)
    raw = clockwise(q)[:, None] if known_size else raw_hypotheses(q, n, quiet_cells=quiet_cells)
    keep = _promising(g, raw, n, inner, border, codes[:, inner], max_errors)
    q, raw = q[keep], raw[keep]
    if not len(q):
        return Readings.empty()
    big = np.zeros(len(q), bool)
    if known_size:
        # a square of known size is only misplaced: also tried where its cells split cleanest
        # (a marker too small to read is not searched for: at hundreds of places, noise reads)
        big = side_lengths(raw[:, 0]) >= SEARCHED_MIN_SIDE_PX
        raw = np.concatenate([raw, np.where(big[:, None, None], align_squares(g, raw[:, 0], n), raw[:, 0])[:, None]],
                             axis=1)
    hyp = hypotheses(g, raw, n)                                        # (N, H, 4, 2)
    nh = hyp.shape[1]
    variants = _nudged(hyp.reshape(-1, 4, 2), scales)                 # (N*H, V, 4, 2)
    nv = variants.shape[1]
    cells = _nudged_cell_means(g, hyp.reshape(-1, 4, 2), n, scales)  # (N*H*V, n*n)
    best, d_best, score, spread = _judge(cells, codes, owners, n, max_errors)
    score = score.reshape(len(q), nh * nv)
    keep, picked = _picked(variants.reshape(-1, 4, 2), score, best, d_best, spread, owners, turns)
    more = Readings.empty()
    if blurred:
        # the aligned squares that read as no id, but as one within a few cells at some nudge
        near = d_best.reshape(len(q), nh * nv).min(axis=1) <= BLUR_GATE_CELLS
        more = read_blurred(g, raw[~keep & big & near, -1], dictionary, allowed)
    return Readings.concat([_edge_fitted(g, picked, n), more])


def _judge(cells: NDArray[np.float64], codes: NDArray[np.uint8], owners: NDArray[np.int64], n: int, max_errors: int
           ) -> tuple[NDArray[np.intp], NDArray[np.int64], NDArray[np.float64], NDArray[np.float64]]:
    """Read cell means (M, n*n) against the codes (K*4, n*n) of :func:`_codes`: the nearest code's
    row and its distance (data cells), each reading's rank (lower is better; infinite where it is
    not accepted, see the module's docstring) and its spread."""
    inner, border = _inner_border(n)
    # the data cells set the threshold (blur bleeds the light quiet zone into the border's
    # cells along its direction); the border must read dark against it, bar a few cells
    bits, gap, spread, t = _split(cells[:, inner])
    light_border = (cells[:, border] > t[:, None]).sum(axis=1)
    # each reading against each code: the differing cells, as bits (one XOR per pair, counted below)
    differ = _packed(bits)[:, None] ^ _packed(codes[:, inner])[None, :]   # (M, K*4)
    dist = np.bitwise_count(differ).astype(np.int64)
    best = dist.argmin(axis=1)
    rows = np.arange(len(dist))
    d_best = dist[rows, best]
    another = owners[None, :] != owners[best][:, None]
    # distance to the nearest code of another id
    other = np.where(another, dist, 10 ** 6).min(axis=1)
    # ... and counted on the cells that read surely dark or light only: a cell near the threshold (a
    # figure's grey over it) is no evidence, and where the split is loose another id in play must
    # still be as far on the others
    sure = _packed((np.abs(cells[:, inner] - t[:, None]) >= UNSURE_CELL * gap[:, None]).astype(np.uint8))
    sure_dist = np.bitwise_count(differ & sure[:, None]).astype(np.int64)
    sure_other = np.where(another, sure_dist, 10 ** 6).min(axis=1)
    good = ((d_best <= max_errors) & (other - d_best >= MIN_MARGIN) & (gap >= MIN_CONTRAST)
            & ((sure_other - sure_dist[rows, best] >= MIN_MARGIN) | (spread <= UNSURE_MAX_SPREAD))
            & (light_border <= MAX_LIGHT_BORDER_CELLS)
            & (spread <= np.where(d_best > 0, MAX_SPREAD_CORRECTED, MAX_SPREAD)))
    # rank each candidate's variants: fewest errors, then the cleanest border and split
    score = np.where(good, d_best + 0.25 * light_border + spread, np.inf)
    return best, d_best, score, spread


def _picked(variants: NDArray[np.float64], score: NDArray[np.float64], best: NDArray[np.intp],
            d_best: NDArray[np.int64], spread: NDArray[np.float64], owners: NDArray[np.int64],
            turns: NDArray[np.int64]) -> tuple[NDArray[np.bool_], Readings]:
    """Each candidate's best reading: ``score`` (N, V) ranks the V read versions of each of N
    candidates (``variants`` (N*V, 4, 2), judged by :func:`_judge`); which candidates read, and
    their readings (corners in OpenCV's order)."""
    pick = score.argmin(axis=1)
    keep = np.isfinite(score[np.arange(len(score)), pick])
    m = np.flatnonzero(keep) * score.shape[1] + pick[keep]
    r = turns[best[m]]
    corners = np.array([np.roll(variants[k], -int(t), axis=0)
                        for k, t in zip(m.tolist(), r.tolist())]).reshape(-1, 4, 2)
    return keep, Readings(corners, owners[best[m]].astype(np.int64), d_best[m].astype(np.int64),
                          spread[m].astype(np.float64))


def _edge_fitted(gray: NDArray[np.uint8], readings: Readings, n: int) -> Readings:
    """The readings with their corners fitted to the square's edges where those can be measured."""
    if not len(readings):
        return readings
    refined, ok = refine_corners_status(gray, readings.corners, cells=n, max_shift_modules=0.5)
    return replace(readings, corners=np.where(ok[:, None, None], refined, readings.corners))


#: :func:`read_in_place`: the alignment's steps (px) and turns (deg), and its most moves per step
#: (a square last frame's, within a few tenths of a pixel of the marker when it did not move).
IN_PLACE_STEPS_PX = (0.15,)
IN_PLACE_TURNS_DEG = (0.75,)
IN_PLACE_ROUNDS = 4


def _read_hypotheses(gray: NDArray[np.uint8], squares: NDArray[np.float64], n: int, codes: NDArray[np.uint8],
                     owners: NDArray[np.int64], turns: NDArray[np.int64], max_errors: int
                     ) -> tuple[NDArray[np.bool_], NDArray[np.bool_], Readings]:
    """Read squares (N, 4, 2) and their edge fits, each shifted by :data:`SHIFTS_PX`: which read,
    which come within :data:`BLUR_GATE_CELLS` of a code at some shift, and the readings."""
    one = (1.0,)
    hyp = hypotheses(gray, squares[:, None], n).reshape(-1, 4, 2)                   # (N*2, 4, 2)
    cells = _nudged_cell_means(gray, hyp, n, one)
    best, d_best, score, spread = _judge(cells, codes, owners, n, max_errors)
    per = score.shape[0] // len(squares)
    found, read = _picked(_nudged(hyp, one).reshape(-1, 4, 2), score.reshape(len(squares), per), best, d_best,
                          spread, owners, turns)
    return found, d_best.reshape(len(squares), per).min(axis=1) <= BLUR_GATE_CELLS, read


def read_in_place(gray: NDArray[np.uint8], squares: NDArray[np.float64], dictionary: str,
                  allowed_ids: Iterable[int], *, max_errors: int = 1, blurred: bool = False) -> Readings:
    """Read squares of the marker's known size (N, 4, 2) where a marker was last frame.

    What :func:`read_candidates` with ``known_size`` and one scale reads, for a fraction of its
    cost (a lost marker read in place, :meth:`tracker.pipeline.Tracker._read_in_place`): the
    start is last frame's place, within a few tenths of a pixel of the marker when it did not
    move, so the square is aligned on its cells by the finest steps only
    (:data:`IN_PLACE_STEPS_PX`), and read there and at its edge fit, each shifted by
    :data:`SHIFTS_PX`, against the codes in play (the same acceptance); only the squares that
    read as no id there are also read at the start and its edge fit. The readings' corners are
    fitted to the edges where they show; with ``blurred``, the aligned squares that read as no
    id but come near one are read by :func:`read_blurred`.
    """
    allowed, n, (codes, owners, turns) = _in_play(dictionary, allowed_ids)
    q = clockwise(np.asarray(squares, dtype=np.float64).reshape(-1, 4, 2))
    if not len(q) or not allowed:
        return Readings.empty()
    # (no rough first reading: the few squares here are where markers were, not texture's)
    g = np.ascontiguousarray(gray)
    big = side_lengths(q) >= SEARCHED_MIN_SIDE_PX
    aligned = q.copy()
    aligned[big] = align_squares(g, q[big], n, steps_px=IN_PLACE_STEPS_PX, turns_deg=IN_PLACE_TURNS_DEG,
                                 rounds=IN_PLACE_ROUNDS)
    # the aligned square and its edge fit (a marker lifted toward the camera reads in a square of
    # its old size, but its edges give its new one), then, where neither reads, the start and its fit
    # (both read at once: a second call cost more than reading the few starts the aligned
    # squares make needless; the start's readings are taken only where the aligned one reads as
    # no id, as if read after it)
    found, close, read = _read_hypotheses(g, np.concatenate([aligned, q]), n, codes, owners, turns, max_errors)
    keep, near = found[:len(q)], close[:len(q)].copy()
    rest = ~keep
    near[rest] |= close[len(q):][rest]
    which = np.flatnonzero(found)
    parts = [read.select(which < len(q)), read.select((which >= len(q)) & rest[which % len(q)])]
    keep = keep | (found[len(q):] & rest)
    more = read_blurred(g, aligned[~keep & big & near], dictionary, allowed) if blurred else Readings.empty()
    return Readings.concat([_edge_fitted(g, Readings.concat(parts), n), more])


#: How much darker than the mean around it (grey levels) ink must be, one pass per value.
INK_CONSTANTS = (25.0, 50.0)


def ink_squares(gray: NDArray[np.uint8], min_side_px: float, max_side_px: float, *,
                constants: tuple[float, ...] = INK_CONSTANTS) -> NDArray[np.float64]:
    """Candidate squares from dark blobs of a marker's size: (N, 4, 2) corners, image px.

    See :func:`ink_candidates` (here without the squares of known size).
    """
    return ink_candidates(gray, min_side_px, max_side_px, constants=constants)[0]


def ink_candidates(gray: NDArray[np.uint8], min_side_px: float, max_side_px: float, *,
                   constants: tuple[float, ...] = INK_CONSTANTS, sizes: MarkerSizes | None = None,
                   offset: tuple[float, float] = (0.0, 0.0)) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Candidate squares from dark blobs: those of a marker's size, and those of known size in
    larger blobs ((N, 4, 2) and (M, 4, 2) corners, image px).

    OpenCV's candidates are polygons fitted to thresholded outlines; motion blur rounds a
    small marker's corners and JPEG frays its edges until no four-sided polygon fits, and
    a figure touching the marker joins its outline. The blob of dark ink is still there:
    each dark connected region (darker than its surroundings' mean by each of
    ``constants``: a high one leaves out a grey figure or a shadow touching the black
    square) about a marker's size and roughly square is turned into its minimum-area
    rectangle. The reading (:func:`read_candidates`) decides what it is.

    With ``sizes`` (the marker's shape at each place of the image, from the calibration), a
    dark region that is no square because a figure, or its shadow, touches the marker also
    gives the squares of the marker's known size that fit its outline
    (:func:`known_size_squares`, read with ``known_size=True``); ``offset`` is where ``gray``
    lies in the image ``sizes`` describes (a crop's top-left corner).
    """
    g = np.ascontiguousarray(gray)
    block = max(3, int(2 * max_side_px) | 1)
    mean = cv2.blur(g, (block, block))
    lo, hi = 0.7 * min_side_px, 1.6 * max_side_px
    out = []
    joined: list[tuple[NDArray[np.uint8], tuple[int, int]]] = []     # regions joined to a figure or a shadow
    for constant in constants:
        # g < mean - constant, in uint8 (saturated at 0, where no pixel is darker): no int16 copies
        dark = np.asarray(cv2.compare(g, cv2.subtract(mean, np.full_like(mean, int(constant))), cv2.CMP_LT), np.uint8)
        n, labels, stats, _ = regions(dark)
        w, h, area = stats[:, cv2.CC_STAT_WIDTH], stats[:, cv2.CC_STAT_HEIGHT], stats[:, cv2.CC_STAT_AREA]
        size = np.maximum(w, h)
        big = hi * MERGED_BLOB_SIDES if sizes is not None else hi * 1.42
        pick = np.nonzero((size >= lo) & (size <= big) & (area >= 0.3 * lo * lo) & (area <= big * big))[0]
        for k in pick[pick > 0].tolist():
            x, y = int(stats[k, cv2.CC_STAT_LEFT]), int(stats[k, cv2.CC_STAT_TOP])
            blob = (labels[y:y + int(h[k]), x:x + int(w[k])] == k).astype(np.uint8)
            contours, _ = cv2.findContours(blob, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
            c = max(contours, key=len) + np.array([x, y], dtype=np.int32)
            (cx, cy), (a, b), angle = cv2.minAreaRect(c)
            square = lo <= max(a, b) <= hi and min(a, b) >= 0.7 * max(a, b) and cv2.contourArea(c) >= 0.6 * a * b
            if not square:
                if sizes is not None:
                    joined.append((blob, (x, y)))
                continue
            # contour points are pixel centres: the outline lies half a pixel further out
            out.append(cv2.boxPoints(((cx, cy), (a + 1.0, b + 1.0), angle)))
            if max(a, b) > 1.08 * min(a, b):
                # motion blur stretches the blob along the motion: the square is its short side
                side = min(a, b) + 1.0
                out.append(cv2.boxPoints(((cx, cy), (side, side), angle)))
    sized = known_size_squares(g, joined, sizes, offset) if sizes is not None and joined else []
    return (np.array(out, dtype=np.float64).reshape(-1, 4, 2), np.array(sized, dtype=np.float64).reshape(-1, 4, 2))


#: A dark region up to this many times the largest marker side across may be a marker
#: joined to a figure or a shadow (searched for squares of the known size, see ink_squares).
MERGED_BLOB_SIDES = 3.0


@dataclass(frozen=True)
class MarkerSizes:
    """How a base marker looks at each place of the image: the calibration's local maps.

    ``points_px`` (K, 2) are image points (base markers' places over the table) and
    ``jacobians`` (K, 2, 2) the image px moved per table mm there (at the markers' height);
    ``sides_mm`` are the marker sizes in play. A marker near ``points_px[k]`` is the square of
    side ``s`` in table mm, mapped by ``jacobians[k]``.
    """

    points_px: NDArray[np.float64]
    jacobians: NDArray[np.float64]
    sides_mm: tuple[float, ...]

    def jacobian_at(self, point_px: NDArray[np.float64]) -> NDArray[np.float64]:
        """The local map (2, 2) at the sample nearest ``point_px``."""
        k = int(np.argmin(np.linalg.norm(self.points_px - point_px[None], axis=1)))
        jac: NDArray[np.float64] = self.jacobians[k]
        return jac

    def jacobians_at(self, points_px: NDArray[np.float64]) -> NDArray[np.float64]:
        """The local maps (N, 2, 2) at the samples nearest each of ``points_px`` (N, 2)."""
        d = ((np.asarray(points_px, np.float64)[:, None] - self.points_px[None]) ** 2).sum(axis=2)
        jac: NDArray[np.float64] = self.jacobians[np.argmin(d, axis=1)]
        return jac


def known_size_squares(gray: NDArray[np.uint8], blobs: Sequence[tuple[NDArray[np.uint8], tuple[int, int]]],
                       sizes: MarkerSizes, offset: tuple[float, float] = (0.0, 0.0)) -> list[NDArray[np.float64]]:
    """Squares of a marker's known size that fit the outline of each dark region (clockwise corners).

    A figure standing on a white-disc top, or its shadow, touching the black square joins it
    in one dark region, whose outline is no square and fits no polygon. The marker's own
    sides are still most of the region's straight outline: in table mm (the local map from
    ``sizes``) the outline's gradient directions give the square's angle, and the square of
    known side lies against the region's extremes along those axes, at one of its four
    ends; these four squares (per marker size) are candidates (:func:`read_candidates`
    decides). ``blobs`` are the regions, each its mask and its top-left corner in ``gray``;
    ``offset`` is where ``gray`` lies in the image ``sizes`` describes. The squares come in the
    regions' order; the regions' angles come from one pass over all their outlines' gradients
    (a 4K frame has a hundred such regions, each a handful of small arrays), the same angles
    as one by one.
    """
    places = []
    for blob, (x, y) in blobs:
        h, w = blob.shape
        pad = 2
        x0, y0 = max(0, x - pad), max(0, y - pad)
        x1, y1 = min(gray.shape[1], x + w + pad), min(gray.shape[0], y + h + pad)
        mask = np.zeros((y1 - y0, x1 - x0), np.uint8)
        mask[y - y0:y - y0 + h, x - x0:x - x0 + w] = blob
        ring = cv2.dilate(mask, np.ones((3, 3), np.uint8)) > cv2.erode(mask, np.ones((3, 3), np.uint8))
        ys, xs = np.nonzero(mask)
        pts = np.stack([xs + x0, ys + y0], axis=1).astype(np.float64)
        centre = pts.mean(axis=0)
        jac = sizes.jacobian_at(centre + np.asarray(offset, np.float64))
        patch = gray[y0:y1, x0:x1].astype(np.float32)
        gx = cv2.Sobel(patch, cv2.CV_32F, 1, 0, ksize=3)[ring].astype(np.float64)
        gy = cv2.Sobel(patch, cv2.CV_32F, 0, 1, ksize=3)[ring].astype(np.float64)
        if np.any(gx) or np.any(gy):        # a flat patch has no angle
            places.append((pts, centre, jac, gx, gy))
    if not places:
        return []
    # the outlines one after the other
    row_of = np.repeat(np.arange(len(places)), [len(p[3]) for p in places])
    thetas = _quarter_angles(np.concatenate([p[3] for p in places]), np.concatenate([p[4] for p in places]),
                             np.array([p[2] for p in places]), row_of).tolist()
    out: list[NDArray[np.float64]] = []
    for (pts, centre, jac, _, _), theta in zip(places, thetas):
        rot = np.array([[math.cos(theta), -math.sin(theta)], [math.sin(theta), math.cos(theta)]])
        to_mm = np.linalg.inv(jac @ rot)                      # image px offsets -> square-aligned mm
        uv = (pts - centre) @ to_mm.T
        lo, hi = uv.min(axis=0) - 0.5 * np.abs(to_mm).sum(axis=1), uv.max(axis=0) + 0.5 * np.abs(to_mm).sum(axis=1)
        back = jac @ rot
        for side in sizes.sides_mm:
            if (hi - lo).max() < 0.8 * side or (hi - lo).min() < 0.6 * side:
                continue
            for u0 in {float(lo[0]), float(hi[0] - side)}:
                for v0 in {float(lo[1]), float(hi[1] - side)}:
                    sq = np.array([[u0, v0], [u0 + side, v0], [u0 + side, v0 + side], [u0, v0 + side]])
                    out.append(centre + sq @ back.T - 0.0)
    return out


def _quarter_angles(gx: NDArray[np.float64], gy: NDArray[np.float64], jac: NDArray[np.float64],
                    row_of: NDArray[np.intp] | None = None) -> NDArray[np.float64]:
    """(N,) the angle (radians, modulo a quarter turn) of a square's sides in table mm, from N
    sets of image gradients (N, P) and the local maps ``jac`` (N, 2, 2); or, with ``row_of``,
    from the gradients of all N sets one after the other (M,), ``row_of`` (M,) saying whose.

    An edge's normal in table mm is the image gradient through the transposed local map;
    the sides' normals, weighted by their strength, pile up at one angle modulo 90 deg.
    """
    n = len(jac)
    if row_of is None:
        nx = jac[:, 0, 0, None] * gx + jac[:, 1, 0, None] * gy
        ny = jac[:, 0, 1, None] * gx + jac[:, 1, 1, None] * gy
        row_of = np.repeat(np.arange(n), gx.shape[1])
    else:
        nx = jac[row_of, 0, 0] * gx + jac[row_of, 1, 0] * gy
        ny = jac[row_of, 0, 1] * gx + jac[row_of, 1, 1] * gy
    weight = np.hypot(nx, ny)
    quarter = (np.degrees(np.arctan2(ny, nx)) % 90.0).astype(np.int64) % 90
    hist = np.bincount(row_of * 90 + quarter.reshape(-1), weights=weight.reshape(-1), minlength=90 * n).reshape(n, 90)
    # the histogram summed over 7 degrees around each (circularly): slices of one wrapped copy
    # instead of seven rolled ones, added in the same order (the same sums)
    wrapped = np.concatenate([hist[:, -3:], hist, hist[:, :3]], axis=1)
    smooth = wrapped[:, 6:96].copy()
    for k in range(-2, 4):
        smooth += wrapped[:, 3 - k:93 - k]
    angles: NDArray[np.float64] = np.radians(np.argmax(smooth, axis=1) + 0.5)
    return angles


#: A marker is a dark square in a light frame (its paper's margin or a white-disc top): the
#: ring pass compares the mean grey of the square's middle (this fraction of its side) with
#: the mean of the frame around the square (out to this many sides: a one-cell margin).
RING_INNER = 0.7
RING_OUTER = 1.34
#: ... or with the mean of the black border, between the middle and the side (the place of a
#: marker whose data cells are mostly light: its middle is not dark)
#: ... at marker sides this many times apart, from the smallest to the largest one expected.
RING_SCALE_STEP = 1.2
#: The frame must be this much lighter than the middle (grey levels) for a place to be tried.
RING_CONTRAST = 25.0
#: Markers at least twice this side (px) are looked for on the image shrunk by an integer factor
#: (so 18 px markers, a 4K camera over a 120 cm table, on a half-size image: half the CPU of the pass).
RING_MIN_SIDE_PX = 9.0
#: Places closer than this fraction of the smallest side to a stronger one are one place.
RING_PEAK_SIDES = 0.6


def ring_squares(gray: NDArray[np.uint8], sizes: MarkerSizes, min_side_px: float, max_side_px: float,
                 offset: tuple[float, float] = (0.0, 0.0)) -> NDArray[np.float64]:
    """Squares of the marker's known size where a dark square sits in a light frame ((N, 4, 2)).

    Motion blur of a few pixels and JPEG leave a small marker's ink in pieces at any
    threshold (the light data cells bleed into the black border along the motion), and
    neither OpenCV's outlines nor the ink blobs give its square; on a dark top the blurred
    marker is not even darker than what is around it. Its paper's margin (or the white disc
    it is printed on) still frames it: box means give, at each place, the frame's mean grey
    minus the middle's (or minus the black border's, where that is darker: a marker whose
    data cells are mostly light has no dark middle, and the middle's place was 5 px off), for
    a few marker sides; the local maxima over
    :data:`RING_CONTRAST` are the places tried (the marker's centre within a pixel or two).
    The square's angle comes from the gradients there (:func:`_square_angles`), its size
    and shape from the calibration (``sizes``); :func:`read_candidates` with
    ``known_size=True`` decides (most places are texture, which its first rough reading
    leaves out). ``offset`` is where ``gray`` lies in the image ``sizes`` describes.
    """
    g = np.ascontiguousarray(gray)
    lo, hi = max(min_side_px / 0.7, 8.0), max(max_side_px / 1.5, min_side_px / 0.7)
    # box means need no detail finer than a cell: large markers are looked for on a smaller image
    shrink = max(1, int(lo // RING_MIN_SIDE_PX))
    small = (cv2.resize(g, (g.shape[1] // shrink, g.shape[0] // shrink), interpolation=cv2.INTER_AREA)
             if shrink > 1 else g)
    n_scales = 1 + max(0, int(math.ceil(math.log(hi / lo) / math.log(RING_SCALE_STEP))))
    # box means straight from the 8-bit image into float (its sums are exact either way): no
    # float copy of the image, and the same few buffers for every scale (a 4K frame's float
    # image is 33 MB, each new one paged in afresh)
    outer, square, inner, border, best = (np.empty(small.shape, np.float32) for _ in range(5))
    for k in range(n_scales):
        side = lo * RING_SCALE_STEP ** k / shrink
        k_in, k_mid, k_out = (max(3, int(round(side * r)) | 1) for r in (RING_INNER, 1.0, RING_OUTER))
        a_mid, a_out = float(k_mid * k_mid), float(k_out * k_out)
        # the frame's mean: the outer box's sum less the square's, over the frame's area
        cv2.boxFilter(small, cv2.CV_32F, (k_out, k_out), dst=outer)
        cv2.boxFilter(small, cv2.CV_32F, (k_mid, k_mid), dst=square)
        cv2.addWeighted(outer, a_out / (a_out - a_mid), square, -a_mid / (a_out - a_mid), 0.0, dst=outer)
        # against the middle, or against the black border alone (the square less its middle, never
        # below black), darker than the middle where most data cells are light
        cv2.boxFilter(small, cv2.CV_32F, (k_in, k_in), dst=inner)
        a_in = float(k_in * k_in)
        cv2.addWeighted(square, a_mid / (a_mid - a_in), inner, -a_in / (a_mid - a_in), 0.0, dst=border)
        np.maximum(border, 0.0, out=border)
        cv2.min(inner, border, dst=inner)
        if k == 0:
            cv2.subtract(outer, inner, dst=best)
        else:
            cv2.max(best, cv2.subtract(outer, inner, dst=inner), dst=best)
    peak = max(3, int(round(lo / shrink * RING_PEAK_SIDES)) | 1)
    ys, xs = _local_maxima_over(best, peak, RING_CONTRAST)
    if not len(xs):
        return np.zeros((0, 4, 2))
    # a pixel of the small image covers shrink x shrink pixels: its centre in the image
    centres = (np.stack([xs, ys], axis=1).astype(np.float64) + 0.5) * shrink - 0.5
    jac = sizes.jacobians_at(centres + np.asarray(offset, np.float64))        # (N, 2, 2)
    return _squares_at(centres, jac, _square_angles(g, centres, jac, int(math.ceil(lo * 0.6))), sizes.sides_mm)


#: A square of known size whose cells split cleanly (this spread at most) but whose border reads
#: light in more places than a marker's may (:data:`MAX_LIGHT_BORDER_CELLS`) lies off a marker ...
CELL_OFF_MAX_SPREAD = 0.2
#: ... by up to this many cells along each side.
CELL_OFF_MAX_CELLS = 2
#: Placed by the ring, such a square is also off the cells' grid: those that split this cleanly are
#: aligned first.
CELL_OFF_ROUGH_SPREAD = 0.35


def _spread_and_light(gray: NDArray[np.uint8], quads: NDArray[np.float64], cells: int
                      ) -> tuple[NDArray[np.float64], NDArray[np.int64]]:
    """(N,) how cleanly each square's data cells split into dark and light (:func:`_split`'s
    spread; infinite under :data:`MIN_CONTRAST`), and (N,) how many of its border cells read light."""
    return _spread_and_light_of(_cell_means(gray, quads, cells), cells)


def _spread_and_light_of(means: NDArray[np.float64], cells: int) -> tuple[NDArray[np.float64], NDArray[np.int64]]:
    """:func:`_spread_and_light` from the cell means (N, cells * cells)."""
    inner, border = _inner_border(cells)
    _, gap, spread, t = _split(means[:, inner])
    light: NDArray[np.int64] = (means[:, border] > t[:, None]).sum(axis=1)
    return np.where(gap >= MIN_CONTRAST, spread, np.inf), light


def cell_off_squares(gray: NDArray[np.uint8], squares: NDArray[np.float64], cells: int) -> NDArray[np.float64]:
    """For the squares (N, 4, 2) that seem to lie a cell or two off a marker, the same square moved
    along its sides by whole cells to where it looks like a marker ((M, 4, 2), clockwise corners).

    A figure over part of a marker's frame (its paper's margin, or its white-disc top), or the
    disc's dark rim touching the marker, darkens that side of the frame, and the ring pass's best
    place (:func:`ring_squares`) slides toward the light side by a cell or two: too far for
    :func:`align_squares`, which moves a square by a few tenths of a pixel a step. Aligned on the
    cells (those whose cells split roughly, :data:`CELL_OFF_ROUGH_SPREAD`), its grid then lies on
    the marker's cells (dark and light cells split cleanly) but rows or columns of the frame's
    paper read where the black border should (more light border cells than
    :data:`MAX_LIGHT_BORDER_CELLS`). Each such square is moved by up to :data:`CELL_OFF_MAX_CELLS`
    cells along each side; the move that splits cleanest with a dark border is kept, once per
    place (several of the ring's squares lie around one marker): on the realistic frames, 1-20
    squares a frame of the few hundred the ring gives, for 15-25 ms on a 4K frame.
    """
    q = clockwise(np.asarray(squares, np.float64).reshape(-1, 4, 2))
    if not len(q):
        return q
    spread, light = _spread_and_light(gray, q, cells)
    off = align_squares(gray, q[(spread <= CELL_OFF_ROUGH_SPREAD) & (light > MAX_LIGHT_BORDER_CELLS)], cells,
                        steps_px=ALIGN_STEPS_PX[:2], turns_deg=ALIGN_TURNS_DEG[:2], rounds=2)
    spread, light = _spread_and_light(gray, off, cells)
    off = off[(spread <= CELL_OFF_MAX_SPREAD) & (light > MAX_LIGHT_BORDER_CELLS)]
    if not len(off):
        return off
    u = (off[:, 1] - off[:, 0]) / cells
    v = (off[:, 3] - off[:, 0]) / cells
    k = CELL_OFF_MAX_CELLS
    moves = [(a, b) for a in range(-k, k + 1) for b in range(-k, k + 1) if a or b]
    # the cells of every move at once: those of the square grown by k cells on each side
    grown = np.stack([off[:, 0] - k * (u + v), off[:, 1] + k * (u - v), off[:, 2] + k * (u + v),
                      off[:, 3] - k * (u - v)], axis=1)
    m = cells + 2 * k
    grid = _cell_means(gray, grown, m).reshape(len(off), m, m)
    windows = np.stack([grid[:, k + b:k + b + cells, k + a:k + a + cells] for a, b in moves], axis=1)
    spread, light = _spread_and_light_of(windows.reshape(-1, cells * cells), cells)
    score = np.where((spread <= CELL_OFF_MAX_SPREAD) & (light <= MAX_LIGHT_BORDER_CELLS),
                     spread + LIGHT_BORDER_WEIGHT * light, np.inf).reshape(len(off), -1)
    best = score.argmin(axis=1)
    found = np.isfinite(score[np.arange(len(off)), best])
    rows = np.flatnonzero(found)
    a, b = np.array(moves, np.float64)[best[found]].T
    picked = off[rows] + (a[:, None] * u[rows] + b[:, None] * v[rows])[:, None]
    # one square per place (within half a cell), the cleanest
    centres, half_cell = picked.mean(axis=1), 0.5 * vector_lengths(u[rows])
    kept: list[int] = []
    for i in np.argsort(score[rows, best[found]], kind="stable").tolist():
        if not kept or vector_lengths(centres[kept] - centres[i]).min() >= half_cell[i]:
            kept.append(i)
    out: NDArray[np.float64] = picked[sorted(kept)]
    return out


def _local_maxima_over(values: NDArray[np.float32], size: int, floor: float,
                       tile: int = 32) -> tuple[NDArray[np.intp], NDArray[np.intp]]:
    """Rows and columns (row-major order, as ``np.nonzero``) of the pixels above ``floor`` that
    are the largest in the ``size`` x ``size`` square around them (ties included).

    The same as comparing ``values`` with its grey dilation, but the dilation is computed only
    on the runs of ``tile`` x ``tile`` blocks holding a pixel above ``floor`` (a few tenths of
    a 4K frame): the square around a block's pixels lies within the block grown by half the
    size, and the image's own border is treated as a whole-image dilation treats it.

    Examples
    --------
    >>> v = np.zeros((70, 90), np.float32); v[10, 20] = 30.0; v[12, 21] = 40.0; v[50, 80] = 30.0
    >>> [a.tolist() for a in _local_maxima_over(v, 5, 25.0)]
    [[12, 50], [21, 80]]
    """
    h, w = values.shape
    r = size // 2
    above = np.greater(values, floor).view(np.uint8)
    nh, nw = -(-h // tile), -(-w // tile)
    padded = cv2.copyMakeBorder(above, 0, nh * tile - h, 0, nw * tile - w, cv2.BORDER_CONSTANT, value=0)
    blocks = padded.reshape(nh, tile, nw * tile).max(axis=1).reshape(nh, nw, tile).max(axis=2) > 0
    kernel = np.ones((size, size), np.uint8)
    found_y: list[NDArray[np.intp]] = []
    found_x: list[NDArray[np.intp]] = []
    for i, row in enumerate(blocks):
        # runs of consecutive blocks in this row of blocks: one dilation each
        edges = np.diff(np.concatenate([[0], row.astype(np.int8), [0]]))
        y0, y1 = i * tile, min(h, (i + 1) * tile)
        for j0, j1 in zip(np.nonzero(edges > 0)[0].tolist(), np.nonzero(edges < 0)[0].tolist()):
            x0, x1 = j0 * tile, min(w, j1 * tile)
            py0, px0 = max(0, y0 - r), max(0, x0 - r)
            top = cv2.dilate(values[py0:min(h, y1 + r), px0:min(w, x1 + r)], kernel)
            core = values[y0:y1, x0:x1]
            ys, xs = np.nonzero((core >= top[y0 - py0:y1 - py0, x0 - px0:x1 - px0]) & (above[y0:y1, x0:x1] > 0))
            found_y.append(ys + y0)
            found_x.append(xs + x0)
    if not found_y:
        return np.zeros(0, np.intp), np.zeros(0, np.intp)
    ys, xs = np.concatenate(found_y), np.concatenate(found_x)
    order = np.lexsort((xs, ys))
    return ys[order], xs[order]


def _squares_at(centres: NDArray[np.float64], jac: NDArray[np.float64], theta: NDArray[np.float64],
                sides_mm: tuple[float, ...]) -> NDArray[np.float64]:
    """(N * len(sides_mm), 4, 2) the squares of each side (table mm) centred on ``centres`` (N, 2),
    turned by ``theta`` (N,) in table mm and mapped to the image by the local maps ``jac`` (N, 2, 2)."""
    cos, sin = np.cos(theta), np.sin(theta)
    back = jac @ np.stack([np.stack([cos, -sin], axis=1), np.stack([sin, cos], axis=1)], axis=1)
    out = []
    for side in sides_mm:
        h = side / 2.0
        unit = np.array([[-h, -h], [h, -h], [h, h], [-h, h]])
        out.append(centres[:, None] + np.einsum("nij,kj->nki", back, unit))
    return np.concatenate(out)


def _square_angles(gray: NDArray[np.uint8], centres: NDArray[np.float64], jac: NDArray[np.float64],
                   r: int) -> NDArray[np.float64]:
    """(N,) the angle (radians, modulo a quarter turn) of a square's sides in table mm around
    each of ``centres`` (N, 2), from the image gradients within ``r`` px (see :func:`known_size_squares`)."""
    d = np.arange(-r - 1, r + 2)
    xs = np.clip(np.rint(centres[:, 0]).astype(np.int64)[:, None, None] + d[None, None, :], 0, gray.shape[1] - 1)
    ys = np.clip(np.rint(centres[:, 1]).astype(np.int64)[:, None, None] + d[None, :, None], 0, gray.shape[0] - 1)
    win = gray[ys, xs].astype(np.float32)                                    # (N, 2r+3, 2r+3)
    # central differences inside each window (the Sobel of one patch per place)
    ax = (win[:, 1:-1, 2:] - win[:, 1:-1, :-2]).reshape(len(centres), -1)
    ay = (win[:, 2:, 1:-1] - win[:, :-2, 1:-1]).reshape(len(centres), -1)
    return _quarter_angles(ax.astype(np.float64), ay.astype(np.float64), jac)


#: Squares placed by a search (:func:`align_squares`, the blurred markers' places) must be at
#: least this many px across: a pattern of 8-14 px read at every place tried found an id in
#: play where no marker was (on a dev scene whose markers are 8 px across).
SEARCHED_MIN_SIDE_PX = 14.4
#: :func:`align_squares`: the steps (px) and turns (deg) of its search, coarse to fine.
ALIGN_STEPS_PX = (0.6, 0.3, 0.15)
ALIGN_TURNS_DEG = (3.0, 1.5, 0.75)
#: Where the cells split cleanest (:func:`align_squares`, :func:`cell_off_squares`): the spread,
#: plus this much per border cell that reads light.
LIGHT_BORDER_WEIGHT = 0.05


def align_squares(gray: NDArray[np.uint8], quads: NDArray[np.float64], cells: int, *,
                  steps_px: tuple[float, ...] = ALIGN_STEPS_PX, turns_deg: tuple[float, ...] = ALIGN_TURNS_DEG,
                  rounds: int = 3) -> NDArray[np.float64]:
    """Each square (N, 4, 2) moved and turned (not scaled) to where its cells split cleanest.

    A square of the marker's known size placed from a blob's or an outline's centre is off
    by a pixel or so, and a blurred 16 px marker reads right only within a few tenths of a
    pixel of its place. A pattern search (steps of ``steps_px`` in x and y, turns of
    ``turns_deg``, coarse to fine, at most ``rounds`` moves per step) lowers the spread of
    the data cells around their dark and light means (:func:`_split`, plus a little per
    light border cell): the place where the grid lies on the cells.
    """
    q = np.asarray(quads, dtype=np.float64).reshape(-1, 4, 2).copy()
    if not len(q):
        return q
    inner, border = _inner_border(cells)

    def score(qs: NDArray[np.float64]) -> NDArray[np.float64]:
        c = _cell_means(gray, qs.reshape(-1, 4, 2), cells)
        _, gap, spread, t = _split(c[:, inner])
        light = (c[:, border] > t[:, None]).sum(axis=1)
        out: NDArray[np.float64] = spread + LIGHT_BORDER_WEIGHT * light + np.where(gap < MIN_CONTRAST, 1.0, 0.0)
        return out

    best: NDArray[np.float64] | None = None
    for step, turn in zip(steps_px, turns_deg):
        moves = [(step, 0.0, 0.0), (-step, 0.0, 0.0), (0.0, step, 0.0), (0.0, -step, 0.0),
                 (0.0, 0.0, turn), (0.0, 0.0, -turn)]
        turned = [np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]]).T
                  for a in (math.radians(da) for _, _, da in moves)]
        # only the squares that moved in a round are tried again: one that did not would be
        # scored on the same versions and stay where it is (the same answers, fewer scores)
        active = np.arange(len(q))
        for _ in range(rounds):
            qa = q[active]
            c = qa.mean(axis=1, keepdims=True)
            # (the product with an unturned move's identity matrix is the square itself, to the bit)
            d = qa - c
            tried = [c + (d @ rot if da else d) + (dx, dy) for (dx, dy, da), rot in zip(moves, turned)]
            if best is None:
                # the start scored with the first round's versions (one reading of the image)
                s = score(np.stack([qa, *tried], axis=1)).reshape(len(qa), len(moves) + 1)
                best, s = s[:, 0].copy(), s[:, 1:]
            else:
                s = score(np.stack(tried, axis=1)).reshape(len(qa), len(moves))
            versions = np.stack(tried, axis=1)                               # (A, M, 4, 2)
            rows = np.arange(len(qa))
            k = s.argmin(axis=1)
            better = s[rows, k] < best[active]
            if not better.any():
                break
            active = active[better]
            q[active] = versions[rows, k][better]
            best[active] = s[rows, k][better]
    return q


def snapped_squares(quads: NDArray[np.float64], sizes: MarkerSizes) -> NDArray[np.float64]:
    """Each candidate quad (N, 4, 2) turned into the square of the marker's known size at its
    centre and angle ((N * sizes, 4, 2), clockwise corners).

    A blurred marker's outline, as OpenCV or the ink masks trace it, is the marker grown
    and skewed along the motion: its centre and its sides' angle are still the marker's
    (the blur is symmetric) while its corners are not. The angle is the sides' mean angle
    modulo a quarter turn, in table mm (the local map from ``sizes``).

    >>> sizes = MarkerSizes(np.zeros((1, 2)), np.array([[[2.0, 0.0], [0.0, 2.0]]]), (12.0,))   # 2 px per mm
    >>> stretched = np.array([[[10.0, 10.0], [34.0, 10.0], [34.0, 40.0], [10.0, 40.0]]])   # blurred along y
    >>> snapped_squares(stretched, sizes).tolist()
    [[[10.0, 13.0], [34.0, 13.0], [34.0, 37.0], [10.0, 37.0]]]
    """
    q = clockwise(np.asarray(quads, dtype=np.float64).reshape(-1, 4, 2))
    if not len(q):
        return np.zeros((0, 4, 2))
    centres = q.mean(axis=1)
    jac = sizes.jacobians_at(centres)                                         # (N, 2, 2)
    mm = np.einsum("nij,nkj->nki", np.linalg.inv(jac), q - centres[:, None])  # (N, 4, 2)
    edges = np.roll(mm, -1, axis=1) - mm
    ang = np.arctan2(edges[..., 1], edges[..., 0])
    w = np.linalg.norm(edges, axis=2)
    theta = np.arctan2((w * np.sin(4 * ang)).sum(axis=1), (w * np.cos(4 * ang)).sum(axis=1)) / 4
    return _squares_at(centres, jac, theta, sizes.sides_mm)


def best_per_marker(readings: Readings, min_distance_px: float | None = None) -> Readings:
    """One reading per id and per place: the one with fewest errors wins.

    Two readings of different ids whose centres are closer than half a marker side are the
    same square read two ways; both are dropped (a wrong id costs more than a miss) unless
    one has strictly fewer errors.
    """
    if not len(readings):
        return readings
    c = readings.corners
    centres = c.mean(axis=1)
    sides = np.linalg.norm(c - np.roll(c, -1, axis=1), axis=2).mean(axis=1)
    order = np.lexsort((-sides, readings.errors))
    chosen: list[int] = []
    dropped: set[int] = set()
    for k in order.tolist():
        near = min_distance_px if min_distance_px is not None else sides[k] / 2
        clash = [j for j in chosen if np.linalg.norm(centres[j] - centres[k]) < near]
        same_id = [j for j in chosen if readings.ids[j] == readings.ids[k]]
        if same_id:
            continue
        if clash:
            if any(readings.errors[j] == readings.errors[k] and readings.ids[j] != readings.ids[k] for j in clash):
                dropped.update(clash)
            continue
        chosen.append(k)
    keep = [k for k in chosen if k not in dropped]
    idx = np.array(sorted(keep), dtype=np.int64)
    return Readings(readings.corners[idx], readings.ids[idx], readings.errors[idx], readings.spread[idx])


# --------------------------------------------------------------------------------------
# Blurred markers read by fitting blurred codes

#: A square of known size whose cells do not split cleanly is also read as the codes in play
#: seen through a motion blur: each code, blurred along :data:`BLUR_ANGLES_DEG` (in the
#: marker's own frame) over :data:`BLUR_LENGTHS_CELLS` (and a little defocus), is fitted to
#: the grey levels of the square and a margin around it.
BLUR_LENGTHS_CELLS = (0.5, 1.0, 1.5, 2.0)
BLUR_ANGLES_DEG = tuple(range(0, 180, 15))
BLUR_DEFOCUS_CELLS = 0.35
#: Patch px per cell of the blurred codes, and the margin sampled around the square (cells).
BLUR_CELL_PX = 3
BLUR_MARGIN_CELLS = 0.5
#: The best code's fit must leave at most this fraction of the grey levels' variance, and
#: the best code of every other id in play at least this many times as much. Measured with a
#: first version of the fit on the stress set, the realistic renders and the dev scenes
#: (3,600 squares): every square whose best id fitted at least 1.9 times better than any
#: other was that marker at its place; the one place that was no marker fitted 1.7 times
#: better, with a margin as dark as the ink (:data:`BLUR_MIN_MARGIN_CONTRAST`).
BLUR_MAX_RESIDUAL = 0.2
BLUR_MIN_RATIO = 2.5
#: Squares whose fit, where they lie, is not this much better than another id's are not
#: searched further (most places are texture: about one in forty passes).
BLUR_GATE_RATIO = 1.3
#: ... and only squares whose cells, split plainly at some nudge, are this many cells or
#: fewer from a code in play are fitted at all.
BLUR_GATE_CELLS = 2
#: The margin's grey (paper) must stand above the ink by this fraction of the light cells'.
BLUR_MIN_MARGIN_CONTRAST = 0.5
#: The place search: steps (px), turns (deg) at the last step.
BLUR_STEPS_PX = (0.6, 0.3)
BLUR_TURN_DEG = 2.0


def _line_psf(length_cells: float, angle_deg: float) -> NDArray[np.float32]:
    """A motion blur kernel (a line, anti-aliased, then a little defocus) in patch px, summing to 1."""
    s = BLUR_CELL_PX
    size = 4 * s + 1
    k = np.zeros((size, size), np.float32)
    c = size // 2
    half = length_cells * s / 2.0
    a = math.radians(angle_deg)
    for t in np.linspace(-half, half, max(1, int(half * 8)) + 1):
        x, y = c + t * math.cos(a), c + t * math.sin(a)
        x0, y0 = int(math.floor(x)), int(math.floor(y))
        fx, fy = x - x0, y - y0
        k[y0:y0 + 2, x0:x0 + 2] += np.array([[(1 - fx) * (1 - fy), fx * (1 - fy)], [(1 - fx) * fy, fx * fy]],
                                            np.float32)
    smooth = cv2.GaussianBlur(k, (0, 0), BLUR_DEFOCUS_CELLS * s)
    out: NDArray[np.float32] = (smooth / smooth.sum()).astype(np.float32)
    return out


@functools.lru_cache(maxsize=4)
def _blur_bases(cells: int) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """(H, P, D + 2) the blurred image of each data cell (lit), of the margin, and a constant, at
    P sample points, for each blur; (P, 2) the sample points in the marker's unit square.

    The marker is drawn in a patch of :data:`BLUR_CELL_PX` px per cell with two cells around
    it; the border cells are ink (the constant's level), the margin is paper (its own level).
    """
    s, pad = BLUR_CELL_PX, 2
    w = (cells + 2 * pad) * s
    lo = int(round((pad - BLUR_MARGIN_CELLS) * s))
    hi = w - lo
    drawn = []
    for r in range(1, cells - 1):
        for c in range(1, cells - 1):
            im = np.zeros((w, w), np.float32)
            im[(pad + r) * s:(pad + r + 1) * s, (pad + c) * s:(pad + c + 1) * s] = 1.0
            drawn.append(im)
    margin = np.ones((w, w), np.float32)
    margin[pad * s:(pad + cells) * s, pad * s:(pad + cells) * s] = 0.0
    drawn.append(margin)
    kernels = [_line_psf(0.0, 0.0)] + [_line_psf(n, a) for n in BLUR_LENGTHS_CELLS for a in BLUR_ANGLES_DEG]
    bases = np.array([np.stack([cv2.filter2D(im, -1, k, borderType=cv2.BORDER_REPLICATE)[lo:hi, lo:hi].reshape(-1)
                                for im in drawn] + [np.ones((hi - lo) ** 2, np.float32)], axis=1)
                      for k in kernels], np.float64)
    bases[np.abs(bases) < 1e-6] = 0.0       # the kernels' far tails: subnormal products slow every fit down
    u = ((np.arange(lo, hi) + 0.5) / s - pad) / cells
    vv, uu = np.meshgrid(u, u, indexing="ij")
    return bases, np.stack([uu, vv], axis=-1).reshape(-1, 2)


@functools.lru_cache(maxsize=16)
def _blur_models(dictionary: str, ids: tuple[int, ...]) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """(P, H * (D + 2)) the bases side by side, and (H, K, 3, 3) the inverse normal matrices of the
    fit of each code (lit data cells, margin, constant) under each blur.

    Built once per process and set of ids: a thread asking while another builds them (see
    :func:`prepare_blurred_reading`) waits for those instead of building them a second time.
    """
    with _BLUR_MODELS_LOCK:
        return _built_blur_models(dictionary, ids)


_BLUR_MODELS_LOCK = threading.Lock()


@functools.lru_cache(maxsize=16)
def _built_blur_models(dictionary: str, ids: tuple[int, ...]) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """:func:`_blur_models`, built."""
    codes = _codes(dictionary, ids)[0]
    n = int(round(math.sqrt(codes.shape[1])))
    bases, _ = _blur_bases(n)
    lit = codes[:, _inner_border(n)[0]].astype(np.float64)
    gram = np.einsum("hpk,hpl->hkl", bases, bases)
    v = np.zeros((len(lit), 3, bases.shape[2]))
    v[:, 0, :-2], v[:, 1, -2], v[:, 2, -1] = lit, 1.0, 1.0
    inv = np.linalg.inv(np.einsum("kai,hij,kbj->hkab", v, gram, v) + 1e-9 * np.eye(3))
    return bases.transpose(1, 0, 2).reshape(bases.shape[1], -1), inv


@functools.lru_cache(maxsize=32)
def _blur_design(dictionary: str, ids: tuple[int, ...], row: int) -> NDArray[np.float64]:
    """(P, H * 3) one code's (``row`` of :func:`_codes`) images under each blur: its lit data cells,
    the margin, the constant. Made once per code (read-only): :func:`_blur_place` fits the same
    code to a square's moves a dozen times, and making it cost more than each fit."""
    codes = _codes(dictionary, ids)[0]
    n = int(round(math.sqrt(codes.shape[1])))
    bases, pts = _blur_bases(n)
    lit = codes[row, _inner_border(n)[0]].astype(np.float64)
    design = np.concatenate([np.einsum("hpi,i->hp", bases[..., :-2], lit)[..., None], bases[..., -2:]], axis=2)
    out = np.ascontiguousarray(design.transpose(1, 0, 2)).reshape(len(pts), -1)
    out.flags.writeable = False
    return out


def _blur_fit(gray: NDArray[np.uint8], quads: NDArray[np.float64], dictionary: str, ids: tuple[int, ...],
              rows: NDArray[np.intp] | None = None) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """(M, K) the residual of the best blurred fit of each code (or of the codes ``rows`` only) to
    each square (M, 4, 2), as a fraction of the grey levels' variance there; (M, K, 3) its
    levels (lit cells over ink, margin over ink, ink)."""
    flat, inv = _blur_models(dictionary, ids)
    codes = _codes(dictionary, ids)[0]
    n = int(round(math.sqrt(codes.shape[1])))
    bases, pts = _blur_bases(n)
    nh, nb = bases.shape[0], bases.shape[2]
    lit = codes[:, _inner_border(n)[0]].astype(np.float64)
    if rows is not None:
        lit, inv = lit[rows], inv[:, rows]
    hom = _homographies(quads).astype(np.float32)
    p = np.concatenate([pts, np.ones((len(pts), 1))], axis=1).astype(np.float32)
    mapped = np.matmul(p[None], hom.transpose(0, 2, 1))
    xy = mapped[..., :2] / mapped[..., 2:3] - np.float32(0.5)
    y = cv2.remap(gray, np.ascontiguousarray(xy[..., 0]), np.ascontiguousarray(xy[..., 1]), cv2.INTER_LINEAR,
                  borderMode=cv2.BORDER_REPLICATE).astype(np.float64)                     # (M, P)
    # einsum, not matmul: BLAS threads spin on products this small (3-20 times the CPU time)
    xty = np.empty((len(y), nh, len(lit), 3))
    if len(lit) == 1:
        # one code: its three images under each blur first (a sixth of the products)
        row = int(rows[0]) if rows is not None else 0
        xty[:, :, 0] = np.einsum("mp,pk->mk", y, _blur_design(dictionary, ids, row)).reshape(len(y), nh, 3)
    else:
        bty = np.einsum("mp,pk->mk", y, flat).reshape(len(y), nh, nb)
        xty[..., 0] = np.einsum("mhi,ki->mhk", bty[..., :-2], lit)
        xty[..., 1] = bty[..., -2:-1]
        xty[..., 2] = bty[..., -1:]
    # the residual is y.y less the fitted part, xty' inv xty (inv symmetric: written out)
    x0, x1, x2, i = xty[..., 0], xty[..., 1], xty[..., 2], inv[None]
    fitted = (x0 * (i[..., 0, 0] * x0 + 2 * i[..., 0, 1] * x1 + 2 * i[..., 0, 2] * x2)
              + x1 * (i[..., 1, 1] * x1 + 2 * i[..., 1, 2] * x2) + x2 * i[..., 2, 2] * x2)
    res = (y * y).sum(axis=1)[:, None, None] - fitted                                      # (M, H, K)
    var = np.maximum(((y - y.mean(axis=1, keepdims=True)) ** 2).sum(axis=1), 1e-9)
    h = res.argmin(axis=1)                                                                # (M, K)
    picked = np.take_along_axis(xty, h[:, None, :, None], axis=1)[:, 0]                   # (M, K, 3)
    levels = np.einsum("mkab,mkb->mka", inv[h, np.arange(len(lit))[None]], picked)
    out: NDArray[np.float64] = res.min(axis=1) / var[:, None]
    return out, levels


def _blur_place(gray: NDArray[np.uint8], quad: NDArray[np.float64], dictionary: str, ids: tuple[int, ...],
                row: int) -> NDArray[np.float64]:
    """The square (4, 2) moved and turned (not scaled) to where the blurred code ``row`` fits best."""
    q = quad
    best = _blur_fit(gray, q[None], dictionary, ids, np.array([row]))[0][0, 0]
    for step in BLUR_STEPS_PX:
        turns = (-BLUR_TURN_DEG, 0.0, BLUR_TURN_DEG) if step == BLUR_STEPS_PX[-1] else (0.0,)
        for _ in range(3):
            c = q.mean(axis=0)
            tried = []
            for da in turns:
                a = math.radians(da)
                rot = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])
                tried += [c + (q - c) @ rot.T + (dx, dy) for dx in (-step, 0.0, step) for dy in (-step, 0.0, step)
                          if dx or dy or da]
            res = _blur_fit(gray, np.array(tried), dictionary, ids, np.array([row]))[0][:, 0]
            j = int(res.argmin())
            if res[j] >= best:
                break
            q, best = tried[j], float(res[j])
    return q


def prepare_blurred_reading(dictionary: str, allowed_ids: Iterable[int]) -> None:
    """Build, on a thread of its own, the blurred codes :func:`read_blurred` fits the ids in play to.

    They take about a tenth of a second of CPU, once per process and set of ids: built on
    the first blurred square instead, they made that tracking frame's search around lost
    markers the slowest of a sequence (140 ms). The tracker calls this when it takes a
    calibration, ``locate`` when its bare-base search ends before the marker scan; the codes
    are the same either way.
    """
    allowed = tuple(sorted({int(i) for i in allowed_ids}))
    if allowed:
        threading.Thread(target=_blur_models, args=(dictionary, allowed), daemon=True, name="blurred-codes").start()


def read_blurred(gray: NDArray[np.uint8], quads: NDArray[np.float64], dictionary: str,
                 allowed_ids: Iterable[int]) -> Readings:
    """Read squares of the marker's known size (N, 4, 2) as the codes in play seen through a blur.

    A 16 px marker under a 3-5 px motion blur has cells of under 3 px smeared over one or
    two cells: its light cells bleed into the border and the quiet zone into the border's
    cells along the motion, and split into dark and light (:func:`read_candidates`) it
    reads a cell or two wrong, or with half its border light, although the right code,
    blurred the same way, matches it closely. Each code in play is blurred along
    :data:`BLUR_ANGLES_DEG` over :data:`BLUR_LENGTHS_CELLS` (a linear model: the grey levels are
    ink plus the lit cells' and the margin's blurred images, each level free) and fitted by
    least squares to the grey levels of the square and half a cell around it. The square
    is moved (a few tenths of a pixel, a degree or two) to where the best code fits best,
    then the reading is accepted when that code leaves little of the variance
    (:data:`BLUR_MAX_RESIDUAL`), every other id's best code leaves :data:`BLUR_MIN_RATIO`
    times as much, and the margin is light (:data:`BLUR_MIN_MARGIN_CONTRAST`). ``errors``
    are the data cells the plain split reads wrong there.
    """
    allowed = tuple(sorted({int(i) for i in allowed_ids}))
    q = clockwise(np.asarray(quads, dtype=np.float64).reshape(-1, 4, 2))
    if not len(q) or not allowed:
        return Readings.empty()
    g = np.ascontiguousarray(gray)
    _, owners, turns = _codes(dictionary, allowed)
    res, _ = _blur_fit(g, q, dictionary, allowed)
    best = res.argmin(axis=1)
    other = np.where(owners[None, :] != owners[best][:, None], res, np.inf).min(axis=1)
    ratio = other / np.maximum(res[np.arange(len(q)), best], 1e-9)
    out_c, out_i, out_e, out_s = [], [], [], []
    done: list[NDArray[np.float64]] = []
    n = int(get_dictionary(dictionary).markerSize) + 2
    inner, _ = _inner_border(n)
    codes = _codes(dictionary, allowed)[0]
    for k in np.argsort(-ratio).tolist():
        centre = q[k].mean(axis=0)
        if ratio[k] < BLUR_GATE_RATIO or any(np.linalg.norm(centre - d) < 2.0 for d in done):
            continue
        done.append(centre)
        placed = _blur_place(g, q[k], dictionary, allowed, int(best[k]))
        r, levels = _blur_fit(g, placed[None], dictionary, allowed)
        b = int(r[0].argmin())
        other_b = float(np.where(owners != owners[b], r[0], np.inf).min())
        gain, margin = float(levels[0, b, 0]), float(levels[0, b, 1])
        if not (r[0, b] <= BLUR_MAX_RESIDUAL and other_b >= BLUR_MIN_RATIO * r[0, b]
                and gain >= MIN_CONTRAST and margin >= BLUR_MIN_MARGIN_CONTRAST * gain):
            continue
        cells = _cell_means(g, placed[None], n)
        bits, _, spread, _ = _split(cells[:, inner])
        out_c.append(np.roll(placed, -int(turns[b]), axis=0))
        out_i.append(int(owners[b]))
        out_e.append(int((bits[0] != codes[b, inner]).sum()))
        out_s.append(float(spread[0]))
    if not out_c:
        return Readings.empty()
    return Readings(np.array(out_c), np.array(out_i, np.int64), np.array(out_e, np.int64), np.array(out_s))
