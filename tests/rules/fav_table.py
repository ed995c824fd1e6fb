"""Feu à Volonté test tables: Micka's paras against the US platoon on a 900 x 900 mm table (UD = 40 mm)."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from rules.frozen import freeze
from rules.plan import Table, TablePlan, Terrain
from rules.roster import load_roster, merge_rosters

ROSTERS = Path(__file__).resolve().parents[2] / "rules" / "data" / "rosters"
UD = 40.0


def fav_plan(*, terrain: tuple[Terrain, ...] = ()) -> TablePlan:
    """US figures in a row at y = 100 facing +y (90°), paras in a row at y = 500 facing -y (270°).

    us-N stands at x = 100 + 80 N; para-N at the same x: 10 UD apart straight across.
    """
    plan = TablePlan(ruleset="feu-a-volonte", table=Table(900.0, 900.0), terrain=terrain,
                     options=freeze({"ud_mm": UD}))
    plan = merge_rosters(plan, [load_roster(ROSTERS / "feu-a-volonte-us-platoon.json"),
                                load_roster(ROSTERS / "feu-a-volonte-micka-paras.json")])
    us = ["us-leader", "us-second", "us-1", "us-2", "us-3", "us-4", "us-lmg", "us-sniper", "us-rookie"]
    paras = ["para-leader", "para-second", "para-1", "para-2", "para-3", "para-4"]
    where = {mid: ((100.0 + 80.0 * i, 100.0), 90.0) for i, mid in enumerate(us)}
    where |= {mid: ((100.0 + 80.0 * i, 500.0), 270.0) for i, mid in enumerate(paras)}
    return dataclasses.replace(plan, models=tuple(  # where the tracker put them
        m.placed_at(where[m.model_id][0], where[m.model_id][1]) for m in plan.models))


def place(plan: TablePlan, where: dict[str, tuple[float, float]]) -> TablePlan:
    """Return ``plan`` with the named figures moved (table mm)."""
    return dataclasses.replace(plan, models=tuple(
        dataclasses.replace(m, position_mm=where.get(m.model_id, m.position_mm)) for m in plan.models))
