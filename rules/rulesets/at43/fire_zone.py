"""AT-43's fire zone and indirect-fire template radius (AT-43, 2/ Détermination de la zone de feu).

Moved out of the shared :mod:`rules.zones`: only AT-43 has a fire zone.

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
>>> fz = fire_zone(plan, "f", "t")
>>> fz.caught  # both bystanders, nearest the firing leader first
('x2', 'x1')
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

import shapely
import shapely.affinity
from shapely.geometry import Polygon
from shapely.geometry.base import BaseGeometry

from rules.errors import InvalidActionError
from rules.explain import Step, explanation_json
from rules.measure import model_distance_mm
from rules.ontable import placed_only
from rules.plan import Model, TablePlan
from rules.zones import bases_hull, partly_inside


def _size(plan: TablePlan, m: Model) -> float | None:
    size = m.extra.get("size") if m.extra else None
    if size is None and m.profile and plan.profiles and m.profile in plan.profiles:
        prof = plan.profiles[m.profile]
        size = prof.get("size") if hasattr(prof, "get") else None
    return float(size) if isinstance(size, (int, float)) else None


@dataclass(frozen=True)
class FireZone:
    """AT-43 fire zone: its polygon, the models caught in impact order, the ones skipped."""

    firing_unit: str
    target_unit: str
    zone: BaseGeometry
    caught: tuple[str, ...]
    skipped: tuple[tuple[str, str], ...]
    distances_mm: Mapping[str, float]
    steps: tuple[Step, ...] = field(default=())

    def to_json(self) -> dict[str, Any]:
        return {"firing_unit": self.firing_unit, "target_unit": self.target_unit,
                "zone_mm": [list(map(lambda v: round(v, 2), c)) for c in self.zone.exterior.coords],
                "caught": list(self.caught),
                "impact_order": [{"model": mid, "distance_mm": round(self.distances_mm[mid], 2)} for mid in self.caught],
                "skipped": [{"model": mid, "reason": r} for mid, r in self.skipped],
                "explanation": explanation_json(self.steps)}


@placed_only
def fire_zone(plan: TablePlan, firing_unit: str, target_unit: str, *, how: str = "edge",
              target_models: Sequence[str] | None = None, source: str = "AT-43, 2/ Détermination de la zone de feu"
              ) -> FireZone:
    """Return the AT-43 fire zone between two units and who is caught in it.

    The zone is the convex hull of both units' bases (RULES-NOTES choice 6): the
    area between the lines joining the two units' extremities, the units included.
    Every model of another unit whose base is even partly inside is caught; impacts
    go to the nearest to the firing leader first (``how`` measures it). Skipped:
    models smaller than the firers or the targets (``size`` in the model's extra or
    its profile), and prone or kneeling ones (AT-43, Tir direct : qui est touché ?).
    ``target_models`` narrows the target to some models (a single vehicle targeted).
    """
    if firing_unit == target_unit:
        raise InvalidActionError("a unit cannot fire at itself; name two different units")
    firers = plan.models_of(firing_unit)
    targets = plan.models_of(target_unit)
    if target_models is not None:
        chosen = set(target_models)
        targets = tuple(m for m in targets if m.model_id in chosen)
    for uid, ms in ((firing_unit, firers), (target_unit, targets)):
        if not ms:
            raise InvalidActionError(f"unit {uid!r} has no model on the table")
    zone = bases_hull(list(firers) + list(targets))
    others = [m for m in plan.models if m.unit_id not in (firing_unit, target_unit)]
    inside = partly_inside(zone, others)
    leader = plan.leader_of(firing_unit) or firers[0]
    sizes_f = [s for s in (_size(plan, m) for m in firers) if s is not None]
    sizes_t = [s for s in (_size(plan, m) for m in targets) if s is not None]
    floor_size = min(max(sizes_f, default=-math.inf), max(sizes_t, default=-math.inf))
    caught: list[tuple[float, int, str]] = []
    skipped: list[tuple[str, str]] = []
    dist: dict[str, float] = {}
    for k, (m, ins) in enumerate(zip(others, inside)):
        if not ins:
            continue
        d = model_distance_mm(leader, m, how=how)
        dist[m.model_id] = d
        size = _size(plan, m)
        if m.has_status("prone") or m.has_status("kneeling"):
            skipped.append((m.model_id, "prone or kneeling: ignored"))
        elif size is not None and size < floor_size:
            skipped.append((m.model_id, f"size {size:g} is smaller than the firers' or the targets': ignored"))
        else:
            caught.append((d, k, m.model_id))
    caught.sort()
    order = tuple(mid for _, _, mid in caught)
    steps = (
        Step("fire zone", f"the area between the lines joining the extremities of {firing_unit} and "
             f"{target_unit} (convex hull of both units' bases)", source, option="fire_zone=hull"),
        Step("caught", f"{len(order) + len(skipped)} model(s) of other units stand even partly in it", source,
             value=len(order) + len(skipped)),
        Step("impact order", "impacts go first to the models caught, nearest to the firing leader "
             f"{leader.model_id} first: {', '.join(order) if order else 'none'}",
             "AT-43, Tir direct : qui est touché ?", value=list(order)),
        *(Step("skipped", f"{mid}: {why}", "AT-43, Tir direct : qui est touché ?") for mid, why in skipped),
    )
    return FireZone(firing_unit, target_unit, zone, order, tuple(skipped), dist, steps)


def sweep_beyond(obstacle: BaseGeometry, direction: tuple[float, float], length_mm: float) -> BaseGeometry:
    """Return the area an obstacle covers when swept ``length_mm`` along ``direction`` (its lee side)."""
    dx, dy = direction
    norm = math.hypot(dx, dy) or 1.0
    shifted = shapely.affinity.translate(obstacle, dx / norm * length_mm, dy / norm * length_mm)
    return shapely.convex_hull(shapely.union(obstacle, shifted)) if obstacle.geom_type in (
        "LineString", "Polygon") and _is_convex(obstacle) else _sweep_parts(obstacle, dx / norm, dy / norm, length_mm)


def _is_convex(g: BaseGeometry) -> bool:
    if g.geom_type == "LineString":
        return len(g.coords) == 2
    return bool(abs(g.convex_hull.area - g.area) <= 1e-6 * max(g.area, 1.0))


def _sweep_parts(g: BaseGeometry, ux: float, uy: float, length_mm: float) -> BaseGeometry:
    coords = shapely.get_coordinates(g.boundary if g.geom_type.endswith("Polygon") else g)
    quads = []
    for a, b in zip(coords[:-1], coords[1:]):
        quads.append(Polygon([a, b, (b[0] + ux * length_mm, b[1] + uy * length_mm),
                              (a[0] + ux * length_mm, a[1] + uy * length_mm)]).buffer(0))
    parts = [q for q in quads if not q.is_empty]
    if g.geom_type.endswith("Polygon"):
        parts.append(g)
    return shapely.union_all(parts)


def at43_template_radius_cm(area_cm: float, successes: int, failures: int) -> tuple[float, int, list[str]]:
    """Return (radius in cm, impacts per model, reasons) of an AT-43 indirect-fire template.

    All shots failed: the radius is the area of effect; otherwise area × successes,
    capped at 10 cm, and models under a capped template take two impacts
    (AT-43, Tir indirect : qui est touché).

    >>> at43_template_radius_cm(3, 2, 0)[:2]
    (6.0, 1)
    >>> at43_template_radius_cm(3, 4, 2)[:2]
    (10.0, 2)
    >>> at43_template_radius_cm(3, 0, 2)[:2]
    (3.0, 1)
    """
    if area_cm <= 0 or successes < 0 or failures < 0 or successes + failures == 0:
        raise InvalidActionError("an indirect shot needs an area of effect above 0 and at least one die "
                                 f"(got area {area_cm}, {successes} successes, {failures} failures)")
    if successes == 0:
        return float(area_cm), 1, [f"every shot failed: the radius is the area of effect, {area_cm:g} cm"]
    raw = area_cm * successes
    if raw > 10:
        return 10.0, 2, [f"{area_cm:g} cm x {successes} successes = {raw:g} cm, over 10 cm: "
                         "the radius stays 10 cm and each model takes two impacts"]
    return float(raw), 1, [f"{area_cm:g} cm x {successes} successes = {raw:g} cm"]
