"""AT-43's action results as typed, frozen records, written as JSON at the edge (``Resolution.result``).

The rule set's code builds and reads the typed fields; ``Resolution.result`` carries the
record's :meth:`to_json`, the same JSON as before, for the edges, the goldens and the tests.
They are the shared :class:`rules.rulesets.records.Record`: the JSON is the fields in order,
an ``OMIT`` field left out while it is ``None``.

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

from dataclasses import dataclass, field
from typing import Mapping

from rules.rulesets.records import OMIT, Record


@dataclass(frozen=True, eq=False)
class GroupOutcome(Record):
    """One group of impacts after its dice: saves, damage tests, the models removed, points left."""

    unit: str
    impacts: int
    save_dice: tuple[int, ...]
    saved: int
    damage_dice: tuple[int, ...]
    damage_successes: int
    removed: tuple[str, ...]
    points_left: Mapping[str, int]


@dataclass(frozen=True, eq=False)
class TemplateOutcome(Record):
    """Where an indirect shot's template landed: centre, radius, deviation, impacts each, models under it."""

    centre_mm: tuple[float, float]
    radius_cm: float
    deviation_direction: int | None
    deviation_cm: int
    impacts_each: int
    under: tuple[str, ...]


@dataclass(frozen=True, eq=False)
class SalvoResult(Record):
    """A salvo's (or an artillery strike's) result: the shooting dice, each group's outcome, the losses.

    ``template`` (indirect fire only: where it landed) comes before the groups in the JSON, so it
    is given by name.
    """

    hits: int
    misses: int
    shooting_dice: tuple[tuple[int, ...], ...]
    template: TemplateOutcome | None = field(default=None, metadata=OMIT, kw_only=True)
    groups: tuple[GroupOutcome, ...]
    removed: tuple[str, ...]
    prone: tuple[str, ...] | None = field(default=None, metadata=OMIT)  # indirect fire: the infantry thrown prone


@dataclass(frozen=True, eq=False)
class Activated(Record):
    """The unit now activated (Nouvelle salve !)."""

    active_unit: str


@dataclass(frozen=True, eq=False)
class NewLeader(Record):
    """The model now leading its unit."""

    leader: str


@dataclass(frozen=True, eq=False)
class TurnBegun(Record):
    """The turn that begins."""

    turn: int
