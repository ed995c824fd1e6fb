"""Grimdark Future Firefight: what each action did, as typed records that read as their JSON.

Each record is a frozen dataclass and also a read-only dict of its JSON (what
:class:`rules.resolution.Resolution` keeps as ``result``, written as JSON as it is), so
the rules core builds and reads typed fields while the edges see the same JSON as before. A field whose metadata
says ``omit`` is left out of the JSON while it is ``None``.

Examples
--------
>>> c = Casualties(removed=("b1",), effect="shaken", wounds=2, hits=3)
>>> dict(c)
{'removed': ['b1'], 'effect': 'shaken', 'wounds': 2, 'hits': 3}
>>> dict(MeleeResult(attack=c))["attack"]["removed"], "counter" in MeleeResult(attack=c)
(['b1'], False)
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping

from rules.frozen import EMPTY
from rules.rulesets.records import OMIT, Record


@dataclass(frozen=True, eq=False)
class Casualties(Record):
    """What an attack did to one unit (Effets des blessures): models removed, the last model's effect."""

    removed: tuple[str, ...] = ()
    effect: str = "none"
    wounds: int = 0
    hits: int = 0


@dataclass(frozen=True, eq=False)
class ShootResult(Casualties):
    """A unit's shooting (Tir): the casualties on the target, and on each unit taking a Blast share."""

    blast_shares: Mapping[str, Casualties] | None = field(default=None, metadata=OMIT)
    target: str = ""


@dataclass(frozen=True, eq=False)
class MeleeResult(Record):
    """A melee (Mêlée): the Counter blows first when there are, the attack, the strike back when it happens."""

    counter: Casualties | None = field(default=None, metadata=OMIT)
    attack: Casualties = field(default_factory=Casualties)
    strike_back: Casualties | None = field(default=None, metadata=OMIT)


@dataclass(frozen=True, eq=False)
class MoraleResult(Record):
    """A morale test (Moral): ``passed``, ``shaken`` or ``routed``."""

    morale: str


@dataclass(frozen=True, eq=False)
class ActivateResult(Record):
    """An activation (Activation): the action taken, the move, whose turn is next."""

    unit: str
    action: str
    move_in: float
    next_turn: str | None
    round_complete: bool


@dataclass(frozen=True, eq=False)
class EndRoundResult(Record):
    """The end of a round (Mission; Moral): objectives, morale due, then the next round or the end of the game."""

    round: int
    objectives: Mapping[str, str | None] = EMPTY
    morale_due: tuple[str, ...] = ()
    game_over: bool = False
    winner: str | None = None
    objectives_held: Mapping[str, int] = EMPTY
    next_first: str | None = field(default=None, metadata=OMIT)

    def to_json(self) -> dict[str, Any]:
        """The JSON: ``game_over``, ``winner`` (``null`` for a draw) and ``objectives_held`` once the game is over."""
        out = super().to_json()
        if not self.game_over:
            for key in ("game_over", "winner", "objectives_held"):
                out.pop(key)
        return out


@dataclass(frozen=True, eq=False)
class DeployResult(Record):
    """A deployment (Déploiement; Scout; Ambush)."""

    unit: str
    mode: str
    deployed: bool = True


@dataclass(frozen=True, eq=False)
class CastResult(Record):
    """A spell (Caster(X)): ``cast`` or ``failed``."""

    spell: str


@dataclass(frozen=True, eq=False)
class JumpResult(Record):
    """A jump (Sauter): ``made`` or ``fell``."""

    jump: str


@dataclass(frozen=True, eq=False)
class FallResult(Record):
    """A fall under 2" (Chuter): ``unhurt``."""

    outcome: str


@dataclass(frozen=True, eq=False)
class PushResult(Record):
    """A push (Pousser): whether the model was pushed, and the fall it then takes (inches, 0 without)."""

    model: str
    pushed: bool
    fall_in: float
