"""Typed answers of the questions every rule set shares, turned into JSON only at the edge.

Each shared question (``distance``, ``los``, ``cohesion``, ``template``, ``objectives``,
``terrain``, ``convert``, ``victory``) returns one of these frozen records (each rule set's own
questions return those of its ``rules/rulesets/<name>/answers.py``): its fields are
typed values (lengths in mm with the unit they are shown in, the geometry's own records),
its explanation ``steps`` stay :class:`rules.explain.Step` objects, and ``to_json()`` gives
the JSON the API and the CLI have always answered (without the steps, which
:func:`rules.questions.ask` adds as ``explanation``).

Examples
--------
>>> Length(101.6, 4.0, '"').to_json()
{'mm': 101.6, 'value': 4.0, 'unit': '"'}
>>> answer_parts(ObjectivesAnswer((), "no objectives"))
({'objectives': [], 'answer': 'no objectives'}, ())
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping, Protocol

from rules.cohesion import Cohesion
from rules.explain import Step
from rules.frozen import EMPTY, freeze, thaw
from rules.terrain import TerrainKind
from rules.visibility import Sight, UnitSight
from rules.zones import ObjectiveState, Template


class Answer(Protocol):
    """What a typed answer gives :func:`rules.questions.ask`: its JSON fields and its explanation."""

    @property
    def steps(self) -> tuple[Step, ...]: ...

    def to_json(self) -> dict[str, Any]: ...


#: What a question's handler returns: a typed answer (every question, shared or a rule set's own, has one;
#: :func:`rules.questions.ask` refuses a plain dict).
AnswerLike = Answer


def answer_parts(answer: AnswerLike) -> tuple[dict[str, Any], tuple[Step, ...]]:
    """Return an answer's JSON fields (without the steps) and its steps."""
    return answer.to_json(), tuple(answer.steps)


def answer_json(answer: AnswerLike) -> dict[str, Any]:
    """Return an answer's JSON fields (without the steps)."""
    return answer_parts(answer)[0]


@dataclass(frozen=True)
class Length:
    """A length in mm and in the unit it is shown in (``value`` ``unit``)."""

    mm: float
    value: float
    unit: str

    def to_json(self) -> dict[str, Any]:
        return {"mm": round(self.mm, 2), "value": round(self.value, 3), "unit": self.unit}


@dataclass(frozen=True)
class DistanceAnswer:
    """``distance A B``: the length as the rule set measures, both ways, and between which models."""

    from_id: str
    to_id: str
    distance: Length
    edge_to_edge: Length
    centre_to_centre: Length
    how: str
    answer: str
    from_model: str | None = None
    to_model: str | None = None
    edge: str | None = None  # when measured to a table edge: the edge
    steps: tuple[Step, ...] = ()

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"from": self.from_id, "to": self.to_id}
        if self.to_model is not None:
            out.update(from_model=self.from_model, to_model=self.to_model)
        else:
            if self.edge is not None:
                out["edge"] = self.edge
            out["from_model"] = self.from_model
        out.update(distance=self.distance.to_json(), edge_to_edge=self.edge_to_edge.to_json(),
                   centre_to_centre=self.centre_to_centre.to_json(), how=self.how, answer=self.answer)
        return out


@dataclass(frozen=True)
class SightAnswer:
    """``los A B`` between two models: the geometry's :class:`~rules.visibility.Sight` and the verdict in words."""

    sight: Sight
    answer: str

    @property
    def steps(self) -> tuple[Step, ...]:
        return self.sight.steps

    def to_json(self) -> dict[str, Any]:
        out = self.sight.to_json()
        out.pop("explanation")
        out["answer"] = self.answer
        return out


@dataclass(frozen=True)
class UnitSightAnswer:
    """``los A B`` between two units (any model seeing any model)."""

    sight: UnitSight
    answer: str

    @property
    def steps(self) -> tuple[Step, ...]:
        return self.sight.steps

    def to_json(self) -> dict[str, Any]:
        out = self.sight.to_json()
        out.pop("explanation")
        out["answer"] = self.answer
        return out


@dataclass(frozen=True)
class CohesionAnswer:
    """``cohesion UNIT``: the geometry's :class:`~rules.cohesion.Cohesion` and the verdict in words."""

    cohesion: Cohesion
    answer: str

    @property
    def steps(self) -> tuple[Step, ...]:
        return self.cohesion.steps

    def to_json(self) -> dict[str, Any]:
        out = self.cohesion.to_json()
        out.pop("explanation")
        out["answer"] = self.answer
        return out


@dataclass(frozen=True)
class TemplateAnswer:
    """``template X Y R``: the models under a circle, its radius in the rule set's unit."""

    template: Template
    radius: Length
    answer: str

    @property
    def steps(self) -> tuple[Step, ...]:
        return self.template.steps

    def to_json(self) -> dict[str, Any]:
        out = self.template.to_json()
        out.pop("explanation")
        out["radius"] = self.radius.to_json()
        out["answer"] = self.answer
        return out


@dataclass(frozen=True)
class ObjectivesAnswer:
    """``objectives``: each objective's nearest models, for rule sets without a control rule."""

    objectives: tuple[ObjectiveState, ...]
    answer: str
    steps: tuple[Step, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {"objectives": [s.to_json() for s in self.objectives], "answer": self.answer}


@dataclass(frozen=True)
class TerrainKindsAnswer:
    """``terrain``: the rule set's terrain kinds and what each piece on the table is."""

    kinds: tuple[TerrainKind, ...]
    pieces: tuple[tuple[str, TerrainKind], ...]
    answer: str
    steps: tuple[Step, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {"kinds": [k.to_json() for k in self.kinds],
                "pieces": [{"id": ident, **kind.to_json()} for ident, kind in self.pieces], "answer": self.answer}


@dataclass(frozen=True)
class TerrainContact:
    """A terrain piece a model's base touches: whether its centre stands inside, what the piece does."""

    piece: str
    kind: str
    centre_inside: bool
    effect: str

    def to_json(self) -> dict[str, Any]:
        return {"id": self.piece, "kind": self.kind, "centre_inside": self.centre_inside, "effect": self.effect}


@dataclass(frozen=True)
class TerrainAtAnswer:
    """``terrain MODEL``: the pieces the model's base touches."""

    model: str
    terrain: tuple[TerrainContact, ...]
    answer: str
    steps: tuple[Step, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {"model": self.model, "terrain": [t.to_json() for t in self.terrain], "answer": self.answer}


@dataclass(frozen=True)
class ConvertAnswer:
    """``convert LENGTH [FROM] [TO]``: the length in another unit, in every unit, and AT-43's band."""

    value: float
    from_symbol: str
    to_symbol: str
    mm: float
    result: float
    in_units: Mapping[str, float]
    answer: str
    range_band: int | None = None
    steps: tuple[Step, ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "in_units", freeze(self.in_units))

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"value": self.value, "from": self.from_symbol, "to": self.to_symbol,
                               "mm": round(self.mm, 3), "result": round(self.result, 3),
                               "in_units": thaw(self.in_units), "answer": self.answer}
        if self.range_band is not None:
            out["range_band"] = self.range_band
        return out


@dataclass(frozen=True)
class VictoryAnswer:
    """``victory``: whether the game is over and who leads, as far as the rule set defines it.

    ``defined`` is false where the seed gives no victory condition (``over`` is then ``None``);
    ``details`` carries the rule set's own counts (objectives held, losses), JSON-ready.
    """

    defined: bool
    over: bool | None
    answer: str
    details: Mapping[str, Any] = field(default=EMPTY)
    steps: tuple[Step, ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "details", freeze(self.details))

    def to_json(self) -> dict[str, Any]:
        return {"defined": self.defined, "over": self.over, **thaw(self.details), "answer": self.answer}
