"""Every bundled sample game is playable: each rule set's actions resolve on it, odds-only and with dice.

The sample games (``rules/data/games/*-sample.json``) carry the profiles and weapons
of their rule set's bundled rosters (``rules/data/rosters``), so the actions the web
page and ``tabletracker resolve`` offer work on them as shipped, and merging those
rosters into them (``--roster``) agrees with what the game already holds.

High Fire reads its UNITABLE, results, modifiers and weapons from the players' tables
file, which ships empty (no number is invented); its cases use the FICTITIOUS test
tables of :mod:`tests.rules.test_combat_high_fire`, given through
``options.high_fire_tables`` as a player would.
"""

from __future__ import annotations

import dataclasses
import json
import re
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from rules.resolve import actions_of, resolve
from rules.dice import Dice
from rules.frozen import freeze, thaw
from rules.plan import TablePlan, game_to_dict, load_game, parse_game
from rules.roster import load_roster, merge_rosters, parse_roster
from tabletracker.cli import main
from tabletracker.i18n import render
from tabletracker.words import Said
from rules.rulesets.high_fire import actions as hf_actions
from tests.rules.test_combat_high_fire import fake_tables

ROOT = Path(__file__).resolve().parents[2]
GAMES = ROOT / "rules" / "data" / "games"
ROSTERS = ROOT / "rules" / "data" / "rosters"
SEQUENCE_GAME = ROOT / "sample_images" / "sequence" / "game.json"
RULESETS = ("at-43", "feu-a-volonte", "firefight", "high-fire", "star-wars")
# The games: each rule set's sample, and the web overlay's default game (the rendered sequence's).
GAME_FILES = {**{rs: GAMES / f"{rs}-sample.json" for rs in RULESETS}, "sequence": SEQUENCE_GAME}

# Every action of every rule set, with arguments that fit a unit / model pair of the sample game:
# (action, request, before). ``before`` brings the game to where the action is allowed, as a
# table would get there: ("move", model, x_mm, y_mm) is a figure the players moved (the tracker
# sees it), ("status", model, state) a state put on a figure, else (action, request, dice) an
# earlier action resolved with those dice (None: none needed).
Before = list[tuple[Any, ...]]
# FICTITIOUS weapon lines for the sample's weapons (the booklet's are not available): test values only.
HF_WEAPONS = {name: {"pf": pf, "range_in": rng, "extra_d10": extra, "indirect": False}
              for name, pf, rng, extra in (("pistolet", 1, 8, 0), ("fusil", 2, 24, 0), ("fusil d'assaut", 2, 24, 0),
                                           ("mitrailleuse légère", 3, 30, 1), ("lance-grenades", 3, 24, 1),
                                           ("lance-roquettes", 4, 24, 0))}
HF_TURN: Before = [("start_turn", {"allocation": {"blue": [2, 1, 1], "red": [2, 2, 1]}}, None),
                   ("initiative", {}, [10, 1])]  # blue's officer rolls the better letter: blue acts first
SW_HEROES: Before = [("hero_phase", {"hero": h}, None) for h in ("officer-1", "lieutenant", "inquisitor", "padawan")]
FF_ROUND: Before = [("activate", {"unit": u, "action": "hold"}, None)
                    for u in ("squad-a", "squad-b", "captain-a", "sorcerer-b", "snipers-a", "bikers-b")]
CASES: dict[str, list[tuple[str, dict[str, Any], Before]]] = {
    "at-43": [
        ("shoot", {"firing": "sierra-alpha", "target": "golems-256", "weapon": "laser rifle"}, []),
        ("shoot", {"firing": "golems-256", "target": "sierra-alpha", "weapon": "nanoblaster"}, []),
        ("shoot", {"firing": "sierra-bravo", "target": "g256-5", "weapon": "grenade launcher"}, []),
        ("activate", {"unit": "sierra-alpha"}, []),
        ("lead", {"unit": "sierra-alpha", "model": "sa-1"}, []),
        ("artillery", {"observer": "sa-leader", "target": "g256-5", "roll": "4", "area_cm": "5",
                       "penetration": "8"}, []),
        ("shoot_melee", {"firing": "sierra-alpha", "target": "golems-256", "weapon": "laser rifle",
                         "melee": ["sierra-bravo"]}, []),
        ("end-turn", {}, []),
    ],
    "feu-a-volonte": [
        ("shoot_building", {"firing": "para-2", "building": "house-1", "type": "bunker"}, []),
        ("support_group", {"crew": ["para-2", "para-1"], "team": "lmg"}, [("move", "para-1", 275, 260)]),
        ("support_fire", {"support": "para-1", "target": "us-3"},
         [("move", "para-1", 275, 260), ("support_group", {"crew": ["para-2", "para-1"], "team": "lmg"}, None)]),
        ("npc_activate", {"group": "us-1"}, []),
        ("npc_reinforcements", {"entry_points": 3}, []),
        ("weather", {}, []),
        ("initiative", {}, []),
        ("shoot", {"firing": "para-2", "target": "us-3"}, []),
        ("melee", {"attacker": "para-1", "defender": "us-3"}, [("move", "us-3", 120, 255)]),
        ("spot", {"spotter": "para-1", "target": "us-1"}, []),
        ("morale", {"unit": "para-1"}, []),
        ("activate", {"unit": "para-1"}, []),
        ("reload", {"unit": "para-2"}, [("status", "para-2", "out-of-ammo")]),
        ("disengage", {"unit": "para-1"}, []),
        ("throw", {"thrower": "para-3", "x_mm": "420", "y_mm": "260"}, []),
        ("pay", {"unit": "para-1", "action": "tir"}, []),
        ("recruit", {"side": "Fallschirmjäger"}, []),
        ("end-turn", {}, []),
    ],
    "firefight": [
        ("activate", {"unit": "squad-a", "action": "hold"}, []),
        ("push", {"model": "b1", "x_mm": 350, "y_mm": 700}, [("move", "b1", 330, 700), ("status", "b1", "shaken")]),
        ("shoot", {"firing": "snipers-a", "target": "squad-b"}, []),
        ("shoot", {"firing": "squad-a", "target": "squad-b"}, [("move", "b1", 330, 700)]),
        ("melee", {"attacker": "squad-a", "defender": "squad-b"}, [("move", "b1", 300, 178)]),
        ("morale", {"unit": "squad-b"}, []),
        ("deploy", {"unit": "squad-a"}, []),
        ("cast", {"caster": "sorcerer-b", "cost": "1"}, []),
        ("jump", {"model": "a1", "distance_in": "3"}, []),
        ("dangerous", {"unit": "squad-a", "models": "a1,a2"}, []),
        ("fall", {"model": "a1", "height_in": "3"}, []),
        ("end_round", {}, FF_ROUND),
    ],
    "high-fire": [
        ("quality", {"model": "al-1", "difficulty": 1, "success": "A,B"}, []),
        ("start_turn", {"allocation": {"blue": [2, 1, 1], "red": [2, 2, 1]}}, []),
        ("initiative", {}, HF_TURN[:1]),
        ("activate", {"unit": "alpha", "action": "aimed"}, HF_TURN),
        ("end_phase", {}, HF_TURN),
        ("shoot", {"firing": "alpha", "target": "red-2"},
         HF_TURN + [("activate", {"unit": "alpha", "action": "aimed"}, None)]),
        ("shoot", {"firing": "bravo", "target": "lone", "weapon": "fusil d'assaut"},
         HF_TURN + [("activate", {"unit": "bravo", "action": "aimed"}, None)]),
        ("engage", {"attacker": "alpha", "defender": "red-2"},
         HF_TURN + [("move", "rk-1", 190, 115), ("activate", {"unit": "alpha", "action": "assault"}, None)]),
        ("observe", {"observer": "alpha", "target": "red-2"},
         HF_TURN + [("activate", {"unit": "alpha", "action": "observe"}, None)]),
        ("assault", {"attacker": "alpha", "defender": "red-2"},
         HF_TURN + [("move", "rk-1", 190, 115), ("activate", {"unit": "alpha", "action": "assault"}, None),
                    ("engage", {"attacker": "alpha", "defender": "red-2"}, None)]),
        ("motivation", {}, []),
    ],
    "star-wars": [
        ("start_turn", {}, []),
        ("move", {"model": "st-1", "x_mm": 240, "y_mm": 330}, []),
        ("run", {"model": "st-1", "x_mm": 250, "y_mm": 330},
         [("move", {"model": "st-1", "x_mm": 240, "y_mm": 330}, None)]),
        ("concentrate", {"model": "st-1"}, []),
        ("hero_phase", {"hero": "officer-1"}, []),
        ("troops_phase", {"side": "empire"}, SW_HEROES),
        ("shoot", {"shooter": "st-1", "target": "rb-1"}, []),
        ("melee", {"attacker": "st-1", "defender": "rb-1"}, [("move", "rb-1", 240, 275)]),
        ("force", {"user": "inquisitor", "power": "Répulsion"}, []),
        ("stand_up", {"model": "rb-1"}, [("status", "rb-1", "knocked-down")]),
        ("thrown", {"model": "rb-1"}, []),
        ("end_turn", {}, SW_HEROES + [("troops_phase", {"side": "empire"}, None),
                                       ("troops_phase", {"side": "rebels"}, None)]),
    ],
    "sequence": [  # Firefight on a 60 cm table: the snipers and the battle brothers face the cultists
        ("activate", {"unit": "red-1", "action": "advance"}, []),
        ("shoot", {"firing": "red-2", "target": "blue-1"}, []),
        ("shoot", {"firing": "red-1", "target": "blue-1"}, []),
        ("melee", {"attacker": "blue-1", "defender": "red-1"}, [("move", "m14", 140, 440), ("move", "m15", 175, 455)]),
        ("morale", {"unit": "blue-1"}, []),
        ("end_round", {}, [("activate", {"unit": u, "action": "hold"}, None)
                           for u in ("red-1", "blue-1", "red-2", "blue-2")]),
    ],
}
# Actions no unit or model of the sample game can take, and why.
NOT_HERE: dict[str, dict[str, str]] = {
    "star-wars": {"medic": "no figure of the sample game (nor of the bundled rosters) has the Médico rule"},
    "feu-a-volonte": {"support_wound": "the sample game has no support group (two or three figures in one unit)"},
}


def prepared(plan: TablePlan, before: Before) -> TablePlan:
    for step in before:
        if step[0] == "move" and len(step) == 4:  # a figure moved (Star Wars' move action has 3 parts)
            _, mid, x, y = step
            plan = plan.with_model(dataclasses.replace(plan.model(mid), position_mm=(float(x), float(y))))
        elif step[0] == "status":
            _, mid, state = step
            m = plan.model(mid)
            plan = plan.with_model(dataclasses.replace(m, status=(*(m.status or ()), state)))
        else:
            action, request, dice = step
            after = resolve(plan, action, request, Dice.given(dice) if dice is not None else None).plan_after
            assert after is not None, f"{action} before the case changed nothing"
            plan = after
    return plan


def sample(game: str, tmp_path: Path) -> TablePlan:
    plan = load_game(GAME_FILES[game])
    if game == "high-fire":  # the players' tables file, loaded by the edge as the CLI does
        tables = tmp_path / "my-high-fire-tables.json"
        tables.write_text(json.dumps(fake_tables(weapons=HF_WEAPONS)), encoding="utf-8")
        plan = hf_actions.with_tables_file(plan, tables)
    return plan


@pytest.mark.parametrize("game, action, request_, before",
                         [pytest.param(g, a, r, b, id=f"{g}:{a}:{i}") for g in GAME_FILES
                          for i, (a, r, b) in enumerate(CASES[g])])
def test_every_action_resolves_on_the_sample_game(game: str, action: str, request_: dict[str, Any],
                                                   before: Before, tmp_path: Path) -> None:
    plan = prepared(sample(game, tmp_path), before)
    ruleset = plan.ruleset
    odds = resolve(plan, action, request_, None)
    assert odds.ruleset == ruleset and odds.action == action and odds.steps
    for name, dist in odds.odds.items():
        assert sum(dist.probs.values()) == Fraction(1), name
    json.dumps(odds.to_json())  # what the web page and --json print
    for name, needed in odds.needed.items():  # a roll ("5+", "3 x 4+"), or words said in both languages
        worded = isinstance(needed, Said) and all(render(needed.msg_id, needed.params, lang) for lang in ("fr", "en"))
        assert re.fullmatch(r"(\d+ x )?\d+\+?", needed) or worded, (name, needed)
        assert (name in odds.to_json().get("needed_words", {})) == worded, name
    rolled = resolve(plan, action, request_, Dice.seeded(1))
    assert rolled.result is not None
    json.dumps(rolled.to_json())
    if rolled.plan_after is not None:  # a check (recruit) changes nothing on the table
        after = json.loads(json.dumps(game_to_dict(rolled.plan_after)))
        assert parse_game(after) == rolled.plan_after


@pytest.mark.parametrize("ruleset", RULESETS)
def test_every_action_of_the_rule_set_is_tried(ruleset: str) -> None:
    assert load_game(GAME_FILES[ruleset]).ruleset == ruleset
    tried = {a for a, _, _ in CASES[ruleset]}
    assert tried | set(NOT_HERE.get(ruleset, {})) == set(actions_of(ruleset))
    assert not tried & set(NOT_HERE.get(ruleset, {}))


# -- the bundled rosters agree with the sample games -----------------------------------------------


def bundled_rosters(ruleset: str) -> list[Any]:
    return [load_roster(p) for p in sorted(ROSTERS.glob(f"{ruleset}-*.json"))]


@pytest.mark.parametrize("ruleset", RULESETS)
def test_the_game_holds_the_rosters_profiles_and_weapons_as_the_rosters_define_them(ruleset: str) -> None:
    plan = load_game(GAME_FILES[ruleset])
    shared = 0
    for roster in bundled_rosters(ruleset):
        for table, mine, theirs in (("profiles", plan.profiles, roster.profiles),
                                    ("weapons", plan.weapons or {}, roster.weapons)):
            for name, stats in theirs.items():
                if name in mine:
                    shared += 1
                    assert thaw(mine[name]) == thaw(stats), f"{table}.{name} differs from {roster.source}"
    assert shared, "the sample game uses none of the bundled rosters' profiles or weapons"
    for m in plan.models:  # every figure's profile and weapons are defined in the game itself
        assert (m.profile or plan.unit(m.unit_id).profile) in plan.profiles, m.model_id
        if plan.weapons is not None and ruleset != "feu-a-volonte":  # Feu à Volonté: the arsenal is built in
            assert set(m.weapons or ()) <= set(plan.weapons), m.model_id


@pytest.mark.parametrize("ruleset", RULESETS)
def test_merging_the_bundled_rosters_keeps_the_sample_figures_where_they_stand(ruleset: str) -> None:
    """Each figure of the game is still there once, at its place and on its side, as itself or as the
    roster figure carrying its marker (what the tracker sees); the rosters' other figures wait at (0, 0)."""
    plan = load_game(GAME_FILES[ruleset])
    merged = merge_rosters(plan, bundled_rosters(ruleset))
    for m in plan.models:
        now = [x for x in merged.models
               if x.model_id == m.model_id or (m.marker_id is not None and x.marker_id == m.marker_id)]
        assert len(now) == 1 and now[0].position_mm == m.position_mm, m.model_id
        assert merged.side_of(now[0].model_id) == plan.side_of(m.model_id), m.model_id
    assert {u.side for u in merged.units} == {u.side for u in plan.units} | {r.side for r in bundled_rosters(ruleset)}


def test_the_merged_at43_game_is_played_with_the_rosters_figures() -> None:
    merged = merge_rosters(load_game(GAME_FILES["at-43"]), bundled_rosters("at-43"))
    assert merged.unit("sierra-alpha").leader == "sa-1" and merged.model("sa-3").position_mm == (520.0, 250.0)
    r = resolve(merged, "shoot", {"firing": "sierra-alpha", "target": "golems-256", "weapon": "laser rifle"},
                Dice.seeded(3))
    assert r.result is not None and r.needed["to hit"].endswith("+")


def test_identical_stats_merge_whatever_their_number_type() -> None:
    """5 and 5.0 are the same stat: a game and a roster that agree merge, one that differs is refused."""
    plan = parse_game({"ruleset": "at-43", "table": {"width_mm": 600, "depth_mm": 600},
                       "profiles": {"trooper": {"category": "infantry", "size": 2.0, "protection": 5.0}}})
    doc = {"ruleset": "at-43", "side": "UNA", "units": [{"id": "sa", "leader": "sa-1", "models": [
        {"id": "sa-1", "base_mm": 25, "profile": "trooper", "weapons": ["rifle"]}]}],
           "profiles": {"trooper": {"category": "infantry", "size": 2, "protection": 5}},
           "weapons": {"rifle": {"precision": 5, "rate": 1, "rerolls": 0, "penetration": 5, "damage": 1}}}
    merged = merge_rosters(plan, [parse_roster(doc, source="una.json")])
    assert merged.profiles["trooper"]["size"] == 2
    doc["profiles"]["trooper"]["size"] = 3
    with pytest.raises(ValueError, match="profiles.trooper differs"):
        merge_rosters(plan, [parse_roster(doc, source="una.json")])


# -- the command line and the sequence's generator -------------------------------------------------

CLI_SHOTS = {
    "at-43": ["sierra-alpha", "golems-256", "--weapon", "laser rifle"],
    "feu-a-volonte": ["para-2", "us-3"],
    "firefight": ["snipers-a", "squad-b"],
    "high-fire": ["bravo", "lone", "--weapon", "fusil d'assaut"],
    "star-wars": ["st-1", "rb-1"],
    "sequence": ["red-2", "blue-1"],
}


def cli_game(game: str, tmp_path: Path) -> Path:
    """The game file to type on the command line (High Fire: with the players' tables and a unit activated)."""
    if game != "high-fire":
        return GAME_FILES[game]
    plan = prepared(sample(game, tmp_path), CASES["high-fire"][5][2])  # the tables here are FICTITIOUS
    path = tmp_path / "high-fire-turn.json"
    path.write_text(json.dumps(game_to_dict(plan)), encoding="utf-8")
    return path


@pytest.mark.parametrize("game", list(CLI_SHOTS))
def test_resolve_shoot_on_the_sample_game_from_the_command_line(game: str, tmp_path: Path,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["resolve", str(cli_game(game, tmp_path)), "shoot", *CLI_SHOTS[game], "--seed", "3", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["action"] == "shoot" and doc["dice"] and "result" in doc
    assert parse_game(doc["game"]).ruleset == doc["ruleset"]


@pytest.mark.parametrize("ruleset", RULESETS)
def test_resolve_with_the_bundled_rosters_from_the_command_line(ruleset: str,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    rosters = [a for p in sorted(ROSTERS.glob(f"{ruleset}-*.json")) for a in ("--roster", str(p))]
    # High Fire: the roster figures the tracker has not placed yet wait at (0, 0), which stretches
    # the militia groups' hulls (solid obstacles) over the table: the turn's start is played instead
    action = (["start_turn", "allocation=blue:2/1/1,red:2/2/1"] if ruleset == "high-fire"
              else ["shoot", *CLI_SHOTS[ruleset]])
    game = str(GAME_FILES[ruleset])
    assert main(["resolve", game, *action, "--seed", "3", *rosters]) == 0
    out = capsys.readouterr().out
    # a shot says its result in words; the turn's start has none to word: its action points are the answer
    assert ("blue: 2 + " in out and "red: 2 + " in out) if ruleset == "high-fire" else "result:" in out, out


def test_the_sequence_game_file_is_what_the_generator_writes() -> None:
    from synth.sequence import game_document, sequence_plan

    written = json.loads(json.dumps(game_document(sequence_plan())))
    assert json.loads(SEQUENCE_GAME.read_text(encoding="utf-8")) == written
