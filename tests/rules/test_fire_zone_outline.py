"""The AT-43 fire zone's drawn outline and hull, made faster, give the very same geometry as before."""

from __future__ import annotations

import importlib
import math
import random

import numpy as np
import shapely

from rules.plan import parse_game

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
