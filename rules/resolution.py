"""What every resolution returns: the explanation, the odds, the dice, the result.

Each rule set's combat module (``rules/rulesets/<name>/actions.py``) provides ``ACTIONS``, a
dict from action name (``shoot``, ``melee``, ``morale``, ``activate``...) to a
function ``(plan, request, dice) -> Resolution``, and ``validate_roster(roster)``.
``dice`` is ``None`` when only the odds are asked.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

from rules.dice import Dice, Distribution
from rules.explain import Step, explanation_json
from rules.plan import TablePlan, game_to_dict
from tabletracker.words import Said


@dataclass(frozen=True)
class Resolution:
    """A resolved (or only evaluated) action.

    ``steps`` lists every modifier and rule applied with its source; ``needed``
    the roll(s) needed, by name ("to hit": "5+"; a :class:`~tabletracker.words.Said` when in words,
    which ``to_json`` adds as ``needed_words`` for the edges to word); ``odds`` the exact distributions
    of outcomes, by name; ``dice`` the dice taken, in order, as ``(sides, value)``;
    ``result`` what happened (``None`` when no dice were given); ``plan_after`` the
    game after the result is applied (``None`` when no dice were given).
    """

    ruleset: str
    action: str
    steps: tuple[Step, ...]
    needed: Mapping[str, str] = field(default_factory=dict)
    odds: Mapping[str, Distribution] = field(default_factory=dict)
    dice: tuple[tuple[int, int], ...] = ()
    result: Mapping[str, Any] | None = None
    plan_after: TablePlan | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "ruleset": self.ruleset,
            "action": self.action,
            "explanation": explanation_json(self.steps),
            "needed": dict(self.needed),
            "odds": {name: dist.to_json() for name, dist in self.odds.items()},
        }
        words = {name: {"msg": v.msg_id, "params": dict(v.params)} for name, v in self.needed.items()
                 if isinstance(v, Said) and v.msg_id}
        if words:  # a needed roll said in words ("higher total"): its message, for the edges to word it
            out["needed_words"] = words
        if self.result is not None:
            out["dice"] = [{"sides": s, "value": v} for s, v in self.dice]
            out["result"] = dict(self.result)
        if self.plan_after is not None:
            out["game"] = game_to_dict(self.plan_after)
        return out


Action = Callable[[TablePlan, Mapping[str, Any], "Dice | None"], Resolution]
