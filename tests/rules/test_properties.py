"""Invariants of the table geometry, checked on generated tables (hypothesis).

- distances are symmetric and never negative; edge to edge never exceeds centre to centre;
- moving or turning the whole table (models, terrain, objectives) changes no answer;
- a model never blocks its own sight, nor the target;
- the AT-43 fire zone contains both units;
- the vectorised all-pairs sight agrees with the pair-by-pair answer.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import shapely
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rules.measure import distance_mm, footprint
from rules.plan import parse_game
from rules.questions import ask
from rules.rulesets import find_ruleset
from rules.rulesets.at43.fire_zone import fire_zone
from rules.visibility import all_pairs_sight, line_of_sight

SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
SIZE = 2000.0  # a square table big enough to turn everything around its centre

coord = st.integers(min_value=500, max_value=1500)
base = st.sampled_from([20, 25, 32, 40])


@st.composite
def tables(draw: Any, ruleset: str = "at-43", n_models: tuple[int, int] = (4, 10)) -> dict[str, Any]:
    """A game document on a grid of whole millimetres: two sides, two units each, terrain, an objective."""
    n = draw(st.integers(*n_models))
    models = []
    seen: set[tuple[int, int]] = set()
    for i in range(n):
        x, y = draw(coord), draw(coord)
        while (x, y) in seen:
            x += 1
        seen.add((x, y))
        models.append({"id": f"m{i}", "unit": f"u{i % 4}", "x_mm": x, "y_mm": y, "base_mm": draw(base),
                       "facing_deg": draw(st.sampled_from([0, 90, 180, 270]))})
    kinds = {"at-43": ("container", "low-wall", "crates"), "star-wars": ("building", "crates", "wall"),
             "firefight": ("building", "forest", "barricade"), "high-fire": ("dense-solid", "sparse-partial", "solid-obstacle"),
             "feu-a-volonte": ("building", "wood", "hedge")}[ruleset]
    terrain = []
    for t in range(draw(st.integers(0, 3))):
        x, y = draw(coord), draw(coord)
        w, h = draw(st.integers(20, 200)), draw(st.integers(20, 200))
        kind = kinds[t % 3]
        if kind in ("low-wall", "wall", "solid-obstacle", "hedge", "barricade"):
            terrain.append({"id": f"t{t}", "kind": kind, "shape": "line", "points_mm": [[x, y], [x + w, y + h]]})
        else:
            terrain.append({"id": f"t{t}", "kind": kind, "shape": "area",
                            "points_mm": [[x, y], [x + w, y], [x + w, y + h], [x, y + h]]})
    return {"ruleset": ruleset, "table": {"width_mm": SIZE, "depth_mm": SIZE},
            "units": [{"id": f"u{k}", "side": "A" if k % 2 == 0 else "B", "leader": f"m{k}"} for k in range(min(n, 4))],
            "models": models, "terrain": terrain, "objectives": [{"id": "o", "x_mm": draw(coord), "y_mm": draw(coord)}]}


def quarter_turn(doc: dict[str, Any], turns: int, dx: int, dy: int) -> dict[str, Any]:
    """Turn the whole table by ``turns`` quarter turns about its centre, then shift it (exact on whole mm)."""
    def move(x: float, y: float) -> tuple[float, float]:
        for _ in range(turns % 4):
            x, y = SIZE - y, x
        return x + dx, y + dy

    out = {**doc, "models": [], "terrain": [], "objectives": []}
    out["table"] = {"width_mm": SIZE + abs(dx) * 2, "depth_mm": SIZE + abs(dy) * 2}
    for m in doc["models"]:
        x, y = move(m["x_mm"], m["y_mm"])
        out["models"].append({**m, "x_mm": x, "y_mm": y, "facing_deg": (m["facing_deg"] + 90 * turns) % 360})
    for t in doc["terrain"]:
        out["terrain"].append({**t, "points_mm": [list(move(*p)) for p in t["points_mm"]]})
    for o in doc["objectives"]:
        x, y = move(o["x_mm"], o["y_mm"])
        out["objectives"].append({**o, "x_mm": x, "y_mm": y})
    return out


def answers(doc: dict[str, Any]) -> dict[str, Any]:
    """The answers that must not depend on where the table stands or which way it faces."""
    plan = parse_game(doc)
    ids = [m.model_id for m in plan.models]
    out: dict[str, Any] = {}
    for a, b in zip(ids, ids[1:]):
        d = ask(plan, "distance", [a, b])
        out[f"d {a} {b}"] = (round(d["edge_to_edge"]["mm"], 6), round(d["centre_to_centre"]["mm"], 6))
        s = ask(plan, "los", [a, b])
        out[f"los {a} {b}"] = (s["visible"], s["visible_fraction"], s["centre_line_clear"],
                               sorted(x["id"] for x in s["blockers"]))
    units = [u.unit_id for u in plan.units]
    if plan.ruleset == "at-43" and len(units) >= 2:
        fz = ask(plan, "firezone", [units[0], units[1]])
        out["firezone"] = (fz["caught"], fz["band"])
    if plan.ruleset == "firefight":
        for u in units:
            c = ask(plan, "cohesion", [u])
            out[f"cohesion {u}"] = (c["in_cohesion"], c["breaking"])
        out["objectives"] = [(o["controller"], o["contested"]) for o in ask(plan, "objectives", [])["objectives"]]
    m0 = plan.models[0]
    t = ask(plan, "template", [str(m0.x_mm), str(m0.y_mm), "60"])
    out["template"] = t["under"]
    return out


@SETTINGS
@given(st.floats(-1e4, 1e4), st.floats(-1e4, 1e4), st.floats(-1e4, 1e4), st.floats(-1e4, 1e4),
       base, base, st.sampled_from(["edge", "centre"]))
def test_distance_symmetric_and_never_negative(x1: float, y1: float, x2: float, y2: float, b1: int, b2: int,
                                               how: str) -> None:
    plan = parse_game({"ruleset": "firefight", "table": {"width_mm": 1, "depth_mm": 1},
                       "units": [{"id": "u", "side": "A"}],
                       "models": [{"id": "a", "unit": "u", "x_mm": x1, "y_mm": y1, "base_mm": b1},
                                  {"id": "b", "unit": "u", "x_mm": x2, "y_mm": y2, "base_mm": b2}]})
    ab, ba = distance_mm(plan, "a", "b", how=how), distance_mm(plan, "b", "a", how=how)
    assert ab == ba
    assert ab >= 0.0
    assert distance_mm(plan, "a", "b", how="edge") <= distance_mm(plan, "a", "b", how="centre") + 1e-9


@SETTINGS
@given(st.floats(-5e3, 5e3), st.floats(-5e3, 5e3), st.floats(0, 2 * math.pi), st.lists(
    st.tuples(st.floats(0, 1000), st.floats(0, 1000)), min_size=2, max_size=6))
def test_any_rigid_motion_keeps_distances(dx: float, dy: float, angle: float, points: list[tuple[float, float]]) -> None:
    c, s = math.cos(angle), math.sin(angle)

    def doc(move: Any) -> Any:
        return parse_game({"ruleset": "firefight", "table": {"width_mm": 1, "depth_mm": 1},
                           "units": [{"id": "u", "side": "A"}],
                           "models": [{"id": f"m{i}", "unit": "u", "x_mm": move(p)[0], "y_mm": move(p)[1], "base_mm": 25}
                                      for i, p in enumerate(points)]})

    before = doc(lambda p: p)
    after = doc(lambda p: (c * p[0] - s * p[1] + dx, s * p[0] + c * p[1] + dy))
    for i in range(1, len(points)):
        for how in ("edge", "centre"):
            assert math.isclose(distance_mm(before, "m0", f"m{i}", how=how), distance_mm(after, "m0", f"m{i}", how=how),
                                rel_tol=1e-9, abs_tol=1e-6)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(["at-43", "firefight", "star-wars"]).flatmap(lambda r: tables(ruleset=r)),
       st.integers(0, 3), st.integers(-300, 300), st.integers(-300, 300))
def test_turning_or_moving_the_table_changes_no_answer(doc: dict[str, Any], turns: int, dx: int, dy: int) -> None:
    assert answers(quarter_turn(doc, turns, dx, dy)) == answers(doc)


@SETTINGS
@given(tables(ruleset="star-wars", n_models=(2, 8)))
def test_a_model_never_blocks_its_own_sight(doc: dict[str, Any]) -> None:
    plan = parse_game(doc)
    a, b = plan.models[0].model_id, plan.models[1].model_id
    sight = line_of_sight(plan, a, b, ruleset=find_ruleset(plan.ruleset))
    assert a not in {i for _, i, _ in sight.blockers}
    assert b not in {i for _, i, _ in sight.blockers}
    pair = doc["models"][:2]
    alone = parse_game({**doc, "models": pair, "terrain": [],
                        "units": [u for u in doc["units"] if u["leader"] in (pair[0]["id"], pair[1]["id"])]})
    assert line_of_sight(alone, a, b, ruleset=find_ruleset(alone.ruleset)).visible_fraction == 1.0


@SETTINGS
@given(tables(ruleset="at-43", n_models=(4, 12)))
def test_fire_zone_contains_both_units(doc: dict[str, Any]) -> None:
    plan = parse_game(doc)
    fz = fire_zone(plan, "u0", "u1")
    for m in plan.models_of("u0") + plan.models_of("u1"):
        assert fz.zone.buffer(1e-6).covers(footprint(m))
    assert not set(fz.caught) & {m.model_id for m in plan.models_of("u0") + plan.models_of("u1")}


def _grazes(plan: Any, a: str, b: str, tolerance_mm: float = 0.05) -> bool:
    """Whether the centre line a-b passes within ``tolerance_mm`` of another base's rim (a tie either way).

    The pair test uses the bases' polygons, the all-pairs one their exact circles: a line grazing
    a rim by a few microns may fall on either side, far below what a camera or a tape measures.
    """
    ma, mb = plan.model(a), plan.model(b)
    line = shapely.LineString([ma.position_mm, mb.position_mm])
    for m in plan.models:
        if m.model_id in (a, b):
            continue
        gap = line.distance(shapely.Point(m.position_mm)) - m.base_mm / 2
        if abs(gap) <= tolerance_mm:
            return True
    return False


@SETTINGS
@given(st.sampled_from(["at-43", "star-wars", "high-fire", "firefight", "feu-a-volonte"]).flatmap(
    lambda r: tables(ruleset=r, n_models=(2, 10))))
def test_all_pairs_sight_agrees_with_each_pair(doc: dict[str, Any]) -> None:
    plan = parse_game(doc)
    matrix = all_pairs_sight(plan, ruleset=find_ruleset(plan.ruleset))
    origin_in_blocking = set()
    for m in plan.models:
        for t in doc["terrain"]:
            if t["shape"] == "area":
                xs, ys = [p[0] for p in t["points_mm"]], [p[1] for p in t["points_mm"]]
                if min(xs) <= m.x_mm <= max(xs) and min(ys) <= m.y_mm <= max(ys):
                    origin_in_blocking.add(m.model_id)
    ids = [m.model_id for m in plan.models]
    for i, a in enumerate(ids):
        for j, b in enumerate(ids):
            if i == j or a in origin_in_blocking or b in origin_in_blocking or _grazes(plan, a, b):
                continue
            assert matrix.clear[i, j] == line_of_sight(plan, a, b, ruleset=find_ruleset(plan.ruleset)).centre_line_clear, (a, b)
    assert np.array_equal(matrix.clear, matrix.clear.T)
