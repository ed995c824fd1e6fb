"""AT-43's fire zone hull of round bases is exact (AT-43, 2/ Détermination de la zone de feu)."""

from __future__ import annotations

import math

import numpy as np
import shapely

from rules.plan import Model
from rules.rulesets.at43.fire_zone import CircleHull


def _model(i: int, x: float, y: float, base: float) -> Model:
    return Model(model_id=f"m{i}", unit_id="u", position_mm=(x, y), base_mm=base)


def _reference(models: list[Model]) -> shapely.Polygon:
    """A 4096-gon per base, inscribed: its hull lies inside the true one by under 0.001 mm."""
    discs = [shapely.Point(m.position_mm).buffer(m.base_mm / 2, quad_segs=1024) for m in models]
    return shapely.convex_hull(shapely.union_all(discs))


def test_distance_to_the_hull_of_bases_matches_a_fine_reference() -> None:
    rng = np.random.default_rng(13)
    for trial in range(40):
        n = int(rng.integers(1, 7))
        ms = [_model(i, float(rng.uniform(0, 400)), float(rng.uniform(0, 400)), float(rng.choice([25, 30, 40, 50, 60])))
              for i in range(n)]
        hull = CircleHull.of(ms)
        ref = _reference(ms)
        for p in rng.uniform(-100, 500, size=(25, 2)):
            exact = hull.distance_mm((float(p[0]), float(p[1])))
            approx = float(ref.distance(shapely.Point(p)))
            assert exact <= approx + 1e-6, (trial, p)  # the reference lies inside the true hull
            assert approx - exact < 0.002, (trial, p, exact, approx)


def test_tangent_between_unequal_bases() -> None:
    # Two bases of 30 and 50 mm, 500 mm apart: the outer tangent leans; a point on the
    # outward normal at its midpoint is exactly that far from the hull.
    ms = [_model(0, 100, 500, 30), _model(1, 600, 500, 50)]
    hull = CircleHull.of(ms)
    th = -math.acos(-10 / 500)
    u = (math.cos(th), math.sin(th))
    mid = ((100 + 15 * u[0] + 600 + 25 * u[0]) / 2, (500 + 15 * u[1] + 500 + 25 * u[1]) / 2)
    assert abs(hull.distance_mm((mid[0] + 7 * u[0], mid[1] + 7 * u[1])) - 7) < 1e-9
    assert hull.distance_mm((350, 510)) == 0.0


def test_a_base_holding_the_others_is_the_hull() -> None:
    hull = CircleHull.of([_model(0, 0, 0, 100), _model(1, 10, 0, 20)])
    assert hull.polygon().is_empty
    assert abs(hull.distance_mm((80, 0)) - 30) < 1e-9
