"""High Fire (initiation rules v0.5.1): inches, unit sight, 1" cohesion, area depth.

Sources are the sections of ``seeds/high-fire-v0.5.1.md``: UNITES (cohesion),
TERRAINS / DEPLACEMENT / LIGNE DE VUE, COMBAT A DISTANCE (ligne de mire,
modificateurs) and the table of infantry actions.
"""

from __future__ import annotations

import math
from types import MappingProxyType
from typing import Any, ClassVar, Mapping

import numpy as np
import shapely

from calibration.units import inches
from rules.cohesion import chain_cohesion
from rules.errors import InvalidActionError
from rules.explain import Step, msg
from rules.measure import closest_models, model_distance_mm
from rules.ontable import on_table
from rules.plan import TablePlan
from rules.rulesets.base import Option, RuleSet
from rules.rulesets.common import Args, length_of, length_words, semicolons, table_point
from rules.rulesets.high_fire.actions import ACTIONS, ARGUMENTS, validate_roster
from rules.rulesets.high_fire.answers import (
    CoverAnswer,
    LineOfFireAnswer,
    MoveAnswer,
    ProximityAnswer,
    RangeAnswer,
    TooClose,
)
from rules.rulesets.high_fire.more_actions import MORE_ACTIONS, MORE_PARAMS
from rules.rulesets.high_fire.params import PARAMS
from rules.terrain import TerrainKind, path_profile, terrain_geometry
from rules.visibility import line_of_sight, lines_of_sight, sight_pairs, unit_centre_distance_mm
from tabletracker.words import Said

SRC_TERRAIN = "High Fire, Terrains"
SRC_SIGHT = "High Fire, Ligne de vue"


def _k(kind: str, sight: str, cover: bool, shapes: tuple[str, ...], text: str) -> TerrainKind:
    # Any zone or obstacle is difficult terrain (Terrains: "on parle de terrain difficile").
    return TerrainKind(kind, sight, "difficult", cover, shapes, text, SRC_TERRAIN)


TERRAIN_KINDS = MappingProxyType({k.kind: k for k in (
    _k("sparse-partial", "sparse", True, ("area",), "sparse area, partial cover: sight blocked by 4\" of it"),
    _k("sparse-solid", "sparse", True, ("area",), "sparse area, solid cover: sight blocked by 4\" of it"),
    _k("dense-partial", "dense", True, ("area",), "dense area, partial cover: sight blocked by 2\" of it"),
    _k("dense-solid", "dense", True, ("area",), "dense area, solid cover: sight blocked by 2\" of it"),
    _k("partial-obstacle", "cover", True, ("area", "line"),
       "partial obstacle (scattered bush, fence, crate, low wall): does not block sight"),
    _k("solid-obstacle", "blocks", True, ("area", "line"),
       "solid obstacle (tree, thicket, wall, rock): blocks sight"),
    _k("blocking", "blocks", True, ("area", "line"),
       "a piece the players agree hides everything behind it (a building, a big vehicle)"),
)})

#: Movement of each infantry action, inches (High Fire, Actions de l'infanterie).
ACTIONS_IN: Mapping[str, float] = MappingProxyType({
    "careful": 3.0, "tactical": 4.0, "fast": 8.0, "jump": 8.0, "aimed": 1.0,
    "assault": 4.0, "observe": 1.0, "quick-op": 4.0, "long-op": 1.0,
})
ACTION_NAMES_FR: Mapping[str, str] = MappingProxyType({
    "careful": "Progression prudente", "tactical": "Progression tactique", "fast": "Progression rapide",
    "jump": "Progression par saut", "aimed": "Tir appuyé", "assault": "Assaut", "observe": "Observation",
    "quick-op": "Opération rapide", "long-op": "Opération longue",
})


# -- questions ------------------------------------------------------------------------------------



SRC_FIRE = "High Fire, Combat à distance (ligne de mire)"
SRC_MOD = "High Fire, Combat à distance (modificateurs)"
SRC_MOVE = "High Fire, Déplacement"
SRC_ACTIONS = "High Fire, Actions de l'infanterie"


def _in_cohesion_models(self: "HighFire", plan: TablePlan, unit_id: str, opts: Mapping[str, Any]) -> list[str]:
    c = chain_cohesion(plan, unit_id, link_mm=self.COHESION_MM, how=self.measure_how(opts),
                       mode=str(opts.get("cohesion", "chain")), exempt=lambda mid: self.cohesion_exempt(plan, mid),
                       source="High Fire, Unités")
    return [m.model_id for m in plan.models_of(unit_id) if m.model_id not in c.breaking]


def unit_line_of_sight(self: "HighFire", plan: TablePlan, a: str, b: str, opts: Mapping[str, Any]) -> LineOfFireAnswer:
    """``los UNIT UNIT``, High Fire's line of fire: at least half the firers in cohesion see at least half the
    targets in cohesion (the hook ``ask`` goes through; the shot and the Observation read it too)."""
    if a == b:
        raise InvalidActionError("los: name two different units", msg_id="high_fire.two_units",
                                 params={"question": "los"})
    firers = _in_cohesion_models(self, plan, a, opts)
    targets = _in_cohesion_models(self, plan, b, opts)
    sees: dict[str, tuple[str, ...]] = {}
    if on_table(plan) is plan:  # every figure stands on the table: only the sight rays are traced, pairs share work
        pairs = sight_pairs(plan, [plan.model(f) for f in firers], [plan.model(t) for t in targets], options=opts,
                            ruleset=self)
        sees = {f: tuple(pairs[f]) for f in firers}
    else:  # line_of_sight names a figure not placed yet
        for f in firers:
            sees[f] = tuple(t for t in targets if line_of_sight(plan, f, t, options=opts, ruleset=self).visible)
    half_t = math.ceil(len(targets) / 2)
    counting = [f for f in firers if len(sees[f]) >= half_t and sees[f]]
    ok = bool(firers) and 2 * len(counting) >= len(firers)
    centre_d = unit_centre_distance_mm(plan, a, b)
    steps = [Step("line of fire", "sight is judged for the unit: at least half of the firers in cohesion must each see "
                  "at least half of the targets in cohesion", SRC_FIRE, msg="high_fire.line_of_fire_rule"),
             Step("counting", f"{len(counting)} of {len(firers)} firers in cohesion see at least {half_t} of the "
                  f"{len(targets)} targets in cohesion", SRC_FIRE, value=len(counting), msg="high_fire.counting",
                  params={"n": len(counting), "firers": len(firers), "half": half_t, "targets": len(targets)}),
             Step("unit centres", f"measured roughly centre of unit to centre of unit: {self.fmt(centre_d)}", SRC_FIRE,
                  value=round(centre_d, 2), msg="high_fire.unit_centres", params={"inches": _in(centre_d)}),
             Step("line of fire", f"{a} {'has' if ok else 'has no'} line of fire on {b}", SRC_FIRE, value=ok,
                  msg="high_fire.line_of_fire" if ok else "high_fire.no_line_of_fire", params={"a": a, "b": b})]
    return LineOfFireAnswer(a, b, ok, tuple(firers), tuple(targets), sees, tuple(counting),
                            length_of(self, centre_d, opts),
                            Said(f"{a} {'has' if ok else 'has no'} line of fire on {b} ({len(counting)} of "
                                 f"{len(firers)} firers see at least half of the targets)",
                                 "answer.high_fire.line_of_fire" if ok else "answer.high_fire.no_line_of_fire",
                                 a=a, b=b, n=len(counting), firers=len(firers)), tuple(steps))


def _in(mm: float) -> float:
    """A length in inches rounded as the steps show it (the edges write the decimal mark)."""
    return round(mm / 25.4, 2)


def ask_range(self: "HighFire", plan: TablePlan, args: Args, opts: Mapping[str, Any]) -> RangeAnswer:
    """range FIRING_UNIT TARGET_UNIT [--weapon-range INCHES]: unit centre to unit centre."""
    v = args.parse(("FIRING_UNIT", "TARGET_UNIT"), flags={"weapon-range": "number"})
    d = unit_centre_distance_mm(plan, v["FIRING_UNIT"], v["TARGET_UNIT"])
    steps = [Step("range", f"centre of {v['FIRING_UNIT']} to centre of {v['TARGET_UNIT']}: {self.fmt(d)}", SRC_FIRE,
                  value=round(d, 2), msg="high_fire.range_centres",
                  params={"a": v["FIRING_UNIT"], "b": v["TARGET_UNIT"], "inches": _in(d)}),
             Step("modifiers", "range modifiers and weapon ranges are in the reference booklet, not in these rules",
                  SRC_MOD, msg="high_fire.booklet_ranges")]
    inside: bool | None = None
    answer = f"{self.fmt(d)} between the unit centres"
    verdict: Any = ""
    if "weapon-range" in v:
        wr = self.from_unit(float(v["weapon-range"]))
        inside = d <= wr + 1e-6
        steps.append(Step("in range", f"weapon range {v['weapon-range']:g}\": {'in' if inside else 'out of'} range",
                          SRC_FIRE, value=inside, msg="high_fire.in_range" if inside else "high_fire.out_of_range",
                          params={"range": float(v["weapon-range"])}))
        answer += f": {'in' if inside else 'out of'} range"
        verdict = msg("answer.high_fire.in_range" if inside else "answer.high_fire.out_of_range")
    return RangeAnswer(length_of(self, d, opts), Said(answer, "answer.high_fire.range",
                                                      length=length_words(self, d, opts), verdict=verdict),
                       inside, tuple(steps))


def ask_cover(self: "HighFire", plan: TablePlan, args: Args, opts: Mapping[str, Any]) -> CoverAnswer:
    """cover FIRING_UNIT TARGET_UNIT: models in or behind terrain; the modifier applies when half are."""
    v = args.parse(("FIRING_UNIT", "TARGET_UNIT"))
    firers, targets = plan.models_of(v["FIRING_UNIT"]), plan.models_of(v["TARGET_UNIT"])
    if not firers or not targets:
        raise InvalidActionError("cover: both units need models on the table", msg_id="high_fire.cover_needs_models")
    how = self.measure_how(opts)
    affected: dict[str, list[str]] = {}
    nearest = [min(firers, key=lambda f: model_distance_mm(f, t, how=how)).model_id for t in targets]
    sights = lines_of_sight(plan, [(f, t.model_id) for f, t in zip(nearest, targets)], options=opts, ruleset=self,
                            explained=False)  # the pieces named, not the steps
    areas = [p for p in plan.terrain if p.shape == "area" and self.kind_of(p).sight in ("sparse", "dense")]
    outlines = np.array([terrain_geometry(p) for p in areas], dtype=object)
    for t, s in zip(targets, sights):
        inside = [p.terrain_id for p, c in zip(areas, shapely.covers(outlines, shapely.Point(t.position_mm))) if c]
        reasons = inside + [i for _, i, _ in s.cover if i not in inside] + [i for _, i, _ in s.blockers]
        affected[t.model_id] = sorted(set(reasons))
    hit = [k for k, r in affected.items() if r]
    applies = 2 * len(hit) >= len(targets)
    steps = [Step("affected", f"{k}: in or behind {', '.join(r)}", SRC_MOD, msg="high_fire.affected",
                  params={"model": k, "pieces": r}) for k, r in affected.items() if r]
    steps.append(Step("half the unit", f"{len(hit)} of {len(targets)} models are in or behind terrain: the cover "
                      f"modifier {'applies' if applies else 'does not apply'} (at least half must be affected); "
                      "its value is in the reference booklet", SRC_MOD, value=applies,
                      msg="high_fire.cover_applies" if applies else "high_fire.cover_does_not_apply",
                      params={"n": len(hit), "size": len(targets)}))
    return CoverAnswer({k: tuple(r) for k, r in affected.items()}, len(hit), len(targets), applies,
                       Said(f"{len(hit)} of {len(targets)} in or behind terrain: modifier "
                            f"{'applies' if applies else 'does not apply'}",
                            "answer.high_fire.cover_applies" if applies else "answer.high_fire.cover_does_not_apply",
                            n=len(hit), size=len(targets)), tuple(steps))


def ask_proximity(self: "HighFire", plan: TablePlan, args: Args, opts: Mapping[str, Any]) -> ProximityAnswer:
    """proximity UNIT [--assault]: enemy models within 1" (allowed only to a unit that assaults)."""
    v = args.parse(("UNIT",), flags={"assault": "bool"})
    unit = plan.unit(v["UNIT"])
    mine = plan.models_of(unit.unit_id)
    close: list[TooClose] = []
    for other in plan.units:
        if other.side == unit.side or not plan.models_of(other.unit_id) or not mine:
            continue
        c = closest_models(mine, plan.models_of(other.unit_id), how="edge")
        if c.distance_mm < self.ENEMY_GAP_MM - 1e-6:
            close.append(TooClose(other.unit_id, c.a_id, c.b_id, c.distance_mm))
    ok = not close or bool(v.get("assault"))
    steps = [Step("1\" from the enemy", f"{len(close)} enemy unit(s) closer than 1\" to {unit.unit_id}"
                  + ("; allowed: the unit is assaulting" if close and v.get("assault") else "")
                  + ("; not allowed unless assaulting" if close and not v.get("assault") else ""), SRC_MOVE, value=ok,
                  msg=("high_fire.proximity_assault" if v.get("assault") else "high_fire.proximity_refused")
                  if close else "high_fire.proximity_none", params={"n": len(close), "unit": unit.unit_id})]
    return ProximityAnswer(unit.unit_id, tuple(close), ok,
                           Said("no enemy within 1\"", "answer.high_fire.no_enemy_near") if not close else
                           Said(f"{len(close)} enemy unit(s) within 1\": "
                                f"{'allowed (assault)' if ok else 'not allowed'}",
                                "answer.high_fire.assault" if ok else "answer.high_fire.too_near", n=len(close)),
                           tuple(steps))


def ask_move(self: "HighFire", plan: TablePlan, args: Args, opts: Mapping[str, Any]) -> MoveAnswer:
    """move MODEL X_MM Y_MM --action NAME: the action's distance, fast moves and jumps where allowed."""
    v = args.parse(("MODEL", "X_MM", "Y_MM"), flags={"action": "text"})
    action = v.get("action", "tactical")
    if action not in ACTIONS_IN:
        raise InvalidActionError(f"move: --action must be one of {', '.join(ACTIONS_IN)}, got {action!r}",
                                 msg_id="high_fire.unknown_action",
                                 params={"action": str(action), "actions": list(ACTIONS_IN)})
    m = plan.model(v["MODEL"])
    end = table_point(args, v, plan, "X_MM", "Y_MM")
    prof = path_profile(m.position_mm, end, plan.terrain, lambda p: self.kind_of(p).movement)
    allowance = self.from_unit(ACTIONS_IN[action])
    problems: list[str] = []
    problem_msgs: list[tuple[str, dict[str, Any]]] = []
    if prof.length_mm > allowance + 1e-6:
        problems.append(f"{self.fmt(prof.length_mm)} is more than {ACTIONS_IN[action]:g}\"")
        problem_msgs.append(("high_fire.move_too_far", {"path": _in(prof.length_mm), "allowance": ACTIONS_IN[action]}))
    touched = [p.terrain_id for p in plan.terrain if _segment_meets(m.position_mm, end, p)]
    if action == "fast" and touched:
        problems.append(f"a fast move is impossible in difficult terrain ({', '.join(touched)})")
        problem_msgs.append(("high_fire.fast_in_difficult", {"pieces": touched}))
    if action == "jump" and prof.end_in:
        problems.append(f"a jump must land on open ground, not in {', '.join(prof.end_in)}")
        problem_msgs.append(("high_fire.jump_landing", {"pieces": list(prof.end_in)}))
    steps = [Step("action", f"{ACTION_NAMES_FR[action]}: up to {ACTIONS_IN[action]:g}\"", SRC_ACTIONS,
                  value=ACTIONS_IN[action], msg="high_fire.action_allowance",
                  params={"action": ACTION_NAMES_FR[action], "inches": ACTIONS_IN[action]}),
             Step("path", f"straight path of {self.fmt(prof.length_mm)}"
                  + (f" through {', '.join(touched)}" if touched else ""), SRC_MOVE, value=round(prof.length_mm, 2),
                  msg="high_fire.path_through" if touched else "high_fire.path",
                  params={"inches": _in(prof.length_mm), "pieces": touched})]
    steps += [Step("not allowed", p, SRC_MOVE, msg=pm, params=pp) for p, (pm, pp) in zip(problems, problem_msgs)]
    return MoveAnswer(m.model_id, action, length_of(self, allowance, opts), length_of(self, prof.length_mm, opts),
                      tuple(touched), tuple(problems),
                      Said("allowed", "answer.allowed") if not problems
                      else Said("not allowed: " + "; ".join(problems), "answer.not_allowed",
                                problems=semicolons([msg(pm, **pp) for pm, pp in problem_msgs])), tuple(steps))


def _segment_meets(a: tuple[float, float], b: tuple[float, float], piece: Any) -> bool:
    import shapely

    from rules.terrain import terrain_geometry
    geom = terrain_geometry(piece)
    return bool(geom.intersects(shapely.LineString([a, b]) if a != b else shapely.Point(a)))


class HighFire(RuleSet):
    """High Fire v0.5.1."""

    name = "high-fire"
    title = "High Fire"
    aliases = ("highfire", "hf")
    unit_key = "in"
    terrain_kinds = TERRAIN_KINDS
    models_block_sight = "infantry-units"
    option_specs = (
        Option("measure", "edge", "choice", "where distances are measured", "rule-choices.md#high-fire-1",
               ("edge", "centre")),
        Option("cohesion", "chain", "choice",
               "cohesion as one connected chain, or each model near any other", "rule-choices.md#high-fire-2",
               ("chain", "nearest")),
        Option("sight_depth", "proportional", "choice",
               "depths of several area pieces add up in proportion, or each piece on its own",
               "rule-choices.md#high-fire-3", ("proportional", "separate")),
        Option("high_fire_tables", "", "data", "the players' UNITABLE and modifier tables (loaded by the program "
               "from their file; a path left here is refused)",
               "rule-choices.md#high-fire-5"),
    )
    range_between = "units"
    question_names = ("distance", "los", "cohesion", "template", "objectives", "terrain",
                      "range", "cover", "proximity", "move", "convert", "victory")
    SPARSE_BLOCK_MM: ClassVar[float] = inches(4)
    DENSE_BLOCK_MM: ClassVar[float] = inches(2)
    # High Fire, Ligne de vue: 4" of a sparse area or 2" of a dense one blocks sight.
    sight_depth_mm = MappingProxyType({"sparse": SPARSE_BLOCK_MM, "dense": DENSE_BLOCK_MM})
    COHESION_MM: ClassVar[float] = inches(1)
    ENEMY_GAP_MM: ClassVar[float] = inches(1)

    def cohesion_rule(self, options: Mapping[str, Any]) -> tuple[float, float | None, str] | None:
        return (self.COHESION_MM, None, "High Fire, Unités")

    def cohesion_exempt(self, plan: TablePlan, model_id: str) -> bool:
        # "les spécialistes ne sont pas assujettis à la règle de cohésion" (High Fire, Unités).
        m = plan.model(model_id)
        return m.role == "specialist" or m.has_status("specialist")

    # -- questions and hooks written above as functions of the rule set ---------------------------
    unit_line_of_sight = unit_line_of_sight
    ask_range = ask_range
    ask_cover = ask_cover
    ask_proximity = ask_proximity
    ask_move = ask_move
    # -- actions (rules/rulesets/high_fire/actions.py) and roster checks -----------------------------------
    actions = MappingProxyType({**ACTIONS, **MORE_ACTIONS})  # more_actions: issue 13
    action_arguments = ARGUMENTS
    action_params = MappingProxyType({**PARAMS, **MORE_PARAMS})
    validate_roster = staticmethod(validate_roster)


HIGH_FIRE: HighFire = HighFire()
