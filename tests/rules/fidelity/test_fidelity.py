"""Golden scenarios of issue 13 (rules fidelity): the table situations that showed four wrong
answers, heights, the rules added and ``convert``; questions and actions alike.

Each ``*.json`` here holds ``games`` and ``scenarios``. A scenario names its game, either a
``question`` (with ``args``, ``options``) or an ``action`` (with ``request`` and optionally
``dice``, the exact dice typed in), the rule it checks with its ``source``, and either
``expect`` (a subset of the answer, as in tests/rules/golden: objects key by key, lists in
full, floats to 0.01; ``explanation_text``: pieces the explanation must say) or ``error`` (a piece of the message raised). An action's answer is
its JSON (:meth:`Resolution.to_json`) plus ``dice_count`` and ``effect_values`` (the
``value`` of its "effect value" steps, sorted) and ``step_rules`` (the rule of each step).
A game may carry ``high_fire_tables``: FICTITIOUS tables, written to a file and loaded at the edge as the CLI does.
"""

from __future__ import annotations

from rules.rulesets.high_fire.actions import with_tables_file

import json
from pathlib import Path
from typing import Any

import pytest

from rules.dice import Dice
from rules.plan import parse_game
from rules.questions import ask
from rules.resolve import resolve
from tests.rules.golden.test_golden import _match

HERE = Path(__file__).parent


def _cases() -> list[Any]:
    out = []
    for path in sorted(HERE.glob("*.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        for sc in data["scenarios"]:
            out.append(pytest.param(data["games"][sc["game"]], sc, id=f"{path.stem}:{sc['name']}"))
    return out


def _answer(game: dict[str, Any], sc: dict[str, Any], tmp_path: Path) -> dict[str, Any]:
    game = json.loads(json.dumps(game))
    tables = game.pop("high_fire_tables", None)
    if tables is not None:
        path = tmp_path / "fictitious-high-fire-tables.json"
        path.write_text(json.dumps(tables), encoding="utf-8")
    plan = parse_game(game, source=sc["game"])
    if tables is not None:  # the rules core opens no file: the tables are loaded at the edge
        plan = with_tables_file(plan, path)
    if "question" in sc:
        return ask(plan, sc["question"], sc.get("args", []), sc.get("options"))
    dice = Dice.given(sc["dice"]) if "dice" in sc else None
    res = resolve(plan, sc["action"], sc.get("request", {}), dice)
    out = res.to_json()
    out["dice_count"] = len(res.dice)
    out["effect_values"] = sorted(s.value for s in res.steps if s.rule == "effect value")
    out["step_rules"] = [s.rule for s in res.steps]
    return out


@pytest.mark.parametrize("game, scenario", _cases())
def test_fidelity(game: dict[str, Any], scenario: dict[str, Any], tmp_path: Path) -> None:
    assert scenario.get("source"), "every scenario names the rule it checks and its source"
    if "error" in scenario:
        with pytest.raises(ValueError, match=scenario["error"]):
            _answer(game, scenario, tmp_path)
        return
    answer = _answer(game, scenario, tmp_path)
    json.dumps(answer)
    assert answer["explanation"], "every answer explains itself"
    expect = dict(scenario["expect"])
    for piece in expect.pop("explanation_text", []):  # words the explanation must say
        text = " | ".join(f"{s['rule']}: {s['text']}" for s in answer["explanation"])
        assert piece in text, f"{scenario['name']}: {piece!r} not in the explanation: {text}"
    _match(expect, answer, scenario["name"])
