"""Star Wars ``range`` for figures merged from the bundled rosters (Règles de Tir: range Por in pas).

Roster figures carry no "Por N" weapon label: the range comes from their profile
(Stormtrooper Por 10, Lieutenant rebelle Por 5) as a shot reads it.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from rules.rulesets.star_wars.actions import shot_range_pas
from rules.errors import InvalidActionError
from rules.plan import parse_game
from rules.questions import ask
from rules.roster import load_roster, merge_rosters

ROSTERS = Path(__file__).resolve().parents[2] / "rules" / "data" / "rosters"
PAS_MM = 25.0


def table(where: dict[str, float]):
    """Both bundled rosters on a bare 1800 x 1200 table; the named figures placed at y = 600, x given."""
    plan = merge_rosters(parse_game({"ruleset": "star-wars", "table": {"width_mm": 1800, "depth_mm": 1200}}),
                         [load_roster(ROSTERS / "star-wars-empire.json"),
                          load_roster(ROSTERS / "star-wars-rebellion.json")])
    for model_id, x in where.items():
        plan = plan.with_model(plan.model(model_id).placed_at((x, 600.0)))
    return plan


def edge_gap(plan, a: str, b: str, pas: float) -> dict[str, float]:
    """x of ``a`` at 100 and of ``b`` so that their bases are ``pas`` apart edge to edge."""
    ra, rb = plan.model(a).base_mm / 2, plan.model(b).base_mm / 2
    return {a: 100.0, b: 100.0 + ra + rb + pas * PAS_MM}


def test_stormtrooper_from_the_roster_shoots_at_its_profile_range() -> None:
    plan = table({})
    assert plan.model("stormtrooper-1").weapons is None  # no "Por 10" label to read
    assert shot_range_pas(plan, plan.model("stormtrooper-1")) == 10.0
    plan = table(edge_gap(plan, "stormtrooper-1", "rebelle-1", 12.0))
    out = ask(plan, "range", ["stormtrooper-1", "rebelle-1"])
    assert out["weapon_range_pas"] == 10.0 and out["band"] == "long"
    assert any("weapon range 10 pas" in s["text"] for s in out["explanation"])
    # --weapon-range still wins over the profile
    assert ask(plan, "range", ["stormtrooper-1", "rebelle-1", "--weapon-range", "15"])["band"] == "normal"


def test_lieutenant_range_5_is_normal_at_4_pas_and_out_of_range_at_11() -> None:
    plan = table({})
    near = table(edge_gap(plan, "lieutenant-1", "stormtrooper-1", 4.0))
    assert ask(near, "range", ["lieutenant-1", "stormtrooper-1"])["band"] == "normal"
    far = table(edge_gap(plan, "lieutenant-1", "stormtrooper-1", 11.0))
    out = ask(far, "range", ["lieutenant-1", "stormtrooper-1"])
    assert out["weapon_range_pas"] == 5.0 and out["band"] == "out of range"


def test_a_figure_without_a_range_still_asks_for_one() -> None:
    plan = table({})
    plan = table(edge_gap(plan, "padawan", "stormtrooper-1", 3.0))  # Padawan rebelle: no Por (TX)
    with pytest.raises(InvalidActionError, match="padawan has no weapon range .*--weapon-range PAS"):
        ask(plan, "range", ["padawan", "stormtrooper-1"])
    assert ask(plan, "range", ["padawan", "stormtrooper-1", "--weapon-range", "4"])["band"] == "normal"
