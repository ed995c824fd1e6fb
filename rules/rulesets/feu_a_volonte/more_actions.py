"""Feu à Volonté actions added for issue 13: firing at a building, a support group's wounds.

Sources (``seeds/feu-a-volonte-v1.6.txt``):

* Faire feu sur une construction: the ranged rule applies as usual; the building defends
  like a non-player character, with a quality of 2d6, plus -1 for a lean-to, shed or hut,
  +0 for a house, +1 for a bunker. What a hit does to the building is the scenario's.
* Groupe d'appui: a support group is one unit of two or three figures in base contact; a
  group of two leaves the game after 4 wounds, a group of three after 5 (Blessure et mort
  d'une figurine, 1914 à nos jours).
"""

from __future__ import annotations

from collections.abc import Hashable
from fractions import Fraction
from typing import Any, Mapping

import shapely
from shapely.ops import nearest_points

from rules.dice import Dice, Distribution, multisets
from rules.errors import IllegalActionError, InvalidActionError
from rules.explain import Step, msg
from rules.plan import Model, TablePlan
from rules.resolution import Action, Resolution
from rules.rulesets.feu_a_volonte.actions import (
    RULESET,
    SRC_SHOOT,
    _attack_classes,
    _attack_modifiers,
    _quality,
    _remove,
    _spend,
    _traits,
    _weapon_for,
    _wounds,
    figure,
)
from rules.rulesets.feu_a_volonte.results import BuildingResult, SupportWoundResult
from rules.rulesets.feu_a_volonte.solo import SOLO_ACTIONS, SOLO_PARAMS
from rules.rulesets.feu_a_volonte.state import state_json
from rules.rulesets.feu_a_volonte.words import id_list, modifier_step, quality_word, signed
from rules.rulesets.kit import req_choice, req_int, req_str, with_extra
from rules.rulesets.params import Param
from rules.terrain import terrain_geometry
from tabletracker.words import Said

SRC_BUILDING = "Feu à Volonté, Faire feu sur une construction"
SRC_SUPPORT = "Feu à Volonté, Groupe d'appui; Blessure et mort d'une figurine (1914 à nos jours)"
BUILDING_MOD = {"shed": -1, "house": 0, "bunker": 1}  # appentis/hangar/cabane, maison, bunker
BUILDING_DICE = 2
SUPPORT_WOUNDS = {2: 4, 3: 5}  # figures in the group -> wounds that take it out
OUTCOME_MSG = {"hit": "fav.building.hit", "no effect": "fav.building.no_effect", "out-of-ammo": "fav.building.no_ammo"}


def _building_outcome(attack: tuple[int, ...], defence: int, attack_mod: int) -> str:
    if sorted(attack).count(1) >= 2:
        return "out-of-ammo"
    a = sum(sorted(attack, reverse=True)[:2]) + attack_mod
    return "hit" if a > defence else "no effect"


def shoot_building(plan: TablePlan, request: Mapping[str, Any], dice: Dice | None) -> Resolution:
    """Fire at a building: the shooter's roll against 2d6 + the building's type (Faire feu sur une construction).

    Request: ``firing`` (the figure), ``building`` (the terrain piece's id), ``type``
    (``shed``, ``house`` or ``bunker``; default the piece's ``extra.construction``, else
    house), optional ``weapon``, ``moved``. The attack is the shooter's quality dice, keep
    two, with the usual modifiers, the range measured to the nearest point of the building.
    """
    shooter = figure(plan, req_str(request, "firing"))
    bid = req_str(request, "building")
    piece = next((t for t in plan.terrain if t.terrain_id == bid), None)
    if piece is None:
        raise InvalidActionError(f"no terrain piece {bid!r} in this game; buildings: "
                                 f"{', '.join(t.terrain_id for t in plan.terrain if t.kind == 'building') or 'none'}",
                                 msg_id="fav.building.unknown",
                                 params={"building": bid, "buildings": id_list(t.terrain_id for t in plan.terrain
                                                                               if t.kind == "building")})
    default_type = str((piece.extra or {}).get("construction", "house"))
    kind = req_choice(request, "type", tuple(BUILDING_MOD), default_type if default_type in BUILDING_MOD else "house")
    geom = terrain_geometry(piece)
    spot = nearest_points(geom, shapely.Point(shooter.position_mm))[0]
    aim_at = Model(piece.terrain_id, "__building__", (float(spot.x), float(spot.y)), 0.001)
    weapon = _weapon_for(plan, shooter, request.get("weapon"))
    mods, main = _attack_modifiers(plan, [shooter], aim_at, weapon, request, None)
    q = _quality(plan, main)
    scope = 1 if "lunette-de-visee" in _traits(main) else 0
    attack_dice = q.dice + scope
    attack_mod = sum(v for v, _, _ in mods)
    d_mod = BUILDING_MOD[kind]
    steps = [Step("attack", f"{main.model_id} ({q.name}) rolls {attack_dice}d6 and keeps two", SRC_SHOOT,
                  value=attack_dice, msg="fav.attack.roll",
                  params={"who": main.model_id, "quality": quality_word(q.name), "dice": attack_dice}),
             *(modifier_step(v, why, src) for v, why, src in mods),
             Step("building", f"{piece.terrain_id} ({kind}) defends with 2d6 {d_mod:+d}; a higher attack hits "
                  "it, what that does is the scenario's", SRC_BUILDING, value=d_mod, msg="fav.building.defends",
                  params={"building": piece.terrain_id, "type": msg(f"fav.building.{kind}"), "mod": signed(d_mod)})]
    defence = Distribution.from_pairs((sum(c) + d_mod, p) for c, p in multisets(BUILDING_DICE, 6))
    acc: dict[Hashable, Fraction] = {}
    for rep, pa in _attack_classes(attack_dice).items():
        for d_total, pd in defence.probs.items():
            label = _building_outcome(rep, int(d_total), attack_mod)  # type: ignore[call-overload]
            acc[label] = acc.get(label, Fraction(0)) + pa * pd
    odds = {"shot": Distribution(acc)}
    needed = {"attack": Said(f"more than the building ({attack_dice}d6 keep 2 {attack_mod:+d} against 2d6 {d_mod:+d})",
                             "feu_a_volonte.needed.building", dice=attack_dice, mod=f"{attack_mod:+d}",
                             defence_mod=f"{d_mod:+d}")}
    if dice is None:
        return Resolution(RULESET, "shoot_building", tuple(steps), needed, odds)
    state = _spend(plan, main, "combat / grenade", steps)
    after = plan.with_state(state) if state != state_json(plan) else plan
    rolled, kept = dice.roll_keep(attack_dice)
    d = dice.roll_many(BUILDING_DICE, 6)
    outcome = _building_outcome(rolled, sum(d) + d_mod, attack_mod)
    steps.append(Step("dice", f"attack {list(rolled)} keeps {list(kept)} {attack_mod:+d} = {sum(kept) + attack_mod}; "
                      f"building {list(d)} {d_mod:+d} = {sum(d) + d_mod}: {outcome}", SRC_BUILDING,
                      msg="fav.building.dice",
                      params={"dice": list(rolled), "kept": list(kept), "mod": signed(attack_mod),
                              "attack": sum(kept) + attack_mod, "defence_dice": list(d), "building_mod": signed(d_mod),
                              "defence": sum(d) + d_mod, "outcome": msg(OUTCOME_MSG[outcome])}))
    result = BuildingResult(piece.terrain_id, kind, sum(kept) + attack_mod, sum(d) + d_mod, outcome)
    return Resolution(RULESET, "shoot_building", tuple(steps), needed, odds, tuple(dice.rolled), result.to_json(),
                      after)


def support_wound(plan: TablePlan, request: Mapping[str, Any], dice: Dice | None) -> Resolution:
    """Count a wound on a support group: out of the game after 4 wounds (2 figures) or 5 (3 figures) (Groupe d'appui).

    Request: ``unit`` (the support group), ``wounds`` (how many more, default 1).
    """
    uid = req_str(request, "unit")
    unit = plan.unit(uid)
    figs = plan.models_of(uid)
    size = int((unit.extra or {}).get("support_size", len(figs)))
    if size not in SUPPORT_WOUNDS:
        raise IllegalActionError(f"{uid} has {size} figure(s): a support group has two or three ({SRC_SUPPORT})",
                                 msg_id="fav.support.size", params={"unit": uid, "n": size})
    more = req_int(request, "wounds", 1, minimum=1)
    tally = int((unit.extra or {}).get("support_wounds", 0)) + more
    # the group's wounds are this tally and the markers its crew took from shots, blasts and melee (support.py)
    total = tally + sum(len(_wounds(m)) for m in figs)
    limit = SUPPORT_WOUNDS[size]
    out = total >= limit
    step = Step("support group", f"{uid}: a group of {size} figures leaves the game after {limit} wounds; "
                f"{total} now" + (": out of the game" if out else f", {limit - total} more to go"), SRC_SUPPORT,
                value=total, msg="fav.support.out" if out else "fav.support.wounds",
                params={"unit": uid, "size": size, "limit": limit, "total": total, "left": limit - total})
    after = plan.with_unit(with_extra(unit, support_wounds=tally, support_size=size))
    if out:
        for m in after.models_of(uid):
            after = _remove(after, m)  # counted among the side's losses
    result = SupportWoundResult(uid, total, limit, out)
    return Resolution(RULESET, "support_wound", (step,), {}, {"removed": Distribution.certain(out)}, (),
                      result.to_json(), after)


MORE_ACTIONS: dict[str, Action] = {"shoot_building": shoot_building, "support_wound": support_wound, **SOLO_ACTIONS}
MORE_PARAMS: Mapping[str, tuple[Param, ...]] = {
    "shoot_building": (Param("firing", "figure"), Param("building", "table", help="the building's terrain id"),
                       Param("type", "choice", required=False, choices=tuple(BUILDING_MOD),
                             help="shed (-1), house (+0) or bunker (+1)"),
                       Param("weapon", "weapon", required=False, of="firing"),
                       Param("moved", "bool", required=False, help="the shooter moved first")),
    "support_wound": (Param("unit", "unit", help="the support group"),
                      Param("wounds", "integer", required=False, minimum=1)),
    **SOLO_PARAMS,
}
