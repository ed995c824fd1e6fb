"""Benchmark the table geometry: all-pairs line of sight and the AT-43 fire zone.

Run: ``.venv/bin/python benchmarks/geometry.py`` (one core). Prints the median time
of the vectorised functions beside a naive per-pair shapely loop measured in the
same run, and checks both give the same answer.

Targets (issue 4): all-pairs sight for 100 models and 30 terrain pieces <= 5 ms;
the fire zone with impact order for two 10-model units <= 1 ms. Issues 11 and 13: all-pairs
sight with heights <= 5 ms for every rule set, ``ask`` <= 10 ms (``los UNIT UNIT`` and
``cover`` timed on the 100-model tables).
"""

from __future__ import annotations

import os

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import dataclasses  # noqa: E402
import importlib  # noqa: E402
import random  # noqa: E402
import statistics  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Any, Callable  # noqa: E402

import numpy as np  # noqa: E402
import shapely  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from rules.plan import TablePlan, parse_game  # noqa: E402
from rules.rulesets import find_ruleset  # noqa: E402
from rules.terrain import terrain_geometry  # noqa: E402
from rules.visibility import _all_pairs_remembered, _terrain_and_solids, _unit_solids, all_pairs_sight  # noqa: E402
from rules.rulesets.at43.fire_zone import fire_zone  # noqa: E402


def median_ms(f: Callable[[], Any], repeat: int) -> float:
    """Median wall-clock time of ``f`` in ms (after one warm-up call)."""
    return timed(f, repeat)[0]


def timed(f: Callable[[], Any], repeat: int) -> tuple[float, float]:
    """Return the median wall-clock and the median CPU time of ``f`` in ms (after one warm-up call).

    On a machine shared with other work the CPU time (what this process used) is the
    fairer figure; both are printed.
    """
    f()
    wall, cpu = [], []
    for _ in range(repeat):
        t0, c0 = time.perf_counter(), time.process_time()
        f()
        cpu.append(time.process_time() - c0)
        wall.append(time.perf_counter() - t0)
    return statistics.median(wall) * 1000.0, statistics.median(cpu) * 1000.0


def sight_table(ruleset: str, n_models: int = 100, n_terrain: int = 30, seed: int = 43) -> TablePlan:
    """100 models in 20 units and 30 terrain pieces on a 120 x 120 cm table (seeded)."""
    rng = random.Random(seed)
    kinds = {"firefight": [("building", "area")] * 15 + [("wall", "line")] * 10 + [("forest", "area")] * 5,
             "star-wars": [("building", "area")] * 15 + [("wall", "line")] * 10 + [("crates", "area")] * 5,
             "high-fire": [("dense-solid", "area")] * 10 + [("sparse-partial", "area")] * 10 + [("solid-obstacle", "line")] * 10}[ruleset]
    terrain = []
    for t, (kind, shape) in enumerate(kinds[:n_terrain]):
        x, y = rng.uniform(50, 1050), rng.uniform(50, 1050)
        w, h = rng.uniform(40, 150), rng.uniform(40, 150)
        pts = [[x, y], [x + w, y], [x + w, y + h], [x, y + h]] if shape == "area" else [[x, y], [x + w, y + h]]
        terrain.append({"id": f"t{t}", "kind": kind, "shape": shape, "points_mm": pts})
    models = [{"id": f"m{i}", "unit": f"u{i // 5}", "x_mm": rng.uniform(20, 1180), "y_mm": rng.uniform(20, 1180),
               "base_mm": 25} for i in range(n_models)]
    units = [{"id": f"u{k}", "side": "AB"[k % 2], "kind": "infantry"} for k in range(n_models // 5)]
    return parse_game({"ruleset": ruleset, "table": {"width_mm": 1200, "depth_mm": 1200},
                       "units": units, "models": models, "terrain": terrain})


def naive_all_pairs(plan: TablePlan) -> np.ndarray:
    """The obvious way: one LineString per pair, tested against every blocking piece in turn."""
    rs = find_ruleset(plan.ruleset)
    blockers = [terrain_geometry(t) for t in plan.terrain if rs.kind_of(t).sight == "blocks"]
    n = len(plan.models)
    clear = np.ones((n, n), dtype=bool)
    for i in range(n):
        a = plan.models[i]
        for j in range(i + 1, n):
            b = plan.models[j]
            dx, dy = b.x_mm - a.x_mm, b.y_mm - a.y_mm
            d = (dx * dx + dy * dy) ** 0.5
            ra, rb = a.base_mm / 2, b.base_mm / 2
            if d <= ra + rb + 0.5:
                continue
            seg = shapely.LineString([(a.x_mm + dx / d * ra, a.y_mm + dy / d * ra),
                                      (b.x_mm - dx / d * rb, b.y_mm - dy / d * rb)])
            if any(seg.intersects(g) for g in blockers):
                clear[i, j] = clear[j, i] = False
    return clear


def zone_table(seed: int = 7) -> TablePlan:
    """Two 10-model units 60 cm apart with 30 other models around and between them."""
    rng = random.Random(seed)
    models = [{"id": f"f{i}", "unit": "F", "x_mm": 100 + 35 * i, "y_mm": 200 + rng.uniform(-20, 20), "base_mm": 30}
              for i in range(10)]
    models += [{"id": f"t{i}", "unit": "T", "x_mm": 150 + 35 * i, "y_mm": 800 + rng.uniform(-20, 20), "base_mm": 30}
               for i in range(10)]
    models += [{"id": f"x{i}", "unit": f"X{i % 3}", "x_mm": rng.uniform(50, 1150), "y_mm": rng.uniform(250, 750),
                "base_mm": 30, **({"status": ["kneeling"]} if i % 7 == 0 else {})} for i in range(30)]
    return parse_game({"ruleset": "at-43", "table": {"width_mm": 1200, "depth_mm": 1200},
                       "units": [{"id": "F", "side": "A", "leader": "f4"}, {"id": "T", "side": "B", "leader": "t4"},
                                 *({"id": f"X{k}", "side": "B"} for k in range(3))],
                       "models": models})


def naive_fire_zone(plan: TablePlan) -> tuple[str, ...]:
    """The obvious way: union of buffered bases, its hull, one intersects and one distance per model."""
    firers = [m for m in plan.models if m.unit_id == "F"]
    targets = [m for m in plan.models if m.unit_id == "T"]
    hull = shapely.unary_union([shapely.Point(m.position_mm).buffer(m.base_mm / 2) for m in firers + targets]).convex_hull
    leader = shapely.Point(next(m for m in firers if m.model_id == "f4").position_mm).buffer(15)
    caught = []
    for m in plan.models:
        if m.unit_id in ("F", "T") or m.has_status("kneeling") or m.has_status("prone"):
            continue
        disc = shapely.Point(m.position_mm).buffer(m.base_mm / 2)
        if disc.intersects(hull):
            caught.append((leader.distance(disc), m.model_id))
    return tuple(mid for _, mid in sorted(caught))


HEIGHT_KINDS = {
    "firefight": [("building", "area", 120.0)] * 10 + [("wall", "line", 20.0)] * 15 + [("forest", "area", 90.0)] * 5,
    "star-wars": [("building", "area", 120.0)] * 10 + [("wall", "line", 20.0)] * 15 + [("crates", "area", 25.0)] * 5,
    "high-fire": [("dense-solid", "area", 40.0)] * 10 + [("sparse-partial", "area", 30.0)] * 10
                 + [("solid-obstacle", "line", 10.0)] * 10,
    "feu-a-volonte": [("building", "area", 120.0)] * 10 + [("hedge", "line", 20.0)] * 15 + [("forest", "area", 90.0)] * 5,
    "at-43": [("building", "area", 120.0)] * 10 + [("container", "area", 20.0)] * 20,
}


def heights_table(ruleset: str, seed: int = 13) -> TablePlan:
    """100 figures 30 mm high (one in five on a 40 mm floor) in 20 units of 5 within cohesion, 30 pieces
    with heights (low walls and crates under the eyes, buildings above) on a 120 x 120 cm table."""
    rng = random.Random(seed)
    terrain = []
    for t, (kind, shape, h) in enumerate(HEIGHT_KINDS[ruleset]):
        x, y = rng.uniform(50, 1050), rng.uniform(50, 1050)
        w, d = rng.uniform(40, 150), rng.uniform(40, 150)
        pts = [[x, y], [x + w, y], [x + w, y + d], [x, y + d]] if shape == "area" else [[x, y], [x + w, y + d]]
        terrain.append({"id": f"t{t}", "kind": kind, "shape": shape, "points_mm": pts, "height_mm": h})
    models = []
    for u in range(20):
        cx, cy = rng.uniform(80, 1120), rng.uniform(80, 1120)
        for k in range(5):
            models.append({"id": f"m{u * 5 + k}", "unit": f"u{u}", "x_mm": cx + 30 * (k - 2), "y_mm": cy,
                           "base_mm": 25, "height_mm": 30.0, **({"elevation_mm": 40.0} if k == 0 else {})})
    units = [{"id": f"u{k}", "side": "AB"[k % 2], "kind": "infantry"} for k in range(20)]
    return parse_game({"ruleset": ruleset, "table": {"width_mm": 1200, "depth_mm": 1200},
                       "units": units, "models": models, "terrain": terrain})


def computed(plan: TablePlan) -> Any:
    """All-pairs sight worked out, not the answer remembered for an unchanged table (the figure the targets mean)."""
    _all_pairs_remembered.cache_clear()
    return all_pairs_sight(plan, ruleset=find_ruleset(plan.ruleset))


def _forget_hulls() -> None:
    """Empty the fire zone's caches (hulls remembered by the bases' values): the cost when every base moved."""
    fz = importlib.import_module("rules.rulesets.at43.fire_zone")
    for cache in (fz._circle_hull, fz._tangent_polygon, fz._outline):
        cache.cache_clear()


def _forget_solids() -> None:
    """Empty the unit solids' caches (High Fire hulls remembered by the models' values)."""
    _unit_solids.cache_clear()
    _terrain_and_solids.cache_clear()


def heights_report(repeat: int = 40) -> None:
    """All-pairs sight with heights (issue 13): every rule set, target <= 5 ms."""
    for ruleset in HEIGHT_KINDS:
        plan = heights_table(ruleset)
        flat = dataclasses.replace(plan, models=tuple(dataclasses.replace(m, height_mm=None) for m in plan.models))
        wall, cpu = timed(lambda: computed(plan), repeat)
        f_wall, f_cpu = timed(lambda: computed(flat), repeat)
        print(f"  all-pairs sight with heights, {ruleset:13s}: {wall:8.2f} / {cpu:8.2f}  "
              f"({'within' if cpu <= 5.0 else 'OVER'} 5 ms; same table without heights {f_wall:.2f} / {f_cpu:.2f})")
        if ruleset == "high-fire":
            c_wall, c_cpu = timed(lambda: (_forget_solids(), computed(plan)), repeat)
            print(f"  all-pairs sight with heights, high-fire, unit solids not remembered (every unit moved): "
                  f"{c_wall:.2f} / {c_cpu:.2f}")
            r_wall, r_cpu = timed(lambda: all_pairs_sight(plan, ruleset=find_ruleset(plan.ruleset)), repeat)
            print(f"  all-pairs sight with heights, high-fire, asked again of the unchanged table (remembered): "
                  f"{r_wall:.3f} / {r_cpu:.3f}")


ASK_QUESTIONS = {  # the unit questions each rule set answers on the heights tables (u0 fires at u1)
    "firefight": ("los", "cover"), "star-wars": ("los",), "high-fire": ("los", "cover"),
    "feu-a-volonte": ("los",), "at-43": ("los", "cover"),
}


COVER_PAIRS = (("u2", "u5"), ("u3", "u8"))  # firing unit, target unit: more targets whose nearest firer does not see


def ask_report(repeat: int = 30) -> None:
    """``ask los UNIT UNIT`` and ``ask cover`` on the 100-model tables (issues 11 and 13: ``ask`` <= 10 ms)."""
    from rules.questions import ask

    for ruleset, names in ASK_QUESTIONS.items():
        scattered = ruleset in ("firefight", "star-wars", "high-fire")  # sight_table knows these three
        for kind, plan in (("heights", heights_table(ruleset)), *((("scattered", sight_table(ruleset)),)
                                                                  if scattered else ())):
            parts = []
            for q in names:
                wall, cpu = timed(lambda: ask(plan, q, ["u0", "u1"]), repeat)
                parts.append(f"{q} u0 u1 {wall:6.2f} / {cpu:6.2f} ({'within' if cpu <= 10.0 else 'OVER'})")
                if q == "cover":  # cover depends on which firer sees: two more pairs, the slower one shown
                    (w2, c2), pair = max(((timed(lambda: ask(plan, q, list(p)), repeat), p) for p in COVER_PAIRS),
                                         key=lambda r: r[0][1])
                    parts.append(f"cover {' '.join(pair)} {w2:6.2f} / {c2:6.2f} ({'within' if c2 <= 10.0 else 'OVER'})")
            wall, cpu = timed(lambda: ask(plan, "los", ["m0", "m7"]), repeat)
            parts.append(f"los m0 m7 {wall:5.2f} / {cpu:5.2f}")
            print(f"  ask on the 100-model table ({kind:9s}), {ruleset:13s}: " + ";  ".join(parts))


def main() -> None:
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"geometry benchmark: medians in ms, wall clock / CPU time of this process "
          f"(machine load average {load:.1f})")
    for ruleset, repeat in (("firefight", 60), ("star-wars", 60), ("high-fire", 60)):
        plan = sight_table(ruleset)
        wall, cpu = timed(lambda: computed(plan), repeat)
        line = (f"  all-pairs sight, {ruleset:9s} (100 models, 30 terrain, 4950 pairs): "
                f"{wall:8.2f} / {cpu:8.2f}  ({'within' if cpu <= 5.0 else 'OVER'} 5 ms)")
        if ruleset == "firefight":
            n_wall, n_cpu = timed(lambda: naive_all_pairs(plan), 3)
            same = np.array_equal(naive_all_pairs(plan), all_pairs_sight(plan, ruleset=find_ruleset(plan.ruleset)).clear)
            line += f"   naive per-pair shapely loop {n_wall:8.1f} / {n_cpu:8.1f}  (x{n_cpu / cpu:.0f}; same answer: {same})"
        print(line)
    zplan = zone_table()
    wall, cpu = timed(lambda: fire_zone(zplan, "F", "T"), 200)
    n_wall, n_cpu = timed(lambda: naive_fire_zone(zplan), 50)
    same = naive_fire_zone(zplan) == fire_zone(zplan, "F", "T").caught
    print(f"  fire zone + impact order (two 10-model units, 30 others): {wall:8.3f} / {cpu:8.3f}"
          f"   naive shapely loop {n_wall:7.3f} / {n_cpu:7.3f}  (x{n_cpu / cpu:.1f}; same answer: {same})")
    c_wall, c_cpu = timed(lambda: (_forget_hulls(), fire_zone(zplan, "F", "T")), 200)
    print(f"  fire zone, hulls not remembered (every base moved since):  {c_wall:8.3f} / {c_cpu:8.3f}"
          f"  ({'within' if c_cpu <= 1.0 else 'OVER'} 1 ms)")
    heights_report()
    ask_report()
    print("  targets (one core): all-pairs sight <= 5 ms, fire zone <= 1 ms, ask <= 10 ms")


if __name__ == "__main__":
    main()
