"""The five rule sets' game states share one base (rules.rulesets.records.GameState): every state a
scripted game goes through reads back as the same JSON, a change is written from then on, the keys
of other parts of the program are kept, and a field a state does not have is refused."""

from __future__ import annotations

from typing import Any

import pytest

from rules.frozen import thaw
from rules.rulesets.at43.state import AT43State
from rules.rulesets.feu_a_volonte.state import FavState
from rules.rulesets.firefight.state import FirefightState
from rules.rulesets.high_fire.state import HighFireState
from rules.rulesets.records import GameState
from rules.rulesets.star_wars.state import StarWarsState
from tests.rules.script_runner import DATA, play

STATES: dict[str, type[GameState]] = {"at-43": AT43State, "feu-a-volonte": FavState, "firefight": FirefightState,
                                      "high-fire": HighFireState, "star-wars": StarWarsState}
SCRIPTS = {"at-43": "script-at43.json", "feu-a-volonte": "script-fav.json", "firefight": "script-firefight.json",
           "high-fire": "script-high-fire.json", "star-wars": "script-star-wars.json"}


@pytest.mark.parametrize("ruleset", sorted(STATES))
def test_every_state_of_a_scripted_game_reads_back_as_its_json(ruleset: str) -> None:
    state = STATES[ruleset]
    _, _, plans = play(DATA / SCRIPTS[ruleset])
    written = [thaw(p.state) for p in plans if p.state]
    assert len(written) >= 3, "the script changes the state"
    for plan, saved in zip((p for p in plans if p.state), written):
        assert plan.ruleset == ruleset
        assert state.of(plan).to_json() == saved
        kept: dict[str, Any] = {**saved, "server_note": {"by": "another part"}}
        assert state.from_json(kept).to_json() == kept  # a key of another part of the program is kept as it is


@pytest.mark.parametrize("ruleset", ["at-43", "firefight", "high-fire", "star-wars"])
def test_a_change_is_written_and_an_unknown_field_refused(ruleset: str) -> None:
    state = STATES[ruleset].from_json({"note": 1})
    key = state.keys()[-1]
    assert key not in state.ALWAYS and key not in state.to_json()  # an optional key: written once it is set
    changed = state.with_(**{key: getattr(state, key)})
    assert key in changed.to_json() and changed.to_json()["note"] == 1
    assert set(state.ALWAYS) <= set(state.to_json())
    with pytest.raises(TypeError, match="no field"):
        state.with_(not_a_field=1)

