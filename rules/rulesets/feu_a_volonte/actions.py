"""Feu à Volonté v1.6 (August 2016): recruitment, activation, shooting, melee, spotting, wounds.

Every roll keeps two of the quality's Xd6 (Les jets de dé). Shooting is an opposed
roll (Les Combats à distance): attack = Xd6 keep two + weapon bonus + situation
(range band, rear, moved, cover or prone, extra shooters) against defence = Xd6
keep two + cran, the target rolling a d4 for the hit location. A higher attack
wounds (d4: 4 head = death, 3 chest -1 defence, 2 arm -1 attack, 1 leg -1 UD of
movement; the third wound marker removes the figure); at least double the defence
or a natural double six kills outright (docs/rule-choices.md#feu-a-volonte-4); a natural double 1
among the attack dice means out of ammunition and no shot; a higher defence lets
the target move away by the difference in UD; a tie makes the target test its
nerve (quality + cran, 7+) or fall back to the nearest cover.

Figures are models; a figure may be its own unit (as in the sample game) or part
of a platoon unit: every action takes a model id or a one-model unit id. Game
state this module reads and writes: model ``role`` (``leader``, ``second``,
``trooper``), ``status`` (``hidden``, ``prone``, ``moved``, ``out-of-ammo``,
``activated``, ``fell-back``), ``extra["wounds"]`` (hit locations, in order),
``extra["rules"]`` (traits), ``extra["spotted"]``; the plan's ``state`` through the
typed record :class:`rules.rulesets.feu_a_volonte.state.FavState` only (activation,
losses per side, turn, weather, reserve dice, Chance de cocu, initiative).

Examples
--------
>>> AP_BY_D6[1], AP_BY_D6[4], AP_BY_D6[6]
(2, 3, 4)
>>> FIGURES_BY_D6[2], FIGURES_BY_D6[3], FIGURES_BY_D6[5]
(1, 2, 3)
>>> range_band(4.0), range_band(9.5), range_band(12.5)
((1, '< 4 UD'), (-1, '8-12 UD'), (-2, '> 12 UD'))
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from fractions import Fraction
from types import MappingProxyType
from typing import Any, Hashable, Mapping, Sequence, cast

from calibration.units import DEFAULT_UD_MM
from rules.dice import Dice, Distribution, die, expand_ranges, multisets, sum_of, with_reroll
from rules.errors import IllegalActionError, InvalidActionError
from rules.explain import Step, msg
from rules.frozen import freeze
from rules.measure import model_distance_mm
from rules.plan import Model, TablePlan
from rules.resolution import Action, Resolution
from rules.rulesets.feu_a_volonte.recruitment import (  # the book's tables and recruitment; validate_roster re-exported
    ACTION_COSTS,
    AP_BY_D6,
    ARSENAL,
    AURA_UD,
    FIGURES_BY_D6,
    LOCATION_EFFECT,
    LOCATIONS,
    QUALITIES,
    RADIO_UD,
    RULESET,
    SPOTTED_WITHIN_UD,
    SRC_ACTIONS,
    SRC_ACTIVATION,
    SRC_ARSENAL,
    SRC_AT,
    SRC_DICE,
    SRC_END,
    SRC_GROUP,
    SRC_LEADER,
    SRC_MELEE,
    SRC_RADIO,
    SRC_RECRUIT,
    SRC_SHOOT,
    SRC_SITUATION,
    SRC_SPOT,
    SRC_TEAMS,
    SRC_TRAITS,
    SRC_WOUNDS,
    SUCCESS,
    TRAITS,
    WOUNDS_TO_DIE,
    Quality,
    Recruit,
    Weapon,
    _budget,
    _norm,
    arsenal_weapon,
    check_platoon,
    quality_of,
    recruit_of,
    role_of,
    roster_cost,
    trait_id,
    validate_roster,
)
from rules.rulesets.feu_a_volonte.results import (
    ActivateResult,
    Aiming,
    DisengageResult,
    DodgeResult,
    EndTurnResult,
    InitiativeResult,
    MeleeResult,
    NerveResult,
    PayResult,
    RecruitResult,
    ReloadResult,
    Roll,
    ShootResult,
    SpotResult,
    ThrowResult,
)
from rules.rulesets.feu_a_volonte.state import Activation, FavState, Weather, state_json
from rules.rulesets.feu_a_volonte.words import (
    WEATHER_MSG,
    Phrase,
    action_word,
    cran_phrase,
    effect,
    id_list,
    location,
    mod_list,
    modifier_step,
    quality_word,
    said,
    signed,
    weather_word,
    why,
)
from rules.rulesets.kit import (
    fmt_len,
    option,
    remove_model,
    req_bool,
    req_int,
    req_list,
    req_str,
    with_extra,
    with_status,
)
from tabletracker.words import Said

# -- figures on the plan -----------------------------------------------------------------------------------


def figure(plan: TablePlan, ident: str) -> Model:
    """Return the model ``ident``, or the only model of unit ``ident``."""
    for m in plan.models:
        if m.model_id == ident:
            return m
    if any(u.unit_id == ident for u in plan.units):
        members = plan.models_of(ident)
        if len(members) == 1:
            return members[0]
        raise InvalidActionError(f"unit {ident!r} has {len(members)} figures; name one of them: "
                                 f"{', '.join(m.model_id for m in members)}", msg_id="fav.figure.which",
                                 params={"unit": ident, "count": len(members),
                                         "figures": [m.model_id for m in members]})
    plan.model(ident)  # raises with the list of models
    raise AssertionError("unreachable")


def _quality(plan: TablePlan, m: Model) -> Quality:
    name = m.profile or plan.unit(m.unit_id).profile
    return quality_of((plan.profiles or {}).get(name or ""), m.model_id)


def _traits(m: Model) -> set[str]:
    out = set()
    for t in m.extra.get("rules", ()):
        tid = trait_id(t)
        if tid:
            out.add(tid)
    return out


def _wounds(m: Model) -> list[str]:
    return list(m.extra.get("wounds", ()))


def _side(plan: TablePlan, m: Model) -> str:
    return plan.unit(m.unit_id).side


def _ud_mm(plan: TablePlan) -> float:
    return float(option(plan, "ud_mm", DEFAULT_UD_MM))


def distance_ud(plan: TablePlan, a: Model, b: Model) -> float:
    """Return the centre-to-centre distance in UD (Mesurer les distances)."""
    return model_distance_mm(a, b, how="centre") / _ud_mm(plan)


def range_band(distance: float, *, boundary: str = "nearer") -> tuple[int, str]:
    """Return the range modifier and band of a distance in UD (Bonus/malus de situation).

    A distance of exactly 4, 8 or 12 UD belongs to the nearer band
    (docs/rule-choices.md#feu-a-volonte-3, option ``band_boundary``).
    """
    def below(limit: float) -> bool:
        return distance <= limit if boundary == "nearer" else distance < limit
    if below(4.0):
        return 1, "< 4 UD"
    if below(8.0):
        return 0, "4-8 UD"
    if below(12.0):
        return -1, "8-12 UD"
    return -2, "> 12 UD"


def _leaders_near(plan: TablePlan, m: Model, trait: str | None = None, *, include_self: bool = True) -> list[Model]:
    out = []
    for other in plan.models:
        if _side(plan, other) != _side(plan, m) or role_of(other.role) == "trooper":
            continue
        if other.model_id == m.model_id and not include_self:
            continue
        if trait is not None and trait not in _traits(other):
            continue
        if distance_ud(plan, other, m) <= AURA_UD:
            out.append(other)
    return out


# -- action points -------------------------------------------------------------------------------------------


def _spend(plan: TablePlan, m: Model, action: str, steps: list[Step]) -> dict[str, Any]:
    """Return the state (its JSON) after ``m`` pays for ``action`` out of the current activation, if one is recorded."""
    state = FavState.of(plan)
    act = state.activation
    cost = ACTION_COSTS[action]
    if not act or m.model_id not in act.figures:
        steps.append(Step("action points", f"{action} costs {cost} PA (no activation of {m.model_id} is "
                                           f"recorded, so none are deducted)", SRC_ACTIONS, value=cost,
                          msg="fav.pa.not_recorded",
                          params={"action": action_word(action), "cost": cost, "who": m.model_id}))
        return state.to_json()
    surcharge = act.surcharge.get(m.model_id, 0)
    if surcharge:
        cost += surcharge
        act = dataclasses.replace(act, surcharge=freeze({**act.surcharge, m.model_id: 0}))
    if act.ap_left < cost:
        raise IllegalActionError(f"{action} costs {cost} PA but the activation has {act.ap_left} left "
                                 f"({SRC_ACTIONS})", msg_id="fav.pa.too_few",
                                 params={"action": action_word(action), "cost": cost, "left": act.ap_left})
    act = dataclasses.replace(act, ap_left=act.ap_left - cost)
    steps.append(Step("action points", f"{action}: {cost} PA"
                                       f"{' (radio or command: +1 on the first action)' if surcharge else ''}"
                                       f", {act.ap_left} left", SRC_ACTIONS, value=cost,
                      msg="fav.pa.spent_radio" if surcharge else "fav.pa.spent",
                      params={"action": action_word(action), "cost": cost, "left": act.ap_left}))
    return state.replace(activation=act).to_json()


# -- the opposed shot ----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Shot:
    """What is fixed before the dice: pools, modifiers, the target's state."""

    attack_dice: int
    attack_mod: int
    defence_dice: int
    defence_mod: int
    target_wounds: int
    location_die: int = 4
    group_limit: int = 0  # a support group's crew is hit: the group's wounds and limit (support.py)
    group_wounds: int = 0


def _location(face: int, sides: int) -> str:
    return LOCATIONS[face if sides == 4 else (face + 1) // 2]


def shot_outcome(attack: Sequence[int], location_face: int, defence: Sequence[int], shot: Shot) -> dict[str, Any]:
    """Return the outcome of one shot from its dice (all in the order rolled), before any nerve test."""
    if sorted(attack).count(1) >= 2:
        return {"kind": "out-of-ammo"}
    kept = sorted(attack, reverse=True)[:2]
    a = sum(kept) + shot.attack_mod
    d = sum(sorted(defence, reverse=True)[:2]) + shot.defence_mod
    out = {"attack": a, "defence": d, "attack_kept": kept}
    if shot.group_limit and (kept == [6, 6] or a >= 2 * d or a > d):  # Groupe d'appui: one wound of the group
        out_of_game = shot.group_wounds + 1 >= shot.group_limit
        return {**out, "kind": "group out" if out_of_game else "wounded",
                "location": _location(location_face, shot.location_die)}
    if kept == [6, 6] or a >= 2 * d:
        return {**out, "kind": "killed", "why": "double six" if kept == [6, 6] else "at least double the defence"}
    if a > d:
        loc = _location(location_face, shot.location_die)
        if loc == "tête" or shot.target_wounds + 1 >= WOUNDS_TO_DIE:
            return {**out, "kind": "killed", "why": "head" if loc == "tête" else "third wound", "location": loc}
        return {**out, "kind": "wounded", "location": loc}
    if d > a:
        return {**out, "kind": "missed", "move_ud": d - a}
    return {**out, "kind": "tie"}


def _label(o: Mapping[str, Any]) -> str:
    kind = o["kind"]
    if kind == "wounded":
        return f"wounded ({o['location']})"
    if kind == "killed":
        return "killed"
    if kind == "missed":
        return "missed"
    return str(kind)


def _pool(count: int, sides: int = 6) -> list[tuple[tuple[int, ...], Fraction]]:
    return list(multisets(count, sides))


def _attack_classes(count: int) -> dict[tuple[int, ...], Fraction]:
    """Group the rolls of ``count`` d6 by what a shot reads from them: the kept pair and a double 1.

    Each class is keyed by a representative roll (the kept pair, plus two 1s when
    the roll holds a natural double 1), so :func:`shot_outcome` reads it exactly
    as it would read any roll of the class.
    """
    classes: dict[tuple[int, ...], Fraction] = {}
    for combo, p in _pool(count):
        rep = tuple(combo[:2]) + ((1, 1) if combo.count(1) >= 2 else ())
        classes[rep] = classes.get(rep, Fraction(0)) + p
    return classes


def shot_odds(shot: Shot, nerve: tuple[int, int] | None) -> Distribution:
    """Return the exact distribution of a shot's outcome labels, nerve test included (``(dice, mod)``)."""
    acc: dict[str, Fraction] = {}
    defence = Distribution.from_pairs((sum(c[:2]), p) for c, p in _pool(shot.defence_dice))
    hold = nerve_odds(*nerve) if nerve is not None else None
    pl = Fraction(1, shot.location_die)

    def add(label: str, p: Fraction) -> None:
        acc[label] = acc.get(label, Fraction(0)) + p

    for rep, pa in _attack_classes(shot.attack_dice).items():
        if rep.count(1) >= 2:
            add("out-of-ammo", pa)
            continue
        for face in range(1, shot.location_die + 1):
            for d_total, pd in defence.probs.items():
                label = _label(shot_outcome(rep, face, (cast(int, d_total), 0), shot))
                p = pa * pl * pd
                if label == "tie" and hold is not None:
                    add("tie: holds", p * hold)
                    add("tie: falls back", p * (1 - hold))
                else:
                    add(label, p)
    return Distribution(cast(Mapping[Hashable, Fraction], acc))


def nerve_odds(dice: int, mod: int) -> Fraction:
    """Return the chance of a quality test of ``dice`` d6 (keep two) + ``mod`` reaching 7."""
    return sum((p for c, p in _pool(dice) if sum(c[:2]) + mod >= SUCCESS), Fraction(0))


def _attack_modifiers(plan: TablePlan, shooters: Sequence[Model], target: Model, weapon: Weapon,
                      request: Mapping[str, Any], cover_reason: str | None) -> tuple[list[tuple[int, str, str]], Model]:
    """Return the attack modifiers ``(value, reason, source)`` and the main shooter (nearest the target)."""
    main = min(shooters, key=lambda s: (model_distance_mm(s, target, how="centre"), s.model_id))
    mods: list[tuple[int, str, str]] = []
    dist = distance_ud(plan, main, target)
    if weapon.range_ud is not None:
        if dist > weapon.range_ud:
            raise IllegalActionError(f"{weapon.name}: range {fmt_len(weapon.range_ud, 'UD')}, the target is "
                                     f"{fmt_len(dist, 'UD')} away ({SRC_SHOOT})", msg_id="fav.out_of_range",
                                     params={"weapon": weapon.name, "range": weapon.range_ud,
                                             "distance": round(dist, 1)})
        mods.append((0, Phrase(f"{weapon.name}: range {fmt_len(weapon.range_ud, 'UD')}, no range bonus or malus "
                               f"(target {fmt_len(dist, 'UD')} away)", "fav.mod.fixed_range", weapon=weapon.name,
                               range=weapon.range_ud, distance=round(dist, 1)), SRC_SHOOT))
    else:
        boundary = str(option(plan, "band_boundary", "nearer"))
        value, band = range_band(dist, boundary=boundary)
        mods.append((value, Phrase(f"target {fmt_len(dist, 'UD')} away, band {band}", "fav.mod.band",
                                   distance=round(dist, 1), band=band), SRC_SITUATION))
    mods.append((weapon.bonus, Phrase(f"weapon {weapon.name}, bonus {weapon.bonus:+d}", "fav.mod.weapon",
                                      weapon=weapon.name, bonus=signed(weapon.bonus)), SRC_ARSENAL))
    if _rear(main, target):
        mods.append((1, Phrase(f"shot from behind {target.model_id} (outside its 180° front arc)", "fav.mod.rear",
                               target=target.model_id), SRC_SITUATION))
    if req_bool(request, "moved") or main.has_status("moved"):
        mods.append((-1, Phrase(f"{main.model_id} moved before shooting", "fav.mod.moved", who=main.model_id),
                     SRC_SITUATION))
    if target.has_status("prone"):
        mods.append((-1, Phrase(f"{target.model_id} is prone (à terre)", "fav.mod.prone", who=target.model_id),
                     SRC_SITUATION))
    elif cover_reason:
        mods.append((-1, Phrase(f"{target.model_id} in cover: {cover_reason}", "fav.mod.cover", who=target.model_id,
                                why=said(cover_reason)), SRC_SHOOT))
    if len(shooters) > 1:
        mods.append((len(shooters) - 1, Phrase(f"{len(shooters) - 1} more shooter(s) at the same target; main shooter "
                                               f"{main.model_id} is the nearest", "fav.mod.shooters",
                                               n=len(shooters) - 1, main=main.model_id), SRC_SHOOT))
    mods.extend(_weather_modifiers(plan, main, target))
    if "meilleur-fusil" in _traits(main):
        mods.append((1, Phrase("Meilleur fusil", "fav.mod.best_rifle"), SRC_TRAITS))
    arms = _wounds(main).count("bras")
    if arms:
        mods.append((-arms, Phrase(f"{main.model_id} wounded in the arm x{arms}", "fav.mod.arm", who=main.model_id,
                                   n=arms), SRC_WOUNDS))
    for leader in _leaders_near(plan, main, "en-avant"):
        mods.append((1, Phrase(f"En avant ! from {leader.model_id}, {fmt_len(distance_ud(plan, leader, main), 'UD')} "
                               f"away (3 UD)", "fav.mod.forward", leader=leader.model_id,
                               distance=round(distance_ud(plan, leader, main), 1)), SRC_TRAITS))
        break
    return mods, main


def _rear(shooter: Model, target: Model) -> bool:
    if target.facing_deg is None:
        return False
    bearing = math.degrees(math.atan2(shooter.y_mm - target.y_mm, shooter.x_mm - target.x_mm))
    return _angle_between(bearing, target.facing_deg) > 90.0


def _angle_between(a: float, b: float) -> float:
    return abs((a - b + 180.0) % 360.0 - 180.0)


def _defence(plan: TablePlan, target: Model) -> tuple[int, list[tuple[int, str, str]], Quality]:
    q = _quality(plan, target)
    mods: list[tuple[int, str, str]] = [(q.cran, cran_phrase(q.cran, q.name), SRC_RECRUIT)]
    chest = _wounds(target).count("buste")
    if chest:
        mods.append((-chest, Phrase(f"{target.model_id} wounded in the chest x{chest}", "fav.mod.chest",
                                    who=target.model_id, n=chest), SRC_WOUNDS))
    for leader in _leaders_near(plan, target, "inspire-l-exemple", include_self=False):
        mods.append((1, Phrase(f"Inspire l'exemple from {leader.model_id}", "fav.mod.inspire",
                               leader=leader.model_id), SRC_TRAITS))
        break
    return q.dice, mods, q


def _check_can_shoot(plan: TablePlan, main: Model, target: Model, request: Mapping[str, Any]) -> str | None:
    """Raise when the rules forbid the shot; return the cover reason (or ``None``)."""
    if _side(plan, main) == _side(plan, target):
        raise IllegalActionError(f"{target.model_id} is on the shooter's side", msg_id="fav.same_side_target",
                                 params={"target": target.model_id})
    if main.has_status("out-of-ammo"):
        raise IllegalActionError(f"{main.model_id} is out of ammunition: reload first (1 PA, {SRC_SHOOT})",
                                 msg_id="fav.out_of_ammo", params={"who": main.model_id})
    if main.facing_deg is not None:
        bearing = math.degrees(math.atan2(target.y_mm - main.y_mm, target.x_mm - main.x_mm))
        off = _angle_between(bearing, main.facing_deg)
        if off > 90.0 + 45.0:
            raise IllegalActionError(f"{target.model_id} is {off:.0f}° off {main.model_id}'s facing: beyond the "
                                     f"180° front arc and the free 45° turn; turn first (1 PA, {SRC_SHOOT})",
                                     msg_id="feu_a_volonte.outside_arc",
                                     params={"who": main.model_id, "target": target.model_id, "deg": round(off)})
    weather_now = FavState.of(plan).weather
    fog = weather_now is not None and weather_now.kind == "brouillard"
    hidden = (target.has_status("hidden") or fog
              or ("commando" in _traits(target) and req_bool(request, "near_terrain")))
    if hidden and not target.extra.get("spotted"):
        near = [m for m in plan.models if _side(plan, m) != _side(plan, target)
                and distance_ud(plan, m, target) < SPOTTED_WITHIN_UD]
        if not near:
            why = "in the fog every target must be detected first" if fog else f"{target.model_id} is hidden"
            raise IllegalActionError(f"{why}: spot it first (7+ on the quality roll, "
                                     f"{SRC_WEATHER if fog else SRC_SPOT})",
                                     msg_id="feu_a_volonte.fog" if fog else "feu_a_volonte.hidden",
                                     params={"target": target.model_id})
    from rules.rulesets import find_ruleset
    from rules.visibility import line_of_sight

    sight = line_of_sight(plan, main.model_id, target.model_id, ruleset=find_ruleset("feu-a-volonte"))
    if not sight.visible:
        what = ", ".join(f"{k} {i}" for k, i, _ in sight.blockers) or "terrain"
        raise IllegalActionError(f"{main.model_id} has no line of sight to {target.model_id} ({what})",
                                 msg_id="shoot.no_sight", params={"who": main.model_id, "target": target.model_id,
                                                                  "what": ", ".join(i for _, i, _ in sight.blockers)})
    if req_bool(request, "cover", default=False):
        return Phrase("the players judge it so", "fav.cover.players")
    if sight.cover_fraction > 0 or len(sight.blockers) > 0:
        what = ", ".join(f"{k} {i}" for k, i, _ in (*sight.cover, *sight.blockers))
        return Phrase(f"{sight.cover_fraction:.0%} of its base hidden ({what})", "fav.cover.hidden",
                      percent=round(sight.cover_fraction * 100),
                      pieces=[i for _, i, _ in (*sight.cover, *sight.blockers)])
    return None


def _weapon_for(plan: TablePlan, m: Model, name: str | None) -> Weapon:
    carried = [arsenal_weapon(w, plan.weapons) for w in (m.weapons or ())]
    ranged = [w for w in carried if not w.melee]
    if name is None:
        if len(ranged) != 1:
            raise InvalidActionError(f"choose the weapon (weapon); {m.model_id} carries: "
                                     f"{', '.join(w.name for w in carried) or '(nothing)'}",
                                     msg_id="shoot.choose_weapon",
                                     params={"who": m.model_id, "weapons": ", ".join(w.name for w in carried)})
        return ranged[0]
    wanted = arsenal_weapon(name, plan.weapons)
    for w in ranged:
        if w.name == wanted.name:
            return w
    raise InvalidActionError(f"{m.model_id} carries no {name!r} to shoot with; it carries: "
                             f"{', '.join(w.name for w in carried) or '(nothing)'}", msg_id="fav.no_such_weapon",
                             params={"who": m.model_id, "weapon": name,
                                     "weapons": id_list(w.name for w in carried)})


SPLIT_UD = 2.0  # Cadence de tir: shots may be split between targets 2 UD apart at most


@dataclass(frozen=True)
class Aim:
    """One target of a shooting action: the shot's numbers and the explanation of them."""

    target: Model
    shot: Shot
    nerve: tuple[int, int]
    steps: tuple[Step, ...]
    needed: str


def _aim(plan: TablePlan, shooters: Sequence[Model], target: Model, weapon: Weapon, request: Mapping[str, Any],
         more_dice: int) -> tuple[Aim, Model]:
    cover = None
    for sh in shooters:
        cover = _check_can_shoot(plan, sh, target, request)
    mods, main = _attack_modifiers(plan, shooters, target, weapon, request, cover)
    q = _quality(plan, main)
    scope = 1 if "lunette-de-visee" in _traits(main) else 0
    attack_dice = q.dice + scope + more_dice
    steps = [Step("attack", f"{main.model_id} ({q.name}) rolls {attack_dice}d6 and keeps two"
                            f"{' (Lunette de visée: +1d6)' if scope else ''}", SRC_DICE, value=attack_dice,
                  msg="fav.attack.roll_scope" if scope else "fav.attack.roll",
                  params={"who": main.model_id, "quality": quality_word(q.name), "dice": attack_dice})]
    steps += [modifier_step(v, why, src) for v, why, src in mods]
    attack_mod = sum(v for v, _, _ in mods)
    d_dice, d_mods, tq = _defence(plan, target)
    steps.append(Step("defence", f"{target.model_id} ({tq.name}) rolls {d_dice}d6, keeps two, adds "
                                 + ", ".join(f"{v:+d} ({why})" for v, why, _ in d_mods)
                                 + "; and a d4 for where it is hit", SRC_SHOOT, value=d_dice,
                      msg="fav.defence.roll", params={"who": target.model_id, "quality": quality_word(tq.name),
                                                      "dice": d_dice,
                                                      "mods": mod_list(d_mods)}))
    d_mod = sum(v for v, _, _ in d_mods)
    loc_die = 8 if option(plan, "hit_location_die", "d4") == "d8" else 4
    shot = Shot(attack_dice, attack_mod, d_dice, d_mod, len(_wounds(target)), loc_die)
    from rules.rulesets.feu_a_volonte.support import crew_shot  # Groupe d'appui

    shot = crew_shot(plan, target, shot, steps)
    needed = Said(f"more than the defence ({attack_dice}d6 keep 2 {attack_mod:+d} against "
                  f"{d_dice}d6 keep 2 {d_mod:+d})", "feu_a_volonte.needed.attack", dice=attack_dice,
                  mod=f"{attack_mod:+d}", defence=d_dice, defence_mod=f"{d_mod:+d}")
    return Aim(target, shot, (tq.dice, tq.cran), tuple(steps), needed), main


# what wins a melee (Les Combats en corps à corps), with its message id for the edges
HIGHER_TOTAL = Said("higher total", "feu_a_volonte.needed.higher_total")
# no roll needed: a hidden figure within 2 UD is spotted (Se dissimuler)
AUTOMATIC = Said("automatic", "feu_a_volonte.needed.automatic")


def shoot(plan: TablePlan, request: Mapping[str, Any], dice: Dice | None) -> Resolution:
    """Resolve a shot (Les Combats à distance): ``firing``, ``target``, optional ``weapon``.

    Optional: ``shooters`` (other figures of the activation firing at the same
    target), ``moved`` (the shooter moved first), ``cover`` (the players judge the
    target in cover), ``shots`` (up to the weapon's cadence, one after the other),
    ``targets`` (a cadence split between targets 2 UD apart at most, one shot each,
    in order), ``chance`` and ``reserve`` (extra dice). Traits come from the roster.
    """
    first = figure(plan, req_str(request, "firing"))
    split = req_list(request, "targets")
    sequence = [figure(plan, t) for t in split] if split else [figure(plan, req_str(request, "target"))]
    shooters = [first] + [figure(plan, s) for s in req_list(request, "shooters") if s != first.model_id]
    steps: list[Step] = []
    weapon = _weapon_for(plan, first, request.get("weapon"))
    shots = len(sequence) if split else req_int(request, "shots", 1, minimum=1)
    if shots > weapon.rate:
        raise InvalidActionError(f"{weapon.name} has a cadence of {weapon.rate}: at most {weapon.rate} shot(s)",
                                 msg_id="fav.cadence", params={"weapon": weapon.name, "rate": weapon.rate})
    if split and len(shooters) > 1:
        raise InvalidActionError("a cadence is split by one shooter; name the other shooters' shots separately",
                                 msg_id="fav.split_one_shooter")
    distinct = list({t.model_id: t for t in sequence}.values())
    for i, ta in enumerate(distinct):
        for tb in distinct[i + 1:]:
            if distance_ud(plan, ta, tb) > SPLIT_UD + 1e-9:
                raise IllegalActionError(f"{ta.model_id} and {tb.model_id} are "
                                         f"{fmt_len(distance_ud(plan, ta, tb), 'UD')} "
                                         f"apart: a cadence may only be split between targets 2 UD apart at most "
                                         f"(Feu à Volonté, Cadence de tir)", msg_id="fav.split_too_far",
                                         params={"a": ta.model_id, "b": tb.model_id,
                                                 "distance": round(distance_ud(plan, ta, tb), 1)})
    main_guess = min(shooters, key=lambda sh: (model_distance_mm(sh, distinct[0], how="centre"), sh.model_id))
    extra_steps: list[Step] = []
    more, extra_state = extra_dice(plan, main_guess, request, extra_steps)
    aims: dict[str, Aim] = {}
    main = main_guess
    for t in distinct:
        aims[t.model_id], main = _aim(plan, shooters, t, weapon, request, more)
        if len(distinct) > 1:
            steps.append(Step("target", f"shot(s) at {t.model_id}", SRC_SHOOT, msg="fav.target",
                              params={"target": t.model_id}))
        steps += aims[t.model_id].steps
    steps += extra_steps
    steps.append(Step("outcome rules", "higher attack wounds (d4: 1 leg, 2 arm, 3 chest, 4 head = death; third "
                                       "wound = death); attack at least double the defence or a natural double "
                                       "six kills; two natural 1s among the dice rolled, before keeping two = out "
                                       "of ammunition, no shot; higher defence: "
                                       "the target may move away by the difference in UD; tie: nerve test 7+ or "
                                       "fall back to the nearest cover", SRC_SHOOT, option="double=at-least",
                      msg="fav.shot.rules"))
    if len(distinct) == 1:
        odds = {"shot": shot_odds(aims[distinct[0].model_id].shot, aims[distinct[0].model_id].nerve)}
        needed = {"attack": aims[distinct[0].model_id].needed}
    else:
        odds = {f"shot at {k}": shot_odds(v.shot, v.nerve) for k, v in aims.items()}
        needed = {f"attack on {k}": v.needed for k, v in aims.items()}
    q = _quality(plan, main)
    if weapon.needs_aiming:
        p_aim = nerve_odds(q.dice, 0)
        steps.append(Step("aiming", f"{weapon.name}: aim first, quality roll 7+ ({p_aim.numerator}/"
                                    f"{p_aim.denominator}), else no shot", SRC_AT, msg="fav.aiming",
                          params={"weapon": weapon.name, "num": p_aim.numerator, "den": p_aim.denominator}))
        odds["aiming"] = Distribution.from_pairs((("aimed", p_aim), ("not aimed", 1 - p_aim)))
    if dice is None:
        return Resolution(RULESET, "shoot", tuple(steps), needed, odds)
    base = plan.with_state(extra_state) if extra_state != state_json(plan) else plan
    state = _spend(base, main, "combat / grenade", steps)
    after = base.with_state(state) if state != state_json(base) else base
    result = ShootResult(main.model_id)
    if weapon.needs_aiming:
        aim = dice.roll_keep(q.dice)
        result = dataclasses.replace(result, aiming=Aiming(tuple(aim[0]), sum(aim[1])))
        if sum(aim[1]) < SUCCESS:
            steps.append(Step("aiming", f"aiming roll {sum(aim[1])}: failed, no shot", SRC_AT,
                              msg="fav.aiming.failed", params={"total": sum(aim[1])}))
            return Resolution(RULESET, "shoot", tuple(steps), needed, odds, tuple(dice.rolled), result.to_json(),
                              after)
    order = sequence if split else sequence * shots
    for target in order:
        if after.model(main.model_id).has_status("out-of-ammo"):
            break
        if not any(m.model_id == target.model_id for m in after.models):
            continue
        current = after.model(target.model_id)
        aim_t = aims[target.model_id]
        shot_n = dataclasses.replace(
            aim_t.shot, target_wounds=len(_wounds(current)),
            defence_mod=aim_t.shot.defence_mod - (_wounds(current).count("buste") - _wounds(target).count("buste")))
        after, one = _roll_shot(after, dice, main, current, shot_n, aim_t.nerve, steps)
        result = dataclasses.replace(result, shots=(*result.shots, Roll.from_outcome(one, target=target.model_id)))
    result = dataclasses.replace(result, outcome=result.shots[-1].kind if result.shots else "no shot")
    if any(x.model_id == main.model_id for x in after.models) and after.model(main.model_id).has_status("ambush"):
        after = after.with_model(with_status(after.model(main.model_id), remove=("ambush",)))
        steps.append(Step("opportunity fire", f"{main.model_id} has fired from ambush: no longer ready to fire",
                          SRC_ACTIONS, msg="fav.opportunity_done", params={"who": main.model_id}))
    return Resolution(RULESET, "shoot", tuple(steps), needed, odds, tuple(dice.rolled), result.to_json(), after)


def _roll_shot(plan: TablePlan, dice: Dice, main: Model, target: Model, shot: Shot, nerve: tuple[int, int],
               steps: list[Step]) -> tuple[TablePlan, dict[str, Any]]:
    attack = dice.roll_many(shot.attack_dice, 6)
    if sorted(attack).count(1) >= 2:
        steps.append(Step("out of ammunition", f"attack dice {list(attack)}: a natural double 1, {main.model_id} "
                                              f"is out of ammunition and must reload", SRC_SHOOT,
                          msg="fav.shot.out_of_ammo", params={"dice": list(attack), "who": main.model_id}))
        after = plan.with_model(with_status(plan.model(main.model_id), add=("out-of-ammo",)))
        return after, {"kind": "out-of-ammo", "attack_dice": list(attack)}
    face = dice.roll(shot.location_die)
    defence = dice.roll_many(shot.defence_dice, 6)
    o = shot_outcome(attack, face, defence, shot)
    one = {**o, "attack_dice": list(attack), "location_die": face, "defence_dice": list(defence)}
    if shot.group_limit and o["kind"] in ("wounded", "group out"):  # Groupe d'appui: support.py
        from rules.rulesets.feu_a_volonte.support import hit_crew

        return hit_crew(plan, target, one, steps)
    text = f"attack {o['attack']} (kept {o['attack_kept']}) against defence {o['defence']}"
    after = plan
    said_dice = {"attack": o["attack"], "kept": list(o["attack_kept"]), "defence": o["defence"],
                 "target": target.model_id}
    if o["kind"] == "killed":
        steps.append(Step("result", f"{text}: {target.model_id} is killed ({o['why']})", SRC_SHOOT,
                          msg="fav.shot.killed", params={**said_dice, "why": why(o["why"])}))
        after = _remove(after, target)
    elif o["kind"] == "wounded":
        steps.append(Step("result", f"{text}: {target.model_id} wounded in the {o['location']} "
                                    f"({LOCATION_EFFECT[o['location']]})", SRC_WOUNDS, msg="fav.shot.wounded",
                          params={**said_dice, "location": location(o["location"]), "effect": effect(o["location"])}))
        after = after.with_model(with_extra(target, wounds=[*_wounds(target), o["location"]]))
    elif o["kind"] == "missed":
        steps.append(Step("result", f"{text}: missed, {target.model_id} may move {o['move_ud']} UD away "
                                    f"(forward or back)", SRC_SHOOT, value=o["move_ud"], msg="fav.shot.missed",
                          params={**said_dice, "move": o["move_ud"]}))
    else:
        nd = dice.roll_many(nerve[0], 6)
        total = sum(sorted(nd, reverse=True)[:2]) + nerve[1]
        holds = total >= SUCCESS
        one.update(nerve_dice=list(nd), nerve=total, kind="tie: holds" if holds else "tie: falls back")
        steps.append(Step("result", f"{text}: a tie; nerve test {total} "
                                    f"({'holds' if holds else 'falls back to the nearest cover'})",
                          SRC_SHOOT, msg="fav.shot.tie_holds" if holds else "fav.shot.tie_falls",
                          params={**said_dice, "total": total}))
        if not holds:
            after = after.with_model(with_status(target, add=("fell-back",)))
    return after, one


def _remove(plan: TablePlan, m: Model) -> TablePlan:
    state = FavState.of(plan)
    side = _side(plan, m)
    state = state.replace(losses=freeze({**state.losses, side: state.losses.get(side, 0) + 1}))
    return remove_model(plan, m.model_id).with_state(state.to_json())


# -- extra dice: Chance de cocu, the leader's and second's reserve; Cohésion re-rolls -----------------------

RESERVE_DICE = MappingProxyType({"leader": 3, "second": 2})


def extra_dice(plan: TablePlan, m: Model, request: Mapping[str, Any], steps: list[Step]) -> tuple[int, dict[str, Any]]:
    """Return the dice added to ``m``'s quality roll and the state after using them.

    ``chance=yes``: Chance de cocu, one more d6 once per turn (Compétences).
    ``reserve=N``: N dice of the side's reserve (3 of the leader, 2 of the second),
    for a figure within 3 UD of the leader or a second; each die serves once a game
    and a fallen commander's unused dice are lost (Rôle du leader et du second).
    """
    state = FavState.of(plan)
    extra = 0
    if req_bool(request, "chance"):
        if "chance-de-cocu" not in _traits(m):
            raise IllegalActionError(f"{m.model_id} does not have the trait Chance de cocu", msg_id="fav.no_chance",
                                     params={"who": m.model_id})
        if m.model_id in (state.chance_used or ()):
            raise IllegalActionError(f"{m.model_id} has already used Chance de cocu this turn ({SRC_TRAITS})",
                                     msg_id="fav.chance_used", params={"who": m.model_id})
        state = state.replace(chance_used=(*(state.chance_used or ()), m.model_id))
        extra += 1
        steps.append(Step("extra die", "+1d6: Chance de cocu (once per turn)", SRC_TRAITS, value=1,
                          msg="fav.extra.chance"))
    wanted = req_int(request, "reserve", 0, minimum=0)
    if wanted:
        side = _side(plan, m)
        near = _leaders_near(plan, m)
        if not near:
            raise IllegalActionError(f"{m.model_id} is not within 3 UD of its leader or a second: no reserve dice "
                                     f"({SRC_LEADER})", msg_id="fav.reserve.far", params={"who": m.model_id})
        used = {"leader": 0, "second": 0, **state.reserve_used.get(side, {})}
        alive = {role_of(c.role) for c in plan.models if _side(plan, c) == side}
        left = {g: (RESERVE_DICE[g] - used[g]) if g in alive else 0 for g in RESERVE_DICE}
        if wanted > sum(left.values()):
            raise IllegalActionError(f"the reserve of {side} has {sum(left.values())} dice left "
                                     f"(leader {left['leader']}, second {left['second']}); {wanted} asked",
                                     msg_id="fav.reserve.left",
                                     params={"side": side, "left": sum(left.values()), "leader": left["leader"],
                                             "second": left["second"], "wanted": wanted})
        remaining = wanted
        for g in ("leader", "second"):
            take = min(remaining, left[g])
            used[g] += take
            remaining -= take
        state = state.replace(reserve_used=freeze({**state.reserve_used, side: used}))
        n = req_int(request, "reserve", 0)
        extra += n
        steps.append(Step("extra dice", f"+{n}d6 from the reserve of {side} ({', '.join(c.model_id for c in near)} "
                                        f"within 3 UD); each reserve die serves once", SRC_LEADER, value=n,
                          msg="fav.extra.reserve",
                          params={"n": n, "side": side, "near": [c.model_id for c in near]}))
    return extra, state.to_json()


def cohesion_reroll(plan: TablePlan, m: Model) -> Model | None:
    """Return the leader or second whose Cohésion lets ``m`` re-roll a failed quality roll, if any."""
    near = _leaders_near(plan, m, "cohesion", include_self=False)
    return near[0] if near else None


# -- spotting, nerve, reloading ---------------------------------------------------------------------------


def spot(plan: TablePlan, request: Mapping[str, Any], dice: Dice | None) -> Resolution:
    """Spot a hidden figure (Se dissimuler): quality Xd6 keep two, 7 or more; automatic within 2 UD."""
    spotter = figure(plan, req_str(request, "spotter"))
    target = figure(plan, req_str(request, "target"))
    q = _quality(plan, spotter)
    dist = distance_ud(plan, spotter, target)
    steps: list[Step] = []
    more, extra_state = extra_dice(plan, spotter, request, steps)
    count = q.dice + more
    steps.insert(0, Step("spotting", f"{spotter.model_id} ({q.name}) rolls {count}d6 and keeps two: 7 or more "
                                     f"spots {target.model_id}", SRC_SPOT, value=count, msg="fav.spot.roll",
                         params={"who": spotter.model_id, "quality": quality_word(q.name), "dice": count,
                                 "target": target.model_id}))
    helper = cohesion_reroll(plan, spotter)
    if helper is not None:
        steps.append(Step("re-roll", f"Cohésion of {helper.model_id} (within 3 UD): a failed roll is rolled again",
                          SRC_TRAITS, msg="fav.reroll", params={"helper": helper.model_id}))
    auto = dist < SPOTTED_WITHIN_UD
    if auto:
        steps.append(Step("spotting", f"{target.model_id} is {fmt_len(dist, 'UD')} away, under 2 UD: spotted "
                                      f"without a roll", SRC_SPOT, msg="fav.spot.auto",
                          params={"target": target.model_id, "distance": round(dist, 1)}))
        odds = {"spotted": Distribution.certain(True)}
    else:
        p = nerve_odds(count, 0)
        p = with_reroll(p) if helper is not None else p
        odds = {"spotted": Distribution.from_pairs(((True, p), (False, 1 - p)))}
    needed = {"spot": AUTOMATIC if auto else "7+"}
    if dice is None:
        return Resolution(RULESET, "spot", tuple(steps), needed, odds)
    after = plan.with_state(extra_state) if extra_state != state_json(plan) else plan
    state = _spend(after, spotter, "repérage / fouiller", steps)
    after = after.with_state(state) if state != state_json(after) else after
    if auto:
        ok, total, rolled = True, None, []
    else:
        rolled_t, kept = dice.roll_keep(count)
        total, rolled = sum(kept), list(rolled_t)
        ok = total >= SUCCESS
        if not ok and helper is not None:
            rolled_t, kept = dice.roll_keep(count)
            total, rolled = sum(kept), rolled + list(rolled_t)
            ok = total >= SUCCESS
        steps.append(Step("result", f"dice {rolled}, keeps {list(kept)}: {total} "
                                    f"{'>= 7, spotted' if ok else '< 7, not spotted'}", SRC_SPOT, value=total,
                          msg="fav.spot.spotted" if ok else "fav.spot.missed",
                          params={"dice": rolled, "kept": list(kept), "total": total}))
    if ok:
        after = after.with_model(with_extra(after.model(target.model_id), spotted=True))
    return Resolution(RULESET, "spot", tuple(steps), needed, odds, tuple(dice.rolled),
                      SpotResult(ok, total, tuple(rolled)).to_json(), after)


def morale(plan: TablePlan, request: Mapping[str, Any], dice: Dice | None) -> Resolution:
    """The nerve test of a tied shot: quality Xd6 keep two + cran, 7 or more holds, else fall back to cover."""
    m = figure(plan, req_str(request, "unit"))
    q = _quality(plan, m)
    steps: list[Step] = []
    more, extra_state = extra_dice(plan, m, request, steps)
    count = q.dice + more
    steps.insert(0, Step("nerve", f"{m.model_id} ({q.name}) rolls {count}d6, keeps two, adds its cran {q.cran:+d}: "
                                  f"7 or more holds, less falls back to the nearest cover", SRC_SHOOT, value=q.cran,
                         msg="fav.nerve.roll",
                         params={"who": m.model_id, "quality": quality_word(q.name), "dice": count,
                                 "cran": signed(q.cran)}))
    helper = cohesion_reroll(plan, m)
    if helper is not None:
        steps.append(Step("re-roll", f"Cohésion of {helper.model_id} (within 3 UD): a failed roll is rolled again",
                          SRC_TRAITS, msg="fav.reroll", params={"helper": helper.model_id}))
    p = nerve_odds(count, q.cran)
    p = with_reroll(p) if helper is not None else p
    odds = {"nerve": Distribution.from_pairs((("holds", p), ("falls back", 1 - p)))}
    if dice is None:
        return Resolution(RULESET, "morale", tuple(steps), {"nerve": "7+"}, odds)
    rolled, kept = dice.roll_keep(count)
    total = sum(kept) + q.cran
    holds = total >= SUCCESS
    if not holds and helper is not None:
        again, kept = dice.roll_keep(count)
        rolled = rolled + again
        total = sum(kept) + q.cran
        holds = total >= SUCCESS
    base = plan.with_state(extra_state) if extra_state != state_json(plan) else plan
    after = base if holds else base.with_model(with_status(m, add=("fell-back",)))
    steps.append(Step("result", f"dice {list(rolled)}, keeps {list(kept)}, {q.cran:+d} = {total}: "
                                f"{'holds' if holds else 'falls back'}", SRC_SHOOT, value=total,
                      msg="fav.nerve.holds" if holds else "fav.nerve.falls",
                      params={"dice": list(rolled), "kept": list(kept), "cran": signed(q.cran), "total": total}))
    return Resolution(RULESET, "morale", tuple(steps), {"nerve": "7+"}, odds, tuple(dice.rolled),
                      NerveResult(holds, total).to_json(), after)


def disengage(plan: TablePlan, request: Mapping[str, Any], dice: Dice | None) -> Resolution:
    """Leave a duel (Se désengager, 1 PA): quality Xd6 keep two, 7 or more steps back 2 UD facing the enemy."""
    m = figure(plan, req_str(request, "unit"))
    q = _quality(plan, m)
    steps: list[Step] = [Step("disengage", f"{m.model_id} ({q.name}) rolls {q.dice}d6 and keeps two: 7 or more "
                                           f"leaves the duel and steps back 2 UD facing its enemy", SRC_MELEE,
                                 msg="fav.disengage.roll", params={"who": m.model_id, "quality": quality_word(q.name),
                                                                   "dice": q.dice})]
    p = nerve_odds(q.dice, 0)
    odds = {"disengaged": Distribution.from_pairs(((True, p), (False, 1 - p)))}
    if dice is None:
        return Resolution(RULESET, "disengage", tuple(steps), {"disengage": "7+"}, odds)
    state = _spend(plan, m, "se désengager", steps)
    rolled, kept = dice.roll_keep(q.dice)
    ok = sum(kept) >= SUCCESS
    steps.append(Step("result", f"dice {list(rolled)}, keeps {list(kept)}: {sum(kept)}: "
                                f"{'disengaged, move it back 2 UD' if ok else 'still in the duel'}", SRC_MELEE,
                      msg="fav.disengage.ok" if ok else "fav.disengage.stays",
                      params={"dice": list(rolled), "kept": list(kept), "total": sum(kept)}))
    return Resolution(RULESET, "disengage", tuple(steps), {"disengage": "7+"}, odds, tuple(dice.rolled),
                      DisengageResult(ok, sum(kept)).to_json(), plan.with_state(state))


def reload(plan: TablePlan, request: Mapping[str, Any], dice: Dice | None) -> Resolution:
    """Reload (1 PA): the figure is no longer out of ammunition."""
    m = figure(plan, req_str(request, "unit"))
    steps: list[Step] = []
    if not m.has_status("out-of-ammo"):
        raise IllegalActionError(f"{m.model_id} is not out of ammunition; nothing to reload",
                                 msg_id="fav.reload.not_needed", params={"who": m.model_id})
    state = _spend(plan, m, "recharger", steps)
    after = plan.with_state(state).with_model(with_status(m, remove=("out-of-ammo",)))
    steps.append(Step("reload", f"{m.model_id} reloads", SRC_ACTIONS, msg="fav.reload", params={"who": m.model_id}))
    return Resolution(RULESET, "reload", tuple(steps), result=ReloadResult(m.model_id).to_json(), plan_after=after)


# -- melee ----------------------------------------------------------------------------------------------------


def _melee_bonus(plan: TablePlan, m: Model) -> tuple[int, str]:
    melee = [arsenal_weapon(w, plan.weapons) for w in (m.weapons or ())]
    melee = [w for w in melee if w.melee]
    best = max(melee, key=lambda w: w.bonus) if melee else ARSENAL["Poings"]
    return best.bonus, best.name


def melee(plan: TablePlan, request: Mapping[str, Any], dice: Dice | None) -> Resolution:
    """Resolve a melee round (Les Combats en corps à corps): ``attacker``, ``defender``.

    Optional ``charge`` (+1 to the charger), ``outnumber`` (+1 to the side with more
    figures on one isolated enemy: ``attacker`` or ``defender``).
    """
    a = figure(plan, req_str(request, "attacker"))
    d = figure(plan, req_str(request, "defender"))
    if _side(plan, a) == _side(plan, d):
        raise IllegalActionError(f"{a.model_id} and {d.model_id} are on the same side", msg_id="fav.melee.same_side",
                                 params={"a": a.model_id, "b": d.model_id})
    steps: list[Step] = []
    if req_bool(request, "charge") and _rear(a, d):
        return _rear_charge(plan, a, d, dice)
    sides = []
    for who, m in (("attacker", a), ("defender", d)):
        q = _quality(plan, m)
        bonus, wname = _melee_bonus(plan, m)
        mods: list[tuple[int, str, str]] = [(q.cran, cran_phrase(q.cran, q.name), SRC_MELEE),
                                            (bonus, f"{wname}", SRC_ARSENAL)]
        if who == "attacker" and req_bool(request, "charge"):
            mods.append((1, Phrase("charge: the target is caught by surprise", "fav.mod.charge"), SRC_MELEE))
        if request.get("outnumber") == who:
            mods.append((1, Phrase("outnumbering an isolated enemy", "fav.mod.outnumber"), SRC_MELEE))
        arms, chest = _wounds(m).count("bras"), _wounds(m).count("buste")
        if who == "attacker" and arms:
            mods.append((-arms, Phrase(f"wounded in the arm x{arms}", "fav.mod.arm_self", n=arms), SRC_WOUNDS))
        if who == "defender" and chest:
            mods.append((-chest, Phrase(f"wounded in the chest x{chest}", "fav.mod.chest_self", n=chest), SRC_WOUNDS))
        rolls = f"{m.model_id} ({q.name}) rolls {q.dice}d6, keeps two, " + ", ".join(
            f"{v:+d} ({why})" for v, why, _ in mods) + ", and a d4"
        steps.append(Step("attacker" if who == "attacker" else "defender", rolls,  # words the page knows
                          SRC_MELEE, value=q.dice, msg="fav.melee.roll",
                          params={"who": m.model_id, "quality": quality_word(q.name), "dice": q.dice,
                                  "mods": mod_list(mods)}))
        sides.append((m, q.dice, sum(v for v, _, _ in mods)))
    steps.append(Step("outcome rules", "the higher total wounds the other where the winner's d4 says; a tie "
                                       "leaves both in melee", SRC_MELEE, msg="fav.melee.rules"))

    def total(count: int, mod: int) -> Distribution:
        return Distribution.from_pairs((sum(c[:2]) + mod, p) for c, p in _pool(count))

    (ma, na, ka), (md, nd, kd) = sides
    odds = {"melee": total(na, ka).convolve(total(nd, kd), lambda x, y: "attacker wins" if x > y else
                                            "defender wins" if y > x else "tie")}
    if dice is None:
        return Resolution(RULESET, "melee", tuple(steps), {"win": HIGHER_TOTAL}, odds)
    state = _spend(plan, a, "combat / grenade", steps)
    after = plan.with_state(state) if state != state_json(plan) else plan
    a_dice = dice.roll_many(na, 6)
    a_loc = dice.roll(4)
    d_dice = dice.roll_many(nd, 6)
    d_loc = dice.roll(4)
    ta = sum(sorted(a_dice, reverse=True)[:2]) + ka
    td = sum(sorted(d_dice, reverse=True)[:2]) + kd
    result = MeleeResult(ta, td, tuple(a_dice), tuple(d_dice), a_loc, d_loc, "tie")
    if ta == td:
        steps.append(Step("result", f"{ta} against {td}: a tie, both stay in melee", SRC_MELEE, msg="fav.melee.tie",
                          params={"a": ta, "b": td}))
    else:
        loser, face = (md, a_loc) if ta > td else (ma, d_loc)
        loc = LOCATIONS[face]
        current = after.model(loser.model_id)
        from rules.rulesets.feu_a_volonte.support import crew_wound  # Groupe d'appui: one wound of the group

        crew = crew_wound(after, current, loc, ta, td, steps)
        if crew is not None:
            result = dataclasses.replace(result, outcome="attacker wins" if ta > td else "defender wins",
                                         wounded=loser.model_id, location=loc, killed=False, **crew[1])
            return Resolution(RULESET, "melee", tuple(steps), {"win": HIGHER_TOTAL}, odds, tuple(dice.rolled),
                              result.to_json(), crew[0])
        wounds = [*_wounds(current), loc]
        dead = loc == "tête" or len(wounds) >= WOUNDS_TO_DIE
        result = dataclasses.replace(result, outcome="attacker wins" if ta > td else "defender wins",
                                     wounded=loser.model_id, location=loc, killed=dead)
        steps.append(Step("result", f"{ta} against {td}: {loser.model_id} wounded in the {loc}"
                                    f"{' and killed' if dead else ' (' + LOCATION_EFFECT[loc] + ')'}", SRC_WOUNDS,
                          msg="fav.melee.killed" if dead else "fav.melee.wounded",
                          params={"a": ta, "b": td, "who": loser.model_id, "location": location(loc),
                                  "effect": effect(loc)}))
        after = _remove(after, current) if dead else after.with_model(with_extra(current, wounds=wounds))
    return Resolution(RULESET, "melee", tuple(steps), {"win": HIGHER_TOTAL}, odds, tuple(dice.rolled),
                      result.to_json(), after)


def _rear_charge(plan: TablePlan, a: Model, d: Model, dice: Dice | None) -> Resolution:
    """A charge from behind: the surprised defender can only try to dodge, quality 7+ (Les Combats, La Charge).

    A defender that crews a support group takes a failed dodge as one wound of its group (support.py).
    """
    from rules.rulesets.feu_a_volonte.support import crew_dodge, crew_odds, crew_target  # Groupe d'appui

    q = _quality(plan, d)
    steps = [Step("charge from behind", f"{a.model_id} charges {d.model_id} from outside its front arc: "
                                        f"{d.model_id} ({q.name}) can only dodge, {q.dice}d6 keep two, 7 or more; "
                                        f"otherwise it is wounded where {a.model_id}'s d4 says", SRC_MELEE,
                  msg="fav.melee.rear_charge",
                  params={"a": a.model_id, "d": d.model_id, "quality": quality_word(q.name), "dice": q.dice})]
    crew_target(plan, d, steps)
    p = nerve_odds(q.dice, 0)
    odds = {"melee": crew_odds(plan, d, Distribution.from_pairs((("dodged", p), ("wounded or killed", 1 - p))))}
    if dice is None:
        return Resolution(RULESET, "melee", tuple(steps), {"dodge": "7+"}, odds)
    state = _spend(plan, a, "combat / grenade", steps)
    after = plan.with_state(state) if state != state_json(plan) else plan
    rolled, kept = dice.roll_keep(q.dice)
    result = DodgeResult(tuple(rolled), sum(kept), "dodged")
    if sum(kept) >= SUCCESS:
        steps.append(Step("result", f"dodge {sum(kept)}: {d.model_id} dodges", SRC_MELEE, msg="fav.melee.dodged",
                          params={"total": sum(kept), "who": d.model_id}))
    else:
        loc = LOCATIONS[dice.roll(4)]
        current = after.model(d.model_id)
        crew = crew_dodge(after, current, loc, sum(kept), steps)
        if crew is not None:
            result = dataclasses.replace(result, outcome="attacker wins", wounded=d.model_id, location=loc,
                                         killed=False, **crew[1])
            return Resolution(RULESET, "melee", tuple(steps), {"dodge": "7+"}, odds, tuple(dice.rolled),
                              result.to_json(), crew[0])
        wounds = [*_wounds(current), loc]
        dead = loc == "tête" or len(wounds) >= WOUNDS_TO_DIE
        result = dataclasses.replace(result, outcome="attacker wins", wounded=d.model_id, location=loc, killed=dead)
        steps.append(Step("result", f"dodge {sum(kept)}: {d.model_id} wounded in the {loc}"
                                    f"{' and killed' if dead else ''}", SRC_WOUNDS,
                          msg="fav.melee.dodge_killed" if dead else "fav.melee.dodge_wounded",
                          params={"total": sum(kept), "who": d.model_id, "location": location(loc)}))
        after = _remove(after, current) if dead else after.with_model(with_extra(current, wounds=wounds))
    return Resolution(RULESET, "melee", tuple(steps), {"dodge": "7+"}, odds, tuple(dice.rolled), result.to_json(),
                      after)


# -- activation -------------------------------------------------------------------------------------------------


def activate(plan: TablePlan, request: Mapping[str, Any], dice: Dice | None) -> Resolution:
    """Activate one figure (d6: 1-2 -> 2 PA, 3-4 -> 3, 5-6 -> 4) or a group (d6 figures, d8 - 1 PA).

    ``unit``: the figure, or ``figures``: several (a group activation, 1 PA of the
    d8 paying for it). Radio: a figure more than 4 UD from its leader and every
    second, or any figure when both are gone, pays +1 PA on its first action.
    """
    names = req_list(request, "figures") or [req_str(request, "unit")]
    figs = [figure(plan, n) for n in names]
    sides = {_side(plan, m) for m in figs}
    if len(sides) != 1:
        raise InvalidActionError(f"figures of one side only; got sides {', '.join(sorted(sides))}",
                                 msg_id="fav.activate.one_side", params={"sides": sorted(sides)})
    side = sides.pop()
    for m in figs:
        if m.has_status("activated"):
            raise IllegalActionError(f"{m.model_id} has already been activated this turn ({SRC_ACTIVATION})",
                                     msg_id="fav.activate.already", params={"who": m.model_id})
    rest = req_bool(request, "rest")
    group = (len(figs) > 1 or req_bool(request, "group")) and not rest
    steps: list[Step] = []
    if rest:
        others = [m for m in plan.models if _side(plan, m) != side and not m.has_status("activated")]
        if others:
            raise IllegalActionError(f"the other side still has figures to activate "
                                     f"({', '.join(m.model_id for m in others)}): "
                                     f"the end-of-turn activation is for the last figures of one side "
                                     f"({SRC_ACTIVATION})", msg_id="fav.activate.rest_others",
                                     params={"figures": [m.model_id for m in others]})
        left = [m for m in plan.models if _side(plan, m) == side and not m.has_status("activated")]
        if {m.model_id for m in figs} != {m.model_id for m in left}:
            raise InvalidActionError(f"the end-of-turn activation takes every figure not yet activated: "
                                     f"{', '.join(m.model_id for m in left)}", msg_id="fav.activate.rest_all",
                                     params={"figures": id_list(m.model_id for m in left)})
        n_d8 = -(-len(figs) // 3)
        steps.append(Step("end-of-turn activation", f"{len(figs)} figure(s) left: {n_d8}d8 (one per 3 figures or "
                                                    f"part of 3), the total shared among them all", SRC_ACTIVATION,
                          value=n_d8, msg="fav.activate.rest", params={"n": len(figs), "d8": n_d8}))
        odds = {"action points": sum_of(n_d8, 8)}
    elif group:
        steps.append(Step("group activation", "roll a d6 (1-2: one figure, 3-4: two, 5-6: three) and a d8 "
                                             "(action points, less 1 to pay for the group activation)", SRC_GROUP,
                          msg="fav.activate.group"))
        odds = {"figures": die(6).map(lambda f: FIGURES_BY_D6[f]), "action points": die(8).map(lambda f: f - 1)}
    else:
        steps.append(Step("activation", "roll a d6: 1-2 gives 2 PA, 3-4 gives 3 PA, 5-6 gives 4 PA",
                          SRC_ACTIVATION, msg="fav.activate.single"))
        odds = {"action points": die(6).map(lambda f: AP_BY_D6[f])}
    surcharge = _radio(plan, figs, side, steps)
    if dice is None:
        return Resolution(RULESET, "activate", tuple(steps), {}, odds)
    if rest:
        rolled = dice.roll_many(n_d8, 8)
        ap = sum(rolled)
        steps.append(Step("result", f"d8 {', '.join(map(str, rolled))}: {ap} PA for {len(figs)} figure(s)",
                          SRC_ACTIVATION, value=ap, msg="fav.activate.rest_result",
                          params={"dice": list(rolled), "ap": ap, "n": len(figs)}))
    elif group:
        f6, f8 = dice.roll(6), dice.roll(8)
        max_figs, ap = cast(int, FIGURES_BY_D6[f6]), f8 - 1
        if len(figs) > max_figs:
            raise IllegalActionError(f"the d6 shows {f6}: at most {max_figs} figure(s) may act; "
                                     f"{len(figs)} were named ({SRC_GROUP})", msg_id="fav.activate.too_many",
                                     params={"face": f6, "max": max_figs, "n": len(figs)})
        steps.append(Step("result", f"d6 {f6}: up to {max_figs} figure(s); d8 {f8} - 1 = {ap} PA", SRC_GROUP,
                          value=ap, msg="fav.activate.group_result",
                          params={"d6": f6, "max": max_figs, "d8": f8, "ap": ap}))
    else:
        f6 = dice.roll(6)
        ap = cast(int, AP_BY_D6[f6])
        steps.append(Step("result", f"d6 {f6}: {ap} PA", SRC_ACTIVATION, value=ap, msg="fav.activate.result",
                          params={"d6": f6, "ap": ap}))
    state = FavState.of(plan).replace(activation=Activation(side, tuple(m.model_id for m in figs), ap,
                                                            freeze(surcharge)))
    after = plan.with_state(state.to_json())
    for m in figs:
        after = after.with_model(with_status(after.model(m.model_id), add=("activated",), remove=("moved",)))
    return Resolution(RULESET, "activate", tuple(steps), {}, odds, tuple(dice.rolled),
                      ActivateResult(ap, tuple(m.model_id for m in figs)).to_json(), after)


def _radio(plan: TablePlan, figs: Sequence[Model], side: str, steps: list[Step]) -> dict[str, int]:
    commanders = [m for m in plan.models if _side(plan, m) == side and role_of(m.role) in ("leader", "second")]
    out: dict[str, int] = {}
    for m in figs:
        if not commanders:
            out[m.model_id] = 1
            steps.append(Step("radio", f"no leader or second left: the platoon is disorganised, {m.model_id} "
                                       f"pays +1 PA on its first action", SRC_RADIO, value=1,
                              msg="fav.radio.disorganised", params={"who": m.model_id}))
            continue
        if m in commanders:
            continue
        nearest = min(distance_ud(plan, c, m) for c in commanders)
        if nearest > RADIO_UD:
            out[m.model_id] = 1
            steps.append(Step("radio", f"{m.model_id} is {fmt_len(nearest, 'UD')} from its nearest leader or "
                                       f"second (more than 4 UD): +1 PA on its first action", SRC_RADIO, value=1,
                              msg="fav.radio.far", params={"who": m.model_id, "distance": round(nearest, 1)}))
    return out


def end_turn(plan: TablePlan, request: Mapping[str, Any], dice: Dice | None) -> Resolution:
    """End the turn: every figure may be activated again; report whether the game is over (3/4 losses)."""
    state = FavState.of(plan)
    state = state.replace(activation=None, chance_used=None, turn=(state.turn or 1) + 1)
    after = plan.with_state(state.to_json())
    for m in plan.models:
        if m.has_status("activated") or m.has_status("moved"):
            after = after.with_model(with_status(after.model(m.model_id), remove=("activated", "moved")))
    steps = [Step("turn", f"turn {state.turn} begins: every figure may be activated again", SRC_ACTIVATION,
                  msg="fav.turn.begins", params={"turn": state.turn})]
    over = []
    losses = state.losses
    for side in sorted({u.side for u in plan.units} | set(losses)):
        lost = int(losses.get(side, 0))
        company = lost + sum(1 for m in plan.models if _side(plan, m) == side)
        if company and 4 * lost >= 3 * company:
            over.append(side)
        steps.append(Step("end of game", f"{side}: {lost} of {company} figures lost "
                                         f"({'at least' if side in over else 'under'} three quarters)", SRC_END,
                          value=lost, msg="fav.turn.losses_over" if side in over else "fav.turn.losses_under",
                          params={"side": side, "lost": lost, "company": company}))
    return Resolution(RULESET, "end-turn", tuple(steps),
                      result=EndTurnResult(state.turn or 2, bool(over), tuple(over)).to_json(), plan_after=after)


def recruit(plan: TablePlan, request: Mapping[str, Any], dice: Dice | None) -> Resolution:
    """Show the recruitment cost of one side's figures on the plan (Coût = Qualité + Grade + Arme + Trait)."""
    side = req_str(request, "side")
    figs = [m for m in plan.models if _side(plan, m) == side]
    if not figs:
        raise InvalidActionError(f"no figure of side {side!r}; sides are: "
                                 f"{', '.join(sorted({u.side for u in plan.units}))}", msg_id="fav.recruit.no_side",
                                 params={"side": side, "sides": sorted({u.side for u in plan.units})})
    from rules.rulesets.feu_a_volonte.support import team_recruits  # Recrutement (1914 à nos jours)

    kinds, teams = team_recruits(plan, figs)
    recruits = [recruit_of(m.model_id, (plan.profiles or {}).get(m.profile or plan.unit(m.unit_id).profile or ""),
                           m.role, m.weapons or (), m.extra.get("rules", ()), plan.weapons,
                           team=kinds.get(m.model_id)) for m in figs]
    steps = [Step("cost", r.text(), SRC_RECRUIT, value=r.cost, msg="fav.recruit.cost", params=r.params())
             for r in recruits]
    steps += [Step("support team", t.text(), SRC_TEAMS, value=t.cost, msg="fav.recruit.team", params=t.params())
              for t in teams]
    total = sum(r.cost for r in recruits) + sum(t.cost for t in teams)
    agreed = FavState.of(plan).budget
    budget = _budget({"budget": agreed} if agreed else {}, teams=bool(teams))
    problems = check_platoon(recruits, budget, teams)
    steps.append(Step("total", f"{total} PdR of {budget}" + (": " + "; ".join(problems) if problems else ""),
                      SRC_RECRUIT, value=total, msg="fav.recruit.total_problems" if problems else "fav.recruit.total",
                      params={"total": total, "budget": budget, "problems": [said(p) for p in problems]}))
    result = RecruitResult(total, tuple(problems), budget, sum(t.cost for t in teams) if teams else None)
    return Resolution(RULESET, "recruit", tuple(steps), result=result.to_json())


# -- area weapons ------------------------------------------------------------------------------------------

SRC_AREA = "Feu à Volonté, Arme à aire d'effet"
BLAST_UD = 3.0
GRENADES_PER_TRAIT = 2


def _grenades_left(m: Model) -> int:
    carried = GRENADES_PER_TRAIT if "grenade" in _traits(m) else 0
    carried += sum(1 for w in (m.weapons or ()) if _norm(w) in (_norm("Grenade à main"), "grenade"))
    return carried - int(m.extra.get("grenades_thrown", 0))


def throw(plan: TablePlan, request: Mapping[str, Any], dice: Dice | None) -> Resolution:
    """Throw a grenade or fire a mortar at a point (``target`` figure, or ``x_mm`` and ``y_mm``).

    Quality Xd6 keep two: 7 or more lands on the point, else a d6 gives the
    deviation (that many UD, in that direction); the kept result plus the weapon's
    bonus is the attack against every figure within 3 UD, each defending as against
    a shot (quality + cran, d4 location). Grenades: two per Grenade trait.
    """
    thrower = figure(plan, req_str(request, "thrower"))
    wname = str(request.get("weapon") or "Grenade à main")
    weapon = arsenal_weapon(wname, plan.weapons)
    if weapon.area_ud is None:
        raise InvalidActionError(f"{weapon.name} is not an area weapon; area weapons are: Grenade à main, Mortier",
                                 msg_id="fav.throw.not_area", params={"weapon": weapon.name})
    if weapon.name == "Grenade à main":
        if _grenades_left(thrower) <= 0:
            raise IllegalActionError(f"{thrower.model_id} has no grenade left (the Grenade trait gives two, "
                                     f"{SRC_TRAITS})", msg_id="fav.throw.no_grenade",
                                     params={"who": thrower.model_id})
    elif weapon.name not in {arsenal_weapon(w, plan.weapons).name for w in (thrower.weapons or ())}:
        raise IllegalActionError(f"{thrower.model_id} carries no {weapon.name}", msg_id="fav.throw.not_carried",
                                 params={"who": thrower.model_id, "weapon": weapon.name})
    if "target" in request and request["target"] is not None:
        point = figure(plan, req_str(request, "target")).position_mm
    else:
        try:
            point = (float(request["x_mm"]), float(request["y_mm"]))
        except (KeyError, TypeError, ValueError):
            raise InvalidActionError("name the aim: target=FIGURE, or x_mm=... y_mm=... (table mm)",
                                     msg_id="fav.throw.aim") from None
    ud = _ud_mm(plan)
    reach = math.dist(thrower.position_mm, point) / ud
    if reach > float(weapon.range_ud or 0) + 1e-9:
        raise IllegalActionError(f"{weapon.name}: range {fmt_len(weapon.range_ud or 0, 'UD')}, the point is "
                                 f"{fmt_len(reach, 'UD')} away ({SRC_AREA})", msg_id="fav.throw.out_of_range",
                                 params={"weapon": weapon.name, "range": weapon.range_ud or 0,
                                         "distance": round(reach, 1)})
    q = _quality(plan, thrower)
    steps = [Step("throw", f"{thrower.model_id} ({q.name}) throws at {fmt_len(reach, 'UD')} (range "
                           f"{fmt_len(weapon.range_ud or 0, 'UD')}): {q.dice}d6 keep two, 7 or more lands on the "
                           f"point, else a d6 gives direction and distance in UD", SRC_AREA, value=q.dice,
                  msg="fav.throw.roll", params={"who": thrower.model_id, "quality": quality_word(q.name),
                                               "distance": round(reach, 1), "range": weapon.range_ud or 0,
                                               "dice": q.dice}),
             Step("attack", f"kept result {weapon.bonus:+d} ({weapon.name}) against each figure within "
                            f"{fmt_len(weapon.area_ud or BLAST_UD, 'UD')}", SRC_AREA, value=weapon.bonus,
                  msg="fav.throw.attack", params={"bonus": signed(weapon.bonus), "weapon": weapon.name,
                                                 "radius": weapon.area_ud or BLAST_UD})]
    p_on = nerve_odds(q.dice, 0)
    odds = {"lands on the point": Distribution.from_pairs(((True, p_on), (False, 1 - p_on)))}
    victims = _blast(plan, point, weapon)
    for m in victims:
        from rules.rulesets.feu_a_volonte.support import crew_odds  # Groupe d'appui

        odds[f"if on the point: {m.model_id}"] = crew_odds(plan, m, _blast_odds(plan, q.dice, weapon.bonus, m))
    if dice is None:
        return Resolution(RULESET, "throw", tuple(steps), {"on the point": "7+"}, odds)
    state = _spend(plan, thrower, "combat / grenade", steps)
    after = plan.with_state(state) if state != state_json(plan) else plan
    rolled, kept = dice.roll_keep(q.dice)
    total = sum(kept)
    impact = point
    deviation: int | None = None
    if total < SUCCESS:
        from rules.zones import deviate

        d6 = dice.roll(6)
        impact = deviate(point, thrower.position_mm, d6, d6 * ud)
        deviation = d6
        steps.append(Step("deviation", f"{total} < 7: the d6 shows {d6}, {d6} UD in direction {d6} (4 straight "
                                       f"away from the thrower)", SRC_AREA, value=d6, msg="fav.throw.deviation",
                          params={"total": total, "d6": d6}))
    attack = total + weapon.bonus
    victims = _blast(after, impact, weapon)
    steps.append(Step("blast", f"attack {attack}; within 3 UD: {', '.join(m.model_id for m in victims) or 'nobody'}",
                      SRC_AREA, value=len(victims), msg="fav.throw.blast",
                      params={"attack": attack, "hit": id_list(m.model_id for m in victims)}))
    outcomes: list[Roll] = []
    for m in victims:
        if not any(x.model_id == m.model_id for x in after.models):
            continue  # crew of a support group that left the game earlier in this blast
        d_dice, d_mods, tq = _defence(after, m)
        shot = Shot(0, 0, d_dice, sum(v for v, _, _ in d_mods), len(_wounds(m)))
        face = dice.roll(4)
        defence = dice.roll_many(d_dice, 6)
        o = _blast_outcome(attack, kept, face, defence, shot)
        if o["kind"] in ("killed", "wounded"):  # Groupe d'appui: a hit on crew is one wound of the group
            from rules.rulesets.feu_a_volonte.support import crew_wound

            crew = crew_wound(after, after.model(m.model_id), LOCATIONS[face], attack, o["defence"], steps)
            if crew is not None:
                after = crew[0]
                outcomes.append(Roll.from_outcome({"attack": attack, "defence": o["defence"], **crew[1],
                                                   "location": LOCATIONS[face], "location_die": face,
                                                   "defence_dice": list(defence)}, figure=m.model_id))
                continue
        if o["kind"] == "tie":  # resolved as for a shot: the nerve test
            nd = dice.roll_many(tq.dice, 6)
            holds = sum(sorted(nd, reverse=True)[:2]) + tq.cran >= SUCCESS
            o = {**o, "kind": "tie: holds" if holds else "tie: falls back", "nerve_dice": list(nd)}
        outcomes.append(Roll.from_outcome({**o, "location_die": face, "defence_dice": list(defence)},
                                          figure=m.model_id))
        after = _apply_blast(after, m, o, steps)
    if weapon.name == "Grenade à main" and any(x.model_id == thrower.model_id for x in after.models):
        t = after.model(thrower.model_id)
        after = after.with_model(with_extra(t, grenades_thrown=int(t.extra.get("grenades_thrown", 0)) + 1))
    result = ThrowResult(tuple(rolled), tuple(kept), total >= SUCCESS, deviation,
                         (round(impact[0], 3), round(impact[1], 3)), attack, tuple(outcomes))
    return Resolution(RULESET, "throw", tuple(steps), {"on the point": "7+"}, odds, tuple(dice.rolled),
                      result.to_json(),
                      after)


def _blast(plan: TablePlan, point: tuple[float, float], weapon: Weapon) -> list[Model]:
    radius = (weapon.area_ud or BLAST_UD) * _ud_mm(plan)
    return sorted((m for m in plan.models if math.dist(m.position_mm, point) <= radius + 1e-6),
                  key=lambda m: (math.dist(m.position_mm, point), m.model_id))


def _blast_outcome(attack: int, kept: Sequence[int], face: int, defence: Sequence[int], shot: Shot) -> dict[str, Any]:
    d = sum(sorted(defence, reverse=True)[:2]) + shot.defence_mod
    out: dict[str, Any] = {"attack": attack, "defence": d}
    if list(kept) == [6, 6] or attack >= 2 * d:
        return {**out, "kind": "killed", "why": "double six" if list(kept) == [6, 6] else "at least double the defence"}
    if attack > d:
        loc = LOCATIONS[face]
        if loc == "tête" or shot.target_wounds + 1 >= WOUNDS_TO_DIE:
            return {**out, "kind": "killed", "why": "head" if loc == "tête" else "third wound", "location": loc}
        return {**out, "kind": "wounded", "location": loc}
    if d > attack:
        return {**out, "kind": "missed", "move_ud": d - attack}
    return {**out, "kind": "tie"}


def _blast_odds(plan: TablePlan, dice_count: int, bonus: int, m: Model) -> Distribution:
    """Return a figure's outcome distribution when the grenade lands on the point (the throw is 7+)."""
    d_dice, d_mods, _ = _defence(plan, m)
    shot = Shot(0, 0, d_dice, sum(v for v, _, _ in d_mods), len(_wounds(m)))
    landed: dict[tuple[int, bool], Fraction] = {}
    for c, p in _pool(dice_count):
        if sum(c[:2]) >= SUCCESS:
            key = (sum(c[:2]), tuple(c[:2]) == (6, 6))
            landed[key] = landed.get(key, Fraction(0)) + p
    p_land = sum(landed.values(), Fraction(0))
    defence = Distribution.from_pairs((sum(c[:2]), p) for c, p in _pool(d_dice))
    acc: dict[str, Fraction] = {}
    for (total, sixes), pa in landed.items():
        kept = (6, 6) if sixes else (total, 0)
        for face in range(1, 5):
            for d_total, pd in defence.probs.items():
                label = _label(_blast_outcome(total + bonus, kept, face, (cast(int, d_total), 0), shot))
                acc[label] = acc.get(label, Fraction(0)) + pa / p_land * Fraction(1, 4) * pd
    return Distribution(cast(Mapping[Hashable, Fraction], acc))


def _apply_blast(plan: TablePlan, m: Model, o: Mapping[str, Any], steps: list[Step]) -> TablePlan:
    current = plan.model(m.model_id)
    if o["kind"] == "killed":
        steps.append(Step("result", f"{m.model_id}: {o['attack']} against {o['defence']}, killed ({o['why']})",
                          SRC_AREA,
                          msg="fav.blast.killed", params={"who": m.model_id, "attack": o["attack"],
                                                          "defence": o["defence"], "why": why(o["why"])}))
        return _remove(plan, current)
    if o["kind"] == "wounded":
        steps.append(Step("result", f"{m.model_id}: {o['attack']} against {o['defence']}, wounded in the "
                                    f"{o['location']}", SRC_WOUNDS, msg="fav.blast.wounded",
                          params={"who": m.model_id, "attack": o["attack"], "defence": o["defence"],
                                  "location": location(o["location"])}))
        return plan.with_model(with_extra(current, wounds=[*_wounds(current), o["location"]]))
    if o["kind"] == "missed":
        steps.append(Step("result", f"{m.model_id}: {o['attack']} against {o['defence']}, may move "
                                    f"{o['move_ud']} UD away", SRC_AREA, msg="fav.blast.missed",
                          params={"who": m.model_id, "attack": o["attack"], "defence": o["defence"],
                                  "move": o["move_ud"]}))
        return plan
    holds = o["kind"] == "tie: holds"
    steps.append(Step("result", f"{m.model_id}: a tie, nerve test: {'holds' if holds else 'falls back to cover'}",
                      SRC_SHOOT, msg="fav.blast.tie_holds" if holds else "fav.blast.tie_falls",
                      params={"who": m.model_id}))
    return plan if holds else plan.with_model(with_status(current, add=("fell-back",)))


def pay(plan: TablePlan, request: Mapping[str, Any], dice: Dice | None) -> Resolution:
    """Pay the action points of an action with no dice (marcher, courir, se dissimuler, tir d'opportunité...).

    Moving marks the figure ``moved`` (its shots this activation take -1); hiding
    marks it ``hidden``; an opportunity shot marks it ``ambush``.
    """
    m = figure(plan, req_str(request, "unit"))
    name = _norm(req_str(request, "action"))
    match = [a for a in ACTION_COSTS if _norm(a) == name or _norm(a).startswith(name)]
    if len(match) != 1:
        raise InvalidActionError(f"unknown action {request.get('action')!r}; actions and their PA: "
                                 + ", ".join(f"{a} {c}" for a, c in ACTION_COSTS.items()), msg_id="fav.pay.unknown",
                                 params={"action": str(request.get("action")),
                                         "actions": [msg("fav.pay.cost", action=action_word(a), cost=c)
                                                     for a, c in ACTION_COSTS.items()]})
    action = match[0]
    steps: list[Step] = []
    state = _spend(plan, m, action, steps)
    after = plan.with_state(state)
    marks = {"marcher": ("moved",), "courir": ("moved",), "grimper / sauter": ("moved",), "charger": ("moved",),
             "se dissimuler": ("hidden",), "tir d'opportunité": ("ambush",)}
    if action in marks:
        after = after.with_model(with_status(after.model(m.model_id), add=marks[action]))
    if action == "se dissimuler":
        after = after.with_model(with_extra(after.model(m.model_id), spotted=None))
    return Resolution(RULESET, "pay", tuple(steps), result=PayResult(action, ACTION_COSTS[action]).to_json(),
                      plan_after=after)


# -- weather and initiative -------------------------------------------------------------------------------

SRC_WEATHER = "Feu à Volonté, La météo"
SRC_INITIATIVE = "Feu à Volonté, Initiative"
WEATHER_BY_D8 = expand_ranges({(1, 2): "vent", (3, 4): "brouillard", (5, 6): "pluie / neige", (7, 8): "beau temps"})
WEATHER_EFFECT = MappingProxyType({
    "vent": "a shooter facing the wind takes -1 on shots beyond 10 UD; wind in the back, no malus",
    "brouillard": "thick fog: every target must be detected first (quality 7+)",
    "pluie / neige": "movement -1 UD; difficult terrain becomes impassable",
    "beau temps": "no effect",
})
WIND_RANGE_UD = 10.0


def wind_from_deg(d8: int) -> float:
    """Return the table angle the wind blows from for a d8 on the compass rose.

    1 is the table's top edge (toward -y, "north"), numbered clockwise every 45°
    (option ``wind_rose``: ``1-north-clockwise``).

    >>> wind_from_deg(1), wind_from_deg(3), wind_from_deg(5)
    (270.0, 0.0, 90.0)
    """
    return (270.0 + 45.0 * (d8 - 1)) % 360.0


def weather(plan: TablePlan, request: Mapping[str, Any], dice: Dice | None) -> Resolution:
    """Roll the weather (La météo): a d8 on the table, and a second d8 for the wind's direction."""
    steps = [Step("weather", "d8: 1-2 wind (a second d8 gives its direction), 3-4 fog, 5-6 rain or snow, "
                             "7-8 fine", SRC_WEATHER, msg="fav.weather.table")]
    odds = {"weather": die(8).map(lambda f: WEATHER_BY_D8[f])}
    if dice is None:
        return Resolution(RULESET, "weather", tuple(steps), {}, odds)
    face = dice.roll(8)
    kind = WEATHER_BY_D8[face]
    state = FavState.of(plan).replace(weather=Weather(str(kind)))
    text = f"d8 {face}: {kind} ({WEATHER_EFFECT[cast(str, kind)]})"
    if kind == "vent":
        wind = dice.roll(8)
        state = state.replace(weather=Weather(str(kind), wind))
        text += f"; wind d8 {wind}: it blows from {wind_from_deg(wind):.0f}° (1 = top edge, clockwise)"
    said_weather = {"face": face, "weather": weather_word(str(kind)),
                    "effect": msg(WEATHER_MSG[str(kind)].replace("weather.", "weather_effect."))}
    if kind == "vent":
        said_weather.update(wind=wind, deg=round(wind_from_deg(wind)))
    steps.append(Step("result", text, SRC_WEATHER, value=kind, option="wind_rose=1-north-clockwise",
                      msg="fav.weather.result_wind" if kind == "vent" else "fav.weather.result", params=said_weather))
    return Resolution(RULESET, "weather", tuple(steps), {}, odds, tuple(dice.rolled),
                      state.weather.to_json() if state.weather else {}, plan.with_state(state.to_json()))


def _weather_modifiers(plan: TablePlan, main: Model, target: Model) -> list[tuple[int, str, str]]:
    w = FavState.of(plan).weather
    if w is None or w.kind != "vent" or w.wind_d8 is None:
        return []
    dist = distance_ud(plan, main, target)
    if dist <= WIND_RANGE_UD:
        return []
    bearing = math.degrees(math.atan2(target.y_mm - main.y_mm, target.x_mm - main.x_mm))
    if _angle_between(bearing, wind_from_deg(w.wind_d8)) < 90.0:
        return [(-1, Phrase(f"shooting into the wind at {fmt_len(dist, 'UD')} (beyond 10 UD)", "fav.mod.wind",
                            distance=round(dist, 1)), SRC_WEATHER)]
    return []


def initiative(plan: TablePlan, request: Mapping[str, Any], dice: Dice | None) -> Resolution:
    """Roll for the initiative (Initiative): a d6 per side, the higher starts; ties roll again."""
    sides = sorted({u.side for u in plan.units})
    if len(sides) != 2:
        raise InvalidActionError(f"the initiative is rolled between two sides; this game has: {', '.join(sides)}",
                                 msg_id="fav.initiative.two_sides", params={"sides": id_list(sides)})
    steps = [Step("initiative", f"{sides[0]} and {sides[1]} each roll a d6: the higher starts (ties roll again)",
                  SRC_INITIATIVE, msg="fav.initiative.roll", params={"a": sides[0], "b": sides[1]})]
    p_first = Fraction(1, 2)
    odds = {"starts": Distribution.from_pairs(((sides[0], p_first), (sides[1], 1 - p_first)))}
    if dice is None:
        return Resolution(RULESET, "initiative", tuple(steps), {}, odds)
    rolls = []
    while True:
        a, b = dice.roll(6), dice.roll(6)
        rolls.append([a, b])
        if a != b:
            break
    winner = sides[0] if a > b else sides[1]
    steps.append(Step("result", "; ".join(f"{sides[0]} {x} - {sides[1]} {y}" for x, y in rolls)
                                + f": {winner} starts", SRC_INITIATIVE, msg="fav.initiative.result",
                      params={"rolls": [msg("fav.initiative.pair", a=sides[0], x=x, b=sides[1], y=y) for x, y in rolls],
                              "winner": winner}))
    state = FavState.of(plan).replace(initiative=winner)
    return Resolution(RULESET, "initiative", tuple(steps), {}, odds, tuple(dice.rolled),
                      InitiativeResult(winner, tuple((x, y) for x, y in rolls)).to_json(),
                      plan.with_state(state.to_json()))


__all__ = ["ACTIONS", "QUALITIES", "TRAITS", "Recruit", "roster_cost", "validate_roster", "shoot", "melee", "spot",
           "activate", "shot_odds", "shot_outcome", "range_band", "RULESET", "SRC_SHOOT"]

ACTIONS: Mapping[str, Action] = MappingProxyType({
    "weather": weather, "initiative": initiative, "disengage": disengage,
    "throw": throw, "pay": pay,
    "shoot": shoot, "melee": melee, "spot": spot, "morale": morale, "activate": activate,
    "reload": reload, "end-turn": end_turn, "recruit": recruit,
})
