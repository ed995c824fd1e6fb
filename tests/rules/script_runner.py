"""Play a scripted game: a list of actions with their dice, each result applied to the game file."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from rules.resolve import resolve
from rules.dice import Dice
from rules.plan import TablePlan, dump_game, load_game, parse_game

DATA = Path(__file__).resolve().parent / "data"
SAMPLES = Path(__file__).resolve().parents[2] / "rules" / "data" / "games"


def play(script_path: Path) -> tuple[TablePlan, list[dict[str, Any]], list[TablePlan]]:
    """Return the final game, each step's result and the game after each step.

    The game goes through its file format (dump, then parse) after every step, so a
    result that would leave an invalid game file fails the script.
    """
    script = json.loads(script_path.read_text(encoding="utf-8"))
    plan = load_game(SAMPLES / script["sample"] if "sample" in script else DATA / script["game"])
    if script.get("tables") == "test":  # High Fire: the FICTITIOUS test tables, given as a player would
        plan = _with_test_tables(plan)
    results, plans = [], []
    for i, step in enumerate(script["steps"]):
        dice = Dice.given(step["dice"]) if "dice" in step else Dice.given([])
        res = resolve(plan, step["action"], step.get("request", {}), dice)
        assert res.plan_after is not None, f"step {i} ({step['action']}) changed nothing"
        plan = parse_game(json.loads(dump_game(res.plan_after)), source=f"{script_path.name} step {i}")
        results.append(dict(res.result or {}))
        plans.append(plan)
    return plan, results, plans


def _with_test_tables(plan: TablePlan) -> TablePlan:
    import dataclasses
    import tempfile

    from rules.frozen import freeze, thaw
    from tests.rules.test_combat_high_fire import fake_tables
    from tests.rules.test_sample_games_playable import HF_WEAPONS

    path = Path(tempfile.mkdtemp()) / "my-high-fire-tables.json"
    path.write_text(json.dumps(fake_tables(weapons=HF_WEAPONS)), encoding="utf-8")
    return dataclasses.replace(plan, options=freeze({**thaw(plan.options or {}), "high_fire_tables": str(path)}))
