"""The shot shown before it is taken: for a unit about to act, every enemy unit's verdict.

For each enemy unit: ``not_visible`` (no model of the acting unit sees any of its
models), ``refused`` (seen, but the rules core refuses the shot with every weapon:
range, or another rule it names), ``cover`` (the shot is allowed and the target is at
least partly behind cover) or ``clear``; and, per weapon the rules core accepts, the
exact chance of at least one casualty (from the resolution's odds, no dice rolled).

The verdicts come from the rules core only: sight from :func:`rules.visibility.line_of_sight`
with the game's rule set, refusals and odds from :func:`rules.resolve.resolve`. Cheap by
construction: sight stops at the first model pair that sees, and no shot is evaluated at
a unit nobody sees.
"""

from __future__ import annotations

import math
from typing import Any, Mapping

from rules.errors import RulesError
from rules.ontable import on_table
from rules.plan import TablePlan
from server import rulesbridge
from server.errors import ApiError
from tabletracker import i18n

#: Odds names that count models removed, then wounds, as the rules core names them.
_REMOVED = ("models removed", "killed", "removed", "casualties", "out of action")
_WOUNDS = ("wounds", "PV lost")
#: Outcomes of a single distribution (Feu à Volonté's ``shot``) that are a casualty.
_CASUALTY_OUTCOMES = ("killed", "out-of-action")


PREVIEW_BUDGET_S = 0.15
"""Exact odds per weapon within this CPU time, else the stated estimate (a preview of many shots)."""


def casualty_chance(odds: Mapping[str, list[dict[str, Any]]]) -> float | None:
    """Return the chance of at least one casualty from a resolution's odds (JSON form).

    >>> casualty_chance({"hits": [{"outcome": 0, "probability": 0.5}],
    ...                  "models removed": [{"outcome": 0, "probability": 0.25}, {"outcome": 2, "probability": 0.75}]})
    0.75
    >>> casualty_chance({"killed": [{"outcome": False, "probability": 0.8}, {"outcome": True, "probability": 0.2}]})
    0.2
    >>> casualty_chance({"shot": [{"outcome": "killed", "probability": 0.4},
    ...                           {"outcome": "missed", "probability": 0.6}]})
    0.4
    """
    def hurt(outcome: Any) -> bool:
        first = outcome[0] if isinstance(outcome, list) and outcome else outcome
        if isinstance(first, bool):
            return first
        if isinstance(first, (int, float)):
            return first >= 1
        return first in _CASUALTY_OUTCOMES

    names = list(odds)
    pick = next((n for n in names if any(k in n.lower() for k in _REMOVED)), None)
    pick = pick or next((n for n in names if n in _WOUNDS), None)
    pick = pick or next((n for n in names if any(r.get("outcome") in _CASUALTY_OUTCOMES for r in odds[n])), None)
    if pick is None:
        return None
    return round(sum(float(r.get("probability", 0.0)) for r in odds[pick] if hurt(r.get("outcome"))), 6)


def _centre(plan: TablePlan, unit_id: str) -> tuple[float, float]:
    pts = [m.position_mm for m in plan.models if m.unit_id == unit_id]
    return (sum(p[0] for p in pts) / len(pts), sum(p[1] for p in pts) / len(pts))


def shot_preview(plan: TablePlan, unit_id: str) -> dict[str, Any]:
    """Return the verdict on every enemy unit of ``unit_id`` (see the module's docstring).

    Raises :class:`ApiError` (404) for a unit not on the table, (409) for a rule set without
    a ``shoot`` action.
    """
    view = on_table(plan)
    rs = rulesbridge.ruleset_of(plan.ruleset)
    params = rs.action_params.get("shoot")
    if not params or len(params) < 2:
        raise ApiError(409, "no_shoot", f"{rs.title} has no shooting action to preview",
                       fr=f"{rs.title} n'a pas d'action de tir à montrer",
                       params={"ruleset": plan.ruleset})
    own = [m for m in view.models if m.unit_id == unit_id]
    if not own:
        raise ApiError(404, "unknown_unit", f"no unit {unit_id!r} with a model on the table; pick one from the plan",
                       fr=f"pas d'unité {unit_id!r} avec une figurine sur la table ; choisissez-en une sur le plan",
                       params={"unit": unit_id})
    firing_arg, target_arg = params[0], params[1]
    weapon_arg = next((p.name for p in params if p.kind == "weapon"), None)
    side = view.unit(unit_id).side
    weapons = sorted({w for m in own for w in (m.weapons or ())})
    options = rs.resolve_options(plan)
    ox, oy = _centre(view, unit_id)
    out: list[dict[str, Any]] = []
    for enemy in view.units:
        theirs = [m for m in view.models if m.unit_id == enemy.unit_id]
        if enemy.side == side or not theirs:
            continue
        seen, cover = None, False
        for a in sorted(own, key=lambda m: min(math.dist(m.position_mm, t.position_mm) for t in theirs)):
            for b in sorted(theirs, key=lambda t: math.dist(a.position_mm, t.position_mm)):
                s = line_of_sight(plan, a.model_id, b.model_id, options=options, ruleset=rs)
                if s.visible:
                    seen, cover = (a, b), bool(s.cover)
                    break
            if seen:
                break
        entry: dict[str, Any] = {"unit": enemy.unit_id, "centre_mm": list(_centre(view, enemy.unit_id)),
                                 "weapons": []}
        if seen is None:
            entry["status"] = "not_visible"
            out.append(entry)
            continue
        shooter = unit_id if firing_arg.kind in ("unit", "units") else seen[0].model_id
        target = enemy.unit_id if target_arg.kind in ("unit", "units") else seen[1].model_id
        refusals: list[tuple[str, dict[str, str] | None]] = []
        for weapon in weapons or [None]:
            req: dict[str, Any] = {firing_arg.name: shooter, target_arg.name: target}
            if weapon is not None and weapon_arg is not None:
                req[weapon_arg] = weapon
            try:
                res = rulesbridge.resolve(plan, "shoot", req, None, budget_s=PREVIEW_BUDGET_S).to_json()
            except RulesError as exc:
                refusals.append((str(exc), i18n.texts(exc)))
                continue
            entry["weapons"].append({"weapon": weapon, "chance": casualty_chance(res["odds"]), "request": req})
        if not entry["weapons"]:
            entry["status"] = "refused"
            entry["reason"] = refusals[0][0] if refusals else ""
            if refusals and refusals[0][1]:
                entry["reason_text"] = refusals[0][1]  # in French and English, from the catalogues
        else:
            entry["status"] = "cover" if cover else "clear"
        out.append(entry)
    return {"unit": unit_id, "centre_mm": [ox, oy], "ruleset": plan.ruleset, "enemies": out}


def line_of_sight(plan: TablePlan, a: str, b: str, *, options: Mapping[str, Any], ruleset: Any) -> Any:
    """:func:`rules.visibility.line_of_sight` (imported on first use, as the bridge does)."""
    from rules.visibility import line_of_sight as los

    return los(plan, a, b, options=options, ruleset=ruleset)
