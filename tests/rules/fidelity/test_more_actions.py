"""Rules added for issue 13 (item 6), each from a concrete table situation, with exact odds.

The High Fire tables here are FICTITIOUS test values (the real ones are in the game's booklet).
"""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from rules.dice import Dice
from rules.errors import IllegalActionError, MissingTableError
from rules.plan import parse_game
from rules.resolve import resolve
from tests.rules.brute import brute_force

IN = 25.4


def _odds(res: Any, name: str) -> dict[Any, Fraction]:
    return dict(res.odds[name].probs)


# -- Firefight: Pousser / Chuter ------------------------------------------------------------------

def _firefight(status: list[str], elevation: float | None = None) -> Any:
    b1: dict[str, Any] = {"id": "b1", "unit": "v", "x_mm": 140, "y_mm": 100, "base_mm": 25, "status": status}
    if elevation is not None:
        b1["elevation_mm"] = elevation
    return parse_game({"ruleset": "firefight", "table": {"width_mm": 600, "depth_mm": 600},
                       "units": [{"id": "u", "side": "A"}, {"id": "v", "side": "B"}],
                       "models": [{"id": "a1", "unit": "u", "x_mm": 100, "y_mm": 100, "base_mm": 25}, b1]})


def test_firefight_push_a_shaken_model_on_4_up_and_off_a_roof() -> None:
    # b1, Shaken, stands on a roof 3" up next to a1: the attacker pushes it 1.5" off the edge.
    plan = _firefight(["shaken"], elevation=3 * IN)
    req = {"model": "b1", "x_mm": 140 + 1.5 * IN, "y_mm": 100, "to_elevation_mm": 0}
    odds = resolve(plan, "push", req, None)
    assert _odds(odds, "push") == {"pushed": Fraction(1, 2), "not pushed": Fraction(1, 2)}
    assert odds.needed == {"push": "4+"}
    assert any(s.rule == "fall" and s.value == 1 for s in odds.steps)  # 3" drop: AP(1)
    done = resolve(plan, "push", req, Dice.given([4]))
    assert done.result == {"model": "b1", "pushed": True, "fall_in": 3.0}
    assert done.plan_after.model("b1").position_mm == (140 + 1.5 * IN, 100)
    assert done.plan_after.model("b1").elevation_mm is None
    failed = resolve(plan, "push", req, Dice.given([3]))
    assert failed.result["pushed"] is False and failed.plan_after.model("b1").position_mm == (140, 100)
    exact = brute_force(lambda d: resolve(plan, "push", req, d).result["pushed"], key=lambda r: r).probs
    assert dict(exact) == {True: Fraction(1, 2), False: Fraction(1, 2)}


def test_firefight_push_needs_a_shaken_model_and_2_inches_at_most() -> None:
    with pytest.raises(IllegalActionError, match="not Shaken"):
        resolve(_firefight([]), "push", {"model": "b1"}, None)
    with pytest.raises(IllegalActionError, match="2\" at most"):
        resolve(_firefight(["shaken"]), "push", {"model": "b1", "x_mm": 140 + 2.1 * IN, "y_mm": 100}, None)


# -- High Fire: Jet de Qualité with a difficulty ----------------------------------------------------

LETTERS = "ABCDE"


def _hf_tables(tmp_path: Path, drop_row: str | None = None) -> str:
    rows = {str(v): [LETTERS[max(0, min(4, 4 - (v + 12) // 6 - (f - 1) // 4))] for f in range(1, 11)]
            for v in range(-12, 13)}
    if drop_row is not None:
        del rows[drop_row]
    p = tmp_path / "fictitious-tables.json"
    p.write_text(json.dumps({"unitable": {"rows": rows}, "letter_order": list(LETTERS),
                             "results": {"shooting": {}, "assault": {}}, "modifiers": {"shooting": {}, "assault": {}},
                             "weapons": {}}), encoding="utf-8")
    return str(p)


def _hf(tables: str) -> Any:
    return parse_game({
        "ruleset": "high-fire", "table": {"width_mm": 600, "depth_mm": 600}, "options": {"high_fire_tables": tables},
        "units": [{"id": "hq", "side": "blue", "leader": "cpt", "rules": ["command"]}],
        "models": [{"id": "cpt", "unit": "hq", "x_mm": 100, "y_mm": 100, "base_mm": 20, "profile": "officer"},
                   {"id": "sgt", "unit": "hq", "x_mm": 130, "y_mm": 100, "base_mm": 20, "profile": "nco"}],
        "profiles": {"officer": {"QL": 5, "CD": 3, "CR": 3, "AR": 2, "rank": 2},
                     "nco": {"QL": 4, "CD": 3, "CR": 3, "AR": 2, "rank": 1}}})


def test_high_fire_quality_roll_with_a_difficulty(tmp_path: Path) -> None:
    plan = _hf(_hf_tables(tmp_path))
    # sgt QL 4, difficulty 2: effect value 2; fictitious row 2 = C C C C B B B B A A
    res = resolve(plan, "quality", {"model": "sgt", "difficulty": 2, "success": "A,B"}, None)
    assert [s.value for s in res.steps if s.rule == "Jet de Qualité"] == [2]
    assert _odds(res, "outcome") == {"passed": Fraction(3, 5), "failed": Fraction(2, 5)}
    done = resolve(plan, "quality", {"model": "sgt", "difficulty": 2, "success": "A,B"}, Dice.given([2]))
    assert done.result == {"model": "sgt", "effect_value": 2, "letter": "C", "passed": False}
    # a command unit: its highest-ranked officer (cpt, QL 5) rolls
    cmd = resolve(plan, "quality", {"unit": "hq", "difficulty": 1}, None)
    assert [s.value for s in cmd.steps if s.rule == "Jet de Qualité"] == [4]


def test_high_fire_quality_names_the_missing_row(tmp_path: Path) -> None:
    plan = _hf(_hf_tables(tmp_path, drop_row="1"))
    with pytest.raises(MissingTableError, match='UNITABLE row for effect value 1.*"1"'):
        resolve(plan, "quality", {"model": "sgt", "difficulty": 3}, None)
