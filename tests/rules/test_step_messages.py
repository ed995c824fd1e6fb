"""Every explanation step and refusal leaves the rules core as a message the edges can say in French and English.

Runs the ``ask`` goldens, the ``resolve`` goldens and every action of the sample games,
gathers each step of the answers (and each refusal), and checks, per rule set, that each
carries a message id whose French and English texts exist and take its parameters, and
that no rendered text names the team's internal notes.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Iterator

import pytest

from rules.dice import Dice
from rules.plan import parse_game
from rules.questions import ask
from rules.resolve import resolve
from tabletracker.i18n import catalogue, render, step_texts
from tests.rules.golden.test_golden import HERE as ASK_GOLDENS
from tests.rules.golden_resolve.test_golden_resolve import HERE as RESOLVE_GOLDENS
from tests.rules.test_sample_games_playable import CASES, GAME_FILES, prepared, sample

RULESETS = ("at-43", "feu-a-volonte", "firefight", "high-fire", "star-wars")


def _nested(params: Any) -> Iterator[tuple[str, Any]]:
    """The messages used as parameters of a message (``{"msg", "params"}``), at any depth."""
    if isinstance(params, dict):
        if isinstance(params.get("msg"), str):
            yield params["msg"], params.get("params") or {}
        for v in params.values():
            yield from _nested(v)
    elif isinstance(params, list):
        for v in params:
            yield from _nested(v)


def _answers(ruleset: str, tmp_path: Path) -> Iterator[tuple[str, dict[str, Any] | BaseException]]:
    """Every answer, resolution (JSON) and refusal the goldens and the sample games give for ``ruleset``."""
    for path in sorted(ASK_GOLDENS.glob("*.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        for sc in data["scenarios"]:
            game = data["games"][sc["game"]]
            if game["ruleset"] != ruleset:
                continue
            plan = parse_game(game, source=sc["game"])
            where = f"ask {sc['name']}"
            try:
                yield where, ask(plan, sc["question"], sc.get("args", []), sc.get("options"))
            except ValueError as exc:
                yield where, exc
    data = json.loads((RESOLVE_GOLDENS / f"{ruleset}.json").read_text(encoding="utf-8"))
    for sc in data["scenarios"]:
        plan = prepared(sample(ruleset, tmp_path), [tuple(s) for s in sc["before"]])
        yield f"resolve {sc['name']}", resolve(plan, sc["action"], sc["request"], Dice.given(sc["dice"])).to_json()
    for i, (action, request, before) in enumerate(CASES[ruleset]):
        plan = prepared(sample(ruleset, tmp_path), before)
        yield f"sample {action} {i}", resolve(plan, action, request, None).to_json()


def _check(where: str, items: list[dict[str, Any]]) -> list[str]:
    """What is wrong with these JSON steps: no message id, no French or English text, a text naming the notes."""
    problems: list[str] = []
    for step in items:
        if not step.get("msg"):
            problems.append(f"{where}: no message id for {step.get('text')!r}")
            continue
        for msg_id, params in [(step["msg"], step.get("params") or {}), *_nested(step.get("params"))]:
            for lang in ("fr", "en"):
                if msg_id not in catalogue(lang):
                    problems.append(f"{where}: {msg_id!r} has no {lang} text")
                elif render(msg_id, params, lang) is None:
                    problems.append(f"{where}: {msg_id!r} ({lang}) does not take its parameters {sorted(params)}")
        words = step_texts(step) or {}
        if any("RULES-NOTES" in w or "CONVENTIONS" in w for w in words.values()):
            problems.append(f"{where}: {step['msg']} names an internal document")
    return problems


def _problems(ruleset: str, tmp_path: Path) -> tuple[int, list[str]]:
    problems: list[str] = []
    count = 0
    for where, out in _answers(ruleset, tmp_path):
        if isinstance(out, BaseException):
            msg_id = getattr(out, "msg_id", None)
            items = [{"msg": msg_id, "params": dict(getattr(out, "params", {}) or {}), "text": str(out)}]
        else:
            items = list(out.get("explanation", []))
        count += len(items)
        problems += _check(where, items)
    return count, problems


@pytest.mark.parametrize("ruleset", RULESETS)
def test_every_step_and_refusal_is_a_message_in_french_and_english(ruleset: str, tmp_path: Path) -> None:
    count, problems = _problems(ruleset, tmp_path)
    assert count > 20, f"{ruleset}: only {count} steps gathered"
    assert problems == [], "\n".join(problems[:40])


def test_the_check_finds_what_is_missing() -> None:
    assert set(GAME_FILES) >= set(RULESETS)
    no_id = _check("x", [{"rule": "r", "text": "English only", "source": "s"}])
    assert no_id == ["x: no message id for 'English only'"]
    assert _check("x", [{"msg": "no.such.message", "params": {}}])[0] == "x: 'no.such.message' has no fr text"
    assert _check("x", [{"msg": "shoot.choose_weapon", "params": {"who": "m1"}}])  # {weapons} missing
    assert _check("x", [{"msg": "shoot.choose_weapon", "params": {"who": "m1", "weapons": ["a", "b"]}}]) == []
