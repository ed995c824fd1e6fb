"""``resolve``: the one entry point for actions, as :func:`rules.questions.ask` is for questions.

Each rule set's class carries its ``actions`` table (``rules/rulesets/<name>/actions.py``):
action name -> ``(plan, request, dice) -> Resolution``; ``dice`` is ``None`` when only
the odds are asked.

Examples
--------
>>> sorted(actions_of("at-43"))[:3]
['activate', 'artillery', 'end-turn']
>>> actions_of("chess")  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
rules.errors.InvalidActionError: unknown rule set 'chess'; rule sets are: high-fire, firefight, ..., star-wars
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from rules.dice import Dice
from rules.errors import IllegalActionError, InvalidActionError
from rules.ontable import left_out_step, on_table, require_placed, restore, with_step
from rules.plan import TablePlan
from rules.resolution import Action, Resolution
from rules.rulesets import find_ruleset


def actions_of(ruleset: str) -> Mapping[str, Action]:
    """Return the actions of the rule set called ``ruleset`` (name -> function)."""
    return find_ruleset(ruleset).actions


def describe_actions(plan: TablePlan) -> list[dict[str, Any]]:
    """Return the actions of the plan's rule set, each with its typed arguments and their legal values.

    JSON-ready, for the CLI's help, the HTTP API (``GET /api/actions``) and the page's
    forms: ``[{"action": "shoot", "arguments": [{"name": "firing", "kind": "unit",
    "required": true, "legal": ["u1", ...]}, ...]}, ...]``.
    """
    return find_ruleset(plan.ruleset).describe_actions(plan)


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
    actions = find_ruleset(plan.ruleset).actions
    if action not in actions:
        raise InvalidActionError(
            f"{plan.ruleset} has no action {action!r}; actions are: {', '.join(sorted(actions))}",
            msg_id="resolve.unknown_action",
            params={"ruleset": plan.ruleset, "action": action, "known": sorted(actions)})
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
            f"this {action} took {len(dice.rolled)}: check the dice and type exactly those rolled",
            msg_id="dice.too_many",
            params={"extra": len(dice.unused()), "dice": list(dice.unused()), "action": action,
                    "used": len(dice.rolled)})
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
