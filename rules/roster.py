"""Rosters: what each side brings to the table (units, models, profiles, weapons).

One roster file per side, JSON (``.json``) or YAML (``.yaml`` / ``.yml``)::

    {"ruleset": "at-43",              # one of the five rule set ids (rules.rulesets.RULESET_IDS)
     "side": "UNA",                   # the player / army; becomes Unit.side in the game
     "name": "Sierra platoon",        # optional
     "notes": "free text",            # optional (where the numbers come from...)
     "units": [
       {"id": "sierra-alpha",         # unique in the game
        "name": "Sierra Alpha",       # optional
        "profile": "steel trooper",   # optional default profile of its models
        "kind": "infantry",           # optional, free (the rule set may read it)
        "leader": "sa-1",             # optional; must be one of the unit's models
        "rules": ["..."],             # optional special rules, checked by the rule set
        "extra": {...},               # optional rule-set data (state, attitudes...)
        "models": [
          {"id": "sa-1",              # unique in the game
           "marker_id": 12,           # optional ArUco id (4-249) the tracker sees; unique
           "base_mm": 25,             # base diameter in mm (> 0)
           "profile": "steel trooper",  # optional when the unit gives one
           "role": "leader",          # optional (leader, second, trooper, ...)
           "weapons": ["laser rifle"],  # optional; a name twice = two copies
           "rules": ["..."],          # optional model-level rules (traits), checked by the rule set
           "name": "...", "height_mm": 30, "extra": {...}}]}],   # optional
     "profiles": {"steel trooper": {...the rule set's stats...}},
     "weapons": {"laser rifle": {...the rule set's stats...}}}

:func:`load_roster` checks this common structure (every error names the file and
the field), then hands the roster to its rule set's ``validate_roster`` (in
``rules/rulesets/<name>/actions.py``), which refuses unknown weapons or rules, bad stats and
broken recruitment limits with a :class:`~rules.errors.RosterError` that says why.
:func:`merge_rosters` puts the rosters' units, models, profiles and weapons into a
:class:`~rules.plan.TablePlan`; a model takes its position from the model the
tracker already placed with the same marker id (or the same model id), else it
waits off the table (status ``"off-table"``, :data:`rules.plan.OFF_TABLE`, at a
position that means nothing) until the tracker places it; the geometry ignores it
until then (:mod:`rules.ontable`).

Examples
--------
>>> doc = {"ruleset": "at-43", "side": "UNA", "units": [{"id": "sa", "leader": "sa-1",
...        "models": [{"id": "sa-1", "marker_id": 12, "base_mm": 25, "profile": "trooper"}]}],
...        "profiles": {"trooper": {"protection": 5}}}
>>> r = parse_roster(doc, source="una.json", validate=False)
>>> r.units[0].models[0].marker_id
12
>>> parse_roster({**doc, "side": 3}, source="una.json", validate=False)
Traceback (most recent call last):
...
rules.errors.RosterError: una.json: side must be a non-empty string, got a number 3
"""

from __future__ import annotations

import dataclasses
import logging
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Mapping, NoReturn, Sequence, cast

from calibration.fields import Reader, names_param, os_reason, parse_json_text, source_param
from calibration.limits import load_yaml_bounded
from rules.errors import RosterError
from rules.frozen import EMPTY, freeze, thaw
from rules.plan import FIRST_MODEL_MARKER_ID, OFF_TABLE, Model, TablePlan, Unit

log = logging.getLogger(__name__)

LAST_MODEL_MARKER_ID = 249
_TOP_KEYS = ("ruleset", "side", "name", "notes", "units", "profiles", "weapons", "extra")
_UNIT_KEYS = ("id", "name", "profile", "kind", "leader", "rules", "models", "extra")
_MODEL_KEYS = ("id", "name", "marker_id", "base_mm", "profile", "role", "weapons", "rules",
               "height_mm", "extra")


@dataclass(frozen=True)
class RosterModel:
    """One figure of a roster: ids, base, profile, role, weapons and model-level rules."""

    model_id: str
    base_mm: float
    marker_id: int | None = None
    profile: str | None = None
    role: str | None = None
    weapons: tuple[str, ...] = ()
    rules: tuple[str, ...] = ()
    name: str | None = None
    height_mm: float | None = None
    extra: Mapping[str, Any] = field(default_factory=lambda: EMPTY)


@dataclass(frozen=True)
class RosterUnit:
    """One unit of a roster and its models, in file order."""

    unit_id: str
    models: tuple[RosterModel, ...]
    name: str | None = None
    profile: str | None = None
    kind: str | None = None
    leader: str | None = None
    rules: tuple[str, ...] = ()
    extra: Mapping[str, Any] = field(default_factory=lambda: EMPTY)

    def model(self, model_id: str) -> RosterModel:
        """Return the model ``model_id`` of this unit."""
        for m in self.models:
            if m.model_id == model_id:
                return m
        raise KeyError(model_id)


@dataclass(frozen=True)
class Roster:
    """A side's roster: rule set, side, units, and the stats of its profiles and weapons."""

    ruleset: str
    side: str
    units: tuple[RosterUnit, ...]
    profiles: Mapping[str, Any] = field(default_factory=lambda: EMPTY)
    weapons: Mapping[str, Any] = field(default_factory=lambda: EMPTY)
    name: str | None = None
    notes: str | None = None
    source: str = "roster"
    extra: Mapping[str, Any] = field(default_factory=lambda: EMPTY)

    def all_models(self) -> tuple[tuple[RosterUnit, RosterModel], ...]:
        """Return every ``(unit, model)`` pair in file order."""
        return tuple((u, m) for u in self.units for m in u.models)

    def profile_of(self, unit: RosterUnit, model: RosterModel) -> str | None:
        """Return the profile name of ``model`` (its own, else its unit's)."""
        return model.profile or unit.profile

    def fail(self, message: str, msg: str | None = None, **params: Any) -> NoReturn:
        """Raise a :class:`RosterError` naming this roster's file.

        ``msg`` (an id under ``roster.``) and ``params`` word it in French and English at the
        edges; the file is the parameter ``source``; the English ``message`` stays the fallback.
        """
        raise roster_error(self.source, message, msg, **params)


def roster_error(source: str, message: str, msg: str | None = None, **params: Any) -> RosterError:
    """Return the :class:`RosterError` ``"{source}: {message}"``, with message id ``roster.<msg>`` when given.

    >>> e = roster_error("una.json", "unit id 'a' is used twice", "unit_twice", unit="a")
    >>> str(e), e.msg_id, e.params["unit"]
    ("una.json: unit id 'a' is used twice", 'roster.unit_twice', 'a')
    """
    if msg is None:
        return RosterError(f"{source}: {message}")
    return RosterError(f"{source}: {message}", msg_id=f"roster.{msg}",
                       params={"source": source_param(source), **params})


# -- reading ---------------------------------------------------------------------------


def parse_roster(data: Any, *, source: str = "roster", validate: bool = True) -> Roster:
    """Validate a parsed roster document and return its :class:`Roster`.

    Parameters
    ----------
    data
        The parsed JSON / YAML document.
    source
        The file name used in error messages.
    validate
        Also run the rule set's own ``validate_roster`` (weapons, rules, limits).

    Raises
    ------
    RosterError
        Naming ``source`` and the field, on anything malformed or refused.
    """
    top = Reader(data, source=source, error=RosterError)
    top.only(_TOP_KEYS)
    # The JSON edge reaches the registry at call time: the rule-set packages import this module.
    from rules.rulesets import RULESET_IDS, find_ruleset

    ruleset = top.string("ruleset", choices=RULESET_IDS)
    units = tuple(_parse_unit(r) for r in top.children("units"))
    if not units:
        top.fail("must list at least one unit", "units", "no_units")
    roster = Roster(
        ruleset=ruleset, side=top.string("side"), units=units,
        profiles=_named_objects(top, "profiles"), weapons=_named_objects(top, "weapons"),
        name=top.string("name", None), notes=top.string("notes", None), source=source,
        extra=freeze(top.child("extra").data) if top.has("extra") else EMPTY,
    )
    _check_structure(roster)
    if validate:
        find_ruleset(ruleset).validate_roster(roster)
    return roster


def load_roster(path: str | Path, *, validate: bool = True) -> Roster:
    """Read a roster file (JSON, or YAML by its ``.yaml`` / ``.yml`` suffix) and validate it.

    Errors name the file and the field (:class:`RosterError`).
    """
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise roster_error(str(path), f"cannot read the roster file ({exc.strerror or exc})", "unreadable",
                           reason=os_reason(exc)) from None
    data = roster_data_from_text(text, source=str(path))
    return parse_roster(data, source=str(path), validate=validate)


def roster_data_from_text(text: str, *, source: str) -> Any:
    """Parse roster ``text``: YAML when ``source`` ends in .yaml or .yml, JSON otherwise.

    Errors name ``source`` with the line of a syntax error; the result still has to go
    through :func:`parse_roster`.
    """
    if source.lower().endswith((".yaml", ".yml")):  # aliases and deep nesting refused before expansion
        return load_yaml_bounded(text, source=source, error=RosterError)
    return parse_json_text(text, source=source, error=RosterError)


def _one_line(exc: Exception) -> str:
    return " ".join(str(exc).split())


def _named_objects(top: Reader, key: str) -> Mapping[str, Any]:
    if not top.has(key):
        return EMPTY
    child = top.child(key)
    for name in child.data:
        if not isinstance(name, str) or not name:
            child.fail(f"has a name {name!r} that is not a non-empty string", None, "bad_name",
                       {"name": repr(name)})
        child.child(name)  # each entry must be an object
    return cast(Mapping[str, Any], freeze(dict(child.data)))


def _strings(r: Reader, key: str) -> tuple[str, ...]:
    values = r.array(key, [])
    for i, v in enumerate(values):
        if not isinstance(v, str) or not v:
            r.fail(f"[{i}] must be a non-empty string, got {v!r}", key, "item_not_string",
                   {"index": i, "value": repr(v)[:60]})
    return tuple(values)


def _parse_model(r: Reader) -> RosterModel:
    r.only(_MODEL_KEYS)
    marker_id = r.integer("marker_id", None)
    if marker_id is not None and not FIRST_MODEL_MARKER_ID <= marker_id <= LAST_MODEL_MARKER_ID:
        r.fail(f"must be between {FIRST_MODEL_MARKER_ID} and {LAST_MODEL_MARKER_ID} "
               f"(ids 0-3 are the table corners), got {marker_id}", "marker_id", "marker_range",
               {"first": FIRST_MODEL_MARKER_ID, "last": LAST_MODEL_MARKER_ID, "value": str(marker_id)})
    return RosterModel(
        model_id=r.string("id"), base_mm=r.number("base_mm", positive=True), marker_id=marker_id,
        profile=r.string("profile", None), role=r.string("role", None),
        weapons=_strings(r, "weapons"), rules=_strings(r, "rules"), name=r.string("name", None),
        height_mm=r.number("height_mm", None, positive=True),
        extra=freeze(r.child("extra").data) if r.has("extra") else EMPTY,
    )


def _parse_unit(r: Reader) -> RosterUnit:
    r.only(_UNIT_KEYS)
    models = tuple(_parse_model(m) for m in r.children("models"))
    if not models:
        r.fail("must list at least one model", "models", "no_models")
    unit = RosterUnit(
        unit_id=r.string("id"), models=models, name=r.string("name", None),
        profile=r.string("profile", None), kind=r.string("kind", None),
        leader=r.string("leader", None), rules=_strings(r, "rules"),
        extra=freeze(r.child("extra").data) if r.has("extra") else EMPTY,
    )
    if unit.leader is not None and unit.leader not in {m.model_id for m in models}:
        r.fail(f"{unit.leader!r} is not a model of unit {unit.unit_id!r}; its models are: "
               f"{', '.join(m.model_id for m in models)}", "leader", "leader_not_in_unit",
               {"leader": unit.leader, "unit": unit.unit_id, "models": [m.model_id for m in models]})
    return unit


def _check_structure(roster: Roster) -> None:
    """Refuse duplicate ids, reused marker ids and profiles the roster does not define."""
    seen_units: set[str] = set()
    seen_models: dict[str, str] = {}
    markers: dict[int, str] = {}
    for unit in roster.units:
        if unit.unit_id in seen_units:
            roster.fail(f"unit id {unit.unit_id!r} is used twice; unit ids must be unique", "unit_twice",
                        unit=unit.unit_id)
        seen_units.add(unit.unit_id)
        for m in unit.models:
            if m.model_id in seen_models:
                roster.fail(f"model id {m.model_id!r} is used twice (units {seen_models[m.model_id]!r} "
                            f"and {unit.unit_id!r}); model ids must be unique", "model_twice",
                            model=m.model_id, first=seen_models[m.model_id], unit=unit.unit_id)
            seen_models[m.model_id] = unit.unit_id
            if m.marker_id is not None:
                if m.marker_id in markers:
                    roster.fail(f"marker id {m.marker_id} is given to both {markers[m.marker_id]!r} and "
                                f"{m.model_id!r}; each model needs its own marker", "marker_twice",
                                marker=str(m.marker_id), first=markers[m.marker_id], model=m.model_id)
                markers[m.marker_id] = m.model_id
            profile = roster.profile_of(unit, m)
            if profile is not None and profile not in roster.profiles:
                roster.fail(f"model {m.model_id!r} of unit {unit.unit_id!r} has profile {profile!r}, "
                            f"which the roster does not define; profiles are: "
                            f"{', '.join(sorted(roster.profiles)) or '(none)'}", "undefined_profile",
                            model=m.model_id, unit=unit.unit_id, profile=profile, known=_known(roster.profiles))


# -- helpers for the rule sets' validate_roster -----------------------------------------------


def require_known_weapons(roster: Roster, builtin: Iterable[str] = ()) -> None:
    """Refuse a model carrying a weapon neither the roster nor the rule set defines."""
    known = set(roster.weapons) | set(builtin)
    for unit, m in roster.all_models():
        for w in m.weapons:
            if w not in known:
                roster.fail(f"model {m.model_id!r} of unit {unit.unit_id!r} carries unknown weapon "
                            f"{w!r}; known weapons are: {', '.join(sorted(known)) or '(none)'}", "weapon_not_listed",
                            model=m.model_id, unit=unit.unit_id, weapon=w, known=_known(known))


def require_known_rules(roster: Roster, known: Iterable[str], *, what: str = "rule") -> None:
    """Refuse a unit or model rule outside ``known`` (exact names, as the rule set spells them)."""
    known_set = set(known)
    for unit in roster.units:
        places = [(f"unit {unit.unit_id!r}", "unit", unit.unit_id, unit.rules)]
        places += [(f"model {m.model_id!r}", "model", m.model_id, m.rules) for m in unit.models]
        for where, kind, ident, rules in places:
            for rule in rules:
                if rule not in known_set:
                    roster.fail(f"{where} has unknown {what} {rule!r} for {roster.ruleset}; known "
                                f"{what}s are: {', '.join(sorted(known_set)) or '(none)'}", f"unknown_rule_{kind}",
                                id=ident, rule=rule, what=what, ruleset=roster.ruleset, known=_known(known_set))


def require_stats(roster: Roster, table: str, name: str, stats: Mapping[str, Any],
                  needed: Sequence[tuple[str, type | tuple[type, ...]]]) -> None:
    """Refuse an entry of ``profiles``/``weapons`` that lacks a stat or gives it the wrong type."""
    for key, kind in needed:
        if key not in stats:
            roster.fail(f"{table}.{name} lacks {key!r} (needed by {roster.ruleset})", "stat_missing",
                        table=table, name=name, key=key, ruleset=roster.ruleset)
        value = stats[key]
        if isinstance(value, bool) or not isinstance(value, kind):
            roster.fail(f"{table}.{name}.{key} must be {_kind_name(kind)}, got {value!r}", "stat_type",
                        table=table, name=name, key=key, value=repr(value)[:60],
                        kind=_kind_param(kind))


_KIND_IDS = {int: "integer", float: "number", str: "string", bool: "boolean"}


def _known(names: Iterable[str]) -> Any:
    """A list of known names as a message parameter (``-`` for none)."""
    return names_param(sorted(names))


def _kind_param(kind: type | tuple[type, ...]) -> Any:
    """The wanted type(s) of a stat as a message parameter ("an integer", "an integer or a number")."""
    kinds = [{"msg": f"file.kind.{_KIND_IDS.get(k, 'other')}", "params": {"name": k.__name__}}
             for k in (kind if isinstance(kind, tuple) else (kind,))]
    out = kinds[0]
    for more in kinds[1:]:
        out = {"msg": "file.kind.either", "params": {"one": out, "other": more}}
    return out


def _kind_name(kind: type | tuple[type, ...]) -> str:
    kinds = kind if isinstance(kind, tuple) else (kind,)
    names = {int: "an integer", float: "a number", str: "a string", bool: "true or false"}
    return " or ".join(names.get(k, k.__name__) for k in kinds)


# -- into the game ---------------------------------------------------------------------------


def merge_rosters(plan: TablePlan, rosters: Sequence[Roster]) -> TablePlan:
    """Return ``plan`` with the rosters' units, models, profiles and weapons added.

    A roster model takes the position, facing and status of the plan's model with
    the same marker id (what the tracker saw) or the same model id, which it
    replaces (one still off the table stays so); otherwise it is marked ``"off-table"``
    (its position, (0, 0), means nothing) until the tracker or the set-up page places it, and no
    question counts it. Units the plan already has with the same id are replaced by the roster's.

    Raises
    ------
    RosterError
        A roster of another rule set, a unit id given by two rosters, or a profile or
        weapon name defined differently by two rosters.
    """
    units = list(plan.units)
    models = list(plan.models)
    profiles = dict(thaw(plan.profiles or {}))
    weapons = dict(thaw(plan.weapons or {}))
    seen_units: dict[str, str] = {}
    seen_markers: dict[int, tuple[str, str]] = {}
    for roster in rosters:
        for _, rm in roster.all_models():
            if rm.marker_id is not None:
                if rm.marker_id in seen_markers:
                    first_model, first_source = seen_markers[rm.marker_id]
                    roster.fail(f"marker id {rm.marker_id} of model {rm.model_id!r} is also used by "
                                f"model {first_model!r} of {first_source}; each model needs its own marker",
                                "marker_in_two", marker=str(rm.marker_id), model=rm.model_id, first=first_model,
                                first_source=source_param(first_source))
                seen_markers[rm.marker_id] = (rm.model_id, roster.source)
        if roster.ruleset != plan.ruleset:
            roster.fail(f"is a {roster.ruleset} roster but the game is {plan.ruleset}", "other_ruleset",
                        ruleset=roster.ruleset, game=plan.ruleset)
        _merge_table(roster, "profiles", roster.profiles, profiles)
        _merge_table(roster, "weapons", roster.weapons, weapons)
        for ru in roster.units:
            if ru.unit_id in seen_units:
                roster.fail(f"unit id {ru.unit_id!r} is also used by {seen_units[ru.unit_id]}", "unit_in_two",
                            unit=ru.unit_id, first_source=source_param(seen_units[ru.unit_id]))
            seen_units[ru.unit_id] = roster.source
            unit = Unit(unit_id=ru.unit_id, side=roster.side, name=ru.name, leader=ru.leader,
                        profile=ru.profile, kind=ru.kind, rules=ru.rules or None, extra=ru.extra)
            units = [u for u in units if u.unit_id != ru.unit_id] + [unit]
            for rm in ru.models:
                placed = _placed(models, rm)
                if placed is not None:
                    models.remove(placed)
                models.append(_model(ru, rm, placed))
    unit_ids = {u.unit_id for u in units}
    orphans = [m.model_id for m in models if m.unit_id not in unit_ids]
    if orphans:
        raise RosterError(f"models {', '.join(orphans)} belong to no unit after merging the rosters",
                          msg_id="roster.orphans", params={"models": orphans})
    return dataclasses.replace(plan, units=tuple(units), models=tuple(models),
                               profiles=freeze(profiles), weapons=freeze(weapons))


def _merge_table(roster: Roster, key: str, mine: Mapping[str, Any], into: dict[str, Any]) -> None:
    for name, stats in mine.items():
        stats = thaw(stats)
        if name in into and into[name] != stats:
            roster.fail(f"{key}.{name} differs from the {name!r} already in the game; "
                        f"give one of them another name", "differs", table=key, name=name)
        into[name] = stats


def _placed(models: list[Model], rm: RosterModel) -> Model | None:
    for m in models:
        if rm.marker_id is not None and m.marker_id == rm.marker_id:
            return m
    for m in models:
        if m.model_id == rm.model_id:
            return m
    return None


def _model(ru: RosterUnit, rm: RosterModel, placed: Model | None) -> Model:
    extra = dict(thaw(placed.extra)) if placed is not None else {}
    extra.update(thaw(rm.extra))
    if rm.rules:
        extra["rules"] = list(rm.rules)
    return Model(
        model_id=rm.model_id, unit_id=ru.unit_id,
        position_mm=placed.position_mm if placed is not None else (0.0, 0.0),
        base_mm=rm.base_mm, marker_id=rm.marker_id,
        facing_deg=placed.facing_deg if placed is not None else None,
        height_mm=rm.height_mm if rm.height_mm is not None else (placed.height_mm if placed else None),
        profile=rm.profile or ru.profile, status=placed.status if placed is not None else (OFF_TABLE,),
        name=rm.name, role=rm.role, weapons=rm.weapons or None, extra=freeze(extra),
    )


def model_rules(model: Model) -> tuple[str, ...]:
    """Return the model-level rules (traits) a roster gave ``model`` (kept in ``model.extra``)."""
    return tuple(model.extra.get("rules", ()))
