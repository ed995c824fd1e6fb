"""Star Wars Grandes escarmouches (Newlight): pas of 25 mm, figure by figure.

Sources are the sections of ``seeds/star-wars-grandes-escarmouches.txt``: Règles
de Tir (portée, longue portée, cible cachée, tir à travers une figurine, Zone X),
Phases d'activation (bulles de commandement), Utilisation de la Force (pouvoirs),
Activation d'une figurine (mouvement) and Règles additionnelles (terrain difficile).
"""

from __future__ import annotations

import re
from types import MappingProxyType
from typing import Any, Mapping

from rules.errors import InvalidActionError
from rules.explain import Step, msg
from rules.measure import model_distance_mm, point_distance_mm
from rules.plan import Model, TablePlan
from rules.rulesets.base import Option, RuleSet
from rules.rulesets.common import Args, kind_of_id, length_of, length_words, semicolons, table_point
from rules.rulesets.star_wars.actions import ACTIONS, ARGUMENTS, validate_roster
from rules.rulesets.star_wars.answers import (
    ActivationAnswer,
    AuraAnswer,
    CoverAnswer,
    ForceAnswer,
    ForceTarget,
    Modifier,
    MoveAnswer,
    RangeAnswer,
    ZoneAnswer,
)
from rules.rulesets.star_wars.more_actions import MORE_ACTIONS, MORE_PARAMS
from rules.rulesets.star_wars.params import PARAMS
from rules.terrain import TerrainKind, path_profile
from rules.visibility import line_of_sight
from rules.zones import aura
from tabletracker.words import Said

SRC = "Star Wars Grandes escarmouches, Règles de Tir"


def ids_or_none(ids: Any) -> Any:
    """Return a list of ids as a message parameter, or the message "nobody" when it is empty."""
    out = list(ids)
    return out if out else msg("star_wars.nobody")
SRC_MOVE = "Star Wars Grandes escarmouches, Règles additionnelles (terrain difficile)"

TERRAIN_KINDS = MappingProxyType({k.kind: k for k in (
    TerrainKind("crates", "cover", "difficult", True, ("area",), "crates: an obstacle that can hide a target", SRC),
    TerrainKind("rocks", "cover", "difficult", True, ("area",), "rocks: an obstacle that can hide a target", SRC),
    TerrainKind("low-wall", "cover", "difficult", True, ("line",),
                "low wall (under 1 pas): hides a target behind it, difficult to cross", SRC_MOVE),
    TerrainKind("ladder", "clear", "difficult", False, ("line",), "ladder: difficult to climb", SRC_MOVE),
    TerrainKind("rubble", "clear", "difficult", False, ("area",), "rubble: difficult", SRC_MOVE),
    TerrainKind("wall", "blocks", "impassable", True, ("line", "area"), "wall: blocks sight", SRC),
    TerrainKind("building", "blocks", "impassable", True, ("area",), "building: blocks sight", SRC),
    TerrainKind("open", "clear", "open", False, ("area",), "open ground", SRC),
)})


# -- questions ------------------------------------------------------------------------------------




SRC_SHOOT = "Star Wars Grandes escarmouches, Règles de Tir"
SRC_ZONE = "Star Wars Grandes escarmouches, Règles de Tir (Zone X)"
SRC_BUBBLE = "Star Wars Grandes escarmouches, Phases d'activation"
SRC_FORCE = "Star Wars Grandes escarmouches, Utilisation de la Force"
SRC_MOVE = "Star Wars Grandes escarmouches, Activation d'une figurine"
SRC_DIFFICULT = "Star Wars Grandes escarmouches, Règles additionnelles (terrain difficile)"
BUBBLE_PAS = MappingProxyType({"officer": 2.0, "senior-officer": 3.0})
MOVE_PAS = 4.0
#: Force powers: (range or radius in pas, who, kind, text) - Utilisation de la Force.
POWERS: Mapping[str, tuple[float, str, str, str]] = MappingProxyType({
    "repulsion": (3.0, "enemies", "around", "every enemy closer than 3 pas is knocked down"),
    "telekinesis": (10.0, "enemies", "shot",
                    "a shot of 10 pas (no long range) hitting on 3+; moves a 1-PV enemy 6 pas"),
    "lightning": (6.0, "enemies", "shot", "a shot of 6 pas that always hits (dark side)"),
    "strangle": (4.0, "enemies", "attack", "an attack of 4 pas, not a shot, hitting on 2+ (dark side)"),
    "dun-moch": (15.0, "enemies", "around", "enemies closer than 15 pas get +1 to their Tir and Combat thresholds"),
    "meditation": (4.0, "friends", "around", "friends closer than 4 pas get a 5+ save (light side)"),
    "speed": (6.0, "self", "move", "the figure moves 6 pas more"),
})
POWER_NAMES = MappingProxyType({"répulsion": "repulsion", "repulsion": "repulsion", "télékinésie": "telekinesis",
               "telekinesie": "telekinesis", "telekinesis": "telekinesis", "éclairs": "lightning",
               "eclairs": "lightning", "lightning": "lightning", "étranglement": "strangle",
               "etranglement": "strangle", "strangle": "strangle", "dun-moch": "dun-moch", "dun-möch": "dun-moch",
               "dunmoch": "dun-moch", "méditation": "meditation", "meditation": "meditation",
               "sur-vitesse": "speed", "survitesse": "speed", "speed": "speed"})


def weapon_range_pas(m: Model) -> float | None:
    """Return a figure's weapon range ("Por 10" in its weapons), in pas."""
    for w in m.weapons or ():
        found = re.fullmatch(r"\s*por\s*([0-9.]+)\s*", w, flags=re.IGNORECASE)
        if found:
            return float(found.group(1))
    return None


def _hidden_share(self: "StarWars", plan: TablePlan, s: Model, t: Model, opts: Mapping[str, Any]
                  ) -> tuple[float, list[str]]:
    """Share of the target's base AREA an obstacle hides from the shooter's base centre (choice 8).

    See :mod:`rules.rulesets.star_wars.hidden`; other figures are not obstacles here.
    """
    from rules.rulesets.star_wars.hidden import hidden_share

    share = hidden_share(self, plan, s, t, opts)
    return share.area, list(share.by)


def ask_range(self: "StarWars", plan: TablePlan, args: Args, opts: Mapping[str, Any]) -> RangeAnswer:
    """range SHOOTER TARGET [--weapon-range PAS] [--weapon NAME] [--no-long]: normal, long (+1) or out of range.

    A target hidden more than 50 % by an obstacle is +1 too.

    The weapon range is ``--weapon-range``, else a "Por N" weapon label of the
    shooter, else the Por of ``--weapon`` (a roster weapon) or of the shooter's
    profile, as a shot reads it (:func:`rules.rulesets.star_wars.actions.shot_range_pas`).
    """
    from rules.rulesets.star_wars.actions import shot_range_pas  # late: the combat module imports the rule sets

    v = args.parse(("SHOOTER", "TARGET"), flags={"weapon-range": "number", "weapon": "text", "no-long": "bool"})
    s, t = plan.model(v["SHOOTER"]), plan.model(v["TARGET"])
    if s.model_id == t.model_id:
        raise InvalidActionError("range: name two different figures",
                                 msg_id="star_wars.range.same_figure")
    por = float(v["weapon-range"]) if "weapon-range" in v else None
    if por is None and "weapon" not in v:
        por = weapon_range_pas(s)
    if por is None:
        por = shot_range_pas(plan, s, v.get("weapon"))
    if por is None or por <= 0:
        raise InvalidActionError(f"range: {s.model_id} has no weapon range (no 'Por N' weapon and no Por in "
                                 "its profile or weapon); give it with --weapon-range PAS",
                                 msg_id="star_wars.range.no_range", params={"figure": s.model_id})
    how = self.measure_how(opts)
    d = model_distance_mm(s, t, how=how)
    d_pas = self.to_unit(d)
    long_ok = not v.get("no-long")
    if d_pas <= por + 1e-9:
        band, mod = "normal", 0
    elif long_ok and d_pas <= 2 * por + 1e-9:
        band, mod = "long", 1
    else:
        band, mod = "out of range", None
    steps = [self.measure_step(opts),
             Step("range", f"{d_pas:.2f} pas; weapon range {por:g} pas"
                  + (f", long range up to {2 * por:g} pas" if long_ok else ", no long range")
                  + f": {band}" + (" (+1 to the Tir threshold)" if mod == 1 else ""), SRC_SHOOT,
                  value=mod if mod is not None else "out of range",
                  msg="star_wars.range.band_long" if long_ok else "star_wars.range.band_no_long",
                  params={"distance": round(d_pas, 2), "range": por, "long": 2 * por,
                          "band": msg("star_wars.band." + {"normal": "normal", "long": "long"}.get(band, "out"))})]
    mods: list[Modifier] = []
    if mod:
        mods.append(Modifier("long range", 1))
    sight = line_of_sight(plan, s.model_id, t.model_id, options=opts, ruleset=self)
    figures = [i for k, i, _ in sight.blockers if k == "figure"]
    if figures:
        steps.append(Step("through a figure", f"no shot through another figure: {', '.join(figures)} "
                          "stand in some of the sight lines", SRC_SHOOT + " (note importante)",
                          msg="star_wars.range.through_figure", params={"figures": figures}))
    hidden, by = _hidden_share(self, plan, s, t, opts)
    limit = float(opts.get("hidden_threshold", 0.5))
    if hidden > limit + 1e-9:
        mods.append(Modifier("hidden more than 50 % by an obstacle", 1))
        steps.append(Step("hidden", f"{hidden:.0%} of the target's base is hidden by {', '.join(by)}: +1",
                          SRC_SHOOT, value=1, option=self.changed(opts, "hidden_threshold"),
                          msg="star_wars.range.hidden", params={"share": round(100 * hidden), "by": by}))
    total = sum(m.threshold for m in mods)
    answer = Said(f"{d_pas:.2f} pas: {band}" + (f"; Tir threshold +{total}" if total and mod is not None else "")
                  + ("" if sight.visible else "; no line of sight"), "answer.star_wars.range",
                  distance=round(d_pas, 2),
                  band=msg("answer.star_wars.band." + {"normal": "normal", "long": "long"}.get(band, "out")),
                  threshold=msg("answer.star_wars.threshold", total=total) if total and mod is not None else "",
                  sight="" if sight.visible else msg("answer.star_wars.no_sight"))
    return RangeAnswer(length_of(self, d, opts), por, band, mod is not None, sight.visible, hidden, tuple(mods), answer,
                       tuple(steps))


def ask_cover(self: "StarWars", plan: TablePlan, args: Args, opts: Mapping[str, Any]) -> CoverAnswer:
    """cover SHOOTER TARGET: is the target hidden more than 50 % by an obstacle (+1 to the Tir threshold)?"""
    v = args.parse(("SHOOTER", "TARGET"))
    s, t = plan.model(v["SHOOTER"]), plan.model(v["TARGET"])
    from rules.rulesets.star_wars.hidden import hidden_share

    share = hidden_share(self, plan, s, t, opts)
    hidden, by = share.area, list(share.by)
    limit = float(opts.get("hidden_threshold", 0.5))
    more = hidden > limit + 1e-9
    steps = [Step("hidden", f"{hidden:.0%} of {t.model_id}'s base AREA is hidden from {s.model_id}'s base centre"
                  + (f" by {', '.join(by)}" if by else "")
                  + (": more than 50 %, +1" if more else ": not more than 50 %")
                  + f" (across its width: {share.width:.0%}; the area decides)",
                  SRC_SHOOT, value=round(hidden, 4), option=self.changed(opts, "hidden_threshold"),
                  msg="star_wars.cover.more" if more else "star_wars.cover.not_more",
                  params={"share": round(100 * hidden), "target": t.model_id, "shooter": s.model_id,
                          "by": ids_or_none(by), "width": round(100 * share.width)})]
    return CoverAnswer(hidden, share.width, tuple(by), more,
                       Said(f"{hidden:.0%} hidden: " + ("+1 to the Tir threshold" if more else "no modifier"),
                            "answer.star_wars.hidden_more" if more else "answer.star_wars.hidden",
                            share=f"{hidden:.0%}".removesuffix("%")), tuple(steps))


def _bubble(self: "StarWars", plan: TablePlan, m: Model, opts: Mapping[str, Any]) -> Any:
    role = (m.role or "").lower()
    if role not in BUBBLE_PAS:
        raise InvalidActionError(f"{m.model_id} is not a hero: its role must be officer (2 pas) or senior-officer "
                                 f"(3 pas), got {m.role!r}",
                                 msg_id="star_wars.aura.not_hero",
                                 params={"figure": m.model_id, "role": m.role or msg("star_wars.no_role")})
    return aura(plan, m.model_id, self.from_unit(BUBBLE_PAS[role]), who="friends", how=self.measure_how(opts),
                strict=True, rule="command bubble", source=SRC_BUBBLE)


def _is_hero(m: Model) -> bool:
    return (m.role or "").lower() in BUBBLE_PAS


def ask_aura(self: "StarWars", plan: TablePlan, args: Args, opts: Mapping[str, Any]) -> AuraAnswer:
    """aura HERO: the friendly non-hero figures inside a hero's command bubble (officer 2 pas, senior 3 pas)."""
    v = args.parse(("HERO",))
    m = plan.model(v["HERO"])
    a = _bubble(self, plan, m, opts)
    inside = [k for k in a.inside if not _is_hero(plan.model(k))]
    steps = list(a.steps) + [Step("bubble",
                                  f"{m.role} {m.model_id}: bubble of {BUBBLE_PAS[(m.role or '').lower()]:g} pas; "
                                  f"non-hero figures inside: {', '.join(inside) or 'none'}", SRC_BUBBLE,
                                  msg="star_wars.aura.bubble",
                                  params={"role": str(m.role), "hero": m.model_id,
                                          "bubble": BUBBLE_PAS[(m.role or "").lower()],
                                          "figures": ids_or_none(inside)})]
    return AuraAnswer(m.model_id, m.role, length_of(self, a.radius_mm, opts), tuple(inside),
                      Said(f"{len(inside)} figure(s) in {m.model_id}'s bubble: {', '.join(inside) or 'none'}",
                           "answer.star_wars.bubble", n=len(inside), hero=m.model_id,
                           figures=list(inside) or msg("answer.none")),
                      tuple(steps))


def ask_activation(self: "StarWars", plan: TablePlan, args: Args, opts: Mapping[str, Any]) -> ActivationAnswer:
    """activation HERO: figures that may be activated with the hero (in its bubble, not yet activated)."""
    v = args.parse(("HERO",))
    m = plan.model(v["HERO"])
    a = _bubble(self, plan, m, opts)
    cand = [plan.model(k) for k in a.inside if not _is_hero(plan.model(k))]
    can = [c.model_id for c in cand if not c.has_status("activated")]
    done = [c.model_id for c in cand if c.has_status("activated")]
    steps = list(a.steps) + [Step("activation", f"with {m.model_id}: {', '.join(can) or 'nobody'}"
                                  + (f"; already activated this turn: {', '.join(done)}" if done else ""), SRC_BUBBLE,
                                  value=len(can),
                                  msg="star_wars.activation.done" if done else "star_wars.activation.free",
                                  params={"hero": m.model_id, "figures": ids_or_none(can), "done": done})]
    return ActivationAnswer(m.model_id, m.has_status("activated"), tuple(can), tuple(done),
                            Said(f"{len(can)} figure(s) may be activated with {m.model_id}: {', '.join(can) or 'none'}",
                                 "answer.star_wars.activation", n=len(can), hero=m.model_id,
                                 figures=list(can) or msg("answer.none")),
                            tuple(steps))


def _zone(self: "StarWars", plan: TablePlan, centre: tuple[float, float], radius_pas: float, opts: Mapping[str, Any],
          exclude: str | None = None) -> list[tuple[float, str]]:
    how = str(opts.get("zone_measure", "edge"))
    out = []
    for m in plan.models:
        if m.model_id == exclude:
            continue
        d = point_distance_mm(m, centre, how=how)
        if d < self.from_unit(radius_pas) - 1e-9:
            out.append((d, m.model_id))
    return sorted(out)


def ask_zone(self: "StarWars", plan: TablePlan, args: Args, opts: Mapping[str, Any]) -> ZoneAnswer:
    """zone X_MM Y_MM --radius PAS (or zone MODEL --radius PAS): every figure closer than X pas is attacked."""
    raw = list(args.raw)
    if raw and not raw[0].startswith("--") and kind_of_id_safe(plan, raw[0]) == "model":
        v = args.parse(("MODEL",), flags={"radius": "number"})
        firer = plan.model(v["MODEL"])
        centre, exclude = firer.position_mm, firer.model_id
    else:
        v = args.parse(("X_MM", "Y_MM"), flags={"radius": "number"})
        centre, exclude = table_point(args, v, plan, "X_MM", "Y_MM"), None
    if "radius" not in v or v["radius"] <= 0:
        raise InvalidActionError(f"zone: give the weapon's Zone X with --radius PAS (above 0); usage: {v['_usage']}",
                                 msg_id="star_wars.zone.need_radius")
    hit = _zone(self, plan, centre, float(v["radius"]), opts, exclude)
    names = [k for _, k in hit]
    steps = [Step("Zone X", f"every figure, friend or foe, closer than {v['radius']:g} pas to "
                  f"{'the firer' if exclude else 'the point of impact'} (to its base "
                  f"{'edge' if opts.get('zone_measure') == 'edge' else 'centre'}) takes a shot: "
                  f"{', '.join(names) or 'none'}",
                  SRC_ZONE, value=len(names), option=self.changed(opts, "zone_measure"),
                  msg="star_wars.zone.firer" if exclude else "star_wars.zone.point",
                  params={"radius": v["radius"],
                          "base": msg("star_wars.base." + ("edge" if opts.get("zone_measure") == "edge" else "centre")),
                          "figures": ids_or_none(names)})]
    return ZoneAnswer((centre[0], centre[1]), v["radius"], tuple(names),
                      Said(f"{len(names)} figure(s) attacked: {', '.join(names) or 'none'}", "answer.star_wars.zone",
                           n=len(names), figures=list(names) or msg("answer.none")), tuple(steps))


def kind_of_id_safe(plan: TablePlan, ident: str) -> str | None:
    try:
        return kind_of_id(plan, ident)
    except InvalidActionError:
        return None


def ask_force(self: "StarWars", plan: TablePlan, args: Args, opts: Mapping[str, Any]) -> ForceAnswer:
    """force POWER USER [TARGET]: who a Force power reaches (3, 4, 6, 10, 15 pas)."""
    v = args.parse(("POWER", "USER"), optional=("TARGET",))
    key = POWER_NAMES.get(v["POWER"].strip().lower())
    if key is None:
        raise InvalidActionError(f"force: unknown power {v['POWER']!r}; powers are: {', '.join(POWERS)}",
                                 msg_id="star_wars.force.unknown", params={"power": v["POWER"], "powers": list(POWERS)})
    reach, who, kind, text = POWERS[key]
    user = plan.model(v["USER"])
    how = self.measure_how(opts)
    steps = [Step(key, text, SRC_FORCE, value=reach,
                  msg=f"star_wars.power.{key}")]
    if kind == "around":
        a = aura(plan, user.model_id, self.from_unit(reach), who=who, how=how, strict=True, rule=key, source=SRC_FORCE)
        steps.extend(a.steps)
        return ForceAnswer(key, reach, user.model_id,
                           Said(f"{len(a.inside)} figure(s) affected: {', '.join(a.inside) or 'none'}",
                                "answer.star_wars.affected", n=len(a.inside),
                                figures=list(a.inside) or msg("answer.none")),
                           affected=tuple(a.inside), steps=tuple(steps))
    elif kind == "move":
        return ForceAnswer(key, reach, user.model_id, Said(f"{user.model_id} moves {reach:g} pas more",
                                                           "answer.star_wars.moves_more", model=user.model_id,
                                                           reach=reach),
                           extra_move=length_of(self, self.from_unit(reach), opts), steps=tuple(steps))
    else:
        if "TARGET" not in v:
            raise InvalidActionError(f"force: {key} needs a TARGET figure; usage: {v['_usage']}",
                                     msg_id="star_wars.force.needs_target", params={"power": key})
        t = plan.model(v["TARGET"])
        d = model_distance_mm(user, t, how=how)
        ok = d <= self.from_unit(reach) + 1e-9
        seen = line_of_sight(plan, user.model_id, t.model_id, options=opts, ruleset=self).visible
        steps.append(Step("reach", f"{t.model_id} at {self.fmt(d)}: {'in' if ok else 'out of'} reach "
                          f"({reach:g} pas{', no long range' if key == 'telekinesis' else ''})", SRC_FORCE, value=ok,
                          msg="star_wars.force.in_reach" if ok else "star_wars.force.not_in_reach",
                          params={"target": t.model_id, "distance": round(self.to_unit(d), 2), "reach": reach,
                                  "note": msg("star_wars.force.no_long") if key == "telekinesis" else ""}))
        return ForceAnswer(key, reach, user.model_id,
                           Said(f"{t.model_id} {'in' if ok else 'out of'} reach ({self.fmt(d)} of {reach:g} pas)"
                                + ("" if seen else "; not in sight"),
                                "answer.star_wars.in_reach" if ok else "answer.star_wars.out_of_reach",
                                target=t.model_id, length=length_words(self, d, opts), reach=reach,
                                sight="" if seen else msg("answer.star_wars.not_in_sight")),
                           target=ForceTarget(t.model_id, length_of(self, d, opts), ok, seen), steps=tuple(steps))


def ask_move(self: "StarWars", plan: TablePlan, args: Args, opts: Mapping[str, Any]) -> MoveAnswer:
    """move MODEL X_MM Y_MM [--run] [--move PAS]: 4 pas (+ half with a run); difficult ground counts double."""
    v = args.parse(("MODEL", "X_MM", "Y_MM"), flags={"run": "bool", "move": "number"})
    m = plan.model(v["MODEL"])
    end = table_point(args, v, plan, "X_MM", "Y_MM")
    base = float(v.get("move", MOVE_PAS))
    allowance = base * (1.5 if v.get("run") else 1.0)
    prof = path_profile(m.position_mm, end, plan.terrain, lambda p: self.kind_of(p).movement)
    cost = prof.length_mm + prof.inside_mm("difficult")
    for _tid, _kind, effect, height in prof.lines:
        if effect == "difficult":
            # A linear obstacle (under 1 pas high) or a ladder is difficult ground: climbing it counts double.
            cost += 2 * min(height if height is not None else self.from_unit(1.0), self.from_unit(1.0))
    problems = []
    said: list[tuple[str, Mapping[str, Any]]] = []  # each problem as a message
    if prof.blocked:
        problems.append(f"impassable: {', '.join(prof.blocked)}")
        said.append(("star_wars.move.impassable", {"pieces": list(prof.blocked)}))
    if cost > self.from_unit(allowance) + 1e-6:
        problems.append(f"it costs {self.fmt(cost)}, more than {allowance:g} pas")
        said.append(("star_wars.move.too_far", {"cost": round(self.to_unit(cost), 2), "allowance": allowance}))
    steps = [Step("movement", f"{base:g} pas"
                  + (f", {allowance:g} with the run (half a move more)" if v.get("run") else ""),
                  SRC_MOVE, value=allowance,
                  msg="star_wars.move.run" if v.get("run") else "star_wars.move.walk",
                  params={"move": base, "allowance": allowance}),
             Step("difficult", f"path {self.fmt(prof.length_mm)}, of which {self.fmt(prof.inside_mm('difficult'))} in "
                  "difficult terrain (double); obstacles crossed: "
                  f"{', '.join(line[0] for line in prof.lines) or 'none'}: "
                  f"costs {self.fmt(cost)}", SRC_DIFFICULT, value=round(self.to_unit(cost), 3),
                  msg="star_wars.move.cost",
                  params={"path": round(self.to_unit(prof.length_mm), 2),
                          "difficult": round(self.to_unit(prof.inside_mm("difficult")), 2),
                          "obstacles": [line[0] for line in prof.lines] or msg("star_wars.none"),
                          "cost": round(self.to_unit(cost), 2)})]
    steps += [Step("not allowed", p, SRC_MOVE, msg=m, params=ps) for p, (m, ps) in zip(problems, said)]
    answer = Said(f"costs {self.fmt(cost)}: " + ("allowed" if not problems else "not allowed: " + "; ".join(problems)),
                  "answer.star_wars.move", cost=length_words(self, cost, opts),
                  verdict=msg("answer.allowed") if not problems
                  else msg("answer.not_allowed", problems=semicolons([msg(m, **ps) for m, ps in said])))
    return MoveAnswer(m.model_id, length_of(self, cost, opts), allowance, tuple(problems), answer, tuple(steps))


class StarWars(RuleSet):
    """Star Wars Grandes escarmouches."""

    name = "star-wars"
    title = "Star Wars Grandes escarmouches"
    aliases = ("starwars", "sw", "grandes escarmouches")
    unit_key = "pas"
    terrain_kinds = TERRAIN_KINDS
    models_block_sight = "models"
    option_specs = (
        Option("measure", "edge", "choice", "where distances are measured", "rule-choices.md#star-wars-1",
               ("edge", "centre")),
        Option("zone_measure", "edge", "choice",
               "Zone X measured from the point of impact to the base edge (or to the base centre)",
               "rule-choices.md#star-wars-2", ("edge", "centre")),
        Option("hidden_threshold", 0.5, "number",
               "fraction of the target's base an obstacle must hide for the +1 (more than this)",
               "rule-choices.md#star-wars-3"),
    )
    question_names = ("distance", "los", "template", "objectives", "terrain", "range", "cover",
                      "aura", "activation", "zone", "force", "move", "convert", "victory")

    # -- questions and hooks written above as functions of the rule set ---------------------------
    ask_range = ask_range
    ask_cover = ask_cover
    ask_aura = ask_aura
    ask_activation = ask_activation
    ask_zone = ask_zone
    ask_force = ask_force
    ask_move = ask_move
    # -- actions (rules/rulesets/star_wars/actions.py) and roster checks -----------------------------------
    actions = MappingProxyType({**ACTIONS, **MORE_ACTIONS})  # more_actions: issue 13
    action_arguments = ARGUMENTS
    action_params = MappingProxyType({**PARAMS, **MORE_PARAMS})
    validate_roster = staticmethod(validate_roster)


STAR_WARS: StarWars = StarWars()
