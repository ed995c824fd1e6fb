"""Feu à Volonté support groups and the quality of non-player characters, from table situations with exact dice.

Sources (seeds/feu-a-volonte-v1.6.txt): Groupe d'appui; Recrutement (1914 à nos jours, the
support teams); Blessure et mort d'une figurine (1914 à nos jours); Arme à aire d'effet;
Arme anti-char portable; Jouer en solitaire (Personnages non-joueurs).
"""

from __future__ import annotations

import dataclasses
from fractions import Fraction
from typing import Any

import pytest

from rules.dice import Dice
from rules.errors import IllegalActionError, InvalidActionError
from rules.plan import TablePlan, parse_game
from rules.resolve import resolve
from rules.rulesets.feu_a_volonte.support import SUPPORT_TYPES, group_of
from tabletracker.i18n import step_texts

PROFILES = {"vet": {"quality": "vétéran"}, "agu": {"quality": "aguerri"}, "npc": {"quality": "PnJ"}}


def _game(team: str = "hmg", *, crew_x: tuple[float, ...] = (100, 125, 150), wounds: tuple[list[str], ...] = (),
          target_xy: tuple[float, float] = (150, 420), target_profile: str = "agu",
          crew_weapons: list[str] | None = None) -> TablePlan:
    """A team of vétérans standing base to base along y = 100 mm (25 mm bases), enemies to the south.

    1 UD = 40 mm: t1 stands 8 UD from the crew figure at x = 150, t2 10 UD from the one at x = 125.
    """
    crew = []
    for i, x in enumerate(crew_x):
        m: dict[str, Any] = {"id": f"c{i + 1}", "unit": "team", "x_mm": x, "y_mm": 100, "base_mm": 25,
                             "profile": "vet", "weapons": list(crew_weapons or ["Fusil"])}
        if i < len(wounds):
            m["extra"] = {"wounds": wounds[i]}
        crew.append(m)
    return parse_game({
        "ruleset": "feu-a-volonte", "table": {"width_mm": 900, "depth_mm": 900}, "profiles": PROFILES,
        "units": [{"id": "team", "side": "A", "extra": {"support": team}}, {"id": "b1", "side": "B"},
                  {"id": "b2", "side": "B"}],
        "models": [*crew,
                   {"id": "t1", "unit": "b1", "x_mm": target_xy[0], "y_mm": target_xy[1], "base_mm": 25,
                    "profile": target_profile, "weapons": ["Fusil"]},
                   {"id": "t2", "unit": "b2", "x_mm": 125, "y_mm": 500, "base_mm": 25, "profile": "vet",
                    "weapons": ["Fusil"]}]})


def _odds(res: Any, name: str = "shot") -> dict[Any, Fraction]:
    return dict(res.odds[name].probs)


# -- Groupe d'appui: the group fires its team's weapon as one shooter ---------------------------------------

def test_an_hmg_team_fires_from_the_crew_figure_nearest_the_target_with_its_cadence() -> None:
    # c3 (x = 150) is 320 mm = 8 UD from t1: band 4-8 (+0, nearer band), HMG +2, no bonus for c1 and c2.
    plan = _game()
    res = resolve(plan, "support_fire", {"support": "c1", "target": "t1"}, None)
    fire = next(s for s in res.steps if s.msg == "feu_a_volonte.support.fire")
    assert fire.params["firer"] == "c3" and fire.params["weapon"] == "HMG"
    mods = [s.value for s in res.steps if s.rule == "modifier"]
    assert mods == [0, 2]  # range band, weapon; nothing for the two other crew figures
    assert res.needed == {"attack": "more than the defence (3d6 keep 2 +2 against 2d6 keep 2 -1)"}
    # the same odds as c3 alone firing an HMG it carried
    alone = plan.with_model(dataclasses.replace(plan.model("c3"), weapons=("HMG",)))
    assert _odds(res) == _odds(resolve(alone, "shoot", {"firing": "c3", "target": "t1"}, None))
    # two shots of the cadence (6): 4,3,2 keep 7 +2 = 9 against 4,3 -1 = 6 with a d4 of 2 (arm), then a
    # natural double six kills outright
    done = resolve(plan, "support_fire", {"support": "team", "target": "t1", "shots": 2},
                   Dice.given([4, 3, 2, 2, 4, 3, 6, 6, 1, 1, 2, 2]))
    assert done.result is not None and done.plan_after is not None
    assert done.result["firer"] == "c3" and done.result["group"] == "team"
    assert [(s["kind"], s.get("location"), s.get("why")) for s in done.result["shots"]] == [
        ("wounded", "bras", None), ("killed", None, "double six")]
    assert "t1" not in {m.model_id for m in done.plan_after.models}
    assert done.plan_after.model("c3").weapons == ("Fusil",)  # the team's weapon is not added to the figure


def test_the_team_fires_from_an_activated_crew_figure_first() -> None:
    plan = _game()
    plan = plan.with_state({"activation": {"side": "A", "figures": ["c1"], "ap_left": 3, "surcharge": {}}})
    done = resolve(plan, "support_fire", {"support": "c2", "target": "t1"}, Dice.given([4, 3, 2, 2, 4, 3]))
    assert done.result is not None and done.result["firer"] == "c1"
    assert done.plan_after is not None and done.plan_after.state["activation"]["ap_left"] == 1  # 2 PA paid


def test_a_crew_out_of_base_contact_cannot_fire() -> None:
    plan = _game(crew_x=(100, 125, 190))  # c3 stands 15 mm off c2's base
    with pytest.raises(IllegalActionError) as err:
        resolve(plan, "support_fire", {"support": "c1", "target": "t1"}, None)
    assert err.value.msg_id == "feu_a_volonte.support.apart" and err.value.params["apart"] == ["c3"]


def test_a_mortar_team_fires_at_the_targets_point_as_an_area_weapon() -> None:
    # t1 stands 5 UD (200 mm) from c3: within the mortar's 6 UD. 4,3,1 keep 7: on the point; attack 7 + 2 = 9
    # against t1's 2,2 - 1 = 3: at least double, killed.
    plan = _game("mortier", target_xy=(150, 300))
    odds = resolve(plan, "support_fire", {"support": "c2", "target": "t1"}, None)
    assert _odds(odds, "lands on the point") == {True: Fraction(29, 36), False: Fraction(7, 36)}  # 3d6 keep 2, 7+
    done = resolve(plan, "support_fire", {"support": "c2", "target": "t1"}, Dice.given([4, 3, 1, 1, 2, 2]))
    assert done.result is not None
    assert (done.result["firer"], done.result["weapon"], done.result["on_point"], done.result["attack"]) == (
        "c3", "Mortier", True, 9)
    assert [(f["figure"], f["kind"]) for f in done.result["figures"]] == [("t1", "killed")]
    far = _game("mortier", target_xy=(150, 420))  # 8 UD: beyond the mortar's range
    with pytest.raises(IllegalActionError):
        resolve(far, "support_fire", {"support": "c2", "target": "t1"}, None)


def test_an_anti_tank_team_aims_first() -> None:
    plan = _game("anti-char", crew_x=(100, 125))
    res = resolve(plan, "support_fire", {"support": "c1", "target": "t1"}, None)
    assert _odds(res, "aiming") == {"aimed": Fraction(29, 36), "not aimed": Fraction(7, 36)}  # 3d6 keep 2, 7+
    done = resolve(plan, "support_fire", {"support": "c1", "target": "t1"}, Dice.given([3, 2, 1]))
    assert done.result is not None and done.result["aiming"]["total"] == 5 and done.result["shots"] == []


# -- forming a group of single figures ------------------------------------------------------------------------

def _singles() -> TablePlan:
    return parse_game({
        "ruleset": "feu-a-volonte", "table": {"width_mm": 900, "depth_mm": 900}, "profiles": PROFILES,
        "units": [{"id": u, "side": s} for u, s in (("a1", "A"), ("a2", "A"), ("a3", "A"), ("b1", "B"))],
        "models": [{"id": "a1", "unit": "a1", "x_mm": 100, "y_mm": 100, "base_mm": 25, "profile": "vet"},
                   {"id": "a2", "unit": "a2", "x_mm": 125, "y_mm": 100, "base_mm": 25, "profile": "vet"},
                   {"id": "a3", "unit": "a3", "x_mm": 300, "y_mm": 100, "base_mm": 25, "profile": "vet"},
                   {"id": "b1", "unit": "b1", "x_mm": 150, "y_mm": 100, "base_mm": 25, "profile": "agu"}]})


def test_two_figures_base_to_base_form_an_lmg_team() -> None:
    plan = _singles()
    res = resolve(plan, "support_group", {"crew": "a1,a2", "team": "LMG"}, None)
    assert res.result == {"group": "a1+a2", "type": "lmg", "crew": ["a1", "a2"], "weapon": "LMG", "wounds_to_leave": 4}
    assert res.plan_after is not None
    group = group_of(res.plan_after, res.plan_after.model("a2"))
    assert group is not None and (group.crew, group.limit, group.kind) == (("a1", "a2"), 4, SUPPORT_TYPES["lmg"])
    with pytest.raises(IllegalActionError) as again:
        resolve(res.plan_after, "support_group", {"crew": "a2,a1", "team": "sniper"}, None)
    assert again.value.msg_id == "feu_a_volonte.support.already"


@pytest.mark.parametrize("request_, msg_id", [
    ({"crew": "a1,a2", "team": "hmg"}, "feu_a_volonte.support.crew_count"),  # an HMG team has three
    ({"crew": "a1,a3", "team": "lmg"}, "feu_a_volonte.support.apart"),  # 175 mm apart
    ({"crew": "a2,b1", "team": "lmg"}, "feu_a_volonte.support.sides"),
    ({"crew": "a1,a2", "team": "flamethrower"}, "feu_a_volonte.support.unknown_type"),
])
def test_a_support_group_the_rules_do_not_allow_is_refused(request_: dict[str, Any], msg_id: str) -> None:
    with pytest.raises((IllegalActionError, InvalidActionError)) as err:
        resolve(_singles(), "support_group", request_, None)
    assert err.value.msg_id == msg_id  # type: ignore[union-attr]


def test_a_malformed_support_group_in_the_game_file_is_named() -> None:
    plan = _game()
    team = plan.unit("team")
    for extra, msg_id in (({"support": "hmg", "support_wounds": "two"}, "feu_a_volonte.support.not_whole"),
                          ({"support": "flak"}, "feu_a_volonte.support.unknown_type")):
        bad = plan.with_unit(dataclasses.replace(team, extra=extra))
        with pytest.raises((IllegalActionError, InvalidActionError)) as err:
            resolve(bad, "shoot", {"firing": "t2", "target": "c2"}, None)
        assert err.value.msg_id == msg_id  # type: ignore[union-attr]
    lone = _game("lmg", crew_x=(100,))
    with pytest.raises(IllegalActionError) as one:
        resolve(lone, "support_fire", {"support": "c1", "target": "t1"}, None)
    assert one.value.msg_id == "feu_a_volonte.support.size"


def test_a_figure_outside_any_group_cannot_fire_as_one() -> None:
    with pytest.raises(IllegalActionError) as err:
        resolve(_singles(), "support_fire", {"support": "a1", "target": "b1"}, None)
    assert err.value.msg_id == "feu_a_volonte.support.not_a_group"


# -- Blessure et mort d'une figurine (1914 à nos jours): 4 wounds for two figures, 5 for three --------------

def test_a_hit_on_the_crew_is_one_wound_of_the_group_even_on_the_head() -> None:
    # t2 (vétéran, Fusil +1, 10 UD: -1) fires at c2 of an HMG team (three figures: out at 5 wounds) that has
    # 3 wounds already. 6,6,2: a natural double six, location d4 4 (head): one more wound, nobody removed.
    plan = _game(wounds=(["jambe", "bras"], ["buste"]))
    res = resolve(plan, "shoot", {"firing": "t2", "target": "c2"}, None)
    target_step = next(s for s in res.steps if s.msg == "feu_a_volonte.support.target")
    assert (target_step.params["wounds"], target_step.params["limit"]) == (3, 5)
    labels = set(_odds(res))
    assert "killed" not in labels and "wounded (tête)" in labels  # a head hit is a wound of the group
    done = resolve(plan, "shoot", {"firing": "t2", "target": "c2"}, Dice.given([6, 6, 2, 4, 5, 5, 5]))
    assert done.result is not None and done.plan_after is not None
    assert done.result["shots"][0]["kind"] == "wounded" and done.result["shots"][0]["group_wounds"] == 4
    assert done.plan_after.model("c2").extra["wounds"] == ("buste", "tête")
    assert len(done.plan_after.models_of("team")) == 3
    # the fifth wound: 5,5,1 keep 10 +0 against c1's 2,1,1 keep 3 +0 (cran 0, vétéran): at least double,
    # which would kill a lone figure; here the group leaves the game, its three figures counted as losses
    last = resolve(done.plan_after, "shoot", {"firing": "t2", "target": "c1"}, Dice.given([5, 5, 1, 1, 2, 1, 1]))
    assert last.result is not None and last.plan_after is not None
    assert last.result["shots"][0]["kind"] == "group out"
    assert not last.plan_after.models_of("team")
    assert last.plan_after.state["losses"] == {"A": 3}


def test_the_last_wound_of_a_group_takes_it_out_whatever_the_hit() -> None:
    # At 4 of 5 wounds every hit ends the group: its chance equals a lone figure's chance of being hit at all.
    plan = _game(wounds=(["jambe", "jambe"], ["bras", "bras"]))
    group = resolve(plan, "shoot", {"firing": "t2", "target": "c2"}, None)
    lone = parse_game({**_as_dict(plan), "units": [{"id": "team", "side": "A"}, {"id": "b1", "side": "B"},
                                                    {"id": "b2", "side": "B"}]})
    lone = lone.with_model(dataclasses.replace(lone.model("c2"), extra={"wounds": ["bras", "bras"]}))
    single = _odds(resolve(lone, "shoot", {"firing": "t2", "target": "c2"}, None))
    hit = sum((p for k, p in single.items() if k == "killed" or str(k).startswith("wounded")), Fraction(0))
    assert _odds(group)["group out"] == hit
    assert {k: v for k, v in _odds(group).items() if k != "group out"} == {
        k: v for k, v in single.items() if k != "killed" and not str(k).startswith("wounded")}


def test_a_grenade_on_the_crew_wounds_the_group_and_can_take_it_out() -> None:
    # t1 (aguerri, a hand grenade) 3 UD from c3 throws at c2; c1, c2, c3 are within 3 UD of the point,
    # t1 (122.6 mm) is not. The HMG team has 3 wounds of 5. 4,3 = 7: on the point, attack 7 + 1 = 8.
    plan = _game(wounds=(["jambe", "bras"], ["buste"]), target_xy=(150, 220))
    plan = plan.with_model(dataclasses.replace(plan.model("t1"), weapons=("Fusil", "Grenade à main")))
    odds = resolve(plan, "throw", {"thrower": "t1", "target": "c2"}, None)
    assert set(_odds(odds, "if on the point: c2")) == {"group wound", "missed", "tie"}
    # c2: d4 1, defence 1,1,2 keep 3 (vétéran, cran 0): 8 is at least double, one wound (4 of 5);
    # c1: d4 2, defence 2,2,1 keep 4: 8 again at least double, the 5th wound: the three leave; c3 rolls nothing
    done = resolve(plan, "throw", {"thrower": "t1", "target": "c2"}, Dice.given([4, 3, 1, 1, 1, 2, 2, 2, 2, 1]))
    assert done.result is not None and done.plan_after is not None
    assert [(f["figure"], f["kind"], f["group_wounds"]) for f in done.result["figures"]] == [
        ("c2", "wounded", 4), ("c1", "group out", 5)]
    assert not done.plan_after.models_of("team") and done.plan_after.state["losses"] == {"A": 3}


def test_a_crew_figure_losing_a_melee_on_the_head_is_one_wound_of_its_group() -> None:
    # t1 (aguerri, fists -1, cran -1) attacks c3 (vétéran, fists -1): 6,6 - 2 = 10 against 1,1,1 - 1 = 1;
    # the attacker's d4 shows 4 (head): a lone figure would die, c3 takes the group's first wound.
    plan = _game(target_xy=(175, 100))
    done = resolve(plan, "melee", {"attacker": "t1", "defender": "c3"}, Dice.given([6, 6, 4, 1, 1, 1, 1]))
    assert done.result is not None and done.plan_after is not None
    assert (done.result["wounded"], done.result["location"], done.result["killed"], done.result["kind"],
            done.result["group_wounds"]) == ("c3", "tête", False, "wounded", 1)
    assert done.plan_after.model("c3").extra["wounds"] == ("tête",)


# -- Les Combats en corps à corps: a charge from behind on a crew figure ------------------------------------------

def _behind(plan: TablePlan) -> TablePlan:
    """The crew face south (90°); t1 stands base to base north of c2, 180° off its facing: behind it."""
    plan = dataclasses.replace(plan, models=tuple(dataclasses.replace(m, facing_deg=90.0) if m.unit_id == "team"
                                                  else m for m in plan.models))
    return plan.with_model(dataclasses.replace(plan.model("t1"), position_mm=(125.0, 75.0)))


def test_a_crew_figure_charged_from_behind_that_fails_to_dodge_takes_one_wound_of_its_group() -> None:
    # c2 (vétéran, 3d6 keep two) can only dodge: 3, 2, 1 keep 5, under 7; t1's d4 shows 4 (head). A lone
    # figure dies of it; c2 takes the HMG team's first wound of 5 and stays on the table.
    plan = _behind(_game())
    odds = resolve(plan, "melee", {"attacker": "t1", "defender": "c2", "charge": True}, None)
    assert _odds(odds, "melee") == {"dodged": Fraction(29, 36), "group wound": Fraction(7, 36)}
    done = resolve(plan, "melee", {"attacker": "t1", "defender": "c2", "charge": True}, Dice.given([3, 2, 1, 4]))
    assert done.result is not None and done.plan_after is not None
    assert {k: done.result[k] for k in ("dodge", "wounded", "location", "killed", "kind", "group", "group_wounds")} \
        == {"dodge": 5, "wounded": "c2", "location": "tête", "killed": False, "kind": "wounded", "group": "team",
            "group_wounds": 1}
    assert done.plan_after.model("c2").extra["wounds"] == ("tête",) and len(done.plan_after.models_of("team")) == 3
    said = step_texts(done.steps[-1].to_json())
    assert said == {"fr": "Esquive 5 : c2 touché (tête), blessure 1 sur 5 du groupe team.",
                    "en": "Dodge 5: c2 hit (tête), wound 1 of 5 of group team."}
    # the same charge on a figure of no group: the usual rule, the head kills
    lone = plan.with_unit(dataclasses.replace(plan.unit("team"), extra={}))
    alone = resolve(lone, "melee", {"attacker": "t1", "defender": "c2", "charge": True}, Dice.given([3, 2, 1, 4]))
    assert alone.result is not None and alone.result["killed"] is True and "kind" not in alone.result


def test_a_charge_from_behind_on_the_groups_last_wound_takes_every_crew_figure_out() -> None:
    # An LMG team (out at 4) with 3 wounds: every failed dodge ends it, whatever the d4. 2, 2, 1 keep 4; d4 1.
    plan = _behind(_game("lmg", crew_x=(100, 125), wounds=(["jambe", "bras"], ["buste"])))
    odds = resolve(plan, "melee", {"attacker": "t1", "defender": "c2", "charge": True}, None)
    assert _odds(odds, "melee") == {"dodged": Fraction(29, 36), "group out": Fraction(7, 36)}
    done = resolve(plan, "melee", {"attacker": "t1", "defender": "c2", "charge": True}, Dice.given([2, 2, 1, 1]))
    assert done.result is not None and done.plan_after is not None
    assert (done.result["kind"], done.result["group_wounds"], done.result["location"]) == ("group out", 4, "jambe")
    assert not done.plan_after.models_of("team") and done.plan_after.state["losses"] == {"A": 2}
    assert done.steps[-1].msg == "feu_a_volonte.support.dodge_out"


def test_a_crew_figure_that_dodges_a_charge_from_behind_takes_nothing() -> None:
    plan = _behind(_game("lmg", crew_x=(100, 125), wounds=(["jambe", "bras"], ["buste"])))
    done = resolve(plan, "melee", {"attacker": "t1", "defender": "c2", "charge": True}, Dice.given([6, 1, 1]))
    assert done.result is not None and done.plan_after is not None
    assert (done.result["outcome"], done.result["dodge"]) == ("dodged", 7) and "kind" not in done.result
    assert [m.extra.get("wounds") for m in done.plan_after.models_of("team")] == [("jambe", "bras"), ("buste",)]


def _as_dict(plan: TablePlan) -> dict[str, Any]:
    from rules.plan import game_to_dict

    return game_to_dict(plan)


def test_the_sample_game_counts_the_support_wound_action_with_the_hits() -> None:
    # support_wound (a wound counted by hand) and hits on the crew add up on a group given in the game file.
    plan = _game("lmg", crew_x=(100, 125), wounds=(["jambe"],))
    counted = resolve(plan, "support_wound", {"unit": "team", "wounds": 2}, None).plan_after
    assert counted is not None
    group = group_of(counted, counted.model("c1"))
    assert group is not None and (group.wounds, group.limit) == (3, 4)



def test_the_support_wound_action_says_the_groups_whole_count_and_takes_it_out_at_its_limit() -> None:
    # An LMG team (2 figures, out at 4 wounds) whose c1 already carries a wound marker from a shot:
    # two wounds counted by hand make 3 of 4 (not 2), a third takes the group out.
    plan = _game("lmg", crew_x=(100, 125), wounds=(["jambe"],))
    two = resolve(plan, "support_wound", {"unit": "team", "wounds": 2}, None)
    assert two.result is not None and two.plan_after is not None
    assert (two.result["wounds"], two.result["removed"]) == (3, False)
    three = resolve(two.plan_after, "support_wound", {"unit": "team"}, None)
    assert three.result is not None and three.plan_after is not None
    assert (three.result["wounds"], three.result["removed"]) == (4, True)
    assert not three.plan_after.models_of("team")


# -- Qualité: the cran each quality gives, and the non-player characters' row ----------------------------------

def test_a_non_player_character_defends_with_2d6_and_a_cran_of_minus_one() -> None:
    # Jouer en solitaire: PnJ quality 2d6, cran -1. t1 is a PnJ 8 UD from c3 (a vétéran with a Fusil).
    npc = _game(target_profile="npc")
    res = resolve(npc, "shoot", {"firing": "c3", "target": "t1"}, None)
    assert res.needed == {"attack": "more than the defence (3d6 keep 2 +1 against 2d6 keep 2 -1)"}
    same = _game(target_profile="agu")  # aguerri: also 2d6, cran -1
    assert _odds(res) == _odds(resolve(same, "shoot", {"firing": "c3", "target": "t1"}, None))
    nerve = resolve(npc, "morale", {"unit": "t1"}, None)
    assert next(s.value for s in nerve.steps if s.rule == "nerve") == -1  # the cran is added to the nerve test
    spot = resolve(npc, "spot", {"spotter": "t1", "target": "c1"}, None)  # spotting: quality dice, no cran
    assert "cran" not in " ".join(s.text for s in spot.steps)


@pytest.mark.parametrize("quality, cran", [("recrue", -2), ("aguerri", -1), ("vétéran", 0), ("élite", 1),
                                           ("pnj", -1)])
def test_each_quality_adds_its_cran_to_the_defence_and_the_melee(quality: str, cran: int) -> None:
    plan = _game(target_profile="q")
    plan = dataclasses.replace(plan, profiles={**(plan.profiles or {}), "q": {"quality": quality}})
    shot = resolve(plan, "shoot", {"firing": "c3", "target": "t1"}, None)
    assert shot.needed["attack"].endswith(f"keep 2 {cran:+d})")
    close = plan.with_model(dataclasses.replace(plan.model("t1"), position_mm=(175.0, 100.0)))
    melee = resolve(close, "melee", {"attacker": "t1", "defender": "c3"}, None)
    attacker = next(s for s in melee.steps if s.rule == "attacker")
    assert f"{cran:+d} (cran" in attacker.text
