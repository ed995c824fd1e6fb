"""Grimdark Future Firefight (One Page Rules, French translation): inches, base edge to edge.

Sources are the sections of ``seeds/grimdark-future-firefight-fr.txt``:
Préparation (mission, déploiement), Mouvement, Mêlée, Terrain, the special rules
(Ambush, Blast, Caster, Hero, Relentless, Scout, Stealth, Fast, Slow, Strider,
Flying) and Mouvements spéciaux (Sauter, Chuter).
"""

from __future__ import annotations

import math
import re
from types import MappingProxyType
from typing import Any, ClassVar, Mapping

from calibration.units import inches
from rules.errors import InvalidActionError
from rules.explain import Step, msg
from rules.measure import closest_models, model_distance_mm
from rules.plan import Model, TablePlan
from rules.rulesets.answers import ObjectivesAnswer
from rules.rulesets.base import DeploymentZone, Option, RuleSet
from rules.rulesets.common import Args, kind_of_id, length_of, length_words, models_named, semicolons, table_point
from rules.rulesets.firefight.actions import ACTIONS, ARGUMENTS, DOC_COVER, validate_roster
from rules.rulesets.firefight.answers import (
    AmbushAnswer,
    AuraAnswer,
    BlastAnswer,
    CasterAura,
    ChargeAnswer,
    ChargeReach,
    CoverAnswer,
    DeploymentAnswer,
    HeroAura,
    JumpAnswer,
    MeleeAnswer,
    ModelRange,
    MoveAnswer,
    RangeAnswer,
    ScoutAnswer,
    UnitDeployment,
)
from rules.rulesets.firefight.more_actions import MORE_ACTIONS, MORE_PARAMS
from rules.rulesets.firefight.params import PARAMS
from rules.rulesets.kit import has_rule
from rules.terrain import TerrainKind, path_profile
from rules.visibility import line_of_sight
from rules.zones import aura, deployment_zone, objective_states, wholly_inside
from tabletracker.words import Said

SRC = "Grimdark Future Firefight, Terrain"


def ids_or_none(ids: Any) -> Any:
    """Return a list of ids as a message parameter, or the message "none" when it is empty."""
    out = list(ids)
    return out if out else msg("firefight.none")

TERRAIN_KINDS = MappingProxyType({k.kind: k for k in (
    TerrainKind("forest", "cover", "difficult", True, ("area",), "forest: cover and difficult", SRC),
    TerrainKind("ruins", "cover", "difficult", True, ("area",), "ruins: cover and difficult", SRC),
    TerrainKind("crater", "cover", "difficult", True, ("area",), "crater: cover and difficult", SRC),
    TerrainKind("barricade", "cover", "open", True, ("line", "area"), "barricade: cover", SRC),
    TerrainKind("wall", "blocks", "impassable", True, ("line", "area"), "high wall: blocks sight", SRC),
    TerrainKind("building", "blocks", "impassable", True, ("area",), "building: blocks sight", SRC),
    TerrainKind("rough", "clear", "difficult", False, ("area",), "rough ground: difficult", SRC),
    TerrainKind("water", "clear", "difficult", False, ("area",), "shallow water: difficult", SRC),
    TerrainKind("minefield", "clear", "dangerous", False, ("area",), "minefield: dangerous", SRC),
    TerrainKind("open", "clear", "open", False, ("area",), "open ground", SRC),
)})


# -- questions ------------------------------------------------------------------------------------



SRC_MOVE = "Grimdark Future Firefight, Mouvement"
SRC_SHOOT = "Grimdark Future Firefight, Tir"
SRC_MELEE = "Grimdark Future Firefight, Mêlée"
SRC_TERRAIN = "Grimdark Future Firefight, Terrain"
SRC_MISSION = "Grimdark Future Firefight, Préparation (mission)"
SRC_DEPLOY = "Grimdark Future Firefight, Préparation (déploiement)"
SRC_RULES = "Grimdark Future Firefight, Références des règles spéciales"
SRC_SPECIAL = "Grimdark Future Firefight, Mouvements spéciaux"
ACTION_IN = MappingProxyType({"hold": 0.0, "advance": 6.0, "rush": 12.0, "charge": 12.0})  # Activation table


def unit_rules(plan: TablePlan, unit_id: str) -> list[str]:
    """Return the special rules of a unit, lower-case, without their value: ``Caster(2)`` -> ``caster``."""
    return [re.sub(r"\(.*\)$", "", r).strip().lower() for r in (plan.unit(unit_id).rules or ())]


def rule_value(plan: TablePlan, unit_id: str, name: str) -> float | None:
    for r in plan.unit(unit_id).rules or ():
        m = re.fullmatch(rf"\s*{name}\s*\(\s*([0-9.]+)\s*\)\s*", r, flags=re.IGNORECASE)
        if m:
            return float(m.group(1))
    return None


def _units_of(plan: TablePlan, ident: str) -> tuple[str, tuple[Model, ...]]:
    kind = kind_of_id(plan, ident)
    ms = models_named(plan, ident)
    return (ident if kind == "unit" else ms[0].unit_id), ms


def ask_range(self: "Firefight", plan: TablePlan, args: Args, opts: Mapping[str, Any]) -> RangeAnswer:
    """range FIRING TARGET --weapon-range INCHES: which firing models are in range with sight; 9" rules."""
    v = args.parse(("FIRING", "TARGET"), flags={"weapon-range": "number"})
    if "weapon-range" not in v:
        raise InvalidActionError(f"range: give the weapon's range with --weapon-range INCHES; usage: {v['_usage']}",
                                 msg_id="firefight.range.need_weapon_range")
    f_unit, firers = _units_of(plan, v["FIRING"])
    t_unit, targets = _units_of(plan, v["TARGET"])
    wr = self.from_unit(float(v["weapon-range"]))
    how = self.measure_how(opts)
    per: dict[str, ModelRange] = {}
    # Stealth: every model of the target has it (unit, profile or own rules) and the shot is from over 9"
    # (Références des règles spéciales); read through the same special_rules hook as `resolve shoot`.
    target_stealthy = self.all_have(plan, t_unit, "Stealth")
    for f in firers:
        c = closest_models([f], targets, how=how)
        seen = any(line_of_sight(plan, f.model_id, t.model_id, options=opts, ruleset=self).visible for t in targets)
        far = c.distance_mm > self.from_unit(9.0)
        per[f.model_id] = ModelRange(c.distance_mm, c.distance_mm <= wr + 1e-6, seen,
                                     -1 if target_stealthy and far else 0)
    shooting = [k for k, p in per.items() if p.can_shoot]
    closest = closest_models(firers, targets, how=how).distance_mm
    beyond9 = closest > self.from_unit(9.0) + 1e-6
    stealth = beyond9 and target_stealthy
    relentless = beyond9 and any(has_rule(self.special_rules(plan, f), "Relentless") for f in firers)
    steps = [self.measure_step(opts),
             Step("in range and in sight", f"{len(shooting)} of {len(firers)} model(s) are within "
                  f"{v['weapon-range']:g}\" of the target and see it", SRC_SHOOT, value=len(shooting),
                  msg="firefight.range.in_range",
                  params={"count": len(shooting), "total": len(firers), "range": v["weapon-range"]})]
    if stealth:
        steps.append(Step("Stealth", "the target is more than 9\" away: -1 to hit", SRC_RULES + " (Stealth)", value=-1,
                          msg="firefight.range.stealth"))
    if relentless:
        steps.append(Step("Relentless", "more than 9\" away: unmodified 6s to hit score an extra hit",
                          SRC_RULES + " (Relentless)", msg="firefight.range.relentless"))
    answer = Said(f"{len(shooting)} of {len(firers)} can shoot ({self.fmt(closest)} to the closest target)"
                  + ("; Stealth -1 to hit" if stealth else "") + ("; Relentless applies" if relentless else ""),
                  "answer.firefight.range", can=len(shooting), of=len(firers),
                  length=length_words(self, closest, opts), stealth=msg("answer.firefight.stealth") if stealth else "",
                  relentless=msg("answer.firefight.relentless") if relentless else "")
    return RangeAnswer(per, length_of(self, closest, opts), beyond9, stealth, relentless, answer, tuple(steps))


def ask_cover(self: "Firefight", plan: TablePlan, args: Args, opts: Mapping[str, Any]) -> CoverAnswer:
    """cover FIRING_UNIT TARGET_UNIT: +1 Defense to the target when most of its models are in or behind cover."""
    v = args.parse(("FIRING_UNIT", "TARGET_UNIT"))
    firers, targets = plan.models_of(v["FIRING_UNIT"]), plan.models_of(v["TARGET_UNIT"])
    if not firers or not targets:
        raise InvalidActionError("cover: both units need models on the table", msg_id="firefight.units_need_models")
    verdicts = self.in_cover_many(plan, firers, targets, opts)  # the one cover rule `resolve shoot` applies too
    per = {t.model_id: (v.in_cover, list(v.by)) for t, v in zip(targets, verdicts)}
    covered = [k for k, (c, _) in per.items() if c]
    most = 2 * len(covered) > len(targets)
    steps = [Step("in cover", f"{k}: in or behind {', '.join(r)}", SRC_TERRAIN, msg="firefight.cover.model",
                  params={"model": k, "by": list(r)}) for k, (c, r) in per.items() if c]
    steps.append(Step("cover", f"{len(covered)} of {len(targets)} models in cover (inside a cover piece, or at least "
                      "half of the base hidden by cover from the nearest firer that sees it): "
                      + ("most are, the target gets +1 Defense against shooting" if most else "not most, no bonus"),
                      SRC_TERRAIN + " (the defender gets the +1: rule choice 3)", value=most,
                      msg="firefight.cover.most" if most else "firefight.cover.not_most",
                      params={"count": len(covered), "total": len(targets)}, doc=DOC_COVER))
    return CoverAnswer({k: (c, tuple(r)) for k, (c, r) in per.items()},
                       Said(f"{len(covered)} of {len(targets)} in cover: "
                            + ("+1 Defense" if most else "no cover bonus"),
                            "answer.firefight.cover" if most else "answer.firefight.no_cover", count=len(covered),
                            total=len(targets)),
                       tuple(steps))


def ask_aura(self: "Firefight", plan: TablePlan, args: Args, opts: Mapping[str, Any]) -> AuraAnswer:
    """aura MODEL: Hero (friendly units within 12") and Caster (helpers within 18" in sight)."""
    v = args.parse(("MODEL",))
    m = plan.model(v["MODEL"])
    rules = unit_rules(plan, m.unit_id)
    how = self.measure_how(opts)
    hero: HeroAura | None = None
    caster: CasterAura | None = None
    steps: list[Step] = []
    parts: list[str] = []
    words: list[Any] = []
    if "hero" in rules:
        a = aura(plan, m.model_id, self.from_unit(12.0), who="friends", how=how, rule="Hero",
                 source=SRC_RULES + " (Hero)")
        units = sorted({plan.model(x).unit_id for x in a.inside} - {m.unit_id})
        hero = HeroAura(length_of(self, a.radius_mm, opts), tuple(units), tuple(a.inside))
        steps.append(Step("Hero", f"friendly units within 12\" may take morale tests on the Hero's Quality: "
                          f"{', '.join(units) or 'none'}", SRC_RULES + " (Hero)", value=len(units),
                          msg="firefight.aura.hero", params={"units": ids_or_none(units)}))
        parts.append(f"Hero: {len(units)} unit(s) within 12\"")
        words.append(msg("answer.firefight.hero", n=len(units)))
    if "caster" in rules:
        a = aura(plan, m.model_id, self.from_unit(18.0), who="all", how=how, rule="Caster",
                 source=SRC_RULES + " (Caster)")
        helpers = [x for x in a.inside if "caster" in unit_rules(plan, plan.model(x).unit_id)
                   and plan.model(x).unit_id != m.unit_id
                   and line_of_sight(plan, x, m.model_id, options=opts, ruleset=self).visible]
        caster = CasterAura(length_of(self, a.radius_mm, opts), tuple(helpers), rule_value(plan, m.unit_id, "caster"))
        steps.append(Step("Caster", f"casters within 18\" in sight may spend tokens to help or hinder: "
                          f"{', '.join(helpers) or 'none'}", SRC_RULES + " (Caster)", value=len(helpers),
                          msg="firefight.aura.caster", params={"helpers": ids_or_none(helpers)}))
        parts.append(f"Caster: {len(helpers)} helper(s) within 18\" in sight")
        words.append(msg("answer.firefight.caster", n=len(helpers)))
    if not parts:
        raise InvalidActionError(f"aura: {m.model_id}'s unit has no Hero or Caster rule", msg_id="firefight.aura.none",
                                 params={"model": m.model_id})
    summary = Said("; ".join(parts), "answer.firefight.aura" if len(words) == 1 else "answer.firefight.auras",
                   first=words[0], second=words[-1])
    return AuraAnswer(m.model_id, summary, hero, caster, tuple(steps))


def _move_allowance_in(self: "Firefight", plan: TablePlan, unit_id: str, action: str) -> tuple[float, list[str]]:
    """A unit's move for ``action`` with Fast/Slow, read from its first model's rules (as `activate` does)."""
    base = ACTION_IN[action]
    models = plan.models_of(unit_id)
    rules = self.special_rules(plan, models[0]) if models else tuple(plan.unit(unit_id).rules or ())
    notes = []
    if has_rule(rules, "Fast") and action != "hold":
        base += 2.0 if action == "advance" else 4.0
        notes.append("Fast")
    if has_rule(rules, "Slow") and action != "hold":
        base -= 2.0 if action == "advance" else 4.0
        notes.append("Slow")
    return max(base, 0.0), notes


def charge_reach(self: "Firefight", plan: TablePlan, unit_id: str, target_unit: str, reach_in: float,
                 opts: Mapping[str, Any]) -> dict[str, ChargeReach]:
    """Each model's charge reach to the nearest model of ``target_unit`` (Mouvement; Terrain difficile).

    A straight path through difficult terrain caps the move at 6" (Strider or Flying ignore it);
    an impassable piece in the way blocks. The one reach rule of the ``charge`` question and
    the ``activate`` action.
    """
    mine, theirs = plan.models_of(unit_id), plan.models_of(target_unit)
    how = self.measure_how(opts)
    per: dict[str, ChargeReach] = {}
    for m in mine:
        rules = self.special_rules(plan, m)
        ignores = has_rule(rules, "Strider") or has_rule(rules, "Flying")
        c = closest_models([m], theirs, how=how)
        target = plan.model(c.b_id)
        prof = path_profile(m.position_mm, target.position_mm, plan.terrain, lambda p: self.kind_of(p).movement)
        cap = reach_in
        if prof.inside_mm("difficult") > 0 and not ignores:
            cap = min(cap, 6.0)
        reach_ok = c.distance_mm <= self.from_unit(cap) + 1e-6 and not prof.blocked
        per[m.model_id] = ChargeReach(c.b_id, round(c.distance_mm, 2), cap, prof.inside_mm("difficult") > 0,
                                      tuple(prof.blocked), reach_ok)
    return per


def ask_charge(self: "Firefight", plan: TablePlan, args: Args, opts: Mapping[str, Any]) -> ChargeAnswer:
    """charge UNIT TARGET_UNIT: is at least one model within charge reach of the target? (difficult terrain caps 6")."""
    v = args.parse(("UNIT", "TARGET_UNIT"))
    mine, theirs = plan.models_of(v["UNIT"]), plan.models_of(v["TARGET_UNIT"])
    if not mine or not theirs:
        raise InvalidActionError("charge: both units need models on the table", msg_id="firefight.units_need_models")
    reach_in, notes = _move_allowance_in(self, plan, v["UNIT"], "charge")
    ignores = all(has_rule(self.special_rules(plan, m), "Strider") or has_rule(self.special_rules(plan, m), "Flying")
                  for m in mine)
    per = charge_reach(self, plan, v["UNIT"], v["TARGET_UNIT"], reach_in, opts)
    can = [k for k, p in per.items() if p.in_reach]
    steps = [Step("charge reach", f"charge {reach_in:g}\"" + (f" ({', '.join(notes)})" if notes else "")
                  + "; a straight path through difficult terrain caps the move at 6\""
                  + (" (ignored: Strider/Flying)" if ignores else ""), SRC_MOVE + " / " + SRC_TERRAIN, value=reach_in,
                  msg="firefight.charge.reach_ignored" if ignores else "firefight.charge.reach",
                  params={"reach": reach_in, "rules": f" ({', '.join(notes)})" if notes else ""}),
             Step("charge", f"{len(can)} model(s) within reach of {v['TARGET_UNIT']}: "
                  + ("the unit may charge" if can else "the unit may not charge"), SRC_MOVE, value=bool(can),
                  msg="firefight.charge.may" if can else "firefight.charge.may_not",
                  params={"count": len(can), "target": v["TARGET_UNIT"]})]
    return ChargeAnswer(per, Said(f"{'may' if can else 'may not'} charge ({len(can)} model(s) in reach)",
                                  "answer.firefight.may_charge" if can else "answer.firefight.may_not_charge",
                                  n=len(can)), tuple(steps))


def ask_melee(self: "Firefight", plan: TablePlan, args: Args, opts: Mapping[str, Any]) -> MeleeAnswer:
    """melee UNIT ENEMY_UNIT: models within 2" horizontally of an enemy, who must fight."""
    v = args.parse(("UNIT", "ENEMY_UNIT"))
    mine, theirs = plan.models_of(v["UNIT"]), plan.models_of(v["ENEMY_UNIT"])
    from rules.rulesets.firefight.reach import in_melee_reach, out_of_reach_above

    fighting = {m.model_id: tuple(t.model_id for t in theirs if in_melee_reach(m, t)) for m in mine}
    fighters = [k for k, e in fighting.items() if e]
    high = sorted({f"{m.model_id}-{t.model_id}" for m in mine for t in theirs if out_of_reach_above(m, t)})
    steps = [Step("melee", f"models within 2\" horizontally and 4\" vertically of an enemy fight with all their melee "
                  f"weapons: {', '.join(fighters) or 'none'}", SRC_MELEE, value=len(fighters),
                  msg="firefight.melee.fighters", params={"models": ids_or_none(fighters)})]
    if high:
        steps.append(Step("height", f"within 2\" on the plan but more than 4\" apart in height (elevation): "
                          f"{', '.join(high)}; they do not fight", SRC_MELEE,
                          msg="firefight.melee.height", params={"pairs": high}))
    return MeleeAnswer(fighting, tuple(high), Said(f"{len(fighters)} of {len(mine)} model(s) fight",
                                                   "answer.firefight.melee", n=len(fighters), of=len(mine)),
                       tuple(steps))


def ask_blast(self: "Firefight", plan: TablePlan, args: Args, opts: Mapping[str, Any]) -> BlastAnswer:
    """blast FIRING_UNIT TARGET_UNIT --x X: Blast(X), enemy models within 3" of the target unit."""
    v = args.parse(("FIRING_UNIT", "TARGET_UNIT"), flags={"x": "int"})
    if "x" not in v or v["x"] < 1:
        raise InvalidActionError(f"blast: give the weapon's Blast(X) with --x X (1 or more); usage: {v['_usage']}",
                                 msg_id="firefight.blast.need_x")
    side = plan.unit(v["FIRING_UNIT"]).side
    targets = plan.models_of(v["TARGET_UNIT"])
    if not targets:
        raise InvalidActionError(f"blast: unit {v['TARGET_UNIT']!r} has no model on the table",
                                 msg_id="firefight.unit_no_models", params={"unit": v["TARGET_UNIT"]})
    reach = self.from_unit(3.0)
    near = [m for m in plan.models if plan.unit(m.unit_id).side != side
            and any(model_distance_mm(m, t) <= reach + 1e-6 for t in targets)]
    units = sorted({m.unit_id for m in near})
    mult = min(int(v["x"]), len(near))
    steps = [Step("Blast", f"{len(near)} enemy model(s) within 3\" of {v['TARGET_UNIT']}: each hit becomes "
                  f"{mult} hit(s) (at most X={v['x']}), shared evenly between {', '.join(units)}; cover is ignored",
                  SRC_RULES + " (Blast)", value=mult, msg="firefight.blast.ask",
                  params={"count": len(near), "target": v["TARGET_UNIT"], "mult": mult, "x": v["x"],
                          "units": ids_or_none(units)})]
    return BlastAnswer(tuple(m.model_id for m in near), mult, tuple(units),
                       Said(f"each hit x{mult} ({len(near)} model(s) within 3\"), shared by {len(units)} unit(s)",
                            "answer.firefight.blast", mult=mult, n=len(near), units=len(units)),
                       tuple(steps))


def ask_objectives(self: "Firefight", plan: TablePlan, args: Args, opts: Mapping[str, Any]) -> ObjectivesAnswer:
    """objectives: seized by a side with a model within 3" and no enemy within 3"; contested when both."""
    args.parse(())
    states = objective_states(plan, self.from_unit(3.0), how=self.measure_how(opts),
                              can_hold=lambda m: not m.has_status("shaken"))
    parts = [f"{s.objective_id}: " + (s.controller if s.controller else "contested" if s.contested else "nobody near")
             for s in states]
    held = [msg("answer.objectives.one", objective=s.objective_id,
                nearest=s.controller if s.controller else msg("answer.firefight.contested" if s.contested
                                                              else "answer.firefight.nobody_near"))
            for s in states]
    steps = [Step("objectives", "a unit within 3\" of an objective with no enemy within 3\" seizes it; if both sides "
                  "are, it is contested (neutral); Shaken models cannot seize or contest", SRC_MISSION,
                  msg="firefight.objectives.rule")]
    summary = (Said("; ".join(parts), "answer.objectives", objectives=semicolons(held)) if parts
               else Said("no objectives", "answer.firefight.no_objectives"))
    return ObjectivesAnswer(tuple(states), summary, tuple(steps))


def deployment_edges(plan: TablePlan, opts: Mapping[str, Any]) -> dict[str, str]:
    """Return each side's deployment edge from the ``deployment_edges`` option."""
    sides: list[str] = []
    for u in plan.units:
        if u.side not in sides:
            sides.append(u.side)
    out: dict[str, str] = {}
    for part in str(opts.get("deployment_edges", "")).split(","):
        key, eq, edge = part.partition("=")
        key, edge = key.strip(), edge.strip()
        if not eq or edge not in ("top", "bottom", "left", "right"):
            raise InvalidActionError(f"option deployment_edges: expected side=edge pairs (edges top, bottom, left, "
                                     f"right), got {opts.get('deployment_edges')!r}",
                                     msg_id="firefight.deployment.bad_edges",
                                     params={"value": str(opts.get("deployment_edges"))})
        if key in ("first", "second"):
            idx = 0 if key == "first" else 1
            if idx < len(sides):
                out.setdefault(sides[idx], edge)
        else:
            out[key] = edge
    return out


DEPLOYMENT_DEPTH_IN = 12.0  # Préparation (déploiement): within 12" of one's table edge


def deployment_zones(self: "Firefight", plan: TablePlan, options: Mapping[str, Any]) -> tuple[DeploymentZone, ...]:
    """Each side's deployment zone: within 12" of its table edge (Préparation, déploiement)."""
    depth = self.from_unit(DEPLOYMENT_DEPTH_IN)
    return tuple(DeploymentZone(side, edge, depth, deployment_zone(plan, edge, depth))
                 for side, edge in deployment_edges(plan, options).items())


def ask_deployment(self: "Firefight", plan: TablePlan, args: Args, opts: Mapping[str, Any]) -> DeploymentAnswer:
    """deployment: is every unit wholly within 12" of its side's table edge?"""
    args.parse(())
    edges = deployment_edges(plan, opts)
    zones = {z.side: z.zone for z in deployment_zones(self, plan, opts)}
    per: dict[str, UnitDeployment] = {}
    for u in plan.units:
        ms = plan.models_of(u.unit_id)
        if u.side not in edges or not ms:
            continue
        zone = zones[u.side]
        inside = wholly_inside(zone, list(ms))
        per[u.unit_id] = UnitDeployment(u.side, edges[u.side], tuple(m.model_id for m, i in zip(ms, inside) if not i))
    bad = [k for k, p in per.items() if not p.inside]
    steps = [Step("deployment",
                  "each side deploys within 12\" of its table edge "
                  f"({', '.join(f'{s}: {e}' for s, e in edges.items())}); "
                  f"{len(bad)} unit(s) outside: {', '.join(bad) or 'none'}", SRC_DEPLOY,
                  option=f"deployment_edges={opts.get('deployment_edges')}", msg="firefight.deployment.check",
                  params={"edges": [msg("firefight.side_edge", side=s, edge=msg(f"firefight.edge.{e}"))
                                    for s, e in edges.items()],
                          "count": len(bad), "units": ids_or_none(bad)})]
    return DeploymentAnswer(edges, per, Said("every unit is in its deployment zone", "answer.firefight.deployed")
                            if not bad else Said(f"outside their zone: {', '.join(bad)}", "answer.firefight.outside",
                                                 units=bad), tuple(steps))


def ask_ambush(self: "Firefight", plan: TablePlan, args: Args, opts: Mapping[str, Any]) -> AmbushAnswer:
    """ambush UNIT: is every model more than 9" from every enemy (Ambush deployment)?"""
    v = args.parse(("UNIT",))
    unit = plan.unit(v["UNIT"])
    mine = plan.models_of(unit.unit_id)
    enemies = [m for m in plan.models if plan.unit(m.unit_id).side != unit.side]
    if not mine:
        raise InvalidActionError(f"ambush: unit {unit.unit_id!r} has no model on the table",
                                 msg_id="firefight.unit_no_models", params={"unit": unit.unit_id})
    c = closest_models(mine, enemies, how=self.measure_how(opts)) if enemies else None
    ok = c is None or c.distance_mm > self.from_unit(9.0) + 1e-6
    steps = [Step("Ambush", "units in ambush deploy more than 9\" from enemy units"
                  + (f"; closest enemy {c.b_id} at {self.fmt(c.distance_mm)} from {c.a_id}" if c else ""),
                  SRC_RULES + " (Ambush)", value=ok,
                  msg="firefight.ambush.closest" if c else "firefight.ambush.rule",
                  params={"enemy": c.b_id, "distance": round(self.to_unit(c.distance_mm), 2), "model": c.a_id}
                  if c else {})]
    answer = Said(("allowed" if ok else "too close") + (f": {self.fmt(c.distance_mm)} from {c.b_id}" if c else ""),
                  "answer.firefight.ambush" if ok else "answer.firefight.too_close",
                  closest=msg("answer.firefight.from", length=length_words(self, c.distance_mm, opts), enemy=c.b_id)
                  if c else "")
    return AmbushAnswer(ok, length_of(self, c.distance_mm, opts) if c else None, answer, tuple(steps))


def ask_scout(self: "Firefight", plan: TablePlan, args: Args, opts: Mapping[str, Any]) -> ScoutAnswer:
    """scout UNIT: is the unit wholly within 12" of its deployment zone (24" of its edge)?"""
    v = args.parse(("UNIT",))
    unit = plan.unit(v["UNIT"])
    edges = deployment_edges(plan, opts)
    if unit.side not in edges:
        raise InvalidActionError(f"scout: side {unit.side!r} has no deployment edge; set option deployment_edges",
                                 msg_id="firefight.scout.no_edge", params={"side": unit.side})
    zone = deployment_zone(plan, edges[unit.side], self.from_unit(24.0))
    ms = plan.models_of(unit.unit_id)
    inside = wholly_inside(zone, list(ms))
    out = [m.model_id for m, i in zip(ms, inside) if not i]
    steps = [Step("Scout", f"placed wholly within 12\" of the deployment zone (24\" of the {edges[unit.side]} edge); "
                  f"outside: {', '.join(out) or 'none'}", SRC_RULES + " (Scout)", value=not out,
                  msg="firefight.scout.check",
                  params={"edge": msg(f"firefight.edge.{edges[unit.side]}"), "models": ids_or_none(out)})]
    return ScoutAnswer(tuple(out), edges[unit.side], Said("allowed", "answer.allowed") if not out
                       else Said(f"not allowed: {', '.join(out)} too far", "answer.firefight.too_far", models=out),
                       tuple(steps))


def ask_move(self: "Firefight", plan: TablePlan, args: Args, opts: Mapping[str, Any]) -> MoveAnswer:
    """move MODEL X_MM Y_MM [--action advance|rush|charge]: distance, difficult (6" cap), dangerous, 1" rule."""
    v = args.parse(("MODEL", "X_MM", "Y_MM"), flags={"action": "text"})
    action = v.get("action", "advance")
    if action not in ACTION_IN:
        raise InvalidActionError(f"move: --action must be one of {', '.join(ACTION_IN)}, got {action!r}",
                                 msg_id="firefight.move.bad_action",
                                 params={"action": action, "actions": list(ACTION_IN)})
    m = plan.model(v["MODEL"])
    end = table_point(args, v, plan, "X_MM", "Y_MM")
    allowance_in, notes = _move_allowance_in(self, plan, m.unit_id, action)
    rules = unit_rules(plan, m.unit_id)
    prof = path_profile(m.position_mm, end, plan.terrain, lambda p: self.kind_of(p).movement)
    problems: list[str] = []
    why: list[Step] = []
    cap_in = allowance_in
    if prof.inside_mm("difficult") > 0 and not ("strider" in rules or "flying" in rules):
        cap_in = min(cap_in, 6.0)
    if prof.length_mm > self.from_unit(cap_in) + 1e-6:
        problems.append(f"{self.fmt(prof.length_mm)} is more than {cap_in:g}\"")
        why.append(Step("not allowed", problems[-1], SRC_MOVE, msg="firefight.move.too_far",
                        params={"length": round(self.to_unit(prof.length_mm), 2), "cap": cap_in}))
    if prof.blocked and "flying" not in rules:
        problems.append(f"the path meets impassable terrain: {', '.join(prof.blocked)}")
        why.append(Step("not allowed", problems[-1], SRC_MOVE, msg="firefight.move.impassable",
                        params={"pieces": list(prof.blocked)}))
    moved = Model(m.model_id, m.unit_id, end, m.base_mm)
    side = plan.unit(m.unit_id).side
    close = [e.model_id for e in plan.models if plan.unit(e.unit_id).side != side
             and model_distance_mm(moved, e) < self.from_unit(1.0) - 1e-6]
    if close and action != "charge":
        problems.append(f"it would end within 1\" of enemies ({', '.join(close)}); only a charge may")
        why.append(Step("not allowed", problems[-1], SRC_MOVE, msg="firefight.move.near_enemies",
                        params={"enemies": close}))
    steps = [Step("action", f"{action}: {allowance_in:g}\"" + (f" ({', '.join(notes)})" if notes else ""),
                  "Grimdark Future Firefight, Activation", value=allowance_in, msg="firefight.move.allowance",
                  params={"action": msg(f"firefight.action.{action}"), "move": allowance_in,
                          "rules": f" ({', '.join(notes)})" if notes else ""})]
    if cap_in < allowance_in:
        steps.append(Step("difficult terrain", "the path crosses difficult terrain: 6\" at most", SRC_TERRAIN,
                          value=6.0,
                          msg="firefight.move.difficult"))
    if prof.dangerous:
        steps.append(Step("dangerous terrain",
                          f"crossing {', '.join(prof.dangerous)}: roll a die per model, a wound on "
                          "each 1", SRC_TERRAIN, msg="firefight.move.dangerous",
                          params={"pieces": list(prof.dangerous)}))
    steps += why
    return MoveAnswer(m.model_id, action, length_of(self, self.from_unit(cap_in), opts),
                      length_of(self, prof.length_mm, opts), tuple(prof.dangerous), tuple(problems),
                      Said("allowed", "answer.allowed") if not problems
                      else Said("not allowed: " + "; ".join(problems), "answer.not_allowed",
                                problems=semicolons([msg(s.msg, **s.params) for s in why if s.msg])), tuple(steps))


def ask_jump(self: "Firefight", plan: TablePlan, args: Args, opts: Mapping[str, Any]) -> JumpAnswer:
    """jump GAP_INCHES [--drop INCHES | --model MODEL --to-elevation MM]: free, (X+1) dice on 3+, or impossible.

    Falls from 2" up.

    With ``--model`` the drop is the model's elevation (the ground it stands on, mm) minus
    ``--to-elevation`` (default 0, the table), in inches (Règles spéciales, Sauter / Chuter).
    """
    v = args.parse(("GAP_INCHES",), flags={"drop": "number", "model": "text", "to-elevation": "number"})
    gap = args.number(v, "GAP_INCHES", minimum=0.0)
    drop = float(v.get("drop", 0.0))
    steps: list[Step] = []
    if "model" in v:
        from rules.heights import ground_mm

        if "drop" in v:
            raise InvalidActionError("jump: give --drop or --model (its elevation gives the drop), not both",
                                     msg_id="firefight.jump.drop_or_model")
        m = plan.model(v["model"])
        to = float(v.get("to-elevation", 0.0))
        drop = max(0.0, ground_mm(m) - to) / 25.4
        steps.append(Step("height", f"{m.model_id} stands {ground_mm(m):g} mm up, lands at {to:g} mm: a drop of "
                          f"{drop:.2f}\"", SRC_SPECIAL, value=round(drop, 3), msg="firefight.jump.height",
                          params={"model": m.model_id, "ground": ground_mm(m), "to": to, "drop": round(drop, 2)}))
    if drop < 0:
        raise InvalidActionError("jump: --drop must be 0 or more inches", msg_id="firefight.jump.negative_drop")
    if gap > 6 or drop > 6:
        verdict, dice = "impossible", 0
        steps.append(Step("jump", "a gap or a drop over 6\" cannot be jumped", SRC_SPECIAL,
                          msg="firefight.jump.impossible"))
    elif gap <= 1 and drop <= 3:
        verdict, dice = "normal move", 0
        steps.append(Step("jump", "gaps up to 1\" and drops up to 3\" are part of a normal move", SRC_SPECIAL,
                          msg="firefight.jump.normal"))
    else:
        x = int(math.floor(max(gap, drop) / 3.0 + 1e-9))
        verdict, dice = "jump", x + 1
        steps.append(Step("jump", f"roll {x}+1 = {dice} dice needing 3+ (one per full 3\"); all must pass, "
                          "else the model falls the whole distance", SRC_SPECIAL, value=dice, msg="firefight.jump.dice",
                          params={"x": x, "dice": dice}))
    fall_ap = int(math.floor(drop / 3.0 + 1e-9)) if drop >= 2 else None
    if fall_ap is not None:
        steps.append(Step("fall", f"a fall of {drop:g}\" (2\" or more) deals a hit with AP({fall_ap}) "
                          "(one per full 3\") and ends the activation", SRC_SPECIAL, value=fall_ap,
                          msg="firefight.jump.fall", params={"drop": round(drop, 2), "ap": fall_ap}))
    return JumpAnswer(gap, drop, verdict, dice, fall_ap,
                      Said(verdict + (f": {dice} dice on 3+" if dice else "")
                           + (f"; a fall would be a hit with AP({fall_ap})" if fall_ap is not None else ""),
                           "answer.firefight.jump", verdict=msg(f"answer.firefight.jump.{verdict.replace(' ', '_')}"),
                           dice=msg("answer.firefight.jump_dice", dice=dice) if dice else "",
                           fall=msg("answer.firefight.fall", ap=fall_ap) if fall_ap is not None else ""), tuple(steps))


class Firefight(RuleSet):
    """Grimdark Future Firefight."""

    name = "firefight"
    title = "Grimdark Future Firefight"
    aliases = ("gff", "grimdark", "grimdark-future-firefight", "opr-firefight")
    unit_key = "in"
    terrain_kinds = TERRAIN_KINDS
    option_specs = (
        Option("measure", "edge", "choice", "where distances are measured", "rule-choices.md#firefight-1",
               ("edge", "centre")),
        Option("cohesion", "chain", "choice",
               "coherency as one connected chain, or each model near any other", "rule-choices.md#firefight-2",
               ("chain", "nearest")),
        Option("deployment_edges", "first=top,second=bottom", "text",
               "each side's table edge, by side name or first/second in unit order "
               "(edges: top y=0, bottom, left x=0, right)", "rule-choices.md#firefight-5"),
    )
    question_names = ("distance", "los", "cohesion", "template", "objectives", "terrain",
                      "range", "cover", "aura", "charge", "melee", "blast", "deployment", "ambush",
                      "scout", "move", "jump", "convert", "victory")
    COHESION_MM: ClassVar[float] = inches(1)
    ALL_WITHIN_MM: ClassVar[float] = inches(9)

    def cohesion_rule(self, options: Mapping[str, Any]) -> tuple[float, float | None, str] | None:
        return (self.COHESION_MM, self.ALL_WITHIN_MM, "Grimdark Future Firefight, Mouvement")

    # -- questions and hooks written above as functions of the rule set ---------------------------
    ask_range = ask_range
    ask_cover = ask_cover
    ask_aura = ask_aura
    ask_charge = ask_charge
    ask_melee = ask_melee
    ask_blast = ask_blast
    ask_objectives = ask_objectives
    ask_deployment = ask_deployment
    ask_ambush = ask_ambush
    ask_scout = ask_scout
    ask_move = ask_move
    ask_jump = ask_jump
    charge_reach = charge_reach
    deployment_zones = deployment_zones
    # -- actions (rules/rulesets/firefight/actions.py) and roster checks -----------------------------------
    actions = MappingProxyType({**ACTIONS, **MORE_ACTIONS})  # more_actions: issue 13
    action_arguments = ARGUMENTS
    action_params = MappingProxyType({**PARAMS, **MORE_PARAMS})
    validate_roster = staticmethod(validate_roster)


FIREFIGHT: Firefight = Firefight()
