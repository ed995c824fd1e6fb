"""Star Wars Grandes escarmouches: what each action did, as typed records that read as their JSON.

Each record is a frozen dataclass and also a read-only dict of its JSON (what
:class:`rules.resolution.Resolution` keeps as ``result``, written as JSON as it is), so
the rules core builds and reads typed fields while the edges see the same JSON as before.
A field whose metadata says ``omit`` is left out of the JSON while it is ``None``.

Examples
--------
>>> r = ShootResult(hits=1, killed=True)
>>> r == {"hits": 1, "killed": True}, r.killed
(True, True)
>>> ThrownResult(collision=False)
ThrownResult(collision=False, killed=None)
>>> dict(ThrownResult(collision=False))
{'collision': False}
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping

from rules.frozen import EMPTY
from rules.rulesets.records import OMIT, Record


@dataclass(frozen=True, eq=False)
class StartTurnResult(Record):
    """The initiative roll (Déroulement d'un tour de jeu)."""

    initiative: str
    turn: int


@dataclass(frozen=True, eq=False)
class HeroPhaseResult(Record):
    """A hero's phase (Phases d'activation): who was activated, who stands in the bubble, who is still free there."""

    hero: str
    activated: tuple[str, ...]
    bubble: tuple[str, ...]
    still_free_in_bubble: tuple[str, ...]


@dataclass(frozen=True, eq=False)
class TroopsPhaseResult(Record):
    """The figures a side activated without a hero (Phases d'activation)."""

    activated: tuple[str, ...]


@dataclass(frozen=True, eq=False)
class EndTurnResult(Record):
    """The end of a turn: the points each side still has on the table, the next turn."""

    points_left: Mapping[str, int]
    next_turn: int


@dataclass(frozen=True, eq=False)
class ShootResult(Record):
    """A shot (Règles de Tir): the hits that took a PV, whether the target died."""

    hits: int
    killed: bool


@dataclass(frozen=True, eq=False)
class ZoneShotResult(Record):
    """A Zone X shot (Règles de Tir, Zone X): the figures attacked and those killed."""

    zone: tuple[str, ...]
    killed: tuple[str, ...]


@dataclass(frozen=True, eq=False)
class MeleeResult(Record):
    """A melee action (Règles de Combat au corps à corps): PV lost, death, parries."""

    pv_lost: int
    killed: bool
    parried: int


@dataclass(frozen=True, eq=False)
class ForceResult(Record):
    """A Force power (Utilisation de la Force): whether it worked and whom it affected."""

    power: str
    used: bool
    affected: tuple[str, ...] = ()


@dataclass(frozen=True, eq=False)
class MedicResult(Record):
    """Médico (Règles additionnelles): whether the figure came back."""

    restored: bool


@dataclass(frozen=True, eq=False)
class FigureResult(Record):
    """An action that only names its figure (stand up, concentrate)."""

    model: str


@dataclass(frozen=True, eq=False)
class ThrownResult(Record):
    """A figure thrown by Télékinésie: whether it collided, and who died (when it did)."""

    collision: bool
    killed: tuple[str, ...] | None = field(default=None, metadata=OMIT)


@dataclass(frozen=True, eq=False)
class MoveResult(Record):
    """A move or a run (Activation d'une figurine): where the figure ends and what the path cost."""

    model: str
    to_mm: tuple[float, float]
    cost: Mapping[str, Any] = EMPTY
