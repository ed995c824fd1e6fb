"""Where the table changed since each tile of the bare-base sweep was last searched.

The frame loop looks for new bare bases one tile of the table at a time
(:mod:`tracker.pipeline`); taken in turn, the tiles of a 60 x 60 cm table need a couple of
seconds, so a base put down just behind the sweep would wait that long. :class:`ChangeMap`
keeps a coarse picture of the table (one colour per :data:`CELL_MM` cell, averaged from a few
samples of the frame) as it was when each tile was last searched, and tells which tiles
differ from it now in a patch the size of a small base (:meth:`ChangeMap.changed_area`): the
sweep searches there first, around the change (a base across two tiles is searched whole).
A tile that differs from the previous look (a hand moving over it, a shaken frame) is not
searched yet (:meth:`ChangeMap.moving_tiles`): it is searched once it settles, so that the
search neither pays for a hand's clutter nor misses what the hand put down. The places of
the bare bases fitted are kept too (:meth:`ChangeMap.keep`): while one shows no change
(:meth:`ChangeMap.unchanged`), its base is not fitted again.

Examples
--------
>>> from tracker.markers import ScaledPlane
>>> table = np.full((200, 200, 3), 100, np.uint8)
>>> tiles = [(0.0, 0.0, 50.0, 100.0), (50.0, 0.0, 100.0, 100.0)]
>>> changes = ChangeMap(ScaledPlane(2.0), (100.0, 100.0), tiles, grow_mm=10.0)
>>> changes.look(table); changes.searched(None)
>>> put_down = table.copy(); put_down[120:160, 120:160] = (40, 60, 200)     # 20 mm square at (70, 70) mm
>>> changes.look(put_down); changes.moving_tiles(), changes.changed_area()
([1], None)
>>> changes.look(put_down); changes.moving_tiles(), changes.changed_area()      # settled
([], (50.0, 50.0, 90.0, 90.0))
>>> changes.searched((50.0, 50.0, 90.0, 90.0)); changes.changed_area()

"""

from __future__ import annotations

import math
from collections.abc import Sequence

import cv2
import numpy as np

from tracker.markers import TableMapping

#: Side of a cell of the coarse picture, mm (each averages 2 x 2 samples of the frame).
CELL_MM = 4.0
#: A cell differs when one of its colour channels differs by more than this (0-255), after
#: the picture's overall brightness is matched (an exposure drifting is no change).
CHANGE_LEVEL = 35.0
#: A tile changed where at least this much of it differs: about a quarter of the smallest base.
CHANGED_AREA_MM2 = 80.0
#: A tile is moving where at least this much of it differs from the previous look.
MOVING_AREA_MM2 = 48.0
#: A region kept (a bare base fitted there) is unchanged while fewer cells than this differ.
UNCHANGED_MAX_CELLS = 2


class ChangeMap:
    """A coarse picture of the table per sweep tile, as last searched, and as last looked at.

    ``calibration`` maps table mm to image px; ``table_mm`` is (width, depth);
    ``tiles`` are the sweep's tiles (x0, y0, x1, y1) mm, indexed as in the sweep; a changed
    area is given grown by ``grow_mm`` (a base's radius: its centre lies within).
    """

    def __init__(self, calibration: TableMapping, table_mm: tuple[float, float],
                 tiles: Sequence[tuple[float, float, float, float]], *, grow_mm: float = 0.0,
                 height_mm: float = 0.0) -> None:
        w, d = table_mm
        self._table = (w, d)
        self._grow = grow_mm
        self._shape = (max(1, math.ceil(d / CELL_MM)), max(1, math.ceil(w / CELL_MM)))
        ny, nx = self._shape
        step = CELL_MM / 2.0
        gx, gy = np.meshgrid((np.arange(2 * nx) + 0.5) * step, (np.arange(2 * ny) + 0.5) * step)
        px = calibration.to_image_px(np.column_stack([gx.ravel(), gy.ravel()]), height_mm=height_mm)
        px = px.reshape(2 * ny, 2 * nx, 2).astype(np.float32)
        self._maps = cv2.convertMaps(np.ascontiguousarray(px[:, :, 0]), np.ascontiguousarray(px[:, :, 1]),
                                     cv2.CV_16SC2)
        self._tiles = [(slice(int(y0 // CELL_MM), max(int(y0 // CELL_MM) + 1, math.ceil(y1 / CELL_MM))),
                        slice(int(x0 // CELL_MM), max(int(x0 // CELL_MM) + 1, math.ceil(x1 / CELL_MM))))
                       for x0, y0, x1, y1 in tiles]
        self._changed_cells = max(1, round(CHANGED_AREA_MM2 / CELL_MM ** 2))
        self._moving_cells = max(1, round(MOVING_AREA_MM2 / CELL_MM ** 2))
        self._now: np.ndarray | None = None
        self._prev: np.ndarray | None = None
        self._ref: np.ndarray | None = None
        self._moving: list[int] | None = None
        # key -> (its cells, their colours then, the picture's level then)
        self._kept: dict[str, tuple[tuple[slice, slice], np.ndarray, np.ndarray]] = {}
        self._now_level = self._prev_level = self._ref_level = np.zeros(3)

    def look(self, image: np.ndarray) -> None:
        """Take the coarse picture of this frame (BGR)."""
        samples = cv2.remap(image, self._maps[0], self._maps[1], cv2.INTER_LINEAR, borderValue=(0, 0, 0))
        self._prev = self._now
        self._now = cv2.resize(samples, self._shape[::-1], interpolation=cv2.INTER_AREA).astype(np.float32)
        self._prev_level, self._now_level = self._now_level, self._level(self._now)
        self._moving = None

    def searched(self, region_mm: tuple[float, float, float, float] | None) -> None:
        """Note that this region (x0, y0, x1, y1) mm (None: the whole table) was searched on the
        frame last looked at."""
        if self._now is None:
            return
        if region_mm is None or self._ref is None:
            self._ref, self._ref_level = self._now.copy(), self._now_level
            return
        cells = self._cells(region_mm)
        self._ref[cells] = self._now[cells]
        self._ref_level = self._level(self._ref)

    def keep(self, key: str, region_mm: tuple[float, float, float, float]) -> None:
        """Keep this region's cells (x0, y0, x1, y1 mm) as the frame last looked at shows them,
        under ``key`` (a bare base fitted there), for :meth:`unchanged`."""
        if self._now is not None:
            cells = self._cells(region_mm)
            self._kept[key] = (cells, self._now[cells].copy(), self._now_level)

    def forget(self, key: str) -> None:
        """Drop the region kept under ``key``."""
        self._kept.pop(key, None)

    def unchanged(self, key: str) -> bool:
        """Whether the region kept under ``key`` (:meth:`keep`) shows the same now: fewer than
        :data:`UNCHANGED_MAX_CELLS` of its cells differ (after the overall brightness is matched)."""
        kept = self._kept.get(key)
        if kept is None or self._now is None:
            return False
        cells, then, level = kept
        gain = ((level + 1.0) / (self._now_level + 1.0)).astype(np.float32)
        return int(np.count_nonzero(_differs(self._now[cells], gain, then))) < UNCHANGED_MAX_CELLS

    @staticmethod
    def _level(picture: np.ndarray) -> np.ndarray:
        """The picture's overall colour, channel by channel (the median on every third cell each
        way: the whole picture's costs ten times more)."""
        return np.asarray(np.median(picture[::3, ::3].reshape(-1, picture.shape[-1]), axis=0))

    @staticmethod
    def _cells(region_mm: tuple[float, float, float, float]) -> tuple[slice, slice]:
        x0, y0, x1, y1 = region_mm
        return (slice(max(0, int(y0 // CELL_MM)), max(0, math.ceil(y1 / CELL_MM))),
                slice(max(0, int(x0 // CELL_MM)), max(0, math.ceil(x1 / CELL_MM))))

    def moving_tiles(self) -> list[int]:
        """The tiles that differ from the previous look."""
        if self._now is None or self._prev is None:
            return []
        if self._moving is None:         # (once per look)
            self._moving = self._count_over(self._prev, self._prev_level, self._moving_cells)[0]
        return self._moving

    def changed_area(self) -> tuple[float, float, float, float] | None:
        """Where the most changed tile not moving differs from how it was when last searched:
        the box (x0, y0, x1, y1) mm of its cells that differ, grown by ``grow_mm`` (within the
        table and the tile grown so); None when no tile changed."""
        if self._now is None or self._ref is None:
            return None
        moving = set(self.moving_tiles())
        over, counts, differs = self._count_over(self._ref, self._ref_level, self._changed_cells)
        over = [k for k in over if k not in moving]
        if not over:
            return None
        rows, cols = self._tiles[max(over, key=lambda k: counts[k])]
        ys, xs = np.nonzero(differs[rows, cols])
        g, c = self._grow, CELL_MM
        x0, y0 = (cols.start + xs.min()) * c, (rows.start + ys.min()) * c
        x1, y1 = (cols.start + xs.max() + 1) * c, (rows.start + ys.max() + 1) * c
        return (float(max(0.0, x0 - g, cols.start * c - g)), float(max(0.0, y0 - g, rows.start * c - g)),
                float(min(self._table[0], x1 + g, cols.stop * c + g)),
                float(min(self._table[1], y1 + g, rows.stop * c + g)))

    def _count_over(self, other: np.ndarray, other_level: np.ndarray,
                    least: int) -> tuple[list[int], list[int], np.ndarray]:
        """The tiles where at least ``least`` cells differ between now and ``other``, each tile's
        count, and the cells that differ."""
        assert self._now is not None
        # the overall brightness matched channel by channel: an exposure drift is no change
        gain = ((other_level + 1.0) / (self._now_level + 1.0)).astype(np.float32)
        differs = _differs(self._now, gain, other)
        counts = [int(np.count_nonzero(differs[rows, cols])) for rows, cols in self._tiles]
        return [k for k, n in enumerate(counts) if n >= least], counts, differs


def _differs(now: np.ndarray, gain: np.ndarray, then: np.ndarray) -> np.ndarray:
    """The cells (..., 3 colours) where ``now`` times ``gain`` differs from ``then`` by more than
    :data:`CHANGE_LEVEL` in a channel (in place and channel by channel: the same values as
    ``(abs(now * gain - then) > CHANGE_LEVEL).any(axis=-1)``, at a third of its cost)."""
    d = now * gain
    d -= then
    np.abs(d, out=d)
    return np.asarray((d[..., 0] > CHANGE_LEVEL) | (d[..., 1] > CHANGE_LEVEL) | (d[..., 2] > CHANGE_LEVEL))
