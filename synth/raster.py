"""Exact ray casting of simple solids into a supersampled, z-buffered canvas.

Every supersampled pixel carries the ray of its centre, undistorted through the
camera's lens model; each primitive (a textured plane region, a vertical cylinder
wall, a capsule, a vertical wall quad) is intersected analytically with those rays.
The nearest hit wins (z-buffer on the camera depth), so occlusion is exact, and the
lens distortion is exact by construction (no image warp). Downsampling the canvas
with ``INTER_AREA`` gives anti-aliased edges whose positions are exact to a small
fraction of a pixel.

Internal module of :mod:`synth`; the core trusts its callers' types.
"""

from __future__ import annotations

import math
import functools
from typing import Any, Callable, TypeVar

import cv2
import numpy as np

from synth.camera import CameraModel

GRID_STEP_PX = 8  # the lens undistortion is computed exactly every 8 pixels, then interpolated (Catmull-Rom)
LIGHT = np.array([-0.35, -0.45, -1.0]) / np.linalg.norm([-0.35, -0.45, -1.0])  # toward the light, table frame
AMBIENT = 0.45

_F = TypeVar("_F", bound=Callable[..., Any])


def _quiet(func: _F) -> _F:
    """Run ``func`` with numpy's floating-point warnings off: rays that miss give nan/inf by design."""
    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        with np.errstate(all="ignore"):
            return func(*args, **kwargs)
    return wrapper  # type: ignore[return-value]


BBox = tuple[int, int, int, int]  # x0, x1, y0, y1 in supersampled pixels (half-open)
Shader = Callable[[np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray]]


class RayGrid:
    """The camera's lens undistortion, sampled exactly on a coarse pixel grid.

    Rays for any block of supersamples are interpolated bicubically from the grid
    (the undistortion map is smooth: the interpolation error is far below 1e-3 px),
    so the cost of casting rays is proportional to the area drawn, not to the image.

    The ``ss x ss`` supersamples of an output pixel sit on a sheared grid (an "n-rooks"
    pattern): sample ``(k, l)`` (column, row) lies at ``((k*ss + l + 0.5)/ss**2,
    (l*ss + k + 0.5)/ss**2)`` inside the pixel, so the ``ss**2`` samples take ``ss**2``
    distinct x and y positions and a table-aligned edge is located to ``1/ss**2`` px,
    not ``1/ss``. Their mean is the pixel centre, so ``INTER_AREA`` downsampling is exact.
    """

    def __init__(self, camera: CameraModel, ss: int) -> None:
        self.camera = camera
        self.ss = ss
        w, h = camera.image_size
        k = camera.matrix
        self.distorted = bool(np.any(camera.distortion))
        self.fx, self.fy, self.cx, self.cy = k[0, 0], k[1, 1], k[0, 2], k[1, 2]
        if self.distorted:
            g, pad = GRID_STEP_PX, 2
            self.origin = g / 2 - 0.5 - pad * g
            nx, ny = math.ceil(w / g) + 2 * pad + 1, math.ceil(h / g) + 2 * pad + 1
            gu, gv = np.meshgrid(self.origin + g * np.arange(nx), self.origin + g * np.arange(ny))
            norm = camera.normalized_rays(np.column_stack([gu.ravel(), gv.ravel()]))
            self.grid = (norm[:, 0].reshape(ny, nx), norm[:, 1].reshape(ny, nx))

    def _interp(self, u0: float, v0: float, nu: int, nv: int, step: float) -> tuple[np.ndarray, np.ndarray]:
        """Catmull-Rom interpolation of both grids at output coords ``u0 + step*i``, ``v0 + step*j``.

        Separable, four taps per axis (OpenCV's ``resize`` quantizes its cubic weights,
        which costs tenths of a pixel here).
        """
        g = GRID_STEP_PX
        cu = (u0 + step * np.arange(nu) - self.origin) / g
        cv = (v0 + step * np.arange(nv) - self.origin) / g
        iu, wu = _cubic_taps(cu, self.grid[0].shape[1])
        iv, wv = _cubic_taps(cv, self.grid[0].shape[0])
        a0, a1 = int(iu.min()), int(iu.max()) + 1
        out = []
        for grid in self.grid:
            rows = np.einsum("ik,ikj->ij", wv, grid[iv, a0:a1])  # (nv, a1 - a0)
            out.append(np.einsum("jk,ijk->ij", wu, rows[:, iu - a0]))  # (nv, nu)
        return out[0], out[1]

    def output_pixels(self) -> tuple[np.ndarray, np.ndarray]:
        """Normalized coordinates of every output pixel centre, (H, W) each.

        For textures only (the mat): interpolated with OpenCV's fast bicubic resize,
        good to a few tenths of a pixel, where :meth:`block` is exact.
        """
        w, h = self.camera.image_size
        if not self.distorted:
            xn = np.broadcast_to(((np.arange(w) - self.cx) / self.fx)[None, :], (h, w))
            yn = np.broadcast_to(((np.arange(h) - self.cy) / self.fy)[:, None], (h, w))
            return xn, yn
        g, pad = GRID_STEP_PX, 2
        out = []
        for grid in self.grid:
            ny, nx = grid.shape
            big = cv2.resize(grid.astype(np.float32), (nx * g, ny * g), interpolation=cv2.INTER_LINEAR)
            out.append(big[pad * g:pad * g + h, pad * g:pad * g + w])
        return out[0], out[1]

    def block(self, x0: int, x1: int, y0: int, y1: int) -> tuple[np.ndarray, np.ndarray]:
        """Normalized coordinates ``(xn, yn)`` of supersamples ``[y0:y1, x0:x1]`` (float64)."""
        ss = self.ss
        iu = np.arange(x0, x1)
        iv = np.arange(y0, y1)
        du = ((iv % ss) - (ss - 1) / 2.0) / ss**2  # shear: x offset depends on the row in the block
        dv = ((iu % ss) - (ss - 1) / 2.0) / ss**2
        if not self.distorted:
            u = (iu + 0.5) / ss - 0.5
            v = (iv + 0.5) / ss - 0.5
            xn = ((u[None, :] + du[:, None]) - self.cx) / self.fx
            yn = ((v[:, None] + dv[None, :]) - self.cy) / self.fy
            return xn, yn
        step = 1.0 / ss
        u0 = (x0 - 1 + 0.5) * step - 0.5
        v0 = (y0 - 1 + 0.5) * step - 0.5
        out = []
        for reg in self._interp(u0, v0, x1 - x0 + 2, y1 - y0 + 2, step):
            d_du = (reg[1:-1, 2:] - reg[1:-1, :-2]) * (ss / 2.0)
            d_dv = (reg[2:, 1:-1] - reg[:-2, 1:-1]) * (ss / 2.0)
            out.append(reg[1:-1, 1:-1] + d_du * du[:, None] + d_dv * dv[None, :])
        return out[0], out[1]


def _cubic_taps(coords: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Catmull-Rom taps at node coordinates ``coords``: node indices (N, 4) and weights (N, 4).

    Exact for quadratics; nodes beyond the grid are clamped to its edge.
    """
    i = np.floor(coords).astype(np.int64)
    t = coords - i
    t2, t3 = t * t, t * t * t
    w = np.stack([(-t3 + 2 * t2 - t) / 2, (3 * t3 - 5 * t2 + 2) / 2, (-3 * t3 + 4 * t2 + t) / 2, (t3 - t2) / 2], 1)
    idx = np.clip(i[:, None] + np.arange(-1, 3)[None, :], 0, n - 1)
    return idx, w


class Canvas:
    """A supersampled colour, depth and marker-label buffer for one camera.

    ``background`` (output resolution, BGR) is what lies behind everything (the mat);
    it is at infinite depth, so every element drawn is in front of it.
    """

    def __init__(self, camera: CameraModel, ss: int, background: np.ndarray | None = None) -> None:
        self.camera = camera
        self.ss = ss
        w, h = camera.image_size
        self.width, self.height = w * ss, h * ss
        if background is None:
            self.colour = np.zeros((self.height, self.width, 3), np.uint8)
        else:
            self.colour = cv2.resize(background, (self.width, self.height), interpolation=cv2.INTER_NEAREST)
        self.depth = np.full((self.height, self.width), np.inf, np.float32)
        self.label = np.zeros((self.height, self.width), np.int16)  # marker id + 1 (ids < 1000)
        self.grid = RayGrid(camera, ss)
        self.rot = camera.rotation
        self.centre = camera.centre_mm

    def set_background(self, background: np.ndarray) -> None:
        """Fill the colour buffer with an output-resolution image (nearest upsampling)."""
        self.colour = cv2.resize(background, (self.width, self.height), interpolation=cv2.INTER_NEAREST)

    # -- geometry helpers --------------------------------------------------------
    def bbox_of(self, points_xyz: np.ndarray, margin_px: float = 2.0) -> BBox | None:
        """Bounding box (supersampled px, clipped) of the projection of 3D points, or None if off-image."""
        px = self.camera.project(points_xyz) * self.ss + (self.ss - 1) / 2.0
        m = margin_px * self.ss
        x0 = max(int(math.floor(px[:, 0].min() - m)), 0)
        x1 = min(int(math.ceil(px[:, 0].max() + m)) + 1, self.width)
        y0 = max(int(math.floor(px[:, 1].min() - m)), 0)
        y1 = min(int(math.ceil(px[:, 1].max() + m)) + 1, self.height)
        if x0 >= x1 or y0 >= y1:
            return None
        return (x0, x1, y0, y1)

    def bbox_of_box(self, xmin: float, xmax: float, ymin: float, ymax: float,
                    hmin: float, hmax: float) -> BBox | None:
        """Bounding box of an axis-aligned box of the table frame (edges sampled for distortion)."""
        t = np.linspace(0.0, 1.0, 9)
        pts = []
        for h in (hmin, hmax):
            z = -h
            pts += [np.column_stack([xmin + t * (xmax - xmin), np.full_like(t, y), np.full_like(t, z)])
                    for y in (ymin, ymax)]
            pts += [np.column_stack([np.full_like(t, x), ymin + t * (ymax - ymin), np.full_like(t, z)])
                    for x in (xmin, xmax)]
        for x in (xmin, xmax):
            for y in (ymin, ymax):
                pts.append(np.column_stack([np.full_like(t, x), np.full_like(t, y), -(hmin + t * (hmax - hmin))]))
        return self.bbox_of(np.concatenate(pts))

    def directions(self, xn: np.ndarray, yn: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Table-frame ray directions (camera z = 1) of normalized coordinates."""
        r = self.rot
        dx = xn * r[0, 0] + yn * r[1, 0] + r[2, 0]
        dy = xn * r[0, 1] + yn * r[1, 1] + r[2, 1]
        dz = xn * r[0, 2] + yn * r[1, 2] + r[2, 2]
        return dx, dy, dz

    def rays(self, bbox: BBox) -> tuple[tuple[slice, slice], np.ndarray, np.ndarray, np.ndarray]:
        """Slices and table-frame ray directions (Dx, Dy, Dz) of the supersamples in ``bbox``.

        A direction has camera-frame z = 1, so the ray parameter is the camera depth.
        """
        x0, x1, y0, y1 = bbox
        xn, yn = self.grid.block(x0, x1, y0, y1)
        dx, dy, dz = self.directions(xn, yn)
        return (slice(y0, y1), slice(x0, x1)), dx, dy, dz

    # -- compositing ---------------------------------------------------------------
    def composite(self, where: tuple[slice, slice], hit: np.ndarray, depth: np.ndarray,
                  colour: np.ndarray, label: int | np.ndarray = 0) -> None:
        """Write ``colour`` where ``hit`` and nearer than what is already drawn."""
        ys, xs = where
        zbuf = self.depth[ys, xs]
        m = hit & (depth < zbuf)
        if m.all():
            zbuf[...] = depth
            self.colour[ys, xs] = colour
            self.label[ys, xs] = label
            return
        if not m.any():
            return
        zbuf[m] = depth[m]
        self.colour[ys, xs][m] = colour[m]
        lab = self.label[ys, xs]
        lab[m] = label[m] if isinstance(label, np.ndarray) else label

    # -- primitives ------------------------------------------------------------------
    @_quiet
    def plane(self, bbox: BBox | None, height_mm: float, shader: Shader, *,
              bias_mm: float = 0.0, label: int = 0) -> int:
        """Draw a horizontal plane region at ``height_mm``.

        ``shader(X, Y)`` (table mm arrays) returns ``(hit, colour)`` or, when ``label`` is
        set, ``(hit, colour, in_label)``. Returns the number of supersampled pixels where
        the ``in_label`` part lies inside the canvas (occluded or not).
        """
        if bbox is None:
            return 0
        where, dx, dy, dz = self.rays(bbox)
        x, y, lam = self._on_plane(height_mm, dx, dy, dz)
        out = shader(x, y)
        hit, colour = out[0] & (lam > 0), out[1]
        count = 0
        lab: int | np.ndarray = 0
        if label:
            inside = out[2] & hit
            count = int(inside.sum())
            lab = np.where(inside, label, 0).astype(np.int16)
        self.composite(where, hit, lam - bias_mm, colour, lab)
        return count

    def _on_plane(self, height_mm: float, dx: np.ndarray, dy: np.ndarray,
                  dz: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        c = self.centre
        with np.errstate(all="ignore"):
            lam = (-height_mm - c[2]) / dz
            return c[0] + lam * dx, c[1] + lam * dy, lam

    @_quiet
    def printed(self, bbox: BBox | None, height_mm: float, paper: Callable[[np.ndarray, np.ndarray], np.ndarray],
                ink: Callable[[np.ndarray, np.ndarray], np.ndarray], inside: Callable[[np.ndarray, np.ndarray], np.ndarray],
                paper_bgr: tuple[int, int, int], ink_bgr: tuple[int, int, int], *, subsamples: int = 4,
                bias_mm: float = 0.0, label: int = 0) -> int:
        """Draw a printed sheet (a marker) at ``height_mm``: ``ink`` on ``paper``.

        Supersamples whose ink differs from a neighbour's (the ink edges) are resolved
        with ``subsamples`` x ``subsamples`` more rays, so the printed edges and corners
        are sub-pixel exact. ``inside`` marks the part counted for the visible fraction.
        Returns the supersample count of ``inside`` within the canvas.
        """
        if bbox is None:
            return 0
        x0, x1, y0, y1 = bbox
        xn, yn = self.grid.block(x0, x1, y0, y1)
        dx, dy, dz = self.directions(xn, yn)
        x, y, lam = self._on_plane(height_mm, dx, dy, dz)
        hit = paper(x, y) & (lam > 0)
        frac = ink(x, y).astype(np.float64)
        if subsamples > 1:
            edge = np.zeros(frac.shape, bool)
            edge[:, 1:] |= frac[:, 1:] != frac[:, :-1]
            edge[:, :-1] |= frac[:, 1:] != frac[:, :-1]
            edge[1:, :] |= frac[1:, :] != frac[:-1, :]
            edge[:-1, :] |= frac[1:, :] != frac[:-1, :]
            edge &= hit
            if edge.any():
                frac[edge] = self._ink_fraction(xn, yn, edge, height_mm, ink, subsamples)
        colour = (np.asarray(paper_bgr, np.float64) * (1 - frac[..., None])
                  + np.asarray(ink_bgr, np.float64) * frac[..., None])
        colour = np.clip(np.rint(colour), 0, 255).astype(np.uint8)
        count = 0
        lab: int | np.ndarray = 0
        if label:
            inner = inside(x, y) & hit
            count = int(inner.sum())
            lab = np.where(inner, label, 0).astype(np.int16)
        self.composite((slice(y0, y1), slice(x0, x1)), hit, lam - bias_mm, colour, lab)
        return count

    def _ink_fraction(self, xn: np.ndarray, yn: np.ndarray, where: np.ndarray, height_mm: float,
                      ink: Callable[[np.ndarray, np.ndarray], np.ndarray], n: int) -> np.ndarray:
        grads = [np.gradient(a, axis=ax)[where] if a.shape[ax] > 1 else np.zeros(int(where.sum()))
                 for a in (xn, yn) for ax in (1, 0)]
        bx, by = xn[where], yn[where]
        acc = np.zeros(bx.shape, np.float64)
        offsets = (np.arange(n) + 0.5) / n - 0.5  # in supersampled pixels
        for oy in offsets:
            for ox in offsets:
                dx, dy, dz = self.directions(bx + grads[0] * ox + grads[1] * oy,
                                             by + grads[2] * ox + grads[3] * oy)
                x, y, _ = self._on_plane(height_mm, dx, dy, dz)
                acc += ink(x, y)
        return acc / (n * n)

    @_quiet
    def cylinder_wall(self, cx: float, cy: float, radius: float, h0: float, h1: float,
                      colour: tuple[int, int, int]) -> None:
        """Draw the outer wall of a vertical cylinder from height ``h0`` to ``h1`` (shaded)."""
        bbox = self.bbox_of_box(cx - radius, cx + radius, cy - radius, cy + radius, h0, h1)
        if bbox is None:
            return
        where, dx, dy, dz = self.rays(bbox)
        c = self.centre
        ox, oy = c[0] - cx, c[1] - cy
        with np.errstate(all="ignore"):
            a = dx * dx + dy * dy
            b = 2 * (ox * dx + oy * dy)
            cc = ox * ox + oy * oy - radius * radius
            disc = b * b - 4 * a * cc
            lam = (-b - np.sqrt(disc)) / (2 * a)
            z = c[2] + lam * dz
            hit = (disc >= 0) & (lam > 0) & (z >= -h1) & (z <= -h0)
            nx = (ox + lam * dx) / radius
            ny = (oy + lam * dy) / radius
        shade = _lambert(nx, ny, np.zeros_like(nx))
        self.composite(where, hit, lam, _shaded(colour, shade))

    @_quiet
    def capsule(self, pa: np.ndarray, pb: np.ndarray, radius: float, colour: tuple[int, int, int]) -> None:
        """Draw a capsule (segment ``pa``-``pb`` in table-frame 3D, z = -height, swept by ``radius``)."""
        lo = np.minimum(pa, pb) - radius
        hi = np.maximum(pa, pb) + radius
        bbox = self.bbox_of_box(lo[0], hi[0], lo[1], hi[1], -hi[2], -lo[2])
        if bbox is None:
            return
        where, dx, dy, dz = self.rays(bbox)
        ro = self.centre
        ba = pb - pa
        oa = ro - pa
        baba = float(ba @ ba)
        baoa = float(ba @ oa)
        oaoa = float(oa @ oa)
        with np.errstate(all="ignore"):
            dd = dx * dx + dy * dy + dz * dz
            bard = ba[0] * dx + ba[1] * dy + ba[2] * dz
            rdoa = oa[0] * dx + oa[1] * dy + oa[2] * dz
            a = baba * dd - bard * bard
            b = baba * rdoa - baoa * bard
            c = baba * oaoa - baoa * baoa - radius * radius * baba
            h = b * b - a * c
            t_body = (-b - np.sqrt(h)) / a
            yy = baoa + t_body * bard
            body = (h >= 0) & (yy > 0) & (yy < baba) & (a > 1e-12)
            # Caps: sphere at pa (yy <= 0) or pb.
            t_caps = np.full_like(dd, np.inf)
            for centre in (pa, pb):
                oc = ro - centre
                bs = oc[0] * dx + oc[1] * dy + oc[2] * dz
                cs = float(oc @ oc) - radius * radius
                hs = bs * bs - dd * cs
                ts = (-bs - np.sqrt(hs)) / dd
                ok = (hs >= 0) & (ts > 0)
                t_caps = np.where(ok & (ts < t_caps), ts, t_caps)
            t = np.where(body & (t_body > 0), np.minimum(t_body, t_caps), t_caps)
            hit = np.isfinite(t)
            px, py, pz = ro[0] + t * dx, ro[1] + t * dy, ro[2] + t * dz
            s = np.clip(((px - pa[0]) * ba[0] + (py - pa[1]) * ba[1] + (pz - pa[2]) * ba[2]) / baba, 0, 1)
            nx = (px - (pa[0] + s * ba[0])) / radius
            ny = (py - (pa[1] + s * ba[1])) / radius
            nz = (pz - (pa[2] + s * ba[2])) / radius
        shade = _lambert(nx, ny, nz)
        self.composite(where, hit, t, _shaded(colour, shade))

    @_quiet
    def wall(self, p0: tuple[float, float], p1: tuple[float, float], height_mm: float,
             colour: tuple[int, int, int]) -> None:
        """Draw a vertical rectangle standing on the table edge ``p0``-``p1`` up to ``height_mm``."""
        (x0, y0), (x1, y1) = p0, p1
        bbox = self.bbox_of_box(min(x0, x1), max(x0, x1), min(y0, y1), max(y0, y1), 0.0, height_mm)
        if bbox is None:
            return
        where, dx, dy, dz = self.rays(bbox)
        c = self.centre
        ex, ey = x1 - x0, y1 - y0
        length2 = ex * ex + ey * ey
        nxx, nyy = ey, -ex
        with np.errstate(all="ignore"):
            lam = (nxx * (x0 - c[0]) + nyy * (y0 - c[1])) / (nxx * dx + nyy * dy)
            px, py, pz = c[0] + lam * dx, c[1] + lam * dy, c[2] + lam * dz
            s = ((px - x0) * ex + (py - y0) * ey) / length2
            hit = (lam > 0) & (s >= 0) & (s <= 1) & (pz <= 0) & (pz >= -height_mm)
        norm = math.sqrt(length2)
        nvec = np.array([nxx, nyy, 0.0]) / norm
        if nvec[0] * (c[0] - x0) + nvec[1] * (c[1] - y0) < 0:
            nvec = -nvec  # face the camera
        shade = np.full(hit.shape, max(AMBIENT, AMBIENT + (1 - AMBIENT) * float(nvec @ LIGHT)))
        self.composite(where, hit, lam, _shaded(colour, shade))


def _lambert(nx: np.ndarray, ny: np.ndarray, nz: np.ndarray) -> np.ndarray:
    dot = nx * LIGHT[0] + ny * LIGHT[1] + nz * LIGHT[2]
    return AMBIENT + (1 - AMBIENT) * np.clip(dot, 0, 1)


def _shaded(colour: tuple[int, int, int], shade: np.ndarray) -> np.ndarray:
    base = np.asarray(colour, dtype=np.float32)
    shade = np.nan_to_num(shade, nan=0.0, posinf=0.0, neginf=0.0)
    return np.clip(shade[..., None].astype(np.float32) * base * 1.15, 0, 255).astype(np.uint8)


def inside_polygon(x: np.ndarray, y: np.ndarray, poly: np.ndarray) -> np.ndarray:
    """Even-odd point-in-polygon test for arrays of points (table mm)."""
    inside = np.zeros(x.shape, bool)
    n = len(poly)
    for i in range(n):
        xa, ya = poly[i]
        xb, yb = poly[(i + 1) % n]
        if ya == yb:
            continue
        crosses = (ya > y) != (yb > y)
        with np.errstate(all="ignore"):
            xc = xa + (y - ya) * (xb - xa) / (yb - ya)
        inside ^= crosses & (x < xc)
    return inside
