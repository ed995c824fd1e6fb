"""High Fire's action results as typed, frozen records, written as JSON at the edge (``Resolution.result``).

The rule set's code builds the typed fields; ``Resolution.result`` carries the record's
:meth:`to_json`, the same JSON as before, for the edges, the goldens and the tests.

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

from dataclasses import dataclass
from typing import Any, Mapping

Summary = tuple[int, int, int]  # figures out of action, wounded, stunned


@dataclass(frozen=True)
class TurnStarted:
    """Each side's activation points and their split over the three phases."""

    pa: Mapping[str, int]
    allocation: Mapping[str, Mapping[str, int]]

    def to_json(self) -> dict[str, Any]:
        return {"pa": dict(self.pa), "allocation": {s: dict(v) for s, v in self.allocation.items()}}


@dataclass(frozen=True)
class InitiativeWon:
    """The side that won the Commandement rolls, and the side that acts first."""

    winner: str
    first: str

    def to_json(self) -> dict[str, Any]:
        return {"winner": self.winner, "first": self.first}


@dataclass(frozen=True)
class Activation:
    """A unit activated: its action, the PA spent and left, its move in inches."""

    unit: str
    action: str
    cost: int
    pa_left: int
    move_in: int

    def to_json(self) -> dict[str, Any]:
        return {"unit": self.unit, "action": self.action, "cost": self.cost, "pa_left": self.pa_left,
                "move_in": self.move_in}


@dataclass(frozen=True)
class PhaseChanged:
    """The phase now open: 0-5 for an action phase, or ``assault``."""

    phase: int | str

    def to_json(self) -> dict[str, Any]:
        return {"phase": self.phase}


@dataclass(frozen=True)
class ShotResult:
    """A shot: the effects rolled, each target figure's states, and the summary."""

    effects: tuple[str, ...]
    states: Mapping[str, tuple[str, ...]]
    summary: Summary

    def to_json(self) -> dict[str, Any]:
        return {"effects": list(self.effects), "states": {mid: list(s) for mid, s in self.states.items()},
                "summary": list(self.summary)}


@dataclass(frozen=True)
class AssaultResult:
    """A melee: the units removed, the effects each side rolled, and each side after it."""

    removed_units: tuple[str, ...]
    effects: Mapping[str, tuple[str, ...]]
    after: Mapping[str, tuple[int, int, int, bool]]

    def to_json(self) -> dict[str, Any]:
        return {"removed_units": list(self.removed_units), "effects": {u: list(e) for u, e in self.effects.items()},
                "after": {u: list(a) for u, a in self.after.items()}}


@dataclass(frozen=True)
class MotivationResult:
    """The stunned figures that recovered, and the turn that begins."""

    recovered: tuple[str, ...]
    next_turn: int

    def to_json(self) -> dict[str, Any]:
        return {"recovered": list(self.recovered), "next_turn": self.next_turn}


@dataclass(frozen=True)
class Engaged:
    """The two units now engaged in an assault."""

    attacker: str
    defender: str

    def to_json(self) -> dict[str, Any]:
        return {"engaged": [self.attacker, self.defender]}


@dataclass(frozen=True)
class Observed:
    """The unit now observed for indirect fire."""

    target: str

    def to_json(self) -> dict[str, Any]:
        return {"observed": self.target}


@dataclass(frozen=True)
class QualityRoll:
    """A Quality roll: who rolled, the effect value, the letter, and whether it passed (when asked)."""

    model: str
    effect_value: int
    letter: str
    passed: bool | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"model": self.model, "effect_value": self.effect_value, "letter": self.letter}
        if self.passed is not None:
            out["passed"] = self.passed
        return out
