"""Typed answers of Grimdark Future Firefight's own questions (``range``, ``cover``, ``aura``, ``charge``,
``melee``, ``blast``, ``objectives``, ``deployment``, ``ambush``, ``scout``, ``move``, ``jump``).

Built like :mod:`rules.rulesets.answers`: frozen records with typed fields, the explanation
``steps`` kept as :class:`rules.explain.Step` objects, and ``to_json()`` giving the JSON the
API and the CLI have always answered (without the steps).

Examples
--------
>>> ScoutAnswer(("a",), "top", "not allowed: a too far").to_json()
{'allowed': False, 'outside': ['a'], 'edge': 'top', 'answer': 'not allowed: a too far'}
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

from rules.explain import Step
from rules.frozen import freeze, thaw
from rules.rulesets.answers import Length


@dataclass(frozen=True)
class ModelRange:
    """One firing model in ``range``: its gap to the nearest target, range, sight, the Stealth modifier."""

    distance_mm: float
    in_range: bool
    sight: bool
    to_hit_modifier: int

    @property
    def can_shoot(self) -> bool:
        return self.in_range and self.sight

    def to_json(self) -> dict[str, Any]:
        return {"distance_mm": round(self.distance_mm, 2), "in_range": self.in_range, "sight": self.sight,
                "can_shoot": self.can_shoot, "to_hit_modifier": self.to_hit_modifier}


@dataclass(frozen=True)
class RangeAnswer:
    """``range FIRING TARGET --weapon-range R``: who can shoot, and the 9" rules (Stealth, Relentless)."""

    models: Mapping[str, ModelRange]
    closest: Length
    beyond_9: bool
    stealth: bool
    relentless: bool
    answer: str
    steps: tuple[Step, ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "models", freeze(self.models))

    @property
    def can_shoot(self) -> tuple[str, ...]:
        return tuple(k for k, p in self.models.items() if p.can_shoot)

    def to_json(self) -> dict[str, Any]:
        return {"models": {k: p.to_json() for k, p in self.models.items()}, "can_shoot": list(self.can_shoot),
                "closest": self.closest.to_json(), "beyond_9": self.beyond_9, "stealth": self.stealth,
                "relentless": self.relentless, "modifier": -1 if self.stealth else 0, "answer": self.answer}


@dataclass(frozen=True)
class CoverAnswer:
    """``cover FIRING TARGET``: each target model in cover and by what; +1 Defense when most are."""

    models: Mapping[str, tuple[bool, tuple[str, ...]]]
    answer: str
    steps: tuple[Step, ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "models", freeze(self.models))

    @property
    def count(self) -> int:
        return sum(1 for c, _ in self.models.values() if c)

    @property
    def cover(self) -> bool:
        return 2 * self.count > len(self.models)

    def to_json(self) -> dict[str, Any]:
        return {"models": {k: {"in_cover": c, "by": list(r)} for k, (c, r) in self.models.items()},
                "count": self.count, "unit_size": len(self.models), "cover": self.cover,
                "defense_modifier": 1 if self.cover else 0, "answer": self.answer}


@dataclass(frozen=True)
class HeroAura:
    """Hero: the friendly units (and their models) within 12"."""

    radius: Length
    units: tuple[str, ...]
    models: tuple[str, ...]

    def to_json(self) -> dict[str, Any]:
        return {"radius": self.radius.to_json(), "units": list(self.units), "models": list(self.models)}


@dataclass(frozen=True)
class CasterAura:
    """Caster: the casters within 18" in sight that may help, and the caster's tokens."""

    radius: Length
    helpers: tuple[str, ...]
    tokens: Any  # the rule's value as the roster gives it (a number of tokens, or None)

    def to_json(self) -> dict[str, Any]:
        return {"radius": self.radius.to_json(), "helpers": list(self.helpers), "tokens": self.tokens}


@dataclass(frozen=True)
class AuraAnswer:
    """``aura MODEL``: its Hero and Caster auras."""

    model: str
    answer: str
    hero: HeroAura | None = None
    caster: CasterAura | None = None
    steps: tuple[Step, ...] = ()

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"model": self.model}
        if self.hero is not None:
            out["hero"] = self.hero.to_json()
        if self.caster is not None:
            out["caster"] = self.caster.to_json()
        out["answer"] = self.answer
        return out


@dataclass(frozen=True)
class ChargeReach:
    """One charging model: its nearest target model, the gap, its reach (6" through difficult terrain), blockers."""

    nearest: str
    distance_mm: float  # rounded to 0.01 mm, as shown
    reach_in: float
    difficult: bool
    blocked: tuple[str, ...]
    in_reach: bool

    def to_json(self) -> dict[str, Any]:
        return {"nearest": self.nearest, "distance_mm": self.distance_mm, "reach_in": self.reach_in,
                "difficult": self.difficult, "blocked": list(self.blocked), "in_reach": self.in_reach}


@dataclass(frozen=True)
class ChargeAnswer:
    """``charge UNIT TARGET``: each model's reach; the unit may charge when one reaches."""

    models: Mapping[str, ChargeReach]
    answer: str
    steps: tuple[Step, ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "models", freeze(self.models))

    @property
    def in_reach(self) -> tuple[str, ...]:
        return tuple(k for k, p in self.models.items() if p.in_reach)

    def to_json(self) -> dict[str, Any]:
        return {"models": {k: p.to_json() for k, p in self.models.items()}, "in_reach": list(self.in_reach),
                "can_charge": bool(self.in_reach), "answer": self.answer}


@dataclass(frozen=True)
class MeleeAnswer:
    """``melee UNIT ENEMY``: the enemies each model fights, and the pairs too far apart in height."""

    fighting: Mapping[str, tuple[str, ...]]
    out_of_reach_in_height: tuple[str, ...]
    answer: str
    steps: tuple[Step, ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "fighting", freeze(self.fighting))

    @property
    def fighters(self) -> tuple[str, ...]:
        return tuple(k for k, e in self.fighting.items() if e)

    def to_json(self) -> dict[str, Any]:
        return {"fighting": thaw(self.fighting), "fighters": list(self.fighters),
                "out_of_reach_in_height": list(self.out_of_reach_in_height), "answer": self.answer}


@dataclass(frozen=True)
class BlastAnswer:
    """``blast FIRING TARGET --x X``: the enemy models within 3" of the target, the hits' multiplier."""

    models: tuple[str, ...]
    multiplier: int
    units: tuple[str, ...]
    answer: str
    steps: tuple[Step, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {"models": list(self.models), "count": len(self.models), "multiplier": self.multiplier,
                "units": list(self.units), "answer": self.answer}


@dataclass(frozen=True)
class UnitDeployment:
    """One unit at deployment: its side's edge, whether it is wholly inside, which models are not."""

    side: str
    edge: str
    outside: tuple[str, ...]

    @property
    def inside(self) -> bool:
        return not self.outside

    def to_json(self) -> dict[str, Any]:
        return {"side": self.side, "edge": self.edge, "inside": self.inside, "outside": list(self.outside)}


@dataclass(frozen=True)
class DeploymentAnswer:
    """``deployment``: each side's edge, each unit's placement, the units outside their zone."""

    edges: Mapping[str, str]
    units: Mapping[str, UnitDeployment]
    answer: str
    steps: tuple[Step, ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "edges", freeze(self.edges))
        object.__setattr__(self, "units", freeze(self.units))

    @property
    def outside(self) -> tuple[str, ...]:
        return tuple(k for k, p in self.units.items() if not p.inside)

    def to_json(self) -> dict[str, Any]:
        return {"edges": thaw(self.edges), "units": {k: p.to_json() for k, p in self.units.items()},
                "outside": list(self.outside), "answer": self.answer}


@dataclass(frozen=True)
class AmbushAnswer:
    """``ambush UNIT``: whether every model is more than 9" from every enemy, and the closest gap."""

    allowed: bool
    closest: Length | None
    answer: str
    steps: tuple[Step, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {"allowed": self.allowed, "closest": None if self.closest is None else self.closest.to_json(),
                "answer": self.answer}


@dataclass(frozen=True)
class ScoutAnswer:
    """``scout UNIT``: the models not wholly within 24" of the side's edge."""

    outside: tuple[str, ...]
    edge: str
    answer: str
    steps: tuple[Step, ...] = ()

    @property
    def allowed(self) -> bool:
        return not self.outside

    def to_json(self) -> dict[str, Any]:
        return {"allowed": self.allowed, "outside": list(self.outside), "edge": self.edge, "answer": self.answer}


@dataclass(frozen=True)
class MoveAnswer:
    """``move MODEL X Y --action A``: the allowance (capped in difficult terrain), the path, what forbids it."""

    model: str
    action: str
    allowance: Length
    path: Length
    dangerous: tuple[str, ...]
    problems: tuple[str, ...]
    answer: str
    steps: tuple[Step, ...] = ()

    @property
    def allowed(self) -> bool:
        return not self.problems

    def to_json(self) -> dict[str, Any]:
        return {"model": self.model, "action": self.action, "allowance": self.allowance.to_json(),
                "path": self.path.to_json(), "dangerous": list(self.dangerous), "allowed": self.allowed,
                "problems": list(self.problems), "answer": self.answer}


@dataclass(frozen=True)
class JumpAnswer:
    """``jump GAP``: free, a number of dice on 3+, or impossible; the AP of a fall from 2" up."""

    gap_in: float
    drop_in: float
    verdict: str
    dice: int
    fall_ap: int | None
    answer: str
    steps: tuple[Step, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {"gap_in": self.gap_in, "drop_in": round(self.drop_in, 4), "verdict": self.verdict, "dice": self.dice,
                "fall_ap": self.fall_ap, "answer": self.answer}
