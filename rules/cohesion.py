"""Unit cohesion as a chain: in or out, and which models break it (docs/rule-choices.md#firefight-2).

A unit is in cohesion when its models form one connected group whose links are at
most ``link_mm`` (base edge to base edge by default), and, where the rule has one,
every model is within ``all_within_mm`` of every other (Firefight's 9"). With
``mode="nearest"`` each model needs only one other within ``link_mm`` (the literal
reading of High Fire's and Firefight's wording), without the whole being connected.

Examples
--------
>>> from rules.plan import parse_game
>>> plan = parse_game({"ruleset": "firefight", "table": {"width_mm": 600, "depth_mm": 600},
...     "units": [{"id": "u", "side": "A", "leader": "a"}],
...     "models": [{"id": "a", "unit": "u", "x_mm": 100, "y_mm": 100, "base_mm": 25},
...                {"id": "b", "unit": "u", "x_mm": 145, "y_mm": 100, "base_mm": 25},
...                {"id": "c", "unit": "u", "x_mm": 300, "y_mm": 100, "base_mm": 25}]})
>>> c = chain_cohesion(plan, "u", link_mm=25.4)
>>> c.in_cohesion, c.breaking, c.groups
(False, ('c',), (('a', 'b'), ('c',)))
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

import numpy as np

from rules.errors import InvalidActionError
from rules.explain import Step, explanation_json, msg
from rules.measure import HOWS
from rules.ontable import placed_only
from rules.plan import Model, TablePlan

TOLERANCE_MM = 1e-6  # a link of exactly the rule's distance is within it


@dataclass(frozen=True)
class Cohesion:
    """Cohesion of one unit: ``groups`` (connected models, main group first) and the breakers."""

    unit_id: str
    in_cohesion: bool
    groups: tuple[tuple[str, ...], ...]
    breaking: tuple[str, ...]
    too_far: tuple[tuple[str, str, float], ...] = ()
    exempt: tuple[str, ...] = ()
    steps: tuple[Step, ...] = field(default=())

    def to_json(self) -> dict[str, Any]:
        return {"unit": self.unit_id, "in_cohesion": self.in_cohesion,
                "groups": [list(g) for g in self.groups], "breaking": list(self.breaking),
                "too_far": [{"a": a, "b": b, "distance_mm": round(d, 2)} for a, b, d in self.too_far],
                "exempt": list(self.exempt), "explanation": explanation_json(self.steps)}


def pair_distances(models: Sequence[Model], *, how: str = "edge") -> np.ndarray:
    """Return the ``(n, n)`` distances between ``models`` (edge to edge or centre to centre)."""
    if how not in HOWS:
        raise InvalidActionError(f"how must be one of {', '.join(HOWS)}, got {how!r}", msg_id="measure.bad_how",
                                 params={"got": str(how)})
    p = np.array([m.position_mm for m in models], dtype=float).reshape(-1, 2)
    d = np.hypot(p[:, None, 0] - p[None, :, 0], p[:, None, 1] - p[None, :, 1])
    if how == "edge":
        r = np.array([m.base_mm / 2.0 for m in models])
        d = np.maximum(0.0, d - r[:, None] - r[None, :])
    return np.asarray(d)


def _components(adj: np.ndarray) -> list[list[int]]:
    n = len(adj)
    rows = adj.tolist()  # plain lists: a unit is a few models, numpy's per-row calls cost more than the walk
    seen = [False] * n
    out: list[list[int]] = []
    for start in range(n):
        if seen[start]:
            continue
        stack, comp = [start], []
        seen[start] = True
        while stack:
            k = stack.pop()
            comp.append(k)
            for j, linked in enumerate(rows[k]):
                if linked and not seen[j]:
                    seen[j] = True
                    stack.append(j)
        out.append(sorted(comp))
    return out


@placed_only
def chain_cohesion(plan: TablePlan, unit_id: str, *, link_mm: float, all_within_mm: float | None = None,
                   how: str = "edge", mode: str = "chain",
                   exempt: Callable[[str], bool] | None = None,
                   source: str = "geometry: models linked in a chain") -> Cohesion:
    """Return the cohesion of ``unit_id``.

    Parameters
    ----------
    link_mm : float
        Greatest gap between linked models (mm).
    all_within_mm : float, optional
        Greatest distance between any two models (Firefight 9").
    how : {"edge", "centre"}
    mode : {"chain", "nearest"}
        One connected group (default), or each model with one other near it.
    exempt : callable, optional
        ``exempt(model_id)`` is true for models outside the rule (High Fire specialists).

    The main group is the largest (ties: the one holding the leader, then game-file
    order); models outside it break cohesion. For a pair beyond ``all_within_mm`` the
    model farther from the main group's centre breaks it.
    """
    if mode not in ("chain", "nearest"):
        raise InvalidActionError(f"cohesion mode must be chain or nearest, got {mode!r}",
                                 msg_id="cohesion.bad_mode", params={"got": str(mode)})
    members = plan.models_of(unit_id)
    free = tuple(m.model_id for m in members if exempt is not None and exempt(m.model_id))
    ms = [m for m in members if m.model_id not in free]
    if len(ms) <= 1:
        step = Step("cohesion", f"{unit_id} has {len(ms)} model(s) bound by the rule: in cohesion", source,
                    msg="cohesion.trivial", params={"unit": unit_id, "count": len(ms)})
        return Cohesion(unit_id, True, (tuple(m.model_id for m in ms),) if ms else (), (), (), free, (step,))
    d = pair_distances(ms, how=how)
    adj = (d <= link_mm + TOLERANCE_MM) & ~np.eye(len(ms), dtype=bool)
    leader = plan.unit(unit_id).leader
    comps = _components(adj)
    comps.sort(key=lambda c: (-len(c), not any(ms[k].model_id == leader for k in c), c[0]))
    groups = tuple(tuple(ms[k].model_id for k in c) for c in comps)
    if mode == "chain":
        breaking = [ms[k].model_id for c in comps[1:] for k in c]
    else:
        breaking = [ms[k].model_id for k in range(len(ms)) if not adj[k].any()]
    too_far: list[tuple[str, str, float]] = []
    if all_within_mm is not None:
        main = comps[0]
        centre = np.mean([ms[k].position_mm for k in main], axis=0)
        far_i, far_j = np.nonzero(d > all_within_mm + TOLERANCE_MM)  # each pair once (i < j), as np.triu kept them
        upper = far_i < far_j
        far_i, far_j = far_i[upper], far_j[upper]
        for i, j in zip(far_i, far_j):
            too_far.append((ms[i].model_id, ms[j].model_id, float(d[i, j])))
            # The farther from the main group's centre breaks it; on a tie, not the leader, then the later one.
            worse = max((i, j), key=lambda k: (round(float(np.hypot(*(np.asarray(ms[k].position_mm) - centre))), 6),
                                               ms[k].model_id != leader, k))
            if ms[worse].model_id not in breaking:
                breaking.append(ms[worse].model_id)
    order = {m.model_id: k for k, m in enumerate(members)}
    breaking_t = tuple(sorted(set(breaking), key=order.__getitem__))
    steps = [Step("cohesion link", f"linked models are at most {link_mm:.1f} mm apart "
                  f"({'base edge to base edge' if how == 'edge' else 'centre to centre'}); "
                  f"{'one connected chain' if mode == 'chain' else 'each model near one other'}",
                  source, value=round(link_mm, 3), option=f"cohesion={mode}",
                  msg=f"cohesion.link.{mode}", params={"mm": round(link_mm, 1), "how": msg(f"measure.ref.{how}")})]
    if all_within_mm is not None:
        steps.append(Step("all within", f"every model within {all_within_mm:.1f} mm of every other; "
                          f"{len(too_far)} pair(s) farther", source, value=len(too_far),
                          msg="cohesion.all_within", params={"mm": round(all_within_mm, 1), "pairs": len(too_far)}))
    if free:
        steps.append(Step("exempt", f"not bound by cohesion: {', '.join(free)}", source, msg="cohesion.exempt",
                          params={"models": list(free)}))
    verdict = not breaking_t
    steps.append(Step("cohesion", f"{unit_id} is {'in' if verdict else 'out of'} cohesion"
                      + ("" if verdict else f"; breaking it: {', '.join(breaking_t)}"), source, value=verdict,
                      msg="cohesion.in" if verdict else "cohesion.out",
                      params={"unit": unit_id, "breaking": list(breaking_t)}))
    return Cohesion(unit_id, verdict, groups, breaking_t, tuple(too_far), free, tuple(steps))
