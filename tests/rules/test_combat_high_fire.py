"""High Fire: activation points, the UNITABLE read from a players' tables file, shooting, assaults, motivation.

The tables used here are FICTITIOUS TEST VALUES written by the tests (the real ones are
in the game's booklet, which the project does not have); they only check the mechanics.
"""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path
from typing import Any, Callable

import pytest

from rules.rulesets.high_fire import actions as hf
from rules.resolve import resolve
from rules.dice import Dice
from tests.rules.brute import brute_force
from rules.errors import IllegalActionError, InvalidActionError, MissingTableError, RosterError
from rules.plan import dump_game, parse_game
from rules.roster import load_roster, merge_rosters, parse_roster

IN = 25.4
ROSTERS = Path(__file__).resolve().parents[2] / "rules" / "data" / "rosters"
LETTERS = "ABCDE"


def fake_tables(**changes: Any) -> dict:
    """FICTITIOUS test tables: letter index = clamp(6 - value // 2 - face // 3), nothing from the booklet."""
    rows = {}
    for v in range(-12, 13):
        rows[str(v)] = [LETTERS[max(0, min(4, 4 - (v + 12) // 6 - (f - 1) // 4))] for f in range(1, 11)]
    data = {
        "unitable": {"rows": rows},
        "letter_order": list(LETTERS),
        "results": {"shooting": {"A": "out-of-action", "B": "wounded", "C": "stunned", "D": "none", "E": "none"},
                    "assault": {"A": "out-of-action", "B": "wounded", "C": "stunned", "D": "stunned", "E": "none"}},
        "modifiers": {"shooting": {"sparse-partial": -1, "dense-solid": -2, "long range": -1},
                      "assault": {"charge": 1}},
        "weapons": {"rifle": {"pf": 2, "range_in": 24, "extra_d10": 0},
                    "launcher": {"pf": 3, "range_in": 30, "extra_d10": 1, "indirect": True}},
    }
    data.update(changes)
    return data


@pytest.fixture
def tables_path(tmp_path: Path) -> str:
    p = tmp_path / "my-high-fire-tables.json"
    p.write_text(json.dumps(fake_tables()), encoding="utf-8")
    return str(p)


PROFILES = {"trooper": {"QL": 3, "CD": 3, "CR": 2, "AR": 2}, "officer": {"QL": 5, "CD": 3, "CR": 3, "AR": 2, "rank": 2},
            "militia": {"QL": 2, "CD": 2, "CR": 2, "AR": 1}, "boss": {"QL": 4, "CD": 2, "CR": 3, "AR": 1, "rank": 1}}


def make_plan(models: list[tuple], *, tables: str | None, units: dict | None = None, terrain: list = (),
              state: dict | None = None):
    """models: (id, unit, x_in, y_in, profile, weapons[, statuses]); side = 'blue' for units starting with b, else 'red'."""
    unit_ids: list[str] = []
    for m in models:
        if m[1] not in unit_ids:
            unit_ids.append(m[1])
    units = units or {}
    doc: dict[str, Any] = {
        "ruleset": "high-fire", "table": {"width_mm": 1200, "depth_mm": 1200},
        "units": [{"id": u, "side": "blue" if u.startswith("b") else "red", "leader": next(m[0] for m in models if m[1] == u),
                   **({"rules": units[u]} if u in units else {})} for u in unit_ids],
        "models": [{"id": m[0], "unit": m[1], "x_mm": m[2] * IN, "y_mm": m[3] * IN, "base_mm": 20, "profile": m[4],
                    "weapons": list(m[5]), **({"status": list(m[6])} if len(m) > 6 else {})} for m in models],
        "terrain": list(terrain), "profiles": PROFILES, "weapons": {"rifle": {}, "launcher": {}},
    }
    if tables is not None:  # the test is the edge: it reads the players' file into the game
        doc["options"] = {"high_fire_tables": json.loads(Path(tables).read_text(encoding="utf-8"))}
    if state is not None:
        doc["state"] = state
    return parse_game(doc)


def enumerate_dice(fn: Callable[[Dice], Any]) -> dict:
    """Return outcome -> exact chance of ``fn(dice)`` over every dice sequence it can ask for."""
    return dict(brute_force(fn, key=lambda out: out, limit=10**7).probs)


SQUADS = [("b1", "blues", 2, 2, "trooper", ["rifle"]), ("b2", "blues", 2.9, 2, "trooper", ["rifle"]),
          ("r1", "reds", 2, 14, "militia", ["rifle"]), ("r2", "reds", 2.9, 14, "militia", ["rifle"])]


# -- the shipped tables file -------------------------------------------------------------------


def test_shipped_tables_are_empty_and_say_what_is_missing():
    data = json.loads(hf.TABLES_PATH.read_text(encoding="utf-8"))
    assert data["unitable"]["rows"] == {} and data["letter_order"] == []
    assert data["results"]["shooting"] == {} and data["modifiers"]["shooting"] == {}
    assert [k for k in data["weapons"] if not k.startswith("_")] == []
    plan = make_plan(SQUADS, tables=None)
    with pytest.raises(MissingTableError, match="weapon 'rifle'.*tables.json"):
        hf.shoot(plan, {"firing": "blues", "target": "reds"}, None)


def test_missing_row_and_missing_result_are_named(tmp_path):
    p = tmp_path / "t.json"
    data = fake_tables()
    del data["unitable"]["rows"]["2"]
    p.write_text(json.dumps(data))
    plan = make_plan(SQUADS, tables=str(p))
    # ATT 3 + 2 = 5, DEF 1 + ceil(2/2) = 2: effect value 3 ... rows are there; remove the one needed
    r = hf.shoot(plan, {"firing": "blues", "target": "reds"}, None)
    assert {s.value for s in r.steps if s.rule == "effect value"} == {3}
    data["unitable"]["rows"].pop("3")
    p.write_text(json.dumps(data))
    with pytest.raises(MissingTableError, match='UNITABLE row for effect value 3.*"3"'):
        hf.shoot(make_plan(SQUADS, tables=str(p)), {"firing": "blues", "target": "reds"}, None)
    data = fake_tables()
    del data["results"]["shooting"]["C"]
    p.write_text(json.dumps(data))
    with pytest.raises(MissingTableError, match="result 'C' in shooting"):
        hf.shoot(make_plan(SQUADS, tables=str(p)), {"firing": "blues", "target": "reds"}, None)


def test_terrain_modifier_missing_from_the_tables(tmp_path):
    p = tmp_path / "t.json"
    data = fake_tables()
    del data["modifiers"]["shooting"]["sparse-partial"]
    p.write_text(json.dumps(data))
    wood = {"id": "wood", "kind": "sparse-partial", "shape": "area",
            "points_mm": [[0, 13 * IN], [5 * IN, 13 * IN], [5 * IN, 15 * IN], [0, 15 * IN]]}
    with pytest.raises(MissingTableError, match="shooting modifier 'sparse-partial'"):
        hf.shoot(make_plan(SQUADS, tables=str(p), terrain=[wood]), {"firing": "blues", "target": "reds"}, None)


# -- characteristics and shooting ------------------------------------------------------------------


def test_attack_and_defence_values_from_the_characteristics():
    assert hf.attack_value(PROFILES["trooper"], {"pf": 2}) == 5
    assert hf.defence_value(PROFILES["trooper"]) == 4  # AR 2 + ceil(3 / 2)
    assert hf.defence_value(PROFILES["militia"]) == 2


def test_shooting_odds_equal_enumeration(tables_path):
    plan = make_plan(SQUADS, tables=tables_path)
    req = {"firing": "blues", "target": "reds"}
    r = hf.shoot(plan, req, None)
    brute = enumerate_dice(lambda d: tuple(hf.shoot(plan, req, d).result["summary"]))
    assert brute == dict(r.odds["outcome (out of action, wounded, stunned)"].probs)


def test_shot_with_dice_and_two_wounds_make_out_of_action(tables_path):
    plan = make_plan([("b1", "blues", 2, 2, "trooper", ["rifle"]), ("b2", "blues", 2.9, 2, "trooper", ["rifle"]),
                      ("r1", "reds", 2, 14, "militia", ["rifle"], ["wounded"])], tables=tables_path)
    # effect value 3: faces 1-4 -> B (wounded) in the fake table
    r = hf.shoot(plan, {"firing": "blues", "target": "reds"}, Dice.given([1, 9]))
    assert r.result["states"] == {"r1": ["out-of-action"]}
    assert r.plan_after.model("r1").status == ("out-of-action",)


def test_effects_spread_one_per_figure_first():
    order = (("a", ()), ("b", ()), ("c", ()))
    states = dict(hf.allocate(order, ("stunned", "wounded", "wounded")))
    assert states == {"a": ("wounded",), "b": ("wounded",), "c": ("stunned",)}
    states = dict(hf.allocate((("a", ()), ("b", ())), ("wounded", "wounded", "wounded")))
    assert states == {"a": ("out-of-action",), "b": ("wounded",)}


def test_aimed_shot_and_cover_modifiers(tables_path):
    wood = {"id": "wood", "kind": "sparse-partial", "shape": "area",
            "points_mm": [[0, 13 * IN], [5 * IN, 13 * IN], [5 * IN, 15 * IN], [0, 15 * IN]]}
    plan = make_plan(SQUADS, tables=tables_path, terrain=[wood], state={"actions": {"blues": "aimed"}})
    r = hf.shoot(plan, {"firing": "blues", "target": "reds", "modifiers": ["long range"]}, None)
    mods = [s.value for s in r.steps if s.rule == "modifier"]
    assert sorted(mods) == [-1, -1, 1]  # Tir appuyé +1, sparse-partial -1 (2 of 2 figures), long range -1
    assert {s.value for s in r.steps if s.rule == "effect value"} == {2}


def test_no_line_of_fire_and_out_of_range(tables_path):
    bunker = {"id": "bunker", "kind": "blocking", "shape": "area",
              "points_mm": [[0, 7 * IN], [6 * IN, 7 * IN], [6 * IN, 9 * IN], [0, 9 * IN]]}
    with pytest.raises(IllegalActionError, match="no line of fire"):
        hf.shoot(make_plan(SQUADS, tables=tables_path, terrain=[bunker]), {"firing": "blues", "target": "reds"}, None)
    far = [("b1", "blues", 1, 0, "trooper", ["rifle"]), ("r1", "reds", 1, 24.1, "militia", [])]
    with pytest.raises(IllegalActionError, match="beyond the 24"):
        hf.shoot(make_plan(far, tables=tables_path), {"firing": "blues", "target": "reds"}, None)


def test_indirect_fire_needs_an_observation(tables_path):
    bunker = {"id": "bunker", "kind": "blocking", "shape": "area",
              "points_mm": [[0, 7 * IN], [6 * IN, 7 * IN], [6 * IN, 9 * IN], [0, 9 * IN]]}
    models = [("b1", "blues", 2, 2, "trooper", ["launcher"]), ("b5", "bspot", 10, 8, "trooper", []),
              ("r1", "reds", 2, 14, "militia", [])]
    plan = make_plan(models, tables=tables_path, terrain=[bunker], state={"actions": {"bspot": "observe"}})
    with pytest.raises(IllegalActionError, match="no line of fire"):
        hf.shoot(plan, {"firing": "blues", "target": "reds"}, None)
    plan = hf.observe(plan, {"observer": "bspot", "target": "reds"}, None).plan_after
    r = hf.shoot(plan, {"firing": "blues", "target": "reds"}, None)
    assert [s for s in r.steps if s.rule == "indirect fire"]
    assert sum(1 for s in r.steps if s.rule == "effect value") == 1 and "2 D10" in [s for s in r.steps if s.rule == "effect value"][0].text
    hidden = make_plan([models[0], ("b5", "bspot", 2, 4, "trooper", []), models[2]], tables=tables_path, terrain=[bunker],
                       state={"observed": {"reds": "bspot"}})
    with pytest.raises(IllegalActionError, match="lost its line of fire"):
        hf.shoot(hidden, {"firing": "blues", "target": "reds"}, None)


# -- activation points and phases ---------------------------------------------------------------


def test_activation_points_and_their_split(tables_path):
    plan = make_plan(SQUADS + [("b9", "bhq", 5, 2, "officer", []), ("r9", "rhq", 5, 14, "boss", [], ["stunned"])],
                     tables=tables_path, units={"bhq": ["command"], "rhq": ["command"]})
    with pytest.raises(IllegalActionError, match="at least 1 PA"):
        hf.start_turn(plan, {"allocation": {"blue": [0, 2, 2], "red": [1, 1, 1]}}, None)
    with pytest.raises(IllegalActionError, match="only 4 available"):
        hf.start_turn(plan, {"allocation": {"blue": [2, 1, 2], "red": [1, 1, 1]}}, None)
    with pytest.raises(IllegalActionError, match="0 to 6 PA"):
        hf.start_turn(plan, {"allocation": {"blue": [7, 0, 1], "red": [1, 1, 1]}}, None)
    r = hf.start_turn(plan, {"allocation": {"blue": [2, 1, 1], "red": [1, 1, 1]}}, None)
    assert r.result["pa"] == {"blue": 4, "red": 3}  # red's HQ (its figure stunned) is not operational
    assert r.plan_after.state["phase"] == "initiative"


def test_two_pa_for_a_unit_out_of_cohesion_stunned_or_leaderless(tables_path):
    base = [("b1", "blues", 2, 2, "trooper", ["rifle"]), ("b2", "blues", 2.9, 2, "trooper", ["rifle"]),
            ("r1", "reds", 2, 14, "militia", [])]
    assert hf.activation_cost(make_plan(base, tables=tables_path), "blues")[0] == 1
    apart = [("b1", "blues", 2, 2, "trooper", ["rifle"]), ("b2", "blues", 6, 2, "trooper", ["rifle"]), base[2]]
    assert hf.activation_cost(make_plan(apart, tables=tables_path), "blues")[0] == 2
    stunned = [base[0], ("b2", "blues", 2.9, 2, "trooper", ["rifle"], ["stunned"]), base[2]]
    assert hf.activation_cost(make_plan(stunned, tables=tables_path), "blues")[0] == 2
    leaderless = [("b1", "blues", 2, 2, "trooper", ["rifle"], ["out-of-action"]), base[1], base[2]]
    cost, steps = hf.activation_cost(make_plan(leaderless, tables=tables_path), "blues")
    assert cost == 2 and "leader b1 is out of action" in steps[0].text


def test_initiative_odds_and_phases(tables_path):
    plan = make_plan(SQUADS + [("b9", "bhq", 5, 2, "officer", []), ("r9", "rhq", 5, 14, "boss", [])],
                     tables=tables_path, units={"bhq": ["command"], "rhq": ["command"]})
    plan = hf.start_turn(plan, {"allocation": {"blue": [1, 2, 1], "red": [1, 2, 1]}}, None).plan_after
    r = hf.initiative(plan, {}, None)
    # exact: re-rolled ties, so P(blue) = P(blue better) / (1 - P(tie))
    t = hf.load_tables(tables_path)
    better = tie = Fraction(0)
    for fa in range(1, 11):
        for fb in range(1, 11):
            ra, rb = t.rank(t.letter(5, fa)), t.rank(t.letter(4, fb))
            better += Fraction(1, 100) if ra < rb else 0
            tie += Fraction(1, 100) if ra == rb else 0
    assert r.odds["initiative"].probs["blue"] == better / (1 - tie)
    r = hf.initiative(plan, {"winner_goes": "second"}, Dice.given([10, 10, 10, 1]))  # A-A tie, then A against C
    assert r.result == {"winner": "blue", "first": "red"}
    plan = r.plan_after
    with pytest.raises(IllegalActionError, match="red's action1 phase"):
        hf.activate(plan, {"unit": "blues", "action": "careful"}, None)
    r = hf.activate(plan, {"unit": "reds", "action": "aimed"}, None)
    assert r.result["pa_left"] == 0
    with pytest.raises(IllegalActionError, match="needs 1 PA but red has 0"):
        hf.activate(r.plan_after, {"unit": "rhq", "action": "observe"}, None)
    plan = hf.end_phase(r.plan_after, {}, None).plan_after
    r = hf.activate(plan, {"unit": "blues", "action": "careful"}, None)
    with pytest.raises(IllegalActionError, match="already activated"):
        hf.activate(r.plan_after, {"unit": "blues", "action": "careful"}, None)
    r2 = hf.activate(r.plan_after, {"unit": "blues", "action": "tactical", "transfer_from": "bhq"}, None)
    assert r2.result["cost"] == 1 and r2.plan_after.state["pa"]["blue"]["reaction"] == 0


def test_fast_move_impossible_in_difficult_terrain(tables_path):
    wood = {"id": "wood", "kind": "sparse-partial", "shape": "area",
            "points_mm": [[0, 0], [5 * IN, 0], [5 * IN, 4 * IN], [0, 4 * IN]]}
    plan = make_plan(SQUADS, tables=tables_path, terrain=[wood],
                     state={"phase": 0, "first": "blue", "pa": {"blue": {"action1": 3, "reaction": 1, "action2": 1},
                                                                "red": {"action1": 1, "reaction": 1, "action2": 1}}})
    with pytest.raises(IllegalActionError, match="Progression rapide"):
        hf.activate(plan, {"unit": "blues", "action": "fast"}, None)
    with pytest.raises(IllegalActionError, match="jump harness"):
        hf.activate(plan, {"unit": "blues", "action": "jump"}, None)


# -- assaults and motivation ----------------------------------------------------------------------


def test_assault_odds_equal_enumeration_and_units_removed(tables_path):
    models = [("b1", "blues", 2, 2, "trooper", []), ("r1", "reds", 2, 2.9, "militia", []), ("r2", "reds", 2.9, 2.9, "militia", [])]
    plan = make_plan(models, tables=tables_path)
    req = {"attacker": "blues", "defender": "reds", "attacker_modifiers": ["charge"]}
    r = hf.assault(plan, req, None)
    # CR sums: blue 2 + 1 = 3, red 2 + 2 = 4: effect values -1 and +1
    assert "3 - 4 = -1" in [s for s in r.steps if s.rule == "effect values"][0].text
    duel = make_plan(models[:2], tables=tables_path)  # one against one: every pair of D10
    r1 = hf.assault(duel, req, None)
    for side in ("reds", "blues"):
        outcome = enumerate_dice(lambda d: tuple(hf.assault(duel, req, d).result["after"][side]))
        assert outcome == dict(r1.odds[f"{side} after (out of action, wounded, stunned, removed)"].probs)
    brute = enumerate_dice(lambda d: tuple(sorted(hf.assault(duel, req, d).result["effects"]["blues"])))
    assert brute == dict(hf._effects_dist(hf.load_tables(tables_path), "assault", (0,)).probs)
    r = hf.assault(plan, req, Dice.given([10, 1, 1]))  # blue B: a red wounded; red C, C: b1 stunned
    assert r.result["removed_units"] == ["blues"] and not r.plan_after.models_of("blues")
    assert r.plan_after.model("r2").status == ("wounded",)


def test_motivation_recovers_on_a_or_b(tables_path):
    models = [("b1", "blues", 2, 2, "trooper", [], ["stunned"]), ("r1", "reds", 2, 14, "militia", [], ["stunned"])]
    plan = make_plan(models, tables=tables_path)
    r = hf.motivation(plan, {}, None)
    t = hf.load_tables(tables_path)
    assert r.odds["b1"].probs["recovers"] == Fraction(sum(1 for f in range(1, 11) if t.letter(3, f) in "AB"), 10)
    r = hf.motivation(plan, {}, Dice.given([10, 1]))  # b1 value 3, D10 10 -> A; r1 value 2, D10 1 -> C
    assert r.result["recovered"] == ["b1"] and r.plan_after.model("r1").has_status("stunned")


# -- rosters ----------------------------------------------------------------------------------------


def test_bundled_rosters_load():
    plan = merge_rosters(parse_game({"ruleset": "high-fire", "table": {"width_mm": 600, "depth_mm": 600}}),
                         [load_roster(ROSTERS / "high-fire-blue.json"), load_roster(ROSTERS / "high-fire-red.json")])
    assert len(plan.units) == 6 and plan.profiles["lieutenant"]["rank"] == 2


@pytest.mark.parametrize("change,message", [
    (lambda d: d["profiles"]["p"].pop("AR"), "AR must be an integer"),
    (lambda d: d["units"][0]["models"][0]["weapons"].append("laser"), "unknown weapon 'laser'"),
    (lambda d: d["units"][0].update(rules=["berserk"]), "unknown rule 'berserk'"),
    (lambda d: d["units"][0].update(rules=["command"]), "command unit 'u' has no officer"),
    (lambda d: d["units"][0]["models"][1].update(marker_id=10), "marker id 10"),
])
def test_rosters_refused(change, message):
    doc = {"ruleset": "high-fire", "side": "blue",
           "units": [{"id": "u", "models": [{"id": "m1", "marker_id": 10, "base_mm": 20, "profile": "p", "weapons": ["rifle"]},
                                            {"id": "m2", "marker_id": 11, "base_mm": 20, "profile": "p"}]}],
           "profiles": {"p": {"QL": 3, "CD": 3, "CR": 2, "AR": 2}}, "weapons": {"rifle": {}}}
    change(doc)
    with pytest.raises(RosterError, match=message) as err:
        parse_roster(doc)
    if "rule" in message or "officer" in message:  # High Fire's own checks say it in French and English too
        from tabletracker.i18n import texts

        words = texts(err.value)
        assert words is not None and set(words) == {"fr", "en"} and "Liste d'armée" in words["fr"]


# -- a whole short turn ------------------------------------------------------------------------------


def test_scripted_turn(tables_path):
    """One full turn: PA, initiative, six phases with a shot and an assault, motivation."""
    plan = make_plan([("b9", "bhq", 5, 2, "officer", []), ("b1", "blues", 2, 2, "trooper", ["rifle"]),
                      ("b2", "blues", 2.9, 2, "trooper", ["rifle"]),
                      ("r9", "rhq", 20, 20, "boss", []), ("r1", "reds", 2, 14, "militia", ["rifle"]),
                      ("r2", "reds", 2.9, 14, "militia", ["rifle"]), ("r3", "rowdies", 5.9, 2.9, "militia", [])],
                     tables=tables_path, units={"bhq": ["command"], "rhq": ["command"]})
    script: list[tuple[str, dict, list[int] | None]] = [
        ("start_turn", {"allocation": {"blue": [2, 1, 1], "red": [2, 2, 1]}}, None),  # 4 and 5 PA
        ("initiative", {}, [10, 1]),  # blue QL 5: A; red QL 4: C; blue acts first
        ("activate", {"unit": "blues", "action": "aimed"}, None),
        ("shoot", {"firing": "blues", "target": "reds"}, [1, 5]),  # value 5 - 2 + 1 = 4: C stunned, B wounded
        ("end_phase", {}, None),
        ("activate", {"unit": "rowdies", "action": "assault"}, None),  # red reaction
        ("engage", {"attacker": "rowdies", "defender": "bhq"}, None),
        ("end_phase", {}, None),
        ("end_phase", {}, None),  # blue's second action phase: nothing more
        ("activate", {"unit": "reds", "action": "careful"}, None),  # red action 1 (stunned figure: 2 PA)
        ("end_phase", {}, None),
        ("end_phase", {}, None),  # blue reaction
        ("end_phase", {}, None),  # red action 2
        ("assault", {"attacker": "rowdies", "defender": "bhq"}, [10, 1]),  # CR 2 vs 3: B on b9, C on r3
        ("motivation", {}, [10]),  # r1 (stunned, QL 2 -> value 2, D10 10 -> A): recovers
    ]
    for action, request, dice in script:
        r = resolve(plan, action, request, Dice.given(dice) if dice is not None else None)
        plan = r.plan_after
    assert plan.model("r2").status == ("wounded",) and not plan.model("r1").has_status("stunned")
    assert not plan.models_of("bhq") and not plan.models_of("rowdies")  # every figure hurt: both units leave
    assert plan.state["turn"] == 2 and plan.state["phase"] == "start"


def test_allocation_typed_on_the_command_line(tables_path):
    plan = make_plan(SQUADS, tables=tables_path)
    r = hf.start_turn(plan, {"allocation": "blue:1/1/1,red:1/0/1"}, None)
    assert r.result["allocation"]["red"] == {"action1": 1, "reaction": 0, "action2": 1}
    with pytest.raises(InvalidActionError, match="side:action1/reaction/action2"):
        hf.start_turn(plan, {"allocation": "blue:1/1"}, None)


def test_the_core_never_opens_a_tables_path_from_the_game(tmp_path: Path) -> None:
    """A game naming a tables file is refused by the core (no disk probing); the CLI edge loads it."""
    import dataclasses

    from rules.frozen import freeze
    from tabletracker.cli import main

    tables = tmp_path / "my-tables.json"
    tables.write_text(json.dumps(fake_tables()), encoding="utf-8")
    plan = make_plan(SQUADS, tables=str(tables))
    named = dataclasses.replace(plan, options=freeze({"high_fire_tables": "/etc/does-it-exist.json"}))
    with pytest.raises(MissingTableError, match="tables were not loaded") as err:
        hf.shoot(named, {"firing": "blues", "target": "reds"}, None)
    assert "No such file" not in str(err.value)
    game = tmp_path / "game.json"
    game.write_text(dump_game(dataclasses.replace(plan, options=freeze({"high_fire_tables": "my-tables.json"}))),
                    encoding="utf-8")
    assert main(["resolve", str(game), "shoot", "firing=blues", "target=reds", "--json"]) == 0
