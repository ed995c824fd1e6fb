"""Every question answers a typed, frozen answer record; ``ask`` refuses a handler that answers a plain dict.

The records' JSON is pinned by the ``ask`` goldens (``tests/rules/golden``) and by
``test_questions`` (every question of every rule set on its sample game, through ``ask``).
"""

from __future__ import annotations

import dataclasses
import sys
from pathlib import Path
from typing import Any, Mapping

import pytest

from rules.plan import TablePlan, load_game
from rules.questions import ask
from rules.rulesets import RULESETS, RuleSet
from rules.rulesets.common import Args, handler
from tests.rules.test_questions import EXAMPLES

GAMES = Path(__file__).resolve().parents[2] / "rules" / "data" / "games"


def _own_questions(rs: RuleSet) -> list[str]:
    return [q for q in rs.question_names if hasattr(rs, "ask_" + q.replace("-", "_"))]


@pytest.mark.parametrize("rs", RULESETS, ids=lambda rs: rs.name)
def test_every_own_question_is_annotated_with_a_frozen_record(rs: RuleSet) -> None:
    own = _own_questions(rs)
    assert own, rs.name
    for q in own:
        method = getattr(type(rs), "ask_" + q.replace("-", "_"))
        ann = method.__annotations__["return"]  # a record's name (the modules use postponed annotations)
        record = getattr(sys.modules[method.__module__], ann, None) if isinstance(ann, str) else ann
        assert dataclasses.is_dataclass(record), f"{rs.name} {q}: returns {record!r}"
        assert record.__dataclass_params__.frozen, f"{rs.name} {q}: {record.__name__} is not frozen"  # type: ignore[attr-defined]
        assert callable(getattr(record, "to_json", None)), f"{rs.name} {q}: {record.__name__} has no to_json"


@pytest.mark.parametrize("rs", RULESETS, ids=lambda rs: rs.name)
def test_every_own_question_answers_its_record_on_the_sample_game(rs: RuleSet) -> None:
    plan = load_game(GAMES / f"{rs.name}-sample.json")
    opts = rs.resolve_options(plan)
    for q in _own_questions(rs):
        answer = handler(rs, q)(plan, Args(q, list(EXAMPLES[rs.name][q])), opts)
        assert not isinstance(answer, dict), f"{rs.name} {q}"
        assert dataclasses.is_dataclass(answer) and type(answer).__dataclass_params__.frozen, f"{rs.name} {q}"
        with pytest.raises(dataclasses.FrozenInstanceError):
            answer.answer = "changed"  # type: ignore[misc]
        assert answer.to_json()["answer"] == answer.answer
        assert "steps" not in answer.to_json()  # the steps go to the explanation


def test_ask_refuses_a_handler_answering_a_plain_dict(monkeypatch: pytest.MonkeyPatch) -> None:
    rs = next(r for r in RULESETS if r.name == "firefight")
    plan = load_game(GAMES / "firefight-sample.json")

    def untyped(plan: TablePlan, args: Args, opts: Mapping[str, Any]) -> dict[str, Any]:
        return {"answer": "untyped", "steps": []}

    monkeypatch.setattr(rs, "ask_jump", untyped)
    with pytest.raises(TypeError, match="plain dict"):
        ask(plan, "jump", ["2"])
