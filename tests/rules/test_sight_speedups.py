"""The all-pairs sight speed-ups change no answer: remembered solids, angle wrapping, depth clipping."""

from __future__ import annotations

import dataclasses
import math
import random
from typing import Any

import numpy as np
import shapely

from rules.plan import TablePlan, parse_game
from rules.rulesets import find_ruleset
from rules.visibility import (
    _circle_extent,
    _clip_box_length,
    _clip_length,
    _clip_length_many,
    _far_corner,
    _outlines,
    _pieces_from_edges,
    _terrain_and_solids,
    _unit_solids,
    _wrap,
    all_pairs_sight,
)


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


def test_depth_in_rectangles_along_the_axes_is_the_general_clip() -> None:
    """The rectangles' own clip gives the convex clip's length: segments across, inside, along and on the sides."""
    rng = np.random.default_rng(11)
    boxes = [(100.0, 120.0, 180.0, 260.0), (0.0, 0.0, 40.0, 40.0), (300.0, 50.0, 450.0, 90.0)]
    rings = [shapely.box(*b) for b in boxes] + [shapely.Polygon([(0, 0), (50, 10), (40, 60)])]
    pieces = _pieces_from_edges(*_outlines(rings))
    assert pieces.box.tolist() == [True, True, True, False]
    which = rng.integers(0, 3, 3000)
    p, q = rng.uniform(-20, 480, (3000, 2)), rng.uniform(-20, 480, (3000, 2))
    lo = np.array([boxes[k][:2] for k in which])
    hi = np.array([boxes[k][2:] for k in which])
    corner = rng.integers(0, 2, (3000, 2))
    on_side = np.where(corner == 0, lo, hi)
    p[:500, 0], q[:500, 0] = on_side[:500, 0], on_side[:500, 0]  # vertical, some along a side
    p[500:1000, 1], q[500:1000, 1] = p[500:1000, 1], p[500:1000, 1]  # horizontal
    p[1000:1200] = lo[1000:1200] + 5.0  # starting inside
    got = _clip_box_length(p[:, 0], p[:, 1], q[:, 0], q[:, 1], pieces, which)
    want = _clip_length_many(p[:, 0], p[:, 1], q[:, 0], q[:, 1], pieces.edges[:, :4], which)
    assert np.allclose(got, want, rtol=0, atol=1e-9)
    assert (got[:500] > 0).sum() > 50 and (got > 0).sum() > 500  # segments along the sides and across are met


def test_unit_solid_spans_from_circles_hold_the_hull_and_lie_in_it() -> None:
    """Seen from outside a unit's hull, the span read from its bases' circles (only the members kept) holds
    every hull vertex's direction, and the sure span lies within the hull's: the candidates miss no pair and
    a pair blocked for sure is blocked; the farthest vertex is never beyond the bound."""
    rng = random.Random(5)
    checked = 0
    for _ in range(60):
        bases: list[tuple[float, float, float, int]] = []
        for u in range(4):
            cx, cy, n = rng.uniform(150, 450), rng.uniform(150, 450), rng.choice([2, 3, 5, 7])
            line = rng.random() < 0.4  # figures in a row: only the ends are read
            for k in range(n):
                r = 12.5 if line or rng.random() < 0.7 else rng.choice([10.0, 16.0, 20.0])
                x, y = (cx + 30.0 * k, cy) if line else (cx + rng.uniform(-40, 40), cy + rng.uniform(-40, 40))
                bases.append((x, y, r, u))
        owners, hulls, outlines, members = _unit_solids(tuple(bases), frozenset(range(4)))
        assert outlines is not None and len(members) == len(hulls)
        pieces = _pieces_from_edges(*outlines)
        obs = np.array([(rng.uniform(0, 600), rng.uniform(0, 600)) for _ in range(40)])
        xy = np.concatenate([np.array([b[:2] for b in bases]), obs])
        rad = np.concatenate([np.array([b[2] for b in bases]), np.full(len(obs), 12.5)])
        dx, dy = xy[None, :, 0] - xy[:, None, 0], xy[None, :, 1] - xy[:, None, 1]
        dist, ang = np.sqrt(dx * dx + dy * dy), _wrap(np.arctan2(dy, dx))
        rows = np.arange(len(bases), len(xy))
        far = _far_corner(pieces, slice(0, len(hulls)), obs[:, 0], obs[:, 1])
        ac, wmin, wmax, dmax, imin, imax = _circle_extent(members, rows, dist, np.triu(ang, 1), rad, far)
        for s, hull in enumerate(hulls):
            verts = shapely.get_coordinates(hull)
            for r_, (ox, oy) in enumerate(obs):
                if hull.distance(shapely.Point(ox, oy)) <= 1.0:
                    continue  # on or in the hull: read as wide
                rel = np.arctan2(verts[:, 1] - oy, verts[:, 0] - ox) - ac[r_, s]
                rel = (rel + np.pi) % (2 * np.pi) - np.pi
                if wmax[r_, s] - wmin[r_, s] >= np.pi - 1e-6:
                    continue  # read as wide: every direction is a candidate
                assert wmin[r_, s] <= rel.min() + 1e-12 and rel.max() - 1e-12 <= wmax[r_, s]
                assert rel.min() <= imin[r_, s] + 1e-12 and imax[r_, s] <= rel.max() + 1e-12
                assert np.hypot(verts[:, 0] - ox, verts[:, 1] - oy).max() <= dmax[r_, s] + 1e-9
                checked += 1
    assert checked > 2000


# -- the traced rays: the fast path (filters, one shapely call, clipped depths) against a plain reference ------------

HEIGHT_KINDS: dict[str, list[tuple[str, str]]] = {
    "firefight": [("building", "area"), ("wall", "line"), ("forest", "area")],
    "star-wars": [("building", "area"), ("wall", "line"), ("crates", "area")],
    "high-fire": [("dense-solid", "area"), ("sparse-partial", "area"), ("solid-obstacle", "line")],
    "feu-a-volonte": [("building", "area"), ("hedge", "line"), ("forest", "area")],
    "at-43": [("building", "area"), ("container", "area")],
}


def _random_table(ruleset: str, seed: int) -> TablePlan:
    """30 figures in units of five (some in a line, some scattered), 14 pieces, heights on most of them."""
    rng = random.Random(seed)
    terrain: list[dict[str, Any]] = []
    for t in range(14):
        kind, shape = rng.choice(HEIGHT_KINDS[ruleset])
        x, y, w, d = rng.uniform(20, 520), rng.uniform(20, 520), rng.uniform(20, 90), rng.uniform(20, 90)
        pts = ([[x, y], [x + w, y], [x + w, y + d], [x, y + d]] if shape == "area" and t % 4 else
               [[x, y], [x + w, y + d / 3], [x + w / 2, y + d]] if shape == "area" else [[x, y], [x + w, y + d]])
        terrain.append({"id": f"t{t}", "kind": kind, "shape": shape, "points_mm": pts,
                        **({"height_mm": rng.choice([10.0, 25.0, 60.0])} if t % 3 else {})})
    models: list[dict[str, Any]] = []
    for u in range(6):
        cx, cy = rng.uniform(40, 560), rng.uniform(40, 560)
        for k in range(5):
            x, y = (cx + 30 * (k - 2), cy) if u % 2 else (rng.uniform(20, 580), rng.uniform(20, 580))
            models.append({"id": f"m{u}_{k}", "unit": f"u{u}", "base_mm": rng.choice([25, 25, 32]),
                           "x_mm": x, "y_mm": y,
                           **({"height_mm": 30.0} if (u + k) % 4 else {}),
                           **({"elevation_mm": 40.0} if k == 0 else {})})
    return parse_game({"ruleset": ruleset, "table": {"width_mm": 600, "depth_mm": 600},
                       "units": [{"id": f"u{u}", "side": "AB"[u % 2], "kind": "infantry"} for u in range(6)],
                       "models": models, "terrain": terrain})


def _reference_sight(plan: TablePlan, a: str, b: str, opts: dict[str, Any]) -> dict[str, Any]:
    """Sight worked out the plain way: every blocker, one shapely call per blocker over the rays."""
    import shapely

    from rules.visibility import _sight_result, blockers_for, line_of_sight, sight_rays

    rs = find_ruleset(plan.ruleset)
    opts = {**rs.defaults(), **opts}
    o, t = plan.model(a), plan.model(b)
    segs = sight_rays(o, t)
    if segs is None:
        return line_of_sight(plan, a, b, options=opts, ruleset=rs).to_json()
    lines = shapely.linestrings(segs)
    blocked, covered, depth = np.zeros(len(segs), bool), np.zeros(len(segs), bool), np.zeros(len(segs))
    separate = opts.get("sight_depth", "proportional") == "separate"
    hit_by = []
    for bl in blockers_for(plan, o, t, ruleset=rs, options=opts):
        if bl.effect == "depth":
            ratio = shapely.length(shapely.intersection(lines, bl.geometry)) / bl.limit_mm
            hits = ratio >= 1.0 - 1e-9 if separate else ratio > 0
            if separate:
                blocked |= hits
            else:
                depth += ratio
        else:
            hits = shapely.intersects(lines, bl.geometry)
            if bl.effect == "blocks":
                blocked |= hits
            else:
                covered |= hits
        if hits.any():
            hit_by.append((bl, hits))
    if not separate:
        blocked |= depth >= 1.0 - 1e-9
    return _sight_result(rs, opts, o, t, blocked, covered, depth, hit_by).to_json()


def test_traced_rays_give_the_plain_answer_on_random_tables() -> None:
    from rules.visibility import line_of_sight, unit_sight

    checked = 0
    for ruleset in HEIGHT_KINDS:
        rs = find_ruleset(ruleset)
        for seed in range(4):
            plan = _random_table(ruleset, 100 * seed + len(ruleset))
            rng = random.Random(seed)
            ids = [m.model_id for m in plan.models]
            depth_modes: list[dict[str, Any]] = [{}, {"sight_depth": "separate"}] if ruleset == "high-fire" else [{}]
            for opts in depth_modes:
                for _ in range(40):
                    a, b = rng.sample(ids, 2)
                    assert line_of_sight(plan, a, b, options=opts, ruleset=rs).to_json() == \
                        _reference_sight(plan, a, b, opts), (ruleset, seed, a, b, opts)
                    checked += 1
            us = unit_sight(plan, "u0", "u1", ruleset=rs)
            for f, seen in us.pairs.items():
                assert seen == tuple(t.model_id for t in plan.models_of("u1")
                                     if _reference_sight(plan, f, t.model_id, {})["visible"])
    assert checked == 4 * 40 * 6


def test_high_fire_line_of_fire_counts_as_the_pair_by_pair_sight() -> None:
    from rules.rulesets.high_fire import _in_cohesion_models, unit_line_of_sight
    from rules.visibility import line_of_sight

    rs = find_ruleset("high-fire")
    for seed in range(3):
        plan = _random_table("high-fire", seed)
        opts = rs.resolve_options(plan, None)
        for a, b in (("u0", "u1"), ("u1", "u2"), ("u3", "u0")):
            got = unit_line_of_sight(rs, plan, a, b, opts)
            firers, targets = _in_cohesion_models(rs, plan, a, opts), _in_cohesion_models(rs, plan, b, opts)
            assert {f: list(ts) for f, ts in got.sees.items()} == {f: [t for t in targets
                                       if line_of_sight(plan, f, t, options=opts, ruleset=rs).visible]
                                   for f in firers}


def test_batched_pairs_see_as_the_rays_of_each_pair() -> None:
    from rules.visibility import _context, _rays, _visible_many

    for ruleset in HEIGHT_KINDS:
        rs = find_ruleset(ruleset)
        for seed in range(3):
            plan = _random_table(ruleset, 7 * seed + 1)
            models = random.Random(seed).sample(list(plan.models), 14)
            pairs = [(a, b) for a in models for b in models if a is not b]
            ctx = _context(plan, rs)
            depth_modes: list[dict[str, Any]] = [{}, {"sight_depth": "separate"}] if ruleset == "high-fire" else [{}]
            for opts in depth_modes:
                opts = {**rs.defaults(), **opts}
                one_by_one = []
                for a, b in pairs:
                    rays = _rays(plan, a, b, rs, opts, ctx, explain=False)
                    one_by_one.append(rays is None or not bool(rays[0].all()))
                got = _visible_many(plan, pairs, rs, opts, ctx)
                assert got == one_by_one, (ruleset, seed, opts)
                assert 0 < sum(got) < len(got)  # some pairs seen, some not: the test decides something


def _cover_reference(plan: TablePlan, firers: list[Any], target: Any, opts: dict[str, Any]) -> Any:
    """Firefight cover as it was: a full explained sight from every firer, then the nearest that sees."""
    from rules.measure import model_distance_mm
    from rules.rulesets.base import CoverVerdict
    from rules.terrain import pieces_at
    from rules.visibility import line_of_sight

    rs = find_ruleset("firefight")
    inside = [p for p in pieces_at(target.position_mm, plan.terrain) if rs.kind_of(p).cover]
    if inside:
        return CoverVerdict(True, tuple(p.terrain_id for p in inside),
                            f"{target.model_id} stands in {inside[0].terrain_id} ({inside[0].kind})")
    sights = [(f, line_of_sight(plan, f.model_id, target.model_id, options=opts, ruleset=rs))
              for f in firers if f.model_id != target.model_id]
    seen = [(f, s) for f, s in sights if s.visible]
    if not seen:
        return CoverVerdict(False)
    _, s = min(seen, key=lambda fs: model_distance_mm(fs[0], target))
    if s.cover and s.cover_fraction >= 0.5:
        by = tuple(i for _, i, _ in s.cover)
        return CoverVerdict(True, by, f"{target.model_id} is {s.cover_fraction:.0%} hidden behind {', '.join(by)}")
    return CoverVerdict(False)


def test_firefight_cover_from_the_batched_sight_is_the_one_from_every_firers_full_sight() -> None:
    rs = find_ruleset("firefight")
    verdicts = []
    for seed in range(4):
        plan = _random_table("firefight", 11 * seed + 2)
        opts = rs.resolve_options(plan, None)
        for a, b in (("u0", "u1"), ("u1", "u0"), ("u2", "u3"), ("u3", "u4"), ("u5", "u2")):
            firers = list(plan.models_of(a))
            for target in plan.models_of(b):
                got = rs.in_cover(plan, firers, target, opts)
                assert got == _cover_reference(plan, firers, target, opts), (seed, a, target.model_id)
                verdicts.append(got.in_cover)
            targets = list(plan.models_of(b))  # every target at once: the same verdicts
            assert rs.in_cover_many(plan, firers, targets, opts) == [_cover_reference(plan, firers, t, opts)
                                                                     for t in targets], (seed, a, b)
    assert any(verdicts) and not all(verdicts)  # the tables decide both ways


def test_high_fire_depth_sums_decide_as_pair_by_pair_sight() -> None:
    """All-pairs High Fire sight (depths of several pieces added up, or each alone) against line_of_sight."""
    from rules.visibility import line_of_sight

    rs = find_ruleset("high-fire")
    decided = 0
    for seed in range(3):
        plan = _high_fire_table(seed)
        for opts in ({"sight_depth": "proportional"}, {"sight_depth": "separate"}):
            full = {**rs.defaults(), **opts}
            clear = all_pairs_sight(plan, options=full, ruleset=rs).clear
            ids = [m.model_id for m in plan.models]
            for i in range(0, len(ids), 3):
                for j in range(i + 1, len(ids), 2):
                    s = line_of_sight(plan, ids[i], ids[j], options=full, ruleset=rs)
                    decided += 1
                    assert bool(clear[i, j]) == s.centre_line_clear, (seed, opts, ids[i], ids[j])
    assert decided > 100


def test_firefight_cover_on_a_tie_is_decided_by_the_first_nearest_firer() -> None:
    """Two firers at the same distance: one sees the target behind a barricade that hides it, the other in the open."""
    rs = find_ruleset("firefight")
    plan = parse_game({"ruleset": "firefight", "table": {"width_mm": 600, "depth_mm": 600},
                       "units": [{"id": "a", "side": "A", "kind": "infantry"},
                                 {"id": "b", "side": "B", "kind": "infantry"}],
                       "models": [{"id": "w", "unit": "a", "x_mm": 200.0, "y_mm": 300.0, "base_mm": 25},
                                  {"id": "e", "unit": "a", "x_mm": 400.0, "y_mm": 300.0, "base_mm": 25},
                                  {"id": "t", "unit": "b", "x_mm": 300.0, "y_mm": 300.0, "base_mm": 25}],
                       "terrain": [{"id": "wall", "kind": "barricade", "shape": "line",
                                    "points_mm": [[280.0, 250.0], [280.0, 350.0]]}]})
    opts = rs.resolve_options(plan, None)
    target = plan.model("t")
    west, east = plan.model("w"), plan.model("e")
    first_west = rs.in_cover(plan, [west, east], target, opts)
    first_east = rs.in_cover(plan, [east, west], target, opts)
    assert first_west == _cover_reference(plan, [west, east], target, opts)
    assert first_east == _cover_reference(plan, [east, west], target, opts)
    assert first_west.in_cover and not first_east.in_cover


def test_at43_hidden_targets_from_batched_sight_are_those_no_firer_sees_pair_by_pair() -> None:
    # AT-43 cover_state asks the first firer about each target, then the others in batched calls:
    # the hidden targets must be exactly those that no firer sees by line_of_sight.
    from rules.rulesets.at43 import cover_state
    from rules.visibility import line_of_sight

    rs = find_ruleset("at-43")
    states = []
    for seed in range(4):
        plan = _random_table("at-43", 7 * seed + 3)
        opts = rs.resolve_options(plan, None)
        for a, b in (("u0", "u1"), ("u1", "u0"), ("u2", "u3"), ("u3", "u4"), ("u5", "u2")):
            got = cover_state(rs, plan, a, b, opts).state
            for target in plan.models_of(b):
                seen = any(line_of_sight(plan, f.model_id, target.model_id, options=opts, ruleset=rs).visible
                           for f in plan.models_of(a))
                assert (got[target.model_id] == "hidden") == (not seen), (seed, a, target.model_id)
                states.append(got[target.model_id])
    assert "hidden" in states and set(states) - {"hidden"}  # the tables decide both ways


def _wall_table(wall_mm: float, figure_mm: float) -> TablePlan:
    """Two figures either side of a wall, a third unit of two behind one of them."""
    return parse_game({
        "ruleset": "firefight", "table": {"width_mm": 600, "depth_mm": 600},
        "units": [{"id": "u", "side": "A"}, {"id": "v", "side": "B"}],
        "models": [{"id": "a", "unit": "u", "x_mm": 100, "y_mm": 300, "base_mm": 25, "height_mm": figure_mm},
                   {"id": "b", "unit": "v", "x_mm": 500, "y_mm": 300, "base_mm": 25, "height_mm": figure_mm},
                   {"id": "c", "unit": "v", "x_mm": 500, "y_mm": 100, "base_mm": 25, "height_mm": figure_mm}],
        "terrain": [{"id": "w", "kind": "wall", "shape": "line", "points_mm": [[300, 200], [300, 400]],
                     "height_mm": wall_mm}]})


def test_remembered_terrain_part_follows_the_pieces_and_the_eyes() -> None:
    """What is worked out from the terrain alone (which pieces are seen over) is remembered by the
    terrain's value and the highest eyes: eyes rising above a wall, or a taller wall, are not answered
    from what an earlier table left."""
    rs = find_ruleset("firefight")
    assert not all_pairs_sight(_wall_table(20.0, 15.0), ruleset=rs).sees("a", "b")  # eyes under the wall
    seen = all_pairs_sight(_wall_table(20.0, 30.0), ruleset=rs)  # the same wall, the eyes now above it
    assert seen.sees("a", "b") and seen.sees("a", "c")  # c is beside the wall's end
    assert not all_pairs_sight(_wall_table(40.0, 30.0), ruleset=rs).sees("a", "b")  # the wall grew


def test_lines_of_sight_at_once_are_each_pairs_line_of_sight() -> None:
    """The batch gives each pair's answer, explanation and all, whatever else is in the batch."""
    from rules.visibility import line_of_sight, lines_of_sight

    for ruleset in HEIGHT_KINDS:
        rs = find_ruleset(ruleset)
        plan = _random_table(ruleset, 5)
        rng = random.Random(ruleset)
        pairs = [tuple(m.model_id for m in rng.sample(list(plan.models), 2)) for _ in range(40)]
        pairs += [(m.model_id, plan.models[1].model_id) for m in plan.models[:1]]
        sights = lines_of_sight(plan, pairs, ruleset=rs)
        got = [s.to_json() for s in sights]
        assert got == [line_of_sight(plan, a, b, ruleset=rs).to_json() for a, b in pairs], ruleset
        assert any(s["visible"] for s in got) and not all(s["visible"] for s in got)
        # without the explanation: the same sights, reasons and all, only without their steps
        assert lines_of_sight(plan, pairs, ruleset=rs, explained=False) == [dataclasses.replace(s, steps=())
                                                                             for s in sights]


def test_base_polygons_meet_rays_as_shapely_says() -> None:
    """A base's polygon against rays decided from its circle, grazing rays asked of shapely: shapely's answer."""
    from rules.measure import FOOTPRINT_QUAD_SEGS
    from rules.visibility import _meets_discs

    rng = np.random.default_rng(3)
    n, rays = 300, 16
    circle = np.column_stack([rng.uniform(0, 500, n), rng.uniform(0, 500, n), rng.choice([10.0, 12.5, 16.0, 20.0], n)])
    # rays passing the centre at distances spread over the band between the inscribed and the outer circle, and beyond
    gap = circle[:, 2:3] * rng.uniform(0.99, 1.01, (n, rays))
    gap[:, :4] = circle[:, 2:3] * rng.uniform(0.0, 2.0, (n, 4))
    gap[:, 4] = circle[:, 2] * math.cos(math.pi / (4 * FOOTPRINT_QUAD_SEGS))  # touching a side
    gap[:, 5] = circle[:, 2]  # touching a corner's circle
    ang = rng.uniform(0, 2 * np.pi, (n, rays))
    foot = circle[:, None, :2] + gap[..., None] * np.stack([np.cos(ang), np.sin(ang)], axis=-1)
    along = np.stack([-np.sin(ang), np.cos(ang)], axis=-1)
    ends = np.stack([foot - rng.uniform(-5, 80, (n, rays, 1)) * along, foot + rng.uniform(1, 80, (n, rays, 1)) * along],
                    axis=2)
    discs = shapely.buffer(shapely.points(circle[:, :2]), circle[:, 2], quad_segs=FOOTPRINT_QUAD_SEGS)
    lines = shapely.linestrings(ends.reshape(-1, 2, 2)).reshape(n, rays)
    want = shapely.intersects(discs[:, None], lines)
    asked = []

    def exact(i: np.ndarray, j: np.ndarray) -> np.ndarray:
        asked.append(len(i))
        return np.asarray(shapely.intersects(discs[i], lines[i, j]))

    assert np.array_equal(_meets_discs(circle, ends, exact), want)
    assert sum(asked) < want.size // 2 and want.any() and not want.all()  # most decided by the circles


def test_a_piece_seen_over_is_the_pairs_own_and_the_kinds_candidate_is_shared() -> None:
    """The candidate a piece makes by its kind is made once with the terrain; a low wall seen over by one pair
    (both figures' eyes above it) is still a wall that blocks for another pair asked in the same batch."""
    from rules.visibility import _context, lines_of_sight

    plan = parse_game({"ruleset": "firefight", "table": {"width_mm": 600, "depth_mm": 600},
                       "units": [{"id": "u", "side": "A"}, {"id": "v", "side": "B"}],
                       "models": [{"id": "tall", "unit": "u", "x_mm": 100, "y_mm": 300, "base_mm": 25, "height_mm": 30},
                                  {"id": "low", "unit": "u", "x_mm": 100, "y_mm": 340, "base_mm": 25, "height_mm": 10},
                                  {"id": "far", "unit": "v", "x_mm": 500, "y_mm": 320, "base_mm": 25, "height_mm": 30}],
                       "terrain": [{"id": "w", "kind": "wall", "shape": "line", "points_mm": [[300, 200], [300, 450]],
                                    "height_mm": 20}]})
    rs = find_ruleset("firefight")
    over, under = lines_of_sight(plan, [("tall", "far"), ("low", "far")], ruleset=rs)
    assert over.visible and [c[:2] for c in over.cover] == [("wall", "w")] and not over.blockers
    assert "lower than the eyes" in over.cover[0][2]
    assert not under.visible and [b[:2] for b in under.blockers] == [("wall", "w")]
    assert _context(plan, rs).candidates[0] is _context(plan, rs).candidates[0]  # remembered with the terrain


def test_remembered_all_pairs_follow_every_field_sight_reads() -> None:
    """The remembered answer is keyed on what sight reads of the figures and units (as bytes, not records):
    a change of a figure's height, ground, base or place, or of a unit's kind, is a new table."""
    from rules.visibility import _all_pairs_remembered

    def fresh(plan: TablePlan) -> np.ndarray:
        _all_pairs_remembered.cache_clear()
        return all_pairs_sight(plan, ruleset=find_ruleset(plan.ruleset)).clear

    hf = _high_fire_table(3)
    tall = _random_table("firefight", 2)
    changed = [
        dataclasses.replace(hf, units=tuple(dataclasses.replace(u, kind="vehicle") for u in hf.units)),
        dataclasses.replace(hf, models=tuple(dataclasses.replace(m, position_mm=(m.position_mm[0] + 40.0,
                                                                                  m.position_mm[1]))
                                             if m.unit_id == "u2" else m for m in hf.models)),
        dataclasses.replace(tall, models=tuple(dataclasses.replace(m, height_mm=5.0) for m in tall.models)),
        dataclasses.replace(tall, models=tuple(dataclasses.replace(m, elevation_mm=200.0) if k % 2 else m
                                               for k, m in enumerate(tall.models))),
        dataclasses.replace(tall, models=tuple(dataclasses.replace(m, base_mm=60.0) for m in tall.models)),
    ]
    for before, after in zip([hf, hf, tall, tall, tall], changed):
        rs = find_ruleset(before.ruleset)
        _all_pairs_remembered.cache_clear()
        first = all_pairs_sight(before, ruleset=rs).clear
        remembered = all_pairs_sight(after, ruleset=rs).clear  # asked right after the other table
        assert np.array_equal(remembered, fresh(after)) and not np.array_equal(first, remembered)


def test_directions_the_other_way_are_half_a_turn_from_the_stored_ones() -> None:
    """All-pairs keeps the directions of the pairs i < j only; the other way round is read half a turn away,
    within rounding of the arctangent's own answer (and the stored ones are the arctangent's, bit for bit)."""
    from rules.visibility import _directions, _towards, _upper_flat

    rng = np.random.default_rng(4)
    xy = np.concatenate([rng.uniform(0, 1200, (60, 2)), np.round(rng.uniform(0, 1200, (20, 2)) / 50) * 50])
    n = len(xy)
    dx, dy = xy[None, :, 0] - xy[:, None, 0], xy[None, :, 1] - xy[:, None, 1]
    exact = _wrap(np.arctan2(dy, dx))
    ang = np.zeros((n, n))
    ang.ravel()[_upper_flat(n)] = _directions(dx, dy, _upper_flat(n))
    assert np.array_equal(np.triu(ang, 1), np.triu(exact, 1))
    i, j = np.nonzero((dx != 0) | (dy != 0))  # (two figures on one spot are in contact: no direction read)
    got = _towards(ang, i, j)
    assert ((got >= 0) & (got < 2 * np.pi)).all()
    off = np.abs(got - exact[i, j])
    assert np.minimum(off, 2 * np.pi - off).max() <= 1e-12
