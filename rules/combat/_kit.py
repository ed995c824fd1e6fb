"""Helpers of the AT-43 and Feu à Volonté resolutions: request arguments, state edits, distances.

Pure functions over the frozen plan. Distances here are the two the resolutions
read directly (centre to centre, base edge to base edge); everything that needs
terrain (sight, cover) goes through the geometry modules.

Examples
--------
>>> req_list({"shooters": "a, b"}, "shooters")
['a', 'b']
>>> req_int({"shots": "2"}, "shots")
2
>>> req_choice({"cover": "maybe"}, "cover", ("yes", "no", "auto"), "auto")
Traceback (most recent call last):
...
rules.errors.InvalidActionError: argument 'cover' must be one of yes, no, auto; got 'maybe'
"""

from __future__ import annotations

import dataclasses
import math
import re
from typing import Any, Iterable, Mapping, Sequence

from rules.errors import InvalidActionError
from rules.frozen import EMPTY, freeze, thaw
from rules.plan import Model, TablePlan

_MISSING: Any = object()


def req_str(request: Mapping[str, Any], key: str, default: Any = _MISSING) -> Any:
    """Return the string argument ``key``; a missing one names what the action needs."""
    value = request.get(key)
    if value is None:
        if default is _MISSING:
            raise InvalidActionError(f"this action needs the argument {key!r}; "
                                     f"given: {', '.join(sorted(request)) or 'nothing'}")
        return default
    if not isinstance(value, str) or not value:
        raise InvalidActionError(f"argument {key!r} must be a non-empty string, got {value!r}")
    return value


def req_bool(request: Mapping[str, Any], key: str, default: bool = False) -> bool:
    """Return a yes/no argument (``true``/``false``, ``yes``/``no``, ``1``/``0``)."""
    value = request.get(key, default)
    if value is None:
        return default
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in ("true", "yes", "1", "oui", "on"):
        return True
    if text in ("false", "no", "0", "non", "off"):
        return False
    raise InvalidActionError(f"argument {key!r} must be true or false, got {value!r}")


def req_int(request: Mapping[str, Any], key: str, default: Any = _MISSING, *, minimum: int | None = None) -> Any:
    """Return an integer argument (a string of digits is accepted)."""
    value = request.get(key)
    if value is None:
        if default is _MISSING:
            raise InvalidActionError(f"this action needs the whole-number argument {key!r}")
        return default
    if isinstance(value, str) and re.fullmatch(r"\s*-?\d+\s*", value):
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidActionError(f"argument {key!r} must be a whole number, got {value!r}")
    if minimum is not None and value < minimum:
        raise InvalidActionError(f"argument {key!r} must be at least {minimum}, got {value}")
    return value


def req_list(request: Mapping[str, Any], key: str) -> list[str]:
    """Return a list of names given as a list or a comma-separated string (empty when absent)."""
    value = request.get(key)
    if value is None:
        return []
    if isinstance(value, str):
        return [v.strip() for v in value.split(",") if v.strip()]
    if isinstance(value, (list, tuple)) and all(isinstance(v, str) for v in value):
        return list(value)
    raise InvalidActionError(f"argument {key!r} must be a list of names, got {value!r}")


def req_choice(request: Mapping[str, Any], key: str, choices: Sequence[str], default: str) -> str:
    """Return an argument that must be one of ``choices``."""
    value = request.get(key, default)
    if value is None:
        return default
    if isinstance(value, bool):
        value = "yes" if value else "no"
    if value not in choices:
        raise InvalidActionError(f"argument {key!r} must be one of {', '.join(choices)}; got {value!r}")
    return str(value)


def centre_mm(a: Model, b: Model) -> float:
    """Return the distance between two base centres in mm."""
    return math.dist(a.position_mm, b.position_mm)


def edge_mm(a: Model, b: Model) -> float:
    """Return the distance between two base edges in mm (0 when the bases touch or overlap)."""
    return max(0.0, centre_mm(a, b) - (a.base_mm + b.base_mm) / 2.0)


def with_status(m: Model, *, add: Iterable[str] = (), remove: Iterable[str] = ()) -> Model:
    """Return ``m`` with states added and removed (order kept, no duplicates)."""
    gone = set(remove)
    status = [s for s in (m.status or ()) if s not in gone]
    for s in add:
        if s not in status:
            status.append(s)
    return dataclasses.replace(m, status=tuple(status) if status or m.status is not None else None)


def with_extra(obj: Any, **changes: Any) -> Any:
    """Return a model or unit with ``extra`` keys set (a value of ``None`` removes the key)."""
    extra = thaw(obj.extra) if obj.extra else {}
    for k, v in changes.items():
        if v is None:
            extra.pop(k, None)
        else:
            extra[k] = v
    return dataclasses.replace(obj, extra=freeze(extra) if extra else EMPTY)


def state_of(plan: TablePlan) -> dict[str, Any]:
    """Return a plain, mutable copy of the plan's free-form ``state``."""
    return thaw(plan.state) if plan.state else {}


def option(plan: TablePlan, name: str, default: Any) -> Any:
    """Return the game's option ``name`` (RULES-NOTES choices) or its default."""
    return (plan.options or EMPTY).get(name, default)


def fmt_len(value: float, unit: str, digits: int = 1) -> str:
    """Return ``"9.5 UD"``-style text, without a trailing ``.0``.

    >>> fmt_len(40.0, "cm"), fmt_len(9.54, "UD")
    ('40 cm', '9.5 UD')
    """
    text = f"{value:.{digits}f}".rstrip("0").rstrip(".")
    return f"{text} {unit}"


def remove_model(plan: TablePlan, model_id: str) -> TablePlan:
    """Return ``plan`` without a casualty; a unit that loses its leader keeps no leader (``None``).

    The game file requires a unit's leader to be one of its models, so the reference
    goes with the model; the players name a new leader by editing the game when the
    rule set asks for one.
    """
    after = plan.without_model(model_id)
    for unit in after.units:
        if unit.leader == model_id:
            after = after.with_unit(dataclasses.replace(unit, leader=None))
    return after
