"""The rule-set base class, after ``chess.variant``.

:class:`RuleSet` carries the metadata (``name``, ``aliases``, ``unit_key``), the
terrain kind table, the named options (the rule choices of ``docs/rule-choices.md``, each with
its default), the questions (``ask_<name>`` methods) and actions (``actions`` table) both
entry points go through, and the hook methods the shared geometry and the server call.
Each of the five rule sets subclasses it in ``rules/rulesets/<name>/__init__.py`` and
overrides only what differs; the registry is ``rules.rulesets.RULESETS``.

Examples
--------
>>> from rules.rulesets import find_ruleset
>>> rs = find_ruleset("AT-43")
>>> rs.name, rs.unit_key
('at-43', 'cm')
"""

from __future__ import annotations

import logging
import math
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, ClassVar, Mapping, Sequence

from shapely.geometry import Polygon

from calibration.units import DEFAULT_UD_MM, LengthUnit, length_unit
from rules.errors import GameFileError, InvalidActionError
from rules.explain import Step, msg
from rules.frozen import parse_bool
from rules.measure import model_distance_mm
from rules.ontable import on_table
from rules.plan import Model, TablePlan, Terrain
from rules.resolution import Action
from rules.rulesets.answers import answer_json
from rules.rulesets.common import COMMON_QUESTIONS, Args, Handler, band_of, handler
from rules.rulesets.kit import has_rule, unit_rules
from rules.rulesets.params import Param, describe
from rules.terrain import TerrainKind, pieces_at
from rules.visibility import Sight, line_of_sight, lines_of_sight, sight_pairs

logger = logging.getLogger(__name__)

MEASURES = ("edge", "centre")


@dataclass(frozen=True)
class Option:
    """A named choice of a rule set (``docs/rule-choices.md``), with its default.

    ``kind`` is ``"number"``, ``"choice"``, ``"bool"``, ``"text"`` or ``"data"`` (a JSON value the
    edges load, kept as it is and not echoed in answers); ``note`` is the entry of the user docs
    that explains the choice (``"rule-choices.md#feu-a-volonte-3"``).
    """

    name: str
    default: Any
    kind: str
    text: str
    note: str
    choices: tuple[str, ...] = ()

    def parse(self, value: Any) -> Any:
        """Return ``value`` (a JSON value or a command-line string) checked and converted."""
        if self.kind == "number":
            try:
                number = float(value)
            except (TypeError, ValueError):
                raise InvalidActionError(f"option {self.name} must be a number, got {value!r}",
                                         msg_id="option.not_number",
                                         params={"option": self.name, "got": str(value)}) from None
            if not math.isfinite(number) or number <= 0:
                raise InvalidActionError(f"option {self.name} must be a positive number, got {value!r}",
                                         msg_id="option.not_positive", params={"option": self.name, "got": str(value)})
            return number
        if self.kind == "data":
            return value
        if self.kind == "bool":
            parsed = parse_bool(value)  # the rules core's one reading of yes/no
            if parsed is not None:
                return parsed
            raise InvalidActionError(f"option {self.name} must be true or false, got {value!r}",
                                     msg_id="option.not_bool", params={"option": self.name, "got": str(value)})
        text = str(value)
        if self.kind == "text":
            return text
        if text not in self.choices:
            raise InvalidActionError(
                f"option {self.name} must be one of {', '.join(self.choices)}, got {value!r}",
                msg_id="option.not_choice", params={"option": self.name, "choices": list(self.choices), "got": text})
        return text


@dataclass(frozen=True)
class DeploymentZone:
    """One side's deployment zone: the strip within ``depth_mm`` of its table ``edge``."""

    side: str
    edge: str
    depth_mm: float
    zone: Polygon


@dataclass(frozen=True)
class CoverVerdict:
    """Whether a model is in cover from a shooting unit, what gives it, and why in words."""

    in_cover: bool
    by: tuple[str, ...] = ()
    reason: str = ""


class RuleSet:
    """A rule set: metadata, terrain kinds, options and hook methods.

    Subclasses set the class attributes and override hooks; the geometry lives
    in :mod:`rules.measure`, :mod:`rules.visibility`, :mod:`rules.cohesion` and
    :mod:`rules.zones`, which take plain parameters so the rules core can call them
    directly.
    """

    name: ClassVar[str] = ""
    title: ClassVar[str] = ""
    aliases: ClassVar[tuple[str, ...]] = ()
    unit_key: ClassVar[str] = "mm"
    terrain_kinds: ClassVar[Mapping[str, TerrainKind]] = MappingProxyType({})
    option_specs: ClassVar[tuple[Option, ...]] = ()
    # Sight: "none" (models never block), "models" (any other figure blocks: Star Wars),
    # "infantry-units" (a unit of two or more infantry models is a solid obstacle: High Fire).
    models_block_sight: ClassVar[str] = "none"
    #: Questions this rule set answers: name -> method name on the rule set (see rules.questions).
    question_names: ClassVar[tuple[str, ...]] = ()
    #: Depth of sight through each "depth" sight kind of terrain, mm (High Fire's sparse and dense areas).
    sight_depth_mm: ClassVar[Mapping[str, float]] = MappingProxyType({})
    #: Actions this rule set resolves: name -> ``(plan, request, dice) -> Resolution`` (rules.resolve).
    actions: ClassVar[Mapping[str, Action]] = MappingProxyType({})
    #: Named arguments of the actions that take positional ones on the command line.
    action_arguments: ClassVar[Mapping[str, tuple[str, ...]]] = MappingProxyType({})
    #: Typed arguments of each action (``rules/rulesets/<name>/params.py``), for forms and help.
    action_params: ClassVar[Mapping[str, tuple[Param, ...]]] = MappingProxyType({})
    #: What the ``range`` question measures between: two "models" or two "units" (leader or centre).
    range_between: ClassVar[str] = "models"

    # -- metadata ---------------------------------------------------------------
    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name!r}>"

    def source(self, section: str) -> str:
        """Return a source reference ``"<title>, <section>"`` for explanations."""
        return f"{self.title}, {section}"

    # -- options ------------------------------------------------------------------
    def option(self, name: str) -> Option:
        for spec in self.option_specs:
            if spec.name == name:
                return spec
        known = ", ".join(s.name for s in self.option_specs) or "(none)"
        raise InvalidActionError(f"{self.title} has no option {name!r}; its options are: {known}",
                                 msg_id="option.unknown",
                                 params={"ruleset": self.title, "option": name,
                                         "known": [s.name for s in self.option_specs] or "-"})

    def defaults(self) -> dict[str, Any]:
        """Return every option's default."""
        return {s.name: s.default for s in self.option_specs}

    def resolve_options(self, plan: TablePlan | None = None,
                        overrides: Mapping[str, Any] | None = None) -> Mapping[str, Any]:
        """Return the options in force: defaults, then the game file's ``options``, then ``overrides``.

        Raises :class:`InvalidActionError` naming the valid options on an unknown name or bad value
        in ``overrides``; keys of the game file this rule set does not declare belong to other
        parts of the rules core and are passed through unchecked.
        """
        out = self.defaults()
        known = {s.name for s in self.option_specs}
        for key, value in ((plan.options if plan is not None else None) or {}).items():
            if key in known:
                out[key] = self.option(key).parse(value)
            else:  # read by another part of the rules core (e.g. a tables file): kept as it is
                logger.debug("option %r of the game file is not a geometry option; passed through", key)
                out[key] = value
        for key, value in (overrides or {}).items():
            out[key] = self.option(key).parse(value)
        return MappingProxyType(out)

    def changed(self, options: Mapping[str, Any], name: str) -> str:
        """Return ``"name=value"`` for the ``option`` field of a Step."""
        return f"{name}={options.get(name, self.option(name).default)}"

    # -- units --------------------------------------------------------------------
    def unit(self, options: Mapping[str, Any] | None = None) -> LengthUnit:
        """Return the rule set's unit of length (Feu à Volonté's UD from ``ud_mm``)."""
        ud_mm = float((options or {}).get("ud_mm", DEFAULT_UD_MM))
        return length_unit(self.unit_key, ud_mm=ud_mm)

    def to_unit(self, value_mm: float, options: Mapping[str, Any] | None = None) -> float:
        """Convert millimetres to the rule set's unit."""
        return self.unit(options).from_mm(value_mm)

    def from_unit(self, value: float, options: Mapping[str, Any] | None = None) -> float:
        """Convert a length in the rule set's unit to millimetres."""
        return self.unit(options).to_mm(value)

    def fmt(self, value_mm: float, options: Mapping[str, Any] | None = None) -> str:
        """Return ``value_mm`` written in the rule set's unit (``'3.25"'``, ``'12.4 cm'``)."""
        unit = self.unit(options)
        v = unit.from_mm(value_mm)
        sep = "" if unit.symbol == '"' else " "
        return f"{v:.2f}{sep}{unit.symbol}"

    # -- terrain ------------------------------------------------------------------
    def kind_of(self, piece: Terrain) -> TerrainKind:
        """Return the :class:`TerrainKind` of ``piece``; an unknown kind names the known ones."""
        try:
            kind = self.terrain_kinds[piece.kind]
        except KeyError:
            raise InvalidActionError(
                f"terrain {piece.terrain_id!r} has kind {piece.kind!r}, which {self.title} does not know; "
                f"its kinds are: {', '.join(self.terrain_kinds)}", msg_id="terrain.unknown_kind",
                params={"piece": piece.terrain_id, "kind": piece.kind, "ruleset": self.title,
                        "kinds": list(self.terrain_kinds)}) from None
        if piece.shape not in kind.shapes:
            raise InvalidActionError(
                f"terrain {piece.terrain_id!r}: a {piece.kind} must be "
                f"{' or '.join('an area' if s == 'area' else 'a line' for s in kind.shapes)}, "
                f"got a{'n' if piece.shape == 'area' else ''} {piece.shape}", msg_id="terrain.bad_shape",
                params={"piece": piece.terrain_id, "kind": piece.kind,
                        "shapes": [msg(f"terrain.shape.{s}") for s in kind.shapes],
                        "got": msg(f"terrain.shape.{piece.shape}")})
        return kind

    def check_plan(self, plan: TablePlan) -> None:
        """Validate ``plan`` for this rule set: its name and every terrain kind and shape.

        Raises :class:`GameFileError` with the first problem found.
        """
        if plan.ruleset != self.name:
            raise GameFileError(f"the game is for {plan.ruleset!r}, not {self.name!r}", msg_id="game.other_ruleset",
                                params={"game": plan.ruleset, "ruleset": self.name})
        for piece in plan.terrain:
            try:
                self.kind_of(piece)
            except InvalidActionError as exc:
                raise GameFileError(str(exc), msg_id=exc.msg_id, params=exc.params) from None

    # -- hooks (overridden where the rule set differs) -------------------------------
    def measure_how(self, options: Mapping[str, Any]) -> str:
        """Return how distances are measured by default (``"edge"`` or ``"centre"``), choice 1."""
        return str(options.get("measure", "edge"))

    def measure_step(self, options: Mapping[str, Any]) -> Step:
        how = self.measure_how(options)
        words = "base edge to base edge" if how == "edge" else "centre to centre of the bases"
        return Step("measuring", f"distances are taken {words}",
                    "rule choice 1", value=how, option=self.changed(options, "measure")
                    if any(s.name == "measure" for s in self.option_specs) else None,
                    msg="measure.edge" if how == "edge" else "measure.centre", doc=f"rule-choices.md#{self.name}-1")

    def cohesion_rule(self, options: Mapping[str, Any]) -> tuple[float, float | None, str] | None:
        """Return ``(link_mm, all_within_mm, source)`` of the cohesion rule, or ``None`` without one."""
        return None

    def cohesion_exempt(self, plan: TablePlan, model_id: str) -> bool:
        """Return whether a model is exempt from cohesion (High Fire specialists)."""
        return False

    def ask_handlers(self) -> dict[str, Handler]:
        """Return the questions this rule set answers, by name (see :mod:`rules.questions`)."""
        return {name: handler(self, name) for name in self.question_names}

    # -- typed hooks the server draws from ---------------------------------------------
    def range_band(self, plan: TablePlan, observer: str, target: str, options: Mapping[str, Any], *,
                   weapon_range: float | None = None) -> str:
        """Return the range band ``target`` stands in seen from ``observer`` (models or units, ``range_between``).

        The default reads the rule set's own ``range`` answer, so the band drawn is
        exactly the band the question gives; a rule set with a closed form overrides it.
        ``weapon_range`` is in the rule set's unit.
        """
        raw = [observer, target] + ([] if weapon_range is None else ["--weapon-range", f"{weapon_range:g}"])
        return band_of(answer_json(handler(self, "range")(plan, Args("range", raw), options)))

    def special_rules(self, plan: TablePlan, model: Model) -> tuple[str, ...]:
        """Return a model's special rules: its unit's, its profile's and its own (roster traits).

        The one reading of a model's rules that questions and actions share (a unit whose
        *profile* has Stealth has Stealth for both).
        """
        return tuple(unit_rules(plan, plan.unit(model.unit_id), model))

    def all_have(self, plan: TablePlan, unit_id: str, rule: str) -> bool:
        """Return whether every model of a unit has ``rule`` (``Name`` or ``Name(X)``)."""
        models = plan.models_of(unit_id)
        return bool(models) and all(has_rule(self.special_rules(plan, m), rule) for m in models)

    def in_cover(self, plan: TablePlan, firers: Sequence[Model], target: Model, options: Mapping[str, Any], *,
                 obstacles: bool = True) -> CoverVerdict:
        """Return whether ``target`` is in cover from the shooting models ``firers``.

        In cover when it stands inside a piece that gives cover, or (``obstacles``) when
        at least half of its base is hidden by cover from the nearest firer that sees it.
        Written for Grimdark Future Firefight (Terrain, Couvert: the seed does not say from
        which firer; one viewpoint per target model, the nearest that sees it, so the verdict
        does not change with the weapon chosen); the other rule sets have their own cover rules.
        """
        return self.in_cover_many(plan, firers, [target], options, obstacles=obstacles)[0]

    def in_cover_many(self, plan: TablePlan, firers: Sequence[Model], targets: Sequence[Model],
                      options: Mapping[str, Any], *, obstacles: bool = True) -> list[CoverVerdict]:
        """Return :meth:`in_cover` of each of ``targets``, the sight of every target traced in the same batches."""
        out: dict[int, CoverVerdict] = {}
        asked: list[tuple[int, list[Model]]] = []  # targets judged by sight: the firers, nearest first
        for i, target in enumerate(targets):
            inside = [p for p in pieces_at(target.position_mm, plan.terrain) if self.kind_of(p).cover]
            if inside:
                out[i] = CoverVerdict(True, tuple(p.terrain_id for p in inside),
                                      f"{target.model_id} stands in {inside[0].terrain_id} ({inside[0].kind})")
                continue
            if not obstacles:
                out[i] = CoverVerdict(False)
                continue
            others = [f for f in firers if f.model_id != target.model_id]
            if on_table(plan) is plan and others:
                # the full explained sight only from the firer that decides: the nearest first (a stable
                # sort keeps the firers' order on a tie, as min does); if it does not see the target, who
                # of the others does is traced in one batch of rays, and the nearest of them decides
                asked.append((i, sorted(others, key=lambda f: model_distance_mm(f, target))))
                continue
            # an off-table figure among them (refused as line_of_sight refuses it), or no firer
            sights = [(f, line_of_sight(plan, f.model_id, target.model_id, options=options, ruleset=self))
                      for f in others]
            seen = [(f, s) for f, s in sights if s.visible]
            out[i] = self._cover_seen(target, min(seen, key=lambda fs: model_distance_mm(fs[0], target))[1]
                                      if seen else None)
        first = lines_of_sight(plan, [(order[0].model_id, targets[i].model_id) for i, order in asked],
                               options=options, ruleset=self, explained=False)
        unseen = [(i, order) for (i, order), s in zip(asked, first) if not s.visible]
        later = {f.model_id for _, order in unseen for f in order[1:]}
        rest = [f for f in firers if f.model_id in later]
        sees = sight_pairs(plan, rest, [targets[i] for i, _ in unseen], options=options, ruleset=self) if rest else {}
        then = [(i, next((f for f in order[1:] if targets[i].model_id in sees.get(f.model_id, ())), None))
                for i, order in unseen]
        second = iter(lines_of_sight(plan, [(f.model_id, targets[i].model_id) for i, f in then if f is not None],
                                     options=options, ruleset=self, explained=False))
        decided: dict[int, Sight | None] = {i: s for (i, _), s in zip(asked, first) if s.visible}
        decided.update((i, next(second) if f is not None else None) for i, f in then)
        out.update((i, self._cover_seen(targets[i], s)) for i, s in decided.items())
        return [out[i] for i in range(len(targets))]

    @staticmethod
    def _cover_seen(target: Model, s: Sight | None) -> CoverVerdict:
        """The cover verdict from the sight of the firer that decides (``None``: no firer sees the target)."""
        if s is not None and s.cover and s.cover_fraction >= 0.5:
            by = tuple(i for _, i, _ in s.cover)
            return CoverVerdict(True, by,
                                f"{target.model_id} is {s.cover_fraction:.0%} hidden behind {', '.join(by)}")
        return CoverVerdict(False)

    def deployment_zones(self, plan: TablePlan, options: Mapping[str, Any]) -> tuple[DeploymentZone, ...]:
        """Return each side's deployment zone (none for a rule set without deployment zones)."""
        del plan, options
        return ()

    def describe_actions(self, plan: TablePlan) -> list[dict[str, Any]]:
        """Return each action with its arguments and the values legal in ``plan`` (JSON-ready)."""
        return describe(plan, self.actions, self.action_params)

    def validate_roster(self, roster: Any) -> None:
        """Refuse a roster this rule set cannot play (unknown weapon or rule, broken limit)."""
        del roster  # a rule set without roster checks accepts every roster


__all__ = ["COMMON_QUESTIONS", "MEASURES", "CoverVerdict", "DeploymentZone", "Option", "RuleSet"]
