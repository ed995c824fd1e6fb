"""Star Wars Grandes escarmouches: thresholds, shooting, melee, the Force, hero phases, the seed's profiles."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path
from typing import Any, Callable

import pytest

from rules.resolve import resolve
from rules.rulesets.star_wars import actions as sw
from rules.dice import Dice
from tests.rules.brute import brute_force
from rules.errors import IllegalActionError, InvalidActionError, RosterError
from rules.frozen import thaw
from rules.plan import parse_game
from rules.roster import load_roster, merge_rosters, parse_roster

PAS = 25.0
ROSTERS = Path(__file__).resolve().parents[2] / "rules" / "data" / "rosters"
EMPIRE = json.loads((ROSTERS / "star-wars-empire.json").read_text(encoding="utf-8"))
REBELS = json.loads((ROSTERS / "star-wars-rebellion.json").read_text(encoding="utf-8"))
PROFILES = {**EMPIRE["profiles"], **REBELS["profiles"],
            "Tireur lourd": {"T": 4, "C": 6, "Por": 10, "rules": ["Blaster lourd"]},
            "Médecin": {"T": 5, "C": 6, "Por": 5, "rules": ["Médico"]},
            "Droïde": {"T": 4, "C": 6, "Por": 10, "rules": ["Droïde"]},
            "Rancor": {"T": None, "C": 3, "A": 2, "PV": 6, "rules": ["Gigantesque"]},
            "Tank droïde": {"T": 4, "C": None, "Por": 10, "PV": 3, "rules": ["Grande cible"]},
            "Seigneur noir": {"T": None, "C": 2, "For": 2, "Svg": 2, "PV": 3,
                              "rules": ["Éclairs", "Étranglement", "Dun Möch", "Protection", "Sabre laser"]},
            "Maître": {"T": None, "C": 2, "For": 2, "Svg": 2, "rules": ["Méditation de combat", "Guérison", "Protection"]}}
WEAPONS = {"grenade": {"Por": 6, "Cad": 1, "zone": 2}}


def make_plan(models: list[tuple], *, terrain: list = (), state: dict | None = None):
    """models: (id, side, x_pas, y_pas, profile[, statuses][, weapons]); one unit per figure."""
    doc: dict[str, Any] = {
        "ruleset": "star-wars", "table": {"width_mm": 1800, "depth_mm": 1200},
        "units": [{"id": m[0], "side": m[1], "leader": m[0]} for m in models],
        "models": [{"id": m[0], "unit": m[0], "x_mm": m[2] * PAS + 100, "y_mm": m[3] * PAS + 100, "base_mm": 25,
                    "profile": m[4], **({"status": list(m[5])} if len(m) > 5 and m[5] else {}),
                    **({"weapons": list(m[6])} if len(m) > 6 else {})} for m in models],
        "terrain": list(terrain), "profiles": PROFILES, "weapons": WEAPONS,
    }
    if state is not None:
        doc["state"] = state
    return parse_game(doc)


def enumerate_dice(fn: Callable[[Dice], Any]) -> dict:
    """Return outcome -> exact chance of ``fn(dice)`` over every dice sequence it can ask for."""
    return dict(brute_force(fn, key=lambda out: out, limit=10**7).probs)


# -- shooting -----------------------------------------------------------------------------------


def test_thresholds_stay_between_two_and_six():
    assert [sw.clamp_threshold(n) for n in (0, 2, 4, 6, 9)] == [2, 2, 4, 6, 6]


@pytest.mark.parametrize("x_pas,needed", [(9, "4+"), (15, "5+"), (20, "5+")])
def test_normal_and_long_range(x_pas, needed):
    plan = make_plan([("st", "empire", 0, 0, "Stormtrooper"), ("rb", "rebels", x_pas + 1, 0, "Soldat rebelle")])
    assert sw.shoot(plan, {"shooter": "st", "target": "rb"}, None).needed["to hit"] == needed


def test_out_of_range_beyond_twice_the_range():
    plan = make_plan([("st", "empire", 0, 0, "Stormtrooper"), ("rb", "rebels", 21.5, 0, "Soldat rebelle")])
    with pytest.raises(IllegalActionError, match="out of range"):
        sw.shoot(plan, {"shooter": "st", "target": "rb"}, None)


def test_modifiers_heavy_blaster_concentration_heavy_armour_large_target():
    plan = make_plan([("hb", "rebels", 0, 0, "Tireur lourd"), ("dt", "empire", 5, 0, "Deathtrooper"),
                      ("tk", "empire", 0, 5, "Tank droïde")])
    r = sw.shoot(plan, {"shooter": "hb", "target": "dt", "concentrated": True}, None)
    assert r.needed["to hit"] == "3+"  # 4 - 1 heavy blaster - 1 concentrated + 1 heavy armour
    assert sorted(s.value for s in r.steps if s.rule == "modifier") == [-1, -1, 1]
    r = sw.shoot(plan, {"shooter": "hb", "target": "tk", "concentrated": True}, None)
    assert r.needed["to hit"] == "2+"  # 4 - 1 - 1 - 1 = 1, held at 2+
    assert [s for s in r.steps if s.rule == "threshold bounds"]


def test_gigantic_targets_are_hit_on_two():
    plan = make_plan([("st", "empire", 0, 0, "Stormtrooper"), ("rc", "rebels", 15, 0, "Rancor")])
    assert sw.shoot(plan, {"shooter": "st", "target": "rc"}, None).needed["to hit"] == "2+"


def test_hidden_more_than_half_behind_an_obstacle():
    crates = {"id": "crates", "kind": "crates", "shape": "area",
              "points_mm": [[100 - 40, 100 + 8 * PAS], [100 + 40, 100 + 8 * PAS], [100 + 40, 100 + 8.6 * PAS], [100 - 40, 100 + 8.6 * PAS]]}
    plan = make_plan([("st", "empire", 0, 0, "Stormtrooper"), ("rb", "rebels", 0, 9, "Soldat rebelle")], terrain=[crates])
    r = sw.shoot(plan, {"shooter": "st", "target": "rb"}, None)
    assert r.needed["to hit"] == "5+" and "hidden by an obstacle" in [s for s in r.steps if s.rule == "modifier"][0].text
    side = make_plan([("st", "empire", 0, 0, "Stormtrooper"), ("rb", "rebels", 0, 9, "Soldat rebelle")],
                     terrain=[{**crates, "points_mm": [[100 + 5, 100 + 8 * PAS], [100 + 40, 100 + 8 * PAS],
                                                        [100 + 40, 100 + 8.6 * PAS], [100 + 5, 100 + 8.6 * PAS]]}])
    assert sw.shoot(side, {"shooter": "st", "target": "rb"}, None).needed["to hit"] == "4+"  # less than half hidden


def test_no_shot_through_another_figure():
    plan = make_plan([("st", "empire", 0, 0, "Stormtrooper"), ("st2", "empire", 5, 0, "Stormtrooper"),
                      ("rb", "rebels", 9, 0, "Soldat rebelle")])
    with pytest.raises(IllegalActionError, match="pass through st2"):
        sw.shoot(plan, {"shooter": "st", "target": "rb"}, None)


def test_lightsabre_save_then_protection_against_enumeration():
    plan = make_plan([("hv", "rebels", 0, 0, "Soldat lourd de la flotte rebelle"), ("sn", "empire", 8, 0, "Seigneur noir")],
                     state={"active_powers": {"Protection": ["sn"]}})
    req = {"shooter": "hv", "target": "sn", "shots": 1}
    r = sw.shoot(plan, req, None)
    assert r.needed == {"to hit": "4+", "save 1": "2+", "save 2": "3+"}
    brute = enumerate_dice(lambda d: sw.shoot(plan, req, d).result["hits"])
    assert brute == dict(r.odds["PV lost"].probs) == {1: Fraction(1, 36), 0: Fraction(35, 36)}
    two = sw.shoot(plan, {"shooter": "hv", "target": "sn"}, None)  # Cad 2: two shots
    assert two.odds["PV lost"].probs[1] == 2 * Fraction(1, 36) * Fraction(35, 36)


def test_shot_kills_and_the_figure_is_kept_for_medico():
    plan = make_plan([("st", "empire", 0, 0, "Stormtrooper"), ("rb", "rebels", 9, 0, "Soldat rebelle"),
                      ("md", "rebels", 9, 1.0, "Médecin")])
    r = sw.shoot(plan, {"shooter": "st", "target": "rb"}, Dice.given([5]))
    assert r.result == {"hits": 1, "killed": True}
    after = r.plan_after
    assert "rb" not in [m.model_id for m in after.models] and after.state["dead"][0]["id"] == "rb"
    r = sw.medic(after, {"medic": "md", "target": "rb"}, Dice.given([3]))
    assert r.result["restored"] and after.state["dead"] and "rb" in [m.model_id for m in r.plan_after.models]
    assert r.plan_after.state["dead"] == ()


def test_zone_weapon_attacks_friends_and_foes():
    plan = make_plan([("gr", "rebels", 0, 0, "Soldat rebelle", None, ["grenade"]), ("st", "empire", 5, 0, "Stormtrooper"),
                      ("st2", "empire", 5, 1.5, "Deathtrooper"), ("rb", "rebels", 6.2, 0, "Soldat rebelle"),
                      ("far", "empire", 5, 5, "Stormtrooper")])
    r = sw.shoot(plan, {"shooter": "gr", "target": "st", "weapon": "grenade"}, None)
    assert r.needed == {"to hit st": "4+", "to hit st2": "5+", "to hit rb": "4+"}
    r = sw.shoot(plan, {"shooter": "gr", "target": "st", "weapon": "grenade"}, Dice.given([4, 5, 1]))
    assert r.result == {"zone": ["st", "st2", "rb"], "killed": ["st", "st2"]}


# -- melee -------------------------------------------------------------------------------------


@pytest.mark.parametrize("attacker,defender,needed,per_hit", [
    ("Stormtrooper", "Garde royal", {"attack": "6+", "parry": "3+"}, 1),  # heavy armour: C4+ defends on 3+
    ("Padawan rebelle", "Stormtrooper", {"attack": "3+"}, 2),  # lightsabre: no parry without sabre or cortosis
    ("Padawan rebelle", "Garde royal", {"attack": "3+", "parry": "4+"}, 2),  # cortosis parries, armour no help
    ("Grand Inquisiteur", "Padawan rebelle", {"attack": "2+", "parry": "3+"}, 2),
])
def test_melee_thresholds_and_odds_against_enumeration(attacker, defender, needed, per_hit):
    plan = make_plan([("a", "empire", 0, 0, attacker), ("d", "rebels", 1, 0, defender)])
    r = sw.melee(plan, {"attacker": "a", "defender": "d"}, None)
    assert r.needed == needed
    brute = enumerate_dice(lambda x: sw.melee(plan, {"attacker": "a", "defender": "d"}, x).result["pv_lost"])
    assert brute == dict(r.odds["PV lost"].probs)


def test_knocked_down_cannot_defend_and_melee_needs_contact():
    plan = make_plan([("a", "empire", 0, 0, "Stormtrooper"), ("d", "rebels", 1, 0, "Garde royal", ["knocked-down"])])
    assert sw.melee(plan, {"attacker": "a", "defender": "d"}, None).needed == {"attack": "6+"}
    far = make_plan([("a", "empire", 0, 0, "Stormtrooper"), ("d", "rebels", 2, 0, "Soldat rebelle")])
    with pytest.raises(IllegalActionError, match="base contact"):
        sw.melee(far, {"attacker": "a", "defender": "d"}, None)
    cx = make_plan([("a", "empire", 0, 0, "Tank droïde"), ("d", "rebels", 1, 0, "Soldat rebelle")])
    with pytest.raises(IllegalActionError, match="CX"):
        sw.melee(cx, {"attacker": "a", "defender": "d"}, None)


def test_two_attacks_and_a_parry_pushes_back():
    plan = make_plan([("a", "empire", 0, 0, "Adepte du côté obscur"), ("d", "rebels", 1, 0, "Adepte du côté lumineux")])
    r = sw.melee(plan, {"attacker": "a", "defender": "d"}, Dice.given([5, 4, 2]))
    assert r.result == {"pv_lost": 0, "killed": False, "parried": 1}
    assert any("steps back 1 pas" in s.text for s in r.steps)


# -- the Force -------------------------------------------------------------------------------------


def test_repulsion_knocks_down_and_force_users_resist():
    plan = make_plan([("gi", "empire", 0, 0, "Grand Inquisiteur"), ("rb", "rebels", 2, 0, "Soldat rebelle"),
                      ("pd", "rebels", 0, 2, "Padawan rebelle"), ("tk", "rebels", -2, 0, "Tank droïde"),
                      ("far", "rebels", 6, 0, "Soldat rebelle")])
    r = sw.force(plan, {"user": "gi", "power": "Répulsion"}, None)
    assert r.needed["power"] == "3+" and "cancels on 5+" in [s for s in r.steps if s.rule == "resistance"][0].text
    r = sw.force(plan, {"user": "gi", "power": "Répulsion"}, Dice.given([3, 5]))  # padawan resists on 5
    assert r.result["affected"] == ["rb"]
    assert r.plan_after.model("rb").has_status("knocked-down") and not r.plan_after.model("pd").has_status("knocked-down")
    up = sw.stand_up(r.plan_after, {"model": "rb"}, None)
    assert not up.plan_after.model("rb").has_status("knocked-down")


def test_strangle_and_lightning_and_dun_moch():
    plan = make_plan([("sn", "empire", 0, 0, "Seigneur noir"), ("tk", "rebels", 3.5, 0, "Tank droïde"),
                      ("rb", "rebels", 0, 6, "Soldat rebelle")])
    r = sw.force(plan, {"user": "sn", "power": "Étranglement", "target": "tk"}, Dice.given([2, 2]))
    assert r.plan_after.model("tk").extra["pv_lost"] == 1 and not r.plan_after.model("tk").has_status("knocked-down")  # large target
    r = sw.force(plan, {"user": "sn", "power": "Éclairs", "target": "rb"}, Dice.given([2]))
    assert r.result["affected"] == ["rb"] and "rb" not in [m.model_id for m in r.plan_after.models]  # automatic hit, no save
    with pytest.raises(IllegalActionError, match="reaches 4 pas"):
        sw.force(plan, {"user": "sn", "power": "Étranglement", "target": "rb"}, None)
    dm = sw.force(plan, {"user": "sn", "power": "Dun Möch"}, Dice.given([2])).plan_after
    assert dm.state["active_powers"]["Dun Möch"] == ("sn",)
    shot = sw.shoot(dm, {"shooter": "tk", "target": "sn"}, None)
    assert shot.needed["to hit"] == "5+"  # T4+ raised by Dun Möch within 15 pas


def test_meditation_gives_allies_a_five_plus_save():
    plan = make_plan([("ma", "rebels", 0, 0, "Maître"), ("rb", "rebels", 2, 0, "Soldat rebelle"),
                      ("st", "empire", 2, 9, "Stormtrooper")])
    plan = sw.force(plan, {"user": "ma", "power": "Méditation de combat"}, Dice.given([6])).plan_after
    r = sw.shoot(plan, {"shooter": "st", "target": "rb"}, None)
    assert r.needed == {"to hit": "4+", "save 1": "5+"}


def test_guerison_restores_a_dead_figure_in_contact():
    plan = make_plan([("ma", "rebels", 0, 0, "Maître"), ("rb", "rebels", 1, 0, "Soldat rebelle"),
                      ("st", "empire", 1, 9, "Stormtrooper")])
    plan = sw.shoot(plan, {"shooter": "st", "target": "rb"}, Dice.given([6])).plan_after
    r = sw.force(plan, {"user": "ma", "power": "Guérison", "target": "rb"}, Dice.given([2]))
    assert r.result["affected"] == ["rb"] and r.plan_after.model("rb").position_mm == (125.0, 100.0)
    with pytest.raises(IllegalActionError, match="not a dead figure"):
        sw.force(r.plan_after, {"user": "ma", "power": "Guérison", "target": "rb"}, None)


# -- hero phases ---------------------------------------------------------------------------------------


def test_command_bubbles_and_alternating_hero_phases():
    plan = make_plan([("off", "empire", 0, 0, "Officier stormtrooper"), ("st1", "empire", 1.5, 0, "Stormtrooper"),
                      ("st2", "empire", 3.5, 0, "Stormtrooper"), ("gi", "empire", 10, 0, "Grand Inquisiteur"),
                      ("st3", "empire", 13.5, 0, "Stormtrooper"),
                      ("lt", "rebels", 0, 20, "Lieutenant rebelle"), ("rb", "rebels", 1.5, 20, "Soldat rebelle")],
                     state={"initiative": "empire"})
    assert sw.bubble(plan, "off")[1] == ["st1"]  # officer: 2 pas (st2 is 2.5 pas from its base edge)
    assert sw.bubble(plan, "gi")[1] == ["st3"]  # senior officer: 3 pas
    with pytest.raises(IllegalActionError, match="not less than 2 pas"):
        sw.hero_phase(plan, {"hero": "off", "with": ["st2"]}, None)
    with pytest.raises(IllegalActionError, match="belongs to empire"):
        sw.hero_phase(plan, {"hero": "lt"}, None)
    plan = sw.hero_phase(plan, {"hero": "off", "with": ["st1"]}, None).plan_after
    with pytest.raises(IllegalActionError, match="belongs to rebels"):
        sw.hero_phase(plan, {"hero": "gi"}, None)
    plan = sw.hero_phase(plan, {"hero": "lt", "with": ["rb"]}, None).plan_after
    with pytest.raises(IllegalActionError, match="heroes still"):
        sw.troops_phase(plan, {"side": "empire"}, None)
    plan = sw.hero_phase(plan, {"hero": "gi"}, None).plan_after  # the side with more heroes plays its last
    with pytest.raises(IllegalActionError, match="empire .initiative. activates"):
        sw.troops_phase(plan, {"side": "rebels"}, None)
    r = sw.troops_phase(plan, {"side": "empire"}, None)
    assert r.result["activated"] == ["st2", "st3"]
    r = sw.troops_phase(r.plan_after, {"side": "rebels"}, None)
    assert r.result["activated"] == []
    r = sw.end_turn(r.plan_after, {}, None)
    assert r.result["next_turn"] == 2 and r.plan_after.state["activated"] == ()


# -- rosters --------------------------------------------------------------------------------------------


def test_seed_profiles_in_the_bundled_rosters():
    empire, rebels = load_roster(ROSTERS / "star-wars-empire.json"), load_roster(ROSTERS / "star-wars-rebellion.json")
    gi = empire.profiles["Grand Inquisiteur"]
    assert (gi["T"], gi["C"], gi["A"], gi["Svg"], gi["For"], gi["points"]) == (None, 2, 2, 2, 3, 120)
    assert "Officier supérieur" in gi["rules"] and "Sabre laser" in gi["rules"]
    assert rebels.profiles["Soldat lourd de la flotte rebelle"]["Cad"] == 2
    assert thaw(empire.profiles["Soldat de la flotte impériale"]) == {"T": 5, "C": 6, "Por": 5, "points": 5, "rules": []}
    assert len(empire.profiles) == 9 and len(rebels.profiles) == 7
    plan = merge_rosters(parse_game({"ruleset": "star-wars", "table": {"width_mm": 1800, "depth_mm": 1200}}), [empire, rebels])
    assert len(plan.models) == 36


@pytest.mark.parametrize("change,message", [
    (lambda d: d["profiles"]["p"].update(T=7), "threshold from 2 to 6"),
    (lambda d: d["profiles"]["p"].update(rules=["Jetpack"]), "unknown rule or power 'Jetpack'"),
    (lambda d: d["profiles"]["p"].update(rules=["Répulsion"]), "no Force threshold"),
    (lambda d: d["profiles"]["p"].update(rules=["Sabre laser"]), "only Force users"),
    (lambda d: d["units"][0]["models"][0].update(weapons=["blaster"]), "unknown weapon 'blaster'"),
    (lambda d: d["units"][1]["models"][0].update(marker_id=70), "marker id 70"),
])
def test_rosters_refused(change, message):
    doc = {"ruleset": "star-wars", "side": "empire",
           "units": [{"id": "a", "models": [{"id": "a", "marker_id": 70, "base_mm": 25, "profile": "p"}]},
                     {"id": "b", "models": [{"id": "b", "marker_id": 71, "base_mm": 25, "profile": "p"}]}],
           "profiles": {"p": {"T": 4, "C": 6, "Por": 10}}}
    change(doc)
    with pytest.raises(RosterError, match=message):
        parse_roster(doc)


# -- a whole short turn ------------------------------------------------------------------------------------


def test_scripted_turn():
    plan = make_plan([("off", "empire", 0, 0, "Officier stormtrooper"), ("st1", "empire", 1.5, 0, "Stormtrooper"),
                      ("dt", "empire", 4, 0, "Deathtrooper"),
                      ("lt", "rebels", 0, 12, "Lieutenant rebelle"), ("rb", "rebels", 1.5, 12, "Soldat rebelle"),
                      ("cm", "rebels", 4, 12, "Commando rebelle")])
    script: list[tuple[str, dict, list[int] | None]] = [
        ("start_turn", {}, [5]),  # 4+: empire (first side) has the initiative
        ("hero_phase", {"hero": "off", "with": ["st1"]}, None),
        ("shoot", {"shooter": "st1", "target": "rb"}, [4]),  # 11 pas base to base, long range: 5+ needed, 4 misses
        ("shoot", {"shooter": "off", "target": "lt", "concentrated": True}, [4]),  # long +1, concentrated -1: 4+ kills
        # the lieutenant died before its phase: the rebels have no hero left
        ("troops_phase", {"side": "empire"}, None),
        ("shoot", {"shooter": "dt", "target": "cm"}, [3]),  # 11 pas, long: 3 + 1 = 4+: 3 misses
        ("troops_phase", {"side": "rebels"}, None),
        ("shoot", {"shooter": "cm", "target": "dt"}, [6]),  # 3 + 1 long + 1 heavy armour = 5+: hit
        ("end_turn", {}, None),
    ]
    for action, request, dice in script:
        r = resolve(plan, action, request, Dice.given(dice) if dice is not None else None)
        plan = r.plan_after
    ids = [m.model_id for m in plan.models]
    assert ids == ["off", "st1", "rb", "cm"]
    assert [d["id"] for d in plan.state["dead"]] == ["lt", "dt"]
    assert r.result["points_left"] == {"empire": 30, "rebels": 22} and plan.state["turn"] == 2


def test_on_the_geometry_sample_game():
    """The geometry engineer's sample table with the seed's profiles: bubbles, sight and shots on real terrain."""
    import dataclasses

    from rules.frozen import freeze
    from rules.plan import load_game

    plan = load_game(ROSTERS.parent / "games" / "star-wars-sample.json")
    plan = dataclasses.replace(plan, profiles=freeze(PROFILES))
    r = sw.hero_phase(plan, {"hero": "officer-1", "with": sw.bubble(plan, "officer-1")[1]}, None)
    assert set(r.result["activated"]) >= {"officer-1"}
    shots = 0
    for shooter in ("st-1", "st-3", "st-5"):
        for target in ("rb-1", "rb-3", "rb-5"):
            try:
                res = sw.shoot(plan, {"shooter": shooter, "target": target}, None)
            except IllegalActionError as exc:
                assert "through" in str(exc) or "cannot see" in str(exc) or "out of range" in str(exc)
                continue
            shots += 1
            p = res.odds["killed"].probs.get(True, 0)
            assert 0 < p < 1 and res.needed["to hit"] in ("2+", "3+", "4+", "5+", "6+")
    assert shots > 0


def test_telekinesis_collisions():
    plan = make_plan([("rb", "rebels", 0, 0, "Soldat rebelle"), ("rb2", "rebels", 1, 0, "Soldat rebelle"),
                      ("tk", "rebels", 0, 1, "Tank droïde"), ("pd", "rebels", 1, 1, "Padawan rebelle"),
                      ("gi", "empire", 5, 5, "Grand Inquisiteur")])
    r = sw.thrown(plan, {"model": "rb", "into": "rb2"}, None)
    assert set(r.odds) == {"rb killed", "rb2 killed"} and r.odds["rb2 killed"].probs[True] == Fraction(1, 2)
    r = sw.thrown(plan, {"model": "rb", "into": "rb2"}, Dice.given([4, 3]))
    assert r.result == {"collision": True, "killed": ["rb"]}
    assert set(sw.thrown(plan, {"model": "rb", "into": "tk"}, None).odds) == {"rb killed"}  # more than 1 PV: unhurt
    assert sw.thrown(plan, {"model": "rb", "into": "pd"}, None).result == {"collision": False}  # a Force user steps aside


def test_one_second_action_per_turn_and_cadence_split():
    plan = make_plan([("hv", "rebels", 0, 0, "Soldat lourd de la flotte rebelle"), ("st", "empire", 4, 8, "Stormtrooper"),
                      ("st2", "empire", -4, 8, "Stormtrooper"), ("pd", "rebels", 9, 0, "Padawan rebelle"),
                      ("gi", "empire", 10, 0, "Grand Inquisiteur")])
    plan = sw.shoot(plan, {"shooter": "hv", "target": "st", "shots": 1}, Dice.given([1])).plan_after
    plan = sw.shoot(plan, {"shooter": "hv", "target": "st2", "shots": 1}, Dice.given([1])).plan_after  # Cad 2 split
    with pytest.raises(IllegalActionError, match="has 2 shot"):
        sw.shoot(plan, {"shooter": "hv", "target": "st", "shots": 1}, Dice.given([1]))
    plan = sw.melee(plan, {"attacker": "pd", "defender": "gi"}, Dice.given([1])).plan_after
    with pytest.raises(IllegalActionError, match="already took its second action"):
        sw.force(plan, {"user": "pd", "power": "Répulsion"}, Dice.given([6]))
    with pytest.raises(IllegalActionError, match="1 to 2 attack"):  # the Grand Inquisiteur has A2
        sw.melee(plan, {"attacker": "gi", "defender": "pd", "attacks": 3}, None)
    plan = sw.end_turn(plan.with_state({**plan.state, "activated": [m.model_id for m in plan.models]}), {}, None).plan_after
    assert sw.shoot(plan, {"shooter": "hv", "target": "st", "shots": 2}, Dice.given([1, 1])).result["hits"] == 0


def test_zone_measure_option():
    """RULES-NOTES choice 8: Zone X to the base edge by default, to the base centre as an option."""
    import dataclasses

    from rules.frozen import freeze

    plan = make_plan([("gr", "rebels", 0, 0, "Soldat rebelle", None, ["grenade"]), ("st", "empire", 5, 0, "Stormtrooper"),
                      ("st2", "empire", 5, 2.3, "Stormtrooper")])
    req = {"shooter": "gr", "target": "st", "weapon": "grenade"}
    assert "to hit st2" in sw.shoot(plan, req, None).needed  # 2.3 pas to the centre, 1.8 to the edge: inside Zone 2
    centre = dataclasses.replace(plan, options=freeze({"zone_measure": "centre"}))
    assert "to hit st2" not in sw.shoot(centre, req, None).needed


def test_the_game_state_is_one_typed_record_and_a_damaged_one_is_refused_in_both_languages() -> None:
    """Star Wars, Phases d'activation and Médico: the state read from a game file, written back as the same JSON."""
    from rules.errors import GameFileError
    from rules.rulesets.star_wars.state import StarWarsState
    from tabletracker.i18n import texts

    saved = {"turn": 2, "activated": ["o1", "s1"], "phases": [{"side": "empire", "hero": "o1", "figures": ["s1"]},
                                                              {"side": "rebels", "troops": True, "figures": []}],
             "active_powers": {"Protection": ["j1"]}, "initiative": "empire",
             "dead": [{"id": "rb", "unit": "rb", "x_mm": 330.0, "y_mm": 740.0, "base_mm": 25.0, "profile": "Soldat",
                       "marker_id": 12}], "acted": {"s1": {"action": "shoot", "used": 1}}, "score": 3}
    st = StarWarsState.from_json(saved)
    assert (st.phases[0].hero, st.phases[1].troops, st.dead[0].x_mm, st.acted["s1"].used) == ("o1", True, 330.0, 1)
    assert st.to_json() == saved  # the optional keys written, the unknown one kept, nothing added
    with pytest.raises(GameFileError) as err:
        StarWarsState.from_json({"acted": {"s1": {"action": "shoot"}}})
    words = texts(err.value)
    assert words is not None and "acted.s1" in words["fr"] and "count used" in words["en"]


def test_a_long_range_shot_is_explained_in_french_and_english() -> None:
    """Règles de Tir told to a French player: the long-range +1 with the distance in pas, a decimal comma."""
    from tabletracker.i18n import step_texts, texts

    plan = make_plan([("st", "empire", 0, 0, "Stormtrooper"), ("rb", "rebels", 13.5, 0, "Soldat rebelle")])
    r = sw.shoot(plan, {"shooter": "st", "target": "rb"}, Dice.given([6]))
    said = [step_texts(s.to_json()) for s in r.steps if s.rule == "modifier"]
    assert said and said[0] is not None
    assert said[0]["fr"] == "+1 (longue portée : 12,5 pas, entre 10 et 20 pas)."
    assert said[0]["en"] == "+1: long range: 12.5 pas, between 10 and 20 pas."
    with pytest.raises(IllegalActionError) as err:
        sw.shoot(plan, {"shooter": "st", "target": "st"}, None)
    words = texts(err.value)
    assert words is not None and words["fr"].startswith("st est dans le camp de st")


def test_a_refused_army_list_says_why_in_french_and_english() -> None:
    """A lightsabre without the Force is refused, in the player's language."""
    from tabletracker.i18n import texts

    doc = {"ruleset": "star-wars", "side": "empire",
           "units": [{"id": "a", "models": [{"id": "a", "marker_id": 70, "base_mm": 25, "profile": "p"}]}],
           "profiles": {"p": {"T": 4, "C": 6, "Por": 10, "rules": ["Sabre laser"]}}}
    with pytest.raises(RosterError) as err:
        parse_roster(doc)
    words = texts(err.value)
    assert words is not None and "porte un sabre laser" in words["fr"] and "lightsabre" in words["en"]
