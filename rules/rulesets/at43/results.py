"""AT-43's action results as typed, frozen records, written as JSON at the edge (``Resolution.result``).

The rule set's code builds and reads the typed fields; ``Resolution.result`` carries the
record's :meth:`to_json`, the same JSON as before, for the edges, the goldens and the tests.

Sources: AT-43, Tirs: 3/ Test de tir (the shooting dice), 4/ Dégâts et retrait des pertes
(saves, damage tests, casualties), Tir indirect (the template), Nouvelle salve ! (turns).

Examples
--------
>>> g = GroupOutcome("golems", 2, (5,), 1, (6,), 1, ("g1",), {})
>>> g.saved, g.to_json()["removed"], sorted(g.to_json())[:3]
(1, ['g1'], ['damage_dice', 'damage_successes', 'impacts'])
>>> Activated("alpha").to_json()
{'active_unit': 'alpha'}
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping


@dataclass(frozen=True)
class GroupOutcome:
    """One group of impacts after its dice: saves, damage tests, the models removed, points left."""

    unit: str
    impacts: int
    save_dice: tuple[int, ...]
    saved: int
    damage_dice: tuple[int, ...]
    damage_successes: int
    removed: tuple[str, ...]
    points_left: Mapping[str, int]

    def to_json(self) -> dict[str, Any]:
        return {"unit": self.unit, "impacts": self.impacts, "save_dice": list(self.save_dice), "saved": self.saved,
                "damage_dice": list(self.damage_dice), "damage_successes": self.damage_successes,
                "removed": list(self.removed), "points_left": dict(self.points_left)}


@dataclass(frozen=True)
class TemplateOutcome:
    """Where an indirect shot's template landed: centre, radius, deviation, impacts each, models under it."""

    centre_mm: tuple[float, float]
    radius_cm: float
    deviation_direction: int | None
    deviation_cm: int
    impacts_each: int
    under: tuple[str, ...]

    def to_json(self) -> dict[str, Any]:
        return {"centre_mm": list(self.centre_mm), "radius_cm": self.radius_cm,
                "deviation_direction": self.deviation_direction, "deviation_cm": self.deviation_cm,
                "impacts_each": self.impacts_each, "under": list(self.under)}


@dataclass(frozen=True)
class SalvoResult:
    """A salvo's (or an artillery strike's) result: the shooting dice, each group's outcome, the losses."""

    hits: int
    misses: int
    shooting_dice: tuple[tuple[int, ...], ...]
    groups: tuple[GroupOutcome, ...]
    removed: tuple[str, ...]
    template: TemplateOutcome | None = None
    prone: tuple[str, ...] | None = None  # indirect fire only: the infantry thrown prone

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"hits": self.hits, "misses": self.misses,
                               "shooting_dice": [list(r) for r in self.shooting_dice]}
        if self.template is not None:
            out["template"] = self.template.to_json()
        out["groups"] = [g.to_json() for g in self.groups]
        out["removed"] = list(self.removed)
        if self.prone is not None:
            out["prone"] = list(self.prone)
        return out


@dataclass(frozen=True)
class Activated:
    """The unit now activated (Nouvelle salve !)."""

    active_unit: str

    def to_json(self) -> dict[str, Any]:
        return {"active_unit": self.active_unit}


@dataclass(frozen=True)
class NewLeader:
    """The model now leading its unit."""

    leader: str

    def to_json(self) -> dict[str, Any]:
        return {"leader": self.leader}


@dataclass(frozen=True)
class TurnBegun:
    """The turn that begins."""

    turn: int

    def to_json(self) -> dict[str, Any]:
        return {"turn": self.turn}
