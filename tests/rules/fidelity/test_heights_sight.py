"""All-pairs sight with heights agrees pair by pair with line_of_sight (rules.heights).

Random tables where figures of two heights stand on grounds of two levels and walls of three
heights (one unknown) stand between them: the vectorised answer equals the centre line of the
one-pair answer, and a pair sees over a wall exactly when the wall is under both eyes.
"""

from __future__ import annotations

import random

import pytest

from rules.plan import parse_game
from rules.rulesets import find_ruleset
from rules.visibility import all_pairs_sight, line_of_sight


def _table(ruleset: str, seed: int) -> dict:
    rng = random.Random(seed)
    kind = {"firefight": "wall", "star-wars": "wall", "high-fire": "solid-obstacle"}[ruleset]
    terrain = []
    for t in range(8):
        x, y = rng.uniform(50, 500), rng.uniform(50, 500)
        piece = {"id": f"t{t}", "kind": kind, "shape": "line", "points_mm": [[x, y], [x + rng.uniform(-90, 90), y + 80]]}
        h = rng.choice([None, 15.0, 45.0])
        if h is not None:
            piece["height_mm"] = h
        terrain.append(piece)
    terrain.append({"id": "house", "kind": "building" if ruleset != "high-fire" else "blocking", "shape": "area",
                    "points_mm": [[260, 260], [330, 260], [330, 330], [260, 330]], "height_mm": 20.0})
    models = []
    for i in range(18):
        m = {"id": f"m{i}", "unit": f"u{i}", "x_mm": rng.uniform(20, 580), "y_mm": rng.uniform(20, 580), "base_mm": 25}
        if i % 5:
            m["height_mm"] = rng.choice([20.0, 30.0])
        if i % 3 == 0:
            m["elevation_mm"] = 30.0
        models.append(m)
    units = [{"id": f"u{i}", "side": "AB"[i % 2]} for i in range(18)]
    return {"ruleset": ruleset, "table": {"width_mm": 600, "depth_mm": 600}, "units": units, "models": models,
            "terrain": terrain}


@pytest.mark.parametrize("ruleset", ["firefight", "star-wars", "high-fire"])
def test_all_pairs_with_heights_matches_pair_by_pair(ruleset: str) -> None:
    rs = find_ruleset(ruleset)
    seen_over = 0
    for seed in range(3):
        plan = parse_game(_table(ruleset, seed))
        matrix = all_pairs_sight(plan, ruleset=rs)
        for i, a in enumerate(plan.models):
            if any(t.terrain_id == "house" and abs(a.x_mm - 295) < 48 and abs(a.y_mm - 295) < 48 for t in plan.terrain):
                continue  # standing in a blocking area: all pairs counts it, the one-pair answer does not
            for b in plan.models[i + 1:]:
                one = line_of_sight(plan, a.model_id, b.model_id, ruleset=rs)
                assert matrix.sees(a.model_id, b.model_id) == one.centre_line_clear, (seed, a.model_id, b.model_id)
                seen_over += any("lower than the eyes" in r for _, _, r in one.cover)
    assert seen_over > 5  # the situation is exercised
