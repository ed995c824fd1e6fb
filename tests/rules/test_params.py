"""Every action declares its arguments: typed, matching the keys the action reads, with legal values."""

from __future__ import annotations

import ast
import inspect
import sys
from pathlib import Path

import pytest

from rules import describe_actions, load_game
from rules.rulesets import RULESETS, RuleSet
from rules.rulesets.params import Param, legal_values

SAMPLES = Path(__file__).resolve().parents[2] / "rules" / "data" / "games"

READERS = {"req_str", "req_int", "req_bool", "req_list", "req_choice"}


def _keys_read(rs: RuleSet, action: str) -> set[str]:
    """The request keys an action (and the module helpers it hands the request to) reads."""
    module = sys.modules[type(rs).__module__ + ".actions"]
    tree = ast.parse(inspect.getsource(module))
    funcs = {n.name: n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)}
    keys: set[str] = set()
    todo, seen = [rs.actions[action].__name__], set()
    while todo:
        name = todo.pop()
        if name in seen or name not in funcs:
            continue
        seen.add(name)
        for node in ast.walk(funcs[name]):
            if isinstance(node, ast.Call):
                called = getattr(node.func, "id", None) or getattr(node.func, "attr", None)
                args = node.args
                if called in READERS and len(args) >= 2 and isinstance(args[1], ast.Constant):
                    keys.add(args[1].value)
                elif (called == "get" and isinstance(node.func, ast.Attribute)
                      and getattr(node.func.value, "id", None) == "request" and args
                      and isinstance(args[0], ast.Constant)):
                    keys.add(args[0].value)
                elif called in funcs and any(getattr(a, "id", None) == "request" for a in args):
                    todo.append(called)
            elif (isinstance(node, ast.Subscript) and getattr(node.value, "id", None) == "request"
                  and isinstance(node.slice, ast.Constant)):
                keys.add(node.slice.value)
    return keys


# Keys an action sets itself when it calls another (AT-43's alert fire re-enters shoot): not for players.
INTERNAL = {("at-43", "shoot"): {"alert_fire"}}
CASES = [(rs, action) for rs in RULESETS for action in rs.actions]


@pytest.mark.parametrize("rs, action", CASES, ids=[f"{rs.name}-{a}" for rs, a in CASES])
def test_declared_arguments_are_the_keys_the_action_reads(rs: RuleSet, action: str) -> None:
    declared = {p.name for p in rs.action_params[action]}
    if any(p.kind == "point" for p in rs.action_params[action]):
        declared |= {"x_mm", "y_mm"}
    assert _keys_read(rs, action) - INTERNAL.get((rs.name, action), set()) <= declared, rs.name


def test_every_action_describes_itself_for_every_sample_game() -> None:
    for rs in RULESETS:
        plan = load_game(SAMPLES / f"{rs.name}-sample.json")
        described = describe_actions(plan)
        assert [d["action"] for d in described] == list(rs.actions)
        for d in described:
            for arg in d["arguments"]:
                if arg["kind"] in ("model", "figure", "unit", "side", "choice"):
                    assert arg["legal"], (rs.name, d["action"], arg)


def test_legal_values_follow_the_table() -> None:
    from rules.plan import OFF_TABLE, parse_game

    plan = parse_game({"ruleset": "star-wars", "table": {"width_mm": 600, "depth_mm": 600},
                       "units": [{"id": "u", "side": "A"}, {"id": "v", "side": "B"}],
                       "models": [{"id": "a", "unit": "u", "x_mm": 100, "y_mm": 100, "base_mm": 25,
                                   "weapons": ["blaster"]},
                                  {"id": "b", "unit": "v", "x_mm": 0, "y_mm": 0, "base_mm": 25,
                                   "status": [OFF_TABLE]}]})
    assert legal_values(plan, Param("shooter", "model")) == ["a"]  # b is not placed yet
    assert legal_values(plan, Param("u", "unit")) == ["u"]
    assert legal_values(plan, Param("side", "side")) == ["A", "B"]
    assert legal_values(plan, Param("w", "weapon", of="shooter")) == {"a": ["blaster"], "u": ["blaster"]}
    assert legal_values(plan, Param("n", "integer")) is None
