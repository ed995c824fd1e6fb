"""Golden scenarios: game + question + arguments -> expected answer, in the spirit of perft files.

Each ``*.json`` beside this runner holds ``games`` (game documents by name) and
``scenarios``; a scenario names its game, the question, its arguments, options, the
rule it checks with the seed section, and either ``expect`` (a subset of the answer:
objects compared key by key, lists in full, floats to 0.01) or ``error`` (a piece of
the message of the :class:`ValueError` it must raise).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from rules.plan import parse_game
from rules.questions import ask

HERE = Path(__file__).parent
FLOAT_TOLERANCE = 0.01


def _cases() -> list[Any]:
    out = []
    for path in sorted(HERE.glob("*.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        for sc in data["scenarios"]:
            out.append(pytest.param(data["games"][sc["game"]], sc, id=f"{path.stem}:{sc['name']}"))
    return out


def _match(expected: Any, actual: Any, where: str) -> None:
    if isinstance(expected, dict):
        assert isinstance(actual, dict), f"{where}: expected an object, got {actual!r}"
        for key, value in expected.items():
            assert key in actual, f"{where}: no field {key!r} in {sorted(actual)}"
            _match(value, actual[key], f"{where}.{key}")
    elif isinstance(expected, list):
        assert isinstance(actual, list) and len(actual) == len(expected), f"{where}: expected {expected!r}, got {actual!r}"
        for i, (e, a) in enumerate(zip(expected, actual)):
            _match(e, a, f"{where}[{i}]")
    elif isinstance(expected, float) and not isinstance(actual, bool):
        assert actual == pytest.approx(expected, abs=FLOAT_TOLERANCE), f"{where}: expected {expected}, got {actual}"
    else:
        assert actual == expected, f"{where}: expected {expected!r}, got {actual!r}"


@pytest.mark.parametrize("game, scenario", _cases())
def test_golden(game: dict[str, Any], scenario: dict[str, Any]) -> None:
    assert scenario.get("source"), "every scenario names the rule it checks and its source"
    plan = parse_game(game, source=scenario["game"])
    if "error" in scenario:
        with pytest.raises(ValueError, match=scenario["error"]):
            ask(plan, scenario["question"], scenario.get("args", []), scenario.get("options"))
        return
    answer = ask(plan, scenario["question"], scenario.get("args", []), scenario.get("options"))
    json.dumps(answer)  # JSON-ready
    assert answer["explanation"], "every answer explains itself"
    _match(scenario["expect"], answer, scenario["name"])


def test_every_ruleset_has_golden_scenarios() -> None:
    rulesets = set()
    for path in HERE.glob("*.json"):
        data = json.loads(path.read_text(encoding="utf-8"))
        rulesets |= {data["games"][sc["game"]]["ruleset"] for sc in data["scenarios"]}
    assert rulesets == {"high-fire", "firefight", "feu-a-volonte", "at-43", "star-wars"}


def test_the_comparison_catches_a_wrong_answer() -> None:
    with pytest.raises(AssertionError, match="expected 4, got 5"):
        _match({"a": [{"band": 4}]}, {"a": [{"band": 5}], "b": 1}, "case")
    with pytest.raises(AssertionError, match="no field"):
        _match({"missing": 1}, {"present": 1}, "case")
    _match({"x": 1.0}, {"x": 1.004, "y": 2}, "case")
