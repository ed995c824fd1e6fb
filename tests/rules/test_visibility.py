"""Line of sight: rays, blockers, cover, depth, figures, units, all pairs."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from rules.errors import InvalidActionError
from rules.plan import parse_game
from rules.rulesets import find_ruleset
from rules.visibility import RAYS, all_pairs_sight, line_of_sight, sight_rays, unit_sight


def game(ruleset: str, models: list[tuple[str, str, float, float]], terrain: list[dict[str, Any]] = ()) -> Any:
    units = sorted({u for _, u, _, _ in models})
    return parse_game({"ruleset": ruleset, "table": {"width_mm": 1200, "depth_mm": 1200},
                       "units": [{"id": u, "side": u[0]} for u in units],
                       "models": [{"id": i, "unit": u, "x_mm": x, "y_mm": y, "base_mm": 25} for i, u, x, y in models],
                       "terrain": list(terrain)})


def box(tid: str, kind: str, x0: float, y0: float, x1: float, y1: float) -> dict[str, Any]:
    return {"id": tid, "kind": kind, "shape": "area", "points_mm": [[x0, y0], [x1, y0], [x1, y1], [x0, y1]]}


def test_rays_run_from_the_observer_edge_into_the_target_base() -> None:
    plan = game("at-43", [("a", "A", 100, 100), ("b", "B", 300, 100)])
    segs = sight_rays(plan.model("a"), plan.model("b"))
    assert segs is not None and segs.shape == (RAYS, 2, 2)
    mid = segs[RAYS // 2]
    assert mid[0].tolist() == pytest.approx([112.5, 100.0]) and mid[1].tolist() == pytest.approx([287.5, 100.0])
    touching = game("at-43", [("a", "A", 100, 100), ("b", "B", 125, 100)])
    assert sight_rays(touching.model("a"), touching.model("b")) is None
    assert line_of_sight(touching, "a", "b", ruleset=find_ruleset(touching.ruleset)).visible


def test_half_hidden_target() -> None:
    plan = game("at-43", [("a", "A", 100, 100), ("b", "B", 500, 100)], [box("c", "container", 290, 100.0, 310, 200)])
    s = line_of_sight(plan, "a", "b", ruleset=find_ruleset(plan.ruleset))
    assert s.visible and s.visible_fraction == pytest.approx(10 / 21)
    assert not s.centre_line_clear  # the centre line grazes the container's edge
    assert [b[1] for b in s.blockers] == ["c"]


def test_cover_hides_without_blocking() -> None:
    plan = game("at-43", [("a", "A", 100, 100), ("b", "B", 500, 100)], [box("w", "crates", 290, 50, 310, 150)])
    s = line_of_sight(plan, "a", "b", ruleset=find_ruleset(plan.ruleset))
    assert s.visible and s.visible_fraction == 1.0 and s.cover_fraction == 1.0
    assert s.cover[0][:2] == ("crates", "w")


def test_one_sees_out_of_the_piece_one_stands_in() -> None:
    plan = game("feu-a-volonte", [("a", "A", 100, 100), ("b", "B", 500, 100)], [box("w", "wood", 50, 50, 150, 150)])
    assert line_of_sight(plan, "a", "b", ruleset=find_ruleset(plan.ruleset)).visible
    assert not line_of_sight(plan, "b", "a", ruleset=find_ruleset(plan.ruleset)).visible  # the wood stands between b and a


def test_figures_block_only_where_the_rule_set_says() -> None:
    models = [("a", "A", 100, 100), ("b", "B", 500, 100), ("c", "C", 300, 100)]
    assert not line_of_sight(game("star-wars", models), "a", "b", ruleset=find_ruleset(game("star-wars", models).ruleset)).visible
    assert line_of_sight(game("firefight", models), "a", "b", ruleset=find_ruleset(game("firefight", models).ruleset)).visible
    assert line_of_sight(game("at-43", models), "a", "b", ruleset=find_ruleset(game("at-43", models).ruleset)).visible


def test_high_fire_units_block_and_lone_models_hide() -> None:
    plan = game("high-fire", [("a", "A", 100, 100), ("b", "B", 500, 100), ("c", "C", 300, 90), ("d", "C", 300, 110),
                              ("e", "E", 300, 400), ("f", "A", 100, 400), ("g", "B", 500, 400)])
    assert line_of_sight(plan, "a", "b", ruleset=find_ruleset(plan.ruleset)).blockers[0][:2] == ("unit", "C")
    s = line_of_sight(plan, "f", "g", ruleset=find_ruleset(plan.ruleset))
    assert s.visible and s.cover[0][:2] == ("figure", "e")


def test_errors() -> None:
    plan = game("at-43", [("a", "A", 100, 100)], [box("x", "forest", 0, 0, 10, 10)])
    with pytest.raises(InvalidActionError, match="always sees itself"):
        line_of_sight(plan, "a", "a", ruleset=find_ruleset(plan.ruleset))
    with pytest.raises(InvalidActionError, match="AT-43 does not know"):
        all_pairs_sight(game("at-43", [("a", "A", 100, 100), ("b", "B", 200, 100)], [box("x", "forest", 0, 0, 10, 10)]), ruleset=find_ruleset(game("at-43", [("a", "A", 100, 100), ("b", "B", 200, 100)], [box("x", "forest", 0, 0, 10, 10)]).ruleset))


def test_unit_sight_lists_who_sees_whom() -> None:
    plan = game("at-43", [("a1", "A", 100, 100), ("a2", "A", 100, 300), ("b1", "B", 500, 100), ("b2", "B", 500, 300)],
                [box("c", "container", 280, 250, 320, 350)])
    us = unit_sight(plan, "A", "B", ruleset=find_ruleset(plan.ruleset))
    assert us.visible and us.pairs == {"a1": ("b1", "b2"), "a2": ("b1",)}
    assert us.seen == ("b1", "b2")


def test_all_pairs_matrix() -> None:
    models = [("a", "A", 100, 100), ("b", "B", 500, 100), ("c", "C", 300, 400), ("d", "D", 300, 101)]
    plan = game("star-wars", models, [box("w", "wall", 280, 200, 320, 300)])
    m = all_pairs_sight(plan, ruleset=find_ruleset(plan.ruleset))
    assert m.ids == ("a", "b", "c", "d")
    assert not m.sees("a", "b")  # d stands in the way
    assert not m.sees("c", "d") and not m.sees("d", "c")  # the wall
    assert m.sees("a", "d")
    assert np.array_equal(m.clear, m.clear.T) and not m.clear.flags.writeable
    for a, _, _, _ in models:
        for b, _, _, _ in models:
            if a != b:
                assert m.sees(a, b) == line_of_sight(plan, a, b, ruleset=find_ruleset(plan.ruleset)).centre_line_clear
