"""Scripted multi-turn games for Firefight, Star Wars and High Fire (AT-43 and Feu à Volonté have their own files).

Each script (tests/rules/data/script-<ruleset>.json) plays a bundled sample game through
`resolve`, with the dice in the order taken; the game goes through its file format after
every step. The assertions are the state the rules give, step by step.
"""

from __future__ import annotations

from tests.rules.script_runner import DATA, play


def test_scripted_firefight_rounds() -> None:
    plan, results, plans = play(DATA / "script-firefight.json")
    # round 1: squad-a holds; the snipers (Quality 2+) hit with the 5, squad-b's Defense 5+ fails on the 3
    assert results[1]["hits"] == 1 and results[1]["removed"] == ["b2"]
    # activations alternate A, B, ...; bikers-b is the last one and completes the round
    assert [r["next_turn"] for r in results[2:7]] == ["A", "B", "A", "B", "B"] and results[6]["round_complete"]
    assert results[7]["round"] == 1 and results[7]["next_first"] == "A"
    # round 2: the snipers hit twice (6, 2) and the 4 saves nothing at 5+: two more of squad-b fall
    assert results[9]["removed"] == ["b3", "b4"]
    # squad-b, at half strength or less, tests morale on its Quality and rolls a 1: shaken
    assert results[10]["morale"] == "shaken"
    assert plan.state["round"] == 2 and [m.model_id for m in plan.models_of("squad-b")] == ["b1", "b5"]
    assert all(m.has_status("shaken") for m in plan.models_of("squad-b"))


def test_scripted_star_wars_turn() -> None:
    plan, results, plans = play(DATA / "script-star-wars.json")
    assert results[0] == {"initiative": "empire", "turn": 1}
    assert results[2] == {"hits": 1, "killed": True} and results[4] == {"hits": 1, "killed": True}
    assert "rb-1" not in {m.model_id for m in plan.models} and "st-2" not in {m.model_id for m in plan.models}
    assert results[9]["next_turn"] == 2
    assert results[10]["turn"] == 2 and plan.state["turn"] == 2
    assert {d["id"] for d in plan.state["dead"]} == {"rb-1", "st-2"}


def test_scripted_high_fire_turn() -> None:
    plan, results, plans = play(DATA / "script-high-fire.json")
    assert results[1] == {"winner": "blue", "first": "blue"}
    assert results[3]["states"] == {"rk-2": ["out-of-action"], "rk-3": ["wounded", "stunned"], "rk-1": ["wounded"]}
    assert results[6]["states"]["br-2"] == ["stunned"]
    assert [r["phase"] for r in (results[4], results[7], results[8], results[9])] == [1, 2, 3, 4]
    assert results[10] == {"recovered": ["br-2", "rk-3"], "next_turn": 2}
    assert plan.state["turn"] == 2
    assert plan.model("rk-2").has_status("out-of-action") and not plan.model("br-2").has_status("stunned")
