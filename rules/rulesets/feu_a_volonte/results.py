"""Feu à Volonté's action results as typed records; their JSON (``to_json``) is the ``result`` of a resolution.

Each action builds one record (what the dice gave, who was hit, what it cost) and the
resolution carries its JSON: the optional fields left unset are absent, as before.

Examples
--------
>>> ActivateResult(3, ("us-2",)).to_json()
{'action_points': 3, 'figures': ['us-2']}
>>> roll = Roll.from_outcome({"kind": "missed", "attack": 6, "defence": 8, "attack_kept": [4, 2], "move_ud": 2,
...                           "attack_dice": [4, 2], "location_die": 1, "defence_dice": [5, 3]}, target="para-4")
>>> roll.kind, roll.move_ud, "why" in roll.to_json(), roll.to_json()["target"]
('missed', 2, False, 'para-4')
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, ClassVar, Mapping


def _json(value: Any) -> Any:
    if isinstance(value, Record):
        return value.to_json()
    if isinstance(value, (list, tuple)):
        return [_json(v) for v in value]
    if isinstance(value, Mapping):
        return {k: _json(v) for k, v in value.items()}
    return value


@dataclass(frozen=True)
class Record:
    """A typed result: ``to_json`` writes every field, leaving out the ``OPTIONAL`` ones that are ``None``."""

    OPTIONAL: ClassVar[frozenset[str]] = frozenset()

    def to_json(self) -> dict[str, Any]:
        return {f.name: _json(getattr(self, f.name)) for f in dataclasses.fields(self)
                if not (f.name in self.OPTIONAL and getattr(self, f.name) is None)}


@dataclass(frozen=True)
class Roll(Record):
    """One shot, or one figure caught by a blast: the dice, the totals and what it did (Les Combats à distance).

    ``kind``: ``killed``, ``wounded``, ``missed``, ``out-of-ammo``, ``tie: holds``, ``tie: falls back``.
    """

    OPTIONAL = frozenset({"target", "figure", "attack", "defence", "attack_kept", "why", "location", "move_ud",
                          "location_die", "defence_dice", "nerve_dice", "nerve", "attack_dice"})
    kind: str
    target: str | None = None
    figure: str | None = None
    attack: int | None = None
    defence: int | None = None
    attack_kept: tuple[int, ...] | None = None
    why: str | None = None
    location: str | None = None
    move_ud: int | None = None
    attack_dice: tuple[int, ...] | None = None
    location_die: int | None = None
    defence_dice: tuple[int, ...] | None = None
    nerve_dice: tuple[int, ...] | None = None
    nerve: int | None = None
    more: Mapping[str, Any] = dataclasses.field(default_factory=dict)  # fields added by later rules, kept

    @classmethod
    def from_outcome(cls, outcome: Mapping[str, Any], *, target: str | None = None,
                     figure: str | None = None) -> "Roll":
        """Return the record of an outcome as :func:`actions.shot_outcome` (and the dice) give it."""
        known = {f.name for f in dataclasses.fields(cls)} - {"more"}
        values: dict[str, Any] = {k: tuple(v) if isinstance(v, list) else v for k, v in outcome.items() if k in known}
        values.update(target=target, figure=figure, more={k: v for k, v in outcome.items() if k not in known})
        return cls(**values)

    def to_json(self) -> dict[str, Any]:
        out = super().to_json()
        out.update(_json(out.pop("more")))
        return out


@dataclass(frozen=True)
class Aiming(Record):
    """The aiming roll of a weapon that must aim first (Arme anti-char portable)."""

    dice: tuple[int, ...]
    total: int


@dataclass(frozen=True)
class ShootResult(Record):
    """A shooting action: the main shooter, each shot in order, the last outcome (``None`` when aiming failed)."""

    OPTIONAL = frozenset({"aiming", "outcome"})
    main_shooter: str
    shots: tuple[Roll, ...] = ()
    aiming: Aiming | None = None
    outcome: str | None = None


@dataclass(frozen=True)
class ThrowResult(Record):
    """A grenade or mortar (Arme à aire d'effet): the throw, the deviation if it missed, the impact, who is caught."""

    OPTIONAL = frozenset({"deviation"})
    throw_dice: tuple[int, ...]
    kept: tuple[int, ...]
    on_point: bool
    deviation: int | None
    impact_mm: tuple[float, float]
    attack: int
    figures: tuple[Roll, ...]


@dataclass(frozen=True)
class MeleeResult(Record):
    """A melee round (Les Combats en corps à corps): totals, dice, d4s and who was wounded."""

    OPTIONAL = frozenset({"wounded", "location", "killed", "kind", "group", "group_wounds"})
    attacker_total: int
    defender_total: int
    attacker_dice: tuple[int, ...]
    defender_dice: tuple[int, ...]
    attacker_d4: int
    defender_d4: int
    outcome: str
    wounded: str | None = None
    location: str | None = None
    killed: bool | None = None
    kind: str | None = None  # a crew figure hit (Groupe d'appui): "wounded" or "group out", its group's wounds
    group: str | None = None
    group_wounds: int | None = None


@dataclass(frozen=True)
class DodgeResult(Record):
    """A charge from behind: the defender's dodge, and the wound if it failed."""

    OPTIONAL = frozenset({"wounded", "location", "killed", "kind", "group", "group_wounds"})
    dodge_dice: tuple[int, ...]
    dodge: int
    outcome: str
    wounded: str | None = None
    location: str | None = None
    killed: bool | None = None
    kind: str | None = None  # a crew figure hit (Groupe d'appui): "wounded" or "group out", its group's wounds
    group: str | None = None
    group_wounds: int | None = None


@dataclass(frozen=True)
class SpotResult(Record):
    """A spotting roll (Se dissimuler); ``total`` is ``None`` when the target was spotted without a roll."""

    spotted: bool
    total: int | None
    dice: tuple[int, ...]


@dataclass(frozen=True)
class NerveResult(Record):
    """A nerve test: held or fell back, and the total."""

    holds: bool
    total: int


@dataclass(frozen=True)
class DisengageResult(Record):
    """Leaving a duel (Se désengager)."""

    disengaged: bool
    total: int


@dataclass(frozen=True)
class ReloadResult(Record):
    """A reload (Recharger)."""

    reloaded: str


@dataclass(frozen=True)
class ActivateResult(Record):
    """An activation: the action points rolled and the figures that act."""

    action_points: int
    figures: tuple[str, ...]


@dataclass(frozen=True)
class EndTurnResult(Record):
    """The end of a turn: the new turn, and the sides that lost three quarters of their company (Fin de partie)."""

    turn: int
    game_over: bool
    defeated: tuple[str, ...]


@dataclass(frozen=True)
class RecruitResult(Record):
    """One side's recruitment cost and the limits it breaks (Recrutement); its budget and its support teams' share."""

    OPTIONAL = frozenset({"budget_pdr", "teams_pdr"})
    total_pdr: int
    problems: tuple[str, ...]
    budget_pdr: int | None = None
    teams_pdr: int | None = None  # what its support teams cost, once each (Recrutement, 1914 à nos jours)


@dataclass(frozen=True)
class PayResult(Record):
    """An action paid in action points without dice."""

    action: str
    cost: int


@dataclass(frozen=True)
class InitiativeResult(Record):
    """The initiative: the side that starts and each pair of d6 rolled."""

    starts: str
    rolls: tuple[tuple[int, int], ...]


@dataclass(frozen=True)
class BuildingResult(Record):
    """A shot at a building (Faire feu sur une construction)."""

    building: str
    type: str
    attack: int
    defence: int
    outcome: str


@dataclass(frozen=True)
class SupportWoundResult(Record):
    """A support group's wounds (Groupe d'appui)."""

    unit: str
    wounds: int
    limit: int
    removed: bool


@dataclass(frozen=True)
class NpcResult(Record):
    """An NPC group's activation (Jouer en solitaire): a charge, or a move by a d6 direction."""

    OPTIONAL = frozenset({"target", "direction", "move_ud", "sees_now"})
    group: str
    action: str
    target: str | None = None
    direction: int | None = None
    move_ud: float | None = None
    sees_now: tuple[str, ...] | None = None


@dataclass(frozen=True)
class ReinforcementsResult(Record):
    """Survival game reinforcements: the d4 of each entry point."""

    per_entry_point: tuple[int, ...]
    total: int
