"""Typed answers of High Fire's own questions (``range``, ``cover``, ``proximity``, ``move``).

Built like :mod:`rules.rulesets.answers`: frozen records with typed fields, the explanation
``steps`` kept as :class:`rules.explain.Step` objects, and ``to_json()`` giving the JSON the
API and the CLI have always answered (without the steps).

Examples
--------
>>> ProximityAnswer("u", (), True, 'no enemy within 1"').to_json()
{'unit': 'u', 'too_close': [], 'allowed': True, 'answer': 'no enemy within 1"'}
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

from rules.explain import Step
from rules.frozen import freeze, thaw
from rules.rulesets.answers import Length


@dataclass(frozen=True)
class RangeAnswer:
    """``range FIRING TARGET``: unit centre to unit centre, and whether a weapon's range reaches."""

    distance: Length
    answer: str
    in_range: bool | None = None
    steps: tuple[Step, ...] = ()

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"distance": self.distance.to_json()}
        if self.in_range is not None:
            out["in_range"] = self.in_range
        out["answer"] = self.answer
        return out


@dataclass(frozen=True)
class CoverAnswer:
    """``cover FIRING TARGET``: the terrain each target model is in or behind; whether the modifier applies."""

    affected: Mapping[str, tuple[str, ...]]
    count: int
    unit_size: int
    modifier_applies: bool
    answer: str
    steps: tuple[Step, ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "affected", freeze(self.affected))

    def to_json(self) -> dict[str, Any]:
        return {"affected": thaw(self.affected), "count": self.count, "unit_size": self.unit_size,
                "modifier_applies": self.modifier_applies, "answer": self.answer}


@dataclass(frozen=True)
class TooClose:
    """An enemy unit closer than 1": its id, our model and its model nearest, their gap."""

    unit: str
    model: str
    enemy: str
    distance_mm: float

    def to_json(self) -> dict[str, Any]:
        return {"unit": self.unit, "model": self.model, "enemy": self.enemy, "distance_mm": round(self.distance_mm, 2)}


@dataclass(frozen=True)
class ProximityAnswer:
    """``proximity UNIT``: the enemy units within 1" and whether that is allowed."""

    unit: str
    too_close: tuple[TooClose, ...]
    allowed: bool
    answer: str
    steps: tuple[Step, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {"unit": self.unit, "too_close": [c.to_json() for c in self.too_close], "allowed": self.allowed,
                "answer": self.answer}


@dataclass(frozen=True)
class MoveAnswer:
    """``move MODEL X Y --action A``: the action's allowance, the path, the terrain crossed, what forbids it."""

    model: str
    action: str
    allowance: Length
    path: Length
    terrain: tuple[str, ...]
    problems: tuple[str, ...]
    answer: str
    steps: tuple[Step, ...] = ()

    @property
    def allowed(self) -> bool:
        return not self.problems

    def to_json(self) -> dict[str, Any]:
        return {"model": self.model, "action": self.action, "allowance": self.allowance.to_json(),
                "path": self.path.to_json(), "terrain": list(self.terrain), "allowed": self.allowed,
                "problems": list(self.problems), "answer": self.answer}


@dataclass(frozen=True)
class LineOfFireAnswer:
    """``los UNIT UNIT``: High Fire's line of fire, judged for the unit (Ligne de mire).

    ``sees`` gives, per firer in cohesion, the targets in cohesion it sees; ``counting`` the
    firers that see at least half of them.
    """

    firing_unit: str
    target_unit: str
    visible: bool
    firers_in_cohesion: tuple[str, ...]
    targets_in_cohesion: tuple[str, ...]
    sees: Mapping[str, tuple[str, ...]]
    counting: tuple[str, ...]
    centre_distance: Length
    answer: str
    steps: tuple[Step, ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "sees", freeze(self.sees))

    def to_json(self) -> dict[str, Any]:
        return {"firing_unit": self.firing_unit, "target_unit": self.target_unit, "visible": self.visible,
                "firers_in_cohesion": list(self.firers_in_cohesion),
                "targets_in_cohesion": list(self.targets_in_cohesion), "sees": thaw(self.sees),
                "counting": list(self.counting), "centre_distance": self.centre_distance.to_json(),
                "answer": self.answer}
