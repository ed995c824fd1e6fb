"""AT-43's game state is one typed, frozen record read and written only at the JSON edge."""

from __future__ import annotations

from pathlib import Path

import pytest

from rules.dice import Dice
from rules.errors import GameFileError
from rules.resolve import resolve
from rules.rulesets.at43.state import AT43State
from tabletracker.i18n import texts
from tests.rules.test_sample_games_playable import prepared, sample


def test_the_state_round_trips_and_keeps_what_it_does_not_know() -> None:
    data = {"turn": 3, "active_unit": "sierra-alpha", "artillery_turns": [1, 2],
            "command_points_spent": {"blue": 6}, "log_note": {"any": "thing"}}
    st = AT43State.from_json(data)
    assert (st.turn, st.active_unit, st.artillery_turns) == (3, "sierra-alpha", (1, 2))
    assert st.command_points_spent == {"blue": 6}
    assert st.to_json() == data
    assert AT43State.from_json({}).to_json() == {}  # nothing written that the game did not hold
    assert AT43State.from_json(None).turn == 1


@pytest.mark.parametrize("bad", [{"turn": 0}, {"turn": "2"}, {"turn": True}, {"active_unit": 3},
                                 {"artillery_turns": "1"}, {"artillery_turns": [0]},
                                 {"command_points_spent": {"blue": -1}}, {"command_points_spent": [3]}])
def test_a_malformed_state_is_refused_in_french_and_english(bad: dict[str, object]) -> None:
    with pytest.raises(GameFileError) as err:
        AT43State.from_json(bad)
    words = texts(err.value)
    assert words is not None and set(words) == {"fr", "en"}
    assert next(iter(bad)) in words["fr"] and "état de jeu" in words["fr"]


def test_the_actions_write_the_state_through_the_record(tmp_path: Path) -> None:
    """Activation names the active unit; the end of the turn clears it; a strike is recorded with its 3 PC."""
    plan = prepared(sample("at-43", tmp_path), [])
    unit = plan.units[0].unit_id
    after = resolve(plan, "activate", {"unit": unit}, None).plan_after
    assert after is not None and AT43State.of(after).active_unit == unit
    nxt = resolve(after, "end-turn", {}, None).plan_after
    assert nxt is not None and AT43State.of(nxt).turn == 2 and "active_unit" not in (nxt.state or {})
    spent = AT43State(turn=2, artillery_turns=(2,)).on(nxt)
    leader = next(m for m in spent.models if spent.unit(m.unit_id).leader == m.model_id)
    enemy = next(u for u in spent.units if u.side != spent.unit(leader.unit_id).side)
    with pytest.raises(Exception) as once:
        resolve(spent, "artillery", {"observer": leader.model_id, "target": enemy.unit_id, "roll": 4,
                                     "penetration": 5, "area_cm": 3}, Dice.given([4]))
    assert getattr(once.value, "msg_id", None) == "at43.art_once"


def test_a_roster_refusal_is_said_in_french_and_english() -> None:
    """AT-43's own roster checks (a unit without a leader here) carry a message the edges translate."""
    from rules.errors import RosterError
    from rules.roster import parse_roster

    doc = {"ruleset": "at-43", "side": "blue",
           "units": [{"id": "u", "models": [{"id": "m1", "marker_id": 10, "base_mm": 30, "profile": "p",
                                             "weapons": ["laser"]}]}],
           "profiles": {"p": {"category": "infantry", "size": 2, "protection": 5}},
           "weapons": {"laser": {"precision": 5, "rate": 1, "rerolls": 0, "penetration": 5, "damage": 1}}}
    with pytest.raises(RosterError) as err:
        parse_roster(doc)
    words = texts(err.value)
    assert words is not None and "leader" in words["fr"] and "u" in words["en"]
    assert err.value.msg_id == "at43.roster.no_leader"
