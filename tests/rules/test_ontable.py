"""Roster figures the tracker has not placed yet stay out of every geometric question and action.

Situation: the High Fire sample game (alpha, bravo, red-1, red-2, lone on the table) with
the bundled High Fire rosters merged in; their units blue-hq, blue-1... are not on the
table yet (merge_rosters marks them "off-table" at (0, 0)).
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from rules.errors import IllegalActionError
from rules.measure import distance_to_table_edge_mm, unit_distance_mm
from rules.plan import OFF_TABLE, game_to_dict, load_game, parse_game
from rules.questions import ask
from rules.resolve import resolve
from rules.roster import load_roster, merge_rosters
from rules.rulesets import find_ruleset
from rules.visibility import all_pairs_sight, unit_sight
from server.edits import assign_base, assign_marker, move_model

DATA = Path(__file__).resolve().parents[2] / "rules" / "data"


def merged_high_fire():
    plan = load_game(DATA / "games" / "high-fire-sample.json")
    rosters = [load_roster(DATA / "rosters" / f"high-fire-{side}.json") for side in ("blue", "red")]
    return plan, merge_rosters(plan, rosters)


def test_merged_figures_are_marked_off_table_and_the_game_round_trips() -> None:
    plan, merged = merged_high_fire()
    waiting = [m for m in merged.models if m.unit_id == "blue-hq"]
    assert waiting and all(m.has_status(OFF_TABLE) and not m.on_table for m in waiting)
    assert all(m.on_table for m in merged.models if m.unit_id in ("alpha", "lone"))
    doc = game_to_dict(merged)
    assert parse_game(doc) == merged and game_to_dict(parse_game(doc)) == doc


def test_off_table_figures_do_not_block_alpha_seeing_lone() -> None:
    plan, merged = merged_high_fire()
    assert unit_sight(plan, "alpha", "lone", ruleset=find_ruleset(plan.ruleset)).visible
    # the situation the status guards against: the same figures counted at (0, 0) cut alpha off
    at_origin = dataclasses.replace(merged, models=tuple(dataclasses.replace(m, status=None) for m in merged.models))
    assert not unit_sight(at_origin, "alpha", "lone", ruleset=find_ruleset(at_origin.ruleset)).visible
    sight = unit_sight(merged, "alpha", "lone", ruleset=find_ruleset(merged.ruleset))
    assert sight.visible and sight.seeing == ("al-1", "al-2", "al-3", "al-4", "al-5")
    assert sight.steps[0].rule == "figures off the table" and "bhq-1" in sight.steps[0].text
    answer = ask(merged, "los", ["alpha", "lone"])
    assert answer["visible"] if "visible" in answer else "has line of fire" in answer["answer"]
    assert answer["explanation"][0]["rule"] == "figures off the table"
    assert "not on the table yet" in answer["explanation"][0]["text"]
    ids = all_pairs_sight(merged, ruleset=find_ruleset(merged.ruleset)).ids
    assert "al-1" in ids and "bhq-1" not in ids


def test_distances_ignore_and_refuse_off_table_figures() -> None:
    _, merged = merged_high_fire()
    with pytest.raises(IllegalActionError, match="bhq-1' is not on the table yet"):
        distance_to_table_edge_mm(merged, "bhq-1")
    with pytest.raises(IllegalActionError, match="unit 'blue-hq' has no figure on the table yet"):
        unit_distance_mm(merged, "alpha", "blue-hq")
    with pytest.raises(IllegalActionError, match="not on the table yet"):
        ask(merged, "distance", ["al-1", "bhq-1"])
    half = merged.with_model(merged.model("bhq-1").placed_at((300.0, 300.0)))
    placed_only = half.without_model("bhq-2")  # bhq-2 still waits at (0, 0): it must not be the closest
    assert unit_distance_mm(half, "alpha", "blue-hq") == unit_distance_mm(placed_only, "alpha", "blue-hq")

def test_combat_neither_shoots_with_nor_at_off_table_figures_and_keeps_them() -> None:
    _, merged = merged_high_fire()
    with pytest.raises(IllegalActionError, match="unit 'blue-1' has no figure on the table yet"):
        resolve(merged, "shoot", {"firing": "blue-1", "target": "red-1"}, None)
    with pytest.raises(IllegalActionError, match="unit 'blue-hq' has no figure on the table yet"):
        resolve(merged, "shoot", {"firing": "alpha", "target": "blue-hq"}, None)



def test_an_action_beside_off_table_figures_keeps_them_in_the_game_after() -> None:
    """AT-43 (Tirs): sierra-alpha shoots golems .256 while golem g264-4 still waits off the table."""
    from rules.dice import Dice
    from tests.rules.at43_table import at43_plan

    plan = at43_plan(475.0)
    waiting = dataclasses.replace(plan.model("g264-4"), position_mm=(0.0, 0.0), status=(OFF_TABLE,))
    plan = plan.with_model(waiting)
    shot = {"firing": "sierra-alpha", "target": "golems-256", "weapon": "laser rifle"}
    res = resolve(plan, "shoot", shot, Dice.given([4, 5, 6, 4, 5, 6] + [1, 2, 4, 5, 6, 6]))
    assert res.steps[0].rule == "figures off the table" and res.steps[0].value == ["g264-4"]
    assert res.result["removed"] == ["g256-1", "g256-2", "g256-3", "g256-4"]
    assert res.plan_after.model("g264-4") == waiting
    assert [m.model_id for m in res.plan_after.models] == [m.model_id for m in plan.models
                                                           if m.model_id not in res.result["removed"]]


def test_placing_a_figure_takes_the_off_table_mark_away() -> None:
    _, merged = merged_high_fire()
    m = merged.model("bhq-1")
    assert not assign_marker(merged, "bhq-1", m.marker_id, None, None).model("bhq-1").on_table
    for placed in (assign_marker(merged, "bhq-1", m.marker_id, (300.0, 200.0), 90.0),
                   assign_base(merged, "bhq-1", "base-3", (300.0, 200.0)),
                   move_model(merged, "bhq-1", (300.0, 200.0), None)):
        got = placed.model("bhq-1")
        assert got.on_table and got.position_mm == (300.0, 200.0) and got.status is None
        assert "bhq-1" in all_pairs_sight(placed, ruleset=find_ruleset(placed.ruleset)).ids
    # merging again keeps a placed figure where the tracker put it, on the table
    again = merge_rosters(move_model(merged, "bhq-1", (300.0, 200.0), None),
                          [load_roster(DATA / "rosters" / "high-fire-blue.json")])
    assert again.model("bhq-1").on_table and again.model("bhq-2").has_status(OFF_TABLE)
