"""Typed answers of AT-43's own questions (``range``, ``firezone``, ``shooters``, ``cover``,
``casualties``, ``indirect``), turned into JSON only at the edge.

Built like :mod:`rules.rulesets.answers`: frozen records with typed fields, the explanation
``steps`` kept as :class:`rules.explain.Step` objects, and ``to_json()`` giving the JSON the
API and the CLI have always answered (without the steps).

Examples
--------
>>> from rules.rulesets.answers import Length
>>> CasualtiesAnswer(("b", "c"), {"b": 10.0, "c": 20.0}, (), "remove b, c").to_json()
{'order': ['b', 'c'], 'distances_mm': {'b': 10.0, 'c': 20.0}, 'ties': [], 'answer': 'remove b, c'}
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

from rules.explain import Step
from rules.frozen import freeze, thaw
from rules.rulesets.answers import Length
from rules.rulesets.at43.fire_zone import FireZone


@dataclass(frozen=True)
class Accuracy:
    """The roll a précision needs at a portée (AT-43 universal resolution table)."""

    accuracy: int
    difference: int
    needed: str
    possible: bool


@dataclass(frozen=True)
class RangeAnswer:
    """``range FIRING TARGET``: the leaders' distance, its portée (the shot's difficulty), the roll needed."""

    distance: Length
    band: int
    answer: str
    accuracy: Accuracy | None = None
    steps: tuple[Step, ...] = ()

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"distance": self.distance.to_json(), "band": self.band, "difficulty": self.band}
        if self.accuracy is not None:
            a = self.accuracy
            out.update(accuracy=a.accuracy, difference=a.difference, needed=a.needed, possible=a.possible)
        out["answer"] = self.answer
        return out


@dataclass(frozen=True)
class FireZoneAnswer:
    """``firezone FIRING TARGET``: the geometry's :class:`FireZone`, the portée and the leaders' distance."""

    fire_zone: FireZone
    band: int
    distance: Length
    answer: str
    steps: tuple[Step, ...] = ()

    def to_json(self) -> dict[str, Any]:
        out = self.fire_zone.to_json()
        out.pop("explanation")
        out.update(band=self.band, distance=self.distance.to_json(), answer=self.answer)
        return out


@dataclass(frozen=True)
class ShootersAnswer:
    """``shooters FIRING TARGET``: who may shoot, and which aimed models each firer sees."""

    can_shoot: tuple[str, ...]
    cannot_shoot: tuple[str, ...]
    sees: Mapping[str, tuple[str, ...]]
    fire_zone: tuple[str, ...]
    answer: str
    steps: tuple[Step, ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "sees", freeze(self.sees))

    def to_json(self) -> dict[str, Any]:
        return {"can_shoot": list(self.can_shoot), "cannot_shoot": list(self.cannot_shoot), "sees": thaw(self.sees),
                "fire_zone": list(self.fire_zone), "answer": self.answer}


@dataclass(frozen=True)
class CoverAnswer:
    """``cover FIRING TARGET``: each target model's state, what covers it, and whether the unit saves."""

    models: Mapping[str, str]
    covering: Mapping[str, tuple[str, ...]]
    ignored_cover: tuple[str, ...]
    in_cover_or_hidden: int
    unit_size: int
    saves: bool
    answer: str
    steps: tuple[Step, ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "models", freeze(self.models))
        object.__setattr__(self, "covering", freeze(self.covering))

    def to_json(self) -> dict[str, Any]:
        return {"models": thaw(self.models), "covering": thaw(self.covering), "ignored_cover": list(self.ignored_cover),
                "in_cover_or_hidden": self.in_cover_or_hidden, "unit_size": self.unit_size, "saves": self.saves,
                "answer": self.answer}


@dataclass(frozen=True)
class CasualtiesAnswer:
    """``casualties FIRING TARGET``: the order losses are removed and each model's distance."""

    order: tuple[str, ...]
    distances_mm: Mapping[str, float]
    ties: tuple[str, ...]
    answer: str
    steps: tuple[Step, ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "distances_mm", freeze(self.distances_mm))

    def to_json(self) -> dict[str, Any]:
        return {"order": list(self.order), "distances_mm": thaw(self.distances_mm), "ties": list(self.ties),
                "answer": self.answer}


@dataclass(frozen=True)
class IndirectAnswer:
    """``indirect FIRING TARGET_MODEL ...``: whether the shot is allowed, the template and who is under it."""

    allowed: bool
    seen_by: tuple[str, ...]
    centre_mm: tuple[float, float]
    radius: Length
    impacts_per_model: int
    under: tuple[str, ...]
    answer: str
    steps: tuple[Step, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {"allowed": self.allowed, "seen_by": list(self.seen_by),
                "centre_mm": [round(c, 2) for c in self.centre_mm], "radius": self.radius.to_json(),
                "impacts_per_model": self.impacts_per_model, "under": list(self.under), "answer": self.answer}


@dataclass(frozen=True)
class CoverState:
    """Each target model's state seen from the firing unit (AT-43, Couvert), shared by ``cover`` and the shot.

    ``state`` is ``"hidden"``, ``"in cover"`` or ``"exposed"`` per model; ``covering`` the pieces whose
    cover zone holds it; ``ignored`` the pieces the firing leader stands within 10 cm of.
    """

    state: Mapping[str, str]
    covering: Mapping[str, tuple[str, ...]]
    ignored: tuple[str, ...]
    steps: tuple[Step, ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "state", freeze(self.state))
        object.__setattr__(self, "covering", freeze(self.covering))
