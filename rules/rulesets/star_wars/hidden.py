"""Star Wars "hidden more than 50 %": the share of the target's base AREA an obstacle hides.

Star Wars Grandes escarmouches, Règles de Tir: a target more than half hidden by an
obstacle is harder to hit (+1 to the roll needed). The text does not say how the half is
measured; the agreed choice (choice 8 of the rule set's options) judges it on the
target's base footprint as seen from the firer's base centre. So the hidden share is the
AREA of the base disc lying in the shadow of the obstacles cast from that point, divided
by the disc's area. The share of the base's WIDTH hidden (the sight rays) is given beside
it for comparison; the area decides.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Mapping

import numpy as np
import shapely
from shapely.geometry.base import BaseGeometry

from rules.plan import Model, TablePlan
from rules.visibility import SightRules, blockers_for, sight_rays

DISC_QUAD_SEGS = 64  # 256-gon: its area is within 0.01 % of the circle's


@dataclass(frozen=True)
class HiddenShare:
    """The hidden share of a target's base: by area (what decides) and by width, and what hides it."""

    area: float
    width: float
    by: tuple[str, ...]


def shadow(origin: tuple[float, float], geom: BaseGeometry, reach_mm: float) -> BaseGeometry:
    """Return the region a piece hides from ``origin``: every point whose segment from ``origin`` meets it.

    Each edge of the piece casts a quadrilateral away from ``origin`` (long enough to pass
    ``reach_mm`` from it); the shadow is their union with the piece itself (for areas).
    """
    o = np.asarray(origin, dtype=float)
    parts: list[BaseGeometry] = []
    lines = shapely.get_parts(shapely.boundary(geom) if geom.geom_type.endswith("Polygon") else geom)
    for line in lines:
        xy = shapely.get_coordinates(line)
        for a, b in zip(xy[:-1], xy[1:]):
            da, db = a - o, b - o
            la, lb = float(np.hypot(*da)), float(np.hypot(*db))
            if la < 1e-9 or lb < 1e-9:
                continue
            fa, fb = a + da / la * reach_mm, b + db / lb * reach_mm
            quad = shapely.Polygon([tuple(a), tuple(b), tuple(fb), tuple(fa)])
            if quad.area > 1e-9:
                parts.append(shapely.make_valid(quad))
    if geom.geom_type.endswith("Polygon"):
        parts.append(geom)
    return shapely.union_all(parts) if parts else shapely.Polygon()


def hidden_share(rs: SightRules, plan: TablePlan, shooter: Model, target: Model,
                 opts: Mapping[str, Any] | None = None) -> HiddenShare:
    """Return how much of ``target``'s base the obstacles hide from ``shooter``'s base centre.

    Obstacles are the terrain pieces that block sight or can hide a target; other figures
    are not (a shot through a figure is refused on its own, Règles de Tir, note importante).
    """
    segs = sight_rays(shooter, target)
    if segs is None:
        return HiddenShare(0.0, 0.0, ())
    o = shooter.position_mm
    reach = math.dist(o, target.position_mm) + target.base_mm
    disc = shapely.Point(target.position_mm).buffer(target.base_mm / 2.0, quad_segs=DISC_QUAD_SEGS)
    lines = shapely.linestrings(segs)
    rays = np.zeros(len(segs), dtype=bool)
    shadows: list[BaseGeometry] = []
    by: list[str] = []
    for b in blockers_for(plan, shooter, target, ruleset=rs, options=opts):
        if b.kind == "figure" or b.effect not in ("blocks", "cover"):
            continue
        sh = shadow(o, b.geometry, reach)
        hits = shapely.intersects(lines, b.geometry)
        if hits.any() or sh.intersection(disc).area > 1e-9:
            by.append(b.ident)
            rays |= hits
            shadows.append(sh)
    area = shapely.union_all(shadows).intersection(disc).area / disc.area if shadows else 0.0
    return HiddenShare(min(1.0, float(area)), float(rays.mean()), tuple(by))
