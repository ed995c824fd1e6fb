"""A short scripted AT-43 game: actions and dice in tests/rules/data/script-at43.json, the state the rules give."""

from __future__ import annotations

from tests.rules.script_runner import DATA, play


def test_scripted_at43_game() -> None:
    plan, results, plans = play(DATA / "script-at43.json")
    # 1-2. Sierra Alpha's laser rifles (the seed's example): six hits, four damage successes,
    #      the four golems nearest the White Stars leader go.
    assert results[1]["removed"] == ["g256-1", "g256-2", "g256-3", "g256-4"]
    assert plans[1].unit("golems-256").leader is None  # their leader g256-1 fell
    # 3-5. The golems name g256-5 leader; three nanoblasters at portée 4 (3 - 4 = -1: 4+): 4, 1, 6 then
    #      the 1 re-rolled (2): two hits; damage 5 against 5 (4+): 3, 5: one steel trooper, the nearest.
    assert results[4]["shooting_dice"] == [[4, 1, 6], [2]] and results[4]["hits"] == 2
    assert results[4]["removed"] == ["sa-5"]
    # 6. Second salvo of the same activation, the sonic guns (cadence 2 x 2): three hits, damage 3
    #    against 5 (-2: 5+): two more, and the leader sa-1 is among them.
    assert results[5]["removed"] == ["sa-6", "sa-1"]
    # 7-8. Sierra Bravo's grenade launchers at g256-5, portée 6 (4 - 6 = -2: 5+): one hit, one miss;
    #      the template deviates 1 cm in direction 3, radius 3 cm: g256-5 and g256-7 under it;
    #      g256-5 dies, g256-7 survives and lies down.
    tpl = results[7]["template"]
    assert tpl["radius_cm"] == 3 and tpl["deviation_cm"] == 1 and tpl["under"] == ["g256-5", "g256-7"]
    assert results[7]["removed"] == ["g256-5"] and results[7]["prone"] == ["g256-7"]
    # the state the rules give
    assert [m.model_id for m in plan.models_of("sierra-alpha")] == ["sa-2", "sa-3", "sa-4"]
    assert [m.model_id for m in plan.models_of("golems-256")] == ["g256-6", "g256-7", "g256-8", "g256-9"]
    assert plan.model("g256-7").status == ("prone",)
    assert plan.unit("sierra-alpha").leader is None and plan.unit("golems-256").leader is None
    fired = [s["weapon"] for s in plan.unit("golems-256").extra["salvoes"]]
    assert fired == ["nanoblaster", "sonic gun"]
    assert plan.state["active_unit"] == "sierra-bravo"
