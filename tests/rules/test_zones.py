"""Zones: fire zone, cover sweep, templates, auras, objectives, deployment, deviation."""

from __future__ import annotations

import math
from typing import Any

import pytest
import shapely

from rules.errors import InvalidActionError
from rules.plan import parse_game
from rules.rulesets.at43.fire_zone import at43_template_radius_cm, fire_zone, sweep_beyond
from rules.zones import (aura, bases_hull, deployment_zone, deviate, objective_states, partly_inside, template,
                         wholly_inside)


def plan_of(models: list[dict[str, Any]], **extra: Any) -> Any:
    units = sorted({m["unit"] for m in models})
    return parse_game({"ruleset": "at-43", "table": {"width_mm": 1000, "depth_mm": 1000},
                       "units": [{"id": u, "side": "A" if u.startswith("f") else "B"} for u in units],
                       "models": models, **extra})


def test_bases_hull_contains_every_base() -> None:
    plan = plan_of([{"id": "a", "unit": "f", "x_mm": 100, "y_mm": 100, "base_mm": 40},
                    {"id": "b", "unit": "f", "x_mm": 300, "y_mm": 120, "base_mm": 25}])
    hull = bases_hull(list(plan.models))
    for m in plan.models:
        assert hull.covers(shapely.Point(m.position_mm).buffer(m.base_mm / 2 - 1e-6))


def test_partly_inside_touching_is_not_inside() -> None:
    zone = shapely.box(0, 0, 100, 100)
    plan = plan_of([{"id": "in", "unit": "x", "x_mm": 110, "y_mm": 50, "base_mm": 25},
                    {"id": "touch", "unit": "x", "x_mm": 112.5, "y_mm": 50, "base_mm": 25},
                    {"id": "out", "unit": "x", "x_mm": 130, "y_mm": 50, "base_mm": 25}])
    assert partly_inside(zone, list(plan.models)).tolist() == [True, False, False]


def test_fire_zone_needs_two_units_with_models() -> None:
    plan = plan_of([{"id": "a", "unit": "f", "x_mm": 100, "y_mm": 100, "base_mm": 30},
                    {"id": "b", "unit": "t", "x_mm": 500, "y_mm": 100, "base_mm": 30}])
    assert fire_zone(plan, "f", "t").caught == ()
    with pytest.raises(InvalidActionError, match="cannot fire at itself"):
        fire_zone(plan, "f", "f")
    with pytest.raises(InvalidActionError, match="no model on the table"):
        fire_zone(plan, "f", "t", target_models=["zz"])


def test_sweep_beyond_covers_the_lee_side() -> None:
    wall = shapely.LineString([(100, 0), (100, 50)])
    lee = sweep_beyond(wall, (1.0, 0.0), 200.0)
    assert lee.covers(shapely.Point(250, 25)) and not lee.covers(shapely.Point(50, 25))
    u_shape = shapely.Polygon([(0, 0), (30, 0), (30, 10), (10, 10), (10, 40), (30, 40), (30, 50), (0, 50)])
    lee2 = sweep_beyond(u_shape, (1.0, 0.0), 100.0)
    assert lee2.covers(shapely.Point(80, 25))


@pytest.mark.parametrize("radius, how, expected", [
    (30.0, "edge", ("c", "near")),     # near's edge is 25 mm from the centre
    (25.0, "edge", ("c",)),            # touching the rim is not under
    (40.0, "centre", ("c", "near")),   # centre within 40 mm
    (39.0, "centre", ("c",)),
])
def test_template(radius: float, how: str, expected: tuple[str, ...]) -> None:
    plan = plan_of([{"id": "c", "unit": "x", "x_mm": 500, "y_mm": 500, "base_mm": 30},
                    {"id": "near", "unit": "x", "x_mm": 540, "y_mm": 500, "base_mm": 30}])
    assert template(plan, (500.0, 500.0), radius, how=how).under == expected
    with pytest.raises(InvalidActionError, match="radius"):
        template(plan, (500.0, 500.0), -1.0)


def test_aura_friends_enemies_strict() -> None:
    plan = plan_of([{"id": "h", "unit": "f1", "x_mm": 100, "y_mm": 100, "base_mm": 20},
                    {"id": "f", "unit": "f2", "x_mm": 150, "y_mm": 100, "base_mm": 20},
                    {"id": "e", "unit": "e", "x_mm": 100, "y_mm": 150, "base_mm": 20}])
    assert aura(plan, "h", 30.0).inside == ("f",)
    assert aura(plan, "h", 30.0, strict=True).inside == ()
    assert aura(plan, "h", 30.0, who="enemies").inside == ("e",)
    assert aura(plan, "h", 30.0, who="all").inside == ("e", "f")  # equal distances: by id
    with pytest.raises(InvalidActionError, match="friends, enemies or all"):
        aura(plan, "h", 30.0, who="everyone")


def test_objectives_without_a_reach_give_the_nearest() -> None:
    plan = plan_of([{"id": "a", "unit": "f", "x_mm": 100, "y_mm": 100, "base_mm": 20},
                    {"id": "b", "unit": "t", "x_mm": 300, "y_mm": 100, "base_mm": 20}],
                   objectives=[{"id": "o", "x_mm": 150, "y_mm": 100}])
    (state,) = objective_states(plan, None)
    assert state.nearest["A"] == ("a", 40.0) and state.controller is None


def test_deployment_zone_and_wholly_inside() -> None:
    plan = plan_of([{"id": "a", "unit": "f", "x_mm": 100, "y_mm": 90, "base_mm": 20},
                    {"id": "b", "unit": "f", "x_mm": 100, "y_mm": 95, "base_mm": 20}])
    zone = deployment_zone(plan, "top", 100.0)
    assert wholly_inside(zone, list(plan.models)).tolist() == [True, False]
    assert deployment_zone(plan, "right", 100.0).bounds == (900.0, 0.0, 1000.0, 1000.0)
    with pytest.raises(InvalidActionError, match="top, bottom, left, right"):
        deployment_zone(plan, "north", 100.0)


@pytest.mark.parametrize("direction, expected", [
    (4, (110.0, 0.0)), (1, (90.0, 0.0)), (5, (100 + 10 * math.cos(math.radians(60)), 10 * math.sin(math.radians(60)))),
])
def test_deviation_directions(direction: int, expected: tuple[float, float]) -> None:
    got = deviate((100.0, 0.0), (0.0, 0.0), direction, 10.0)
    assert got == pytest.approx(expected)


def test_deviation_needs_a_die() -> None:
    with pytest.raises(InvalidActionError, match="1-6"):
        deviate((0.0, 0.0), (1.0, 0.0), 7, 10.0)


@pytest.mark.parametrize("area, ok, ko, radius, impacts", [
    (3, 2, 0, 6.0, 1), (3, 0, 2, 3.0, 1), (3, 4, 2, 10.0, 2), (5, 2, 0, 10.0, 1), (4, 3, 0, 10.0, 2),
])
def test_at43_template_radius(area: float, ok: int, ko: int, radius: float, impacts: int) -> None:
    assert at43_template_radius_cm(area, ok, ko)[:2] == (radius, impacts)


def test_at43_template_needs_dice() -> None:
    with pytest.raises(InvalidActionError, match="at least one die"):
        at43_template_radius_cm(3, 0, 0)


@pytest.mark.parametrize("how", ["edge", "centre"])
def test_template_on_a_crowded_table_keeps_the_bases_on_its_rim(how: str) -> None:
    # Past 15 models the template first sifts the far ones out with numpy: bases whose edge (or
    # centre) lies a hair inside or outside the rim must get the answer the exact test gives
    # them one by one (a pool of fewer than 16 is not sifted).
    centre, radius = (500.0, 500.0), 60.0
    models = []
    for k in range(40):
        ang, r = 2 * math.pi * k / 40, 12.5 + (k % 3) * 5
        reach = radius + (r if how == "edge" else 0.0) + (-1e-7, 0.0, 1e-7, 3e-6, -3e-6, 0.5, -0.5, 40.0)[k % 8]
        models.append({"id": f"m{k}", "unit": "u", "x_mm": centre[0] + reach * math.cos(ang),
                       "y_mm": centre[1] + reach * math.sin(ang), "base_mm": 2 * r})
    plan = parse_game({"ruleset": "firefight", "table": {"width_mm": 1200, "depth_mm": 1200},
                       "units": [{"id": "u", "side": "A"}], "models": models})
    whole = template(plan, centre, radius, how=how)
    one_by_one = {mid: d for m in plan.models for mid, d in template(plan, centre, radius, how=how,
                                                                        models=[m]).distances_mm.items()}
    assert dict(whole.distances_mm) == one_by_one and 0 < len(whole.under) < 40
