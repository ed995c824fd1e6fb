"""A question and an action can never disagree: the same tables through ``ask`` and ``resolve``.

Each case builds one table situation and asks the rules core both ways: the geometric
question a player asks before acting (``cover``, ``range``, ``shooters``, ``firezone``,
``indirect``, ``charge``) and the action that applies it (``shoot``, ``activate``). The
verdicts, modifiers, caught models and radii must be the same.

Two disagreements found by issue 11 were settled here (see the commit): Firefight cover is
judged from the nearest firer that sees each model (both sides, ``RuleSet.in_cover``), and a
model's special rules are its unit's, its profile's and its own (both sides,
``RuleSet.special_rules``: a profile with Stealth gives Stealth to ``ask range`` too).
"""

from __future__ import annotations

import dataclasses
import re
from typing import Any

import pytest

from rules import IllegalActionError, ask, resolve
from rules.dice import Dice
from rules.plan import Terrain
from tests.rules.at43_table import at43_plan, moved
from tests.rules.test_combat_firefight import IN, make_plan

# -- Grimdark Future Firefight: cover ----------------------------------------------------------------

WALL = {"id": "wall", "kind": "barricade", "shape": "line", "points_mm": [[8 * IN, 19 * IN], [13 * IN, 19 * IN]]}
WOOD = {"id": "wood", "kind": "forest", "shape": "area",
        "points_mm": [[8 * IN, 19 * IN], [12 * IN, 19 * IN], [12 * IN, 23 * IN], [8 * IN, 23 * IN]]}
FF_COVER = {
    # the table: the far firer sees b1 mostly hidden by the barricade, the nearest sees it in the open
    "far firer behind a wall, nearest in the open": (
        [("a1", "alpha", 22, 20, "trooper", ["rifle"]), ("a2", "alpha", 10, 8, "trooper", ["rifle"]),
         ("b1", "bravo", 10, 20, "trooper", [])], [WALL], False),
    "nearest firer behind the wall": (
        [("a1", "alpha", 10, 14, "trooper", ["rifle"]), ("a2", "alpha", 30, 20, "trooper", ["rifle"]),
         ("b1", "bravo", 10, 20, "trooper", [])], [WALL], True),
    "inside a forest": (
        [("a1", "alpha", 10, 8, "trooper", ["rifle"]), ("b1", "bravo", 10, 21, "trooper", [])], [WOOD], True),
    "open ground": (
        [("a1", "alpha", 10, 8, "trooper", ["rifle"]), ("b1", "bravo", 10, 21, "trooper", [])], [], False),
    "one of two in the forest is not most": (
        [("a1", "alpha", 10, 8, "trooper", ["rifle"]), ("b1", "bravo", 10, 21, "trooper", []),
         ("b2", "bravo", 16, 21, "trooper", [])], [WOOD], False),
}


@pytest.mark.parametrize("name", FF_COVER)
def test_firefight_cover_question_and_shot_agree(name: str) -> None:
    models, terrain, expected = FF_COVER[name]
    plan = make_plan(models, terrain=terrain)
    answer = ask(plan, "cover", ["alpha", "bravo"])
    shot = resolve(plan, "shoot", {"firing": "alpha", "target": "bravo"}, None)
    bonus = sum(s.value for s in shot.steps if s.rule == "cover")
    assert (answer["cover"], answer["defense_modifier"]) == (expected, int(expected))
    assert bonus == answer["defense_modifier"], [s.text for s in shot.steps if s.rule == "cover"]


# -- Grimdark Future Firefight: range, Stealth from the unit or from the profile ------------------

GHOST_UNIT = {"bravo": ("B", ["Stealth"])}
FF_RANGE = {
    "profile Stealth beyond 9\"": ([("a1", "alpha", 10, 8, "trooper", ["rifle"]),
                                    ("b1", "bravo", 10, 20, "ghost", [])], None, -1),
    "profile Stealth within 9\"": ([("a1", "alpha", 10, 8, "trooper", ["rifle"]),
                                    ("b1", "bravo", 10, 16, "ghost", [])], None, 0),
    "unit Stealth beyond 9\"": ([("a1", "alpha", 10, 8, "trooper", ["rifle"]),
                                 ("b1", "bravo", 10, 20, "trooper", [])], GHOST_UNIT, -1),
    "only one model stealthy": ([("a1", "alpha", 10, 8, "trooper", ["rifle"]), ("b1", "bravo", 10, 20, "ghost", []),
                                 ("b2", "bravo", 12, 20, "trooper", [])], None, 0),
    "no Stealth": ([("a1", "alpha", 10, 8, "trooper", ["rifle"]), ("b1", "bravo", 10, 20, "trooper", [])], None, 0),
}


@pytest.mark.parametrize("name", FF_RANGE)
def test_firefight_range_modifier_question_and_shot_agree(name: str) -> None:
    models, units, expected = FF_RANGE[name]
    plan = make_plan(models, units=units)
    answer = ask(plan, "range", ["alpha", "bravo", "--weapon-range", "24"])
    shot = resolve(plan, "shoot", {"firing": "alpha", "target": "bravo"}, None)
    assert answer["models"]["a1"]["to_hit_modifier"] == expected
    assert answer["modifier"] == expected  # one firer: the unit's answer is the firer's
    assert shot.needed["to hit (rifle)"] == f"{4 - expected}+"  # Quality 4+


# -- Grimdark Future Firefight: charge reach -----------------------------------------------------

FF_CHARGE = {
    "10\" away": ([], 21, True),
    "13\" away": ([], 24, False),
    "forest in the way caps at 6\"": ([{"id": "wood", "kind": "forest", "shape": "area",
                                         "points_mm": [[0, 14 * IN], [20 * IN, 14 * IN], [20 * IN, 16 * IN],
                                                       [0, 16 * IN]]}], 21, False),
}


@pytest.mark.parametrize("name", FF_CHARGE)
def test_firefight_charge_reach_question_and_activation_agree(name: str) -> None:
    terrain, target_y_in, expected = FF_CHARGE[name]
    plan = make_plan([("a1", "alpha", 10, 10, "trooper", ["blade"]), ("b1", "bravo", 10, target_y_in, "trooper", [])],
                     terrain=terrain, state={"turn": "A"})
    answer = ask(plan, "charge", ["alpha", "bravo"])
    try:
        resolve(plan, "activate", {"unit": "alpha", "action": "charge", "target": "bravo"}, None)
        allowed = True
    except IllegalActionError:
        allowed = False
    assert answer["can_charge"] is expected
    assert allowed is expected


# -- AT-43: range band, who can shoot, cover, fire zone, template ---------------------------------

LASER = {"firing": "sierra-alpha", "target": "golems-256", "weapon": "laser rifle"}
WALL_AT43 = Terrain("wall-1", "low-wall", "line", ((300.0, 540.0), (700.0, 540.0)), height_mm=25.0)
CONTAINER = Terrain("box", "container", "area", ((350.0, 200.0), (445.0, 200.0), (445.0, 300.0), (350.0, 300.0)))
AT43_TABLES = {
    "open": lambda: at43_plan(475.0),
    "behind a low wall": lambda: dataclasses.replace(at43_plan(475.0), terrain=(WALL_AT43,)),
    "firing leader close to the wall": lambda: moved(dataclasses.replace(at43_plan(475.0), terrain=(WALL_AT43,)),
                                                     {"sa-1": (500.0, 450.0)}),
    "a container hides some golems": lambda: dataclasses.replace(at43_plan(300.0), terrain=(CONTAINER,)),
    "golems .264 behind .256": lambda: moved(at43_plan(475.0), {"g264-1": (500.0, 1000.0),
                                                                "g264-2": (470.0, 1000.0)}),
}


def _enough(plan: Any, req: dict[str, Any], head: list[int]) -> Any:
    """Resolve with the dice ``head`` then as many 1s as the resolution asks for."""
    from rules.errors import InvalidActionError

    for extra in range(60):
        try:
            return resolve(plan, "shoot", req, Dice.given(head + [1] * extra))
        except InvalidActionError as exc:
            if "not enough dice" not in str(exc):
                raise
    raise AssertionError("more than 60 dice")


def _step(res: Any, rule: str) -> Any:
    found = [s for s in res.steps if s.rule == rule]
    return found[0] if found else None


@pytest.mark.parametrize("name", AT43_TABLES)
def test_at43_range_sight_and_cover_question_and_shot_agree(name: str) -> None:
    plan = AT43_TABLES[name]()
    target = "golems-264" if ".264" in name else "golems-256"
    shot = resolve(plan, "shoot", {**LASER, "target": target}, None)
    band = ask(plan, "range", ["sierra-alpha", target])["band"]
    assert _step(shot, "range").value == band
    shooters = ask(plan, "shooters", ["sierra-alpha", target])
    firers = _step(shot, "firers")
    assert firers.value == len(shooters["can_shoot"])
    assert sorted(re.findall(r"sa-\d", firers.text)) == sorted(shooters["can_shoot"])
    if target == "golems-256":
        cover = ask(plan, "cover", ["sierra-alpha", target])
        assert _step(shot, "cover").value == cover["in_cover_or_hidden"]
        assert (_step(shot, "cover save") is not None) == cover["saves"]


def test_at43_fire_zone_question_and_shot_catch_the_same_models_in_the_same_order() -> None:
    plan = AT43_TABLES["golems .264 behind .256"]()
    zone = ask(plan, "firezone", ["sierra-alpha", "golems-264"])
    shot = resolve(plan, "shoot", {**LASER, "target": "golems-264"}, None)
    step = _step(shot, "fire zone")
    assert step.value == len(zone["caught"])
    assert step.text.split("in this order: ")[1].split(", ") == zone["caught"]


@pytest.mark.parametrize("dice, successes, failures", [([6, 6], 2, 0), ([6, 1, 4], 1, 1), ([3, 2, 4], 0, 2)])
def test_at43_template_question_and_indirect_shot_give_the_same_radius_and_models(
        dice: list[int], successes: int, failures: int) -> None:
    plan = at43_plan(475.0)
    req = {"firing": "sierra-bravo", "target": "g256-1", "weapon": "grenade launcher"}
    shot = _enough(plan, req, dice)
    tpl = shot.result["template"]
    direction = [] if tpl["deviation_direction"] is None else ["--direction", str(tpl["deviation_direction"])]
    answer = ask(plan, "indirect", ["sierra-bravo", "g256-1", "--area", "3", "--successes", str(successes),
                                    "--failures", str(failures), *direction])
    assert answer["radius"]["value"] == pytest.approx(tpl["radius_cm"])
    assert answer["centre_mm"] == pytest.approx(tpl["centre_mm"], abs=0.01)  # both round, to 2 and 3 places
    assert sorted(answer["under"]) == sorted(tpl["under"])
    assert answer["impacts_per_model"] == tpl["impacts_each"]
