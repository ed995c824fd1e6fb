"""High Fire's action results as typed, frozen records, written as JSON at the edge (``Resolution.result``).

The rule set's code builds the typed fields; ``Resolution.result`` carries the record's
:meth:`to_json`, the same JSON as before, for the edges, the goldens and the tests. They are
the shared :class:`rules.rulesets.records.Record` (the fields in order, an ``OMIT`` field left
out while ``None``); an engagement and an observation write their own JSON.

Sources: High Fire v0.5.1, Séquence de jeu (PA, initiative, phases, motivation), Actions,
Combat à distance and Assauts (effects on the UNITABLE), Tir indirect (Observation).

Examples
--------
>>> Activation("alpha", "aimed", 1, 0, 1).to_json()
{'unit': 'alpha', 'action': 'aimed', 'cost': 1, 'pa_left': 0, 'move_in': 1}
>>> QualityRoll("al-1", 3, "B").to_json(), QualityRoll("al-1", 3, "B", passed=True).to_json()["passed"]
({'model': 'al-1', 'effect_value': 3, 'letter': 'B'}, True)
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping

from rules.rulesets.records import OMIT, Record

Summary = tuple[int, int, int]  # figures out of action, wounded, stunned


@dataclass(frozen=True, eq=False)
class TurnStarted(Record):
    """Each side's activation points and their split over the three phases."""

    pa: Mapping[str, int]
    allocation: Mapping[str, Mapping[str, int]]


@dataclass(frozen=True, eq=False)
class InitiativeWon(Record):
    """The side that won the Commandement rolls, and the side that acts first."""

    winner: str
    first: str


@dataclass(frozen=True, eq=False)
class Activation(Record):
    """A unit activated: its action, the PA spent and left, its move in inches."""

    unit: str
    action: str
    cost: int
    pa_left: int
    move_in: int


@dataclass(frozen=True, eq=False)
class PhaseChanged(Record):
    """The phase now open: 0-5 for an action phase, or ``assault``."""

    phase: int | str


@dataclass(frozen=True, eq=False)
class ShotResult(Record):
    """A shot: the effects rolled, each target figure's states, and the summary."""

    effects: tuple[str, ...]
    states: Mapping[str, tuple[str, ...]]
    summary: Summary


@dataclass(frozen=True, eq=False)
class AssaultResult(Record):
    """A melee: the units removed, the effects each side rolled, and each side after it."""

    removed_units: tuple[str, ...]
    effects: Mapping[str, tuple[str, ...]]
    after: Mapping[str, tuple[int, int, int, bool]]


@dataclass(frozen=True, eq=False)
class MotivationResult(Record):
    """The stunned figures that recovered, and the turn that begins."""

    recovered: tuple[str, ...]
    next_turn: int


@dataclass(frozen=True, eq=False)
class Engaged(Record):
    """The two units now engaged in an assault."""

    attacker: str
    defender: str

    def to_json(self) -> dict[str, Any]:
        return {"engaged": [self.attacker, self.defender]}


@dataclass(frozen=True, eq=False)
class Observed(Record):
    """The unit now observed for indirect fire."""

    target: str

    def to_json(self) -> dict[str, Any]:
        return {"observed": self.target}


@dataclass(frozen=True, eq=False)
class QualityRoll(Record):
    """A Quality roll: who rolled, the effect value, the letter, and whether it passed (when asked)."""

    model: str
    effect_value: int
    letter: str
    passed: bool | None = field(default=None, metadata=OMIT)
