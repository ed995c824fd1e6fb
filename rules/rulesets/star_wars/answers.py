"""Typed answers of Star Wars Grandes escarmouches' own questions (``range``, ``cover``, ``aura``,
``activation``, ``zone``, ``force``, ``move``), turned into JSON only at the edge.

Built like :mod:`rules.rulesets.answers`: frozen records with typed fields, the explanation
``steps`` kept as :class:`rules.explain.Step` objects, and ``to_json()`` giving the JSON the
API and the CLI have always answered (without the steps).

Examples
--------
>>> Modifier("long range", 1).to_json()
{'rule': 'long range', 'threshold': 1}
>>> ZoneAnswer((10.0, 20.0), 2.0, ("a",), "1 figure(s) attacked: a").to_json()["hit"]
['a']
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from rules.explain import Step
from rules.rulesets.answers import Length


@dataclass(frozen=True)
class Modifier:
    """A change to the Tir threshold and the rule that makes it (Tir à distance)."""

    rule: str
    threshold: int

    def to_json(self) -> dict[str, Any]:
        return {"rule": self.rule, "threshold": self.threshold}


@dataclass(frozen=True)
class RangeAnswer:
    """``range SHOOTER TARGET``: the band (normal, long, out of range), sight, the hidden share, the modifiers."""

    distance: Length
    weapon_range_pas: float
    band: str
    in_range: bool
    visible: bool
    hidden_fraction: float
    modifiers: tuple[Modifier, ...]
    answer: str
    steps: tuple[Step, ...] = ()

    @property
    def threshold_change(self) -> int:
        return sum(m.threshold for m in self.modifiers)

    def to_json(self) -> dict[str, Any]:
        return {"distance": self.distance.to_json(), "weapon_range_pas": self.weapon_range_pas, "band": self.band,
                "in_range": self.in_range, "visible": self.visible, "hidden_fraction": round(self.hidden_fraction, 4),
                "modifiers": [m.to_json() for m in self.modifiers], "threshold_change": self.threshold_change,
                "answer": self.answer}


@dataclass(frozen=True)
class CoverAnswer:
    """``cover SHOOTER TARGET``: how much of the target's base obstacles hide, and whether that is +1."""

    hidden_fraction: float
    hidden_width_fraction: float
    by: tuple[str, ...]
    hidden: bool
    answer: str
    steps: tuple[Step, ...] = ()

    @property
    def threshold_change(self) -> int:
        return 1 if self.hidden else 0

    def to_json(self) -> dict[str, Any]:
        return {"hidden_fraction": round(self.hidden_fraction, 4),
                "hidden_width_fraction": round(self.hidden_width_fraction, 4), "by": list(self.by),
                "hidden": self.hidden, "threshold_change": self.threshold_change, "answer": self.answer}


@dataclass(frozen=True)
class AuraAnswer:
    """``aura HERO``: the hero's command bubble and the non-hero figures inside it."""

    model: str
    role: str | None
    radius: Length
    inside: tuple[str, ...]
    answer: str
    steps: tuple[Step, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {"model": self.model, "role": self.role, "radius": self.radius.to_json(), "inside": list(self.inside),
                "answer": self.answer}


@dataclass(frozen=True)
class ActivationAnswer:
    """``activation HERO``: the figures in the bubble that may still be activated with the hero."""

    hero: str
    hero_activated: bool
    can_activate: tuple[str, ...]
    already_activated: tuple[str, ...]
    answer: str
    steps: tuple[Step, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {"hero": self.hero, "hero_activated": self.hero_activated, "can_activate": list(self.can_activate),
                "already_activated": list(self.already_activated), "answer": self.answer}


@dataclass(frozen=True)
class ZoneAnswer:
    """``zone ... --radius PAS``: every figure closer than the Zone's radius."""

    centre_mm: tuple[float, float]
    radius_pas: float
    hit: tuple[str, ...]
    answer: str
    steps: tuple[Step, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {"centre_mm": [round(self.centre_mm[0], 2), round(self.centre_mm[1], 2)],
                "radius_pas": self.radius_pas, "hit": list(self.hit), "answer": self.answer}


@dataclass(frozen=True)
class ForceTarget:
    """A Force power's target: its distance, whether the power reaches it, whether the user sees it."""

    target: str
    distance: Length
    in_range: bool
    visible: bool


@dataclass(frozen=True)
class ForceAnswer:
    """``force POWER USER [TARGET]``: who the power reaches (around the user), the extra move, or its target."""

    power: str
    reach_pas: float
    user: str
    answer: str
    affected: tuple[str, ...] | None = None
    extra_move: Length | None = None
    target: ForceTarget | None = None
    steps: tuple[Step, ...] = ()

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"power": self.power, "reach_pas": self.reach_pas, "user": self.user}
        if self.affected is not None:
            out["affected"] = list(self.affected)
        if self.extra_move is not None:
            out["extra_move"] = self.extra_move.to_json()
        if self.target is not None:
            t = self.target
            out.update(target=t.target, distance=t.distance.to_json(), in_range=t.in_range, visible=t.visible)
        out["answer"] = self.answer
        return out


@dataclass(frozen=True)
class MoveAnswer:
    """``move MODEL X Y``: what the path costs (difficult ground double), the allowance, what forbids it."""

    model: str
    cost: Length
    allowance_pas: float
    problems: tuple[str, ...]
    answer: str
    steps: tuple[Step, ...] = ()

    @property
    def allowed(self) -> bool:
        return not self.problems

    def to_json(self) -> dict[str, Any]:
        return {"model": self.model, "cost": self.cost.to_json(), "allowance_pas": self.allowance_pas,
                "allowed": self.allowed, "problems": list(self.problems), "answer": self.answer}
