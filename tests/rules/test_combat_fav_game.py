"""A short scripted Feu à Volonté game: actions and dice in tests/rules/data/script-fav.json."""

from __future__ import annotations

from tests.rules.script_runner import DATA, play


def test_scripted_feu_a_volonte_game() -> None:
    plan, results, plans = play(DATA / "script-fav.json")
    # 1. us-2 activated on a 3: 3 PA. 2. Fusil at para-4, 10.8 UD (-1, fusil +1): 6+5 = 11 against
    #    4+3-1 = 6, d4 2: arm. Combat costs 2 PA, 1 left.
    assert results[0]["action_points"] == 3
    assert results[1]["shots"][0]["location"] == "bras"
    assert plans[1].state["activation"]["ap_left"] == 1
    # 3. para-4 on a 6: 4 PA; 8 UD from its second: the radio costs +1 on its first action.
    # 4. Its shot: 5+5 -1 (band) +1 (fusil) -1 (its arm) = 9 against 6, d4 4: head, us-2 dies.
    assert results[3]["shots"][0]["why"] == "head"
    assert plans[3].state["activation"]["ap_left"] == 4 - 3
    # 5. End of turn 1.  6. Group activation: d6 4 -> two figures, d8 7 - 1 = 6 PA.
    assert results[5] == {"action_points": 6, "figures": ["us-1", "us-3"]}
    # 7. us-1 and us-3 fire together: us-3 is nearer, the main shooter, +1 for the other;
    #    3+3 -1 +1 +1 = 7 against 3+2-1 = 4: leg.  (2 PA + 1 radio for us-3: 3 left)
    assert results[6]["main_shooter"] == "us-3" and results[6]["shots"][0]["location"] == "jambe"
    assert plans[6].state["activation"]["ap_left"] == 3
    # 8. us-1 alone: 9 against 8, d4 3: chest, its third wound marker: para-4 dies.
    assert results[7]["shots"][0]["why"] == "third wound"
    assert plans[7].state["activation"]["ap_left"] == 1
    # 9. End of turn 2: everyone may act again, nobody has lost three quarters.
    assert results[8] == {"turn": 3, "game_over": False, "defeated": []}
    ids = {m.model_id for m in plan.models}
    assert "us-2" not in ids and "para-4" not in ids
    assert dict(plan.state["losses"]) == {"US": 1, "Fallschirmjäger": 1}
    assert not any(m.has_status("activated") for m in plan.models)
    assert "activation" not in plan.state
