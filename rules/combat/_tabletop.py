"""Small shared helpers of the Firefight, High Fire and Star Wars combat modules.

Request reading (CLI/HTTP arguments), base-to-base distances, special-rule parsing,
game-state bookkeeping and status edits, all pure. The full geometry (sight through
terrain, fire zones) belongs to the geometry modules; the few measures here are the
minimal ones the resolutions need (base edge to base edge, RULES-NOTES choice 1).

Examples
--------
>>> parse_rule("Tough(3)")
('Tough', 3)
>>> parse_rule("Hero")
('Hero', None)
>>> threshold(4)
'4+'
"""

from __future__ import annotations

import dataclasses
import math
import re
from typing import Any, Iterable, Mapping

from rules.errors import InvalidActionError
from rules.frozen import EMPTY, freeze, thaw
from rules.plan import Model, TablePlan, Unit

_RULE_RE = re.compile(r"^\s*([^()]+?)\s*(?:\(\s*\+?(-?\d+)\s*\))?\s*$")


def parse_rule(text: str) -> tuple[str, int | None]:
    """Split ``"Name(X)"`` into ``("Name", X)``; ``X`` is ``None`` when absent."""
    m = _RULE_RE.match(text)
    if not m:
        raise InvalidActionError(f"cannot read the special rule {text!r}; write Name or Name(X)")
    return m.group(1), (int(m.group(2)) if m.group(2) is not None else None)


def rule_value(rules: Iterable[str], name: str) -> int | None:
    """Return X of ``name(X)`` among ``rules`` (0 for a rule without X), ``None`` when absent."""
    for r in rules:
        n, x = parse_rule(r)
        if n.lower() == name.lower():
            return 0 if x is None else x
    return None


def has_rule(rules: Iterable[str], name: str) -> bool:
    """Return whether ``name`` (with or without X) is among ``rules``."""
    return rule_value(rules, name) is not None


def threshold(n: int) -> str:
    """Return ``"n+"``."""
    return f"{n}+"


# -- request ----------------------------------------------------------------------

def req_str(request: Mapping[str, Any], key: str, *, default: Any = ...) -> Any:
    """Return the string argument ``key``; a missing one is an :class:`InvalidActionError`."""
    if key not in request or request[key] is None:
        if default is ...:
            raise InvalidActionError(f"this action needs the argument {key!r}; given: {sorted(request) or 'nothing'}")
        return default
    value = request[key]
    if not isinstance(value, str) or not value:
        raise InvalidActionError(f"argument {key!r} must be a non-empty string, got {value!r}")
    return value


def req_bool(request: Mapping[str, Any], key: str, default: bool = False) -> bool:
    """Return a boolean argument (``true``/``false``, ``1``/``0``, ``yes``/``no`` accepted)."""
    value = request.get(key, default)
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.lower() in ("true", "1", "yes", "oui"):
        return True
    if isinstance(value, str) and value.lower() in ("false", "0", "no", "non"):
        return False
    if isinstance(value, int) and value in (0, 1):
        return bool(value)
    raise InvalidActionError(f"argument {key!r} must be true or false, got {value!r}")


def req_list(request: Mapping[str, Any], key: str) -> list[str]:
    """Return a list argument given as a list or a comma-separated string (empty when absent)."""
    value = request.get(key)
    if value is None:
        return []
    if isinstance(value, str):
        return [v.strip() for v in value.split(",") if v.strip()]
    if isinstance(value, (list, tuple)) and all(isinstance(v, str) for v in value):
        return list(value)
    raise InvalidActionError(f"argument {key!r} must be a list of names, got {value!r}")


def req_int(request: Mapping[str, Any], key: str, default: Any = ...) -> Any:
    """Return an integer argument."""
    if key not in request or request[key] is None:
        if default is ...:
            raise InvalidActionError(f"this action needs the integer argument {key!r}")
        return default
    value = request[key]
    if isinstance(value, str) and re.fullmatch(r"-?\d+", value.strip()):
        return int(value)
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidActionError(f"argument {key!r} must be an integer, got {value!r}")
    return value


# -- distances (base edge to base edge, RULES-NOTES choice 1) -------------------------

def centre_mm(a: Model, b: Model) -> float:
    """Return the centre-to-centre distance of two models in mm."""
    return math.dist(a.position_mm, b.position_mm)


def edge_mm(a: Model, b: Model) -> float:
    """Return the base-edge to base-edge distance in mm (0 when bases touch or overlap).

    >>> from rules.plan import Model
    >>> edge_mm(Model("a", "u", (0.0, 0.0), 25), Model("b", "v", (50.0, 0.0), 25))
    25.0
    """
    return max(0.0, centre_mm(a, b) - (a.base_mm + b.base_mm) / 2.0)


def measure_how(plan: TablePlan) -> str:
    """Return how the rule set's distances are taken in this game: ``"edge"`` (default) or ``"centre"``.

    RULES-NOTES choice 1, the rule set's ``measure`` option (``plan.options``).
    """
    opts = plan.options or {}
    if "measure" not in opts:
        return "edge"
    from rules.rulesets.base import find_ruleset  # the geometry's option table

    return str(find_ruleset(plan.ruleset).option("measure").parse(opts["measure"]))


def dist_mm(a: Model, b: Model, how: str = "edge") -> float:
    """Return the distance between two models, base edge to base edge or centre to centre (``how``).

    >>> from rules.plan import Model
    >>> dist_mm(Model("a", "u", (0.0, 0.0), 25), Model("b", "v", (50.0, 0.0), 25), "centre")
    50.0
    """
    return centre_mm(a, b) if how == "centre" else edge_mm(a, b)


def point_dist_mm(point: tuple[float, float], m: Model, how: str = "edge") -> float:
    """Return the distance from a point to a model's base edge (or its centre with ``how="centre"``)."""
    d = math.dist(point, m.position_mm)
    return d if how == "centre" else max(0.0, d - m.base_mm / 2.0)


def point_edge_mm(point: tuple[float, float], m: Model) -> float:
    """Return the distance in mm from a point to the edge of a model's base."""
    return max(0.0, math.dist(point, m.position_mm) - m.base_mm / 2.0)


def units_edge_mm(plan: TablePlan, u1: str, u2: str) -> float:
    """Return the closest base-edge distance between two units' models (inf when one is empty)."""
    return min((edge_mm(a, b) for a in plan.models_of(u1) for b in plan.models_of(u2)), default=math.inf)


# -- state and statuses ------------------------------------------------------------------

def state_dict(plan: TablePlan) -> dict[str, Any]:
    """Return a plain (mutable) copy of ``plan.state``."""
    return thaw(plan.state) if plan.state else {}


def with_status(m: Model, *, add: Iterable[str] = (), remove: Iterable[str] = ()) -> Model:
    """Return ``m`` with statuses added and removed (order kept, no duplicates)."""
    gone = set(remove)
    status = [s for s in (m.status or ()) if s not in gone]
    for s in add:
        if s not in status:
            status.append(s)
    return dataclasses.replace(m, status=tuple(status) if status or m.status is not None else None)


def with_extra(obj: Any, **changes: Any) -> Any:
    """Return a model or unit with ``extra`` keys set (``None`` deletes a key)."""
    extra = thaw(obj.extra) if obj.extra else {}
    for k, v in changes.items():
        if v is None:
            extra.pop(k, None)
        else:
            extra[k] = v
    return dataclasses.replace(obj, extra=freeze(extra) if extra else EMPTY)


def other_side(plan: TablePlan, side: str) -> str:
    """Return the other side of a two-side game."""
    sides = sides_of(plan)
    others = [s for s in sides if s != side]
    if len(others) != 1:
        raise InvalidActionError(f"this action needs exactly two sides; the game has {', '.join(sides) or 'none'}")
    return others[0]


def sides_of(plan: TablePlan) -> list[str]:
    """Return the sides in order of first appearance among the units."""
    out: list[str] = []
    for u in plan.units:
        if u.side not in out:
            out.append(u.side)
    return out


def unit_rules(plan: TablePlan, unit: Unit, model: Model | None = None) -> list[str]:
    """Return the special rules of a model: its unit's, its profile's and its own (roster traits)."""
    rules = list(unit.rules or ())
    profile = profile_of(plan, model.profile if model and model.profile else unit.profile)
    rules.extend(profile.get("rules", ()))
    if model is not None:
        rules.extend(model.extra.get("rules", ()))
    return rules


def profile_of(plan: TablePlan, name: str | None) -> Mapping[str, Any]:
    """Return the profile ``name`` from the plan's profiles (empty mapping for ``None``)."""
    if name is None:
        return EMPTY
    profiles = plan.profiles or EMPTY
    if name not in profiles:
        raise InvalidActionError(
            f"profile {name!r} is not in the game's profiles; known: {', '.join(sorted(profiles)) or '(none)'}"
            " - load the side's roster into the game file"
        )
    return profiles[name]


def weapon_of(plan: TablePlan, name: str) -> Mapping[str, Any]:
    """Return the weapon ``name`` from the plan's weapons."""
    weapons = plan.weapons or EMPTY
    if name not in weapons:
        raise InvalidActionError(
            f"weapon {name!r} is not in the game's weapons; known: {', '.join(sorted(weapons)) or '(none)'}"
        )
    return weapons[name]
