"""High Fire obstacles: each group of figures within 1" of one another (High Fire, Ligne de vue; UNITES)."""

from __future__ import annotations

import numpy as np

from rules.plan import Model
from rules.visibility import _group_labels, obstacle_groups


def test_groups_all_at_once_agree_with_unit_by_unit() -> None:
    rng = np.random.default_rng(11)
    for _ in range(30):
        n = int(rng.integers(1, 40))
        units = rng.integers(0, 5, size=n)
        ms = [Model(f"m{k}", f"u{units[k]}", (float(rng.uniform(0, 300)), float(rng.uniform(0, 300))), 20.0)
              for k in range(n)]
        x = np.array([m.position_mm[0] for m in ms])
        y = np.array([m.position_mm[1] for m in ms])
        labels = _group_labels(x, y, np.full(n, 10.0), units)
        fast = {frozenset(ms[k].model_id for k in range(n) if labels[k] == lab) for lab in set(labels.tolist())}
        slow = {frozenset(m.model_id for m in g) for u in set(units.tolist())
                for g in obstacle_groups([m for m in ms if m.unit_id == f"u{u}"])}
        assert fast == slow


def test_a_chain_is_one_group_and_a_gap_of_more_than_an_inch_splits_it() -> None:
    ms = [Model("a", "u", (0.0, 0.0), 20.0), Model("b", "u", (45.4, 0.0), 20.0),  # 25.4 mm gap: linked
          Model("c", "u", (90.8, 0.0), 20.0), Model("d", "u", (136.3, 0.0), 20.0)]  # 25.5 mm: apart
    assert [[m.model_id for m in g] for g in obstacle_groups(ms)] == [["a", "b", "c"], ["d"]]
