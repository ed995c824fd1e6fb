"""The all-pairs sight speed-ups change no answer: remembered solids, angle wrapping, depth clipping."""

from __future__ import annotations

import dataclasses
import math
import random
from typing import Any

import numpy as np

from rules.plan import TablePlan, parse_game
from rules.rulesets import find_ruleset
from rules.visibility import _clip_length, _clip_length_many, _terrain_and_solids, _unit_solids, _wrap, all_pairs_sight


def _high_fire_table(seed: int) -> TablePlan:
    """Units of five in loose lines (some figures out of cohesion), dense and sparse areas, walls."""
    rng = random.Random(seed)
    terrain: list[dict[str, Any]] = []
    for t, kind in enumerate(["dense-solid"] * 4 + ["sparse-partial"] * 4 + ["solid-obstacle"] * 4):
        x, y, w, d = rng.uniform(50, 500), rng.uniform(50, 500), rng.uniform(30, 100), rng.uniform(30, 100)
        pts = [[x, y], [x + w, y], [x + w, y + d], [x, y + d]] if kind != "solid-obstacle" else [[x, y], [x + w, y + d]]
        terrain.append({"id": f"t{t}", "kind": kind, "shape": "line" if kind == "solid-obstacle" else "area",
                        "points_mm": pts})
    models = []
    for u in range(8):
        cx, cy = rng.uniform(60, 540), rng.uniform(60, 540)
        for k in range(5):
            models.append({"id": f"m{u}_{k}", "unit": f"u{u}", "base_mm": 25,
                           "x_mm": cx + rng.choice([30, 30, 60]) * (k - 2), "y_mm": cy + rng.uniform(-10, 10)})
    return parse_game({"ruleset": "high-fire", "table": {"width_mm": 600, "depth_mm": 600},
                       "units": [{"id": f"u{u}", "side": "AB"[u % 2], "kind": "infantry"} for u in range(8)],
                       "models": models, "terrain": terrain})


def test_remembered_unit_solids_give_the_fresh_answer_and_follow_a_move() -> None:
    rs = find_ruleset("high-fire")
    for seed in range(6):
        plan = _high_fire_table(seed)
        warm = all_pairs_sight(plan, ruleset=rs).clear
        again = all_pairs_sight(plan, ruleset=rs).clear  # from the caches
        _unit_solids.cache_clear()
        _terrain_and_solids.cache_clear()
        cold = all_pairs_sight(plan, ruleset=rs).clear
        assert np.array_equal(warm, again) and np.array_equal(warm, cold)
        # one figure moves: its unit's solid changes, the remembered one must not be used
        m = plan.models[seed]
        moved = dataclasses.replace(plan, models=tuple(dataclasses.replace(x, position_mm=(x.position_mm[0] + 40.0,
                                                                                            x.position_mm[1]))
                                                       if x.model_id == m.model_id else x for x in plan.models))
        after = all_pairs_sight(moved, ruleset=rs).clear
        _unit_solids.cache_clear()
        _terrain_and_solids.cache_clear()
        assert np.array_equal(after, all_pairs_sight(moved, ruleset=rs).clear)


def test_wrap_is_np_mod_on_its_range() -> None:
    rng = np.random.default_rng(3)
    z = np.concatenate([rng.uniform(-2 * math.pi, 4 * math.pi, 5000),
                        [0.0, -0.0, 2 * math.pi, -2 * math.pi, math.pi, np.nextafter(2 * math.pi, 0), -1e-300]])
    assert np.array_equal(_wrap(z), np.mod(z, 2 * math.pi))
    grid = z.reshape(1, -1).repeat(3, axis=0)
    assert np.array_equal(_wrap(grid), np.mod(grid, 2 * math.pi))


def test_depth_clipping_by_piece_agrees_with_one_polygon_at_a_time() -> None:
    rng = np.random.default_rng(8)
    rings = []
    for n in (3, 4, 4, 6):  # convex polygons of a few sizes, NaN-padded to six edges
        ang = np.sort(rng.uniform(0, 2 * np.pi, n))
        pts = np.stack([200 + 60 * np.cos(ang), 200 + 40 * np.sin(ang)], axis=1)
        edges = np.full((6, 2, 2), np.nan)
        edges[:n, 0], edges[:n, 1] = pts, np.roll(pts, -1, axis=0)
        rings.append(edges)
    ring = np.stack(rings)
    which = rng.integers(0, len(rings), 400)
    p = rng.uniform(0, 400, (400, 2))
    q = rng.uniform(0, 400, (400, 2))
    got = _clip_length_many(p[:, 0], p[:, 1], q[:, 0], q[:, 1], ring, which)
    for k, g in enumerate(rings):
        sel = which == k
        n = int((~np.isnan(g[:, 0, 0])).sum())
        assert np.allclose(got[sel], _clip_length(p[sel], q[sel], g[:n]), rtol=0, atol=1e-9)
