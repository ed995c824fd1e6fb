"""The AT-43 fire zone's drawn outline and hull, made faster, give the very same geometry as before."""

from __future__ import annotations

import importlib
import math
import random

import numpy as np
import shapely

from rules.plan import Model, parse_game

FZ = importlib.import_module("rules.rulesets.at43.fire_zone")


def _reference_outline(hull: object) -> shapely.Geometry:
    """The outline as first written: the hull of every drawn point of every base, one point object each."""
    k = 4 * FZ.HULL_DRAW_SEGS
    ang = np.linspace(0.0, 2 * np.pi, k, endpoint=False)
    ring = np.stack([np.cos(ang), np.sin(ang)], axis=1) / math.cos(math.pi / k)
    c, r = np.asarray(hull.centres), np.asarray(hull.radii)  # type: ignore[attr-defined]
    pts = (c[:, None, :] + ring[None, :, :] * r[:, None, None]).reshape(-1, 2)
    return shapely.convex_hull(shapely.multipoints(pts))


def _models(rng: random.Random, n: int) -> list[object]:
    bases = [25, 25, 30, 40, 60]
    aligned = rng.random() < 0.3
    ms = [{"id": f"m{i}", "unit": "u", "base_mm": rng.choice(bases),
           "x_mm": 300 + (35 * i if aligned else rng.uniform(-200, 200)),
           "y_mm": 300 + (0 if aligned else rng.uniform(-200, 200))} for i in range(n)]
    plan = parse_game({"ruleset": "at-43", "table": {"width_mm": 1200, "depth_mm": 1200},
                       "units": [{"id": "u", "side": "A"}], "models": ms})
    return list(plan.models)


def test_outline_and_tangent_polygon_match_the_reference_on_random_bases() -> None:
    rng = random.Random(11)
    for trial in range(300):
        models = _models(rng, rng.choice([1, 2, 3, 5, 10, 20]))
        hull = FZ.CircleHull.of(models)
        ref = _reference_outline(hull)
        got = hull.outline()
        assert np.array_equal(shapely.get_coordinates(got), shapely.get_coordinates(ref)), trial
        tp = hull.tangent_points
        ref_poly = shapely.Polygon() if len(tp) < 3 else shapely.convex_hull(shapely.multipoints(np.array(tp)))
        assert np.array_equal(shapely.get_coordinates(hull.polygon()), shapely.get_coordinates(ref_poly)), trial


def test_remembered_hull_equals_a_fresh_one() -> None:
    rng = random.Random(5)
    models = _models(rng, 10)
    first = FZ.CircleHull.of(models)
    FZ._circle_hull.cache_clear()
    FZ._outline.cache_clear()
    again = FZ.CircleHull.of(models)
    assert first == again and first.outline().equals_exact(again.outline(), 0.0)


def _all_pairs_tangent_points(models: list[object]) -> list[tuple[float, float]]:
    """The hull's tangent points as first written: every pair of bases, every base tested against each line
    (the first tangent of every pair, then the second; the first bases' points, then the second's)."""
    c = np.array([m.position_mm for m in models], dtype=float)  # type: ignore[attr-defined]
    r = np.array([m.base_mm / 2.0 for m in models])  # type: ignore[attr-defined]
    starts, ends = [], []
    for sign in (1.0, -1.0):
        for i in range(len(r)):
            for j in range(i + 1, len(r)):
                d = c[j] - c[i]
                length = float(np.hypot(d[0], d[1]))
                if length <= abs(r[i] - r[j]) + 1e-12:
                    continue
                th = math.atan2(d[1], d[0]) + sign * math.acos((r[i] - r[j]) / length)
                u = np.array([math.cos(th), math.sin(th)])
                h = float(c[i] @ u + r[i])
                if np.all(c @ u + r <= h + 1e-9):
                    starts.append(tuple(c[i] + r[i] * u))
                    ends.append(tuple(c[j] + r[j] * u))
    return starts + ends


def test_hull_pairs_only_the_bases_that_may_touch_it_and_finds_every_edge() -> None:
    # The hull pairs only the bases a support test keeps; a base left out would lose its edges.
    # Near-tangent bases (just inside a tangent line, by less than a drawn polygon's bulge) are
    # the hard case: compare with every pair tested, on those and on random formations.
    rng = random.Random(23)
    for trial in range(300):
        if trial % 2:
            models = _models(rng, rng.choice([2, 3, 5, 10, 20]))
        else:
            # a small base touching the tangent of two big ones hides under their drawn bulge
            r_end, r_mid, span = rng.choice([12.5, 15.0, 40.0]), rng.choice([12.5, 20.0, 40.0]), rng.uniform(90, 600)
            eps = rng.choice([0.0, 1e-10, 1e-8, 1e-6, 1e-3, 0.05])
            # lined up with the drawn points (a multiple of 90 degrees) the big bases' bulges hide the small one
            ang = rng.choice([0.0, math.pi / 2, math.pi, 2 * math.pi * rng.randrange(128) / 128,
                              rng.uniform(0, 2 * math.pi)])
            pts = [(0.0, -r_end, r_end), (span, -r_end, r_end), (rng.uniform(0.2, 0.8) * span, -r_mid - eps, r_mid)]
            models = [Model(f"m{i}", "u", (500 + x * math.cos(ang) - y * math.sin(ang),
                                           500 + x * math.sin(ang) + y * math.cos(ang)), 2 * rad)
                      for i, (x, y, rad) in enumerate(pts)]
        FZ._circle_hull.cache_clear()
        got = FZ.CircleHull.of(models).tangent_points
        ref = _all_pairs_tangent_points(models)
        assert len(got) == len(ref), trial
        assert np.allclose(np.array(got).reshape(-1, 2), np.array(ref).reshape(-1, 2), atol=1e-9), trial


def _zone_plan(extra: list[dict[str, object]]) -> object:
    return parse_game({"ruleset": "at-43", "table": {"width_mm": 1000, "depth_mm": 1000},
                       "units": [{"id": "f", "side": "A", "leader": "f1"}, {"id": "t", "side": "B", "leader": "t1"},
                                 {"id": "x", "side": "B"}],
                       "models": [{"id": "f1", "unit": "f", "x_mm": 100, "y_mm": 500, "base_mm": 30},
                                  {"id": "t1", "unit": "t", "x_mm": 600, "y_mm": 500, "base_mm": 40}, *extra]})


def test_a_base_is_caught_when_it_reaches_more_than_the_tolerance_into_the_zone() -> None:
    # AT-43, 2/ Détermination de la zone de feu: the hull's edge above the bases is the tangent
    # y = 500 - 15 - 5 * (x - 100) / 500 ... leaning; straight beyond f1 (x < 100) it is f1's arc.
    # Bases of 30 mm set beyond f1's arc, reaching `into` mm into the zone.
    for into, caught in ((0.05, True), (0.0101, True), (0.0099, False), (0.005, False), (0.0, False), (-0.05, False)):
        x = 100 - (15 + 15 - into)
        plan = _zone_plan([{"id": "x1", "unit": "x", "x_mm": x, "y_mm": 500, "base_mm": 30}])
        FZ._circle_hull.cache_clear()
        assert FZ.fire_zone(plan, "f", "t").caught == (("x1",) if caught else ()), into


def test_the_zone_json_rounds_each_corner_as_before() -> None:
    plan = _zone_plan([{"id": "x1", "unit": "x", "x_mm": 300, "y_mm": 510, "base_mm": 30}])
    fz = FZ.fire_zone(plan, "f", "t")
    assert fz.to_json()["zone_mm"] == [[round(v, 2) for v in c] for c in fz.zone.exterior.coords]
    assert fz.to_json()["caught"] == ["x1"]


def test_a_hull_of_no_base_or_made_by_hand_draws_as_before() -> None:
    empty = FZ.CircleHull.of([])
    assert empty.outline().is_empty and empty.polygon().is_empty
    models = _models(random.Random(2), 10)
    built = FZ.CircleHull.of(models)
    FZ._outline.cache_clear()
    by_hand = FZ.CircleHull(built.centres, built.radii, built.tangent_points)  # no remembered corners
    ref = _reference_outline(built)
    assert np.array_equal(shapely.get_coordinates(by_hand.outline()), shapely.get_coordinates(ref))


def test_round_2_rounds_as_python_does_even_at_the_halves() -> None:
    rng = np.random.default_rng(3)
    halves = np.arange(-20000, 20000) / 200.0 + 0.005  # 2.675 and its kind: a half in decimal, not in binary
    values = np.concatenate([rng.uniform(-1300, 1300, 20000), halves, np.array([0.0, -0.0, -0.004, 1e7 + 0.005])])
    values = np.concatenate([values, np.nextafter(values, np.inf), np.nextafter(values, -np.inf)])
    got = FZ.round_2(values.reshape(-1, 2)).ravel().tolist()
    want = [round(v, 2) for v in values.tolist()]
    assert got == want and [math.copysign(1, v) for v in got] == [math.copysign(1, v) for v in want]
