"""Feu à Volonté: the seed's examples, recruitment, modifiers, wounds, odds against brute force."""

from __future__ import annotations

import copy
import dataclasses
import json
from fractions import Fraction
from typing import Any

import pytest

from rules.resolve import resolve
from rules.rulesets.feu_a_volonte.actions import (Shot, _label, nerve_odds, range_band, roster_cost, shot_odds,
                                                  shot_outcome)
from rules.dice import Dice, Distribution, keep_best
from rules.errors import IllegalActionError, InvalidActionError, RosterError
from rules.frozen import freeze
from rules.plan import Table, TablePlan, Terrain
from rules.roster import load_roster, merge_rosters, parse_roster
from tabletracker.i18n import step_texts
from tabletracker.i18n import texts as refusal_texts
from tests.rules.brute import brute_force
from tests.rules.fav_table import ROSTERS, fav_plan, place


def texts(res) -> str:  # type: ignore[no-untyped-def]
    return "\n".join(f"{s.rule}: {s.text} [{s.source}]" for s in res.steps)


def with_status(plan, mid, *status):  # type: ignore[no-untyped-def]
    return plan.with_model(dataclasses.replace(plan.model(mid), status=tuple(status)))


# -- the seed's examples ----------------------------------------------------------------------------------


def test_micka_recruitment_comes_to_25_points() -> None:
    """Feu à Volonté, Recrutement: five élite (5 x 4) and one aguerri (2), a leader (+2), a second (+1)."""
    total, lines = roster_cost(load_roster(ROSTERS / "feu-a-volonte-micka-paras.json"))
    assert total == 25
    assert "para-leader: elite 4 + leader +2 = 6 PdR" in lines


def test_us_platoon_is_exactly_30_points() -> None:
    total, _ = roster_cost(load_roster(ROSTERS / "feu-a-volonte-us-platoon.json"))
    assert total == 30


def test_spotting_example_5_plus_2_is_7() -> None:
    """Se dissimuler: Seb rolls 3d6 for 5, 2 and 1, keeps 5 and 2: 7, the commando is spotted."""
    plan = with_status(fav_plan(), "para-2", "hidden")
    with pytest.raises(IllegalActionError, match="para-2 is hidden: spot it first"):
        resolve(plan, "shoot", {"firing": "us-sniper", "target": "para-2"}, None)
    res = resolve(plan, "spot", {"spotter": "us-sniper", "target": "para-2"}, Dice.given([5, 2, 1]))
    assert res.result["spotted"] is True and res.result["total"] == 7
    assert "keeps [5, 2]: 7 >= 7, spotted" in texts(res)
    assert res.odds["spotted"].probs[True] == keep_best(3).chance(lambda t: t >= 7)
    resolve(res.plan_after, "shoot", {"firing": "us-sniper", "target": "para-2"}, None)  # now allowed


def test_hidden_figure_within_2_ud_is_spotted_automatically() -> None:
    plan = with_status(fav_plan(), "para-2", "hidden")
    plan = place(plan, {"us-2": (340.0, 430.0)})  # 1.75 UD from para-2
    res = resolve(plan, "spot", {"spotter": "us-2", "target": "para-2"}, Dice.given([]))
    assert res.result["spotted"] and "under 2 UD" in texts(res)
    assert step_texts(res.to_json()["needed_words"]["spot"]) == {"fr": "automatique", "en": "automatic"}
    resolve(plan, "shoot", {"firing": "us-2", "target": "para-2"}, None)


def test_frantz_6_against_benoit_8_target_may_move_2_ud() -> None:
    """Les Combats à distance: 6 against 8, the shot misses and Benoît may move 2 UD."""
    o = shot_outcome((4, 2), 3, (5, 3), Shot(2, 0, 2, 0, 0))
    assert o["kind"] == "missed" and o["move_ud"] == 2
    # the same on the table: us-2 (aguerri, fusil +1, band 8-12 UD -1) at para-4 (aguerri, cran -1)
    plan = fav_plan()
    res = resolve(plan, "shoot", {"firing": "us-2", "target": "para-4"}, Dice.given([4, 2, 1, 5, 4]))
    assert res.result["shots"][0]["attack"] == 6 and res.result["shots"][0]["defence"] == 8
    assert res.result["outcome"] == "missed"
    assert "para-4 may move 2 UD away" in texts(res)


# -- recruitment refusals -------------------------------------------------------------------------------------


def us_doc() -> dict[str, Any]:
    return json.loads((ROSTERS / "feu-a-volonte-us-platoon.json").read_text(encoding="utf-8"))


def edit(fn) -> dict[str, Any]:  # type: ignore[no-untyped-def]
    doc = copy.deepcopy(us_doc())
    fn(doc)
    return doc


@pytest.mark.parametrize(("doc", "message"), [
    (edit(lambda d: d["units"][8]["models"][0].update(rules=["Commando"])), "costs 31 PdR, over the budget of 30"),
    (edit(lambda d: d["units"][0]["models"][0].pop("role")), "exactly one leader, this one has 0"),
    (edit(lambda d: [d["units"][i]["models"][0].update(role="second") for i in (2, 3)]),
     "one or two seconds, this one has 3"),
    (edit(lambda d: d["units"][2]["models"][0].update(rules=["Grenade", "Commando"])),
     "us-1: a trooper has at most 1 trait"),
    (edit(lambda d: d.update(units=d["units"][:4])), "5 to 10 members, this one 4"),
    (edit(lambda d: d["units"][2]["models"][0].update(rules=["Jedi"])), "unknown trait 'Jedi'"),
    (edit(lambda d: d["units"][2]["models"][0].update(weapons=["Blaster"])), "unknown weapon 'Blaster'"),
    (edit(lambda d: d["profiles"]["recrue"].update(quality="conscrit")), "no Feu à Volonté quality"),
    (edit(lambda d: d["units"][2]["models"][0].update(marker_id=70)), "marker id 70 is given to both"),
])
def test_recruitment_refusals(doc: dict[str, Any], message: str) -> None:
    with pytest.raises(RosterError, match=message):
        parse_roster(doc, source="us.json")


def test_support_budget_of_40_points_is_allowed() -> None:
    doc = edit(lambda d: (d["units"][8]["models"][0].update(rules=["Commando"]), d.update(extra={"budget": 40})))
    assert parse_roster(doc, source="us.json").extra["budget"] == 40


# -- support teams' recruitment (Recrutement, 1914 à nos jours; the program's reading, rule choice 9) ----------


def _team(doc: dict[str, Any], team_id: str, kind: str | None, members: tuple[int, ...]) -> None:
    """Merge the units at ``members`` (indexes in the US roster) into one unit ``team_id`` crewing a ``kind`` team."""
    crew = [m for i in members for m in doc["units"][i]["models"]]
    units = [u for i, u in enumerate(doc["units"]) if i not in members]
    doc["units"] = units + [{"id": team_id, "models": crew, **({"extra": {"support": kind}} if kind else {})}]


def test_a_support_team_pays_its_price_once_for_the_weapon_it_serves() -> None:
    # The US platoon (30 PdR): us-lmg (aguerri 2 + LMG 2) and us-1 (aguerri 2 + Fusil 0) crew an LMG team.
    # Each figure is recruited as usual but for the LMG, which the team pays with its 2 PdR: 2 + 2 + 2 = 6,
    # what the two cost alone; the platoon stays at 30, its budget becomes 40 (1914 à nos jours).
    doc = edit(lambda d: _team(d, "us-lmg-team", "lmg", (2, 6)))
    roster = parse_roster(doc, source="us.json")
    total, lines = roster_cost(roster)
    assert total == 30
    assert "us-lmg: aguerri 2 + trooper +0 + LMG (the team's) = 2 PdR" in lines
    assert "us-lmg-team: lmg team (us-1, us-lmg), LMG = 2 PdR" in lines
    # the table agrees once the roster is on it: the recruit action counts the team from the unit's extra.support
    plan = merge_rosters(TablePlan(ruleset="feu-a-volonte", table=Table(900.0, 900.0)), [roster])
    plan = dataclasses.replace(plan, models=tuple(m.placed_at((100.0 + 40.0 * i, 100.0), 90.0)
                                                  for i, m in enumerate(plan.models)))  # where the camera saw them
    res = resolve(plan, "recruit", {"side": "US"}, None)
    assert res.result == {"total_pdr": 30, "problems": [], "budget_pdr": 40, "teams_pdr": 2}
    team = next(s for s in res.steps if s.msg == "fav.recruit.team")
    words = step_texts(team.to_json())
    assert words is not None and words["fr"].startswith("Équipe d'appui us-lmg-team (lmg : us-1, us-lmg) : 2 PdR")
    gunner = step_texts(next(s for s in res.steps if s.params.get("who") == "us-lmg").to_json())
    assert gunner is not None and "arme LMG payée par son équipe d'appui" in gunner["fr"]


def test_a_mortar_team_fits_the_40_pdr_budget_where_a_lone_mortar_breaks_30() -> None:
    # us-3, us-4 (aguerri 2 each) and us-rookie (recrue 1) serve a mortar that us-3 carries: 2 + 2 + 1 + the
    # team's 3 PdR = 8 where the three cost 5 before: 33 PdR, within the 40 of a platoon with support teams.
    def mortar(d: dict[str, Any], kind: str | None) -> None:
        d["units"][4]["models"][0]["weapons"] = ["Mortier"]
        _team(d, "us-mortar", kind, (4, 5, 8))

    assert roster_cost(parse_roster(edit(lambda d: mortar(d, "mortier")), source="us.json"))[0] == 33
    # the same three without the team: the mortar's own 3 PdR, and the usual 30 PdR budget
    with pytest.raises(RosterError, match="costs 33 PdR, over the budget of 30"):
        parse_roster(edit(lambda d: mortar(d, None)), source="us.json")


@pytest.mark.parametrize(("change", "msg_id", "words"), [
    (lambda d: _team(d, "us-hmg", "hmg", (2, 6)), "fav.roster.platoon",
     "us-hmg : une équipe hmg compte 3 figurines, celle-ci 2"),
    (lambda d: _team(d, "us-flak", "flak", (2, 6)), "feu_a_volonte.support.unknown_type",
     "Type d'équipe d'appui inconnu « flak »"),
], ids=["team short of a figure", "unknown team type"])
def test_a_support_team_the_recruitment_does_not_allow_is_refused(change: Any, msg_id: str, words: str) -> None:
    with pytest.raises(RosterError) as err:
        parse_roster(edit(change), source="us.json")
    assert err.value.msg_id == msg_id
    said = refusal_texts(err.value)
    assert said is not None and words in said["fr"] and set(said) == {"fr", "en"}


# -- modifiers -------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("ud", "expected"), [
    (3.9, (1, "< 4 UD")), (4.0, (1, "< 4 UD")), (4.1, (0, "4-8 UD")), (8.0, (0, "4-8 UD")),
    (9.5, (-1, "8-12 UD")), (12.0, (-1, "8-12 UD")), (12.01, (-2, "> 12 UD")),
])
def test_range_bands_boundary_to_the_nearer_band(ud: float, expected: tuple[int, str]) -> None:
    assert range_band(ud) == expected


def test_modifiers_are_sourced_with_numbers() -> None:
    plan = place(fav_plan(), {"para-2": (340.0, 480.0)})  # 9.5 UD from us-2 straight ahead
    res = resolve(plan, "shoot", {"firing": "us-2", "target": "para-2"}, None)
    step = next(s for s in res.steps if "band" in s.text)
    assert step.text == "-1: target 9.5 UD away, band 8-12 UD"
    assert step.source == "Feu à Volonté, Bonus/malus de situation" and step.value == -1


def test_rear_moved_prone_cover_and_extra_shooters() -> None:
    plan = fav_plan()
    plan = plan.with_model(dataclasses.replace(plan.model("para-2"), facing_deg=90.0))  # back to the US
    plan = with_status(plan, "para-2", "prone")
    res = resolve(plan, "shoot", {"firing": "us-2", "target": "para-2", "moved": "yes",
                                  "shooters": "us-1,us-3"}, None)
    t = texts(res)
    assert "+1: shot from behind para-2" in t
    assert "-1: us-2 moved before shooting" in t
    assert "-1: para-2 is prone" in t
    assert "+2: 2 more shooter(s) at the same target; main shooter us-2 is the nearest" in t
    wall = Terrain("hedge", "hedge", "line", ((250.0, 450.0), (400.0, 450.0)))
    covered = dataclasses.replace(fav_plan(), terrain=(wall,))
    res = resolve(covered, "shoot", {"firing": "us-2", "target": "para-2"}, None)
    assert "-1: para-2 in cover" in texts(res)


def test_traits_and_auras() -> None:
    plan = fav_plan()
    res = resolve(plan, "shoot", {"firing": "us-sniper", "target": "para-2"}, None)
    assert "rolls 4d6 and keeps two (Lunette de visée: +1d6)" in texts(res)
    plan = place(plan, {"us-1": (100.0, 160.0)})  # 1.5 UD from us-leader (En avant !)
    res = resolve(plan, "shoot", {"firing": "us-1", "target": "para-1"}, None)
    assert "En avant ! from us-leader" in texts(res)


def test_pistol_range_is_4_ud_without_band_modifier() -> None:
    plan = fav_plan()
    with pytest.raises(IllegalActionError, match="Pistolet: range 4 UD"):
        resolve(plan, "shoot", {"firing": "para-leader", "target": "us-leader"}, None)
    near = place(plan, {"para-leader": (100.0, 250.0)})
    res = resolve(near, "shoot", {"firing": "para-leader", "target": "us-leader"}, None)
    assert "no range bonus or malus" in texts(res)


def test_out_of_arc_and_no_sight_are_refused() -> None:
    plan = fav_plan()
    plan = plan.with_model(dataclasses.replace(plan.model("us-2"), facing_deg=270.0))
    with pytest.raises(IllegalActionError, match="beyond the 180° front arc and the free 45° turn"):
        resolve(plan, "shoot", {"firing": "us-2", "target": "para-2"}, None)
    house = Terrain("b1", "building", "area", ((280.0, 250.0), (400.0, 250.0), (400.0, 350.0), (280.0, 350.0)))
    with pytest.raises(IllegalActionError, match="no line of sight"):
        resolve(dataclasses.replace(fav_plan(), terrain=(house,)), "shoot",
                {"firing": "us-2", "target": "para-2"}, None)


# -- outcomes and state -----------------------------------------------------------------------------------------


def test_double_one_is_out_of_ammunition_then_reload() -> None:
    plan = fav_plan()
    res = resolve(plan, "shoot", {"firing": "us-2", "target": "para-2"}, Dice.given([1, 1]))
    assert res.result["outcome"] == "out-of-ammo"
    assert res.plan_after.model("us-2").has_status("out-of-ammo")
    with pytest.raises(IllegalActionError, match="out of ammunition: reload first"):
        resolve(res.plan_after, "shoot", {"firing": "us-2", "target": "para-2"}, None)
    again = resolve(res.plan_after, "reload", {"unit": "us-2"}, None)
    assert not again.plan_after.model("us-2").has_status("out-of-ammo")


def test_double_six_and_double_the_defence_kill() -> None:
    assert shot_outcome((6, 6, 1), 1, (6, 6), Shot(3, 0, 2, 5, 0))["why"] == "double six"
    o = shot_outcome((5, 5), 1, (1, 1, 2), Shot(2, 0, 3, 2, 0))  # 10 against 5: at least double
    assert o["kind"] == "killed" and o["why"] == "at least double the defence"
    plan = fav_plan()
    res = resolve(plan, "shoot", {"firing": "us-2", "target": "para-4"}, Dice.given([6, 6, 1, 6, 6]))
    assert res.result["outcome"] == "killed"
    assert all(m.model_id != "para-4" for m in res.plan_after.models)
    assert res.plan_after.state["losses"] == {"Fallschirmjäger": 1}


def test_wounds_pile_up_and_the_third_kills() -> None:
    plan = fav_plan()
    req = {"firing": "us-2", "target": "para-4"}
    res = resolve(plan, "shoot", req, Dice.given([6, 5, 2, 2, 1]))  # 11 against 2: double -> killed
    assert res.result["outcome"] == "killed"
    res = resolve(plan, "shoot", req, Dice.given([6, 5, 2, 4, 3]))  # 11 against 6: arm
    assert res.plan_after.model("para-4").extra["wounds"] == ("bras",)
    res = resolve(res.plan_after, "shoot", req, Dice.given([6, 5, 3, 4, 3]))  # chest
    assert res.plan_after.model("para-4").extra["wounds"] == ("bras", "buste")
    res2 = resolve(res.plan_after, "shoot", req, None)
    assert "wounded in the chest x1" in texts(res2)
    res = resolve(res.plan_after, "shoot", req, Dice.given([6, 5, 1, 5, 5]))  # 11 against 8, leg: third marker
    assert res.result["shots"][0]["why"] == "third wound"
    assert all(m.model_id != "para-4" for m in res.plan_after.models)


def test_tie_nerve_test() -> None:
    plan = fav_plan()
    res = resolve(plan, "shoot", {"firing": "us-2", "target": "para-4"}, Dice.given([4, 3, 2, 4, 4, 2, 2]))
    assert res.result["outcome"] == "tie: falls back"
    assert res.plan_after.model("para-4").has_status("fell-back")


def test_cadence_two_shots_in_a_row() -> None:
    plan = fav_plan()
    res = resolve(plan, "shoot", {"firing": "us-leader", "target": "para-leader", "shots": 2},
                  Dice.given([2, 2, 3, 1, 6, 6, 1, 1] + [3, 3, 2, 1, 6, 6, 1, 1]))
    assert [s["kind"] for s in res.result["shots"]] == ["missed", "missed"]
    # a kill stops the burst: the second shot is not rolled
    res = resolve(plan, "shoot", {"firing": "us-leader", "target": "para-leader", "shots": 2},
                  Dice.given([6, 6, 3, 1, 2, 2, 1, 1]))
    assert [s["kind"] for s in res.result["shots"]] == ["killed"]
    with pytest.raises(InvalidActionError, match="cadence of 2"):
        resolve(plan, "shoot", {"firing": "us-leader", "target": "para-leader", "shots": 3}, None)


# -- exact odds against brute force ------------------------------------------------------------------------------


@pytest.mark.parametrize("shot", [Shot(2, 1, 2, 0, 2), Shot(2, -2, 2, 1, 1, 8)])
def test_shot_odds_match_brute_force(shot: Shot) -> None:
    nerve = (2, -1)

    def run(d: Dice) -> str:
        attack = d.roll_many(shot.attack_dice)
        if sorted(attack).count(1) >= 2:
            return "out-of-ammo"
        face = d.roll(shot.location_die)
        o = shot_outcome(attack, face, d.roll_many(shot.defence_dice), shot)
        label = _label(o)
        if label == "tie":
            kept = sorted(d.roll_many(nerve[0]), reverse=True)[:2]
            return "tie: holds" if sum(kept) + nerve[1] >= 7 else "tie: falls back"
        return label

    assert brute_force(run, lambda x: x, limit=200_000) == shot_odds(shot, nerve)


def test_spot_and_activation_odds_match_brute_force_on_the_table() -> None:
    plan = with_status(fav_plan(), "para-2", "hidden")
    req = {"spotter": "us-sniper", "target": "para-2"}
    exact = resolve(plan, "spot", req, None).odds["spotted"]
    assert brute_force(lambda d: resolve(plan, "spot", req, d), lambda r: r.result["spotted"]) == exact
    req = {"figures": "us-1,us-2"}
    res = resolve(plan, "activate", req, None)
    got = brute_force(lambda d: _activation_or_none(plan, req, d), lambda r: r)
    assert got.map(lambda r: r[1]) == res.odds["action points"]
    assert got.map(lambda r: r[0]) == res.odds["figures"]


def _activation_or_none(plan, req, d):  # type: ignore[no-untyped-def]
    """Return (figures the d6 allows, action points) of a group activation, refused or not."""
    try:
        ap = resolve(plan, "activate", req, d).result["action_points"]
    except IllegalActionError:
        ap = d.rolled[1][1] - 1
    return {1: 1, 2: 1, 3: 2, 4: 2, 5: 3, 6: 3}[d.rolled[0][1]], ap


def test_melee_odds_and_result() -> None:
    plan = place(fav_plan(), {"us-2": (340.0, 475.0)})
    req = {"attacker": "us-2", "defender": "para-2", "charge": "yes"}
    res = resolve(plan, "melee", req, None)
    a, d = keep_best(2).map(lambda t: t - 1 + 0 + 1), keep_best(4).map(lambda t: t + 1)
    expected = a.convolve(d, lambda x, y: "attacker wins" if x > y else "defender wins" if y > x else "tie")
    assert res.odds["melee"] == expected
    assert "+1 (charge" in texts(res)
    res = resolve(plan, "melee", req, Dice.given([6, 6, 2, 1, 1, 2, 1, 3]))
    assert res.result["outcome"] == "attacker wins" and res.result["location"] == "bras"
    assert res.plan_after.model("para-2").extra["wounds"] == ("bras",)


def test_nerve_odds() -> None:
    assert nerve_odds(3, 0) == keep_best(3).chance(lambda t: t >= 7)
    res = resolve(fav_plan(), "morale", {"unit": "para-4"}, Dice.given([6, 1]))
    assert res.result == {"holds": True, "total": 6 + 1 - 1} or res.result["holds"] is False


# -- activation and action points -------------------------------------------------------------------------------


def test_activation_points_are_spent_and_radio_costs_one_more() -> None:
    plan = fav_plan()
    res = resolve(plan, "activate", {"unit": "us-rookie"}, Dice.given([5]))
    assert res.result["action_points"] == 4
    assert "us-rookie is 14 UD from its nearest leader or second (more than 4 UD)" in texts(res)
    after = res.plan_after
    shot = resolve(after, "shoot", {"firing": "us-rookie", "target": "para-4"}, Dice.given([3, 4, 1, 6, 6]))
    assert shot.plan_after.state["activation"]["ap_left"] == 4 - 3  # combat 2 PA + 1 for the radio
    with pytest.raises(IllegalActionError, match="costs 2 PA but the activation has 1 left"):
        resolve(shot.plan_after, "shoot", {"firing": "us-rookie", "target": "para-3"}, Dice.given([3, 4, 1, 2, 2]))
    with pytest.raises(IllegalActionError, match="already been activated"):
        resolve(after, "activate", {"unit": "us-rookie"}, None)
    ended = resolve(after, "end-turn", {}, None)
    assert not ended.plan_after.model("us-rookie").has_status("activated")
    assert ended.result["turn"] == 2 and ended.result["game_over"] is False


def test_group_activation_limits_the_figures() -> None:
    plan = fav_plan()
    with pytest.raises(IllegalActionError, match="the d6 shows 2: at most 1 figure"):
        resolve(plan, "activate", {"figures": "us-1,us-2"}, Dice.given([2, 5]))
    res = resolve(plan, "activate", {"figures": "us-1,us-2"}, Dice.given([3, 5]))
    assert res.result["action_points"] == 4


def test_recruit_action_and_unknown_action() -> None:
    res = resolve(fav_plan(), "recruit", {"side": "Fallschirmjäger"}, None)
    assert res.result["total_pdr"] == 25 and res.result["problems"] == []
    with pytest.raises(InvalidActionError, match="actions are: activate, disengage, end-turn, initiative, melee"):
        resolve(fav_plan(), "fly", {}, None)


# -- area weapons and paid actions ------------------------------------------------------------------------------


def _grenadier(plan):  # type: ignore[no-untyped-def]
    plan = place(plan, {"us-leader": (340.0, 380.0)})  # 3 UD from para-2
    m = plan.model("us-leader")
    return plan.with_model(dataclasses.replace(m, extra=freeze({**dict(m.extra), "rules": ["Grenade", "En avant !"]})))


def test_grenade_on_target_hits_every_figure_within_3_ud() -> None:
    """Arme à aire d'effet: 7+ lands on the point, kept result + bonus against each figure within 3 UD."""
    plan = _grenadier(fav_plan())
    req = {"thrower": "us-leader", "target": "para-2"}
    res = resolve(plan, "throw", req, None)
    assert res.odds["lands on the point"].probs[True] == keep_best(3).chance(lambda t: t >= 7)
    hit = sorted(k for k in res.odds if k.startswith("if on the point"))
    assert hit == ["if on the point: para-1", "if on the point: para-2", "if on the point: para-3",
                   "if on the point: us-leader"]  # the thrower stands 3 UD away: caught too
    # 6+5 = 11 (+1 grenade: 12) against para-2 4+3+1 = 8, para-1 and para-3 defend with 6+6+1 = 13, us-leader 1+1 = 2
    dice = [6, 5, 1] + [4, 4, 3, 1, 1] + [1, 6, 6, 1, 1] + [1, 6, 6, 2, 2] + [1, 1, 1, 1]
    res = resolve(plan, "throw", req, Dice.given(dice))
    by = {o["figure"]: o for o in res.result["figures"]}
    assert res.result["on_point"] and res.result["attack"] == 12
    assert by["para-2"]["kind"] == "killed" and by["para-2"]["why"] == "head"
    assert by["para-1"]["kind"] == "missed" and by["us-leader"]["kind"] == "killed"
    assert res.plan_after.model("para-1").model_id == "para-1"
    assert all(m.model_id not in ("para-2", "us-leader") for m in res.plan_after.models)


def test_grenade_deviates_and_grenades_run_out() -> None:
    plan = _grenadier(fav_plan())
    req = {"thrower": "us-leader", "target": "para-2"}
    far = place(plan, {"us-leader": (340.0, 100.0)})
    with pytest.raises(IllegalActionError, match="range 4 UD"):
        resolve(far, "throw", req, None)
    spent = plan.with_model(dataclasses.replace(plan.model("us-leader"), extra=freeze(
        {**dict(plan.model("us-leader").extra), "grenades_thrown": 2})))
    with pytest.raises(IllegalActionError, match="no grenade left"):
        resolve(spent, "throw", req, None)
    # 3+2 = 5 < 7: a d6 of 4 sends it 4 UD straight away from the thrower, behind para-2: nobody within 3 UD
    res = resolve(plan, "throw", req, Dice.given([3, 2, 1, 4]))
    assert res.result["deviation"] == 4 and res.result["impact_mm"] == [340.0, 660.0]
    assert res.result["figures"] == []
    assert res.plan_after.model("us-leader").extra["grenades_thrown"] == 1


def test_pay_moves_hides_and_spends_points() -> None:
    plan = fav_plan()
    act = resolve(plan, "activate", {"unit": "us-2"}, Dice.given([1])).plan_after  # 2 PA
    moved = resolve(act, "pay", {"unit": "us-2", "action": "marcher"}, None).plan_after
    assert moved.model("us-2").has_status("moved") and moved.state["activation"]["ap_left"] == 1
    res = resolve(moved, "shoot", {"firing": "us-2", "target": "para-2"}, None)
    assert "-1: us-2 moved before shooting" in texts(res)
    with pytest.raises(IllegalActionError, match="costs 2 PA but the activation has 1 left"):
        resolve(moved, "pay", {"unit": "us-2", "action": "courir"}, None)
    hidden = resolve(moved, "pay", {"unit": "us-2", "action": "se dissimuler"}, None).plan_after
    assert hidden.model("us-2").has_status("hidden")
    with pytest.raises(InvalidActionError, match="actions and their PA"):
        resolve(plan, "pay", {"unit": "us-2", "action": "dance"}, None)


def test_blast_odds_match_brute_force() -> None:
    from rules.rulesets.feu_a_volonte.actions import _blast_odds, _blast_outcome

    plan = _grenadier(fav_plan())
    target = plan.model("para-4")  # aguerri: 2d6 - 1 in defence
    exact = _blast_odds(plan, 2, 1, target)

    def run(d: Dice) -> str:
        kept = tuple(sorted(d.roll_many(2), reverse=True))
        if sum(kept) < 7:
            return "not landed"
        face = d.roll(4)
        return _label(_blast_outcome(sum(kept) + 1, kept, face, d.roll_many(2), Shot(0, 0, 2, -1, 0)))

    joint = brute_force(run, lambda x: x)
    landed = 1 - joint.probs["not landed"]
    conditioned = Distribution({k: v / landed for k, v in joint.probs.items() if k != "not landed"})
    assert conditioned == exact


def test_cohesion_rerolls_a_failed_spotting_roll() -> None:
    """Compétences, Cohésion: us-1 stands 1 UD from us-second (Cohésion) and may re-roll a failed roll."""
    from rules.dice import with_reroll

    plan = with_status(place(fav_plan(), {"us-1": (180.0, 140.0)}), "para-2", "hidden")
    req = {"spotter": "us-1", "target": "para-2"}
    res = resolve(plan, "spot", req, None)
    assert "Cohésion of us-second" in texts(res)
    assert res.odds["spotted"].probs[True] == with_reroll(keep_best(2).chance(lambda t: t >= 7))
    assert brute_force(lambda d: resolve(plan, "spot", req, d), lambda r: r.result["spotted"]) == res.odds["spotted"]
    res = resolve(plan, "spot", req, Dice.given([1, 2, 4, 3]))
    assert res.result["spotted"] and res.result["dice"] == [1, 2, 4, 3]


def test_chance_and_reserve_dice() -> None:
    plan = fav_plan()
    with pytest.raises(IllegalActionError, match="does not have the trait Chance de cocu"):
        resolve(plan, "spot", {"spotter": "us-2", "target": "para-2", "chance": "yes"}, None)
    res = resolve(plan, "spot", {"spotter": "us-second", "target": "para-2", "reserve": 2}, None)
    assert "rolls 5d6" in texts(res)  # vétéran 3d6 + 2 reserve dice
    res = resolve(plan, "spot", {"spotter": "us-second", "target": "para-2", "reserve": 2}, Dice.given([1] * 5))
    assert res.plan_after.state["reserve_used"]["US"] == {"leader": 2, "second": 0}
    with pytest.raises(IllegalActionError, match="has 3 dice left"):
        resolve(res.plan_after, "spot", {"spotter": "us-second", "target": "para-2", "reserve": 4}, None)
    with pytest.raises(IllegalActionError, match="not within 3 UD of its leader or a second"):
        resolve(plan, "spot", {"spotter": "us-rookie", "target": "para-2", "reserve": 1}, None)


# -- weather and initiative -------------------------------------------------------------------------------------


def test_weather_d8_table_wind_and_fog() -> None:
    plan = fav_plan()
    res = resolve(plan, "weather", {}, None)
    assert res.odds["weather"].probs["brouillard"] == Fraction(1, 4)
    foggy = resolve(plan, "weather", {}, Dice.given([3])).plan_after
    assert foggy.state["weather"] == {"kind": "brouillard"}
    with pytest.raises(IllegalActionError, match="in the fog every target must be detected first"):
        resolve(foggy, "shoot", {"firing": "us-2", "target": "para-2"}, None)
    # wind from the bottom edge (d8 5: from 90°, +y): the US at y = 100 shoot toward +y, into the wind
    windy = resolve(plan, "weather", {}, Dice.given([1, 5])).plan_after
    far = place(windy, {"para-2": (340.0, 560.0)})  # 11.5 UD
    into_wind = resolve(far, "shoot", {"firing": "us-2", "target": "para-2"}, None)
    assert "-1: shooting into the wind at 11.5 UD" in texts(into_wind)
    near = resolve(windy, "shoot", {"firing": "us-2", "target": "para-2"}, None)  # 10 UD: no malus
    assert "into the wind" not in texts(near)
    back = resolve(far, "shoot", {"firing": "para-2", "target": "us-2"}, None)  # wind in the back
    assert "into the wind" not in texts(back)


def test_initiative_ties_roll_again() -> None:
    res = resolve(fav_plan(), "initiative", {}, Dice.given([4, 4, 2, 5]))
    assert res.result == {"starts": "US", "rolls": [[4, 4], [2, 5]]}  # sides in name order: Fallschirmjäger, US
    assert res.plan_after.state["initiative"] == "US"


def test_bazooka_must_aim_first_and_disengage() -> None:
    plan = fav_plan()
    m = plan.model("us-4")
    plan = plan.with_model(dataclasses.replace(m, weapons=("Bazooka",)))
    res = resolve(plan, "shoot", {"firing": "us-4", "target": "para-4"}, None)
    assert res.odds["aiming"].probs["aimed"] == keep_best(2).chance(lambda t: t >= 7)
    res = resolve(plan, "shoot", {"firing": "us-4", "target": "para-4"}, Dice.given([3, 2]))
    assert res.result["aiming"]["total"] == 5 and res.result["shots"] == []
    res = resolve(plan, "shoot", {"firing": "us-4", "target": "para-4"}, Dice.given([4, 3, 6, 5, 1, 2, 2]))
    assert res.result["outcome"] == "killed"  # aimed on 7, then 11 +1 -1 = 11 against 4 - 1 = 3
    res = resolve(plan, "disengage", {"unit": "us-4"}, Dice.given([5, 2]))
    assert res.result == {"disengaged": True, "total": 7}


def test_charge_from_behind_only_dodges() -> None:
    plan = place(fav_plan(), {"us-2": (340.0, 530.0)})  # behind para-2, which faces the US line (270°)
    req = {"attacker": "us-2", "defender": "para-2", "charge": "yes"}
    res = resolve(plan, "melee", req, None)
    assert res.odds["melee"].probs["dodged"] == keep_best(4).chance(lambda t: t >= 7)
    res = resolve(plan, "melee", req, Dice.given([3, 2, 1, 1, 2]))  # dodge 5: wounded, d4 2 = arm
    assert res.result["outcome"] == "attacker wins" and res.result["location"] == "bras"


def test_opportunity_fire_is_spent_by_a_shot() -> None:
    plan = with_status(fav_plan(), "us-2", "ambush")
    res = resolve(plan, "shoot", {"firing": "us-2", "target": "para-4"}, Dice.given([4, 2, 1, 5, 4]))
    assert not res.plan_after.model("us-2").has_status("ambush")
    assert "no longer ready to fire" in texts(res)


def test_cadence_split_between_targets_2_ud_apart() -> None:
    plan = place(fav_plan(), {"para-3": (420.0, 540.0)})  # 2.2 UD from para-2: too far
    req = {"firing": "us-leader", "targets": "para-2,para-3"}  # SMG, cadence 2
    with pytest.raises(IllegalActionError, match="2 UD apart at most"):
        resolve(plan, "shoot", req, None)
    plan = place(fav_plan(), {"para-3": (400.0, 500.0)})  # 1.5 UD from para-2
    res = resolve(plan, "shoot", req, None)
    assert set(res.odds) == {"shot at para-2", "shot at para-3"}
    res = resolve(plan, "shoot", req, Dice.given([2, 2, 3, 1, 6, 6, 1, 1] + [3, 3, 2, 1, 6, 6, 1, 1]))
    assert [s["target"] for s in res.result["shots"]] == ["para-2", "para-3"]
    with pytest.raises(InvalidActionError, match="cadence of 2"):
        resolve(plan, "shoot", {**req, "targets": "para-2,para-3,para-2"}, None)


def test_end_of_turn_activation_of_the_last_figures() -> None:
    """Cas particulier d'activation: 1d8 per 3 figures not yet activated, all activated together."""
    from rules.dice import sum_of

    plan = fav_plan()
    for m in plan.models:
        if m.model_id.startswith("para") or m.model_id in ("us-leader", "us-second", "us-1", "us-2"):
            plan = plan.with_model(dataclasses.replace(m, status=("activated",)))
    left = "us-3,us-4,us-lmg,us-sniper,us-rookie"
    res = resolve(plan, "activate", {"figures": left, "rest": "yes"}, None)
    assert res.odds["action points"] == sum_of(2, 8)  # five figures: two d8
    res = resolve(plan, "activate", {"figures": left, "rest": "yes"}, Dice.given([3, 8]))
    assert res.result["action_points"] == 11
    with pytest.raises(InvalidActionError, match="takes every figure not yet activated"):
        resolve(plan, "activate", {"figures": "us-3,us-4", "rest": "yes"}, None)
    with pytest.raises(IllegalActionError, match="the other side still has figures"):
        resolve(fav_plan(), "activate", {"figures": "us-3", "rest": "yes"}, None)
