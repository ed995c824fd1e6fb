"""Feu à Volonté's game state is a typed record read and written at the JSON edge (issue 11, item 4)."""

from __future__ import annotations

import pytest

from rules.dice import Dice
from rules.errors import GameFileError
from rules.frozen import freeze
from rules.resolve import resolve
from rules.rulesets.feu_a_volonte.state import Activation, FavState, Weather
from tabletracker.i18n import texts
from tests.rules.fav_table import fav_plan

FULL = {"turn": 3, "activation": {"side": "US", "figures": ["us-1", "us-3"], "ap_left": 2, "surcharge": {"us-3": 1}},
        "losses": {"US": 1, "Fallschirmjäger": 0}, "chance_used": ["us-2"],
        "reserve_used": {"US": {"leader": 1, "second": 0}}, "weather": {"kind": "vent", "wind_d8": 3},
        "initiative": "US", "budget": 40, "round": 7}


def test_the_state_round_trips_to_the_same_json() -> None:
    s = FavState.from_json(FULL)
    assert s.activation == Activation("US", ("us-1", "us-3"), 2, freeze({"us-3": 1}))
    assert s.weather == Weather("vent", 3) and s.turn == 3 and s.budget == 40
    assert s.other == {"round": 7}  # another part's key, kept as it was
    assert s.to_json() == FULL
    assert FavState.from_json(freeze({"losses": {}, "chance_used": []})).to_json() == {"losses": {}, "chance_used": []}


@pytest.mark.parametrize("state, where", [
    ({"turn": 0}, "turn"), ({"turn": True}, "turn"), ({"losses": {"US": -1}}, "losses.US"),
    ({"activation": {"side": "US", "figures": "us-1", "ap_left": 2}}, "activation.figures"),
    ({"activation": {"side": "US", "figures": [], "ap_left": "2"}}, "activation.ap_left"),
    ({"weather": {"kind": "snow"}}, "weather.kind"), ({"weather": {"kind": "vent", "wind_d8": 9}}, "weather.wind_d8"),
    ({"reserve_used": {"US": {"leader": "one"}}}, "reserve_used.US.leader"), ({"initiative": 1}, "initiative"),
])
def test_a_malformed_state_is_refused_in_french_and_english(state: dict[str, object], where: str) -> None:
    with pytest.raises(GameFileError, match=f"game state: {where} must be") as err:
        FavState.from_json(state)
    words = texts(err.value)
    assert words is not None and f"« {where} » doit être" in words["fr"] and f"'{where}' must be" in words["en"]


def test_actions_read_and_write_the_state_through_the_record() -> None:
    """Activation writes the record, a shot spends from it, the end of turn clears it (Activation, Les Actions)."""
    plan = fav_plan()
    act = resolve(plan, "activate", {"unit": "us-2"}, Dice.given([3])).plan_after
    assert FavState.of(act).activation == Activation("US", ("us-2",), 3, freeze({}))
    shot = resolve(act, "shoot", {"firing": "us-2", "target": "para-4"}, Dice.given([6, 5, 2, 4, 3])).plan_after
    assert FavState.of(shot).activation == Activation("US", ("us-2",), 1, freeze({}))
    ended = resolve(shot, "end-turn", {}, None).plan_after
    assert FavState.of(ended).activation is None and FavState.of(ended).turn == 2
    weather = resolve(ended, "weather", {}, Dice.given([1, 5])).plan_after
    assert FavState.of(weather).weather == Weather("vent", 5) and FavState.of(weather).turn == 2
    broken = plan.with_state({"activation": {"side": "US", "figures": ["us-2"], "ap_left": -3}})
    with pytest.raises(GameFileError, match="activation.ap_left must be a whole number of at least 0"):
        resolve(broken, "shoot", {"firing": "us-2", "target": "para-4"}, Dice.given([6, 5, 2, 4, 3]))
