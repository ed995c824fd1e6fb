"""The coarse picture of the table that leads the bare-base sweep (tracker.changes)."""

from __future__ import annotations

import numpy as np

from tracker.changes import ChangeMap
from tracker.markers import ScaledPlane

TILES = [(0.0, 0.0, 100.0, 100.0), (100.0, 0.0, 200.0, 100.0)]


def table(seed: int, exposure: float = 1.0) -> np.ndarray:
    """A 200 x 100 mm mat at 2 px/mm with a few markers' worth of detail and sensor noise."""
    img = np.full((200, 400, 3), (80, 110, 90), np.float64)
    img[40:64, 60:84] = 235.0
    img[120:144, 300:324] = 235.0
    img = img * exposure + np.random.default_rng(seed).normal(0.0, 3.0, img.shape)
    return np.clip(img, 0, 255).astype(np.uint8)


def test_exposure_drift_and_noise_are_no_change() -> None:
    changes = ChangeMap(ScaledPlane(2.0), (200.0, 100.0), TILES, grow_mm=16.0)
    changes.look(table(0))
    changes.searched(None)
    for k, exposure in enumerate((1.05, 1.1, 1.15, 0.87)):
        changes.look(table(k + 1, exposure))
        assert changes.changed_area() is None
        assert changes.moving_tiles() == []


def test_a_hand_moving_over_a_tile_is_not_a_change_until_it_settles() -> None:
    changes = ChangeMap(ScaledPlane(2.0), (200.0, 100.0), TILES, grow_mm=16.0)
    changes.look(table(0))
    changes.searched(None)
    for k, x in enumerate((240, 290, 340)):          # a hand crossing the second tile
        img = table(k + 1)
        img[60:160, x - 40:x + 40] = (120, 150, 205)
        changes.look(img)
        assert changes.moving_tiles() == [1] and changes.changed_area() is None
    for k in (5, 6):                                  # it left a 20 mm base at (110, 65) mm
        put_down = table(k)
        put_down[110:150, 200:240] = (43, 57, 192)
        changes.look(put_down)                        # (the first look: the hand just went, moving)
    area = changes.changed_area()
    assert area is not None
    x0, y0, x1, y1 = area
    assert x0 <= 110.0 <= x1 and y0 <= 65.0 <= y1 and x1 - x0 <= 60.0 and y1 - y0 <= 60.0
    changes.searched(area)
    assert changes.changed_area() is None


def test_a_kept_place_is_unchanged_until_something_covers_or_leaves_it() -> None:
    changes = ChangeMap(ScaledPlane(2.0), (200.0, 100.0), TILES, grow_mm=16.0)
    base = table(0)
    base[60:100, 100:140] = (43, 57, 192)                 # a 20 mm base at (60, 40) mm
    changes.look(base)
    changes.keep("base-1", (48.0, 28.0, 72.0, 52.0))
    assert not changes.unchanged("base-2")                 # nothing kept under that key
    changes.look(np.clip(base.astype(np.float64) * 1.1, 0, 255).astype(np.uint8))   # brighter: no change
    assert changes.unchanged("base-1")
    lifted = table(1)
    changes.look(lifted)
    assert not changes.unchanged("base-1")
    changes.forget("base-1")
    changes.look(base)
    assert not changes.unchanged("base-1")
