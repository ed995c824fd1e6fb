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
from dataclasses import dataclass, field
from typing import Any, Mapping

from rules.rulesets.records import OMIT, Record, json_value


@dataclass(frozen=True, eq=False)
class Roll(Record):
    """One shot, or one figure caught by a blast: the dice, the totals and what it did (Les Combats à distance).

    ``kind``: ``killed``, ``wounded``, ``missed``, ``out-of-ammo``, ``tie: holds``, ``tie: falls back``.
    """

    kind: str
    target: str | None = field(default=None, metadata=OMIT)
    figure: str | None = field(default=None, metadata=OMIT)
    attack: int | None = field(default=None, metadata=OMIT)
    defence: int | None = field(default=None, metadata=OMIT)
    attack_kept: tuple[int, ...] | None = field(default=None, metadata=OMIT)
    why: str | None = field(default=None, metadata=OMIT)
    location: str | None = field(default=None, metadata=OMIT)
    move_ud: int | None = field(default=None, metadata=OMIT)
    attack_dice: tuple[int, ...] | None = field(default=None, metadata=OMIT)
    location_die: int | None = field(default=None, metadata=OMIT)
    defence_dice: tuple[int, ...] | None = field(default=None, metadata=OMIT)
    nerve_dice: tuple[int, ...] | None = field(default=None, metadata=OMIT)
    nerve: int | None = field(default=None, metadata=OMIT)
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
        out.update(json_value(out.pop("more")))
        return out


@dataclass(frozen=True, eq=False)
class Aiming(Record):
    """The aiming roll of a weapon that must aim first (Arme anti-char portable)."""

    dice: tuple[int, ...]
    total: int


@dataclass(frozen=True, eq=False)
class ShootResult(Record):
    """A shooting action: the main shooter, each shot in order, the last outcome (``None`` when aiming failed)."""

    main_shooter: str
    shots: tuple[Roll, ...] = ()
    aiming: Aiming | None = field(default=None, metadata=OMIT)
    outcome: str | None = field(default=None, metadata=OMIT)


@dataclass(frozen=True, eq=False)
class ThrowResult(Record):
    """A grenade or mortar (Arme à aire d'effet): the throw, the deviation if it missed, the impact, who is caught."""

    throw_dice: tuple[int, ...]
    kept: tuple[int, ...]
    on_point: bool
    deviation: int | None = field(metadata=OMIT)
    impact_mm: tuple[float, float]
    attack: int
    figures: tuple[Roll, ...]


@dataclass(frozen=True, eq=False)
class MeleeResult(Record):
    """A melee round (Les Combats en corps à corps): totals, dice, d4s and who was wounded."""

    attacker_total: int
    defender_total: int
    attacker_dice: tuple[int, ...]
    defender_dice: tuple[int, ...]
    attacker_d4: int
    defender_d4: int
    outcome: str
    wounded: str | None = field(default=None, metadata=OMIT)
    location: str | None = field(default=None, metadata=OMIT)
    killed: bool | None = field(default=None, metadata=OMIT)
    # a crew figure hit (Groupe d'appui): "wounded" or "group out", and its group's wounds
    kind: str | None = field(default=None, metadata=OMIT)
    group: str | None = field(default=None, metadata=OMIT)
    group_wounds: int | None = field(default=None, metadata=OMIT)


@dataclass(frozen=True, eq=False)
class DodgeResult(Record):
    """A charge from behind: the defender's dodge, and the wound if it failed."""

    dodge_dice: tuple[int, ...]
    dodge: int
    outcome: str
    wounded: str | None = field(default=None, metadata=OMIT)
    location: str | None = field(default=None, metadata=OMIT)
    killed: bool | None = field(default=None, metadata=OMIT)
    # a crew figure hit (Groupe d'appui): "wounded" or "group out", its group's wounds
    kind: str | None = field(default=None, metadata=OMIT)
    group: str | None = field(default=None, metadata=OMIT)
    group_wounds: int | None = field(default=None, metadata=OMIT)


@dataclass(frozen=True, eq=False)
class SpotResult(Record):
    """A spotting roll (Se dissimuler); ``total`` is ``None`` when the target was spotted without a roll."""

    spotted: bool
    total: int | None
    dice: tuple[int, ...]


@dataclass(frozen=True, eq=False)
class NerveResult(Record):
    """A nerve test: held or fell back, and the total."""

    holds: bool
    total: int


@dataclass(frozen=True, eq=False)
class DisengageResult(Record):
    """Leaving a duel (Se désengager)."""

    disengaged: bool
    total: int


@dataclass(frozen=True, eq=False)
class ReloadResult(Record):
    """A reload (Recharger)."""

    reloaded: str


@dataclass(frozen=True, eq=False)
class ActivateResult(Record):
    """An activation: the action points rolled and the figures that act."""

    action_points: int
    figures: tuple[str, ...]


@dataclass(frozen=True, eq=False)
class EndTurnResult(Record):
    """The end of a turn: the new turn, and the sides that lost three quarters of their company (Fin de partie)."""

    turn: int
    game_over: bool
    defeated: tuple[str, ...]


@dataclass(frozen=True, eq=False)
class RecruitResult(Record):
    """One side's recruitment cost and the limits it breaks (Recrutement); its budget and its support teams' share."""

    total_pdr: int
    problems: tuple[str, ...]
    budget_pdr: int | None = field(default=None, metadata=OMIT)
    # what its support teams cost, once each (Recrutement, 1914 à nos jours)
    teams_pdr: int | None = field(default=None, metadata=OMIT)


@dataclass(frozen=True, eq=False)
class PayResult(Record):
    """An action paid in action points without dice."""

    action: str
    cost: int


@dataclass(frozen=True, eq=False)
class InitiativeResult(Record):
    """The initiative: the side that starts and each pair of d6 rolled."""

    starts: str
    rolls: tuple[tuple[int, int], ...]


@dataclass(frozen=True, eq=False)
class BuildingResult(Record):
    """A shot at a building (Faire feu sur une construction)."""

    building: str
    type: str
    attack: int
    defence: int
    outcome: str


@dataclass(frozen=True, eq=False)
class SupportWoundResult(Record):
    """A support group's wounds (Groupe d'appui)."""

    unit: str
    wounds: int
    limit: int
    removed: bool


@dataclass(frozen=True, eq=False)
class NpcResult(Record):
    """An NPC group's activation (Jouer en solitaire): a charge, or a move by a d6 direction."""

    group: str
    action: str
    target: str | None = field(default=None, metadata=OMIT)
    direction: int | None = field(default=None, metadata=OMIT)
    move_ud: float | None = field(default=None, metadata=OMIT)
    sees_now: tuple[str, ...] | None = field(default=None, metadata=OMIT)


@dataclass(frozen=True, eq=False)
class ReinforcementsResult(Record):
    """Survival game reinforcements: the d4 of each entry point."""

    per_entry_point: tuple[int, ...]
    total: int
