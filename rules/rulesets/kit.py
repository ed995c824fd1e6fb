"""Small helpers shared by the combat modules: request arguments, special rules, rosters, state edits.

One version of each helper for the five rule sets (AT-43, Feu à Volonté, Firefight,
High Fire, Star Wars), all pure functions over the frozen plan. Distances are not
computed here: they come from :mod:`rules.measure` (``model_distance_mm``,
``point_distance_mm``), so a resolution measures exactly what ``tabletracker ask``
reports; :func:`measure_how` only reads which of the two measures (base edge or
centre, docs/rule-choices.md: each rule set's choice 1) the game's rule set uses. Sight and cover go through
the geometry modules.

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
>>> parse_rule("Tough(3)"), parse_rule("Hero")
(('Tough', 3), ('Hero', None))
>>> threshold(4)
'4+'
"""

from __future__ import annotations

import dataclasses
import re
from typing import Any, Callable, Iterable, Mapping, NoReturn, Protocol, Sequence, cast

from calibration.fields import names_param
from rules.errors import InvalidActionError, RosterError
from rules.frozen import EMPTY, freeze, parse_bool, thaw
from rules.plan import Model, TablePlan, Unit
from rules.roster import roster_error

_MISSING: Any = object()
_RULE_RE = re.compile(r"^\s*([^()]+?)\s*(?:\(\s*\+?(-?\d+)\s*\))?\s*$")


# -- request arguments (CLI / HTTP) ---------------------------------------------------------

def req_str(request: Mapping[str, Any], key: str, default: Any = _MISSING) -> Any:
    """Return the string argument ``key``; a missing one (absent or null) names what the action needs.

    >>> req_str({"unit": "u1"}, "unit"), req_str({}, "weapon", default=None)
    ('u1', None)
    >>> req_str({"unit": "u1"}, "target")
    Traceback (most recent call last):
    ...
    rules.errors.InvalidActionError: this action needs the argument 'target'; given: unit
    """
    value = request.get(key)
    if value is None:
        if default is _MISSING:
            raise InvalidActionError(f"this action needs the argument {key!r}; "
                                     f"given: {', '.join(sorted(request)) or 'nothing'}", msg_id="request.missing",
                                     params={"name": key, "given": sorted(request) or "-"})
        return default
    if not isinstance(value, str) or not value:
        raise InvalidActionError(f"argument {key!r} must be a non-empty string, got {value!r}",
                                 msg_id="request.not_text", params={"name": key, "got": repr(value)})
    return value


def req_bool(request: Mapping[str, Any], key: str, default: bool = False) -> bool:
    """Return a yes/no argument, read by :func:`rules.frozen.parse_bool` (the rules core's one reading).

    Absent means ``default``; anything else (null, ``"maybe"``, 2) is refused.

    >>> req_bool({"cover": "Yes"}, "cover"), req_bool({}, "cover", True), req_bool({"cover": 0}, "cover")
    (True, True, False)
    >>> req_bool({"cover": "maybe"}, "cover")
    Traceback (most recent call last):
    ...
    rules.errors.InvalidActionError: argument 'cover' must be true or false (yes/no, oui/non, 1/0), got 'maybe'
    """
    value = request.get(key, default)
    parsed = parse_bool(value)
    if parsed is not None:
        return parsed
    raise InvalidActionError(f"argument {key!r} must be true or false (yes/no, oui/non, 1/0), got {value!r}",
                             msg_id="request.not_bool", params={"name": key, "got": repr(value)})


def req_int(request: Mapping[str, Any], key: str, default: Any = _MISSING, *, minimum: int | None = None) -> Any:
    """Return a whole-number argument (a string of digits is accepted), at least ``minimum`` when given.

    >>> req_int({"dice": " 3 "}, "dice"), req_int({}, "dice", 1)
    (3, 1)
    >>> req_int({"dice": 0}, "dice", 1, minimum=1)
    Traceback (most recent call last):
    ...
    rules.errors.InvalidActionError: argument 'dice' must be at least 1, got 0
    """
    value = request.get(key)
    if value is None:
        if default is _MISSING:
            raise InvalidActionError(f"this action needs the whole-number argument {key!r}",
                                     msg_id="request.missing_whole", params={"name": key})
        return default
    if isinstance(value, str) and re.fullmatch(r"\s*-?\d+\s*", value):
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidActionError(f"argument {key!r} must be a whole number, got {value!r}",
                                 msg_id="request.not_whole", params={"name": key, "got": repr(value)})
    if minimum is not None and value < minimum:
        raise InvalidActionError(f"argument {key!r} must be at least {minimum}, got {value}",
                                 msg_id="request.below_minimum", params={"name": key, "minimum": minimum, "got": value})
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
    raise InvalidActionError(f"argument {key!r} must be a list of names, got {value!r}", msg_id="request.not_list",
                             params={"name": key, "got": repr(value)})


def req_choice(request: Mapping[str, Any], key: str, choices: Sequence[str], default: str) -> str:
    """Return an argument that must be one of ``choices``."""
    value = request.get(key, default)
    if value is None:
        return default
    if isinstance(value, bool):
        value = "yes" if value else "no"
    if value not in choices:
        raise InvalidActionError(f"argument {key!r} must be one of {', '.join(choices)}; got {value!r}",
                                 msg_id="request.not_choice",
                                 params={"name": key, "choices": list(choices), "got": repr(value)})
    return str(value)


# -- special rules ("Name" or "Name(X)") --------------------------------------------------------

def parse_rule(text: str) -> tuple[str, int | None]:
    """Split ``"Name(X)"`` into ``("Name", X)``; ``X`` is ``None`` when absent."""
    m = _RULE_RE.match(text)
    if not m:
        raise InvalidActionError(f"cannot read the special rule {text!r}; write Name or Name(X)",
                                 msg_id="roster.bad_rule", params={"rule": text})
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


# -- rosters -----------------------------------------------------------------------------------

class RosterFail(Protocol):
    """``fail(text, msg=None, **params)``: raise the roster's refusal (``text`` in English, ``roster.<msg>``)."""

    def __call__(self, text: str, msg: str | None = None, **params: Any) -> NoReturn: ...


def roster_fail(roster: Any) -> RosterFail:
    """Return ``fail(text, msg=None, **params)``, raising :class:`RosterError` with the roster's file name in front.

    With ``msg`` the error carries the message id ``roster.<msg>`` and ``params`` (plus the file,
    ``source``), worded in French and English at the edges (:func:`rules.roster.roster_error`).
    """
    def fail(text: str, msg: str | None = None, **params: Any) -> NoReturn:
        raise roster_error(roster.source, text, msg, **params)
    return fail


def ruleset_roster_fail(roster: Any, refused: str) -> Callable[..., NoReturn]:
    """Return a rule set's ``fail(text, msg_id=None, params=None, **shared)`` for its own roster checks.

    With a full message id (``"firefight.roster.x"``) and ``params`` it raises that message; the
    shared checks of this module pass their short id (``roster.<id>``) and keyword parameters;
    a text without an id is told inside the rule set's general message ``refused`` naming the file.
    """
    def fail(text: str, msg_id: str | None = None, params: Mapping[str, Any] | None = None,
             **shared: Any) -> NoReturn:
        if msg_id is not None and "." not in msg_id:  # a shared check: its roster.<id>
            raise roster_error(roster.source, text, msg_id, **shared)
        said = {"file": str(roster.source), **(params or {})} if msg_id else {"file": str(roster.source), "text": text}
        raise RosterError(f"{roster.source}: {text}", msg_id=msg_id or refused, params=said)
    return fail


def check_whole_stats(fail: RosterFail, where: str, entry: Mapping[str, Any], keys: Sequence[str], *,
                      minimum: int, maximum: int | None = None, expect: str, optional: bool = False,
                      nullable: bool = False) -> None:
    """Refuse a roster entry (a profile or a weapon) whose ``keys`` are not whole numbers in range.

    The message is ``"{where}.{key} must be {expect}, got {value!r}"`` (id ``roster.whole_stat``:
    a whole number from ``minimum``, up to ``maximum`` when given); ``optional``: an absent key
    is accepted, ``nullable``: a null value is accepted.

    >>> def show(text: str, msg: str | None = None, **params: Any) -> None:
    ...     print(text, msg, params["least"], params["most"])
    >>> check_whole_stats(show, "profiles.p", {"QL": 3, "AR": -1}, ("QL", "AR"), minimum=0,
    ...                   expect="an integer >= 0")
    profiles.p.AR must be an integer >= 0, got -1 whole_stat 0 -
    """
    for key in keys:
        v = entry.get(key, _MISSING)
        if (v is _MISSING and optional) or (v is None and nullable):
            continue
        v = None if v is _MISSING else v
        if isinstance(v, bool) or not isinstance(v, int) or v < minimum or (maximum is not None and v > maximum):
            fail(f"{where}.{key} must be {expect}, got {v!r}", "whole_stat" if maximum is None else "whole_stat_range",
                 where=where, key=key, expect=expect, least=minimum, most=maximum if maximum is not None else "-",
                 value=repr(v)[:60])


def check_model_kit(roster: Any, unit: Any, m: Any, fail: RosterFail) -> None:
    """Refuse a roster model carrying a weapon the roster does not list, or without a profile."""
    for w in m.weapons:
        if w not in roster.weapons:
            fail(f"model {m.model_id!r} of unit {unit.unit_id!r} carries unknown weapon {w!r}; "
                 f"weapons are: {', '.join(sorted(roster.weapons)) or '(none)'}", "weapon_not_in_roster",
                 model=m.model_id, unit=unit.unit_id, weapon=w, known=names_param(sorted(roster.weapons)))
    if roster.profile_of(unit, m) is None:
        fail(f"model {m.model_id!r} of unit {unit.unit_id!r} has no profile", "no_profile",
             model=m.model_id, unit=unit.unit_id)


# -- the plan: options, sides, profiles, weapons -------------------------------------------------

def option(plan: TablePlan, name: str, default: Any) -> Any:
    """Return the game's option ``name`` (docs/rule-choices.md) or its default."""
    return (plan.options or EMPTY).get(name, default)


def measure_how(plan: TablePlan) -> str:
    """Return how the rule set's distances are taken in this game: ``"edge"`` (default) or ``"centre"``.

    Each rule set's choice 1 in docs/rule-choices.md, its ``measure`` option (``plan.options``); the
    answer is the ``how`` of :func:`rules.measure.model_distance_mm`.
    """
    opts = plan.options or {}
    if "measure" not in opts:
        return "edge"
    from rules.rulesets import find_ruleset  # the geometry's option table

    return str(find_ruleset(plan.ruleset).option("measure").parse(opts["measure"]))


def sides_of(plan: TablePlan) -> list[str]:
    """Return the sides in order of first appearance among the units."""
    out: list[str] = []
    for u in plan.units:
        if u.side not in out:
            out.append(u.side)
    return out


def other_side(plan: TablePlan, side: str) -> str:
    """Return the other side of a two-side game."""
    sides = sides_of(plan)
    others = [s for s in sides if s != side]
    if len(others) != 1:
        raise InvalidActionError(f"this action needs exactly two sides; the game has {', '.join(sides) or 'none'}",
                                 msg_id="request.two_sides", params={"sides": sides or "-"})
    return others[0]


def profile_of(plan: TablePlan, name: str | None) -> Mapping[str, Any]:
    """Return the profile ``name`` from the plan's profiles (empty mapping for ``None``)."""
    if name is None:
        return EMPTY
    profiles = plan.profiles or EMPTY
    if name not in profiles:
        raise InvalidActionError(
            f"profile {name!r} is not in the game's profiles; known: {', '.join(sorted(profiles)) or '(none)'}"
            " - load the side's roster into the game file",
            msg_id="roster.unknown_profile", params={"name": name, "known": sorted(profiles) or "-"})
    return cast(Mapping[str, Any], profiles[name])


def weapon_of(plan: TablePlan, name: str) -> Mapping[str, Any]:
    """Return the weapon ``name`` from the plan's weapons."""
    weapons = plan.weapons or EMPTY
    if name not in weapons:
        raise InvalidActionError(
            f"weapon {name!r} is not in the game's weapons; known: {', '.join(sorted(weapons)) or '(none)'}",
            msg_id="roster.unknown_weapon", params={"name": name, "known": sorted(weapons) or "-"})
    return cast(Mapping[str, Any], weapons[name])


def unit_rules(plan: TablePlan, unit: Unit, model: Model | None = None) -> list[str]:
    """Return the special rules of a model: its unit's, its profile's and its own (roster traits)."""
    rules = list(unit.rules or ())
    profile = profile_of(plan, model.profile if model and model.profile else unit.profile)
    rules.extend(profile.get("rules", ()))
    if model is not None:
        rules.extend(model.extra.get("rules", ()))
    return rules


# -- state, statuses and extras --------------------------------------------------------------------

def state_of(plan: TablePlan) -> dict[str, Any]:
    """Return a plain, mutable copy of the plan's free-form ``state``."""
    return thaw(plan.state) if plan.state else {}


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


def fmt_len(value: float, unit: str, digits: int = 1) -> str:
    """Return ``"9.5 UD"``-style text, without a trailing ``.0``.

    >>> fmt_len(40.0, "cm"), fmt_len(9.54, "UD")
    ('40 cm', '9.5 UD')
    """
    text = f"{value:.{digits}f}".rstrip("0").rstrip(".")
    return f"{text} {unit}"
