"""Rules added for issue 13 (item 6), each from a concrete table situation, with exact odds.

The High Fire tables here are FICTITIOUS test values (the real ones are in the game's booklet).
"""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from rules.dice import Dice
from rules.errors import IllegalActionError, MissingTableError
from rules.plan import parse_game
from rules.resolve import resolve
from tests.rules.brute import brute_force

IN = 25.4


def _odds(res: Any, name: str) -> dict[Any, Fraction]:
    return dict(res.odds[name].probs)


# -- Firefight: Pousser / Chuter ------------------------------------------------------------------

def _firefight(status: list[str], elevation: float | None = None) -> Any:
    b1: dict[str, Any] = {"id": "b1", "unit": "v", "x_mm": 140, "y_mm": 100, "base_mm": 25, "status": status}
    if elevation is not None:
        b1["elevation_mm"] = elevation
    return parse_game({"ruleset": "firefight", "table": {"width_mm": 600, "depth_mm": 600},
                       "units": [{"id": "u", "side": "A"}, {"id": "v", "side": "B"}],
                       "models": [{"id": "a1", "unit": "u", "x_mm": 100, "y_mm": 100, "base_mm": 25}, b1]})


def test_firefight_push_a_shaken_model_on_4_up_and_off_a_roof() -> None:
    # b1, Shaken, stands on a roof 3" up next to a1: the attacker pushes it 1.5" off the edge.
    plan = _firefight(["shaken"], elevation=3 * IN)
    req = {"model": "b1", "x_mm": 140 + 1.5 * IN, "y_mm": 100, "to_elevation_mm": 0}
    odds = resolve(plan, "push", req, None)
    assert _odds(odds, "push") == {"pushed": Fraction(1, 2), "not pushed": Fraction(1, 2)}
    assert odds.needed == {"push": "4+"}
    assert any(s.rule == "fall" and s.value == 1 for s in odds.steps)  # 3" drop: AP(1)
    done = resolve(plan, "push", req, Dice.given([4]))
    assert done.result == {"model": "b1", "pushed": True, "fall_in": 3.0}
    assert done.plan_after.model("b1").position_mm == (140 + 1.5 * IN, 100)
    assert done.plan_after.model("b1").elevation_mm is None
    failed = resolve(plan, "push", req, Dice.given([3]))
    assert failed.result["pushed"] is False and failed.plan_after.model("b1").position_mm == (140, 100)
    exact = brute_force(lambda d: resolve(plan, "push", req, d).result["pushed"], key=lambda r: r).probs
    assert dict(exact) == {True: Fraction(1, 2), False: Fraction(1, 2)}


def test_firefight_push_needs_a_shaken_model_and_2_inches_at_most() -> None:
    with pytest.raises(IllegalActionError, match="not Shaken"):
        resolve(_firefight([]), "push", {"model": "b1"}, None)
    with pytest.raises(IllegalActionError, match="2\" at most"):
        resolve(_firefight(["shaken"]), "push", {"model": "b1", "x_mm": 140 + 2.1 * IN, "y_mm": 100}, None)


# -- High Fire: Jet de Qualité with a difficulty ----------------------------------------------------

LETTERS = "ABCDE"


def _hf_tables(tmp_path: Path, drop_row: str | None = None) -> str:
    rows = {str(v): [LETTERS[max(0, min(4, 4 - (v + 12) // 6 - (f - 1) // 4))] for f in range(1, 11)]
            for v in range(-12, 13)}
    if drop_row is not None:
        del rows[drop_row]
    p = tmp_path / "fictitious-tables.json"
    p.write_text(json.dumps({"unitable": {"rows": rows}, "letter_order": list(LETTERS),
                             "results": {"shooting": {}, "assault": {}}, "modifiers": {"shooting": {}, "assault": {}},
                             "weapons": {}}), encoding="utf-8")
    return str(p)


def _hf(tables: str) -> Any:
    from rules.rulesets.high_fire.actions import with_tables_file

    return with_tables_file(parse_game({
        "ruleset": "high-fire", "table": {"width_mm": 600, "depth_mm": 600},
        "units": [{"id": "hq", "side": "blue", "leader": "cpt", "rules": ["command"]}],
        "models": [{"id": "cpt", "unit": "hq", "x_mm": 100, "y_mm": 100, "base_mm": 20, "profile": "officer"},
                   {"id": "sgt", "unit": "hq", "x_mm": 130, "y_mm": 100, "base_mm": 20, "profile": "nco"}],
        "profiles": {"officer": {"QL": 5, "CD": 3, "CR": 3, "AR": 2, "rank": 2},
                     "nco": {"QL": 4, "CD": 3, "CR": 3, "AR": 2, "rank": 1}}}), tables)


def test_high_fire_quality_roll_with_a_difficulty(tmp_path: Path) -> None:
    plan = _hf(_hf_tables(tmp_path))
    # sgt QL 4, difficulty 2: effect value 2; fictitious row 2 = C C C C B B B B A A
    res = resolve(plan, "quality", {"model": "sgt", "difficulty": 2, "success": "A,B"}, None)
    assert [s.value for s in res.steps if s.rule == "Jet de Qualité"] == [2]
    assert _odds(res, "outcome") == {"passed": Fraction(3, 5), "failed": Fraction(2, 5)}
    done = resolve(plan, "quality", {"model": "sgt", "difficulty": 2, "success": "A,B"}, Dice.given([2]))
    assert done.result == {"model": "sgt", "effect_value": 2, "letter": "C", "passed": False}
    # a command unit: its highest-ranked officer (cpt, QL 5) rolls
    cmd = resolve(plan, "quality", {"unit": "hq", "difficulty": 1}, None)
    assert [s.value for s in cmd.steps if s.rule == "Jet de Qualité"] == [4]


def test_high_fire_quality_names_the_missing_row(tmp_path: Path) -> None:
    plan = _hf(_hf_tables(tmp_path, drop_row="1"))
    with pytest.raises(MissingTableError, match='UNITABLE row for effect value 1.*"1"'):
        resolve(plan, "quality", {"model": "sgt", "difficulty": 3}, None)


# -- AT-43: firing at a unit engaged in melee ----------------------------------------------------

def test_at43_firing_at_an_engaged_unit_targets_the_whole_melee() -> None:
    from rules.rulesets.at43.more_actions import engaged_with
    from tests.rules.at43_table import at43_plan, moved

    # Sierra Bravo (UNA) in base contact with golems .264 (y 975 against y 1000, 25 mm bases);
    # Sierra Alpha fires at the golems from 96 cm: portée 9, précision 5 -> 6 on the universal table.
    plan = moved(at43_plan(), {f"sb-{i + 1}": (900.0 + 30 * i, 975.0) for i in range(4)})
    assert engaged_with(plan, "golems-264") == ["sierra-bravo"]
    req = {"firing": "sierra-alpha", "target": "golems-264"}
    odds = resolve(plan, "shoot_melee", req, None)
    assert odds.steps[0].rule == "engaged" and "sierra-bravo" in odds.steps[0].text
    assert any(s.rule == "cover" and "of 8" in s.text for s in odds.steps)  # 4 golems + 4 troopers: one target
    assert dict(odds.odds["hits"].probs)[0] == Fraction(5, 6) ** 6
    for seed in range(20):
        done = resolve(plan, "shoot_melee", req, Dice.seeded(seed))
        units = {m.model_id: m.unit_id for m in done.plan_after.models}
        assert all(units[m] == "sierra-bravo" for m in units if m.startswith("sb-"))  # restored after the shot
        assert all(units[m] == "golems-264" for m in units if m.startswith("g264"))
        if any(r.startswith("sb-") for r in done.result["removed"]):
            break
    else:
        raise AssertionError("no seed hit a friendly trooper in the melee")
    with pytest.raises(IllegalActionError, match="not engaged"):
        resolve(at43_plan(), "shoot_melee", req, None)


# -- Star Wars: move, run, concentrate ---------------------------------------------------------

def _sw() -> Any:
    return parse_game({"ruleset": "star-wars", "table": {"width_mm": 600, "depth_mm": 600},
                       "units": [{"id": "u", "side": "A"}, {"id": "v", "side": "B"}],
                       "models": [{"id": "st", "unit": "u", "x_mm": 100, "y_mm": 100, "base_mm": 25},
                                  {"id": "rb", "unit": "v", "x_mm": 500, "y_mm": 500, "base_mm": 25}],
                       "terrain": [{"id": "rocks", "kind": "rocks", "shape": "area",
                                    "points_mm": [[50, 200], [200, 200], [200, 300], [50, 300]]}]})


def test_star_wars_move_then_run() -> None:
    plan = _sw()
    # 4 pas = 100 mm in the open: allowed; then a run of half a move, 2 pas = 50 mm
    moved = resolve(plan, "move", {"model": "st", "x_mm": 200, "y_mm": 100}, None).plan_after
    assert moved.model("st").position_mm == (200, 100)
    with pytest.raises(IllegalActionError, match="already took its first action"):
        resolve(moved, "move", {"model": "st", "x_mm": 210, "y_mm": 100}, None)
    ran = resolve(moved, "run", {"model": "st", "x_mm": 250, "y_mm": 100}, None).plan_after
    assert ran.model("st").position_mm == (250, 100)
    with pytest.raises(IllegalActionError, match="more than 2 pas"):
        resolve(moved, "run", {"model": "st", "x_mm": 251, "y_mm": 100}, None)
    with pytest.raises(IllegalActionError, match="did not move"):
        resolve(plan, "run", {"model": "st", "x_mm": 120, "y_mm": 100}, None)


def test_star_wars_difficult_ground_counts_double_and_concentrating_is_a_first_action() -> None:
    plan = _sw()
    # 125 mm straight down, 25 of them inside the rocks (y 200 to 225): costs 150 mm = 6 pas > 4
    with pytest.raises(IllegalActionError, match="more than 4 pas"):
        resolve(plan, "move", {"model": "st", "x_mm": 100, "y_mm": 225}, None)
    ok = resolve(plan, "move", {"model": "st", "x_mm": 100, "y_mm": 225, "move_pas": 6}, None)
    assert ok.result["cost"]["value"] == 6.0
    focused = resolve(plan, "concentrate", {"model": "st"}, None).plan_after
    with pytest.raises(IllegalActionError, match="concentrate"):
        resolve(focused, "move", {"model": "st", "x_mm": 150, "y_mm": 100}, None)


# -- Feu à Volonté: firing at a building; support groups -------------------------------------------

FAV_SAMPLE = Path(__file__).resolve().parents[3] / "rules" / "data" / "games" / "feu-a-volonte-sample.json"


def test_fav_firing_at_a_house_and_a_bunker_exact_odds() -> None:
    from rules.plan import load_game

    # para-2 (elite, 4d6 keep 2, LMG +1) fires at house-1 9.8 UD away (-1): attack 4d6k2 + 0 against 2d6
    plan = load_game(FAV_SAMPLE)
    req = {"firing": "para-2", "building": "house-1"}
    odds = resolve(plan, "shoot_building", req, None)
    assert dict(odds.odds["shot"].probs) == {"hit": Fraction(30623, 46656), "no effect": Fraction(9877, 46656),
                                             "out-of-ammo": Fraction(19, 144)}
    import itertools

    count: dict[str, int] = {}
    for a in itertools.product(range(1, 7), repeat=4):  # every roll, counted by hand
        for d in itertools.product(range(1, 7), repeat=2):
            kind = ("out-of-ammo" if a.count(1) >= 2 else
                    "hit" if sum(sorted(a)[2:]) - 1 + 1 > sum(d) else "no effect")
            count[kind] = count.get(kind, 0) + 1
    assert {k: Fraction(v, 6 ** 6) for k, v in count.items()} == dict(odds.odds["shot"].probs)
    bunker = resolve(plan, "shoot_building", {**req, "type": "bunker"}, None)
    assert dict(bunker.odds["shot"].probs)["hit"] < Fraction(30623, 46656)
    done = resolve(plan, "shoot_building", {**req, "type": "bunker"}, Dice.given([6, 5, 2, 3, 4, 3]))
    assert done.result == {"building": "house-1", "type": "bunker", "attack": 11, "defence": 8, "outcome": "hit"}


def test_fav_support_group_of_two_leaves_after_four_wounds() -> None:
    plan = parse_game({"ruleset": "feu-a-volonte", "table": {"width_mm": 900, "depth_mm": 900},
                       "units": [{"id": "mg", "side": "A"}],
                       "models": [{"id": "mg-1", "unit": "mg", "x_mm": 100, "y_mm": 100, "base_mm": 25},
                                  {"id": "mg-2", "unit": "mg", "x_mm": 125, "y_mm": 100, "base_mm": 25}]})
    three = resolve(plan, "support_wound", {"unit": "mg", "wounds": 3}, None)
    assert three.result == {"unit": "mg", "wounds": 3, "limit": 4, "removed": False}
    four = resolve(three.plan_after, "support_wound", {"unit": "mg"}, None)
    assert four.result["removed"] is True and not four.plan_after.models_of("mg")
    assert four.plan_after.state["losses"] == {"A": 2}


# -- Feu à Volonté: solo play (non-player characters) ------------------------------------------------

def _solo(npc_x: float) -> Any:
    return parse_game({"ruleset": "feu-a-volonte", "table": {"width_mm": 900, "depth_mm": 900},
                       "units": [{"id": "cmd", "side": "player"}, {"id": "npc", "side": "npc"}],
                       "models": [{"id": "p1", "unit": "cmd", "x_mm": 100, "y_mm": 100, "base_mm": 25},
                                  {"id": "n1", "unit": "npc", "x_mm": npc_x, "y_mm": 100, "base_mm": 25},
                                  {"id": "n2", "unit": "npc", "x_mm": npc_x + 30, "y_mm": 100, "base_mm": 25}]})


def test_fav_npc_group_charges_within_2_ud_else_moves_by_a_d6() -> None:
    near = resolve(_solo(180), "npc_activate", {"group": "npc"}, None)  # 80 mm = 2 UD at 40 mm: charge
    assert near.result == {"group": "npc", "action": "charge", "target": "p1"}
    far = resolve(_solo(181), "npc_activate", {"group": "npc"}, None)
    assert dict(far.odds["direction (d6 face)"].probs) == {f: Fraction(1, 6) for f in range(1, 7)}
    done = resolve(_solo(400), "npc_activate", {"group": "npc"}, Dice.given([5]))
    assert done.result == {"group": "npc", "action": "move", "direction": 5, "move_ud": 4.0, "sees_now": ["p1"]}


def test_fav_survival_reinforcements_1d4_per_entry_point() -> None:
    res = resolve(_solo(400), "npc_reinforcements", {}, None)
    probs = dict(res.odds["new NPCs"].probs)
    assert probs[3] == Fraction(1, 64) and probs[12] == Fraction(1, 64) and probs[7] == Fraction(12, 64)
    assert resolve(_solo(400), "npc_reinforcements", {"entry_points": 2}, Dice.given([4, 1])).result == {
        "per_entry_point": [4, 1], "total": 5}
