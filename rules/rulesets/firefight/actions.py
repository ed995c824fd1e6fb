"""Grimdark Future Firefight: activations, shooting, melee, wounds, morale, objectives.

Implemented from the French text (seeds/grimdark-future-firefight-fr.txt, One Page
Rules v3), with the program's rule choices (docs/rule-choices.md#firefight-1 to -5): cover
gives the *defender* +1 Defense; distances base edge to base edge. Sources below name the seed's sections.

Stats (roster ``profiles``): ``{"quality": 2-6, "defense": 2-6, "rules": [...],
"points": n}``; ``weapons``: ``{"range_in": inches (0 = melee), "attacks": n,
"rules": [...], "points": n}``. Special rules are written ``Name`` or ``Name(X)``.

Game state (``plan.state``, read and written only through
:class:`rules.rulesets.firefight.state.FirefightState`): ``round``, ``turn`` (side to activate), ``activated``
(unit ids this round), ``actions`` (unit -> action), ``fatigued`` (unit ids),
``first`` (side that starts the round), ``finished_first``, ``objectives``
(objective id -> side or ``null``), ``starting_units`` (side -> count),
``morale_due``, ``game_over``, ``winner``, ``deployment_edges`` (side -> top,
bottom, left, right). Model wound markers live in ``model.extra["wounds"]``;
shaken models carry the status ``shaken``; Caster tokens and used Limited weapons
live in ``unit.extra`` (``spell_tokens``, ``limited_used``).

The dice maths (one die, a batch of attacks, wounds on a unit, exact odds and rolls)
live in :mod:`rules.rulesets.firefight.dice`.

Dice order when typed in: to-hit dice (models in file order, then attacks), Impact
dice, defence dice hit by hit (a Bane re-roll right after its 6), Regeneration dice,
then the wound-effects die; a Blast share of another unit follows (its defences,
Regeneration, wound-effects die); in melee the strike back follows the charge.

Examples
--------
>>> SPECIAL_RULES["Tough"], SPECIAL_RULES["Hero"]  # Tough takes a value X, Hero none
(True, False)
>>> hit_face(6, HitSpec(quality=4, extra_on_six=1))  # re-exported from firefight_dice
(2, 0)
"""

from __future__ import annotations

import dataclasses
import math
import typing
from dataclasses import dataclass
from fractions import Fraction
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Callable, Mapping

from calibration.units import inches
from rules.dice import Dice, Distribution, die  # noqa: F401  (re-exported for the tests)
from rules.errors import IllegalActionError, InvalidActionError
from rules.explain import Step, msg
from rules.measure import model_distance_mm, point_distance_mm
from rules.plan import Model, TablePlan, Unit
from rules.resolution import Action, Resolution
from rules.rulesets.firefight.dice import (  # noqa: F401  (hit_face re-exported for the tests)
    Batch,
    Body,
    Defence,
    HitSpec,
    Rolled,
    _binomial_tuple,
    _final_outcome,
    allocate,
    defence_blocks,
    defence_fail_chance,
    effect_of,
    hit_face,
    outcome_odds,
    roll_hits,
    roll_outcome,
    survivors_odds,
    wound_roll_needed,
)
from rules.rulesets.firefight.reach import in_melee_reach, out_of_reach_above
from rules.rulesets.firefight.results import (
    ActivateResult,
    CastResult,
    Casualties,
    DeployResult,
    EndRoundResult,
    FallResult,
    JumpResult,
    MeleeResult,
    MoraleResult,
    ShootResult,
)
from rules.rulesets.firefight.state import FirefightState
from rules.rulesets.kit import (
    check_model_kit,
    check_whole_stats,
    has_rule,
    measure_how,
    other_side,
    parse_rule,
    profile_of,
    req_bool,
    req_int,
    req_list,
    req_str,
    rule_value,
    ruleset_roster_fail,
    sides_of,
    threshold,
    unit_rules,
    weapon_of,
    with_extra,
    with_status,
)
from tabletracker.words import Said

if TYPE_CHECKING:
    from rules.rulesets.firefight import Firefight

RULESET = "firefight"
SRC = "Grimdark Future Firefight"
DOC_COVER = "rule-choices.md#firefight-3"  # cover helps the target, as the English original says
SHAKEN = "shaken"
ROUNDS = 4  # Mission: the game ends after four rounds.

#: Special rules of the seed's reference list; ``True`` when the rule takes a value X.
SPECIAL_RULES: Mapping[str, bool] = MappingProxyType({
    "Ambush": False, "AP": True, "Bane": False, "Blast": True, "Caster": True, "Counter": False,
    "Deadly": True, "Fast": False, "Fear": True, "Fearless": False, "Flying": False,
    "Furious": False, "Hero": False, "Immobile": False, "Impact": True, "Indirect": False,
    "Limited": False, "Regeneration": False, "Relentless": False, "Reliable": False,
    "Rending": False, "Scout": False, "Slow": False, "Stealth": False, "Strider": False,
    "Surge": False, "Thrust": False, "Tough": True, "Unstoppable": False,
})
#: Rules that belong on a weapon (the others on a model or unit).
WEAPON_RULES = frozenset({"AP", "Bane", "Blast", "Counter", "Deadly", "Indirect", "Limited", "Reliable",
                "Rending", "Surge", "Thrust", "Unstoppable"})

MOVES_IN = MappingProxyType({"hold": 0, "advance": 6, "rush": 12, "charge": 12})
FAST_BONUS_IN = MappingProxyType({"hold": 0, "advance": 2, "rush": 4, "charge": 4})


def _src(section: str) -> str:
    return f"{SRC}, {section}"


def _inches(mm: float) -> float:
    """A distance in inches to one decimal, as a message parameter (the edges write the decimal mark)."""
    return round(mm / 25.4, 1)


def _told(s: Step) -> Any:
    """A step's message as the parameter of another (its English text when it has none)."""
    return msg(s.msg, **s.params) if s.msg else s.text


def _prefixed(s: Step, text: str, msg_id: str, **params: Any) -> Step:
    """Return ``s`` told after a prefix (a weapon, a side of a melee, a unit).

    ``text`` is the English sentence; the message nests ``s``'s as the parameter ``what``.
    """
    return Step(s.rule, text, s.source, s.value, s.option, msg=msg_id, params={**params, "what": _told(s)})


#: The parts of a melee named in its steps: English label -> message id.
LABELS: Mapping[str, str] = MappingProxyType({
    "attack": "firefight.label.attack", "strike back": "firefight.label.strike_back",
    "Counter, strikes first": "firefight.label.counter",
})


# =============================================================================== rosters

def validate_roster(roster: Any) -> None:
    """Refuse a Firefight roster with bad stats, unknown rules or weapons, or broken limits.

    ``roster`` is a :class:`rules.roster.Roster`. The optional army organisation of the
    seed (Préparation) is checked when ``roster.extra["army_points"]`` gives the army's
    value: points total, one Hero per 125 pts, 1+X copies of a unit (X per 125 pts), no
    unit above 35 %, one unit per 25 pts and one model per full 15 pts.

    Raises
    ------
    RosterError
        Naming the file and the first fault: a stat, special rule, weapon or the army organisation.
    """
    fail = ruleset_roster_fail(roster, "firefight.roster.refused")
    for name, p in roster.profiles.items():
        check_whole_stats(fail, f"profiles.{name}", p, ("quality", "defense"), minimum=2, maximum=6,
                          expect="an integer from 2 to 6 (the D6 roll needed)")
        _check_rules(p.get("rules", ()), f"profiles.{name}", fail, weapon=False)
    for name, w in roster.weapons.items():
        rng = w.get("range_in")
        if isinstance(rng, bool) or not isinstance(rng, (int, float)) or rng < 0:
            fail(f"weapons.{name}.range_in must be a number of inches >= 0 (0 for a melee weapon), got {rng!r}",
                 msg_id="firefight.roster.range", params={"weapon": name, "value": repr(rng)})
        att = w.get("attacks")
        if isinstance(att, bool) or not isinstance(att, int) or att < 1:
            fail(f"weapons.{name}.attacks must be an integer >= 1, got {att!r}",
                 msg_id="firefight.roster.attacks", params={"weapon": name, "value": repr(att)})
        _check_rules(w.get("rules", ()), f"weapons.{name}", fail, weapon=True)
    for unit in roster.units:
        _check_rules(unit.rules, f"unit {unit.unit_id!r}", fail, weapon=False)
        for m in unit.models:
            _check_rules(m.rules, f"model {m.model_id!r}", fail, weapon=False)
            check_model_kit(roster, unit, m, fail)
    army = roster.extra.get("army_points")
    if army is not None:
        _check_organisation(roster, army, fail)


def _check_rules(rules: Any, where: str, fail: Callable[..., None], *, weapon: bool) -> None:
    for text in rules:
        try:
            name, x = parse_rule(text)
        except InvalidActionError as exc:
            fail(f"{where}: {exc}",
                 msg_id="firefight.roster.rule_syntax", params={"where": where, "why": str(exc)})
        if name not in SPECIAL_RULES:
            fail(f"{where} has unknown special rule {text!r}; known: {', '.join(sorted(SPECIAL_RULES))}",
                 msg_id="firefight.roster.unknown_rule",
                 params={"where": where, "rule": text, "known": sorted(SPECIAL_RULES)})
        if SPECIAL_RULES[name] and (x is None or x < 1):
            fail(f"{where}: {name} needs a value, written {name}(X) with X >= 1, got {text!r}",
                 msg_id="firefight.roster.needs_value", params={"where": where, "rule": name, "given": text})
        if not SPECIAL_RULES[name] and x is not None:
            fail(f"{where}: {name} takes no value, got {text!r}",
                 msg_id="firefight.roster.no_value", params={"where": where, "rule": name, "given": text})


def _model_points(roster: Any, unit: Any, m: Any, fail: Callable[..., None]) -> int:
    prof = roster.profiles[roster.profile_of(unit, m)]
    pts = prof.get("points")
    if isinstance(pts, bool) or not isinstance(pts, int):
        fail(f"profile {roster.profile_of(unit, m)!r} needs integer 'points' when army_points is given",
             msg_id="firefight.roster.points", params={"profile": str(roster.profile_of(unit, m))})
    return int(pts) + sum(int(roster.weapons[w].get("points", 0)) for w in m.weapons)


def _check_organisation(roster: Any, army: Any, fail: Callable[..., None]) -> None:
    """Préparation, Organisation des armées (facultatif)."""
    if isinstance(army, bool) or not isinstance(army, int) or army <= 0:
        fail(f"extra.army_points must be a positive integer, got {army!r}",
             msg_id="firefight.roster.army_points", params={"value": repr(army)})
    unit_pts = {u.unit_id: sum(_model_points(roster, u, m, fail) for m in u.models) for u in roster.units}
    total = sum(unit_pts.values())
    if total > army:
        fail(f"the army costs {total} pts, over its agreed value of {army} pts",
             msg_id="firefight.roster.over", params={"total": total, "army": army})
    heroes = [u.unit_id for u in roster.units
              if any(has_rule(list(u.rules) + list(roster.profiles[roster.profile_of(u, m)].get("rules", ()))
                              + list(m.rules), "Hero") for m in u.models)]
    if len(heroes) > army // 125:
        fail(f"{len(heroes)} Hero units ({', '.join(heroes)}) but only one per full 125 pts is allowed "
             f"({army // 125} for {army} pts)",
             msg_id="firefight.roster.heroes",
             params={"count": len(heroes), "units": heroes, "most": army // 125, "army": army})
    copies: dict[tuple[Any, ...], list[str]] = {}
    for u in roster.units:
        key = (u.name or u.profile or "", tuple(sorted(roster.profile_of(u, m) or "" for m in u.models)))
        copies.setdefault(key, []).append(u.unit_id)
    for ids in copies.values():
        if len(ids) > 1 + army // 125:
            fail(f"{len(ids)} copies of the same unit ({', '.join(ids)}); at most 1+{army // 125} for {army} pts",
                 msg_id="firefight.roster.copies",
                 params={"count": len(ids), "units": ids, "most": 1 + army // 125, "army": army})
    for uid, pts in unit_pts.items():
        if pts * 100 > army * 35:
            fail(f"unit {uid!r} costs {pts} pts, more than 35 % of {army} pts ({army * 35 / 100:g} pts)",
                 msg_id="firefight.roster.too_costly",
                 params={"unit": uid, "points": pts, "army": army, "most": army * 35 / 100})
    if len(roster.units) > army // 25:
        fail(f"{len(roster.units)} units, but only one per 25 pts is allowed ({army // 25} for {army} pts)",
             msg_id="firefight.roster.units", params={"count": len(roster.units), "most": army // 25, "army": army})
    n_models = sum(len(u.models) for u in roster.units)
    if n_models > army // 15:
        fail(f"{n_models} models, but only one per full 15 pts is allowed ({army // 15} for {army} pts)",
             msg_id="firefight.roster.models", params={"count": n_models, "most": army // 15, "army": army})


# =============================================================================== plan helpers

def _profile(plan: TablePlan, m: Model) -> Mapping[str, Any]:
    unit = plan.unit(m.unit_id)
    return profile_of(plan, m.profile or unit.profile)


def _rules(plan: TablePlan, m: Model) -> list[str]:
    return unit_rules(plan, plan.unit(m.unit_id), m)


def _all_have(plan: TablePlan, unit_id: str, rule: str) -> bool:
    """Every model of the unit has ``rule``: the rule set's ``all_have``, which the questions read too."""
    from rules.rulesets import find_ruleset

    return find_ruleset(RULESET).all_have(plan, unit_id, rule)


def _tough(plan: TablePlan, m: Model) -> int:
    return max(1, rule_value(_rules(plan, m), "Tough") or 1)


def _removal_order(plan: TablePlan, unit_id: str, request: Mapping[str, Any]) -> list[Model]:
    models = list(plan.models_of(unit_id))
    order = req_list(request, "casualty_order")
    if order:
        ids = [m.model_id for m in models]
        unknown = [o for o in order if o not in ids]
        if unknown:
            raise InvalidActionError(f"casualty_order names {', '.join(unknown)}, not models of {unit_id}: "
                                     f"{', '.join(ids)}",
                                     msg_id="firefight.casualty_order.unknown",
                                     params={"unknown": unknown, "unit": unit_id, "models": ids})
        return [m for o in order for m in models if m.model_id == o] + [m for m in models if m.model_id not in order]
    leader = plan.unit(unit_id).leader
    return [m for m in models if m.model_id != leader] + [m for m in models if m.model_id == leader]


def _bodies(plan: TablePlan, models: list[Model]) -> tuple[Body, ...]:
    return tuple(Body(m.model_id, int(m.extra.get("wounds", 0)), _tough(plan, m), m.has_status(SHAKEN))
                 for m in models)


def _is_shaken(plan: TablePlan, unit_id: str) -> bool:
    return any(m.has_status(SHAKEN) for m in plan.models_of(unit_id))


def _state(plan: TablePlan) -> FirefightState:
    """The game state of ``plan``, typed (:mod:`rules.rulesets.firefight.state`)."""
    return FirefightState.of(plan)


def _enemy_check(plan: TablePlan, a: str, b: str) -> None:
    if plan.unit(a).side == plan.unit(b).side:
        raise IllegalActionError(f"{a} and {b} are on the same side ({plan.unit(a).side}); pick an enemy unit",
                                 msg_id="firefight.same_side", params={"a": a, "b": b, "side": plan.unit(a).side})
    for u in (a, b):
        if not plan.models_of(u):
            raise IllegalActionError(f"unit {u} has no models left on the table", msg_id="firefight.unit_no_models",
                                     params={"unit": u})


def _in(mm: float) -> str:
    return f'{mm / 25.4:.1f}"'


def _kind(t: Any) -> Any:
    from rules.rulesets import find_ruleset  # the geometry engineer's terrain kinds (rules/rulesets/firefight.py)

    return find_ruleset(RULESET).kind_of(t)


def _blocks_sight(t: Any) -> bool:
    return bool(_kind(t).sight == "blocks")


def _sees(plan: TablePlan, a: Model, b: Model) -> tuple[bool, str, list[str]]:
    """Line of sight from the geometry module (rules.visibility): any part of the base seen; why not; what blocks."""
    from rules.rulesets import find_ruleset
    from rules.visibility import line_of_sight

    s = line_of_sight(plan, a.model_id, b.model_id, ruleset=find_ruleset(RULESET))
    return s.visible, "; ".join(f"{k} {i}: {r}" for k, i, r in s.blockers), [i for _, i, _ in s.blockers]


def _inside(t: Any, p: tuple[float, float]) -> bool:
    from shapely.geometry import Point, Polygon

    return bool(t.shape == "area" and Polygon(t.points_mm).covers(Point(p)))


def _model_in_cover(plan: TablePlan, target: Model, firers: tuple[Model, ...], *,
                    obstacles: bool) -> tuple[str, tuple[str, ...]] | None:
    """Return why ``target`` is in cover from the firing unit (and the pieces), else ``None`` (Terrain, Couvert).

    The rule set's one cover rule (``RuleSet.in_cover``, also behind the ``cover`` question):
    inside a cover piece, or at least half hidden from the nearest firer that sees it.
    Indirect weapons ignore cover from obstacles (``obstacles=False``).
    """
    from rules.rulesets import find_ruleset

    rs = find_ruleset(RULESET)
    verdict = rs.in_cover(plan, firers, target, rs.resolve_options(plan), obstacles=obstacles)
    return (verdict.reason, tuple(verdict.by)) if verdict.in_cover else None


# =============================================================================== shooting

def _weapons_of(plan: TablePlan, m: Model, *, melee: bool) -> list[str]:
    out = []
    for w in m.weapons or ():
        stats = weapon_of(plan, w)
        if (float(stats.get("range_in", 0)) == 0) == melee:
            out.append(w)
    return out


Modifier = tuple[int, str, str, Mapping[str, Any]]  # value, English reason, source, the reason as a message


def _hit_spec(plan: TablePlan, firer: Model, wstats: Mapping[str, Any], mods: list[Modifier], *,
              far: bool, melee: bool, charging: bool, fatigued: bool) -> tuple[HitSpec, list[Step]]:
    rules = _rules(plan, firer)
    wrules = list(wstats.get("rules", ()))
    quality = int(_profile(plan, firer)["quality"])
    steps: list[Step] = []
    if has_rule(wrules, "Reliable"):
        steps.append(Step("Reliable", f"the weapon attacks with Quality 2+ instead of {quality}+", _src("Reliable"),
                          value=2,
                          msg="firefight.hit.reliable", params={"quality": quality}))
        quality = 2
    unstoppable = has_rule(wrules, "Unstoppable")
    total = 0
    for value, text, source, why in mods:
        if value < 0 and unstoppable:
            steps.append(Step("Unstoppable", f"ignored {value:+d}: {text}", _src("Unstoppable"), value=0,
                              msg="firefight.hit.unstoppable", params={"value": f"{value:+d}", "why": why}))
            continue
        total += value
        steps.append(Step("to-hit modifier", f"{value:+d}: {text}", source, value=value, msg="firefight.hit.modifier",
                          params={"value": f"{value:+d}", "why": why}))
    extra = 0
    if not melee and far and has_rule(rules, "Relentless"):
        extra += 1
        steps.append(Step("Relentless", "an unmodified 6 to hit on a target more than 9\" away adds one hit",
                          _src("Relentless"), value=1,
                          msg="firefight.hit.relentless"))
    if has_rule(wrules, "Surge"):
        extra += 1
        steps.append(Step("Surge", "an unmodified 6 to hit adds one hit", _src("Surge"), value=1,
                          msg="firefight.hit.surge"))
    if melee and charging and has_rule(rules, "Furious"):
        extra += 1
        steps.append(Step("Furious", "charging: an unmodified 6 to hit in melee adds one hit", _src("Furious"), value=1,
                          msg="firefight.hit.furious"))
    rending = has_rule(wrules, "Rending")
    if rending:
        steps.append(Step("Rending", "an unmodified 6 to hit gets AP(4)", _src("Rending"), msg="firefight.hit.rending"))
    six_only = melee and fatigued
    if six_only:
        steps.append(Step("Fatigue", "fatigued after charging or striking back: only unmodified 6s hit in melee",
                          _src("Mêlée, Fatigue"), msg="firefight.hit.fatigue"))
    return HitSpec(quality, total, six_only, extra, rending), steps


def _weapon_batch(plan: TablePlan, name: str, firers: list[Model], spec: HitSpec, *, melee: bool,
                  charging: bool) -> Batch:
    w = weapon_of(plan, name)
    wrules = list(w.get("rules", ()))
    ap = rule_value(wrules, "AP") or 0
    if melee and charging and has_rule(wrules, "Thrust"):
        ap += 1
    dice = sum(int(w["attacks"]) * list(f.weapons or ()).count(name) for f in firers)
    return Batch(
        weapon=name, firers=tuple(f.model_id for f in firers), dice=dice, hit=spec, ap=ap,
        blast=1, deadly=max(1, rule_value(wrules, "Deadly") or 1), bane=has_rule(wrules, "Bane"),
        ignores_regeneration=any(has_rule(wrules, r) for r in ("Bane", "Rending", "Unstoppable")),
        ignores_cover=has_rule(wrules, "Blast"),
    )


def _defence(plan: TablePlan, target_id: str, cover: tuple[tuple[str, str, tuple[str, ...]], ...], *, melee: bool,
             steps: list[Step]) -> Defence:
    """The target's Defense, +1 when most of its models are in cover from a shot.

    ``cover`` gives, model by model, the model in cover, why in English and the pieces.
    """
    models = plan.models_of(target_id)
    defense = int(_profile(plan, models[0])["defense"])
    bonus = 0
    if not melee and len(cover) * 2 > len(models):
        bonus = 1
        steps.append(Step("cover",
                          f"+1 Defense: {len(cover)} of {len(models)} models of {target_id} in cover (most of them): "
                          + "; ".join(r for _, r, _ in cover),
                          _src("Terrain, Couvert") + " (rule choice 3: the defender gains it)", value=1,
                          msg="firefight.shoot.cover",
                          params={"count": len(cover), "total": len(models), "target": target_id,
                                  "models": [msg("firefight.cover.by", model=m, by=list(by)) for m, _, by in cover]},
                          doc=DOC_COVER))
    regen = _all_have(plan, target_id, "Regeneration")
    if regen:
        steps.append(Step("Regeneration",
                          "every model has Regeneration: each wound is ignored on 5+ (not against Bane, Rending, "
                          "Unstoppable)",
                          _src("Regeneration"), msg="firefight.defence.regeneration"))
    return Defence(defense, bonus, regen)


def _shooting_batches(plan: TablePlan, request: Mapping[str, Any], firing: str, target: str,
                      st: FirefightState, steps: list[Step]
                      ) -> tuple[list[Batch], tuple[tuple[str, str, tuple[str, ...]], ...], list[str]]:
    tmodels = plan.models_of(target)
    how = measure_how(plan)
    if how != "edge":
        steps.append(Step("measuring", "distances taken centre to centre of the bases", "rule choice 1",
                          value=how, option=f"measure={how}", msg="firefight.measure.centre",
                          doc="rule-choices.md#firefight-1"))
    wanted = req_str(request, "weapon", default=None)
    moved = req_bool(request, "moved", st.actions.get(firing) == "advance")
    stealth = _all_have(plan, target, "Stealth")
    groups: dict[tuple[Any, ...], list[Model]] = {}
    specs: dict[tuple[Any, ...], HitSpec] = {}
    cover_votes: dict[str, tuple[str, tuple[str, ...]]] = {}
    cover_seen: dict[tuple[str, bool], tuple[str, tuple[str, ...]] | None] = {}  # (model, obstacles count) -> why
    used_limited = list(plan.unit(firing).extra.get("limited_used", ()))
    for f in plan.models_of(firing):
        for w in sorted(set(_weapons_of(plan, f, melee=False))):
            if wanted is not None and w != wanted:
                continue
            stats = weapon_of(plan, w)
            wrules = list(stats.get("rules", ()))
            if has_rule(wrules, "Limited") and w in used_limited:
                raise IllegalActionError(f"{w} is Limited and {firing} already used it this game ({_src('Limited')})",
                                         msg_id="firefight.shoot.limited_used", params={"weapon": w, "unit": firing})
            rng_mm = inches(float(stats["range_in"]))
            near = min(tmodels, key=lambda t: model_distance_mm(f, t, how=how))
            dist = model_distance_mm(f, near, how=how)
            if dist > rng_mm:
                steps.append(Step("out of range", f"{f.model_id}'s {w}: nearest target {_in(dist)} away, "
                                  f"range {stats['range_in']}\"", _src("Tir"), msg="firefight.shoot.out_of_range",
                                  params={"model": f.model_id, "weapon": w, "distance": _inches(dist),
                                          "range": stats["range_in"]}))
                continue
            indirect = has_rule(wrules, "Indirect")
            seen = [t for t in tmodels if indirect or _sees(plan, f, t)[0]]
            if not seen:
                _, why, blockers = _sees(plan, f, near)
                steps.append(Step("no line of sight", f"{f.model_id} sees no model of {target}: {why}", _src("Tir"),
                                  msg="firefight.shoot.no_sight",
                                  params={"model": f.model_id, "target": target, "blockers": blockers}))
                continue
            for t in tmodels:
                if has_rule(wrules, "Blast") or t.model_id in cover_votes:
                    continue
                key_cover = (t.model_id, not indirect)
                if key_cover not in cover_seen:
                    cover_seen[key_cover] = _model_in_cover(plan, t, plan.models_of(firing), obstacles=not indirect)
                reason = cover_seen[key_cover]
                if reason is not None:
                    cover_votes[t.model_id] = reason
            far = dist > inches(9)
            mods: list[Modifier] = []
            if stealth and far:
                mods.append((-1, f"every model of {target} has Stealth and is shot from {_in(dist)} (> 9\")",
                             _src("Stealth"), msg("firefight.why.stealth", target=target, distance=_inches(dist))))
            if indirect and moved:
                mods.append((-1, f"{w} is Indirect and {firing} moved before shooting", _src("Indirect"),
                             msg("firefight.why.indirect", weapon=w, unit=firing)))
            key = (w, far, has_rule(_rules(plan, f), "Relentless"))
            if key not in specs:
                spec, ssteps = _hit_spec(plan, f, stats, mods, far=far, melee=False, charging=False, fatigued=False)
                specs[key] = spec
                steps.extend(_prefixed(s, f"{w}: {s.text}", "firefight.weapon_says", weapon=w) for s in ssteps)
            groups.setdefault(key, []).append(f)
    if not groups:
        raise IllegalActionError(f"no model of {firing} can shoot {target}" + (f" with {wanted}" if wanted else "")
                                 + ": out of range, no sight, or no such ranged weapon (see the explanation)"
                                 + "; " + "; ".join(s.text for s in steps[-3:]),
                                 msg_id="firefight.nobody_can_shoot", params={"who": firing, "target": target})
    batches = [_weapon_batch(plan, key[0], fs, specs[key], melee=False, charging=False) for key, fs in groups.items()]
    blast_batches = []
    order = [target]
    if any(rule_value(weapon_of(plan, b.weapon).get("rules", ()), "Blast") for b in batches):
        order = _blast_order(request, target, _units_near_unit(plan, target, inches(3)))
    for b in batches:
        x = rule_value(weapon_of(plan, b.weapon).get("rules", ()), "Blast")
        if x:
            near_count = _models_near_unit(plan, target, inches(3))
            mult = min(x, near_count)
            steps.append(Step("Blast",
                              f"{b.weapon}: each hit x{mult} (Blast({x}), {near_count} enemy models within 3\" "
                              f"of {target}); ignores cover", _src("Blast"), value=mult, msg="firefight.shoot.blast",
                              params={"weapon": b.weapon, "mult": mult, "x": x, "count": near_count, "target": target}))
            b = dataclasses.replace(b, blast=mult, share=(len(order), order.index(target)))
            if len(order) > 1:
                steps.append(Step("Blast spread", f"{b.weapon}: its hits are spread evenly over {', '.join(order)} "
                                  "(enemy units within 3\" of the target); the first in this order take the odd ones "
                                  "(the defender's choice, argument blast_order)", _src("Blast"),
                                  msg="firefight.shoot.blast_spread", params={"weapon": b.weapon, "units": order}))
        blast_batches.append(b)
    cover_models = tuple((m, why, by) for m, (why, by) in cover_votes.items())
    return blast_batches, cover_models, order


def _blast_order(request: Mapping[str, Any], target: str, others: list[str]) -> list[str]:
    given = req_list(request, "blast_order")
    everyone = [target] + others
    if not given:
        return everyone
    if sorted(given) != sorted(everyone):
        raise InvalidActionError("blast_order must list exactly the units sharing the Blast hits: "
                                 f"{', '.join(everyone)}",
                                 msg_id="firefight.blast_order", params={"units": everyone})
    return given


def _units_near_unit(plan: TablePlan, unit_id: str, radius_mm: float) -> list[str]:
    how = measure_how(plan)
    side = plan.unit(unit_id).side
    targets = plan.models_of(unit_id)
    return [u.unit_id for u in plan.units if u.side == side and u.unit_id != unit_id
            and any(model_distance_mm(m, t, how=how) <= radius_mm for m in plan.models_of(u.unit_id) for t in targets)]


def _models_near_unit(plan: TablePlan, unit_id: str, radius_mm: float) -> int:
    how = measure_how(plan)
    side = plan.unit(unit_id).side
    targets = plan.models_of(unit_id)
    return sum(1 for m in plan.models if plan.unit(m.unit_id).side == side
               and any(model_distance_mm(m, t, how=how) <= radius_mm for t in targets))


def _outcome_dist(plan: TablePlan, target: str, batches: list[Batch], defence: Defence,
                  order: list[Model], fear: int) -> tuple[Distribution, Distribution]:
    return outcome_odds(tuple(batches), defence, _bodies(plan, order), fear)


def _apply(plan: TablePlan, rolled: Rolled) -> tuple[TablePlan, Casualties]:
    after = plan
    for mid in rolled.removed:
        after = after.without_model(mid)
    for body in rolled.alive:
        model = with_extra(after.model(body.model_id), wounds=body.wounds or None)
        if body.shaken:
            model = with_status(model, add=[SHAKEN])
        after = after.with_model(model)
    w = rolled.wounds
    return after, Casualties(tuple(rolled.removed), rolled.effect, sum(w[0]) + w[1], rolled.hits)


def _with_bodies(plan: TablePlan, unit_id: str, bodies: tuple[Body, ...]) -> TablePlan:
    """Return ``plan`` where ``unit_id`` keeps only ``bodies``, with their wound markers and shaken status."""
    keep = {b.model_id: b for b in bodies}
    models = []
    for m in plan.models:
        if m.unit_id != unit_id:
            models.append(m)
        elif m.model_id in keep:
            b = keep[m.model_id]
            m = with_extra(m, wounds=b.wounds or None)
            models.append(with_status(m, add=[SHAKEN]) if b.shaken else m)
    return dataclasses.replace(plan, models=tuple(models))


def _needed(spec: HitSpec) -> str:
    if spec.six_only:
        return "6"
    return threshold(min(6, max(2, spec.quality - spec.modifier)))


@dataclass(frozen=True)
class Setup:
    """An attack ready to roll: batches, the target's defence and its wound tracks in removal order."""

    batches: tuple[Batch, ...]
    defence: Defence
    bodies: tuple[Body, ...]
    steps: tuple[Step, ...]
    others: tuple[tuple[str, "Setup"], ...] = ()  # other units taking a share of Blast hits


def shot_setup(plan: TablePlan, request: Mapping[str, Any]) -> Setup:
    """Check a shooting action and gather what its dice need (Tir; Terrain, Couvert; special rules).

    Raises :class:`IllegalActionError` when the unit may not shoot (rushed, charged,
    shaken, nobody in range or in sight).
    """
    st = _state(plan)
    firing, target = req_str(request, "firing"), req_str(request, "target")
    _enemy_check(plan, firing, target)
    action = st.actions.get(firing)
    if action in ("rush", "charge"):
        raise IllegalActionError(f"{firing} took the {action} action this round and cannot shoot "
                                 f"({_src('Activation')})",
                                 msg_id="firefight.shoot.after_move",
                                 params={"unit": firing, "action": msg(f"firefight.action.{action}")})
    if _is_shaken(plan, firing):
        raise IllegalActionError(f"{firing} is shaken: it stays idle and cannot shoot ({_src('Effets des blessures')})",
                                 msg_id="firefight.shoot.shaken", params={"unit": firing})
    steps: list[Step] = []
    batches, cover_models, order = _shooting_batches(plan, request, firing, target, st, steps)
    for b in batches:
        steps.append(Step("to hit", f"{b.weapon}: {b.dice} attack(s) from {', '.join(b.firers)}, Quality "
                          f"{threshold(b.hit.quality)}{f' with {b.hit.modifier:+d}' if b.hit.modifier else ''}: "
                          f"{_needed(b.hit)} needed (a natural 6 always hits, a 1 always misses)",
                          _src("Principes généraux, Test de Qualité"),
                          msg="firefight.shoot.to_hit_mod" if b.hit.modifier else "firefight.shoot.to_hit",
                          params={"weapon": b.weapon, "dice": b.dice, "firers": list(b.firers),
                                  "quality": b.hit.quality, "modifier": f"{b.hit.modifier:+d}",
                                  "needed": _needed(b.hit)}))
    defence = _defence(plan, target, cover_models, melee=False, steps=steps)
    for b in batches:
        if b.ap:
            steps.append(Step("AP", f"{b.weapon}: -{b.ap} to defence rolls (AP({b.ap}))", _src("AP(X)"), value=-b.ap,
                              msg="firefight.shoot.ap", params={"weapon": b.weapon, "ap": b.ap}))
        if b.deadly > 1:
            steps.append(Step("Deadly", f"{b.weapon}: each wound x{b.deadly} on one model, no carry-over",
                              _src("Deadly(X)"),
                              msg="firefight.shoot.deadly", params={"weapon": b.weapon, "x": b.deadly}))
        if b.bane:
            steps.append(Step("Bane", f"{b.weapon}: unmodified defence 6s must be re-rolled", _src("Bane"),
                              msg="firefight.shoot.bane", params={"weapon": b.weapon}))
    steps.append(Step("defence", f"{target} blocks on {threshold(defence.defense)}"
                      f"{f' (+{defence.cover} cover)' if defence.cover else ''}", _src("Tir"),
                      msg="firefight.shoot.defence_cover" if defence.cover else "firefight.shoot.defence",
                      params={"target": target, "defense": defence.defense, "cover": defence.cover}))
    bodies = _bodies(plan, _removal_order(plan, target, request))
    others = []
    for u in order:
        if u == target:
            continue
        ub = tuple(dataclasses.replace(b, share=(len(order), order.index(u)) if b.ignores_cover else (0, 0))
                   for b in batches)
        others.append((u,
                       Setup(ub, _defence(plan, u, (), melee=False, steps=[]),
                             _bodies(plan, _removal_order(plan, u, {})), ())))
    return Setup(tuple(batches), defence, bodies, tuple(steps), tuple(others))


def shoot(plan: TablePlan, request: Mapping[str, Any], dice: Dice | None) -> Resolution:
    """Resolve a unit's shooting at an enemy unit (Tir; Terrain, Couvert; special rules).

    Request: ``firing``, ``target``, optional ``weapon`` (default: every ranged weapon),
    ``moved`` (default from the unit's action this round), ``casualty_order``.
    """
    setup = shot_setup(plan, request)
    firing, target = request["firing"], request["target"]
    batches, defence, steps = list(setup.batches), setup.defence, list(setup.steps)
    wounds, outcome = outcome_odds(setup.batches, defence, setup.bodies, 0)
    hits = Distribution.certain(0)
    for b in batches:
        hits = hits.convolve(b.hits_dist().map(sum))
    needed = {f"to hit ({b.weapon})": _needed(b.hit) for b in batches}
    needed["defence"] = threshold(defence.defense)
    odds = {"hits": hits, "wounds": wounds, "outcome (models removed, last model)": outcome}
    for u, sub in setup.others:
        odds[f"outcome on {u} (its Blast share)"] = outcome_odds(sub.batches, sub.defence, sub.bodies, 0)[1]
    if dice is None:
        return Resolution(RULESET, "shoot", tuple(steps), needed, odds)
    raw_hits, hsteps = roll_hits(dice, setup.batches)
    steps.extend(hsteps)
    rolled = roll_outcome(dice, setup.batches, defence, setup.bodies, hits=raw_hits)
    steps.extend(rolled.steps)
    after, res = _apply(plan, rolled)
    shares: dict[str, Casualties] = {}
    for u, sub in setup.others:
        r2 = roll_outcome(dice, sub.batches, sub.defence, sub.bodies, hits=raw_hits)
        steps.extend(_prefixed(x, f"{u}: {x.text}", "firefight.unit_says", unit=u) for x in r2.steps)
        after, shares[u] = _apply(after, r2)
    limited = [b.weapon for b in batches if has_rule(weapon_of(plan, b.weapon).get("rules", ()), "Limited")]
    if limited:
        fu = after.unit(firing)
        after = after.with_unit(with_extra(fu,
                                           limited_used=sorted(set(fu.extra.get("limited_used", ())) | set(limited))))
    result = ShootResult(res.removed, res.effect, res.wounds, res.hits, shares or None, target)
    return Resolution(RULESET, "shoot", tuple(steps), needed, odds, tuple(dice.rolled), result, after)


# =============================================================================== melee

def _melee_side(plan: TablePlan, attacker: str, defender: str, *, charging: bool, fatigued: bool,
                impact_loss: int, steps: list[Step], label: str,
                only: Callable[[str], bool] | None = None) -> list[Batch]:
    enemies = plan.models_of(defender)
    how = measure_how(plan)
    # Mêlée: 2" horizontally and 4" vertically (rules.rulesets.firefight.reach)
    fighters = [m for m in plan.models_of(attacker) if any(in_melee_reach(m, e, how=how) for e in enemies)]
    batches: list[Batch] = []
    high = [m.model_id for m in plan.models_of(attacker) if m not in fighters
            and any(out_of_reach_above(m, e, how=how) for e in enemies)]
    if high:
        steps.append(Step("height",
                          f"{label}: {', '.join(high)} within 2\" of {defender} on the plan but more than 4\" "
                          "above or below: out of reach", _src("Mêlée"), msg="firefight.melee.too_high",
                          params={"label": msg(LABELS[label]), "models": high, "defender": defender}))
    if not fighters:
        steps.append(Step("melee", f"{label}: no model of {attacker} within 2\" (and 4\" in height) of {defender}",
                          _src("Mêlée"), msg="firefight.melee.nobody",
                          params={"label": msg(LABELS[label]), "attacker": attacker, "defender": defender}))
        return batches
    groups: dict[str, list[Model]] = {}
    for m in fighters:
        for w in sorted(set(_weapons_of(plan, m, melee=True))):
            if only is None or only(w):
                groups.setdefault(w, []).append(m)
    for w, fs in groups.items():
        stats = weapon_of(plan, w)
        mods: list[Modifier] = []
        if charging and has_rule(stats.get("rules", ()), "Thrust"):
            mods.append((1, f"{w} has Thrust and {attacker} charged (+1 to hit, AP +1)", _src("Thrust"),
                         msg("firefight.why.thrust", weapon=w, unit=attacker)))
        spec, s = _hit_spec(plan, fs[0], stats, mods, far=False, melee=True, charging=charging, fatigued=fatigued)
        steps.extend(_prefixed(x, f"{label}, {w}: {x.text}", "firefight.label_weapon_says", label=msg(LABELS[label]),
                               weapon=w) for x in s)
        batches.append(_weapon_batch(plan, w, fs, spec, melee=True, charging=charging))
    if charging and not fatigued and only is None:
        dice_n = sum(rule_value(_rules(plan, m), "Impact") or 0 for m in fighters) - impact_loss
        if dice_n > 0:
            steps.append(Step("Impact", f"{label}: {dice_n} Impact dice, each 2+ is a hit"
                              + (f" ({impact_loss} lost to Counter)" if impact_loss else ""), _src("Impact(X)"),
                              value=dice_n,
                              msg="firefight.melee.impact_lost" if impact_loss else "firefight.melee.impact",
                              params={"label": msg(LABELS[label]), "dice": dice_n, "lost": impact_loss}))
            batches.append(Batch("Impact", tuple(m.model_id for m in fighters), dice_n, HitSpec(2), 0, impact=True))
    for b in batches:
        steps.append(Step("to hit", f"{label}: {b.weapon}, {b.dice} attack(s), "
                          + ("only 6s" if b.hit.six_only else _needed(b.hit)), _src("Mêlée"),
                          msg="firefight.melee.to_hit_six" if b.hit.six_only else "firefight.melee.to_hit",
                          params={"label": msg(LABELS[label]), "weapon": b.weapon, "dice": b.dice,
                                  "needed": _needed(b.hit)}))
    return batches


def _fear(plan: TablePlan, unit_id: str) -> int:
    return max((rule_value(_rules(plan, m), "Fear") or 0 for m in plan.models_of(unit_id)), default=0)


def charge_setup(plan: TablePlan, request: Mapping[str, Any]) -> tuple[Setup, int]:
    """Check a melee and gather the attacker's blows: batches (with Impact), defence, bodies; and Fear.

    Raises :class:`IllegalActionError` when no attacker is within 2" of the defender.
    """
    st = _state(plan)
    attacker, defender = req_str(request, "attacker"), req_str(request, "defender")
    _enemy_check(plan, attacker, defender)
    charging = req_bool(request, "charging", True)
    steps: list[Step] = []
    counter = [m for m in plan.models_of(defender)
               if any(has_rule(weapon_of(plan, w).get("rules", ()), "Counter")
                      for w in _weapons_of(plan, m, melee=True))]
    if counter and charging:
        steps.append(Step("Counter", f"{defender} has Counter weapons: the charger loses {len(counter)} Impact dice",
                          _src("Counter"), msg="firefight.melee.counter",
                          params={"unit": defender, "count": len(counter)}))
    a_batches = _melee_side(plan, attacker, defender, charging=charging, fatigued=attacker in st.fatigued,
                            impact_loss=len(counter) if charging else 0, steps=steps, label="attack")
    if not a_batches:
        raise IllegalActionError(f"no model of {attacker} is within 2\" of {defender} with a melee weapon: "
                                 f"move the chargers into contact first ({_src('Mêlée')})",
                                 msg_id="firefight.melee.not_in_contact",
                                 params={"attacker": attacker, "defender": defender})
    a_def = _defence(plan, defender, (), melee=True, steps=steps)
    a_fear = _fear(plan, attacker)
    if a_fear:
        steps.append(Step("Fear", f"{attacker} counts +{a_fear} wound(s) on the wound effects in melee",
                          _src("Fear(X)"),
                          value=a_fear, msg="firefight.melee.fear", params={"unit": attacker, "fear": a_fear}))
    bodies = _bodies(plan, _removal_order(plan, defender, request))
    return Setup(tuple(a_batches), a_def, bodies, tuple(steps)), a_fear


def _is_counter(plan: TablePlan, weapon: str) -> bool:
    return has_rule(weapon_of(plan, weapon).get("rules", ()), "Counter")


def _strike_back_setup(plan: TablePlan, defender: str, attacker: str, *, tired: bool, counter_done: bool,
                       steps: list[Step]) -> tuple[Setup, int] | None:
    """The defender's strike back (its Counter weapons excluded when they already struck first)."""
    only = (lambda w: not _is_counter(plan, w)) if counter_done else None
    bs = _melee_side(plan, defender, attacker, charging=False, fatigued=tired, impact_loss=0, steps=steps,
                     label="strike back", only=only)
    if not bs:
        return None
    ddef = _defence(plan, attacker, (), melee=True, steps=steps)
    return Setup(tuple(bs), ddef, _bodies(plan, _removal_order(plan, attacker, {})), ()), _fear(plan, defender)


def _counter_setup(plan: TablePlan, defender: str, attacker: str, *, tired: bool,
                   steps: list[Step]) -> tuple[Setup, int] | None:
    """Counter: the charged unit strikes first with its Counter weapons (Counter)."""
    bs = _melee_side(plan, defender, attacker, charging=False, fatigued=tired, impact_loss=0, steps=steps,
                     label="Counter, strikes first", only=lambda w: _is_counter(plan, w))
    if not bs:
        return None
    cdef = _defence(plan, attacker, (), melee=True, steps=steps)
    return Setup(tuple(bs), cdef, _bodies(plan, _removal_order(plan, attacker, {})), ()), _fear(plan, defender)


def melee(plan: TablePlan, request: Mapping[str, Any], dice: Dice | None) -> Resolution:
    """Resolve a charge: Counter blows first, the charger strikes, then the defender may strike back (Mêlée).

    Request: ``attacker``, ``defender``, ``charging`` (default true), ``strike_back``
    (default true), ``casualty_order`` (for the defender). Impact, Thrust, Furious, Fear,
    Counter and Fatigue apply.
    """
    st = _state(plan)
    setup, a_fear = charge_setup(plan, request)
    attacker, defender = request["attacker"], request["defender"]
    charging = req_bool(request, "charging", True)
    strike_back = req_bool(request, "strike_back", True)
    d_fat = defender in st.fatigued or _is_shaken(plan, defender)
    steps: list[Step] = []
    counter = _counter_setup(plan, defender, attacker, tired=d_fat, steps=steps) if charging else None
    steps += list(setup.steps)
    d_order = _removal_order(plan, defender, request)
    needed = {f"attack {b.weapon}": _needed(b.hit) for b in setup.batches}
    needed["defender defence"] = threshold(setup.defence.defense)

    def attack_given(alive: tuple[Body, ...]) -> Distribution:
        sub = _with_bodies(plan, attacker, alive) if counter else plan
        try:
            s2, f2 = charge_setup(sub, request) if counter else (setup, a_fear)
        except IllegalActionError:
            return Distribution.certain((0, "none"))
        return outcome_odds(s2.batches, s2.defence, s2.bodies, f2)[1]

    def strike_back_given(alive: tuple[Body, ...], removed: int, effect: str) -> Distribution:
        survivors = [m.model_id for m in d_order][removed:]
        sub = _subplan(_with_bodies(plan, attacker, alive) if counter else plan, defender, survivors)
        if not strike_back or not sub.models_of(defender) or not sub.models_of(attacker):
            return Distribution.certain((0, "none"))
        sb = _strike_back_setup(sub, defender, attacker, tired=d_fat or effect == "shaken",
                                counter_done=counter is not None, steps=[])
        if sb is None:
            return Distribution.certain((0, "none"))
        return outcome_odds(sb[0].batches, sb[0].defence, sb[0].bodies, sb[1])[1]

    start = Distribution.certain(_bodies(plan, _removal_order(plan, attacker, {})))
    odds: dict[str, Distribution] = {}
    if counter:
        cs, cf = counter
        odds["Counter outcome on the charger (models removed, last model)"] = outcome_odds(cs.batches, cs.defence,
                                                                                           cs.bodies, cf)[1]
        start = survivors_odds(cs.batches, cs.defence, cs.bodies, cf)
    odds["attack wounds"] = outcome_odds(setup.batches, setup.defence, setup.bodies, a_fear)[0] if not counter else \
        start.bind(lambda al: _attack_wounds(plan, attacker, al, request))
    odds["attack outcome (models removed, last model)"] = start.bind(attack_given)
    if strike_back:
        odds["strike back outcome (models removed, last model)"] = start.bind(
            lambda al: attack_given(al).bind(lambda o: strike_back_given(al, o[0], o[1])))
    if dice is None:
        return Resolution(RULESET, "melee", tuple(steps), needed, odds)
    after = plan
    first: Casualties | None = None
    back: Casualties | None = None
    if counter:
        rolled = roll_outcome(dice, counter[0].batches, counter[0].defence, counter[0].bodies, counter[1])
        steps.extend(_prefixed(x, f"Counter: {x.text}", "firefight.counter_says") for x in rolled.steps)
        after, first = _apply(after, rolled)
    try:
        s2, f2 = charge_setup(after, request) if counter else (setup, a_fear)
        rolled = roll_outcome(dice, s2.batches, s2.defence, s2.bodies, f2)
        steps.extend(rolled.steps)
        after, attack = _apply(after, rolled)
    except IllegalActionError:
        attack = Casualties()
        steps.append(Step("Counter", f"no model of {attacker} is left within 2\" to strike", _src("Counter"),
                          msg="firefight.melee.nobody_left", params={"unit": attacker}))
    st2 = _state(after)
    fat = set(st2.fatigued)
    if charging:
        fat.add(attacker)
    if strike_back and after.models_of(defender) and after.models_of(attacker):
        tired = d_fat or _is_shaken(after, defender)
        if tired:
            steps.append(Step("Fatigue", f"{defender} strikes back fatigued (shaken or already fatigued): only 6s hit",
                              _src("Effets des blessures; Mêlée, Fatigue"), msg="firefight.melee.tired",
                              params={"unit": defender}))
        s: list[Step] = []
        sb = _strike_back_setup(after, defender, attacker, tired=tired, counter_done=counter is not None, steps=s)
        steps.extend(s)
        if sb is not None:
            rolled = roll_outcome(dice, sb[0].batches, sb[0].defence, sb[0].bodies, sb[1])
            steps.extend(rolled.steps)
            after, back = _apply(after, rolled)
            fat.add(defender)
    after = st2.with_(fatigued=sorted(fat)).on(after)
    a_left, d_left = bool(after.models_of(attacker)), bool(after.models_of(defender))
    if a_left and d_left:
        steps.append(Step("after melee", f"both units stand: {attacker} falls back to 1\" from {defender}",
                          _src("Mêlée"),
                          msg="firefight.melee.fall_back", params={"attacker": attacker, "defender": defender}))
    else:
        steps.append(Step("after melee", "a unit was destroyed: the other may move up to 3\"", _src("Mêlée"),
                          msg="firefight.melee.destroyed"))
    return Resolution(RULESET, "melee", tuple(steps), needed, odds, tuple(dice.rolled),
                      MeleeResult(first, attack, back), after)


def _attack_wounds(plan: TablePlan, attacker: str, alive: tuple[Body, ...], request: Mapping[str, Any]) -> Distribution:
    try:
        s2, f2 = charge_setup(_with_bodies(plan, attacker, alive), request)
    except IllegalActionError:
        return Distribution.certain(0)
    return outcome_odds(s2.batches, s2.defence, s2.bodies, f2)[0]


def _subplan(plan: TablePlan, unit_id: str, keep: list[str]) -> TablePlan:
    return dataclasses.replace(plan, models=tuple(m for m in plan.models if m.unit_id != unit_id or m.model_id in keep))


# =============================================================================== morale

def _hero_quality(plan: TablePlan, unit_id: str) -> tuple[int, str, Mapping[str, Any]] | None:
    side = plan.unit(unit_id).side
    how = measure_how(plan)
    best = None
    for h in plan.models:
        if plan.unit(h.unit_id).side != side or not has_rule(_rules(plan, h), "Hero") or h.has_status(SHAKEN):
            continue
        d = min((model_distance_mm(h, m, how=how) for m in plan.models_of(unit_id)), default=math.inf)
        if d <= inches(12):
            q = int(_profile(plan, h)["quality"])
            if best is None or q < best[0]:
                best = (q, f"Hero {h.model_id} ({q}+) is {_in(d)} away (within 12\") and not shaken",
                        msg("firefight.morale.hero_near", hero=h.model_id, quality=q, distance=_inches(d)))
    return best


def morale(plan: TablePlan, request: Mapping[str, Any], dice: Dice | None) -> Resolution:
    """Take a unit's morale test (Moral; Hero; Fearless): fail -> shaken, shaken and fail -> routed."""
    unit_id = req_str(request, "unit")
    models = plan.models_of(unit_id)
    if not models:
        raise IllegalActionError(f"unit {unit_id} has no models left", msg_id="firefight.unit_no_models",
                                 params={"unit": unit_id})
    steps: list[Step] = []
    q = min(int(_profile(plan, m)["quality"]) for m in models)
    steps.append(Step("morale test", f"Quality test of {unit_id}: {q}+", _src("Moral"), msg="firefight.morale.test",
                      params={"unit": unit_id, "quality": q}))
    hero = _hero_quality(plan, unit_id)
    if hero and hero[0] < q:
        q = hero[0]
        steps.append(Step("Hero", f"uses {hero[1]}: {q}+", _src("Hero"), msg="firefight.morale.hero",
                          params={"hero": hero[2], "quality": q}))
    shaken = _is_shaken(plan, unit_id)
    fearless = _all_have(plan, unit_id, "Fearless")
    if shaken:
        steps.append(Step("shaken", f"{unit_id} is already shaken: it always fails morale and is routed (removed)",
                          _src("Effets des blessures; Moral"), msg="firefight.morale.routed", params={"unit": unit_id}))
        dist = Distribution.certain("routed")
    else:
        p = Fraction(sum(1 for f in range(1, 7) if f == 6 or (f != 1 and f >= q)), 6)
        fail = 1 - p
        if fearless:
            steps.append(Step("Fearless", "every model is Fearless: a failed test is passed on 4+", _src("Fearless"),
                              msg="firefight.morale.fearless"))
            dist = Distribution.from_pairs((("passed", p + fail / 2), ("shaken", fail / 2)))
        else:
            dist = Distribution.from_pairs((("passed", p), ("shaken", fail)))
    odds = {"morale": dist}
    needed = {"morale": threshold(q)} if not shaken else {}
    if dice is None:
        return Resolution(RULESET, "morale", tuple(steps), needed, odds)
    if shaken:
        result = "routed"
    else:
        f = dice.roll(6)
        ok = f == 6 or (f != 1 and f >= q)
        steps.append(Step("morale die", f"rolled {f}: {'passed' if ok else 'failed'}", _src("Moral"),
                          msg="firefight.morale.die_passed" if ok else "firefight.morale.die_failed",
                          params={"face": f}))
        if not ok and fearless:
            g = dice.roll(6)
            ok = g >= 4
            steps.append(Step("Fearless die", f"rolled {g}: {'passed' if ok else 'failed'}", _src("Fearless"),
                              msg="firefight.morale.fearless_passed" if ok else "firefight.morale.fearless_failed",
                              params={"face": g}))
        result = "passed" if ok else "shaken"
    after = plan
    if result == "shaken":
        for m in models:
            after = after.with_model(with_status(m, add=[SHAKEN]))
    elif result == "routed":
        for m in models:
            after = after.without_model(m.model_id)
    st = _state(after)
    if unit_id in st.morale_due:
        after = st.with_(morale_due=[u for u in st.morale_due if u != unit_id]).on(after)
    return Resolution(RULESET, "morale", tuple(steps), needed, odds, tuple(dice.rolled), MoraleResult(result),
                      after)


# =============================================================================== activation and round

def _can_activate(plan: TablePlan, st: FirefightState, u: Unit) -> bool:
    return bool(plan.models_of(u.unit_id)) and u.unit_id not in st.activated and not u.extra.get("reserve")


def activate(plan: TablePlan, request: Mapping[str, Any], dice: Dice | None) -> Resolution:
    """Activate a unit with one action: hold, advance, rush or charge (Jouer la partie; Activation).

    Alternate activations: the side whose turn it is picks a unit not yet activated; the
    turn passes to the other side while it has units to activate. A shaken unit must stay
    idle (``hold``) and stops being shaken. Request: ``unit``, ``action``, for a charge
    ``target``.
    """
    st = _state(plan)
    if st.game_over:
        raise IllegalActionError("the game is over (four rounds played)",
                                 msg_id="firefight.game_over")
    unit_id, action = req_str(request, "unit"), req_str(request, "action").lower()
    if action not in MOVES_IN:
        raise InvalidActionError(f"unknown action {action!r}; actions are: {', '.join(MOVES_IN)}",
                                 msg_id="firefight.move.bad_action",
                                 params={"action": action, "actions": list(MOVES_IN)})
    u = plan.unit(unit_id)
    turn_has_units = any(_can_activate(plan, st, x) for x in plan.units if x.side == st.turn)
    if u.side != st.turn and turn_has_units:
        raise IllegalActionError(f"it is side {st.turn}'s turn to activate a unit, not {u.side}'s "
                                 f"({_src('Jouer la partie')})",
                                 msg_id="firefight.activate.not_your_turn", params={"side": st.turn, "unit": unit_id})
    if unit_id in st.activated:
        raise IllegalActionError(f"{unit_id} was already activated in round {st.round}",
                                 msg_id="firefight.activate.already", params={"unit": unit_id, "round": st.round})
    if u.extra.get("reserve"):
        raise IllegalActionError(f"{unit_id} is still off the table ({u.extra['reserve']}); deploy it first",
                                 msg_id="firefight.activate.reserve", params={"unit": unit_id})
    models = plan.models_of(unit_id)
    if not models:
        raise IllegalActionError(f"{unit_id} has no models left",
                                 msg_id="firefight.unit_no_models", params={"unit": unit_id})
    rules = _rules(plan, models[0])
    steps: list[Step] = []
    shaken = _is_shaken(plan, unit_id)
    if has_rule(rules, "Immobile") and action != "hold":
        raise IllegalActionError(f"{unit_id} is Immobile: it can only Hold ({_src('Immobile')})",
                                 msg_id="firefight.activate.immobile", params={"unit": unit_id})
    if shaken and action != "hold":
        raise IllegalActionError(f"{unit_id} is shaken: it must stay idle (hold, no shooting) to recover "
                                 f"({_src('Effets des blessures')})",
                                 msg_id="firefight.activate.shaken", params={"unit": unit_id})
    move = MOVES_IN[action]
    steps.append(Step("action", f"{action}: {move}\" move"
                      + {"hold": ", may shoot", "advance": ", may shoot after moving",
                                                                "rush": ", no shooting",
                         "charge": ", into melee"}[action],
                      _src("Activation"),
                      msg=f"firefight.activate.{action}", params={"move": move}))
    if has_rule(rules, "Fast") and move:
        move += FAST_BONUS_IN[action]
        steps.append(Step("Fast", f"+{FAST_BONUS_IN[action]}\": {move}\"", _src("Fast"), value=FAST_BONUS_IN[action],
                          msg="firefight.activate.fast", params={"bonus": FAST_BONUS_IN[action], "move": move}))
    if has_rule(rules, "Slow") and move:
        move -= FAST_BONUS_IN[action]
        steps.append(Step("Slow", f"-{FAST_BONUS_IN[action]}\": {move}\"", _src("Slow"), value=-FAST_BONUS_IN[action],
                          msg="firefight.activate.slow", params={"bonus": FAST_BONUS_IN[action], "move": move}))
    if move:
        if has_rule(rules, "Flying"):
            steps.append(Step("Flying", "may move through units and terrain, ignoring terrain effects", _src("Flying"),
                              msg="firefight.activate.flying"))
        elif has_rule(rules, "Strider"):
            steps.append(Step("Strider", "ignores difficult terrain", _src("Strider"),
                              msg="firefight.activate.strider"))
        else:
            steps.append(Step("difficult terrain", "a move through difficult terrain is capped at 6\" in total",
                              _src("Terrain, Terrain difficile"),
                              msg="firefight.activate.difficult"))
    if action == "charge":
        target = req_str(request, "target")
        _enemy_check(plan, unit_id, target)
        from rules.rulesets import find_ruleset

        rs = typing.cast("Firefight", find_ruleset(RULESET))
        reach = rs.charge_reach(plan, unit_id, target, float(move), rs.resolve_options(plan))  # as `ask charge`
        d = min(p.distance_mm for p in reach.values())
        if not any(p.in_reach for p in reach.values()):
            cap = min(p.reach_in for p in reach.values())
            why = " (difficult terrain in the way)" if cap < move else ""
            raise IllegalActionError(f"{target} is {_in(d)} from {unit_id}, beyond its {cap:g}\" charge{why} "
                                     f"({_src('Mouvement')})",
                                     msg_id="firefight.activate.charge_blocked" if why
                                     else "firefight.activate.charge_too_far",
                                     params={"target": target, "distance": _inches(d), "unit": unit_id, "reach": cap})
        steps.append(Step("charge reach", f"{target} is {_in(d)} away, within {move}\"", _src("Mouvement"),
                          msg="firefight.activate.charge_reach",
                          params={"target": target, "distance": _inches(d), "move": move}))
    after = plan
    if shaken:
        for m in models:
            after = after.with_model(with_status(m, remove=[SHAKEN]))
        steps.append(Step("recover", f"{unit_id} spends its activation idle and is no longer shaken",
                          _src("Effets des blessures"),
                          msg="firefight.activate.recover", params={"unit": unit_id}))
    st = st.with_(activated=[*st.activated, unit_id], actions={**st.actions, unit_id: "recover" if shaken else action})
    other = other_side(plan, u.side)
    mine_left = any(_can_activate(after, st, x) for x in after.units if x.side == u.side)
    theirs_left = any(_can_activate(after, st, x) for x in after.units if x.side == other)
    if not mine_left and st.finished_first is None:
        st = st.with_(finished_first=u.side)
    st = st.with_(turn=other if theirs_left else u.side, round_complete=not mine_left and not theirs_left)
    after = st.on(after)
    res = ActivateResult(unit_id, st.actions[unit_id], move, st.turn, st.round_complete)
    return Resolution(RULESET, "activate", tuple(steps), {}, {}, (), res, after)


def _controllers(plan: TablePlan, st: FirefightState, obj: Any) -> set[str]:
    how = measure_how(plan)
    sides = set()
    for u in plan.units:
        if _is_shaken(plan, u.unit_id) or u.extra.get("ambushed_round") == st.round:
            continue
        if any(point_distance_mm(m, obj.position_mm, how=how) <= inches(3) for m in plan.models_of(u.unit_id)):
            sides.add(u.side)
    return sides


def end_round(plan: TablePlan, request: Mapping[str, Any], dice: Dice | None) -> Resolution:
    """End the round: objectives, morale due, fatigue cleared, Caster tokens, next round or the end (Mission; Moral)."""
    st = _state(plan)
    if st.game_over:
        raise IllegalActionError("the game is over",
                                 msg_id="firefight.game_over")
    steps: list[Step] = []
    waiting = [u.unit_id for u in plan.units if _can_activate(plan, st, u)]
    if waiting:
        raise IllegalActionError(f"units still to activate this round: {', '.join(waiting)}",
                                 msg_id="firefight.end_round.waiting", params={"units": waiting})
    objectives = dict(st.objectives)
    for o in plan.objectives:
        sides = _controllers(plan, st, o)
        if len(sides) == 1:
            objectives[o.objective_id] = next(iter(sides))
            steps.append(Step("objective",
                              f"{o.objective_id}: seized by {objectives[o.objective_id]} (a unit within 3\", no enemy)",
                              _src("Mission"),
                              msg="firefight.end_round.seized",
                              params={"objective": o.objective_id, "side": objectives[o.objective_id]}))
        elif len(sides) > 1:
            objectives[o.objective_id] = None
            steps.append(Step("objective", f"{o.objective_id}: contested by {', '.join(sorted(sides))}, neutral",
                              _src("Mission"),
                              msg="firefight.end_round.contested",
                              params={"objective": o.objective_id, "sides": sorted(sides)}))
        else:
            objectives.setdefault(o.objective_id, None)
    starting = dict(st.starting_units)
    due: list[str] = []
    for side in sides_of(plan):
        start = starting.setdefault(side, sum(1 for u in plan.units if u.side == side))
        left = [u.unit_id for u in plan.units if u.side == side and plan.models_of(u.unit_id)]
        if left and len(left) * 2 <= start:
            due.extend(left)
            steps.append(Step("morale due", f"side {side} has {len(left)} of {start} starting units (half or fewer): "
                              f"{', '.join(left)} must test morale", _src("Moral"),
                              msg="firefight.end_round.morale_due",
                              params={"side": side, "left": len(left), "start": start, "units": left}))
    st = st.with_(objectives=objectives, starting_units=starting, morale_due=due)
    after = plan
    for u in plan.units:
        x = rule_value(unit_rules(plan, u, (plan.models_of(u.unit_id) or (None,))[0]), "Caster")
        if x and plan.models_of(u.unit_id):
            tokens = min(6, int(u.extra.get("spell_tokens", 0)) + x)
            after = after.with_unit(with_extra(after.unit(u.unit_id), spell_tokens=tokens))
            steps.append(Step("Caster", f"{u.unit_id} gains {x} spell token(s): {tokens} (6 at most)",
                              _src("Caster(X)"),
                              msg="firefight.end_round.tokens", params={"unit": u.unit_id, "x": x, "tokens": tokens}))
    finished = st.finished_first or st.first
    result = EndRoundResult(st.round, objectives, tuple(due))
    if st.round >= ROUNDS:
        counts = {s: sum(1 for v in objectives.values() if v == s) for s in sides_of(plan)}
        best = max(counts.values(), default=0)
        winners = [s for s, c in counts.items() if c == best]
        st = st.with_(game_over=True, winner=winners[0] if len(winners) == 1 else None)
        steps.append(Step("end of game", f"after round {ROUNDS}: objectives held {counts} -> "
                          + (f"{st.winner} wins" if st.winner else "a draw"), _src("Mission"),
                          msg="firefight.end_round.winner" if st.winner else "firefight.end_round.draw",
                          params={"rounds": ROUNDS, "winner": st.winner,
                                  "held": [msg("firefight.side_held", side=k, count=n) for k, n in counts.items()]}))
        result = dataclasses.replace(result, game_over=True, winner=st.winner, objectives_held=counts)
    else:
        st = st.with_(round=st.round + 1, first=finished, turn=finished, finished_first=None,
                      activated=[], actions={}, fatigued=[], round_complete=False)
        steps.append(Step("next round", f"round {st.round}: {finished} activates first (it finished activating first)",
                          _src("Jouer la partie"),
                          msg="firefight.end_round.next", params={"round": st.round, "side": finished}))
        result = dataclasses.replace(result, next_first=finished)
    return Resolution(RULESET, "end_round", tuple(steps), {}, {}, (), result, st.on(after))


# =============================================================================== deployment, casting, jumps

_EDGES = ("top", "bottom", "left", "right")


def _edge_distance(plan: TablePlan, m: Model, edge: str) -> float:
    x, y = m.position_mm
    r = m.base_mm / 2
    return {"top": y + r, "bottom": plan.table.depth_mm - y + r, "left": x + r,
            "right": plan.table.width_mm - x + r}[edge]


def deploy(plan: TablePlan, request: Mapping[str, Any], dice: Dice | None) -> Resolution:
    """Check and record a unit's deployment: ``normal`` (12" of its edge), ``scout``, ``ambush``.

    Sources: Déploiement; Scout; Ambush.
    """
    st = _state(plan)
    unit_id = req_str(request, "unit")
    mode = req_str(request, "mode", default="normal")
    u = plan.unit(unit_id)
    models = plan.models_of(unit_id)
    rules = _rules(plan, models[0]) if models else list(u.rules or ())
    steps: list[Step] = []
    if mode == "ambush":
        if not has_rule(rules, "Ambush"):
            raise IllegalActionError(f"{unit_id} has no Ambush rule",
                                     msg_id="firefight.deploy.no_ambush", params={"unit": unit_id})
        if st.round < 2:
            raise IllegalActionError("Ambush units arrive at the start of a round after the first; this is round "
                                     f"{st.round} ({_src('Ambush')})",
                                     msg_id="firefight.deploy.ambush_round_one")
        enemies = [m for m in plan.models if plan.unit(m.unit_id).side != u.side]
        d = min((model_distance_mm(a, b, how=measure_how(plan)) for a in models for b in enemies), default=math.inf)
        if d <= inches(9):
            raise IllegalActionError(f"{unit_id} is {_in(d)} from the enemy; Ambush needs more than 9\" "
                                     f"({_src('Ambush')})",
                                     msg_id="firefight.deploy.ambush_too_close",
                                     params={"unit": unit_id, "distance": _inches(d)})
        steps.append(Step("Ambush",
                          f"nearest enemy {_in(d)} away (> 9\"); cannot seize or contest objectives this round",
                          _src("Ambush"),
                          msg="firefight.deploy.ambush", params={"distance": _inches(d)}))
        u2 = with_extra(u, reserve=None, ambushed_round=st.round)
    elif mode in ("normal", "scout"):
        edge = st.deployment_edges.get(u.side) or req_str(request, "edge", default=None)
        if edge is None:  # the geometry's option (firefight/__init__.py): first=top,second=bottom by default
            from rules.rulesets import find_ruleset
            from rules.rulesets.firefight import deployment_edges

            edge = deployment_edges(plan, find_ruleset(RULESET).resolve_options(plan)).get(u.side)
        if edge not in _EDGES:
            raise InvalidActionError(f"side {u.side} needs a deployment edge (state.deployment_edges or 'edge'): one "
                                     f"of {', '.join(_EDGES)}",
                                     msg_id="firefight.scout.no_edge", params={"side": u.side})
        limit = 24 if mode == "scout" else 12
        if mode == "scout" and not has_rule(rules, "Scout"):
            raise IllegalActionError(f"{unit_id} has no Scout rule",
                                     msg_id="firefight.deploy.no_scout", params={"unit": unit_id})
        far = max(models, key=lambda m: _edge_distance(plan, m, edge))
        d = _edge_distance(plan, far, edge)
        if d > inches(limit):
            why = ("Scout: entirely within 12\" of the deployment zone" if mode == "scout"
                   else "deployment is within 12\"")
            raise IllegalActionError(f"{far.model_id} reaches {_in(d)} from the {edge} edge; {why} "
                                     f"({_src('Déploiement')})",
                                     msg_id="firefight.deploy.too_far_scout" if mode == "scout"
                                     else "firefight.deploy.too_far",
                                     params={"model": far.model_id, "distance": _inches(d),
                                             "edge": msg(f"firefight.edge.{edge}")})
        steps.append(Step("deployment", f"every model within {limit}\" of the {edge} edge (farthest {_in(d)})",
                          _src("Scout" if mode == "scout" else "Déploiement"),
                          msg="firefight.deploy.done",
                          params={"limit": limit, "edge": msg(f"firefight.edge.{edge}"), "distance": _inches(d)}))
        u2 = with_extra(u, reserve=None)
    else:
        raise InvalidActionError(f"unknown deployment mode {mode!r}; modes: normal, scout, ambush",
                                 msg_id="firefight.deploy.bad_mode", params={"mode": mode})
    after = plan.with_unit(u2)
    return Resolution(RULESET, "deploy", tuple(steps), {}, {}, (), DeployResult(unit_id, mode),
                      after)


def cast(plan: TablePlan, request: Mapping[str, Any], dice: Dice | None) -> Resolution:
    """Cast a spell: spend tokens, 4+ on a D6, helpers within 18" add or remove 1 per token (Caster(X)).

    Request: ``caster`` (unit), ``cost`` (the spell's value), optional ``helpers``
    (``{"unit": tokens}``; a friendly helper gives +1, an enemy -1 per token).
    """
    unit_id = req_str(request, "caster")
    cost = req_int(request, "cost")
    u = plan.unit(unit_id)
    models = plan.models_of(unit_id)
    if not models or not rule_value(_rules(plan, models[0]), "Caster"):
        raise IllegalActionError(f"{unit_id} is not a Caster",
                                 msg_id="firefight.cast.not_caster", params={"unit": unit_id})
    # Caster(X) gains X tokens at the start of each round: before any end of round, the first X.
    tokens = int(u.extra.get("spell_tokens", rule_value(_rules(plan, models[0]), "Caster") or 0))
    if cost < 1 or cost > tokens:
        raise IllegalActionError(f"{unit_id} has {tokens} spell token(s); a spell of value {cost} cannot be cast",
                                 msg_id="firefight.cast.tokens",
                                 params={"unit": unit_id, "tokens": tokens, "cost": cost})
    steps = [Step("Caster", f"spends {cost} of {tokens} token(s); 4+ casts", _src("Caster(X)"),
                  msg="firefight.cast.spend", params={"cost": cost, "tokens": tokens})]
    helpers = _helpers(request.get("helpers"))
    mod = 0
    after = plan.with_unit(with_extra(u, spell_tokens=tokens - cost))
    for hid, n in dict(helpers).items():
        h = after.unit(hid)
        ht = int(h.extra.get("spell_tokens", 0))
        if not isinstance(n, int) or n < 1 or n > ht:
            raise IllegalActionError(f"helper {hid} has {ht} token(s), cannot spend {n!r}",
                                     msg_id="firefight.cast.helper_tokens",
                                     params={"unit": hid, "tokens": ht, "spend": str(n)})
        d = min((model_distance_mm(a, b, how=measure_how(plan)) for a in after.models_of(hid) for b in models),
                default=math.inf)
        if d > inches(18):
            raise IllegalActionError(f"helper {hid} is {_in(d)} from {unit_id}, beyond 18\" ({_src('Caster(X)')})",
                                     msg_id="firefight.cast.helper_far",
                                     params={"unit": hid, "distance": _inches(d), "caster": unit_id})
        sign = 1 if h.side == u.side else -1
        mod += sign * n
        after = after.with_unit(with_extra(h, spell_tokens=ht - n))
        steps.append(Step("spell helper", f"{sign * n:+d}: {hid} spends {n} token(s) from {_in(d)}", _src("Caster(X)"),
                          value=sign * n,
                          msg="firefight.cast.helper",
                          params={"value": f"{sign * n:+d}", "unit": hid, "tokens": n, "distance": _inches(d)}))
    p = Fraction(sum(1 for f in range(1, 7) if f == 6 or (f != 1 and f + mod >= 4)), 6)
    odds = {"spell": Distribution.from_pairs((("cast", p), ("failed", 1 - p)))}
    needed = {"spell": threshold(4 - mod)}
    if dice is None:
        return Resolution(RULESET, "cast", tuple(steps), needed, odds)
    f = dice.roll(6)
    ok = f == 6 or (f != 1 and f + mod >= 4)
    steps.append(Step("spell die", f"rolled {f}{mod:+d}: {'cast' if ok else 'failed'}", _src("Caster(X)"),
                      msg="firefight.cast.cast" if ok else "firefight.cast.failed",
                      params={"face": f, "mod": f"{mod:+d}"}))
    return Resolution(RULESET, "cast", tuple(steps), needed, odds, tuple(dice.rolled),
                      CastResult("cast" if ok else "failed"), after)


def _helpers(value: Any) -> dict[str, Any]:
    """Read ``helpers`` as a mapping or as ``"unit:tokens,unit:tokens"`` typed on the command line."""
    if value is None:
        return {}
    if isinstance(value, Mapping):
        return dict(value)
    if isinstance(value, str):
        out: dict[str, Any] = {}
        for part in filter(None, (p.strip() for p in value.split(","))):
            name, sep, n = part.partition(":")
            if not sep or not n.strip().isdigit():
                raise InvalidActionError(f"helpers must read unit:tokens,unit:tokens, got {value!r}",
                                         msg_id="firefight.cast.bad_helpers", params={"value": str(value)})
            out[name.strip()] = int(n)
        return out
    raise InvalidActionError(f"helpers must map unit ids to tokens, got {value!r}",
                             msg_id="firefight.cast.bad_helpers", params={"value": str(value)})


def jump(plan: TablePlan, request: Mapping[str, Any], dice: Dice | None) -> Resolution:
    """Jump a gap or drop (Sauter): X+1 dice at 3+ (X per full 3"), Strider 2+, Flying passes."""
    mid = req_str(request, "model")
    dist_in = float(request.get("distance_in", 0))
    m = plan.model(mid)
    rules = _rules(plan, m)
    if dist_in <= 1:
        return Resolution(RULESET, "jump",
                          (Step("jump", "a gap of 1\" or less is crossed in a normal move", _src("Sauter"),
                                                 msg="firefight.jump.short"),),
                          {}, {"jump": Distribution.certain("made")}, (), JumpResult("made"), plan)
    if dist_in > 6:
        raise IllegalActionError(f"a jump is at most 6\"; {dist_in}\" asked ({_src('Sauter')})",
                                 msg_id="firefight.jump.too_far", params={"distance": dist_in})
    if has_rule(rules, "Flying"):
        return Resolution(RULESET, "jump", (Step("Flying", "jumps succeed automatically", _src("Flying"),
                                                 msg="firefight.jump.flying"),), {},
                          {"jump": Distribution.certain("made")}, (), JumpResult("made"), plan)
    n = int(dist_in // 3) + 1
    need = 2 if has_rule(rules, "Strider") else 3
    p = Fraction(7 - need, 6) ** n
    steps = [Step("jump", f"{n} dice at {need}+ for {dist_in}\"" + (" (Strider)" if need == 2 else ""), _src("Sauter"),
                  msg="firefight.jump.strider" if need == 2 else "firefight.jump.roll",
                  params={"dice": n, "need": need, "distance": dist_in})]
    odds = {"jump": Distribution.from_pairs((("made", p), ("fell", 1 - p)))}
    if dice is None:
        return Resolution(RULESET, "jump", tuple(steps), {"jump": f"{n} x {need}+"}, odds)
    faces = dice.roll_many(n)
    ok = all(f >= need for f in faces)
    steps.append(Step("jump dice", f"{list(faces)}: {'made' if ok else 'fell'}", _src("Sauter"),
                      msg="firefight.jump.made" if ok else "firefight.jump.fell", params={"faces": list(faces)}))
    return Resolution(RULESET, "jump", tuple(steps), {"jump": f"{n} x {need}+"}, odds, tuple(dice.rolled),
                      JumpResult("made" if ok else "fell"), plan)


#: The main arguments of each action as typed on the command line (``tabletracker resolve``).
ARGUMENTS: Mapping[str, tuple[str, ...]] = MappingProxyType({
    "activate": ("unit", "action"), "shoot": ("firing", "target"), "melee": ("attacker", "defender"),
    "morale": ("unit",), "deploy": ("unit",), "cast": ("caster",), "jump": ("model",),
    "dangerous": ("unit",), "fall": ("model",),
})

def _wounds_rolled(plan: TablePlan, unit_id: str, wounds: int, dice: Dice, steps: list[Step],
                   request: Mapping[str, Any]) -> tuple[TablePlan, Casualties]:
    bodies = _bodies(plan, _removal_order(plan, unit_id, request))
    alive, removed, last_hit = allocate(bodies, (), wounds)
    effect = "none"
    if alive and last_hit:
        need = wound_roll_needed(alive[0])
        if need is not None:
            f = dice.roll(6)
            effect = effect_of(f, need)
            steps.append(Step("wound effects", f"d6 {f} + {alive[0].wounds} wound marker(s): Hors de combat on "
                              f"{5 + alive[0].tough}+ -> {effect}", _src("Effets des blessures"), value=f,
                              msg="firefight.wounds.effect",
                              params={"face": f, "wounds": alive[0].wounds, "need": 5 + alive[0].tough,
                                      "effect": msg(f"firefight.effect.{effect}")}))
            if effect == "out":
                removed, alive = removed + (alive[0].model_id,), ()
            else:
                alive = (dataclasses.replace(alive[0], shaken=True),)
    rolled = Rolled(0, ((), wounds), alive, removed, effect, ())
    return _apply(plan, rolled)


# what a dangerous-terrain die needs to wound (Terrain dangereux), with its message id for the edges
ONE_WOUNDS = Said("a 1 wounds", "firefight.needed.one_wounds")


def dangerous(plan: TablePlan, request: Mapping[str, Any], dice: Dice | None) -> Resolution:
    """Models moving through or activating in dangerous terrain roll a D6 each (Tough: X dice); each 1 is a wound.

    Request: ``unit``, optional ``models`` (default: the unit's models standing in a
    dangerous piece, by the rule set's terrain kinds). Source: Terrain, Terrain dangereux.
    """
    unit_id = req_str(request, "unit")
    models = plan.models_of(unit_id)
    named = req_list(request, "models")
    if named:
        bad = [n for n in named if n not in [m.model_id for m in models]]
        if bad:
            raise InvalidActionError(f"{', '.join(bad)} are not models of {unit_id}",
                                     msg_id="firefight.dangerous.not_models", params={"models": bad, "unit": unit_id})
        chosen = [m for m in models if m.model_id in named]
    else:
        chosen = [m for m in models
                  if any(_kind(t).movement == "dangerous" and _inside(t, m.position_mm) for t in plan.terrain)]
    if not chosen:
        raise IllegalActionError(f"no model of {unit_id} is in dangerous terrain; name the models that crossed it "
                                 "(models=...)",
                                 msg_id="firefight.dangerous.nobody", params={"unit": unit_id})
    n = sum(_tough(plan, m) for m in chosen)
    steps = [Step("dangerous terrain", f"{len(chosen)} model(s) of {unit_id}: {n} D6 (one each, or its Tough value); "
                  "each 1 is a wound", _src("Terrain, Terrain dangereux"), value=n,
                  msg="firefight.dangerous.dice", params={"count": len(chosen), "unit": unit_id, "dice": n})]
    bodies = _bodies(plan, _removal_order(plan, unit_id, request))
    wounds = _binomial_tuple(n, Fraction(1, 6))
    odds = {"wounds": wounds,
            "outcome (models removed, last model)": wounds.bind(lambda k: _final_outcome(bodies, ((), k), 0))}
    if dice is None:
        return Resolution(RULESET, "dangerous", tuple(steps), {"each die": ONE_WOUNDS}, odds)
    faces = dice.roll_many(n)
    k = sum(1 for f in faces if f == 1)
    steps.append(Step("dangerous dice", f"{list(faces)}: {k} wound(s)", _src("Terrain, Terrain dangereux"),
                      msg="firefight.dangerous.rolled", params={"faces": list(faces), "wounds": k}))
    after, res = _wounds_rolled(plan, unit_id, k, dice, steps, request)
    return Resolution(RULESET, "dangerous", tuple(steps), {"each die": ONE_WOUNDS}, odds, tuple(dice.rolled), res,
                      after)


def fall(plan: TablePlan, request: Mapping[str, Any], dice: Dice | None) -> Resolution:
    """A model falling or pushed from 2" or more takes a hit with AP(1) per full 3"; in a group it dies (Chuter).

    Request: ``model``, ``height_in``. The model is then placed within 2" of the foot of
    the drop and its activation ends.
    """
    m = plan.model(req_str(request, "model"))
    try:
        h = float(request.get("height_in", 0))
    except (TypeError, ValueError):
        raise InvalidActionError(f"height_in must be a number of inches, got {request.get('height_in')!r}",
                                 msg_id="firefight.fall.bad_height",
                                 params={"value": str(request.get("height_in"))}) from None
    if h < 2:
        step = Step("fall", f"a drop of {h:g}\" (under 2\") does no harm", _src("Mouvements spéciaux, Chuter"),
                    msg="firefight.fall.harmless", params={"height": h})
        return Resolution(RULESET, "fall", (step,), {}, {"outcome": Distribution.certain("unhurt")}, (),
                          FallResult("unhurt"), plan)
    ap = int(h // 3)
    steps = [Step("fall", f"fell {h:g}\": one hit with AP({ap}); placed within 2\" of the foot, activation over",
                  _src("Mouvements spéciaux, Chuter"), value=ap,
                  msg="firefight.fall.hit", params={"height": h, "ap": ap})]
    unit_models = plan.models_of(m.unit_id)
    if len(unit_models) > 1:
        steps.append(Step("fall", f"{m.model_id} belongs to a group: the fall kills it",
                          _src("Mouvements spéciaux, Chuter"),
                          msg="firefight.fall.group", params={"model": m.model_id}))
        res = Casualties((m.model_id,), "none", 1, 1)
        return Resolution(RULESET, "fall", tuple(steps), {},
                          {"outcome (models removed, last model)": Distribution.certain((1, "none"))},
                          (), res, plan.without_model(m.model_id))
    defense = int(_profile(plan, m)["defense"])
    p = defence_fail_chance(defense, ap)
    bodies = _bodies(plan, [m])
    wounds = Distribution.from_pairs(((1, p), (0, 1 - p)))
    odds = {"wounds": wounds,
            "outcome (models removed, last model)": wounds.bind(lambda k: _final_outcome(bodies, ((), k), 0))}
    needed = {"defence": threshold(min(6, max(2, defense + ap)))}
    if dice is None:
        return Resolution(RULESET, "fall", tuple(steps), needed, odds)
    f = dice.roll(6)
    k = 0 if defence_blocks(f, defense, -ap) else 1
    steps.append(Step("defence", f"D6 {f} against {defense}+ with AP({ap}): {'blocked' if not k else 'a wound'}",
                      _src("Tir"),
                      msg="firefight.fall.wound" if k else "firefight.fall.blocked",
                      params={"face": f, "defense": defense, "ap": ap}))
    after, res = _wounds_rolled(plan, m.unit_id, k, dice, steps, {})
    return Resolution(RULESET, "fall", tuple(steps), needed, odds, tuple(dice.rolled), res, after)


ACTIONS: Mapping[str, Action] = MappingProxyType({
    "dangerous": dangerous, "fall": fall,
    "activate": activate, "shoot": shoot, "melee": melee, "morale": morale, "end_round": end_round,
    "deploy": deploy, "cast": cast, "jump": jump,
})
