"""The combat modules of the five rule sets, and one dispatcher for every action.

``COMBAT`` maps a rule set id to its module (imported on first use, so a rule set
being worked on cannot break the others). Each module exposes ``ACTIONS``
(action name -> ``(plan, request, dice) -> Resolution``, see
:mod:`rules.combat.base`) and ``validate_roster(roster)``.

Examples
--------
>>> sorted(COMBAT)
['at-43', 'feu-a-volonte', 'firefight', 'high-fire', 'star-wars']
>>> COMBAT["at-43"].__name__
'rules.combat.at43'
>>> module_name("chess")
Traceback (most recent call last):
...
rules.errors.InvalidActionError: unknown rule set 'chess'; rule sets are: at-43, feu-a-volonte, firefight, high-fire, star-wars
"""

from __future__ import annotations

import dataclasses
import importlib
from collections.abc import Iterator, Mapping
from types import ModuleType
from typing import Any, Callable

from rules.dice import Dice
from rules.errors import IllegalActionError, InvalidActionError
from rules.ontable import left_out_step, on_table, require_placed, restore, with_step
from rules.plan import TablePlan

from rules.combat.base import Resolution

MODULES: dict[str, str] = {
    "at-43": "rules.combat.at43",
    "feu-a-volonte": "rules.combat.feu_a_volonte",
    "firefight": "rules.combat.firefight",
    "high-fire": "rules.combat.high_fire",
    "star-wars": "rules.combat.star_wars",
}


def module_name(ruleset: str) -> str:
    """Return the dotted name of ``ruleset``'s combat module."""
    try:
        return MODULES[ruleset]
    except KeyError:
        raise InvalidActionError(
            f"unknown rule set {ruleset!r}; rule sets are: {', '.join(sorted(MODULES))}"
        ) from None


class _LazyModules(Mapping[str, ModuleType]):
    """A read-only mapping that imports each combat module the first time it is asked for."""

    def __getitem__(self, ruleset: str) -> ModuleType:
        name = module_name(ruleset)
        try:
            return importlib.import_module(name)
        except ModuleNotFoundError as exc:
            if exc.name != name:
                raise
            raise InvalidActionError(f"the {ruleset} resolutions are not installed ({name} is missing)") from None

    def __iter__(self) -> Iterator[str]:
        return iter(MODULES)

    def __len__(self) -> int:
        return len(MODULES)


COMBAT: Mapping[str, ModuleType] = _LazyModules()


def actions_of(ruleset: str) -> Mapping[str, Callable[..., Resolution]]:
    """Return the ``ACTIONS`` of ``ruleset``."""
    return COMBAT[ruleset].ACTIONS


def validator_for(ruleset: str) -> Callable[[Any], None]:
    """Return ``validate_roster`` of ``ruleset``'s combat module."""
    return COMBAT[ruleset].validate_roster


def resolve(plan: TablePlan, action: str, request: Mapping[str, Any], dice: Dice | None) -> Resolution:
    """Resolve ``action`` of the plan's rule set with ``request`` (its arguments) and ``dice``.

    Without dice the resolution holds the explanation and the exact odds; with dice
    (:meth:`Dice.given` or :meth:`Dice.seeded`) also the result and the game after it.

    Raises
    ------
    InvalidActionError
        Unknown action (the message lists those available) or malformed request.
    IllegalActionError
        The rules do not allow this action now, or it names a figure (or a unit with
        no figure) not on the table yet.

    The action sees the table as :func:`rules.ontable.on_table` does: figures a
    roster brought but the tracker has not placed (status ``"off-table"``) neither
    shoot, are shot at nor count in its geometry; the game after it keeps them.
    """
    actions = actions_of(plan.ruleset)
    if action not in actions:
        raise InvalidActionError(
            f"{plan.ruleset} has no action {action!r}; actions are: {', '.join(sorted(actions))}"
        )
    view = on_table(plan)
    try:
        resolution = actions[action](view, request, dice)
    except (InvalidActionError, IllegalActionError) as exc:
        if view is not plan:
            require_placed(view, _ids_in(request))  # the clearer reason: it names what is not on the table
        raise exc
    if view is not plan:
        resolution = with_step(resolution, left_out_step(view))
        if resolution.plan_after is not None:
            resolution = dataclasses.replace(resolution, plan_after=restore(resolution.plan_after, plan))
    if dice is not None and dice.typed is not None and dice.unused():
        raise InvalidActionError(
            f"{len(dice.unused())} die/dice typed in were not needed ({', '.join(map(str, dice.unused()))}); "
            f"this {action} took {len(dice.rolled)}: check the dice and type exactly those rolled"
        )
    return resolution


def _ids_in(request: Any) -> list[str]:
    """Return every string of ``request`` (ids of models and units, among other values)."""
    if isinstance(request, str):
        return [request]
    if isinstance(request, Mapping):
        return [s for v in request.values() for s in _ids_in(v)]
    if isinstance(request, (list, tuple)):
        return [s for v in request for s in _ids_in(v)]
    return []
