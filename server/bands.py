"""Range bands of a weapon around a model, found by asking the rule set itself.

The page draws rings where a target's band changes. Rather than copying each rule
set's band table into the server, a probe target is walked away from the model and
the rule set's typed hook ``RuleSet.range_band`` is asked at each step; where the band
it gives changes, the boundary is refined by bisection to :data:`BOUNDARY_TOLERANCE_MM`.
So the rings are exactly the rules' bands (AT-43's 10 cm "portées", Feu à Volonté's
4/8/12 UD, Star Wars' range and long range...) with the weapon range the players give.

Examples
--------
>>> from rules.plan import parse_game
>>> plan = parse_game({"ruleset": "at-43", "table": {"width_mm": 600, "depth_mm": 600},
...     "units": [{"id": "u", "side": "A", "leader": "a"}],
...     "models": [{"id": "a", "unit": "u", "x_mm": 100, "y_mm": 300, "base_mm": 30}]})
>>> [round(b["to_mm"]) for b in range_bands(plan, "a")["bands"][:3]]
[115, 215, 315]
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any

from rules.plan import Model, TablePlan, Unit
from server import rulesbridge

PROBE_UNIT = "__range_probe__"
PROBE_MODEL = "__range_probe_model__"
BOUNDARY_TOLERANCE_MM = 0.5
MAX_BANDS = 12


def range_bands(plan: TablePlan, model_id: str, weapon_range: float | None = None) -> dict[str, Any]:
    """Return the rings of the rule set's range bands around ``model_id``.

    Returns ``{"centre_mm", "how", "bands": [{"band", "from_mm", "to_mm"}]}`` where the
    distances are radii from the centre of the model measuring the range (the unit's
    leader when the rule set measures unit to unit), to where a target's base edge (or
    centre, for rule sets measuring centre to centre) enters the next band.
    """
    model = plan.model(model_id)
    rs = rulesbridge.ruleset_of(plan.ruleset)
    options = rs.resolve_options(plan)
    how = rs.measure_how(options)
    unit = rs.unit(options)
    probe_r = model.base_mm / 2.0
    direction, room = _roomiest_direction(plan, model)
    asker, centre = _asker(plan, model, weapon_range)
    step = max(unit.mm / 2.0, 2.0)
    offset = probe_r if how == "edge" else 0.0

    def band_at(radius: float) -> str:
        # probe centre so that its base edge (or centre) is ``radius`` from the measuring centre
        d = radius + offset
        pos = (centre[0] + direction[0] * d, centre[1] + direction[1] * d)
        return asker(pos)

    bands: list[dict[str, Any]] = []
    start, current = 0.0, band_at(model.base_mm / 2.0 + 0.01 if how == "edge" else 0.01)
    r = step
    limit = max(room, step * 2)
    while r <= limit and len(bands) < MAX_BANDS:
        b = band_at(r)
        if b != current:
            lo, hi = r - step, r
            while hi - lo > BOUNDARY_TOLERANCE_MM:
                mid = (lo + hi) / 2.0
                if band_at(mid) == current:
                    lo = mid
                else:
                    hi = mid
            edge = (lo + hi) / 2.0
            bands.append({"band": current, "from_mm": round(start, 1), "to_mm": round(edge, 1)})
            start, current = edge, b
        r += step
    bands.append({"band": current, "from_mm": round(start, 1), "to_mm": None})
    return {"model": model_id, "centre_mm": [round(centre[0], 2), round(centre[1], 2)], "how": how,
            "unit": unit.symbol, "unit_mm": unit.mm, "bands": bands}


def _roomiest_direction(plan: TablePlan, model: Model) -> tuple[tuple[float, float], float]:
    x, y = model.position_mm
    w, d = plan.table.width_mm, plan.table.depth_mm
    options = [((1.0, 0.0), w - x), ((-1.0, 0.0), x), ((0.0, 1.0), d - y), ((0.0, -1.0), y)]
    direction, _ = max(options, key=lambda o: o[1])
    return direction, math.hypot(w, d)


def _asker(plan: TablePlan, model: Model, weapon_range: float | None) -> tuple[Any, tuple[float, float]]:
    """Return ``band_at(probe_position) -> band`` and the centre ranges are measured from."""
    rs = rulesbridge.ruleset_of(plan.ruleset)
    options = rs.resolve_options(plan)
    side = "__range_probe_side__"
    probe_unit = Unit(unit_id=PROBE_UNIT, side=side, name="probe", leader=PROBE_MODEL)
    base = dataclasses.replace(plan, units=plan.units + (probe_unit,))
    by_units = rs.range_between == "units"
    observer, target = (model.unit_id, PROBE_UNIT) if by_units else (model.model_id, PROBE_MODEL)

    def band_at(pos: tuple[float, float]) -> str:
        probe = Model(model_id=PROBE_MODEL, unit_id=PROBE_UNIT, position_mm=pos, base_mm=model.base_mm,
                      height_mm=model.height_mm, profile=model.profile)
        probed = dataclasses.replace(base, models=base.models + (probe,))
        return str(rs.range_band(probed, observer, target, options, weapon_range=weapon_range))

    band_at((model.x_mm + 1.0, model.y_mm))  # raises the rule set's own message on a bad request
    centre = (plan.leader_of(model.unit_id) or model).position_mm if by_units else model.position_mm
    return band_at, centre
