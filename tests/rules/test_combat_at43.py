"""AT-43 shooting: the seed's worked examples, fire zone, cover, templates, odds against brute force."""

from __future__ import annotations

import dataclasses
from fractions import Fraction

import pytest

from rules.resolve import resolve
from rules.rulesets.at43.actions import Group, hit_odds, portee, roll_hits, template_radius_cm
from rules.dice import Dice, Distribution, binomial, success_chance, with_rerolls
from rules.errors import IllegalActionError, InvalidActionError
from rules.frozen import freeze
from rules.plan import Model, Terrain
from tabletracker.i18n import step_texts
from tests.rules.at43_table import at43_plan, moved, only
from tests.rules.brute import brute_force

LASER = {"firing": "sierra-alpha", "target": "golems-256", "weapon": "laser rifle"}
NANO = {"firing": "golems-256", "target": "sierra-alpha", "weapon": "nanoblaster"}


def texts(res) -> str:  # type: ignore[no-untyped-def]
    return "\n".join(f"{s.rule}: {s.text} [{s.source}]" for s in res.steps)


def test_laser_rifles_example_portee_4_six_dice_then_damage_5_against_6() -> None:
    """AT-43, Tirs, Nouvelle salve: six steel troopers at portée 4, all hit, four damage successes."""
    plan = at43_plan(475.0)  # leaders 47.5 cm apart centre to centre: 45 cm edge to edge
    res = resolve(plan, "shoot", LASER, None)
    explained = texts(res)
    assert "45 cm (base edge to base edge), portée 4" in explained
    centre = dataclasses.replace(plan, options=freeze({"measure": "centre"}))  # RULES-NOTES choice 1
    step = next(s for s in resolve(centre, "shoot", LASER, None).steps if s.rule == "range")
    assert "47.5 cm (centre to centre), portée 4" in step.text and step.option == "measure=centre"
    assert "précision 5 - portée 4 = +1: 4+" in explained
    assert "6 dice" in explained
    assert "pénétration 5 - protection 6 (storm golem) = -1: 4+" in explained
    assert res.needed == {"to hit": "4+", "damage (storm golem)": "4+"}
    assert res.odds["hits"] == binomial(6, Fraction(1, 2))
    assert res.odds["models removed"] == binomial(6, Fraction(1, 4))  # hit 1/2 then damage 1/2
    res = resolve(plan, "shoot", LASER, Dice.given([4, 5, 6, 4, 5, 6] + [1, 2, 4, 5, 6, 6]))
    assert res.result["hits"] == 6
    assert res.result["groups"][0]["damage_successes"] == 4
    # the four golems nearest the White Stars leader sa-1 (straight above g256-1) are removed
    assert res.result["removed"] == ["g256-1", "g256-2", "g256-3", "g256-4"]
    left = {m.model_id for m in res.plan_after.models_of("golems-256")}
    assert left == {"g256-5", "g256-6", "g256-7", "g256-8", "g256-9"}
    assert res.plan_after.unit("sierra-alpha").extra["salvoes"] == ({"weapon": "laser rifle",
                                                                    "target": "golems-256"},)


def test_nanoblasters_example_minus_2_five_plus_one_reroll() -> None:
    """AT-43, Tirs, 3/ Test de tir: seven nanoblasters at portée 5, one impact, six failures re-rolled once."""
    plan = at43_plan(575.0)
    res = resolve(plan, "shoot", NANO, None)
    assert "précision 3 - portée 5 = -2: 5+" in texts(res)
    assert "7 dice, failures re-rolled 1 time(s)" in texts(res)
    assert res.odds["hits"] == binomial(7, with_rerolls(Fraction(1, 3), 1))
    dice = [5, 1, 2, 3, 4, 1, 2] + [1, 2, 3, 4, 4, 3] + [3]  # one hit, six re-rolled: none; damage 3
    res = resolve(plan, "shoot", NANO, Dice.given(dice))
    assert res.result["shooting_dice"] == [[5, 1, 2, 3, 4, 1, 2], [1, 2, 3, 4, 4, 3]]
    assert res.result["hits"] == 1
    # nanoblaster 5 against steel trooper 5 (sample value): 4+, the 3 fails
    assert res.result["removed"] == []


def test_sonic_guns_fire_in_their_own_salvo_and_weapons_fire_once() -> None:
    plan = at43_plan(575.0)
    first = resolve(plan, "shoot", NANO, Dice.given([1] * 7 + [1] * 7))
    assert first.result["hits"] == 0
    with pytest.raises(IllegalActionError, match="already fired its nanoblaster"):
        resolve(first.plan_after, "shoot", NANO, None)
    sonic = resolve(first.plan_after, "shoot", {**NANO, "weapon": "sonic gun"}, None)
    assert "cadence 2 x 2 firer(s) = 4 dice" in texts(sonic)
    again = resolve(first.plan_after, "activate", {"unit": "golems-256"}, None)
    assert "salvoes" not in again.plan_after.unit("golems-256").extra
    resolve(again.plan_after, "shoot", NANO, None)  # allowed again


def test_fire_zone_takes_impacts_first() -> None:
    """AT-43, Tirs, Tir direct: unit .256 stands between the firers and .264 and absorbs the impacts."""
    plan = moved(at43_plan(475.0), {"g264-1": (500.0, 1000.0), "g264-2": (470.0, 1000.0),
                                    "g264-3": (530.0, 1000.0), "g264-4": (560.0, 1000.0)})
    req = {**LASER, "target": "golems-264"}
    res = resolve(plan, "shoot", req, None)
    assert "caught in the fire zone" in texts(res)
    # three hits (portée 9: 5 - 9 = -4 -> 6), all on .256 models nearest sa-1, none on .264
    res = resolve(plan, "shoot", req, Dice.given([6, 6, 6, 1, 1, 1] + [6, 6, 1]))
    units = [g["unit"] for g in res.result["groups"]]
    assert units == ["golems-256", "golems-256", "golems-256"]
    assert res.result["removed"] == ["g256-1", "g256-2"]
    assert len(res.plan_after.models_of("golems-264")) == 4


def test_prone_and_smaller_models_are_skipped_in_the_fire_zone() -> None:
    plan = moved(at43_plan(475.0), {"g264-1": (500.0, 1000.0)})
    plan = only(plan, {m.model_id for m in plan.models} - {"g264-2", "g264-3", "g264-4"})
    g1 = plan.model("g256-1")
    plan = plan.with_model(dataclasses.replace(g1, status=("prone",)))
    profiles = dict(plan.profiles)
    profiles["tiny"] = {"category": "infantry", "size": 1, "protection": 3}
    plan = dataclasses.replace(plan, profiles=freeze(profiles))
    plan = plan.with_model(dataclasses.replace(plan.model("g256-2"), profile="tiny"))
    res = resolve(plan, "shoot", {**LASER, "target": "golems-264"}, None)
    assert "g256-1 (prone or kneeling: ignored)" in texts(res)
    assert "g256-2 (size 1 is smaller than the firers' or the targets': ignored)" in texts(res)
    assert "one impact each in this order: g256-3, g256-4" in texts(res)


def test_cover_saves_five_plus_three_plus_attitude_and_ignored_within_10cm() -> None:
    wall = Terrain("wall-1", "low-wall", "line", ((300.0, 540.0), (700.0, 540.0)), height_mm=25.0)
    plan = at43_plan(475.0)
    plan = dataclasses.replace(plan, terrain=(wall,))
    res = resolve(plan, "shoot", LASER, None)
    assert "9 of 9 in cover" in texts(res)
    assert "cancels each impact on 5+" in texts(res)
    p_hit = Fraction(1, 2)
    per_die = p_hit * (1 - success_chance(5)) * Fraction(1, 2)
    assert res.odds["models removed"] == binomial(6, per_die)
    golems = plan.unit("golems-256")
    braced = plan.with_unit(dataclasses.replace(golems, extra=freeze({"attitude": "a-couvert"})))
    assert "on 3+" in texts(resolve(braced, "shoot", LASER, None))
    res = resolve(plan, "shoot", LASER, Dice.given([6] * 6 + [5, 6, 1, 2, 3, 4] + [6, 6, 6, 6]))
    assert res.result["groups"][0]["saved"] == 2 and len(res.result["removed"]) == 4
    # the firing leader 10 cm or less from the wall: cover ignored
    near = moved(plan, {"sa-1": (500.0, 450.0)})  # 7.75 cm from the wall
    res = resolve(near, "shoot", LASER, None)
    assert "cover ignored" in texts(res) and "no saves" in texts(res)
    # the players may judge cover themselves
    assert "no saves" not in texts(resolve(near, "shoot", {**LASER, "cover": "yes"}, None))


def test_hidden_firers_cannot_shoot() -> None:
    """AT-43, Tirs, Qui peut tirer ?: a container hides every golem from sa-4 and sa-2."""
    block = Terrain("c1", "container", "area", ((300.0, 130.0), (450.0, 130.0), (450.0, 200.0),
                                                 (300.0, 200.0)), height_mm=80.0)
    plan = dataclasses.replace(at43_plan(475.0), terrain=(block,))
    res = resolve(plan, "shoot", {**LASER, "no_sight": "sa-6"}, None)
    assert "sa-2 (hidden by c1); sa-4 (hidden by c1); sa-6 (the players say so) cannot fire" in texts(res)
    assert "3 model(s) fire: sa-1, sa-3, sa-5" in texts(res)
    assert res.odds["hits"] == binomial(3, Fraction(1, 2))


def test_out_of_range_is_an_automatic_failure() -> None:
    plan = at43_plan(1100.0)  # portée 10: 3 - 10 = -7 -> automatic failure
    res = resolve(plan, "shoot", NANO, Dice.given([]))
    assert res.needed["to hit"] == "automatic failure"
    assert res.to_json()["needed_words"]["to hit"] == {"msg": "at43.need.fail", "params": {}}  # for the page
    assert step_texts(res.to_json()["needed_words"]["to hit"]) == {"fr": "échec automatique", "en": "automatic failure"}
    assert res.odds["hits"] == Distribution.certain(0)
    assert res.result["removed"] == [] and res.dice == ()


def test_bad_requests_are_clear() -> None:
    plan = at43_plan()
    with pytest.raises(InvalidActionError, match="carries no 'plasma'; its weapons are: laser rifle"):
        resolve(plan, "shoot", {**LASER, "weapon": "plasma"}, None)
    with pytest.raises(InvalidActionError, match=r"choose the weapon of this salvo \(weapon\)"):
        resolve(plan, "shoot", {"firing": "golems-256", "target": "sierra-alpha"}, None)
    with pytest.raises(IllegalActionError, match="on the firer's side"):
        resolve(plan, "shoot", {**LASER, "target": "sierra-bravo"}, None)
    with pytest.raises(InvalidActionError, match="at-43 has no action 'dance'; actions are: activate, artillery, end-turn, lead, shoot"):
        resolve(plan, "dance", {}, None)
    with pytest.raises(InvalidActionError, match="were not needed"):
        resolve(plan, "shoot", LASER, Dice.given([1] * 7))


# -- templates --------------------------------------------------------------------------------------------


def test_template_radius_examples() -> None:
    """AT-43, Tirs, Tir indirect, examples 1 and 3: 3 x 2 = 6, none 3, four successes 12 -> 10 cm."""
    assert template_radius_cm(3, 2) == 6
    assert template_radius_cm(3, 0) == 3
    assert template_radius_cm(3, 4) == 10


def test_grenade_launchers_both_hit_radius_6cm_then_prone() -> None:
    plan = at43_plan(475.0)
    req = {"firing": "sierra-bravo", "target": "g256-1", "weapon": "grenade launcher"}
    res = resolve(plan, "shoot", req, None)
    assert "indirect" in texts(res)
    res = resolve(plan, "shoot", req, Dice.given([6, 6] + [1] * 5))
    tpl = res.result["template"]
    assert tpl["radius_cm"] == 6 and tpl["deviation_direction"] is None and tpl["impacts_each"] == 1
    assert sorted(tpl["under"]) == ["g256-1", "g256-2", "g256-3", "g256-4", "g256-5"]
    assert sorted(res.result["prone"]) == sorted(tpl["under"])
    assert res.plan_after.model("g256-4").status == ("prone",)


def test_grenade_launchers_miss_and_deviate_two_cm_behind() -> None:
    """Example 2: précision 4 at portée 9 (6 needed); two failures, the 4 sends the template 2 cm behind."""
    plan = at43_plan(475.0)
    plan = moved(plan, {"sb-1": (500.0, 100.0 - 450.0 + 100.0)})  # leader sb-1 ~ portée 9 from g256-1? below
    plan = moved(plan, {"sb-1": (500.0, 10.0)})
    plan = moved(plan, {"g256-1": (500.0, 960.0)})
    req = {"firing": "sierra-bravo", "target": "g256-1", "weapon": "grenade launcher"}
    res = resolve(plan, "shoot", req, None)
    assert "= -5: 6" in texts(res)
    res = resolve(plan, "shoot", req, Dice.given([3, 2, 4, 1]))
    tpl = res.result["template"]
    assert tpl["deviation_direction"] == 4 and tpl["deviation_cm"] == 2 and tpl["radius_cm"] == 3
    assert tpl["centre_mm"] == [500.0, 980.0]  # 2 cm further from the firer
    assert tpl["under"] == ["g256-1"]


def _enough(plan, action, req, head):  # type: ignore[no-untyped-def]
    """Resolve with the dice ``head`` then as many 1s as the resolution asks for."""
    for extra in range(0, 60):
        try:
            return resolve(plan, action, req, Dice.given(head + [1] * extra))
        except InvalidActionError as exc:
            if "not enough dice" not in str(exc):
                raise
    raise AssertionError("more than 60 dice")


def test_four_successes_cap_at_10cm_with_two_impacts() -> None:
    """Example 3: three Lancelot fire six light grenade launchers, four successes: 12 cm -> 10 cm, two impacts."""
    plan = at43_plan(475.0)
    plan = only(plan, {m.model_id for m in plan.models} - {"sb-4"})
    plan = dataclasses.replace(plan, models=tuple(
        dataclasses.replace(m, weapons=("light grenade launcher",)) if m.unit_id == "sierra-bravo" else m
        for m in plan.models))
    weapons = dict(plan.weapons)
    weapons["light grenade launcher"] = {**weapons["grenade launcher"], "rate": 2}
    plan = dataclasses.replace(plan, weapons=freeze(weapons))
    plan = moved(plan, {"sb-1": (500.0, 420.0), "sb-2": (470.0, 420.0), "sb-3": (530.0, 420.0)})
    req = {"firing": "sierra-bravo", "target": "g256-1", "weapon": "light grenade launcher"}
    res = resolve(plan, "shoot", req, None)
    assert "précision 4 - portée 1 = +3: 3+" in texts(res)
    assert "cadence 2 x 3 firer(s) = 6 dice" in texts(res)
    res = _enough(plan, "shoot", req, [6, 6, 6, 6, 1, 1] + [4])
    tpl = res.result["template"]
    assert tpl["radius_cm"] == 10 and tpl["impacts_each"] == 2
    assert tpl["deviation_direction"] == 4 and tpl["deviation_cm"] == 2
    assert all(g["impacts"] == 2 for g in res.result["groups"])
    # template moved to (500, 595): golems whose base reaches within 10 cm of it, not g256-8/9 (12.2 cm away)
    assert sorted(tpl["under"]) == [f"g256-{i}" for i in range(1, 8)]


# -- exact odds against brute force ------------------------------------------------------------------------


def test_hit_odds_with_rerolls_match_brute_force() -> None:
    for count, needed, rerolls in [(2, 5, 1), (3, 4, 0), (2, 6, 2), (1, 2, 1)]:
        got = brute_force(lambda d: roll_hits(d, count, needed, rerolls), lambda r: r["successes"])
        assert got == hit_odds(count, needed, rerolls)


def test_group_odds_match_brute_force() -> None:
    m = [Model(f"m{i}", "u", (0.0, float(i)), 25.0) for i in range(3)]
    cases = [Group("u", tuple(m), 3, 5, 4, 1, (1, 1, 1)),
             Group("u", tuple(m[:2]), 3, None, 3, 1, (2, 1)),     # a two-point model first
             Group("u", tuple(m[:1]), 2, 3, 6, 2, (3,)),
             Group("u", tuple(m[:2]), 2, None, "auto", 1, (1, 1))]
    for g in cases:
        assert brute_force(g.roll, lambda r: len(r.removed)) == g.odds()


def test_whole_direct_salvo_matches_brute_force() -> None:
    """One firer, a unit behind a wall: hit, cover save, damage, every dice sequence."""
    wall = Terrain("wall-1", "low-wall", "line", ((300.0, 540.0), (700.0, 540.0)), height_mm=25.0)
    plan = only(at43_plan(475.0), {"sa-1", "g256-1", "g256-2", "g264-1"})
    plan = dataclasses.replace(plan, terrain=(wall,))
    res = resolve(plan, "shoot", LASER, None)
    assert "cancels each impact on 5+" in texts(res)
    got = brute_force(lambda d: resolve(plan, "shoot", LASER, d), lambda r: len(r.result["removed"]))
    assert got == res.odds["models removed"]


def test_salvo_through_a_fire_zone_matches_brute_force() -> None:
    """Cadence 2 at .264 with g256-1 in the fire zone: the first impact is its, the second the target's."""
    plan = only(at43_plan(475.0), {"sa-1", "g256-1", "g264-1"})
    plan = moved(plan, {"g264-1": (500.0, 900.0), "g256-1": (510.0, 600.0)})
    weapons = dict(plan.weapons)
    weapons["laser rifle"] = {**weapons["laser rifle"], "rate": 2, "precision": 10}
    plan = dataclasses.replace(plan, weapons=freeze(weapons))
    req = {**LASER, "target": "golems-264"}
    res = resolve(plan, "shoot", req, None)
    assert "one impact each in this order: g256-1" in texts(res)
    got = brute_force(lambda d: resolve(plan, "shoot", req, d),
                      lambda r: tuple(sorted(r.result["removed"])))
    lost_264 = got.map(lambda removed: sum(1 for m in removed if m.startswith("g264")))
    assert got.map(len) == res.odds["models removed"]
    # g264-1 can only be hit when both dice hit (precision 10 - portée 7 = +3: 3+)
    assert lost_264.probs[1] == Fraction(2, 3) ** 2 * Fraction(1, 2)


def test_whole_indirect_salvo_matches_brute_force() -> None:
    plan = only(at43_plan(475.0), {"sb-1", "sb-2", "g256-1", "g256-2", "sa-1"})
    plan = moved(plan, {"g256-2": (500.0 + 70.0, 575.0 + 10.0)})
    req = {"firing": "sierra-bravo", "target": "g256-1", "weapon": "grenade launcher"}
    res = resolve(plan, "shoot", req, None)
    got = brute_force(lambda d: resolve(plan, "shoot", req, d), lambda r: len(r.result["removed"]))
    assert got == res.odds["models removed"]
    hits = brute_force(lambda d: resolve(plan, "shoot", req, d), lambda r: r.result["hits"])
    assert hits == res.odds["hits"]


def test_portee_bands() -> None:
    assert [portee(x) for x in (0.0, 99.99, 100.0, 199.9, 200.0, 455.0)] == [0, 0, 1, 1, 2, 4]


def test_a_unit_without_its_leader_must_name_one() -> None:
    plan = at43_plan(475.0)
    res = resolve(plan, "shoot", LASER, Dice.given([6] * 6 + [6, 1, 1, 1, 1, 1]))
    assert res.result["removed"] == ["g256-1"] and res.plan_after.unit("golems-256").leader is None
    with pytest.raises(IllegalActionError, match="name one with 'lead golems-256 MODEL'"):
        resolve(res.plan_after, "shoot", NANO, None)
    with pytest.raises(InvalidActionError, match="'sa-2' is not a model of unit 'golems-256'"):
        resolve(res.plan_after, "lead", {"unit": "golems-256", "model": "sa-2"}, None)
    led = resolve(res.plan_after, "lead", {"unit": "golems-256", "model": "g256-3"}, None).plan_after
    assert "leader g256-3 to leader sa-1" in texts(resolve(led, "shoot", NANO, None))


def test_impacts_on_vehicles_are_spread_from_the_nearest() -> None:
    """AT-43, Dégâts et retrait des pertes: three Fire Toads take five impacts as 2, 2 and 1, nearest first."""
    plan = at43_plan(475.0)
    profiles = dict(plan.profiles)
    profiles["fire toad"] = {"category": "vehicle", "size": 3, "protection": 4, "structure": 2}
    golems = ("g256-1", "g256-2", "g256-3")
    plan = dataclasses.replace(plan, profiles=freeze(profiles), models=tuple(
        dataclasses.replace(m, profile="fire toad") if m.model_id in golems else m for m in plan.models))
    plan = only(plan, {m.model_id for m in plan.models if not m.model_id.startswith("g256")} | set(golems))
    weapons = dict(plan.weapons)
    weapons["laser rifle"] = {**weapons["laser rifle"], "precision": 12}  # every shot hits: 5 impacts
    plan = dataclasses.replace(plan, weapons=freeze(weapons))
    plan = only(plan, {m.model_id for m in plan.models} - {"sa-6"})
    res = resolve(plan, "shoot", LASER, Dice.given([6, 6, 1, 1, 6]))  # damage 5 - 4 = +1: 4+
    shares = [(g["impacts"], g["damage_dice"]) for g in res.result["groups"]]
    assert shares == [(2, [6, 6]), (2, [1, 1]), (1, [6])]
    # g256-1 (nearest) loses both structure points; g256-3 keeps one of two
    assert res.result["removed"] == ["g256-1"]
    assert res.plan_after.model("g256-3").extra["damage_taken"] == 1


def test_alert_fire_only_at_the_activated_unit_and_never_with_the_3_plus_save() -> None:
    """AT-43, Tirs en état d'alerte: .256 on alert fires at Sierra Alpha while it is activated."""
    wall = Terrain("wall-1", "low-wall", "line", ((300.0, 180.0), (700.0, 180.0)), height_mm=25.0)
    plan = dataclasses.replace(at43_plan(575.0), terrain=(wall,))
    golems = plan.unit("golems-256")
    plan = plan.with_unit(dataclasses.replace(golems, extra=freeze({"attitude": "alerte"})))
    sa = plan.unit("sierra-alpha")
    plan = plan.with_unit(dataclasses.replace(sa, extra=freeze({"attitude": "a-couvert"})))
    req = {**NANO, "alert": "yes"}
    with pytest.raises(IllegalActionError, match="only target the unit being activated"):
        resolve(plan, "shoot", req, None)
    active = resolve(plan, "activate", {"unit": "sierra-alpha"}, None).plan_after
    res = resolve(active, "shoot", req, None)
    assert "3+ save never applies against alert fire" in texts(res)
    assert "cancels each impact on 5+" in texts(res)
    res = resolve(active, "shoot", req, Dice.given([1] * 7 + [1] * 7))
    assert "attitude" not in res.plan_after.unit("golems-256").extra
    with pytest.raises(IllegalActionError, match="is not in the État d'alerte attitude"):
        resolve(res.plan_after, "shoot", req, None)
    with pytest.raises(IllegalActionError, match="did not move"):
        resolve(active, "shoot", {**req, "target_moved": "no"}, None)


def test_artillery_strike_fixed_roll_once_per_turn() -> None:
    """AT-43, Frappes d'artillerie: 3 PC, once per turn, the template's rules with a fixed roll."""
    plan = at43_plan(475.0)
    req = {"observer": "sa-1", "target": "g256-1", "roll": 4, "dice": 2, "area_cm": 5, "penetration": 8}
    res = resolve(plan, "artillery", req, None)
    assert res.needed["to hit"] == "4+" and "fixed roll 4+ whatever the range" in texts(res)
    assert res.odds["hits"] == binomial(2, Fraction(1, 2))
    res = _enough(plan, "artillery", req, [5, 6])
    assert res.result["template"]["radius_cm"] == 10 and res.result["template"]["impacts_each"] == 1
    assert res.plan_after.state["command_points_spent"] == {"UNA": 3}
    with pytest.raises(IllegalActionError, match="already been called this turn"):
        resolve(res.plan_after, "artillery", req, None)
    next_turn = resolve(res.plan_after, "end-turn", {}, None).plan_after
    resolve(next_turn, "artillery", req, None)
    with pytest.raises(IllegalActionError, match="neither an officer nor a leader"):
        resolve(plan, "artillery", {**req, "observer": "sa-2"}, None)


def test_one_vehicle_of_a_vehicle_unit_may_be_targeted_alone() -> None:
    """AT-43, 1/ Choix de la cible: armoured units are big targets; one vehicle may be the target alone."""
    plan = at43_plan(475.0)
    profiles = dict(plan.profiles)
    profiles["fire toad"] = {"category": "vehicle", "size": 3, "protection": 4, "structure": 2}
    plan = dataclasses.replace(plan, profiles=freeze(profiles), models=tuple(
        dataclasses.replace(m, profile="fire toad") if m.unit_id == "golems-256" else m for m in plan.models))
    req = {**LASER, "vehicle": "g256-9"}
    res = resolve(plan, "shoot", req, None)
    assert "one vehicle targeted alone: g256-9" in texts(res)
    res = resolve(plan, "shoot", req, Dice.given([6] * 6 + [6] * 6))
    assert [g["unit"] for g in res.result["groups"]] == ["golems-256"]
    assert res.result["groups"][0]["impacts"] == 6 and res.result["removed"] == ["g256-9"]
    with pytest.raises(InvalidActionError, match="is not a vehicle of unit 'golems-256'"):
        resolve(at43_plan(475.0), "shoot", req, None)
