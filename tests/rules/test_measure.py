"""Distances: models, units, terrain, objectives, table edges, rule-set units."""

from __future__ import annotations

from contextlib import nullcontext
from typing import Any

import pytest

from rules.errors import InvalidActionError
from rules.measure import (closest_models, distance_mm, distance_to_objective_mm, distance_to_table_edge_mm,
                           distance_to_terrain_mm, footprint, unit_distance_mm)
from rules.plan import parse_game
from rules.rulesets import find_ruleset


@pytest.fixture
def plan() -> Any:
    return parse_game({
        "ruleset": "firefight", "table": {"width_mm": 1000, "depth_mm": 600},
        "units": [{"id": "u", "side": "A"}, {"id": "v", "side": "B"}, {"id": "empty", "side": "B"}],
        "models": [{"id": "a", "unit": "u", "x_mm": 100, "y_mm": 100, "base_mm": 25},
                   {"id": "a2", "unit": "u", "x_mm": 100, "y_mm": 300, "base_mm": 25},
                   {"id": "b", "unit": "v", "x_mm": 400, "y_mm": 100, "base_mm": 40},
                   {"id": "b2", "unit": "v", "x_mm": 150, "y_mm": 300, "base_mm": 25}],
        "terrain": [{"id": "wall", "kind": "wall", "shape": "line", "points_mm": [[200, 0], [200, 200]]},
                    {"id": "wood", "kind": "forest", "shape": "area",
                     "points_mm": [[90, 280], [300, 280], [300, 400], [90, 400]]}],
        "objectives": [{"id": "o", "x_mm": 100, "y_mm": 160}]})


@pytest.mark.parametrize("a, b, how, expected, exception", [
    ("a", "b", "centre", 300.0, nullcontext()),
    ("a", "b", "edge", 300.0 - 12.5 - 20.0, nullcontext()),
    ("a2", "b2", "edge", 25.0, nullcontext()),
    ("a", "a", "edge", 0.0, nullcontext()),
    ("a", "zz", "edge", None, pytest.raises(InvalidActionError, match="no model 'zz'")),
    ("a", "b", "corner", None, pytest.raises(InvalidActionError, match="how must be one of edge, centre")),
])
def test_distance_between_models(plan: Any, a: str, b: str, how: str, expected: float | None, exception: Any) -> None:
    with exception:
        assert distance_mm(plan, a, b, how=how) == pytest.approx(expected)


def test_touching_and_overlapping_bases_are_zero_apart() -> None:
    plan = parse_game({"ruleset": "firefight", "table": {"width_mm": 500, "depth_mm": 500},
                       "units": [{"id": "u", "side": "A"}],
                       "models": [{"id": "a", "unit": "u", "x_mm": 100, "y_mm": 100, "base_mm": 25},
                                  {"id": "b", "unit": "u", "x_mm": 125, "y_mm": 100, "base_mm": 25},
                                  {"id": "c", "unit": "u", "x_mm": 110, "y_mm": 100, "base_mm": 25}]})
    assert distance_mm(plan, "a", "b") == 0.0
    assert distance_mm(plan, "a", "c") == 0.0


def test_units_are_as_far_as_their_closest_models(plan: Any) -> None:
    c = unit_distance_mm(plan, "u", "v")
    assert (c.a_id, c.b_id, c.distance_mm) == ("a2", "b2", pytest.approx(25.0))
    with pytest.raises(InvalidActionError, match="has no model on the table"):
        unit_distance_mm(plan, "u", "empty")
    with pytest.raises(InvalidActionError, match="empty group"):
        closest_models([], list(plan.models))


def test_terrain_objective_and_edges(plan: Any) -> None:
    assert distance_to_terrain_mm(plan, "a", "wall") == pytest.approx(100 - 12.5)
    assert distance_to_terrain_mm(plan, "a", "wall", how="centre") == pytest.approx(100.0)
    assert distance_to_terrain_mm(plan, "a2", "wood") == 0.0  # standing in it
    assert distance_to_objective_mm(plan, "a", "o") == pytest.approx(60 - 12.5)
    nearest = distance_to_table_edge_mm(plan, "b")
    assert (nearest.edge, nearest.distance_mm) == ("top", pytest.approx(80.0))
    assert distance_to_table_edge_mm(plan, "b", "right").distance_mm == pytest.approx(580.0)
    with pytest.raises(InvalidActionError, match="table edge must be one of top, bottom, left, right"):
        distance_to_table_edge_mm(plan, "b", "north")


@pytest.mark.parametrize("value_mm, ruleset, options, expected", [
    (25.4, "high-fire", None, 1.0),
    (304.8, "firefight", None, 12.0),
    (160.0, "feu-a-volonte", None, 4.0),
    (160.0, "feu-a-volonte", {"ud_mm": 20}, 8.0),
    (160.0, "feu-a-volonte", {"ud_mm": 10}, 16.0),
    (455.0, "at-43", None, 45.5),
    (100.0, "star-wars", None, 4.0),
])
def test_rule_set_units(value_mm: float, ruleset: str, options: Any, expected: float) -> None:
    assert find_ruleset(ruleset).to_unit(value_mm, options) == pytest.approx(expected)


def test_footprint_is_a_disc_of_the_base(plan: Any) -> None:
    disc = footprint(plan.model("b"))
    assert disc.area == pytest.approx(3.14159 * 20 ** 2, rel=0.01)
    assert disc.centroid.x == pytest.approx(400.0)
