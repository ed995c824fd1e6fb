"""What every rule set's questions share: argument parsing, id lookup, the common questions.

The questions every rule set answers (``distance``, ``los``, ``cohesion``, ``template``,
``objectives``, ``terrain``) live here; each rule set adds its own as ``ask_<name>``
methods on its class (``rules/rulesets/<name>/__init__.py``). This module sits below the
rule-set packages and above the shared geometry: it never looks a rule set up, the rule
set is always passed in.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Callable, Mapping, Sequence

from rules.cohesion import chain_cohesion
from rules.errors import InvalidActionError
from rules.explain import Step, msg
from rules.measure import TABLE_EDGES, closest_models, distance_to_table_edge_mm, model_distance_mm, point_distance_mm
from rules.plan import Model, TablePlan
from rules.rulesets.answers import (
    AnswerLike,
    CohesionAnswer,
    DistanceAnswer,
    Length,
    ObjectivesAnswer,
    SightAnswer,
    TemplateAnswer,
    TerrainAtAnswer,
    TerrainContact,
    TerrainKindsAnswer,
    UnitSightAnswer,
)
from rules.terrain import kind_msg, pieces_at, terrain_geometry
from rules.visibility import line_of_sight, unit_sight
from rules.zones import objective_states, template
from tabletracker.words import Said

if TYPE_CHECKING:
    from rules.rulesets.base import RuleSet

Handler = Callable[[TablePlan, "Args", Mapping[str, Any]], AnswerLike]


def handler(rs: "RuleSet", name: str) -> Handler:
    """Return the handler of question ``name``: the rule set's ``ask_<name>`` or the common one."""
    method = getattr(rs, "ask_" + name.replace("-", "_"), None)
    if method is not None:
        return method  # type: ignore[no-any-return]
    common = COMMON_QUESTIONS.get(name)

    def answer(plan: TablePlan, args: Args, opts: Mapping[str, Any]) -> AnswerLike:
        if common is None:
            raise InvalidActionError(f"{rs.title} lists question {name!r} but has no answer for it",
                                     msg_id="ask.no_answer", params={"ruleset": rs.title, "question": name})
        return common(rs, plan, args, opts)
    return answer


# -- arguments ------------------------------------------------------------------------------

@dataclass
class Args:
    """A question's raw arguments, with helpers that fail with the question's usage."""

    question: str
    raw: list[str]

    def parse(self, positional: Sequence[str], *, optional: Sequence[str] = (),
              flags: Mapping[str, str] | None = None, rest: str | None = None) -> dict[str, Any]:
        """Split ``raw`` into named positionals and ``--flags`` (``flags``: name -> "number"/"int"/"text"/"bool").

        ``rest`` names a trailing list of positionals. Bad or missing arguments raise
        :class:`InvalidActionError` with the usage.
        """
        flags = dict(flags or {})
        usage = " ".join([self.question, *positional, *(f"[{o}]" for o in optional),
                          *([f"{rest}..."] if rest else []),
                          *(f"[--{f}{'' if k == 'bool' else ' ' + k.upper()}]" for f, k in flags.items())])
        values: dict[str, Any] = {}
        pos: list[str] = []
        i = 0
        while i < len(self.raw):
            tok = self.raw[i]
            if tok.startswith("--") and len(tok) > 2:
                key, eq, val = tok[2:].partition("=")
                if key not in flags:
                    raise InvalidActionError(f"{self.question}: unknown flag --{key}; usage: {usage}",
                                             msg_id="args.unknown_flag",
                                             params={"question": self.question, "flag": key, "usage": usage})
                if flags[key] == "bool":
                    values[key] = True
                else:
                    if not eq:
                        i += 1
                        if i >= len(self.raw):
                            raise InvalidActionError(f"{self.question}: --{key} needs a value; usage: {usage}",
                                                     msg_id="args.flag_needs_value",
                                                     params={"question": self.question, "flag": key, "usage": usage})
                        val = self.raw[i]
                    values[key] = self._convert(key, val, flags[key], usage)
            else:
                pos.append(tok)
            i += 1
        if len(pos) < len(positional):
            missing = ", ".join(positional[len(pos):])
            raise InvalidActionError(f"{self.question}: missing {missing}; usage: {usage}", msg_id="args.missing",
                                     params={"question": self.question, "missing": missing, "usage": usage})
        if len(pos) > len(positional) + len(optional) and rest is None:
            raise InvalidActionError(f"{self.question}: too many arguments ({' '.join(pos)}); usage: {usage}",
                                     msg_id="args.too_many",
                                     params={"question": self.question, "given": " ".join(pos), "usage": usage})
        names = list(positional) + list(optional)
        for k, v in zip(names, pos):
            values[k] = v
        if rest is not None:
            values[rest] = pos[len(names):]
        values["_usage"] = usage
        return values

    def _convert(self, key: str, val: str, kind: str, usage: str) -> Any:
        if kind == "text":
            return val
        try:
            number = float(val) if kind == "number" else int(val)
        except ValueError:
            whole = kind != "number"
            raise InvalidActionError(f"{self.question}: --{key} must be {'a whole number' if whole else 'a number'}, "
                                     f"got {val!r}; usage: {usage}",
                                     msg_id="args.flag_not_whole" if whole else "args.flag_not_number",
                                     params={"question": self.question, "flag": key, "got": val,
                                             "usage": usage}) from None
        if kind == "number" and not math.isfinite(number):
            raise InvalidActionError(f"{self.question}: --{key} must be a finite number, got {val!r}",
                                     msg_id="args.flag_not_finite",
                                     params={"question": self.question, "flag": key, "got": val})
        return number

    def number(self, values: Mapping[str, Any], key: str, *, positive: bool = False,
               minimum: float | None = None) -> float:
        """Return positional ``key`` as a finite number."""
        raw = values[key]
        try:
            v = float(raw)
        except (TypeError, ValueError):
            raise InvalidActionError(f"{self.question}: {key} must be a number, got {raw!r}; "
                                     f"usage: {values['_usage']}", msg_id="args.not_number",
                                     params={"question": self.question, "name": key, "got": str(raw),
                                             "usage": values["_usage"]}) from None
        if not math.isfinite(v) or (positive and v <= 0) or (minimum is not None and v < minimum):
            params: dict[str, Any] = {"question": self.question, "name": key, "got": str(raw)}
            if positive:
                need, msg_id = "a positive number", "args.not_positive"
            elif minimum is not None:
                need, msg_id = f"a number of at least {minimum}", "args.below_minimum"
                params["minimum"] = minimum
            else:
                need, msg_id = "a finite number", "args.not_finite"
            raise InvalidActionError(f"{self.question}: {key} must be {need}, got {raw!r}", msg_id=msg_id,
                                     params=params)
        return v


# -- what an id names --------------------------------------------------------------------------

def kind_of_id(plan: TablePlan, ident: str) -> str:
    """Return what ``ident`` names: ``model``, ``unit``, ``terrain``, ``objective`` or ``edge``.

    A model id wins over a unit id of the same name (lone figures often share it).
    """
    if any(m.model_id == ident for m in plan.models):
        return "model"
    if any(u.unit_id == ident for u in plan.units):
        return "unit"
    if any(t.terrain_id == ident for t in plan.terrain):
        return "terrain"
    if any(o.objective_id == ident for o in plan.objectives):
        return "objective"
    if ident in TABLE_EDGES or ident == "edge":
        return "edge"
    models = [m.model_id for m in plan.models]
    units = [u.unit_id for u in plan.units]
    raise InvalidActionError(
        f"{ident!r} is not a model, unit, terrain piece, objective or table edge of this game; "
        f"models: {', '.join(models) or '(none)'}; "
        f"units: {', '.join(units) or '(none)'}",
        msg_id="ids.unknown", params={"ident": ident, "models": models or "-", "units": units or "-"})


def models_named(plan: TablePlan, ident: str) -> tuple[Model, ...]:
    """Return the model ``ident`` or the models of unit ``ident``."""
    kind = kind_of_id(plan, ident)
    if kind == "model":
        return (plan.model(ident),)
    if kind == "unit":
        ms = plan.models_of(ident)
        if not ms:
            raise InvalidActionError(f"unit {ident!r} has no model on the table", msg_id="ids.unit_empty",
                                     params={"unit": ident})
        return ms
    raise InvalidActionError(f"{ident!r} is a {kind}, not a model or a unit", msg_id="ids.not_model_or_unit",
                             params={"ident": ident, "kind": msg(f"ids.kind.{kind}")})


def length_of(rs: "RuleSet", value_mm: float, opts: Mapping[str, Any]) -> Length:
    """Return a length in mm with its value in the rule set's unit."""
    unit = rs.unit(opts)
    return Length(value_mm, unit.from_mm(value_mm), unit.symbol)


def semicolons(words: Sequence[Any]) -> Any:
    """Return messages joined by semicolons, as one message (a list parameter is joined by commas)."""
    out = words[-1] if words else ""
    for w in reversed(words[:-1]):
        out = msg("answer.objectives.then", first=w, rest=out)
    return out


def length_words(rs: "RuleSet", value_mm: float, opts: Mapping[str, Any]) -> Mapping[str, Any]:
    """Return a length in the rule set's unit as a message (two decimals, as :meth:`RuleSet.fmt` writes it)."""
    unit = rs.unit(opts)
    return msg("answer.length_inch" if unit.symbol == '"' else "answer.length",
               value=round(unit.from_mm(value_mm), 2), unit=unit.symbol)


def length_json(rs: "RuleSet", value_mm: float, opts: Mapping[str, Any]) -> dict[str, Any]:
    """Return ``{"mm": ..., "value": ..., "unit": ...}`` for a length."""
    return length_of(rs, value_mm, opts).to_json()


# -- common questions ------------------------------------------------------------------------------

def q_distance(rs: "RuleSet", plan: TablePlan, args: Args, opts: Mapping[str, Any]) -> DistanceAnswer:
    """distance A B [--how edge|centre]: models, units (closest models), or to a terrain piece, objective or edge."""
    v = args.parse(("A", "B"), flags={"how": "text"})
    how = v.get("how") or rs.measure_how(opts)
    if how not in ("edge", "centre"):
        raise InvalidActionError(f"distance: --how must be edge or centre, got {how!r}", msg_id="distance.bad_how",
                                 params={"got": str(how)})
    a, b = v["A"], v["B"]
    ka, kb = kind_of_id(plan, a), kind_of_id(plan, b)
    if ka in ("terrain", "objective", "edge"):
        a, b, ka, kb = b, a, kb, ka
    if ka not in ("model", "unit"):
        raise InvalidActionError(f"distance: measure from a model or a unit; {a!r} is a {ka} and {b!r} is a {kb}",
                                 msg_id="distance.from_what",
                                 params={"a": a, "b": b, "kind_a": msg(f"ids.kind.{ka}"),
                                         "kind_b": msg(f"ids.kind.{kb}")})
    src_a = models_named(plan, a)
    steps = [rs.measure_step(opts)]
    from_model: str | None = None
    to_model: str | None = None
    edge: str | None = None
    if kb in ("model", "unit"):
        dst = models_named(plan, b)
        both = {h: closest_models(src_a, dst, how=h) for h in ("edge", "centre")}
        pick = both[how]
        from_model, to_model = pick.a_id, pick.b_id
        values = {h: c.distance_mm for h, c in both.items()}
        if ka == "unit" or kb == "unit":
            steps.append(Step("unit distance", f"between units, the closest models: {pick.a_id} and {pick.b_id}",
                              "geometry", msg="distance.units_closest", params={"a": pick.a_id, "b": pick.b_id}))
    else:
        values = {}
        for h in ("edge", "centre"):
            best = None
            for m in src_a:
                if kb == "terrain":
                    d = float(terrain_geometry(plan.terrain_piece(b)).distance(_pt(m)))
                    d = max(0.0, d - m.base_mm / 2.0) if h == "edge" else d
                elif kb == "objective":
                    d = point_distance_mm(m, plan.objective(b).position_mm, how=h)
                else:
                    ed = distance_to_table_edge_mm(plan, m.model_id, None if b == "edge" else b, how=h)
                    d = ed.distance_mm
                    edge = ed.edge
                if best is None or d < best[0]:
                    best = (d, m.model_id)
            assert best is not None
            values[h] = best[0]
            if h == how:
                from_model = best[1]
    label = "base edge to base edge" if how == "edge" else "centre to centre"
    return DistanceAnswer(a, b, length_of(rs, values[how], opts), length_of(rs, values["edge"], opts),
                          length_of(rs, values["centre"], opts), how,
                          Said(f"{a} to {b}: {rs.fmt(values[how], opts)} {label}", "answer.distance", a=a, b=b,
                               length=length_words(rs, values[how], opts), how=msg(f"answer.how.{how}")),
                          from_model=from_model, to_model=to_model, edge=edge, steps=tuple(steps))


def _pt(m: Model) -> Any:
    import shapely
    return shapely.Point(m.position_mm)


def q_los(rs: "RuleSet", plan: TablePlan, args: Args, opts: Mapping[str, Any]) -> AnswerLike:
    """los A B: sight between two models, or between two units."""
    v = args.parse(("A", "B"))
    a, b = v["A"], v["B"]
    ka, kb = kind_of_id(plan, a), kind_of_id(plan, b)
    if ka == "model" and kb == "model":
        sight = line_of_sight(plan, a, b, options=opts, ruleset=rs)
        blockers, cover = [i for _, i, _ in sight.blockers], [i for _, i, _ in sight.cover]
        return SightAnswer(sight, Said(
            f"{a} {'sees' if sight.visible else 'does not see'} {b}"
            + (f" ({sight.visible_fraction:.0%} of its base)" if sight.visible else "")
            + (f"; blocked by {', '.join(blockers)}" if sight.blockers else "")
            + (f"; behind {', '.join(cover)}" if sight.cover else ""),
            "answer.los.sees" if sight.visible else "answer.los.does_not_see", a=a, b=b,
            percent=f"{sight.visible_fraction:.0%}".removesuffix("%"),
            blocked=msg("answer.los.blocked", pieces=blockers) if blockers else "",
            behind=msg("answer.los.behind", pieces=cover) if cover else ""))
    if ka == "unit" and kb == "unit":
        return rs_unit_los(rs, plan, a, b, opts)
    raise InvalidActionError(f"los: name two models or two units; {a!r} is a {ka}, {b!r} is a {kb}",
                             msg_id="los.two_of_a_kind",
                             params={"a": a, "b": b, "kind_a": msg(f"ids.kind.{ka}"), "kind_b": msg(f"ids.kind.{kb}")})


def rs_unit_los(rs: "RuleSet", plan: TablePlan, a: str, b: str, opts: Mapping[str, Any]) -> AnswerLike:
    """Unit-to-unit sight: the rule set's ``unit_line_of_sight`` hook, else any model seeing any model."""
    hook = getattr(rs, "unit_line_of_sight", None)
    if hook is not None:
        return hook(plan, a, b, opts)  # type: ignore[no-any-return]
    us = unit_sight(plan, a, b, options=opts, ruleset=rs)
    return UnitSightAnswer(us, Said(f"{a} {'sees' if us.visible else 'does not see'} {b}: {len(us.seeing)} model(s) "
                                    f"see {len(us.seen)} target model(s)",
                                    "answer.unit_los.sees" if us.visible else "answer.unit_los.does_not_see",
                                    a=a, b=b, seeing=len(us.seeing), seen=len(us.seen)))


def q_cohesion(rs: "RuleSet", plan: TablePlan, args: Args, opts: Mapping[str, Any]) -> CohesionAnswer:
    """cohesion UNIT: in or out, and which models break it."""
    v = args.parse(("UNIT",))
    rule = rs.cohesion_rule(opts)
    if rule is None:
        raise InvalidActionError(f"{rs.title} has no cohesion rule", msg_id="cohesion.no_rule",
                                 params={"ruleset": rs.title})
    link, all_within, source = rule
    how = rs.cohesion_how(opts) if hasattr(rs, "cohesion_how") else rs.measure_how(opts)
    c = chain_cohesion(plan, v["UNIT"], link_mm=link, all_within_mm=all_within, how=how,
                       mode=str(opts.get("cohesion", "chain")),
                       exempt=lambda mid: rs.cohesion_exempt(plan, mid), source=source)
    return CohesionAnswer(c, Said(f"{c.unit_id} is in cohesion", "answer.cohesion.in", unit=c.unit_id) if c.in_cohesion
                          else Said(f"{c.unit_id} is out of cohesion; breaking it: {', '.join(c.breaking)}",
                                    "answer.cohesion.out", unit=c.unit_id, breaking=list(c.breaking)))


def q_template(rs: "RuleSet", plan: TablePlan, args: Args, opts: Mapping[str, Any]) -> TemplateAnswer:
    """template X_MM Y_MM RADIUS_MM: the models even partly under a circle."""
    v = args.parse(("X_MM", "Y_MM", "RADIUS_MM"))
    x, y = args.number(v, "X_MM"), args.number(v, "Y_MM")
    r = args.number(v, "RADIUS_MM", minimum=0.0)
    t = template(plan, (x, y), r, source="geometry: a circular template, bases even partly under it")
    return TemplateAnswer(t, length_of(rs, r, opts),
                          Said(f"{len(t.under)} model(s) under the template: {', '.join(t.under) or 'none'}",
                               "answer.template", n=len(t.under), models=list(t.under) or msg("answer.none")))


def q_objectives(rs: "RuleSet", plan: TablePlan, args: Args, opts: Mapping[str, Any]) -> ObjectivesAnswer:
    """objectives: the nearest model of each side to each objective (rule sets without a control rule)."""
    args.parse(())
    states = objective_states(plan, None, how=rs.measure_how(opts))
    step = Step("objectives", f"{rs.title} gives no rule for holding objectives: the nearest model of each side "
                "is given", rs.source("(no objective rule)"), msg="objectives.no_rule", params={"ruleset": rs.title})
    parts, words = [], []
    for s in states:
        near = ", ".join(f"{side} {mid} at {rs.fmt(d, opts)}" for side, (mid, d) in s.nearest.items())
        parts.append(f"{s.objective_id}: {near or 'no model'}")
        words.append(msg("answer.objectives.one", objective=s.objective_id, nearest=[
            msg("answer.objectives.nearest", side=side, model=mid, length=length_words(rs, d, opts))
            for side, (mid, d) in s.nearest.items()] or msg("answer.objectives.no_model")))
    summary = (Said("; ".join(parts), "answer.objectives", objectives=semicolons(words)) if parts
               else Said("no objectives in this game", "answer.objectives.none"))
    return ObjectivesAnswer(states, summary, (step,))


def q_terrain(rs: "RuleSet", plan: TablePlan, args: Args, opts: Mapping[str, Any]) -> AnswerLike:
    """terrain [MODEL]: the rule set's terrain kinds, or the pieces a model stands in or touches."""
    v = args.parse((), optional=("MODEL",))
    kinds = tuple(rs.terrain_kinds.values())
    if "MODEL" not in v:
        pieces = tuple((t.terrain_id, rs.kind_of(t)) for t in plan.terrain)
        return TerrainKindsAnswer(kinds, pieces, Said(f"{rs.title} terrain kinds: {', '.join(rs.terrain_kinds)}",
                                                      "answer.terrain_kinds", ruleset=rs.title,
                                                      kinds=list(rs.terrain_kinds)),
                                  (Step("terrain kinds", f"{len(kinds)} kinds, {len(pieces)} piece(s) on the table",
                                        rs.source("terrain"), msg="terrain.kinds_count",
                                        params={"kinds": len(kinds), "pieces": len(pieces)}),))
    m = plan.model(v["MODEL"])
    at = [t for t in plan.terrain if terrain_geometry(t).distance(_pt(m)) <= m.base_mm / 2.0]
    inside = {t.terrain_id for t in pieces_at(m.position_mm, plan.terrain)}
    found = tuple(TerrainContact(t.terrain_id, t.kind, t.terrain_id in inside, rs.kind_of(t).text) for t in at)
    steps = [Step("terrain", f"{m.model_id} touches {t.terrain_id}: {rs.kind_of(t).text}", rs.kind_of(t).source,
                  msg="terrain.touches", params={"model": m.model_id, "piece": t.terrain_id,
                                                 "what": kind_msg(rs.name, t.kind)})
             for t in at] or [Step("terrain", f"{m.model_id}'s base touches no terrain piece: open ground", "geometry",
                                   msg="terrain.open", params={"model": m.model_id})]
    on = [t.terrain_id for t in at]
    return TerrainAtAnswer(m.model_id, found, Said(f"{m.model_id} is on {', '.join(on)}", "answer.terrain_on",
                                                   model=m.model_id, pieces=on) if at
                           else Said(f"{m.model_id} is in the open", "answer.terrain_open", model=m.model_id),
                           tuple(steps))


from rules.rulesets.convert import q_convert  # noqa: E402  (below the helpers it does not need)
from rules.rulesets.victory import q_victory  # noqa: E402

COMMON_QUESTIONS: Mapping[str, Callable[["RuleSet", TablePlan, Args, Mapping[str, Any]], AnswerLike]]
COMMON_QUESTIONS = MappingProxyType({
    "distance": q_distance, "los": q_los, "cohesion": q_cohesion, "template": q_template,
    "objectives": q_objectives, "terrain": q_terrain, "convert": q_convert, "victory": q_victory,
})


def model_pair_distance(rs: "RuleSet", a: Model, b: Model, opts: Mapping[str, Any]) -> float:
    """Return the distance between two models as the rule set measures by default."""
    return model_distance_mm(a, b, how=rs.measure_how(opts))


def leader_model(plan: TablePlan, unit_id: str) -> tuple[Model, list[Step]]:
    """Return a unit's leader, or its first model with a step saying so when the leader is gone."""
    leader = plan.leader_of(unit_id)
    if leader is not None:
        return leader, []
    ms = plan.models_of(unit_id)
    if not ms:
        raise InvalidActionError(f"unit {unit_id!r} has no model on the table", msg_id="ids.unit_empty",
                                 params={"unit": unit_id})
    return ms[0], [Step("leader", f"{unit_id} has no leader on the table; {ms[0].model_id} stands in for it",
                        "geometry", msg="leader.stand_in", params={"unit": unit_id, "model": ms[0].model_id})]


def table_point(args: Args, values: Mapping[str, Any], plan: TablePlan, x_key: str, y_key: str
                ) -> tuple[float, float]:
    """Return the point ``(x, y)`` from two positional numbers; it must lie on the table."""
    x, y = args.number(values, x_key), args.number(values, y_key)
    if not (0.0 <= x <= plan.table.width_mm and 0.0 <= y <= plan.table.depth_mm):
        raise InvalidActionError(f"{args.question}: ({x:g}, {y:g}) mm is off the table "
                                 f"({plan.table.width_mm:g} x {plan.table.depth_mm:g} mm)", msg_id="args.off_table",
                                 params={"question": args.question, "x": x, "y": y,
                                         "width": plan.table.width_mm, "depth": plan.table.depth_mm})
    return (x, y)


def band_of(answer: Mapping[str, Any]) -> str:
    """Return the band a ``range`` answer gives: its ``band``, else in or out of range.

    >>> band_of({"band": 2}), band_of({"in_range": False})
    ('2', 'out of range')
    >>> band_of({"models": {"a": {"in_range": True}}, "beyond_9": True})
    'in range, beyond 9"'

    """
    if "band" in answer:
        return str(answer["band"])
    if "in_range" in answer:
        inside = bool(answer["in_range"])
    else:
        inside = any(bool(v.get("in_range")) for v in (answer.get("models") or {}).values())
    text = "in range" if inside else "out of range"
    if answer.get("beyond_9"):
        text += ', beyond 9"'
    return text
