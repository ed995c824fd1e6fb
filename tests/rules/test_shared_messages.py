"""The questions every rule set shares, and the refusals of the shared modules, speak French and English.

Asked of each bundled sample game: distance (models, units, to a piece, an objective, an edge),
sight (models, units), cohesion, template, objectives, terrain, convert and victory; every step of
every answer (and each refusal below) carries a message id whose French and English texts exist
and take its parameters (``tests/rules/test_step_messages._check``). Steps the rule-set packages
add to these answers are theirs (``test_step_messages.PENDING``); only the shared modules' are
checked here, by their message ids' families.
"""

from __future__ import annotations

from typing import Any

import pytest

from rules.errors import RulesError
from rules.plan import load_game
from rules.questions import ask, questions
from rules.rulesets import find_ruleset
from tabletracker.i18n import render
from tests.rules.test_sample_games_playable import GAME_FILES
from tests.rules.test_step_messages import RULESETS, _check

SHARED_FAMILIES = ("measure.", "distance.", "los.", "cohesion.", "template.", "objectives.", "terrain.",
                   "convert.", "victory.", "leader.", "ontable.", "aura.", "odds.")


def _shared_steps(answer: dict[str, Any]) -> list[dict[str, Any]]:
    return [s for s in answer["explanation"]
            if not s.get("msg") or str(s["msg"]).startswith(SHARED_FAMILIES)]


@pytest.mark.parametrize("ruleset", RULESETS)
def test_the_shared_questions_explain_themselves_in_french_and_english(ruleset: str) -> None:
    plan = load_game(GAME_FILES[ruleset])
    a, b = plan.models[0].model_id, plan.models[-1].model_id
    ua, ub = plan.units[0].unit_id, plan.units[-1].unit_id
    asked = [("distance", [a, b]), ("distance", [ua, ub]), ("distance", [a, plan.terrain[0].terrain_id]),
             ("distance", [a, "top"]), ("los", [a, b]), ("template", ["300", "300", "80"]),
             ("terrain", []), ("terrain", [a]), ("convert", ["12", "in", "cm"]), ("convert", ["4", "UD"]),
             ("victory", [])]
    if plan.objectives:
        asked.append(("distance", [a, plan.objectives[0].objective_id]))
    asked += [("cohesion", [ua]), ("objectives", [])]
    rs = find_ruleset(plan.ruleset)
    # the shared answers only: a question the rule set answers itself (ask_<name>) is its package's
    shared = {q for q in questions(plan) if getattr(rs, "ask_" + q.replace("-", "_"), None) is None}
    steps = 0
    for question, args in asked:
        if question not in shared:
            continue
        answer = ask(plan, question, args)
        mine = _shared_steps(answer)
        steps += len(mine)
        assert _check(f"{question} {args}", mine) == []
    assert steps >= 10


@pytest.mark.parametrize("question, args", [
    ("distance", ["nobody", "a1"]), ("distance", ["a1"]), ("distance", ["a1", "a2", "a3"]),
    ("distance", ["a1", "a2", "--how", "corner"]), ("distance", ["a1", "a2", "--far"]),
    ("los", ["a1", "a1"]), ("los", ["a1", "squad-a"]), ("template", ["x", "1", "2"]),
    ("template", ["1", "1", "-2"]), ("convert", ["12", "furlongs"]), ("convert", []), ("firezone", ["a", "b"]),
])
def test_the_shared_refusals_say_what_is_wrong_in_french_and_english(question: str, args: list[str]) -> None:
    plan = load_game(GAME_FILES["firefight"])
    with pytest.raises(RulesError) as info:
        ask(plan, question, args)
    exc = info.value
    assert exc.msg_id, f"{question} {args}: {exc} has no message id"
    for lang in ("fr", "en"):
        assert render(exc.msg_id, exc.params, lang), (exc.msg_id, lang)
