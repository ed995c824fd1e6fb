"""High Fire's game state is one typed, frozen record read and written only at the JSON edge."""

from __future__ import annotations

from typing import Any

import pytest

from rules.errors import GameFileError
from rules.rulesets.high_fire import actions as hf
from rules.rulesets.high_fire.state import HighFireState
from tabletracker.i18n import texts
from tests.rules.test_combat_high_fire import SQUADS, make_plan, tables_path  # noqa: F401 (a fixture)


def test_the_state_round_trips_and_keeps_what_it_does_not_know() -> None:
    data = {"turn": 2, "phase": 3, "first": "red", "activated": ["reds"], "actions": {"reds": "aimed"},
            "engaged": [["rowdies", "bhq"]], "observed": {"reds": "bhq"},
            "pa": {"blue": {"action1": 1, "reaction": 0, "action2": 1}}, "operational": {"blue": 4},
            "someone_else": [1, 2]}
    st = HighFireState.from_json(data)
    assert (st.turn, st.phase, st.first, st.engaged) == (2, 3, "red", (("rowdies", "bhq"),))
    assert st.pa["blue"]["action2"] == 1 and st.observed == {"reds": "bhq"}
    assert st.to_json() == data
    fresh = HighFireState.from_json({}).to_json()  # what every state-writing action always wrote
    assert fresh == {"turn": 1, "phase": "start", "activated": [], "actions": {}, "engaged": [], "observed": {}}


@pytest.mark.parametrize("bad", [{"turn": 0}, {"phase": 6}, {"phase": "lunch"}, {"first": 1}, {"activated": "a"},
                                 {"engaged": [["a"]]}, {"pa": {"blue": [1, 1, 1]}},
                                 {"pa": {"blue": {"action1": -1, "reaction": 0, "action2": 1}}},
                                 {"observed": {"a": 2}}, {"operational": {"blue": "4"}}])
def test_a_malformed_state_is_refused_in_french_and_english(bad: dict[str, Any]) -> None:
    with pytest.raises(GameFileError) as err:
        HighFireState.from_json(bad)
    words = texts(err.value)
    assert words is not None and set(words) == {"fr", "en"} and "état de jeu" in words["fr"]


def test_a_turn_written_through_the_record(tables_path: str) -> None:  # noqa: F811
    """start_turn writes the PA split, activation spends it, engage and end_phase move on; a bad state is refused."""
    plan = make_plan(SQUADS, tables=tables_path)
    plan = hf.start_turn(plan, {"allocation": {"blue": [1, 0, 1], "red": [1, 0, 1]}}, None).plan_after
    st = HighFireState.of(plan)
    assert st.phase == "initiative" and st.first is None
    assert st.pa["blue"] == {"action1": 1, "reaction": 0, "action2": 1}
    plan = st.with_(phase=0, first="blue").on(plan)
    plan = hf.activate(plan, {"unit": "blues", "action": "careful"}, None).plan_after
    st = HighFireState.of(plan)
    assert st.activated == ("blues",) and st.actions == {"blues": "careful"} and st.pa["blue"]["action1"] == 0
    plan = hf.end_phase(plan, {}, None).plan_after
    assert HighFireState.of(plan).phase == 1 and not (plan.state or {})["activated"]
    broken = plan.with_state({**(plan.state or {}), "phase": "lunch"})
    with pytest.raises(GameFileError):
        hf.end_phase(broken, {}, None)
