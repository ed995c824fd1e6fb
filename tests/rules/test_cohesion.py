"""Chain cohesion: links, the 9-inch rule, exempt models, the nearest-neighbour reading."""

from __future__ import annotations

from typing import Any

import pytest

from rules.cohesion import chain_cohesion
from rules.errors import InvalidActionError
from rules.plan import parse_game

IN = 25.4


def unit(xs: list[float], *, base: float = 25.4, leader: str = "m0", extra: Any = None) -> Any:
    models = [{"id": f"m{i}", "unit": "u", "x_mm": x, "y_mm": 100, "base_mm": base} for i, x in enumerate(xs)]
    for k, v in (extra or {}).items():
        models[k].update(v)
    return parse_game({"ruleset": "firefight", "table": {"width_mm": 2000, "depth_mm": 300},
                       "units": [{"id": "u", "side": "A", "leader": leader}], "models": models})


@pytest.mark.parametrize("xs, in_cohesion, breaking", [
    ([100, 150.8, 201.6], True, ()),             # 1" links exactly
    ([100, 150.8, 202.0], False, ("m2",)),        # 1.016" gap
    ([100, 125.4], True, ()),                     # touching
    ([100], True, ()),                            # a lone model
    ([100, 150.8, 500, 550.8, 601.6], False, ("m0", "m1")),  # the larger group stays, the smaller breaks
])
def test_chain(xs: list[float], in_cohesion: bool, breaking: tuple[str, ...]) -> None:
    c = chain_cohesion(unit(xs), "u", link_mm=IN)
    assert (c.in_cohesion, c.breaking) == (in_cohesion, breaking)
    assert c.steps[-1].source == "geometry: models linked in a chain"


def test_equal_groups_keep_the_leader() -> None:
    c = chain_cohesion(unit([100, 150.8, 500, 550.8], leader="m2"), "u", link_mm=IN)
    assert c.breaking == ("m0", "m1")
    assert c.groups[0] == ("m2", "m3")


def test_all_within_breaks_the_farthest_not_the_leader() -> None:
    xs = [100 + 50.8 * i for i in range(7)]  # 11" end to end
    c = chain_cohesion(unit(xs), "u", link_mm=IN, all_within_mm=9 * IN)
    assert not c.in_cohesion
    assert c.breaking == ("m6",)
    assert [(a, b) for a, b, _ in c.too_far] == [("m0", "m6")]


def test_exempt_models_and_modes() -> None:
    plan = unit([100, 150.8, 900])
    c = chain_cohesion(plan, "u", link_mm=IN, exempt=lambda mid: mid == "m2")
    assert c.in_cohesion and c.exempt == ("m2",)
    pairs = unit([100, 120, 500, 520])
    assert not chain_cohesion(pairs, "u", link_mm=IN).in_cohesion
    assert chain_cohesion(pairs, "u", link_mm=IN, mode="nearest").in_cohesion
    with pytest.raises(InvalidActionError, match="chain or nearest"):
        chain_cohesion(pairs, "u", link_mm=IN, mode="ring")


def test_centre_measure() -> None:
    plan = unit([100, 140])  # 40 mm between centres, 14.6 mm between edges
    assert chain_cohesion(plan, "u", link_mm=20, how="edge").in_cohesion
    assert not chain_cohesion(plan, "u", link_mm=20, how="centre").in_cohesion
