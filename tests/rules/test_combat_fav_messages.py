"""Feu à Volonté speaks French and English: every step and refusal of its combat tests is a message.

The goldens and sample games (``test_step_messages``) reach only part of the rule set's
steps; here every resolution and refusal the Feu à Volonté combat tests make (wounds,
blasts, group activations, the reserve, weather, support groups...) is gathered by
wrapping their ``resolve`` and checked the same way: a message id whose French and English
texts exist and take its parameters.
"""

from __future__ import annotations

import inspect
from pathlib import Path
from types import ModuleType
from typing import Any, Callable

import pytest

from rules.errors import RulesError
from rules.resolution import Resolution
from tabletracker.i18n import render, step_texts
from tests.rules import script_runner, test_combat_fav, test_combat_fav_game
from tests.rules.test_step_messages import _check


def _gather(module: ModuleType, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> tuple[list[str], int, int]:
    """Run ``module``'s tests with a recording ``resolve``; return the problems, the steps and refusals seen."""
    where = module if hasattr(module, "resolve") else script_runner  # the scripted game resolves in the runner
    real: Callable[..., Resolution] = where.resolve
    steps: list[dict[str, Any]] = []
    refusals: list[RulesError] = []

    def recording(*args: Any, **kwargs: Any) -> Resolution:
        try:
            res = real(*args, **kwargs)
        except RulesError as exc:
            refusals.append(exc)
            raise
        steps.extend(s.to_json() for s in res.steps)
        return res

    monkeypatch.setattr(where, "resolve", recording)
    for name, fn in sorted(vars(module).items()):
        if not name.startswith("test_") or not callable(fn):
            continue
        wanted = inspect.signature(fn).parameters
        if set(wanted) - {"tmp_path"}:
            continue  # parametrised: its cases run in the module itself
        fn(**({"tmp_path": tmp_path} if "tmp_path" in wanted else {}))
    problems = _check("fav", steps)
    for exc in refusals:
        if not _raised_in_the_rule_set(exc):
            continue  # the shared modules' refusals (dice typed in, unknown ids) are checked with them
        if exc.msg_id is None:
            problems.append(f"refusal without a message id: {exc}")
            continue
        for lang in ("fr", "en"):
            if render(exc.msg_id, exc.params, lang) is None:
                problems.append(f"refusal {exc.msg_id!r} has no {lang} text taking {sorted(exc.params)}")
    return problems, len(steps), len(refusals)


def _raised_in_the_rule_set(exc: BaseException) -> bool:
    tb = exc.__traceback__
    while tb is not None and tb.tb_next is not None:
        tb = tb.tb_next
    return tb is not None and "feu_a_volonte" in tb.tb_frame.f_code.co_filename


@pytest.mark.parametrize("module", [test_combat_fav, test_combat_fav_game], ids=["combat", "game"])
def test_every_step_and_refusal_of_the_combat_tests_is_a_message(module: ModuleType, monkeypatch: pytest.MonkeyPatch,
                                                                  tmp_path: Path) -> None:
    problems, n_steps, n_refusals = _gather(module, monkeypatch, tmp_path)
    assert n_steps > 20
    assert problems == [], "\n".join(problems[:40])
    if module is test_combat_fav:
        assert n_refusals > 10


def test_a_wound_reads_as_french_at_the_table() -> None:
    """The hit location and the quality are words of the rule set: 'blessée au bras', 'élite'."""
    import dataclasses

    from rules.dice import Dice
    from rules.resolve import resolve
    from tests.rules.fav_table import fav_plan

    res = resolve(fav_plan(), "shoot", {"firing": "us-2", "target": "para-4"}, Dice.given([6, 5, 2, 4, 3]))
    last = step_texts(res.steps[-1].to_json())
    assert last is not None
    assert "para-4 est blessée au bras (-1 en attaque)" in last["fr"]
    assert "para-4 is wounded in the arm (-1 in attack)" in last["en"]
    first = step_texts(resolve(fav_plan(), "morale", {"unit": "para-1"}, None).steps[0].to_json())
    assert first is not None and first["fr"].startswith("para-1 (élite) lance 4d6")
    moved = dataclasses.replace(fav_plan().model("us-2"), status=("moved",))
    odds = resolve(fav_plan().with_model(moved), "shoot", {"firing": "us-2", "target": "para-2"}, None)
    words = [step_texts(s.to_json()) for s in odds.steps]
    assert any(w and w["fr"] == "-1 : us-2 s'est déplacée avant de tirer" for w in words)
    assert any(w and w["fr"] == "-1 : cible à 10 UD, tranche 8-12 UD" for w in words)
