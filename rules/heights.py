"""Heights on the table: a figure's ground and eyes, a terrain piece's top, who sees over what.

The plan stays flat (x, y in mm); heights are attributes (docs/heights.md):

* ``Model.elevation_mm`` - the ground the base stands on above the table top (a building's
  floor, a hill); absent = 0, on the table.
* ``Model.height_mm`` - the figure's own height; its eyes are taken at the top of the figure,
  ``elevation + height`` (a simplification: every seed speaks of seeing "over" a piece
  without a finer eye line). Absent = unknown: nothing is decided by height.
* ``Terrain.height_mm`` - a piece's top above the table top; absent = unknown (today's
  behaviour: the piece does what its kind says, whatever the figures' heights).

When every height needed is known, a piece lower than the eyes of both figures does not
block sight between them: one sees over a low wall. It still hides the lower part of the
target, so it gives cover as a cover piece would (Feu à Volonté, Les Combats à distance: a
target partly hidden by a piece of scenery is in cover; High Fire, Ligne de vue: a partial
obstacle such as a low wall does not block; Grimdark Future Firefight, Couvert).

Examples
--------
>>> from rules.plan import Model, Terrain
>>> a = Model("a", "u", (0.0, 0.0), 25.0, height_mm=30.0)
>>> b = Model("b", "v", (300.0, 0.0), 25.0, height_mm=30.0, elevation_mm=60.0)
>>> eye_mm(a), eye_mm(b), ground_mm(b)
(30.0, 90.0, 60.0)
>>> wall = Terrain("w", "wall", "line", ((150.0, -50.0), (150.0, 50.0)), height_mm=20.0)
>>> sees_over(wall, a, b)
True
>>> sees_over(Terrain("w", "wall", "line", ((150.0, -50.0), (150.0, 50.0))), a, b)
False
"""

from __future__ import annotations

import math
from typing import Any, Mapping

import numpy as np

from rules.explain import msg
from rules.plan import Model, Terrain

HEIGHT_SOURCE = "heights: a piece lower than the eyes of both figures is seen over"


def ground_mm(m: Model) -> float:
    """Height of the ground under ``m``'s base above the table top (0 when not given)."""
    return float(m.elevation_mm) if m.elevation_mm is not None else 0.0


def eye_mm(m: Model) -> float | None:
    """Height of ``m``'s eyes above the table top, or ``None`` when its height is not known."""
    if m.height_mm is None:
        return None
    return ground_mm(m) + float(m.height_mm)


def vertical_gap_mm(a: Model, b: Model) -> float:
    """Difference in height between the grounds of two figures (a floor above another, a hill)."""
    return abs(ground_mm(a) - ground_mm(b))


def sees_over(piece: Terrain, a: Model, b: Model) -> bool:
    """Whether ``piece`` is lower than the eyes of both ``a`` and ``b`` (every height known)."""
    if piece.height_mm is None:
        return False
    ea, eb = eye_mm(a), eye_mm(b)
    return ea is not None and eb is not None and float(piece.height_mm) < min(ea, eb)


def over_text(piece: Terrain, a: Model, b: Model) -> str:
    """The explanation of :func:`sees_over` being true for the pair."""
    ea, eb = eye_mm(a), eye_mm(b)
    return (f"{piece.terrain_id} is {piece.height_mm:g} mm high, lower than the eyes of {a.model_id} "
            f"({ea:g} mm) and {b.model_id} ({eb:g} mm): seen over, it hides only part of the target (cover)")


def over_msg(piece: Terrain, a: Model, b: Model) -> Mapping[str, Any]:
    """:func:`over_text` as a message (``sight.seen_over``) the edges say in French or English."""
    return msg("sight.seen_over", piece=piece.terrain_id, height=float(piece.height_mm or 0.0), a=a.model_id,
               eye_a=eye_mm(a), b=b.model_id, eye_b=eye_mm(b))


def eyes(models: "list[Model] | tuple[Model, ...]") -> np.ndarray:
    """Eye heights of ``models`` as an array, ``-inf`` where unknown (nothing is seen over then)."""
    return np.array([-math.inf if m.height_mm is None  # eye_mm, without a call per figure
                     else (float(m.elevation_mm) if m.elevation_mm is not None else 0.0) + float(m.height_mm)
                     for m in models], dtype=float)
