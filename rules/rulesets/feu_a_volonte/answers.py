"""Typed answers of Feu à Volonté's own questions (``range``, ``cover``, ``arc``, ``shooters``, ``aura``,
``radio``, ``spot``, ``hide``, ``grenade``, ``split``, ``move``, ``climb``), turned into JSON only at the edge.

Built like :mod:`rules.rulesets.answers`: frozen records with typed fields, the explanation
``steps`` kept as :class:`rules.explain.Step` objects, and ``to_json()`` giving the JSON the
API and the CLI have always answered (without the steps). A reason or a problem is a
:class:`~rules.rulesets.feu_a_volonte.words.Phrase` (an English ``str`` that knows its message).

Examples
--------
>>> Modifier("shot in the back", 1).to_json()
{'rule': 'shot in the back', 'modifier': 1}
>>> SplitAnswer((), "the shots may be split").to_json()
{'allowed': True, 'too_far': [], 'answer': 'the shots may be split'}
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

from rules.explain import Step
from rules.frozen import freeze
from rules.rulesets.answers import Length


@dataclass(frozen=True)
class Modifier:
    """A modifier to the attack and the rule that gives it (Portées, Tir)."""

    rule: str
    modifier: int

    def to_json(self) -> dict[str, Any]:
        return {"rule": self.rule, "modifier": self.modifier}


@dataclass(frozen=True)
class RangeAnswer:
    """``range SHOOTER TARGET``: the band, the weapon's range, the modifiers (band, rear shot, cover)."""

    distance: Length
    weapon: str | None
    band: str
    in_range: bool
    modifiers: tuple[Modifier, ...]
    answer: str
    steps: tuple[Step, ...] = ()

    @property
    def modifier(self) -> int:
        return sum(m.modifier for m in self.modifiers)

    def to_json(self) -> dict[str, Any]:
        return {"distance": self.distance.to_json(), "weapon": self.weapon, "band": self.band,
                "in_range": self.in_range, "modifiers": [m.to_json() for m in self.modifiers],
                "modifier": self.modifier, "answer": self.answer}


@dataclass(frozen=True)
class CoverAnswer:
    """``cover SHOOTER TARGET``: sight, whether the target is covered or prone (-1), and why."""

    visible: bool
    visible_fraction: float
    in_cover: bool
    reason: str
    answer: str
    steps: tuple[Step, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {"visible": self.visible, "visible_fraction": round(self.visible_fraction, 4),
                "in_cover": self.in_cover, "modifier": -1 if self.in_cover else 0, "reason": self.reason,
                "answer": self.answer}


@dataclass(frozen=True)
class ArcAnswer:
    """``arc SHOOTER TARGET``: the target's bearing from the shooter's facing and the arc it falls in."""

    relative_deg: float | None
    state: str
    can_shoot: bool
    answer: str
    steps: tuple[Step, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {"relative_deg": None if self.relative_deg is None else round(self.relative_deg, 2),
                "state": self.state, "can_shoot": self.can_shoot, "answer": self.answer}


@dataclass(frozen=True)
class ShootersAnswer:
    """``shooters TARGET SHOOTER...``: who can fire (nearest first), who cannot and why, the bonus."""

    can_fire: tuple[str, ...]
    cannot_fire: Mapping[str, str]
    answer: str
    steps: tuple[Step, ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "cannot_fire", freeze(self.cannot_fire))

    @property
    def main_shooter(self) -> str | None:
        return self.can_fire[0] if self.can_fire else None

    @property
    def bonus(self) -> int:
        return max(len(self.can_fire) - 1, 0)

    def to_json(self) -> dict[str, Any]:
        return {"can_fire": list(self.can_fire), "cannot_fire": dict(self.cannot_fire),
                "main_shooter": self.main_shooter, "bonus": self.bonus, "answer": self.answer}


@dataclass(frozen=True)
class AuraAnswer:
    """``aura MODEL``: the friends within 3 UD of a leader or a second, and their distances."""

    model: str
    role: str | None
    radius: Length
    inside: tuple[str, ...]
    distances_mm: Mapping[str, float]
    answer: str
    steps: tuple[Step, ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "distances_mm", freeze(self.distances_mm))

    def to_json(self) -> dict[str, Any]:
        return {"model": self.model, "role": self.role, "radius": self.radius.to_json(), "inside": list(self.inside),
                "distances_mm": {k: round(d, 2) for k, d in self.distances_mm.items()}, "answer": self.answer}


@dataclass(frozen=True)
class RadioLink:
    """One figure and its radio: the nearest commander, the gap, the extra PA it pays."""

    side: str
    extra_pa: int
    nearest: str | None
    distance_mm: float | None

    def to_json(self) -> dict[str, Any]:
        return {"side": self.side, "extra_pa": self.extra_pa, "nearest": self.nearest,
                "distance_mm": None if self.distance_mm is None else round(self.distance_mm, 2)}


@dataclass(frozen=True)
class RadioAnswer:
    """``radio [SIDE]``: each figure's link to its commanders; those more than 4 UD away pay +1 PA."""

    models: Mapping[str, RadioLink]
    answer: str
    steps: tuple[Step, ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "models", freeze(self.models))

    @property
    def extra_pa(self) -> tuple[str, ...]:
        return tuple(k for k, p in self.models.items() if p.extra_pa)

    def to_json(self) -> dict[str, Any]:
        return {"models": {k: p.to_json() for k, p in self.models.items()}, "extra_pa": list(self.extra_pa),
                "answer": self.answer}


@dataclass(frozen=True)
class SpotAnswer:
    """``spot MODEL``: the enemies closer than 2 UD that spot it without a roll."""

    model: str
    hidden: bool
    spotted_by: tuple[str, ...]
    answer: str
    steps: tuple[Step, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {"model": self.model, "hidden": self.hidden, "spotted_by": list(self.spotted_by),
                "spotted": bool(self.spotted_by), "answer": self.answer}


@dataclass(frozen=True)
class HideAnswer:
    """``hide MODEL``: the nearest scenery and whether it is closer than 1 UD."""

    model: str
    can_hide: bool
    nearest: str | None
    distance: Length | None
    answer: str
    steps: tuple[Step, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {"model": self.model, "can_hide": self.can_hide, "nearest": self.nearest,
                "distance": None if self.distance is None else self.distance.to_json(), "answer": self.answer}


@dataclass(frozen=True)
class GrenadeAnswer:
    """``grenade THROWER X Y``: the range, where it lands, the figures within 3 UD."""

    weapon: str
    in_range: bool
    impact_mm: tuple[float, float]
    radius: Length
    hit: tuple[str, ...]
    answer: str
    steps: tuple[Step, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {"weapon": self.weapon, "in_range": self.in_range,
                "impact_mm": [round(self.impact_mm[0], 2), round(self.impact_mm[1], 2)],
                "radius": self.radius.to_json(), "hit": list(self.hit), "answer": self.answer}


@dataclass(frozen=True)
class TooFar:
    """Two targets more than 2 UD apart."""

    a: str
    b: str
    distance_mm: float

    def to_json(self) -> dict[str, Any]:
        return {"a": self.a, "b": self.b, "distance_mm": round(self.distance_mm, 2)}


@dataclass(frozen=True)
class SplitAnswer:
    """``split TARGET TARGET...``: the pairs of targets too far apart to split a rate of fire."""

    too_far: tuple[TooFar, ...]
    answer: str
    steps: tuple[Step, ...] = ()

    @property
    def allowed(self) -> bool:
        return not self.too_far

    def to_json(self) -> dict[str, Any]:
        return {"allowed": self.allowed, "too_far": [p.to_json() for p in self.too_far], "answer": self.answer}


@dataclass(frozen=True)
class MoveAnswer:
    """``move MODEL X Y``: what the path costs in UD, the walk's allowance, what forbids it."""

    model: str
    cost: Length
    cost_ud: float
    base_allowance: Length
    allowed: bool
    problems: tuple[str, ...]
    answer: str
    steps: tuple[Step, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {"model": self.model, "cost": self.cost.to_json(), "cost_ud": round(self.cost_ud, 3),
                "base_allowance": self.base_allowance.to_json(), "allowed": self.allowed,
                "problems": list(self.problems), "answer": self.answer}


@dataclass(frozen=True)
class ClimbAnswer:
    """``climb MODEL``: the height climbed or jumped, whether allowed, its cost in PA, a linear obstacle crossed."""

    model: str
    height_ud: float
    allowed: bool
    cost_pa: int | None
    crossable: bool | None
    answer: str
    steps: tuple[Step, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {"model": self.model, "height_ud": round(self.height_ud, 3), "allowed": self.allowed,
                "cost_pa": self.cost_pa, "crossable": self.crossable, "answer": self.answer}

