"""Changes the page makes to the game: set-up, terrain, objectives, marker assignment.

Pure functions from a :class:`~rules.plan.TablePlan` and validated arguments to a new
plan; the overlay records each one as a row of the event log.

Examples
--------
>>> from rules.plan import parse_game
>>> plan = parse_game({"ruleset": "at-43", "table": {"width_mm": 600, "depth_mm": 600},
...                    "units": [{"id": "u", "side": "A"}],
...                    "models": [{"id": "m", "unit": "u", "x_mm": 1, "y_mm": 2, "base_mm": 25}]})
>>> plan = add_terrain(plan, kind="ruins", shape="area", points_mm=[(0, 0), (50, 0), (50, 50)])
>>> plan.terrain[0].terrain_id
'terrain-1'
>>> assign_marker(plan, "m", 17, (100.0, 120.0), 90.0).model("m").marker_id
17
"""

from __future__ import annotations

import dataclasses
from typing import Sequence

from rules.plan import Objective, TablePlan, Table, Terrain


def _next_id(prefix: str, taken: Sequence[str]) -> str:
    n = 1
    while f"{prefix}-{n}" in taken:
        n += 1
    return f"{prefix}-{n}"


def set_ruleset(plan: TablePlan, ruleset: str) -> TablePlan:
    """Return the plan played under ``ruleset`` (one of ``rules.rulesets.RULESET_IDS``)."""
    return dataclasses.replace(plan, ruleset=ruleset)


def set_table(plan: TablePlan, width_mm: float, depth_mm: float) -> TablePlan:
    """Return the plan on a table of ``width_mm`` x ``depth_mm``."""
    return dataclasses.replace(plan, table=Table(float(width_mm), float(depth_mm)))


def add_terrain(plan: TablePlan, *, kind: str, shape: str, points_mm: Sequence[tuple[float, float]],
                height_mm: float | None = None, name: str | None = None) -> TablePlan:
    """Return the plan with a new terrain piece (id ``terrain-N``)."""
    piece = Terrain(terrain_id=_next_id("terrain", [t.terrain_id for t in plan.terrain]), kind=kind,
                    shape=shape, points_mm=tuple((float(x), float(y)) for x, y in points_mm),
                    height_mm=height_mm, name=name)
    return dataclasses.replace(plan, terrain=plan.terrain + (piece,))


def remove_terrain(plan: TablePlan, terrain_id: str) -> TablePlan:
    """Return the plan without terrain piece ``terrain_id``."""
    plan.terrain_piece(terrain_id)
    return dataclasses.replace(plan, terrain=tuple(t for t in plan.terrain if t.terrain_id != terrain_id))


def add_objective(plan: TablePlan, position_mm: tuple[float, float], name: str | None = None) -> TablePlan:
    """Return the plan with a new objective marker (id ``obj-N``)."""
    obj = Objective(_next_id("obj", [o.objective_id for o in plan.objectives]),
                    (float(position_mm[0]), float(position_mm[1])), name)
    return dataclasses.replace(plan, objectives=plan.objectives + (obj,))


def remove_objective(plan: TablePlan, objective_id: str) -> TablePlan:
    """Return the plan without objective ``objective_id``."""
    plan.objective(objective_id)
    return dataclasses.replace(plan, objectives=tuple(o for o in plan.objectives if o.objective_id != objective_id))


def assign_marker(plan: TablePlan, model_id: str, marker_id: int | None,
                  position_mm: tuple[float, float] | None, facing_deg: float | None) -> TablePlan:
    """Return the plan where ``model_id`` carries ``marker_id`` (taken from any other model).

    ``position_mm`` / ``facing_deg`` are where the tracker sees that marker now (kept
    as they were when ``None``); a position puts an ``"off-table"`` figure on the table. ``marker_id=None`` removes the model's marker.
    """
    model = plan.model(model_id)
    models = []
    for m in plan.models:
        if m.model_id != model_id and marker_id is not None and m.marker_id == marker_id:
            m = dataclasses.replace(m, marker_id=None)
        models.append(m)
    new = dataclasses.replace(model, marker_id=marker_id)
    if position_mm is not None:  # seen by the tracker: on the table now (no longer "off-table")
        new = new.placed_at(position_mm)
    if facing_deg is not None:
        new = dataclasses.replace(new, facing_deg=_facing(facing_deg))
    plan = dataclasses.replace(plan, models=tuple(models))
    return plan.with_model(new)


def assign_base(plan: TablePlan, model_id: str, base_id: str, position_mm: tuple[float, float]) -> TablePlan:
    """Return the plan where ``model_id`` stands on the bare base the tracker calls ``base_id``.

    The link is kept in the model's ``extra["base_track"]`` (and taken from any other model).
    """
    plan.model(model_id)
    models = []
    for m in plan.models:
        extra = dict(m.extra)
        if m.model_id == model_id:
            extra["base_track"] = base_id
            m = dataclasses.replace(m, extra=extra).placed_at(position_mm)  # no longer "off-table"
        elif extra.get("base_track") == base_id:
            extra.pop("base_track")
            m = dataclasses.replace(m, extra=extra)
        models.append(m)
    return dataclasses.replace(plan, models=tuple(models))


def move_model(plan: TablePlan, model_id: str, to_mm: tuple[float, float], facing_deg: float | None) -> TablePlan:
    """Return the plan with ``model_id`` standing at ``to_mm`` (and facing ``facing_deg`` when given)."""
    model = plan.model(model_id)
    new = model.placed_at(to_mm)  # a figure put somewhere stands on the table (no longer "off-table")
    if facing_deg is not None:
        new = dataclasses.replace(new, facing_deg=_facing(facing_deg))
    return plan.with_model(new)


def set_elevation(plan: TablePlan, model_id: str, elevation_mm: float | None) -> TablePlan:
    """Return the plan with ``model_id`` standing ``elevation_mm`` above the table top (a floor, a hill;
    ``None`` or 0 = on the table). See docs/heights.md."""
    model = plan.model(model_id)
    value = None if elevation_mm is None or elevation_mm == 0 else float(elevation_mm)
    return plan.with_model(dataclasses.replace(model, elevation_mm=value))


def model_for_base(plan: TablePlan, base_id: str) -> str | None:
    """Return the id of the model assigned to bare base ``base_id``, if any."""
    for m in plan.models:
        if m.extra.get("base_track") == base_id:
            return m.model_id
    return None


def _facing(facing_deg: float) -> float:
    value = float(facing_deg) % 360.0
    return 0.0 if value >= 360.0 else value
