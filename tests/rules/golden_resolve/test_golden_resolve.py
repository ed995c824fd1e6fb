"""Golden resolutions: game + action + dice -> expected needed rolls, result and game after it.

The ``resolve`` counterpart of ``tests/rules/golden`` (the ``ask`` goldens), one runner for
the five rule sets. Each ``*.json`` beside this runner holds ``scenarios``; a scenario names a
bundled sample game (``rules/data/games``), the earlier steps that bring it where the action
is allowed (``before``: ``["move", model, x_mm, y_mm]``, ``["status", model, state]`` or
``[action, request, dice]``), the action, its request, the dice in the order the rules take
them, the seed section it checks, ``expect`` (subset of ``needed`` and ``result``: objects key
by key, lists in full, floats to 0.01) and ``after``: the models removed, the changed fields of
the others, and the game's ``state`` (``null`` for a check that changes nothing on the table).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from rules import game_to_dict, resolve
from rules.dice import Dice
from tests.rules.golden.test_golden import _match
from tests.rules.test_sample_games_playable import prepared, sample

HERE = Path(__file__).parent


def _cases() -> list[Any]:
    out = []
    for path in sorted(HERE.glob("*.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        for sc in data["scenarios"]:
            out.append(pytest.param(path.stem, sc, id=f"{path.stem}:{sc['name']}"))
    return out


@pytest.mark.parametrize("ruleset, scenario", _cases())
def test_golden_resolution(ruleset: str, scenario: dict[str, Any], tmp_path: Path) -> None:
    assert scenario.get("source"), "every scenario names the rule it checks and its source"
    assert scenario["game"] == f"{ruleset}-sample.json"
    before = [tuple(step) for step in scenario["before"]]
    plan = prepared(sample(ruleset, tmp_path), before)
    res = resolve(plan, scenario["action"], scenario["request"], Dice.given(scenario["dice"]))
    _match(scenario["expect"], {"needed": dict(res.needed), "result": json.loads(json.dumps(res.result))},
           scenario["name"])
    after = scenario["after"]
    if after is None:  # a check that changes nothing on the table (Feu à Volonté's recruit)
        assert res.plan_after is None, scenario["name"]
        return
    assert res.plan_after is not None
    old = {m["id"]: m for m in game_to_dict(plan)["models"]}
    new = {m["id"]: m for m in game_to_dict(res.plan_after)["models"]}
    assert sorted(set(old) - set(new)) == after["removed"], scenario["name"]
    changed = {k: {f: new[k].get(f) for f in set(new[k]) | set(old[k]) if new[k].get(f) != old[k].get(f)}
               for k in new if k in old and new[k] != old[k]}
    assert json.loads(json.dumps(changed)) == after["models"], scenario["name"]
    if "state" in after:
        assert json.loads(json.dumps(game_to_dict(res.plan_after).get("state"))) == after["state"]


def test_every_ruleset_has_golden_resolutions() -> None:
    assert {p.stem for p in HERE.glob("*.json")} == {"high-fire", "firefight", "feu-a-volonte", "at-43", "star-wars"}


def test_a_wrong_result_is_caught() -> None:
    with pytest.raises(AssertionError, match="expected 3, got 4"):
        _match({"result": {"hits": 3}}, {"result": {"hits": 4}}, "case")
