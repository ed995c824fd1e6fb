"""AT-43 shooting (rulebook chapter "Tirs"): salvoes weapon by weapon, on the universal table.

A salvo (section "Résolution d'un tir"): every model of the firing unit carrying
the chosen weapon fires at once, in four steps -- 1/ the target (a unit for direct
fire, one model for indirect fire), 2/ the fire zone, 3/ the shooting test
(précision minus portée on the universal table, Cadence x firers dice, failures
re-rolled Relances times), 4/ damage (pénétration minus protection on the table)
and removal of casualties nearest the firing leader first. Direct impacts go one
by one to the models caught in the fire zone (nearest the firing leader first,
skipping smaller, prone and kneeling models; locked weapons hit only the target),
the rest to the target unit; a unit at least half in cover saves each impact on
5+ (3+ in the "À couvert !" attitude). Indirect fire places the template on the
target model, deviates 1 cm per failure in one of six directions, and hits every
base even partly under a disc of radius Aire d'effet x successes (capped at
10 cm, then two impacts each); survivors are thrown prone.

The numbers the shooting chapter's worked examples give come out exactly (see
``tests/rules/test_combat_at43.py``): storm golems' nanoblasters at portée 5
(difference -2, 5+ needed, one re-roll), the steel troopers' laser rifles at
portée 4 (4+, six dice) then damage 5 against protection 6 (4+), the grenade
launchers' templates (3 cm x successes, 10 cm with two impacts).

Game state this module reads and writes: model ``status`` ``"prone"`` (à terre)
and ``"kneeling"`` (genou en terre); unit ``extra["attitude"]`` (``"a-couvert"``,
``"alerte"``, ``"genou-en-terre"``); unit ``extra["salvoes"]`` (weapons fired this
activation); model ``extra["damage_taken"]`` (structure points lost).

Examples
--------
>>> from rules.rulesets.at43.dice import at43_roll_needed
>>> at43_roll_needed(3 - 5), at43_roll_needed(5 - 4), at43_roll_needed(5 - 6)
(5, 4, 4)
>>> template_radius_cm(3, 2), template_radius_cm(3, 0), template_radius_cm(3, 4)
(6, 3, 10)
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from fractions import Fraction
from types import MappingProxyType
from typing import Any, Mapping, NoReturn, Sequence, cast

from rules.dice import AUTO_SUCCESS, Dice, Distribution, binomial, die, needed_text, success_chance, with_rerolls
from rules.errors import IllegalActionError, InvalidActionError, RosterError
from rules.explain import Step, msg
from rules.frozen import freeze, thaw
from rules.plan import Model, TablePlan, Unit
from rules.resolution import Action, Resolution
from rules.roster import Roster, require_known_rules, require_known_weapons, require_stats
from rules.rulesets.at43.answers import CoverState
from rules.rulesets.at43.dice import at43_roll_needed
from rules.rulesets.at43.fire_zone import skip_msg
from rules.rulesets.at43.results import Activated, GroupOutcome, NewLeader, SalvoResult, TemplateOutcome, TurnBegun
from rules.rulesets.at43.state import AT43State
from rules.rulesets.at43.words import how_msg, ids_or_nobody, need_msg, need_said
from rules.rulesets.kit import (
    fmt_len,
    remove_model,
    req_bool,
    req_choice,
    req_int,
    req_list,
    req_str,
    with_extra,
    with_status,
)

RULESET = "at-43"
CATEGORIES = ("infantry", "vehicle")
KNOWN_RULES: tuple[str, ...] = ()  # the shooting chapter defines no unit special rules
PROFILE_STATS = (("category", str), ("size", int), ("protection", int))
WEAPON_STATS = (("rate", int), ("rerolls", int), ("penetration", int), ("damage", int))

MM_PER_CM = 10.0
BAND_MM = 100.0  # Organes de visée: each range band is 10 cm
TEMPLATE_CAP_CM = 10  # Tir indirect: no area of effect beyond 10 cm
COVER_IGNORED_WITHIN_MM = 100.0  # Couvert: ignored when the firing leader is 10 cm or less from it
COVER_SAVE = 5
COVER_SAVE_ATTITUDE = 3  # "À couvert !" (docs/rule-choices.md#at-43-5)
NOT_IN_FIRE_ZONE = ("prone", "kneeling")

SRC = "AT-43, Tirs"
SRC_SALVO = "AT-43, Tirs: Résolution d'un tir"
SRC_TARGET = "AT-43, Tirs: 1/ Choix de la cible"
SRC_ZONE = "AT-43, Tirs: 2/ Détermination de la zone de feu"
SRC_TEST = "AT-43, Tirs: 3/ Test de tir"
SRC_RANGE = "AT-43, Tirs: Organes de visée"
SRC_TABLE = "AT-43, tableau de résolution universel (rule choice 4)"
DOC_TABLE = "rule-choices.md#at-43-4"  # the table is the game's, not the chapter's
SRC_DIRECT = "AT-43, Tirs: Tir direct, qui est touché ?"
SRC_INDIRECT = "AT-43, Tirs: Tir indirect, qui est touché"
SRC_COVER = "AT-43, Tirs: Couvert"
SRC_DAMAGE = "AT-43, Tirs: 4/ Dégâts et retrait des pertes"
SRC_NEW_SALVO = "AT-43, Tirs: Nouvelle salve !"


# -- roster --------------------------------------------------------------------------------


def _refuse(roster: Roster, english: str, msg_id: str, **params: Any) -> NoReturn:
    """Refuse the roster: its file name, the English sentence, and the message the edges translate."""
    raise RosterError(f"{roster.source}: {english}", msg_id=f"at43.roster.{msg_id}",
                      params={"roster": roster.source, **params})


def validate_roster(roster: Roster) -> None:
    """Refuse an AT-43 roster with unknown weapons or rules, or stats the shooting rules need missing.

    A profile needs ``category`` (infantry or vehicle), ``size`` (Taille),
    ``protection`` and optionally ``structure`` (points, default 1). A weapon needs
    ``precision`` (or ``locked_roll``, the fixed roll of a locked weapon), ``rate``
    (Cadence), ``rerolls`` (Relances), ``penetration`` and ``damage`` (Dommages),
    and ``area_cm`` (Aire d'effet) when it fires indirectly. Every model needs a
    weapon and every unit a leader (ranges are measured leader to leader).
    """
    require_known_weapons(roster)
    require_known_rules(roster, KNOWN_RULES)
    for name, stats in roster.profiles.items():
        require_stats(roster, "profiles", name, stats, PROFILE_STATS)
        if stats["category"] not in CATEGORIES:
            _refuse(roster, f"profiles.{name}.category must be one of {', '.join(CATEGORIES)}, "
                    f"got {stats['category']!r}", "category", profile=name, got=str(stats["category"]))
        structure = stats.get("structure", 1)
        if isinstance(structure, bool) or not isinstance(structure, int) or structure < 1:
            _refuse(roster, f"profiles.{name}.structure must be a whole number of at least 1, got {structure!r}",
                    "structure", profile=name, got=repr(structure))
    for name, stats in roster.weapons.items():
        require_stats(roster, "weapons", name, stats, WEAPON_STATS)
        if "precision" not in stats and "locked_roll" not in stats:
            _refuse(roster, f"weapons.{name} needs 'precision' (or 'locked_roll' for a locked weapon)",
                    "precision", weapon=name)
        for key in ("precision", "locked_roll"):
            if key in stats:
                require_stats(roster, "weapons", name, stats, ((key, int),))
        if "locked_roll" in stats and not 2 <= stats["locked_roll"] <= 6:
            _refuse(roster, f"weapons.{name}.locked_roll must be 2 to 6, got {stats['locked_roll']!r}",
                    "locked_roll", weapon=name, got=repr(stats["locked_roll"]))
        if stats["rate"] < 1 or stats["rerolls"] < 0 or stats["damage"] < 1:
            _refuse(roster, f"weapons.{name}: rate and damage must be at least 1 and rerolls at least 0",
                    "weapon_values", weapon=name)
        if "area_cm" in stats:
            require_stats(roster, "weapons", name, stats, (("area_cm", (int, float)),))
            if stats["area_cm"] <= 0:
                _refuse(roster, f"weapons.{name}.area_cm must be greater than 0, got {stats['area_cm']!r}",
                        "area", weapon=name, got=repr(stats["area_cm"]))
    for unit, model in roster.all_models():
        if roster.profile_of(unit, model) is None:
            _refuse(roster, f"model {model.model_id!r} of unit {unit.unit_id!r} has no profile "
                    f"(give the model or its unit one)", "no_profile", model=model.model_id, unit=unit.unit_id)
        if not model.weapons:
            _refuse(roster, f"model {model.model_id!r} of unit {unit.unit_id!r} carries no weapon", "no_weapon",
                    model=model.model_id, unit=unit.unit_id)
    for unit in roster.units:
        if unit.leader is None:
            _refuse(roster, f"unit {unit.unit_id!r} has no leader; AT-43 measures ranges from the leader",
                    "no_leader", unit=unit.unit_id)


# -- stats read from the plan -------------------------------------------------------------------


@dataclass(frozen=True)
class Weapon:
    """An AT-43 weapon: précision (or a locked roll), cadence, relances, pénétration, dommages, aire."""

    name: str
    precision: int | None
    rate: int
    rerolls: int
    penetration: int
    damage: int
    area_cm: float | None = None
    locked_roll: int | None = None

    @property
    def indirect(self) -> bool:
        """Indirect fire weapons are those with an Aire d'effet (section "Modes de tir")."""
        return self.area_cm is not None


def weapon_of(plan: TablePlan, name: str) -> Weapon:
    """Return the weapon ``name`` from the game's weapons table."""
    table = plan.weapons or {}
    if name not in table:
        raise InvalidActionError(f"no weapon {name!r} in this game's weapons; weapons are: "
                                 f"{', '.join(sorted(table)) or '(none: merge the rosters first)'}",
                                 msg_id="at43.no_such_weapon" if table else "at43.no_weapons",
                                 params={"weapon": name, "weapons": sorted(table)})
    s = table[name]
    try:
        return Weapon(name, s.get("precision"), int(s["rate"]), int(s["rerolls"]), int(s["penetration"]),
                      int(s["damage"]), s.get("area_cm"), s.get("locked_roll"))
    except KeyError as exc:
        raise InvalidActionError(f"the weapon {name!r} has no AT-43 {exc.args[0]!r} (its roster was written for "
                                 "another rule set): give it an AT-43 profile (precision, rate, rerolls, penetration, "
                                 "damage) in the roster, or play a roster made for AT-43",
                                 msg_id="at43.weapon_not_at43", params={"weapon": name, "stat": exc.args[0]}) from None


def _profile(plan: TablePlan, m: Model) -> Mapping[str, Any]:
    name = m.profile or plan.unit(m.unit_id).profile
    profiles = plan.profiles or {}
    if name is None or name not in profiles:
        raise InvalidActionError(f"model {m.model_id!r} has no AT-43 profile in this game "
                                 f"(profile {name!r}); merge the rosters first", msg_id="at43.no_profile",
                                 params={"model": m.model_id, "profile": str(name)})
    return cast(Mapping[str, Any], profiles[name])


def _stat(plan: TablePlan, m: Model, key: str, default: Any = None) -> Any:
    value = _profile(plan, m).get(key, default)
    if value is None:
        raise InvalidActionError(f"profile of model {m.model_id!r} lacks {key!r}", msg_id="at43.profile_lacks",
                                 params={"model": m.model_id, "stat": key})
    return value


def portee(distance_mm: float) -> int:
    """Return the AT-43 range band (portée) of a distance: 0 below 10 cm, 1 from 10 cm, ...

    >>> portee(99.9), portee(100.0), portee(405.0)
    (0, 1, 4)
    """
    return int(math.floor(distance_mm / BAND_MM + 1e-9))


def template_radius_cm(area_cm: float, successes: int) -> float:
    """Return the template's radius: Aire d'effet x successes (the Aire when none), capped at 10 cm."""
    radius = area_cm * successes if successes > 0 else area_cm
    return min(radius, TEMPLATE_CAP_CM)


# -- geometry: the geometry package's answers (rules.zones, rules.visibility, rules.rulesets.at43) ---------


class Geometry:
    """The geometric answers one resolution needs, asked of the geometry modules, with sight cached."""

    def __init__(self, plan: TablePlan) -> None:
        from rules.rulesets import find_ruleset

        self.plan = plan
        self.rs = find_ruleset(RULESET)
        self.opts = self.rs.resolve_options(plan)
        self.how = self.rs.measure_how(self.opts)
        self._sight: dict[tuple[str, str], Any] = {}

    def sight(self, a: Model, b: Model) -> Any:
        """Return :func:`rules.visibility.line_of_sight` of ``a`` to ``b``."""
        from rules.visibility import line_of_sight

        key = (a.model_id, b.model_id)
        if key not in self._sight:
            self._sight[key] = line_of_sight(self.plan, a.model_id, b.model_id, options=self.opts, ruleset=self.rs)
        return self._sight[key]

    def trace_first(self, pairs: Sequence[tuple[Model, Model]]) -> None:
        """Trace ``pairs`` in one batch ahead of :meth:`sight` asking them one by one (the same answers).

        A refused batch is left to the single calls, which refuse in their own order.
        """
        from rules.errors import RulesError
        from rules.visibility import lines_of_sight

        todo = list(dict.fromkeys((a.model_id, b.model_id) for a, b in pairs
                                  if (a.model_id, b.model_id) not in self._sight))
        if len(todo) < 2:
            return
        try:
            found = lines_of_sight(self.plan, todo, options=self.opts, ruleset=self.rs)
        except RulesError:
            return
        self._sight.update(zip(todo, found))

    def sees(self, a: Model, b: Model) -> bool:
        return bool(self.sight(a, b).visible)

    def blockers(self, a: Model, targets: Sequence[Model]) -> list[str]:
        """Return what hides ``targets`` from ``a`` (terrain ids), when none is seen."""
        out: set[str] = set()
        for t in targets:
            out.update(ident for _, ident, _ in self.sight(a, t).blockers)
        return sorted(out)

    def distance_mm(self, a: Model, b: Model) -> float:
        from rules.measure import model_distance_mm

        return model_distance_mm(a, b, how=self.how)

    def fire_zone(self, firing: str, target: str, target_models: Sequence[str] | None = None) -> Any:
        from rules.rulesets.at43.fire_zone import fire_zone

        return fire_zone(self.plan, firing, target, how=self.how, target_models=target_models, source=SRC_ZONE)

    def cover(self, firing: str, unit: str) -> CoverState:
        from rules.rulesets.at43 import AT43, cover_state

        return cover_state(cast(AT43, self.rs), self.plan, firing, unit, self.opts)

    def template(self, centre: tuple[float, float], radius_mm: float) -> tuple[Model, ...]:
        from rules.zones import template

        found = template(self.plan, centre, radius_mm, how="edge", source=SRC_INDIRECT)
        return tuple(self.plan.model(mid) for mid in found.under)

    def deviate(self, aim: tuple[float, float], firer: tuple[float, float], direction: int,
                distance_mm: float) -> tuple[float, float]:
        """Move the template: direction 1-6, 60° apart, 4 straight away from the firer (rules.zones)."""
        from rules.zones import deviate

        return deviate(aim, firer, direction, distance_mm)


# -- one group of impacts: saves, damage tests, casualties -----------------------------------


@dataclass(frozen=True)
class Group:
    """Models that share impacts: a target unit's infantry, one vehicle, or one model in the fire zone.

    ``models`` in removal order (nearest the firing leader first); ``save`` the
    cover save needed (``None`` without cover); ``damage_needed`` from the table.
    """

    unit_id: str
    models: tuple[Model, ...]
    impacts: int
    save: int | None
    damage_needed: int | None | str
    damage: int
    structure: tuple[int, ...]  # structure points left, per model

    def _after_damage(self, successes: int) -> tuple[tuple[str, ...], list[int]]:
        """Apply ``successes`` damage tests in removal order: the models removed, points left."""
        left = list(self.structure)
        dead: list[str] = []
        i = 0
        for _ in range(successes):
            if i >= len(left):
                break
            left[i] -= self.damage
            if left[i] <= 0:
                dead.append(self.models[i].model_id)
                i += 1
        return tuple(dead), left

    def casualties(self, successes: int) -> tuple[str, ...]:
        """Return the models removed by ``successes`` successful damage tests, in order."""
        return self._after_damage(successes)[0]

    def points_left(self, successes: int) -> dict[str, int]:
        """Return the structure points left on surviving models after ``successes`` damage tests."""
        left = self._after_damage(successes)[1]
        return {m.model_id: p for m, p in zip(self.models, left) if p > 0}

    def odds(self) -> Distribution:
        """Return the exact distribution of the number of models this group loses."""
        p_save = success_chance(self.save) if self.save is not None else Fraction(0)
        p_dmg = _p(self.damage_needed)
        saved = binomial(self.impacts, p_save)
        return saved.bind(lambda s: binomial(self.impacts - s, p_dmg)).map(lambda k: len(self.casualties(k)))

    def roll(self, dice: Dice) -> GroupOutcome:
        """Roll the saves and damage tests of this group; return what they gave."""
        save_dice: tuple[int, ...] = ()
        if self.save is not None and self.impacts:
            save_dice = dice.roll_many(self.impacts, 6)
        saved = sum(1 for v in save_dice if v >= self.save) if self.save is not None else 0
        left = self.impacts - saved
        dmg_dice: tuple[int, ...] = ()
        if self.damage_needed is None:
            successes = 0
        elif self.damage_needed == AUTO_SUCCESS:
            successes = left
        else:
            dmg_dice = dice.roll_many(left, 6)
            successes = sum(1 for v in dmg_dice if v >= int(self.damage_needed))
        return GroupOutcome(self.unit_id, self.impacts, save_dice, saved, dmg_dice, successes,
                            self.casualties(successes), self.points_left(successes))


def _p(needed: int | None | str) -> Fraction:
    if needed is None:
        return Fraction(0)
    if needed == AUTO_SUCCESS:
        return Fraction(1)
    return success_chance(int(needed))


def hit_odds(dice_count: int, needed: int | None | str, rerolls: int) -> Distribution:
    """Return the exact distribution of successes of ``dice_count`` shooting dice with re-rolls."""
    if needed is None:
        return Distribution.certain(0)
    if needed == AUTO_SUCCESS:
        return Distribution.certain(dice_count)
    return binomial(dice_count, with_rerolls(success_chance(int(needed)), rerolls))


def roll_hits(dice: Dice, dice_count: int, needed: int | None | str, rerolls: int) -> dict[str, Any]:
    """Roll the shooting test: every die, then the failures again up to ``rerolls`` times."""
    if needed is None:
        return {"rounds": [], "successes": 0, "failures": dice_count}
    if needed == AUTO_SUCCESS:
        return {"rounds": [], "successes": dice_count, "failures": 0}
    rounds = [list(dice.roll_many(dice_count, 6))]
    successes = sum(1 for v in rounds[0] if v >= int(needed))
    failures = dice_count - successes
    for _ in range(rerolls):
        if failures == 0:
            break
        again = list(dice.roll_many(failures, 6))
        rounds.append(again)
        hit = sum(1 for v in again if v >= int(needed))
        successes += hit
        failures -= hit
    return {"rounds": rounds, "successes": successes, "failures": failures}


# -- the salvo ------------------------------------------------------------------------------------


def _firing_unit(plan: TablePlan, request: Mapping[str, Any]) -> tuple[Unit, Model, Weapon, int]:
    firing = plan.unit(req_str(request, "firing"))
    leader = plan.leader_of(firing.unit_id)
    if leader is None:
        raise IllegalActionError(f"unit {firing.unit_id!r} has no leader on the table; AT-43 measures the range "
                                 f"from the leader ({SRC_TEST}): name one with 'lead {firing.unit_id} MODEL'",
                                 msg_id="at43.no_leader", params={"unit": firing.unit_id})
    carried = sorted({w for m in plan.models_of(firing.unit_id) for w in (m.weapons or ())})
    name = request.get("weapon")
    if name is None:
        if len(carried) != 1:
            raise InvalidActionError(f"choose the weapon of this salvo (weapon); unit {firing.unit_id!r} "
                                     f"carries: {', '.join(carried) or '(none)'}", msg_id="shoot.choose_weapon",
                                     params={"who": firing.unit_id, "weapons": ", ".join(carried)})
        name = carried[0]
    if name not in carried:
        raise InvalidActionError(f"unit {firing.unit_id!r} carries no {name!r}; its weapons are: "
                                 f"{', '.join(carried) or '(none)'}", msg_id="at43.not_carried",
                                 params={"unit": firing.unit_id, "weapon": str(name), "weapons": carried})
    fired = list(firing.extra.get("salvoes", ()))
    already = sum(1 for s in fired if s.get("weapon") == name)
    copies = max((m.weapons or ()).count(name) for m in plan.models_of(firing.unit_id))
    if already >= copies:
        raise IllegalActionError(
            f"unit {firing.unit_id!r} has already fired its {name} this activation ({already} salvo"
            f"{'es' if already > 1 else ''}; each copy of a weapon fires once, {SRC_NEW_SALVO}); "
            f"activate the unit again next turn", msg_id="at43.already_fired",
            params={"unit": firing.unit_id, "weapon": str(name), "salvoes": already})
    return firing, leader, weapon_of(plan, name), already


def _weapon_word(name: str) -> Any:
    """A weapon's name as a step parameter: the roster's name, or the artillery strike in the player's language."""
    return msg("at43.artillery_strike") if name == ARTILLERY_WEAPON else name


def _needed(weapon: Weapon, distance_mm: float, what: str, how: str = "edge", *, pair: tuple[str, str] = ("", ""),
            leaders: bool = False) -> tuple[int | None | str, int | None, list[Step]]:
    band = portee(distance_mm)
    where = "base edge to base edge" if how == "edge" else "centre to centre"
    steps = [Step("range", f"{what}: {fmt_len(distance_mm / MM_PER_CM, 'cm')} ({where}), portée {band} "
                           f"(bands of 10 cm)", SRC_RANGE, value=band, option=f"measure={how}",
                  msg="at43.range_band_leaders" if leaders else "at43.range_band",
                  params={"a": pair[0], "b": pair[1], "cm": round(distance_mm / MM_PER_CM, 1), "how": how_msg(how),
                          "band": band})]
    if weapon.locked_roll is not None:
        steps.append(Step("locked weapon", f"{weapon.name} is a locked weapon: {needed_text(weapon.locked_roll)} "
                                           f"whatever the range", SRC_TEST, value=weapon.locked_roll,
                          msg="at43.locked_roll", params={"weapon": _weapon_word(weapon.name),
                                                          "needed": need_msg(weapon.locked_roll)}))
        return weapon.locked_roll, None, steps
    if weapon.precision is None:
        raise InvalidActionError(f"{weapon.name} has neither a précision nor a locked roll; fix the roster",
                                 msg_id="at43.no_precision", params={"weapon": weapon.name})
    diff = int(weapon.precision) - band
    needed = at43_roll_needed(diff)
    steps.append(Step("shooting test", f"précision {weapon.precision} - portée {band} = {diff:+d}: "
                                       f"{needed_text(needed)} on the universal table", SRC_TABLE, value=diff,
                      msg="at43.shooting_test", params={"precision": int(weapon.precision), "band": band,
                                                        "diff": f"{diff:+d}", "needed": need_msg(needed)},
                      doc=DOC_TABLE))
    return needed, diff, steps


def shoot(plan: TablePlan, request: Mapping[str, Any], dice: Dice | None) -> Resolution:
    """Resolve one salvo: ``firing`` unit, ``weapon``, ``target`` (a unit; a model for indirect fire).

    Optional: ``cover`` (``yes``/``no``/``auto``: the target unit's cover, judged by
    the players when they disagree with the plan), ``no_sight`` (firers the players
    see blocked), ``alert`` (a unit in "État d'alerte" fires during the enemy's
    activation, at the activated unit only, after it moved; it loses the attitude
    and the "À couvert !" 3+ save does not apply).
    """
    if req_bool(request, "alert"):
        return _alert(plan, request, dice)
    firing, leader, weapon, copy_index = _firing_unit(plan, request)
    if weapon.indirect:
        return _indirect(plan, request, dice, firing, leader, weapon, copy_index)
    return _direct(plan, request, dice, firing, leader, weapon, copy_index)


SRC_ALERT = "AT-43, Tirs: Tirs en état d'alerte"


def _alert(plan: TablePlan, request: Mapping[str, Any], dice: Dice | None) -> Resolution:
    firing = plan.unit(req_str(request, "firing"))
    target = req_str(request, "target")
    if firing.extra.get("attitude") != "alerte":
        raise IllegalActionError(f"unit {firing.unit_id!r} is not in the État d'alerte attitude ({SRC_ALERT})",
                                 msg_id="at43.alert_not_on_alert", params={"unit": firing.unit_id})
    active = AT43State.of(plan).active_unit
    if target != active:
        raise IllegalActionError(f"alert fire may only target the unit being activated ({active or 'none'}), "
                                 f"not {target!r} ({SRC_ALERT})",
                                 msg_id="at43.alert_not_active" if active else "at43.alert_none_active",
                                 params={"active": str(active or ""), "target": target})
    if not req_bool(request, "target_moved", True):
        raise IllegalActionError(f"{target!r} did not move: alert fire cannot target it ({SRC_ALERT})",
                                 msg_id="at43.alert_not_moved", params={"target": target})
    plain = {k: v for k, v in request.items() if k != "alert"}
    firing_now = (firing if "salvoes" not in firing.extra
                  else replace(firing, extra=with_extra(firing, salvoes=None).extra))
    res = shoot(plan.with_unit(firing_now), {**plain, "alert_fire": True}, dice)
    steps = (Step("alert fire", f"{firing.unit_id} fires on alert at {target}, at the end of its move; "
                                f"casualties are removed at once and the unit leaves the État d'alerte",
                  SRC_ALERT, msg="at43.alert_fire", params={"unit": firing.unit_id, "target": target}),) + res.steps
    after = res.plan_after
    if after is not None:
        unit = after.unit(firing.unit_id)
        extra = dict(thaw(unit.extra))
        extra.pop("attitude", None)
        extra["salvoes"] = list(thaw(firing.extra.get("salvoes", [])))
        after = after.with_unit(replace(unit, extra=freeze(extra)))
    return replace(res, steps=steps, plan_after=after)


def _armed(plan: TablePlan, firing: Unit, weapon: Weapon, copy_index: int) -> list[Model]:
    return [m for m in plan.models_of(firing.unit_id) if (m.weapons or ()).count(weapon.name) > copy_index]


def _direct(plan: TablePlan, request: Mapping[str, Any], dice: Dice | None, firing: Unit, leader: Model,
            weapon: Weapon, copy_index: int) -> Resolution:
    target = plan.unit(req_str(request, "target"))
    if target.side == firing.side:
        raise IllegalActionError(f"{target.unit_id!r} is on the firer's side ({target.side}); "
                                 f"direct fire targets an enemy unit ({SRC_TARGET})", msg_id="at43.own_side",
                                 params={"target": target.unit_id, "side": target.side})
    t_models = plan.models_of(target.unit_id)
    t_leader = plan.leader_of(target.unit_id) or (t_models[0] if t_models else None)
    vehicle = request.get("vehicle")
    if vehicle is not None:
        chosen = plan.model(str(vehicle))
        if chosen.unit_id != target.unit_id or _stat(plan, chosen, "category") != "vehicle":
            raise InvalidActionError(f"{chosen.model_id!r} is not a vehicle of unit {target.unit_id!r}: only one "
                                     f"vehicle of a vehicle unit may be targeted alone ({SRC_TARGET})",
                                     msg_id="at43.not_vehicle", params={"model": chosen.model_id,
                                                                         "unit": target.unit_id})
        t_models, t_leader = (chosen,), chosen
    if t_leader is None:
        raise IllegalActionError(f"unit {target.unit_id!r} has no model left on the table", msg_id="at43.unit_empty",
                                 params={"unit": target.unit_id})
    geo = Geometry(plan)
    steps = [Step("salvo", f"{firing.unit_id} fires its {weapon.name}"
                           f"{' (second copy)' if copy_index else ''} at unit {target.unit_id}: every model "
                           f"carrying it fires at once", SRC_SALVO,
                  msg="at43.salvo_second" if copy_index else "at43.salvo",
                  params={"unit": firing.unit_id, "weapon": weapon.name, "target": target.unit_id})]
    fz = geo.fire_zone(firing.unit_id, target.unit_id, [m.model_id for m in t_models] if vehicle else None)
    if vehicle is not None:
        steps.append(Step("target", f"one vehicle targeted alone: {t_leader.model_id}; the fire zone and the range "
                                    f"are taken from it", SRC_TARGET, msg="at43.vehicle_alone",
                          params={"model": t_leader.model_id}))
    armed = _armed(plan, firing, weapon, copy_index)
    in_zone, skipped = [], [f"{mid} ({why})" for mid, why in fz.skipped]
    skipped_msgs = [msg("at43.skipped", model=mid, why=skip_msg(why)) for mid, why in fz.skipped]
    for mid in fz.caught:
        m = plan.model(mid)
        if plan.unit(m.unit_id).extra.get("attitude") == "genou-en-terre":
            skipped.append(f"{mid} (its unit kneels: Genou en terre)")
            skipped_msgs.append(msg("at43.skipped", model=mid, why=msg("at43.skip.kneels")))
        else:
            in_zone.append(m)
    no_sight = set(req_list(request, "no_sight"))
    seen_targets = [*in_zone, *t_models]
    firers, blind = [], []
    blind_msgs = []
    if seen_targets:  # each firer's first look, traced at once
        geo.trace_first([(m, seen_targets[0]) for m in armed if m.model_id not in no_sight])
    for m in armed:
        if m.model_id in no_sight:
            blind.append(f"{m.model_id} (the players say so)")
            blind_msgs.append(msg("at43.blind_players", model=m.model_id))
        elif not any(geo.sees(m, t) for t in seen_targets):
            hiding = geo.blockers(m, seen_targets)
            blind.append(f"{m.model_id} (hidden by {', '.join(hiding) or 'terrain'})")
            blind_msgs.append(msg("at43.blind_hidden", model=m.model_id, by=hiding or msg("at43.terrain")))
        else:
            firers.append(m)
    if blind:
        steps.append(Step("who can shoot", f"no line of sight to the fire zone or the target: "
                                           f"{'; '.join(blind)} cannot fire", SRC_TEST, value=len(blind),
                          msg="at43.blind", params={"models": blind_msgs}))
    steps.append(Step("firers", f"{len(firers)} model(s) fire: {', '.join(m.model_id for m in firers) or 'none'}",
                      SRC_TEST, value=len(firers), msg="at43.firers",
                      params={"n": len(firers), "models": ids_or_nobody([m.model_id for m in firers])}))
    distance = geo.distance_mm(leader, t_leader)
    needed, diff, more = _needed(weapon, distance, f"leader {leader.model_id} to leader {t_leader.model_id}",
                                 geo.how, pair=(leader.model_id, t_leader.model_id), leaders=True)
    steps += more
    count = weapon.rate * len(firers)
    steps.append(Step("dice", f"cadence {weapon.rate} x {len(firers)} firer(s) = {count} dice, failures "
                              f"re-rolled {weapon.rerolls} time(s)", SRC_TEST, value=count, msg="at43.dice",
                      params={"rate": weapon.rate, "firers": len(firers), "count": count,
                              "rerolls": weapon.rerolls}))
    if needed is None:
        steps.append(Step("out of range", "automatic failure: the salvo is lost and hits nothing", SRC_TEST,
                          msg="at43.salvo_lost"))
    if weapon.locked_roll is not None and in_zone:
        steps.append(Step("locked weapon", "a locked weapon hits only its target: the fire zone is ignored",
                          SRC_DIRECT, msg="at43.locked_no_zone"))
        in_zone = []
    unseen = [m for m in in_zone if not any(geo.sees(f, m) for f in firers)]
    if unseen:
        skipped += [f"{m.model_id} (no firer sees it)" for m in unseen]
        skipped_msgs += [msg("at43.skipped", model=m.model_id, why=msg("at43.skip.unseen")) for m in unseen]
        in_zone = [m for m in in_zone if m not in unseen]
    if in_zone:
        steps.append(Step("fire zone", f"caught in the fire zone (convex hull of both units), one impact each "
                                       f"in this order: {', '.join(m.model_id for m in in_zone)}", SRC_ZONE,
                          value=len(in_zone), option="fire_zone=hull", msg="at43.zone_caught",
                          params={"models": [m.model_id for m in in_zone]}))
    else:
        steps.append(Step("fire zone", "nobody else in the fire zone: every impact goes to the target unit",
                          SRC_ZONE, value=0, option="fire_zone=hull", msg="at43.zone_empty"))
    if skipped:
        steps.append(Step("fire zone", f"ignored in the fire zone: {'; '.join(skipped)}", SRC_DIRECT,
                          msg="at43.zone_ignored", params={"models": skipped_msgs}))
    cover_for = _cover_decider(plan, request, geo, firing, target, steps)
    groups_for = _allocator(plan, geo, leader, weapon, target, in_zone, cover_for, steps, t_models)
    hits = hit_odds(count, needed, weapon.rerolls)
    return _finish(plan, "shoot", steps, dice, count, needed, weapon, hits, groups_for, firing, target.unit_id,
                   prone_survivors=False, damage_on=t_leader)


def _cover_decider(plan: TablePlan, request: Mapping[str, Any], geo: Geometry, firing: Unit, target: Unit,
                   steps: list[Step]) -> Any:
    """Return ``unit id -> save needed or None``: at least half the unit in cover or hidden (AT-43, Couvert)."""
    override = req_choice(request, "cover", ("yes", "no", "auto"), "auto")
    cache: dict[str, int | None] = {}

    def cover(unit_id: str) -> int | None:
        if unit_id in cache:
            return cache[unit_id]
        unit = plan.unit(unit_id)
        braced = unit.extra.get("attitude") == "a-couvert" and not request.get("alert_fire")
        save = COVER_SAVE_ATTITUDE if braced else COVER_SAVE
        if unit.extra.get("attitude") == "a-couvert" and not braced:
            steps.append(Step("cover save", "the \u00ab À couvert ! \u00bb 3+ save never applies against alert fire",
                              SRC_COVER, msg="at43.braced_not_alert"))
        if unit_id == target.unit_id and override != "auto":
            cache[unit_id] = save if override == "yes" else None
            steps.append(Step("cover", f"the players judge unit {unit_id} {'in' if override == 'yes' else 'not in'} "
                                       f"cover", SRC_COVER, value=override,
                              msg="at43.cover_judged_in" if override == "yes" else "at43.cover_judged_out",
                              params={"unit": unit_id}))
        else:
            cs = geo.cover(firing.unit_id, unit_id)
            steps.extend(cs.steps)
            state = cs.state
            sheltered = [mid for mid, st in state.items() if st != "exposed"]
            ok = bool(state) and 2 * len(sheltered) >= len(state)
            cache[unit_id] = save if ok else None
            steps.append(Step("cover", f"unit {unit_id}: {len(sheltered)} of {len(state)} in cover or hidden"
                                       f"{' (' + ', '.join(sheltered) + ')' if sheltered else ''}: "
                                       f"{'saves' if ok else 'no saves (fewer than half)'}", SRC_COVER,
                              value=len(sheltered),
                              msg="at43.unit_cover_saves" if ok else (
                                  "at43.unit_cover_no_saves_some" if sheltered else "at43.unit_cover_no_saves"),
                              params={"unit": unit_id, "n": len(sheltered), "size": len(state),
                                      "models": sheltered}))
        if cache[unit_id] is not None:
            attitude = " (\u00ab À couvert ! \u00bb attitude)" if cache[unit_id] == COVER_SAVE_ATTITUDE else ""
            steps.append(Step("cover save", f"unit {unit_id} cancels each impact on {cache[unit_id]}+{attitude}",
                              SRC_COVER, value=cache[unit_id],
                              msg="at43.cover_save_braced" if attitude else "at43.cover_save",
                              params={"unit": unit_id, "needed": need_msg(cache[unit_id])}))
        return cache[unit_id]

    return cover


def _damage_needed(plan: TablePlan, weapon: Weapon, m: Model) -> tuple[int | None | str, int]:
    protection = int(_stat(plan, m, "protection"))
    diff = weapon.penetration - protection
    return at43_roll_needed(diff), diff


def _structure_left(plan: TablePlan, m: Model) -> int:
    return int(_stat(plan, m, "structure", 1)) - int(m.extra.get("damage_taken", 0))


def _allocator(plan: TablePlan, geo: Geometry, leader: Model, weapon: Weapon, target: Unit,
               in_zone: Sequence[Model], cover_for: Any, steps: list[Step], targets: Sequence[Model]) -> Any:
    """Return ``hits -> groups``: the fire zone first, one impact each, the rest to the target unit."""
    t_models = sorted(targets, key=lambda m: (geo.distance_mm(leader, m), m.model_id))
    firers = [m for m in plan.models_of(leader.unit_id)]
    hidden = [m for m in t_models if not any(geo.sees(f, m) for f in firers)]
    if hidden:
        steps.append(Step("hidden", f"hidden from every model of {leader.unit_id}, cannot be hit: "
                                    f"{', '.join(m.model_id for m in hidden)}", SRC_COVER, msg="at43.hidden_targets",
                          params={"unit": leader.unit_id, "models": [m.model_id for m in hidden]}))
    removable = [m for m in t_models if m not in hidden]
    explained: set[str] = set()

    def explain_damage(m: Model, needed: Any, diff: int) -> None:
        key = m.profile or m.unit_id
        if key in explained:
            return
        explained.add(key)
        steps.append(Step("damage test", f"pénétration {weapon.penetration} - protection "
                                         f"{_stat(plan, m, 'protection')} ({m.profile}) = {diff:+d}: "
                                         f"{needed_text(needed)}; each success deals {weapon.damage} point(s)",
                          SRC_DAMAGE, value=diff, msg="at43.damage_test",
                          params={"penetration": weapon.penetration, "protection": int(_stat(plan, m, "protection")),
                                  "profile": str(m.profile), "diff": f"{diff:+d}", "needed": need_msg(needed),
                                  "damage": weapon.damage}))

    def groups(hits: int) -> list[Group]:
        out: list[Group] = []
        for m in in_zone[:hits]:
            needed, diff = _damage_needed(plan, weapon, m)
            explain_damage(m, needed, diff)
            out.append(Group(m.unit_id, (m,), 1, cover_for(m.unit_id), needed, weapon.damage,
                             (_structure_left(plan, m),)))
        rest = max(0, hits - len(in_zone))
        if rest and removable:
            vehicles = [m for m in removable if _stat(plan, m, "category") == "vehicle"]
            save = cover_for(target.unit_id)
            if vehicles and len(vehicles) == len(removable):
                n = len(vehicles)
                for i, v in enumerate(vehicles):
                    share = rest // n + (1 if i < rest % n else 0)
                    if share:
                        needed, diff = _damage_needed(plan, weapon, v)
                        explain_damage(v, needed, diff)
                        out.append(Group(target.unit_id, (v,), share, save, needed, weapon.damage,
                                         (_structure_left(plan, v),)))
            else:
                needed, diff = _damage_needed(plan, weapon, removable[0])
                explain_damage(removable[0], needed, diff)
                out.append(Group(target.unit_id, tuple(removable), rest, save, needed, weapon.damage,
                                 tuple(_structure_left(plan, m) for m in removable)))
        return out

    return groups


def _finish(plan: TablePlan, action: str, steps: list[Step], dice: Dice | None, count: int, needed: Any,
            weapon: Weapon, hits: Distribution, groups_for: Any, firing: Unit, target_id: str, *,
            prone_survivors: bool, deviation: Any = None, damage_on: Model | None = None,
            record: bool = True) -> Resolution:
    """Odds (exact), then, with dice, the roll and the game after it."""
    def total(h: int) -> Distribution:
        dist = Distribution.certain(0)
        for g in groups_for(h):
            dist = dist.convolve(g.odds())
        return dist

    if deviation is None:
        losses = hits.bind(total)
        odds = {"hits": hits, "models removed": losses}
    else:
        losses = deviation["odds"]()
        odds = {"hits": hits, "models removed": losses}
    needed_map = {"to hit": need_said(needed)}
    if damage_on is not None:
        needed_map[f"damage ({damage_on.profile})"] = need_said(_damage_needed(plan, weapon, damage_on)[0])
    if dice is None:
        return Resolution(RULESET, action, tuple(steps), needed_map, odds)
    rolled = roll_hits(dice, count, needed, weapon.rerolls)
    template: TemplateOutcome | None = None
    if deviation is not None:
        groups, template = deviation["roll"](dice, rolled)
    else:
        groups = groups_for(rolled["successes"])
    outcomes = tuple(g.roll(dice) for g in groups)
    removed = [mid for o in outcomes for mid in o.removed]
    thrown: list[str] | None = None
    after = plan
    for o in outcomes:
        for mid, left in o.points_left.items():
            m = after.model(mid)
            lost = int(_stat(after, m, "structure", 1)) - left
            if lost != int(m.extra.get("damage_taken", 0)):
                after = after.with_model(with_extra(m, damage_taken=lost))
    if prone_survivors:
        thrown = []
        for g in groups:
            for m in g.models:
                if m.model_id not in removed and _stat(after, m, "category") == "infantry":
                    after = after.with_model(with_status(after.model(m.model_id), add=("prone",)))
                    thrown.append(m.model_id)
        if thrown:
            steps.append(Step("thrown prone", f"infantry hit by indirect fire and still standing lie down: "
                                              f"{', '.join(thrown)}", SRC_INDIRECT, msg="at43.thrown_prone",
                              params={"models": thrown}))
    for mid in removed:
        after = remove_model(after, mid)
    if record:
        salvoes = list(thaw(firing.extra.get("salvoes", [])))
        salvoes.append({"weapon": weapon.name, "target": target_id})
        after = after.with_unit(with_extra(after.unit(firing.unit_id), salvoes=salvoes))
    steps.append(Step("result", f"{rolled['successes']} success(es); removed: {', '.join(removed) or 'nobody'}",
                      SRC_DAMAGE, value=len(removed), msg="at43.result",
                      params={"successes": rolled["successes"], "removed": ids_or_nobody(removed)}))
    result = SalvoResult(rolled["successes"], rolled["failures"], tuple(tuple(r) for r in rolled["rounds"]),
                         outcomes, tuple(removed), None if thrown is None else tuple(thrown), template=template)
    return Resolution(RULESET, action, tuple(steps), needed_map, odds, tuple(dice.rolled), result.to_json(), after)


# -- indirect fire ------------------------------------------------------------------------------------


def _indirect(plan: TablePlan, request: Mapping[str, Any], dice: Dice | None, firing: Unit, leader: Model,
              weapon: Weapon, copy_index: int, *, dice_count: int | None = None, action: str = "shoot",
              record: bool = True) -> Resolution:
    target_id = req_str(request, "target")
    if weapon.area_cm is None:
        raise InvalidActionError(f"{weapon.name} has no aire d'effet: it cannot fire indirect; fix the roster",
                                 msg_id="at43.no_area", params={"weapon": weapon.name})
    area_cm: float = weapon.area_cm
    steps: list[Step] = []
    try:
        aim = plan.model(target_id)
    except InvalidActionError:
        unit = plan.unit(target_id)
        aim = plan.leader_of(unit.unit_id) or plan.models_of(unit.unit_id)[0]
        steps.append(Step("target", f"indirect fire targets one model: {aim.model_id}, leader of {target_id}",
                          SRC_TARGET, msg="at43.indirect_target", params={"model": aim.model_id, "unit": target_id}))
    geo = Geometry(plan)
    firers = _armed(plan, firing, weapon, copy_index)
    steps.insert(0, Step("salvo", f"{firing.unit_id} fires its {weapon.name} (indirect, aire d'effet "
                                  f"{fmt_len(area_cm, 'cm')}) at model {aim.model_id}; no fire zone, "
                                  f"no sight needed for each firer", SRC_INDIRECT, msg="at43.indirect_salvo",
                         params={"unit": firing.unit_id, "weapon": _weapon_word(weapon.name), "area": area_cm,
                                 "model": aim.model_id}))
    seers = [m for m in (plan.models_of(firing.unit_id) if dice_count is None else [leader]) if geo.sees(m, aim)]
    if not seers:
        raise IllegalActionError(f"no model of {firing.unit_id!r} sees {aim.model_id!r}; indirect fire needs "
                                 f"at least one ({SRC_TARGET})", msg_id="at43.indirect_unseen",
                                 params={"unit": firing.unit_id, "model": aim.model_id})
    needed, diff, more = _needed(weapon, geo.distance_mm(leader, aim), f"{leader.model_id} to {aim.model_id}",
                                 geo.how, pair=(leader.model_id, aim.model_id))
    steps += more
    if dice_count is None:
        count = weapon.rate * len(firers)
        steps.append(Step("dice", f"cadence {weapon.rate} x {len(firers)} firer(s) = {count} dice, failures "
                                  f"re-rolled {weapon.rerolls} time(s)", SRC_TEST, value=count, msg="at43.dice",
                          params={"rate": weapon.rate, "firers": len(firers), "count": count,
                                  "rerolls": weapon.rerolls}))
    else:
        count = dice_count
        steps.append(Step("dice", f"{count} dice", SRC_ARTILLERY, value=count, msg="at43.dice_count",
                          params={"count": count}))
    steps.append(Step("template", f"radius = aire {fmt_len(area_cm, 'cm')} x successes (the aire when "
                                  f"none), at most 10 cm and then two impacts; 1 cm of deviation per failure; "
                                  f"no cover against it", SRC_INDIRECT, msg="at43.template_rule",
                          params={"area": area_cm}))
    if needed is None:
        steps.append(Step("out of range", "automatic failure: the shot is lost and hits nothing", SRC_INDIRECT,
                          msg="at43.shot_lost"))
    explained: set[str] = set()

    def groups_at(centre: tuple[float, float], successes: int) -> list[Group]:
        if needed is None:
            return []
        raw = area_cm * successes if successes > 0 else area_cm
        radius_mm = template_radius_cm(area_cm, successes) * MM_PER_CM
        impacts = 2 if raw > TEMPLATE_CAP_CM else 1
        under = sorted(geo.template(centre, radius_mm), key=lambda m: (geo.distance_mm(leader, m), m.model_id))
        out = []
        for m in under:
            nd, d = _damage_needed(plan, weapon, m)
            if (m.profile or "") not in explained:
                explained.add(m.profile or "")
                steps.append(Step("damage test", f"pénétration {weapon.penetration} - protection "
                                                 f"{_stat(plan, m, 'protection')} ({m.profile}) = {d:+d}: "
                                                 f"{needed_text(nd)}", SRC_DAMAGE, value=d,
                                  msg="at43.damage_test_indirect",
                                  params={"penetration": weapon.penetration,
                                          "protection": int(_stat(plan, m, "protection")), "profile": str(m.profile),
                                          "diff": f"{d:+d}", "needed": need_msg(nd)}))
            out.append(Group(m.unit_id, (m,), impacts, None, nd, weapon.damage, (_structure_left(plan, m),)))
        return out

    def centre_after(successes: int, direction: int | None) -> tuple[float, float]:
        failures = count - successes
        if direction is None or failures == 0 or needed == AUTO_SUCCESS:
            return aim.position_mm
        return geo.deviate(aim.position_mm, leader.position_mm, direction, failures * MM_PER_CM)

    hits = hit_odds(count, needed, weapon.rerolls)

    def odds() -> Distribution:
        def after_hits(s: int) -> Distribution:
            if needed is None:
                return Distribution.certain(0)
            if count - s == 0 or needed == AUTO_SUCCESS:
                return _sum(groups_at(aim.position_mm, s))
            return die(6).bind(lambda d: _sum(groups_at(centre_after(s, d), s)))
        return hits.bind(after_hits)

    def roll(d: Dice, rolled: Mapping[str, Any]) -> tuple[list[Group], TemplateOutcome]:
        s = rolled["successes"]
        direction = None
        if needed is not None and needed != AUTO_SUCCESS and rolled["failures"] > 0:
            direction = d.roll(6)
        centre = centre_after(s, direction)
        radius = template_radius_cm(area_cm, s)
        groups = groups_at(centre, s)
        info = TemplateOutcome((round(centre[0], 3), round(centre[1], 3)), radius, direction,
                               rolled["failures"] if direction else 0,
                               2 if (area_cm * s if s else area_cm) > TEMPLATE_CAP_CM else 1,
                               tuple(g.models[0].model_id for g in groups))
        if needed is not None:
            steps.append(Step("template", f"{s} success(es): radius {fmt_len(radius, 'cm')}"
                                          f"{', two impacts each' if info.impacts_each == 2 else ''}; "
                                          + (f"deviates {rolled['failures']} cm in direction {direction}"
                                             if direction else "stays on the target")
                                          + f"; under it: {', '.join(info.under) or 'nobody'}",
                              SRC_INDIRECT, value=radius, option="deviation=toward-firer",
                              msg=("at43.template_two" if info.impacts_each == 2 else "at43.template_one")
                              + ("_moved" if direction else ""),
                              params={"successes": s, "radius": radius, "cm": rolled["failures"],
                                      "direction": direction or 0, "under": ids_or_nobody(info.under)}))
        return groups, info

    return _finish(plan, action, steps, dice, count, needed, weapon, hits, lambda h: [], firing, aim.model_id,
                   prone_survivors=True, deviation={"odds": odds, "roll": roll}, record=record)


def _sum(groups: Sequence[Group]) -> Distribution:
    dist = Distribution.certain(0)
    for g in groups:
        dist = dist.convolve(g.odds())
    return dist


# -- activation -----------------------------------------------------------------------------------------


def activate(plan: TablePlan, request: Mapping[str, Any], dice: Dice | None) -> Resolution:
    """Start a unit's activation: each of its weapons may fire one new salvo (per copy carried).

    No dice are rolled, so the result and the game after it come back even without
    dice: the unit's record of salvoes fired is cleared.
    """
    unit = plan.unit(req_str(request, "unit"))
    carried = sorted({w for m in plan.models_of(unit.unit_id) for w in (m.weapons or ())})
    steps = [Step("activation", f"unit {unit.unit_id} is activated: it may fire a salvo with each of "
                                f"{', '.join(carried) or '(no weapon)'}, one weapon after the other, each at a "
                                f"target of its choice", SRC_NEW_SALVO, msg="at43.activated",
                  params={"unit": unit.unit_id, "weapons": carried or msg("at43.no_weapon")})]
    after = AT43State.of(plan).with_(active_unit=unit.unit_id).on(plan.with_unit(with_extra(unit, salvoes=None)))
    return Resolution(RULESET, "activate", tuple(steps), result=Activated(unit.unit_id).to_json(), plan_after=after)


def lead(plan: TablePlan, request: Mapping[str, Any], dice: Dice | None) -> Resolution:
    """Name ``model`` the new leader of ``unit`` (after its leader fell; ranges are measured from it).

    The shooting chapter measures every range from the leader but does not say who
    takes over: the players choose, and this records their choice.
    """
    unit = plan.unit(req_str(request, "unit"))
    m = plan.model(req_str(request, "model"))
    if m.unit_id != unit.unit_id:
        raise InvalidActionError(f"{m.model_id!r} is not a model of unit {unit.unit_id!r}; its models are: "
                                 f"{', '.join(x.model_id for x in plan.models_of(unit.unit_id))}",
                                 msg_id="at43.not_of_unit", params={"model": m.model_id, "unit": unit.unit_id})
    steps = [Step("leader", f"{m.model_id} now leads {unit.unit_id}: its ranges are measured from it "
                            f"(the players' choice)", SRC_TEST, msg="at43.new_leader",
                  params={"model": m.model_id, "unit": unit.unit_id})]
    after = plan.with_unit(replace(unit, leader=m.model_id))
    return Resolution(RULESET, "lead", tuple(steps), result=NewLeader(m.model_id).to_json(), plan_after=after)


SRC_ARTILLERY = "AT-43, Tirs: Frappes d'artillerie"
ARTILLERY_WEAPON = "artillery strike"  # the weapon an artillery strike fires (named in French at the edges)
ARTILLERY_PC = 3


def artillery(plan: TablePlan, request: Mapping[str, Any], dice: Dice | None) -> Resolution:
    """Call an artillery strike (Frappes d'artillerie): once per turn, 3 PC, indirect fire with a fixed roll.

    ``observer``: an officer or leader who sees the ``target`` model; the mission gives
    ``roll`` (the fixed result needed, 2-6), ``dice``, ``area_cm``, ``penetration`` and
    ``damage`` (default 1). The template deviates away from the observer's side.
    """
    observer = plan.model(req_str(request, "observer"))
    unit = plan.unit(observer.unit_id)
    if unit.leader != observer.model_id and (observer.role or "") not in ("officer", "leader"):
        raise IllegalActionError(f"{observer.model_id} is neither an officer nor a leader: it cannot call "
                                 f"an artillery strike ({SRC_ARTILLERY})", msg_id="at43.art_not_officer",
                                 params={"model": observer.model_id})
    state = AT43State.of(plan)
    turn = state.turn
    if turn in state.artillery_turns:
        raise IllegalActionError(f"an artillery strike has already been called this turn ({SRC_ARTILLERY})",
                                 msg_id="at43.art_once")
    roll = req_int(request, "roll")
    if not 2 <= roll <= 6:
        raise InvalidActionError(f"roll must be the fixed result needed, 2 to 6; got {roll}", msg_id="at43.art_roll",
                                 params={"roll": roll})
    try:
        area = float(request["area_cm"])
    except (KeyError, TypeError, ValueError):
        raise InvalidActionError("an artillery strike needs area_cm, the aire d'effet the mission gives",
                                 msg_id="at43.art_area") from None
    weapon = Weapon(ARTILLERY_WEAPON, None, 1, 0, req_int(request, "penetration"), req_int(request, "damage", 1),
                    area, roll)
    count = req_int(request, "dice", 1, minimum=1)
    res = _indirect(plan, request, dice, unit, observer, weapon, 0, dice_count=count, action="artillery",
                    record=False)
    steps = (Step("artillery", f"{observer.model_id} calls a strike on a model it sees: {ARTILLERY_PC} PC, once "
                               f"per turn; fixed roll {needed_text(roll)} whatever the range", SRC_ARTILLERY,
                 msg="at43.art_call", params={"model": observer.model_id, "pc": ARTILLERY_PC,
                                              "needed": need_msg(roll)}),
             ) + res.steps
    after = res.plan_after
    if after is not None:
        now = AT43State.of(after)
        spent = {**now.command_points_spent, unit.side: now.command_points_spent.get(unit.side, 0) + ARTILLERY_PC}
        after = now.with_(artillery_turns=(*now.artillery_turns, turn), command_points_spent=spent).on(after)
    return replace(res, steps=steps, plan_after=after)


def end_turn(plan: TablePlan, request: Mapping[str, Any], dice: Dice | None) -> Resolution:
    """End the game turn: every unit may fire all its weapons again at its next activation."""
    state = AT43State.of(plan)
    state = state.with_(turn=state.turn + 1, active_unit=None)
    after = state.on(plan)
    for unit in plan.units:
        if "salvoes" in unit.extra:
            after = after.with_unit(with_extra(after.unit(unit.unit_id), salvoes=None))
    steps = [Step("turn", f"turn {state.turn} begins", SRC_NEW_SALVO, value=state.turn, msg="at43.turn",
                  params={"turn": state.turn})]
    return Resolution(RULESET, "end-turn", tuple(steps), result=TurnBegun(state.turn).to_json(), plan_after=after)


ACTIONS: Mapping[str, Action] = MappingProxyType({"shoot": shoot, "activate": activate, "lead": lead,
                                                  "artillery": artillery, "end-turn": end_turn})
