"""AT-43 test tables: the bundled rosters merged into small games with exact positions."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from rules.plan import Table, TablePlan, Terrain
from rules.roster import load_roster, merge_rosters

ROSTERS = Path(__file__).resolve().parents[2] / "rules" / "data" / "rosters"


def at43_plan(gap_mm: float = 475.0, *, terrain: tuple[Terrain, ...] = ()) -> TablePlan:
    """Sierra Alpha in a row at y = 100 (leader sa-1 in the middle), golems .256 in a row ``gap_mm`` below.

    Sierra Bravo stands far to the left (x 50-170, y 100), golems .264 far to the right (y 900).
    """
    plan = TablePlan(ruleset="at-43", table=Table(1200.0, 1200.0), terrain=terrain)
    plan = merge_rosters(plan, [load_roster(ROSTERS / "at-43-una-sierra.json"),
                                load_roster(ROSTERS / "at-43-therian-golems.json")])
    xs_sa = {"sa-4": 380.0, "sa-2": 420.0, "sa-1": 500.0, "sa-3": 460.0, "sa-5": 540.0, "sa-6": 580.0}
    pos: dict[str, tuple[float, float]] = {k: (v, 100.0) for k, v in xs_sa.items()}
    for i, mid in enumerate(["sb-1", "sb-2", "sb-3", "sb-4"]):
        pos[mid] = (50.0 + 40.0 * i, 100.0)
    # golems .256: leader g256-1 straight below sa-1, the others spreading away from it
    order = ["g256-1", "g256-2", "g256-3", "g256-4", "g256-5", "g256-6", "g256-7", "g256-8", "g256-9"]
    offsets = [0, -30, 30, -60, 60, -90, 90, -120, 120]
    for mid, dx in zip(order, offsets):
        pos[mid] = (500.0 + dx, 100.0 + gap_mm + (0.0 if dx == 0 else 10.0 * abs(dx) / 30.0))
    for i, mid in enumerate(["g264-1", "g264-2", "g264-3", "g264-4"]):
        pos[mid] = (900.0 + 30.0 * i, 1000.0)
    models = tuple(m.placed_at(pos[m.model_id]) for m in plan.models)  # where the tracker put them
    return dataclasses.replace(plan, models=models)


def moved(plan: TablePlan, where: dict[str, tuple[float, float]]) -> TablePlan:
    """Return ``plan`` with the named models moved to new positions (table mm)."""
    return dataclasses.replace(plan, models=tuple(
        dataclasses.replace(m, position_mm=where.get(m.model_id, m.position_mm)) for m in plan.models))


def only(plan: TablePlan, keep: set[str]) -> TablePlan:
    """Return ``plan`` with only the models ``keep`` (leaders must be among them)."""
    return dataclasses.replace(plan, models=tuple(m for m in plan.models if m.model_id in keep))
