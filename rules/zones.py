"""Zones on the table: templates, auras, objectives, deployment (AT-43's fire zone: rules.rulesets.at43.fire_zone).

Every function is pure over the table plan and returns a frozen record with the
models concerned and an explanation. Whether a base is "even partly" inside a zone
is decided on the true circle: its centre is within its radius of the zone.

Examples
--------
>>> from rules.plan import parse_game
>>> plan = parse_game({"ruleset": "at-43", "table": {"width_mm": 1000, "depth_mm": 1000},
...     "units": [{"id": "f", "side": "A", "leader": "f1"}, {"id": "t", "side": "B", "leader": "t1"},
...               {"id": "x", "side": "B"}],
...     "models": [{"id": "f1", "unit": "f", "x_mm": 100, "y_mm": 500, "base_mm": 30},
...                {"id": "f2", "unit": "f", "x_mm": 100, "y_mm": 560, "base_mm": 30},
...                {"id": "t1", "unit": "t", "x_mm": 600, "y_mm": 500, "base_mm": 30},
...                {"id": "t2", "unit": "t", "x_mm": 600, "y_mm": 560, "base_mm": 30},
...                {"id": "x1", "unit": "x", "x_mm": 350, "y_mm": 590, "base_mm": 30},
...                {"id": "x2", "unit": "x", "x_mm": 300, "y_mm": 530, "base_mm": 30}]})
>>> template(plan, (600.0, 500.0), 20.0).under
('t1',)
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from typing import Any, Iterable, Mapping, Sequence

import numpy as np
import shapely
import shapely.affinity
from shapely.geometry import Polygon
from shapely.geometry.base import BaseGeometry

from rules.errors import InvalidActionError
from rules.explain import Step, explanation_json, msg
from rules.measure import model_distance_mm, point_distance_mm
from rules.ontable import placed_only
from rules.plan import Model, TablePlan

HULL_POINTS = 32  # points per base when building a hull of bases
PARTLY_TOLERANCE_MM = 1e-6


def _circle_points(models: Sequence[Model]) -> np.ndarray:
    ang = np.linspace(0.0, 2 * np.pi, HULL_POINTS, endpoint=False)
    ring = np.stack([np.cos(ang), np.sin(ang)], axis=1)
    # Circumscribe the true circle so the hull contains every base entirely.
    scale = 1.0 / math.cos(math.pi / HULL_POINTS)
    out = [np.asarray(m.position_mm) + ring * (m.base_mm / 2.0) * scale for m in models]
    return np.concatenate(out) if out else np.zeros((0, 2))


def bases_hull(models: Sequence[Model]) -> BaseGeometry:
    """Return the convex hull of the bases of ``models`` (a polygon containing every base)."""
    return shapely.convex_hull(shapely.multipoints(_circle_points(models)))


def partly_inside(zone: BaseGeometry, models: Sequence[Model]) -> np.ndarray:
    """Return, per model, whether its base is even partly inside ``zone`` (vectorised)."""
    if not models:
        return np.zeros(0, dtype=bool)
    pts = shapely.points(np.array([m.position_mm for m in models], dtype=float))
    r = np.array([m.base_mm / 2.0 for m in models])
    return np.asarray(shapely.distance(zone, pts) < r - PARTLY_TOLERANCE_MM)


@dataclass(frozen=True)
class Template:
    """A circular template: centre, radius and the models even partly under it."""

    centre_mm: tuple[float, float]
    radius_mm: float
    under: tuple[str, ...]
    distances_mm: Mapping[str, float]
    steps: tuple[Step, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {"centre_mm": [round(self.centre_mm[0], 2), round(self.centre_mm[1], 2)],
                "radius_mm": round(self.radius_mm, 3), "under": list(self.under),
                "distances_mm": {k: round(v, 2) for k, v in self.distances_mm.items()},
                "explanation": explanation_json(self.steps)}


@placed_only
def template(plan: TablePlan, centre_mm: tuple[float, float], radius_mm: float, *, how: str = "edge",
             models: Iterable[Model] | None = None, source: str = "geometry: circular template") -> Template:
    """Return the models under a circle of ``radius_mm`` at ``centre_mm``.

    ``how="edge"``: a base even partly under the circle counts (its edge is inside
    the radius; touching the rim from outside does not); ``how="centre"``: its
    centre must be within the radius (inclusive). Order: nearest the centre first.
    """
    if not (math.isfinite(radius_mm) and radius_mm >= 0):
        raise InvalidActionError(f"the radius must be a number of mm of 0 or more, got {radius_mm!r}",
                                 msg_id="template.bad_radius", params={"got": str(radius_mm)})
    pool = _near_centre(list(plan.models if models is None else models), centre_mm, radius_mm, how)
    found: list[tuple[float, str]] = []
    dist: dict[str, float] = {}
    for m in pool:
        d = point_distance_mm(m, centre_mm, how=how)
        if how == "edge" and d > 0:
            inside = d < radius_mm - PARTLY_TOLERANCE_MM
        else:
            inside = d <= radius_mm + PARTLY_TOLERANCE_MM
        if how == "edge" and d == 0.0:
            inside = True
        if inside:
            found.append((math.dist(m.position_mm, centre_mm), m.model_id))
            dist[m.model_id] = d
    found.sort()
    under = tuple(mid for _, mid in found)
    step = Step("template", f"circle of radius {radius_mm:.1f} mm at ({centre_mm[0]:.1f}, {centre_mm[1]:.1f}): "
                f"{len(under)} model(s) {'even partly ' if how == 'edge' else ''}under it", source, value=len(under),
                msg=f"template.under.{how}", params={"radius": round(radius_mm, 1), "x": round(centre_mm[0], 1),
                                                    "y": round(centre_mm[1], 1), "count": len(under),
                                                    "models": list(under) or "-"})
    return Template(centre_mm, radius_mm, under, dist, (step,))


TEMPLATE_SIFT_MM = 1e-3  # far above the rounding of a centre distance, far below any base


def _near_centre(pool: list[Model], centre_mm: tuple[float, float], radius_mm: float, how: str) -> list[Model]:
    """Drop from ``pool`` the models that cannot be under the template (centre farther than
    ``radius_mm`` plus, measuring from the edge, the base's radius, by more than
    ``TEMPLATE_SIFT_MM``): one numpy pass, so the exact per-model test runs on the few left."""
    if len(pool) < 16 or how not in ("edge", "centre"):  # a bad ``how`` is refused by the exact test
        return pool
    xy = np.fromiter(itertools.chain.from_iterable(m.position_mm for m in pool), float, 2 * len(pool))
    reach = np.full(len(pool), radius_mm + TEMPLATE_SIFT_MM)
    if how == "edge":
        reach += np.fromiter((m.base_mm for m in pool), float, len(pool)) / 2.0
    near = np.hypot(xy[0::2] - centre_mm[0], xy[1::2] - centre_mm[1]) <= reach
    return [m for m, keep in zip(pool, near.tolist()) if keep]


@dataclass(frozen=True)
class Aura:
    """Models within ``radius_mm`` of a model (a bubble, an aura, a power's reach)."""

    model_id: str
    radius_mm: float
    inside: tuple[str, ...]
    distances_mm: Mapping[str, float]
    steps: tuple[Step, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {"model": self.model_id, "radius_mm": round(self.radius_mm, 3), "inside": list(self.inside),
                "distances_mm": {k: round(v, 2) for k, v in self.distances_mm.items()},
                "explanation": explanation_json(self.steps)}


@placed_only
def aura(plan: TablePlan, model_id: str, radius_mm: float, *, who: str = "friends", how: str = "edge",
         strict: bool = False, rule: str = "aura", source: str = "geometry") -> Aura:
    """Return the models within ``radius_mm`` of ``model_id`` (itself excluded).

    ``who``: ``"friends"`` (same side), ``"enemies"`` or ``"all"``. ``strict``: strictly
    less than the radius ("à moins de"), else up to and including it.
    """
    if who not in ("friends", "enemies", "all"):
        raise InvalidActionError(f"who must be friends, enemies or all, got {who!r}", msg_id="aura.bad_who",
                                 params={"got": str(who)})
    centre = plan.model(model_id)
    side = plan.side_of(model_id)
    found: list[tuple[float, str]] = []
    dist: dict[str, float] = {}
    for m in plan.models:
        if m.model_id == model_id:
            continue
        same = plan.unit(m.unit_id).side == side
        if (who == "friends" and not same) or (who == "enemies" and same):
            continue
        d = model_distance_mm(centre, m, how=how)
        if d < radius_mm - PARTLY_TOLERANCE_MM or (not strict and d <= radius_mm + PARTLY_TOLERANCE_MM):
            found.append((d, m.model_id))
            dist[m.model_id] = d
    found.sort()
    inside = tuple(mid for _, mid in found)
    step = Step(rule, f"{len(inside)} {who if who != 'all' else 'model'}(s) {'strictly ' if strict else ''}within "
                f"{radius_mm:.1f} mm of {model_id} ({'base edge' if how == 'edge' else 'centre'}): "
                f"{', '.join(inside) if inside else 'none'}", source, value=len(inside),
                msg=f"aura.{who}.{'strict' if strict else 'within'}",
                params={"count": len(inside), "mm": round(radius_mm, 1), "model": model_id,
                        "how": msg(f"measure.ref.{how}"), "models": list(inside) or "-"})
    return Aura(model_id, radius_mm, inside, dist, (step,))


@dataclass(frozen=True)
class ObjectiveState:
    """One objective: the models of each side within reach, and who holds it."""

    objective_id: str
    near: Mapping[str, tuple[str, ...]]
    nearest: Mapping[str, tuple[str, float]]
    controller: str | None
    contested: bool

    def to_json(self) -> dict[str, Any]:
        return {"objective": self.objective_id, "near": {k: list(v) for k, v in self.near.items()},
                "nearest": {k: {"model": v[0], "distance_mm": round(v[1], 2)} for k, v in self.nearest.items()},
                "controller": self.controller, "contested": self.contested}


@placed_only
def objective_states(plan: TablePlan, reach_mm: float | None, *, how: str = "edge",
                     can_hold: Any = None) -> tuple[ObjectiveState, ...]:
    """Return, per objective, the models of each side within ``reach_mm`` and who holds it.

    With ``reach_mm=None`` only the nearest model of each side is given (no control rule).
    ``can_hold(model)`` filters models that may seize or contest (e.g. not Shaken).
    A side holds an objective when it has a model within reach and no other side has.
    """
    sides = sorted({u.side for u in plan.units})
    out = []
    for obj in plan.objectives:
        near: dict[str, list[tuple[float, str]]] = {s: [] for s in sides}
        nearest: dict[str, tuple[str, float]] = {}
        for m in plan.models:
            side = plan.unit(m.unit_id).side
            d = point_distance_mm(m, obj.position_mm, how=how)
            if side not in nearest or d < nearest[side][1]:
                nearest[side] = (m.model_id, d)
            if reach_mm is not None and d <= reach_mm + PARTLY_TOLERANCE_MM and (can_hold is None or can_hold(m)):
                near[side].append((d, m.model_id))
        present = [s for s in sides if near[s]]
        controller = present[0] if len(present) == 1 else None
        out.append(ObjectiveState(obj.objective_id, {s: tuple(mid for _, mid in sorted(v)) for s, v in near.items()},
                                  nearest, controller, len(present) > 1))
    return tuple(out)


def deviate(point_mm: tuple[float, float], toward_mm: tuple[float, float], direction: int,
            distance_mm: float) -> tuple[float, float]:
    """Return ``point_mm`` moved ``distance_mm`` in scatter direction ``direction`` (1-6).

    The six directions are 60° apart, numbered clockwise as seen from above; 4 points
    away from ``toward_mm`` (the firer: AT-43's example rolls a 4 and the template
    drifts behind the target), so 1 points back toward it.

    >>> deviate((100.0, 0.0), (0.0, 0.0), 4, 10.0)
    (110.0, 0.0)
    >>> tuple(round(v, 6) + 0.0 for v in deviate((100.0, 0.0), (0.0, 0.0), 1, 10.0))
    (90.0, 0.0)
    """
    if direction not in range(1, 7):
        raise InvalidActionError(f"the scatter direction must be a die roll 1-6, got {direction!r}",
                                 msg_id="scatter.bad_direction", params={"got": str(direction)})
    away = math.atan2(point_mm[1] - toward_mm[1], point_mm[0] - toward_mm[0])
    if point_mm == toward_mm:
        away = 0.0
    ang = away + math.radians(60.0 * (direction - 4))
    return (point_mm[0] + distance_mm * math.cos(ang), point_mm[1] + distance_mm * math.sin(ang))


def deployment_zone(plan: TablePlan, edge: str, depth_mm: float) -> Polygon:
    """Return the strip of the table within ``depth_mm`` of ``edge`` (top, bottom, left, right)."""
    w, d = plan.table.width_mm, plan.table.depth_mm
    boxes = {"top": (0, 0, w, depth_mm), "bottom": (0, d - depth_mm, w, d),
             "left": (0, 0, depth_mm, d), "right": (w - depth_mm, 0, w, d)}
    if edge not in boxes:
        raise InvalidActionError(f"a table edge is one of top, bottom, left, right; got {edge!r}",
                                 msg_id="measure.bad_edge", params={"got": str(edge)})
    return shapely.box(*boxes[edge])


def wholly_inside(zone: BaseGeometry, models: Sequence[Model]) -> np.ndarray:
    """Return, per model, whether its whole base lies inside ``zone``."""
    if not models:
        return np.zeros(0, dtype=bool)
    pts = shapely.points(np.array([m.position_mm for m in models], dtype=float))
    r = np.array([m.base_mm / 2.0 for m in models])
    inside = shapely.contains_xy(zone, np.array([m.position_mm[0] for m in models]),
                                 np.array([m.position_mm[1] for m in models]))
    return np.asarray(inside & (shapely.distance(zone.exterior, pts) >= r - PARTLY_TOLERANCE_MM))
