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
import json
from typing import Any, Mapping, Sequence

from rules.plan import Objective, Table, TablePlan, Terrain


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
    as they were when ``None``); a position puts an ``"off-table"`` figure on the table.
    ``marker_id=None`` removes the model's marker.
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


# -- switching rule set: the terrain pieces' kinds in the new rule set ----------------------------
def _kind_score(old: Mapping[str, Any] | None, name: str, new: Mapping[str, Any]) -> int:
    """How close a kind of the new rule set is to a piece's kind (higher is closer)."""
    if old is None:  # the piece's kind is unknown to the rule set it was drawn under
        return 5 * (name == new["kind"])
    return (8 * (name == new["kind"]) + 4 * (old.get("sight") == new.get("sight"))
            + 2 * (old.get("cover") == new.get("cover")) + (old.get("movement") == new.get("movement")))


def propose_kinds(plan: TablePlan, new_kinds: Sequence[Mapping[str, Any]],
                  old_kinds: Sequence[Mapping[str, Any]] | None = None) -> list[dict[str, Any]]:
    """Propose, for each terrain piece, the nearest kind of another rule set (for the player to confirm).

    Nearest: the same name when the new rule set has it for that shape, else the kind that
    treats sight, then cover, then movement the same way. ``new_kinds`` / ``old_kinds`` are
    :func:`server.rulesbridge.terrain_kinds` lists (old: the game's current rule set).

    >>> from rules.plan import parse_game
    >>> plan = parse_game({"ruleset": "firefight", "table": {"width_mm": 600, "depth_mm": 600},
    ...     "terrain": [{"id": "w", "kind": "wall", "shape": "line", "points_mm": [[0, 0], [9, 9]]}]})
    >>> new = [{"kind": "low-wall", "shapes": ["line"], "sight": "cover", "cover": True, "movement": "open"},
    ...        {"kind": "building", "shapes": ["area"], "sight": "blocks", "cover": True, "movement": "impassable"},
    ...        {"kind": "fence", "shapes": ["line"], "sight": "blocks", "cover": True, "movement": "linear"}]
    >>> old = [{"kind": "wall", "shapes": ["line"], "sight": "blocks", "cover": True, "movement": "impassable"}]
    >>> [(p["terrain"], p["proposed"], p["choices"]) for p in propose_kinds(plan, new, old)]
    [('w', 'fence', ['low-wall', 'fence'])]
    """
    if old_kinds is None:
        from server import rulesbridge  # imported here: rulesbridge loads the rules packages lazily
        try:
            old_kinds = rulesbridge.terrain_kinds(plan.ruleset)
        except ValueError:
            old_kinds = []
    old_by_name = {k["kind"]: k for k in old_kinds}
    out: list[dict[str, Any]] = []
    for piece in plan.terrain:
        choices = [k for k in new_kinds if piece.shape in k["shapes"]]
        old = old_by_name.get(piece.kind)
        best = max(choices, key=lambda k: _kind_score(old, piece.kind, k), default=None)
        out.append({"terrain": piece.terrain_id, "name": piece.name, "kind": piece.kind, "shape": piece.shape,
                    "proposed": best["kind"] if best else None, "same": best is not None and best["kind"] == piece.kind,
                    "choices": [k["kind"] for k in choices]})
    return out


def retype_terrain(plan: TablePlan, mapping: Mapping[str, str]) -> TablePlan:
    """Return the plan whose terrain pieces named in ``mapping`` have the kind it gives."""
    return dataclasses.replace(plan, terrain=tuple(
        dataclasses.replace(t, kind=mapping[t.terrain_id]) if t.terrain_id in mapping else t for t in plan.terrain))


# -- what an applied resolution changed, told in the log -----------------------------------------
def _model_words(plan: TablePlan, model_id: str) -> dict[str, Any]:
    m = plan.model(model_id)
    unit = next((u for u in plan.units if u.unit_id == m.unit_id), None)
    return {"model": model_id, "name": m.name or model_id, "unit": m.unit_id,
            "unit_name": (unit.name if unit and unit.name else m.unit_id), "marker_id": m.marker_id}


def what_changed(before: TablePlan, after: TablePlan) -> dict[str, Any]:
    """Return what a resolution changed: models removed, statuses, model and unit counters, game state.

    >>> from rules.plan import parse_game
    >>> g = {"ruleset": "firefight", "table": {"width_mm": 600, "depth_mm": 600},
    ...      "units": [{"id": "u", "side": "A", "name": "Cultists"}],
    ...      "models": [{"id": "a", "unit": "u", "x_mm": 9, "y_mm": 9, "base_mm": 25, "name": "Bob"},
    ...                 {"id": "b", "unit": "u", "x_mm": 90, "y_mm": 9, "base_mm": 25}]}
    >>> before = parse_game(g)
    >>> after = parse_game(dict(g, models=[dict(g["models"][1], status=["shaken"])]))
    >>> ch = what_changed(before, after)
    >>> [r["name"] for r in ch["removed"]], ch["status"][0]["added"]
    (['Bob'], ['shaken'])
    """
    after_ids = {m.model_id: m for m in after.models}
    removed = [_model_words(before, m.model_id) for m in before.models if m.model_id not in after_ids]
    status: list[dict[str, Any]] = []
    counters: list[dict[str, Any]] = []
    for m in before.models:
        n = after_ids.get(m.model_id)
        if n is None:
            continue
        old_s, new_s = set(m.status or ()), set(n.status or ())
        if old_s != new_s:
            status.append({**_model_words(before, m.model_id), "added": sorted(new_s - old_s),
                           "removed": sorted(old_s - new_s)})
        diff = _diff(m.extra, n.extra)
        if diff:
            counters.append({**_model_words(before, m.model_id), "changed": diff})
    units_after = {u.unit_id: u for u in after.units}
    units: list[dict[str, Any]] = []
    for u in before.units:
        n2 = units_after.get(u.unit_id)
        diff = _diff(u.extra, n2.extra) if n2 is not None else {}
        if diff:
            units.append({"unit": u.unit_id, "unit_name": u.name or u.unit_id, "changed": diff})
    return {"removed": removed, "status": status, "models": counters, "units": units,
            "state": _diff(before.state or {}, after.state or {})}


def _diff(old: Mapping[str, Any], new: Mapping[str, Any]) -> dict[str, list[Any]]:
    """Return ``{key: [old, new]}`` for the keys whose value differs (JSON values)."""
    out: dict[str, list[Any]] = {}
    for key in sorted(set(old) | set(new)):
        a, b = _plain(old.get(key)), _plain(new.get(key))
        if json.dumps(a, sort_keys=True, default=str) != json.dumps(b, sort_keys=True, default=str):
            out[key] = [a, b]
    return out


def _plain(v: Any) -> Any:
    if isinstance(v, Mapping):
        return {str(k): _plain(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [_plain(x) for x in v]
    return v


def names_of(plan: TablePlan, request: Mapping[str, Any]) -> dict[str, str]:
    """Return the readable names of the units and models a request names (for the log)."""
    units = {u.unit_id: (u.name or u.unit_id) for u in plan.units}
    models = {m.model_id: (m.name or m.model_id) for m in plan.models}
    out: dict[str, str] = {}
    for key, value in request.items():
        if isinstance(value, str) and (value in units or value in models):
            out[key] = units.get(value) or models[value]
    return out
