"""AT-43 (shooting chapter): cm, range bands of 10 cm, fire zone, cover zone, template.

Sources are the sections of ``seeds/at-43-tirs.txt``: Organes de visée (range
bands), 2/ Détermination de la zone de feu, 3/ Test de tir (qui peut tirer,
difficulté), Tir direct : qui est touché ?, Tir indirect : qui est touché,
Couvert, 4/ Dégâts et retrait des pertes.
"""

from __future__ import annotations

import math
from types import MappingProxyType
from typing import Any, Mapping

import shapely
import shapely.affinity
import shapely.ops

from rules.dice import needed_text
from rules.errors import InvalidActionError
from rules.explain import Step, msg
from rules.measure import model_distance_mm
from rules.plan import TablePlan
from rules.rulesets.at43.actions import ACTIONS, DOC_TABLE, validate_roster
from rules.rulesets.at43.answers import (
    Accuracy,
    CasualtiesAnswer,
    CoverAnswer,
    CoverState,
    FireZoneAnswer,
    IndirectAnswer,
    RangeAnswer,
    ShootersAnswer,
)
from rules.rulesets.at43.dice import at43_roll_needed
from rules.rulesets.at43.fire_zone import at43_template_radius_cm, fire_zone, sweep_beyond
from rules.rulesets.at43.more_actions import MORE_ACTIONS, MORE_PARAMS
from rules.rulesets.at43.params import PARAMS
from rules.rulesets.at43.words import how_msg, need_msg
from rules.rulesets.base import Option, RuleSet
from rules.rulesets.common import Args, leader_model, length_of
from rules.terrain import TerrainKind, terrain_geometry
from rules.visibility import line_of_sight, sight_pairs
from rules.zones import bases_hull, deviate, partly_inside, template
from tabletracker.words import Said

SRC = "AT-43, Couvert"

TERRAIN_KINDS = MappingProxyType({k.kind: k for k in (
    TerrainKind("low-wall", "cover", "open", True, ("line", "area"), "low wall: gives cover", SRC),
    TerrainKind("barricade", "cover", "open", True, ("line", "area"), "barricade: gives cover", SRC),
    TerrainKind("crates", "cover", "difficult", True, ("area",), "crates: gives cover", SRC),
    TerrainKind("ruins", "cover", "difficult", True, ("area",), "ruins: gives cover", SRC),
    TerrainKind("crater", "cover", "difficult", True, ("area",), "crater: gives cover", SRC),
    TerrainKind("container", "blocks", "impassable", True, ("area",), "container: hides what is behind it", SRC),
    TerrainKind("building", "blocks", "impassable", True, ("area",), "building: hides what is behind it", SRC),
    TerrainKind("open", "clear", "open", False, ("area",), "open ground", SRC),
)})


# -- questions ------------------------------------------------------------------------------------




SRC_RANGE = "AT-43, Organes de visée"
SRC_TEST = "AT-43, 3/ Test de tir"
SRC_ZONE = "AT-43, 2/ Détermination de la zone de feu"
SRC_HIT = "AT-43, Tir direct : qui est touché ?"
SRC_COVER = "AT-43, Couvert"
SRC_LOSSES = "AT-43, 4/ Dégâts et retrait des pertes"
SRC_INDIRECT = "AT-43, Tir indirect : qui est touché"
COVER_IGNORED_WITHIN_MM = 100.0  # 10 cm (AT-43, Couvert)
BAND_MM = 100.0  # 10 cm per range band (AT-43, Organes de visée)


def range_band(distance_mm: float) -> int:
    """Return AT-43's range band ("portée") of a distance: under 10 cm is 0, 10-19.99 cm is 1...

    >>> range_band(99.9), range_band(100.0), range_band(452.0)
    (0, 1, 4)
    """
    return int(math.floor(distance_mm / BAND_MM + 1e-9))


def _two_units(plan: TablePlan, args: Args, extra: Mapping[str, str] | None = None) -> dict[str, Any]:
    v = args.parse(("FIRING_UNIT", "TARGET_UNIT"), flags=extra)
    for key in ("FIRING_UNIT", "TARGET_UNIT"):
        plan.unit(v[key])
    if v["FIRING_UNIT"] == v["TARGET_UNIT"]:
        raise InvalidActionError(f"{args.question}: name two different units", msg_id="at43.two_units",
                                 params={"question": args.question})
    return v


def _range(self: "AT43", plan: TablePlan, firing: str, target: str, opts: Mapping[str, Any]
           ) -> tuple[float, int, list[Step]]:
    lf, s1 = leader_model(plan, firing)
    lt, s2 = leader_model(plan, target)
    how = self.measure_how(opts)
    d = model_distance_mm(lf, lt, how=how)
    band = range_band(d)
    steps = s1 + s2 + [
        Step("range", f"measured between the leaders {lf.model_id} and {lt.model_id}: {d / 10:.1f} cm "
             f"({'base edge to base edge' if how == 'edge' else 'centre to centre'})", SRC_TEST,
             value=round(d, 2), option=self.changed(opts, "measure"), msg="at43.range_leaders",
             params={"firer": lf.model_id, "target": lt.model_id, "cm": round(d / 10, 1), "how": how_msg(how)}),
        Step("range band", f"portée {band}: bands of 10 cm (under 10 cm is 0); the difficulty of the shot is {band}",
             SRC_RANGE, value=band, msg="at43.band", params={"band": band})]
    return d, band, steps


def range_band_of(self: "AT43", plan: TablePlan, observer: str, target: str, options: Mapping[str, Any], *,
                  weapon_range: float | None = None) -> str:
    """The portée between the two units' leaders (Organes de visée); AT-43 weapons have no range."""
    if weapon_range is not None:
        raise InvalidActionError("range: AT-43 weapons have no range; the range band between the leaders is the "
                                 "shot's difficulty", msg_id="at43.no_weapon_range")
    return str(_range(self, plan, observer, target, options)[1])


def ask_range(self: "AT43", plan: TablePlan, args: Args, opts: Mapping[str, Any]) -> RangeAnswer:
    """range FIRING_UNIT TARGET_UNIT [--accuracy P]: leader-to-leader range band (the shot's difficulty)."""
    v = _two_units(plan, args, {"accuracy": "int", "weapon-range": "number"})
    if "weapon-range" in v:
        raise InvalidActionError("range: AT-43 weapons have no range; the range band between the leaders is the "
                                 "shot's difficulty. Give the weapon's précision with --accuracy P instead",
                                 msg_id="at43.no_weapon_range")
    d, band, steps = _range(self, plan, v["FIRING_UNIT"], v["TARGET_UNIT"], opts)
    accuracy = None
    answer = f"portée {band} ({d / 10:.1f} cm between the leaders): difficulty {band}"
    precision: Any = ""
    if "accuracy" in v:
        diff = int(v["accuracy"]) - band
        needed = at43_roll_needed(diff)
        accuracy = Accuracy(int(v["accuracy"]), diff, needed_text(needed), needed is not None)
        steps.append(Step("roll needed", f"précision {v['accuracy']} - portée {band} = {diff:+d}: "
                          f"{needed_text(needed)} on the universal table"
                          + ("; the shot is lost" if needed is None else ""),
                          "AT-43 universal resolution table (rule choice 4)", value=needed_text(needed),
                          msg="at43.roll_needed_lost" if needed is None else "at43.roll_needed",
                          params={"precision": v["accuracy"], "band": band, "diff": f"{diff:+d}",
                                  "needed": need_msg(needed)}, doc=DOC_TABLE))
        answer += f"; précision {v['accuracy']} needs {needed_text(needed)}"
        precision = msg("answer.at43.precision", precision=v["accuracy"], needed=need_msg(needed))
    return RangeAnswer(length_of(self, d, opts), band, Said(answer, "answer.at43.range", band=band,
                                                            cm=round(d / 10, 1), precision=precision),
                       accuracy, tuple(steps))


def ask_firezone(self: "AT43", plan: TablePlan, args: Args, opts: Mapping[str, Any]) -> FireZoneAnswer:
    """firezone FIRING_UNIT TARGET_UNIT [--target-model ID]: the fire zone and who takes impacts first."""
    v = _two_units(plan, args, {"target-model": "text"})
    chosen = None
    if "target-model" in v:
        m = plan.model(v["target-model"])
        if m.unit_id != v["TARGET_UNIT"]:
            raise InvalidActionError(f"firezone: {m.model_id} is not a model of {v['TARGET_UNIT']}",
                                     msg_id="at43.not_of_unit", params={"model": m.model_id, "unit": v["TARGET_UNIT"]})
        chosen = [m.model_id]
    fz = fire_zone(plan, v["FIRING_UNIT"], v["TARGET_UNIT"], how=self.measure_how(opts), target_models=chosen,
                   source=SRC_ZONE)
    d, band, rsteps = _range(self, plan, v["FIRING_UNIT"], v["TARGET_UNIT"], opts)
    answer = (f"{len(fz.caught)} model(s) in the fire zone take impacts first: {', '.join(fz.caught)}"
              if fz.caught else "nobody stands in the fire zone: the target takes every impact") + f"; portée {band}"
    who = (msg("answer.at43.caught", n=len(fz.caught), models=list(fz.caught)) if fz.caught
           else msg("answer.at43.nobody_caught"))
    return FireZoneAnswer(fz, band, length_of(self, d, opts), Said(answer, "answer.at43.firezone", who=who, band=band),
                          (*fz.steps, *rsteps))


def ask_shooters(self: "AT43", plan: TablePlan, args: Args, opts: Mapping[str, Any]) -> ShootersAnswer:
    """shooters FIRING_UNIT TARGET_UNIT: which firers see a model in the fire zone or of the target unit."""
    v = _two_units(plan, args)
    fz = fire_zone(plan, v["FIRING_UNIT"], v["TARGET_UNIT"], how=self.measure_how(opts), source=SRC_ZONE)
    aims = list(fz.caught) + [m.model_id for m in plan.models_of(v["TARGET_UNIT"])]
    can: list[str] = []
    cannot: list[str] = []
    seen: dict[str, tuple[str, ...]] = {}
    for f in plan.models_of(v["FIRING_UNIT"]):
        sees = [t for t in aims if line_of_sight(plan, f.model_id, t, options=opts, ruleset=self).visible]
        seen[f.model_id] = tuple(sees)
        (can if sees else cannot).append(f.model_id)
    steps = [Step("who may shoot", "a firer needs sight of a model in the fire zone or of the target unit; "
                  f"{len(can)} may shoot, {len(cannot)} may not" + (f" ({', '.join(cannot)})" if cannot else ""),
                  SRC_TEST, value=len(can), msg="at43.who_may_shoot_not" if cannot else "at43.who_may_shoot",
                  params={"can": len(can), "cannot": len(cannot), "models": cannot})]
    answer = Said(f"{len(can)} of {len(can) + len(cannot)} may shoot"
                  + (f"; not {', '.join(cannot)}" if cannot else ""),
                  "answer.at43.shooters", can=len(can), of=len(can) + len(cannot),
                  cannot=msg("answer.at43.not", models=list(cannot)) if cannot else "")
    return ShootersAnswer(tuple(can), tuple(cannot), seen, fz.caught, answer, tuple(steps))


def cover_state(self: "AT43", plan: TablePlan, firing: str, target: str, opts: Mapping[str, Any]) -> CoverState:
    """Return each target model's state (hidden, in cover, exposed) with the obstacles and reasons."""
    firers, targets = plan.models_of(firing), plan.models_of(target)
    lf, _ = leader_model(plan, firing)
    lt, _ = leader_model(plan, target)
    zone = bases_hull(list(firers) + list(targets))
    fc = shapely.Point(sum(m.x_mm for m in firers) / len(firers), sum(m.y_mm for m in firers) / len(firers))
    tc = shapely.Point(sum(m.x_mm for m in targets) / len(targets), sum(m.y_mm for m in targets) / len(targets))
    direction = (tc.x - fc.x, tc.y - fc.y)
    reach = math.hypot(plan.table.width_mm, plan.table.depth_mm)
    far_targets = shapely.affinity.translate(bases_hull(targets), direction[0] / (math.hypot(*direction) or 1) * reach,
                                             direction[1] / (math.hypot(*direction) or 1) * reach)
    strip = shapely.convex_hull(shapely.union(zone, far_targets))  # the two lines, prolonged
    steps: list[Step] = []
    covering: dict[str, list[str]] = {m.model_id: [] for m in targets}
    ignored: list[str] = []
    for piece in plan.terrain:
        kind = self.kind_of(piece)
        if not kind.cover or kind.sight == "blocks":
            continue
        geom = terrain_geometry(piece)
        part = geom.intersection(strip)
        if part.is_empty or not geom.intersects(zone):
            continue
        edge = shapely.ops.nearest_points(geom.boundary if piece.shape == "area" else geom,
                                          shapely.Point(lt.position_mm))[0]
        gap = max(0.0, math.dist(lf.position_mm, (edge.x, edge.y)) - lf.base_mm / 2.0)
        if gap <= COVER_IGNORED_WITHIN_MM:
            ignored.append(piece.terrain_id)
            steps.append(Step("cover ignored", f"{piece.terrain_id}: the firing leader {lf.model_id} is "
                              f"{gap / 10:.1f} cm from its edge nearest the target (10 cm or less)", SRC_COVER,
                              value=round(gap, 2),
                              msg="at43.cover_ignored",
                              params={"piece": piece.terrain_id, "leader": lf.model_id, "cm": round(gap / 10, 1)}))
            continue
        lee = sweep_beyond(part, direction, reach).intersection(strip)
        inside = partly_inside(lee, list(targets))
        for m, ins in zip(targets, inside):
            if ins:
                covering[m.model_id].append(piece.terrain_id)
    state: dict[str, str] = {}
    # hidden: no firer sees it. The first firer is asked about every target in one batch; the targets it does not
    # see are asked of the others in a few batched calls (the same verdicts as line_of_sight pair by
    # pair, tests/rules/test_sight_speedups.py)
    first, others = firers[0], firers[1:]
    seen_first = set(sight_pairs(plan, [first], targets, options=opts, ruleset=self)[first.model_id])
    unseen = [m for m in targets if m.model_id not in seen_first]
    seen_later = {t for ts in sight_pairs(plan, others, unseen, options=opts, ruleset=self).values() for t in ts} \
        if unseen and others else set()
    hidden = {m.model_id for m in unseen} - seen_later
    for m in targets:
        if m.model_id in hidden:
            state[m.model_id] = "hidden"
        elif covering[m.model_id]:
            state[m.model_id] = "in cover"
        else:
            state[m.model_id] = "exposed"
    return CoverState(state, {k: tuple(v) for k, v in covering.items()}, tuple(ignored), tuple(steps))


MODEL_STATE_MSG = MappingProxyType({"hidden": "at43.model_hidden", "in cover": "at43.model_in_cover",
                                   "exposed": "at43.model_exposed"})


def ask_cover(self: "AT43", plan: TablePlan, args: Args, opts: Mapping[str, Any]) -> CoverAnswer:
    """cover FIRING_UNIT TARGET_UNIT: the cover zone beyond each obstacle, and whether the unit gets saves."""
    v = _two_units(plan, args)
    cs = cover_state(self, plan, v["FIRING_UNIT"], v["TARGET_UNIT"], opts)
    state = cs.state
    n = len(state)
    safe = [k for k, s in state.items() if s != "exposed"]
    saves = 2 * len(safe) >= n
    steps = [Step("cover zone", "the lines joining the edges of both units, prolonged: a target model even partly "
                  "in the zone beyond an obstacle and between these lines is in cover", SRC_COVER,
                  msg="at43.cover_zone"),
             *cs.steps,
             *(Step("model", f"{k}: {s}" + (f" (behind {', '.join(cs.covering[k])})" if s == "in cover" else ""),
                    SRC_COVER, msg=MODEL_STATE_MSG[s], params={"model": k, "pieces": list(cs.covering[k])})
               for k, s in state.items()),
             Step("cover saves", f"{len(safe)} of {n} in cover or hidden: "
                  + ("at least half, the unit makes cover saves (5+, 3+ with 'À couvert !')" if saves
                     else "fewer than half, nobody makes cover saves"), SRC_COVER, value=saves,
                  msg="at43.cover_saves" if saves else "at43.cover_no_saves", params={"safe": len(safe), "size": n})]
    answer = Said(f"{len(safe)} of {n} in cover or hidden: " + ("cover saves" if saves else "no cover saves"),
                  "answer.at43.cover_saves" if saves else "answer.at43.no_cover_saves", safe=len(safe), size=n)
    return CoverAnswer(state, cs.covering, cs.ignored, len(safe), n,
                       saves, answer, tuple(steps))


def ask_casualties(self: "AT43", plan: TablePlan, args: Args, opts: Mapping[str, Any]) -> CasualtiesAnswer:
    """casualties FIRING_UNIT TARGET_UNIT: the order losses are removed (nearest the firing leader first)."""
    v = _two_units(plan, args)
    lf, steps = leader_model(plan, v["FIRING_UNIT"])
    how = self.measure_how(opts)
    dists = sorted((model_distance_mm(lf, m, how=how), m.model_id) for m in plan.models_of(v["TARGET_UNIT"]))
    ties = [b for (da, a), (db, b) in zip(dists, dists[1:]) if abs(da - db) < 1e-6]
    order = [mid for _, mid in dists]
    steps.append(Step("removal order", f"losses are removed nearest the firing leader {lf.model_id} first: "
                      f"{', '.join(order)}" + ("; at equal distance the firing player chooses" if ties else ""),
                      SRC_LOSSES, value=order, msg="at43.removal_order_ties" if ties else "at43.removal_order",
                      params={"leader": lf.model_id, "models": order}))
    return CasualtiesAnswer(tuple(order), {mid: round(d, 2) for d, mid in dists}, tuple(ties),
                            Said("remove " + ", ".join(order), "answer.at43.casualties", models=order), tuple(steps))


def ask_indirect(self: "AT43", plan: TablePlan, args: Args, opts: Mapping[str, Any]) -> IndirectAnswer:
    """indirect FIRING_UNIT TARGET_MODEL --area CM --successes S --failures F [--direction D6]: the template."""
    v = args.parse(("FIRING_UNIT", "TARGET_MODEL"),
                   flags={"area": "number", "successes": "int", "failures": "int", "direction": "int"})
    for key in ("area", "successes", "failures"):
        if key not in v:
            raise InvalidActionError(f"indirect: --{key} is required; usage: {v['_usage']}",
                                     msg_id="at43.indirect_needs", params={"key": key})
    firers = plan.models_of(v["FIRING_UNIT"])
    target = plan.model(v["TARGET_MODEL"])
    radius_cm, impacts, reasons = at43_template_radius_cm(float(v["area"]), int(v["successes"]), int(v["failures"]))
    seers = [f.model_id for f in firers if f.model_id != target.model_id
             and line_of_sight(plan, f.model_id, target.model_id, options=opts, ruleset=self).visible]
    steps = [Step("target", f"{len(seers)} firer(s) see {target.model_id}"
                  + ("" if seers else ": at least one must, the shot is not allowed"), "AT-43, 1/ Choix de la cible",
                  value=len(seers), msg="at43.seers" if seers else "at43.seers_none",
                  params={"n": len(seers), "target": target.model_id})]
    centre = target.position_mm
    failures = int(v["failures"])
    if failures:
        if "direction" not in v:
            raise InvalidActionError("indirect: a shot with failures deviates; give the die with --direction 1-6",
                                     msg_id="at43.direction_needed")
        lf, _ = leader_model(plan, v["FIRING_UNIT"])
        centre = deviate(centre, lf.position_mm, int(v["direction"]), 10.0 * failures)
        steps.append(Step("deviation", f"{failures} failure(s): the template moves {failures} cm in direction "
                          f"{v['direction']} (4 is straight away from the firer)", SRC_INDIRECT, value=failures,
                          msg="at43.deviation", params={"failures": failures, "direction": int(v["direction"])}))
    steps.extend(Step("template radius", r, SRC_INDIRECT, value=radius_cm, msg=r_msg, params=r_params)
                 for r, r_msg, r_params in reasons)
    t = template(plan, centre, radius_cm * 10.0, source=SRC_INDIRECT)
    steps.extend(t.steps)
    steps.append(Step("impacts", f"{impacts} impact(s) per model even partly under the template; infantry that "
                      "survives is thrown prone; cover does not protect", SRC_INDIRECT, value=impacts,
                      msg="at43.template_impacts", params={"impacts": impacts}))
    return IndirectAnswer(
        bool(seers), tuple(seers), (centre[0], centre[1]), length_of(self, radius_cm * 10.0, opts), impacts,
        tuple(t.under),
        Said(f"radius {radius_cm:g} cm at ({centre[0]:.0f}, {centre[1]:.0f}) mm: {len(t.under)} model(s) "
             f"under it ({impacts} impact(s) each)" + ("" if seers else "; not allowed: no firer sees the target"),
             "answer.at43.indirect", radius=radius_cm, x=f"{centre[0]:.0f}", y=f"{centre[1]:.0f}", n=len(t.under),
             impacts=impacts, unseen="" if seers else msg("answer.at43.unseen")),
        tuple(steps))


class AT43(RuleSet):
    """AT-43, shooting."""

    name = "at-43"
    title = "AT-43"
    aliases = ("at43",)
    unit_key = "cm"
    terrain_kinds = TERRAIN_KINDS
    option_specs = (
        Option("measure", "edge", "choice", "where distances (and the leader-to-leader range) are measured",
               "rule-choices.md#at-43-1", ("edge", "centre")),
        Option("fire_zone", "hull", "choice", "fire zone of a ragged formation: convex hull of both units' bases",
               "rule-choices.md#at-43-2", ("hull",)),
    )
    range_between = "units"
    question_names = ("distance", "los", "template", "objectives", "terrain", "range", "firezone",
                      "shooters", "cover", "casualties", "indirect", "convert", "victory")

    # -- questions and hooks written above as functions of the rule set ---------------------------
    ask_range = ask_range
    range_band = range_band_of
    ask_firezone = ask_firezone
    ask_shooters = ask_shooters
    ask_cover = ask_cover
    ask_casualties = ask_casualties
    ask_indirect = ask_indirect
    # -- actions (rules/rulesets/at43/actions.py) and roster checks -----------------------------------
    actions = MappingProxyType({**ACTIONS, **MORE_ACTIONS})  # more_actions: issue 13
    action_params = MappingProxyType({**PARAMS, **MORE_PARAMS})
    validate_roster = staticmethod(validate_roster)


AT_43: AT43 = AT43()
