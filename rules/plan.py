"""The table plan: the one value that crosses package lines (docs/game-file.md, docs/units.md).

A :class:`TablePlan` is frozen; a change makes a new plan (``dataclasses.replace``
or the ``with_*`` helpers). Optional fields are ``None`` when the game file does not
give them, so a game file round-trips unchanged through :func:`parse_game` and
:func:`game_to_dict`. Base footprints are derived by the geometry modules, never stored.

Examples
--------
>>> doc = {"ruleset": "firefight", "table": {"width_mm": 1219.2, "depth_mm": 1219.2},
...        "units": [{"id": "u1", "side": "A", "leader": "m1"}],
...        "models": [{"id": "m1", "unit": "u1", "x_mm": 100, "y_mm": 200, "base_mm": 25}]}
>>> plan = parse_game(doc)
>>> plan.model("m1").position_mm
(100.0, 200.0)
>>> plan.side_of("m1")
'A'
>>> game_to_dict(plan) == doc
True
>>> plan.model("m9")
Traceback (most recent call last):
...
rules.errors.InvalidActionError: no model 'm9' in this game; models are: m1
"""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping, cast

from calibration.fields import Reader, names_param, read_json_file
from calibration.limits import check_game_tree
from rules.errors import GameFileError, InvalidActionError
from rules.frozen import EMPTY, FrozenDict, freeze, thaw

TERRAIN_SHAPES = ("area", "line")
FIRST_MODEL_MARKER_ID = 4
OFF_TABLE = "off-table"  # Model.status of a roster figure the tracker has not placed yet (rules.ontable)


@dataclass(frozen=True)
class Table:
    """The play area in mm; x toward corner marker 1, y toward corner marker 3."""

    width_mm: float
    depth_mm: float


@dataclass(frozen=True)
class Unit:
    """A unit (or a lone figure's own unit). ``leader`` is a model id."""

    unit_id: str
    side: str
    name: str | None = None
    leader: str | None = None
    profile: str | None = None
    kind: str | None = None
    rules: tuple[str, ...] | None = None
    extra: Mapping[str, Any] = field(default_factory=lambda: EMPTY)  # rule-set data (state, counters); free-form JSON

    def __post_init__(self) -> None:
        _freeze_fields(self, tuples=("rules",), mappings=("extra",))


@dataclass(frozen=True)
class Model:
    """A round base of diameter ``base_mm`` centred on ``position_mm`` (table mm)."""

    model_id: str
    unit_id: str
    position_mm: tuple[float, float]
    base_mm: float
    marker_id: int | None = None
    facing_deg: float | None = None
    height_mm: float | None = None
    profile: str | None = None
    status: tuple[str, ...] | None = None
    name: str | None = None
    role: str | None = None
    weapons: tuple[str, ...] | None = None
    # rule-set data (wounds, ammunition...); free-form JSON
    extra: Mapping[str, Any] = field(default_factory=lambda: EMPTY)
    #: Height of the ground the base stands on above the table top, mm (a building's floor, a hill);
    #: ``None`` = on the table (0). See docs/heights.md. ``height_mm`` is the figure's own height.
    elevation_mm: float | None = None

    def __post_init__(self) -> None:
        _freeze_fields(self, tuples=("status", "weapons"), mappings=("extra",), points=("position_mm",))

    @property
    def x_mm(self) -> float:
        return self.position_mm[0]

    @property
    def y_mm(self) -> float:
        return self.position_mm[1]

    def has_status(self, status: str) -> bool:
        """Return whether ``status`` (e.g. ``"prone"``) is among the model's states."""
        return status in (self.status or ())

    @property
    def on_table(self) -> bool:
        """Whether the figure stands on the table (``False`` while its status holds ``"off-table"``).

        >>> Model("m", "u", (0.0, 0.0), 25.0, status=(OFF_TABLE,)).on_table
        False
        """
        return not self.has_status(OFF_TABLE)

    def placed_at(self, position_mm: tuple[float, float], facing_deg: float | None = None) -> "Model":
        """Return this model standing at ``position_mm`` (and ``facing_deg`` when given), no longer off the table.

        >>> m = Model("m", "u", (0.0, 0.0), 25.0, status=(OFF_TABLE,)).placed_at((120, 80))
        >>> m.position_mm, m.status, m.on_table
        ((120.0, 80.0), None, True)
        """
        status = tuple(s for s in (self.status or ()) if s != OFF_TABLE)
        return dataclasses.replace(
            self, position_mm=(float(position_mm[0]), float(position_mm[1])),
            facing_deg=self.facing_deg if facing_deg is None else facing_deg,
            status=status or (None if self.status is None or OFF_TABLE in self.status else status))


@dataclass(frozen=True)
class Terrain:
    """A terrain piece: an ``area`` (closed polygon) or a ``line`` (polyline), in mm."""

    terrain_id: str
    kind: str
    shape: str
    points_mm: tuple[tuple[float, float], ...]
    height_mm: float | None = None
    name: str | None = None
    extra: Mapping[str, Any] = field(default_factory=lambda: EMPTY)

    def __post_init__(self) -> None:
        _freeze_fields(self, mappings=("extra",))
        if type(self.points_mm) is not tuple or any(type(p) is not tuple for p in self.points_mm):
            object.__setattr__(self, "points_mm", tuple((float(x), float(y)) for x, y in self.points_mm))


@dataclass(frozen=True)
class Objective:
    """An objective marker at ``position_mm``."""

    objective_id: str
    position_mm: tuple[float, float]
    name: str | None = None
    extra: Mapping[str, Any] = field(default_factory=lambda: EMPTY)

    def __post_init__(self) -> None:
        _freeze_fields(self, mappings=("extra",), points=("position_mm",))


@dataclass(frozen=True)
class TablePlan:
    """A game on the plan: rule set, table, units, models, terrain, objectives.

    ``profiles`` (roster stats by profile name), ``weapons`` (weapon stats by name), ``options`` (the rule set's named
    choices, docs/rule-choices.md) and ``state`` (turn, activations, scores) are free-form
    frozen JSON read by the rule sets.
    """

    ruleset: str
    table: Table
    units: tuple[Unit, ...] = ()
    models: tuple[Model, ...] = ()
    terrain: tuple[Terrain, ...] = ()
    objectives: tuple[Objective, ...] = ()
    name: str | None = None
    profiles: Mapping[str, Any] | None = None
    weapons: Mapping[str, Any] | None = None
    options: Mapping[str, Any] | None = None
    state: Mapping[str, Any] | None = None
    extra: Mapping[str, Any] = field(default_factory=lambda: EMPTY)

    def __post_init__(self) -> None:
        _freeze_fields(self, tuples=("units", "models", "terrain", "objectives"),
                       mappings=("profiles", "weapons", "options", "state", "extra"))

    # -- look-ups --------------------------------------------------------------
    def model(self, model_id: str) -> Model:
        """Return the model ``model_id``; :class:`InvalidActionError` names the known ones."""
        for m in self.models:
            if m.model_id == model_id:
                return m
        raise InvalidActionError(
            f"no model {model_id!r} in this game; models are: {_listing(m.model_id for m in self.models)}",
            msg_id="ids.no_model", params={"ident": model_id, "known": [m.model_id for m in self.models] or "-"})

    def unit(self, unit_id: str) -> Unit:
        """Return the unit ``unit_id``; :class:`InvalidActionError` names the known ones."""
        for u in self.units:
            if u.unit_id == unit_id:
                return u
        raise InvalidActionError(
            f"no unit {unit_id!r} in this game; units are: {_listing(u.unit_id for u in self.units)}",
            msg_id="ids.no_unit", params={"ident": unit_id, "known": [u.unit_id for u in self.units] or "-"})

    def terrain_piece(self, terrain_id: str) -> Terrain:
        """Return the terrain piece ``terrain_id``."""
        for t in self.terrain:
            if t.terrain_id == terrain_id:
                return t
        raise InvalidActionError(
            f"no terrain {terrain_id!r} in this game; terrain is: {_listing(t.terrain_id for t in self.terrain)}",
            msg_id="ids.no_terrain", params={"ident": terrain_id, "known": [t.terrain_id for t in self.terrain] or "-"})

    def objective(self, objective_id: str) -> Objective:
        """Return the objective ``objective_id``."""
        for o in self.objectives:
            if o.objective_id == objective_id:
                return o
        raise InvalidActionError(
            f"no objective {objective_id!r}; objectives are: {_listing(o.objective_id for o in self.objectives)}",
            msg_id="ids.no_objective",
            params={"ident": objective_id, "known": [o.objective_id for o in self.objectives] or "-"})

    def models_of(self, unit_id: str) -> tuple[Model, ...]:
        """Return the models of unit ``unit_id`` in game-file order."""
        self.unit(unit_id)
        return tuple(m for m in self.models if m.unit_id == unit_id)

    def side_of(self, model_id: str) -> str:
        """Return the side (player) of model ``model_id``."""
        return self.unit(self.model(model_id).unit_id).side

    def leader_of(self, unit_id: str) -> Model | None:
        """Return the leader model of ``unit_id``, or ``None`` when it has none on the table."""
        leader = self.unit(unit_id).leader
        for m in self.models:
            if m.model_id == leader and m.unit_id == unit_id:
                return m
        return None

    def model_by_marker(self, marker_id: int) -> Model | None:
        """Return the model carrying fiducial ``marker_id``, if any."""
        for m in self.models:
            if m.marker_id == marker_id:
                return m
        return None

    # -- changes (new plans) -------------------------------------------------------
    def with_model(self, model: Model) -> "TablePlan":
        """Return a plan where the model with ``model.model_id`` is replaced by ``model``."""
        self.model(model.model_id)
        return dataclasses.replace(
            self, models=tuple(model if m.model_id == model.model_id else m for m in self.models)
        )

    def without_model(self, model_id: str) -> "TablePlan":
        """Return a plan without model ``model_id`` (a casualty removed from the table).

        A unit whose leader it was keeps no leader (``None``): the game file requires a
        leader to be one of the unit's models, so the reference goes with the model.
        """
        self.model(model_id)
        units = tuple(dataclasses.replace(u, leader=None) if u.leader == model_id else u
                      for u in self.units)
        return dataclasses.replace(self, units=units,
                                   models=tuple(m for m in self.models if m.model_id != model_id))

    def with_unit(self, unit: Unit) -> "TablePlan":
        """Return a plan where the unit with ``unit.unit_id`` is replaced by ``unit``."""
        self.unit(unit.unit_id)
        return dataclasses.replace(
            self, units=tuple(unit if u.unit_id == unit.unit_id else u for u in self.units)
        )

    def with_state(self, state: Mapping[str, Any]) -> "TablePlan":
        """Return a plan with a new free-form ``state``."""
        return dataclasses.replace(self, state=freeze(thaw(state)))


def _freeze_fields(obj: Any, *, tuples: tuple[str, ...] = (), mappings: tuple[str, ...] = (),
                   points: tuple[str, ...] = ()) -> None:
    """Freeze what a record was given: lists to tuples, dicts to hashable read-only mappings.

    A frozen dataclass only stops reassignment; this makes the values inside immutable too,
    so a caller's list or dict changed later cannot change a plan, and plans hash.
    Already-frozen values are kept as they are (``dataclasses.replace`` stays cheap).
    """
    for name in tuples:
        value = getattr(obj, name)
        if value is not None and type(value) is not tuple:
            object.__setattr__(obj, name, tuple(value))
    for name in mappings:
        value = getattr(obj, name)
        if value is not None and not isinstance(value, FrozenDict):
            object.__setattr__(obj, name, freeze(value))
    for name in points:
        value = getattr(obj, name)
        if type(value) is not tuple or len(value) != 2 or type(value[0]) is not float or type(value[1]) is not float:
            object.__setattr__(obj, name, (float(value[0]), float(value[1])))


def _listing(ids: Any) -> str:
    ids = list(ids)
    return ", ".join(ids) if ids else "(none)"


# -- the game file ---------------------------------------------------------------

_TOP_KEYS = ("ruleset", "table", "units", "models", "terrain", "objectives", "name",
             "profiles", "weapons", "options", "state", "extra")
_UNIT_KEYS = ("id", "side", "name", "leader", "profile", "kind", "rules", "extra")
_MODEL_KEYS = ("id", "unit", "marker_id", "x_mm", "y_mm", "base_mm", "facing_deg",
               "height_mm", "profile", "status", "name", "role", "weapons", "extra", "elevation_mm")
_TERRAIN_KEYS = ("id", "kind", "shape", "points_mm", "height_mm", "name", "extra")
_OBJECTIVE_KEYS = ("id", "x_mm", "y_mm", "name", "extra")


def parse_game(data: Any, *, source: str = "game file") -> TablePlan:
    """Validate a parsed game document and return its :class:`TablePlan`.

    Raises :class:`GameFileError` naming ``source`` and the field on an unknown key,
    a wrong type, a missing table size, a duplicate id or a dangling reference.
    """
    check_game_tree(data, source=source, error=GameFileError)  # sizes, depth, finite numbers (issue 12)
    top = Reader(data, source=source, error=GameFileError)
    top.only(_TOP_KEYS)
    # The JSON edge reaches the registry at call time (rules.rulesets imports this module).
    from rules.rulesets import RULESET_IDS

    ruleset = top.string("ruleset", choices=RULESET_IDS)
    t = top.child("table")
    t.only(("width_mm", "depth_mm"))
    table = Table(t.number("width_mm", positive=True), t.number("depth_mm", positive=True))
    units = tuple(_parse_unit(r) for r in top.children("units", []))
    models = tuple(_parse_model(r) for r in top.children("models", []))
    terrain = tuple(_parse_terrain(r) for r in top.children("terrain", []))
    objectives = tuple(
        Objective(r.string("id"), (r.number("x_mm"), r.number("y_mm")), r.string("name", None),
                  _extra(r))
        for r in _checked(top.children("objectives", []), _OBJECTIVE_KEYS)
    )
    plan = TablePlan(
        ruleset=ruleset, table=table, units=units, models=models, terrain=terrain,
        objectives=objectives, name=top.string("name", None),
        profiles=_free(top, "profiles"), weapons=_free(top, "weapons"), options=_free(top, "options"),
        state=_free(top, "state"), extra=_extra(top),
    )
    _check_references(plan, top)
    return plan


def _checked(readers: list[Reader], keys: tuple[str, ...]) -> list[Reader]:
    for r in readers:
        r.only(keys)
    return readers


def _free(r: Reader, key: str) -> Mapping[str, Any] | None:
    if not r.has(key):
        return None
    r.child(key)  # must be an object
    return cast(Mapping[str, Any], freeze(r.data[key]))


def _extra(r: Reader) -> Mapping[str, Any]:
    return _free(r, "extra") or EMPTY


def _strings(r: Reader, key: str) -> tuple[str, ...] | None:
    values = r.array(key, None)
    if values is None:
        return None
    for i, v in enumerate(values):
        if not isinstance(v, str) or not v:
            r.fail(f"[{i}] must be a non-empty string, got {v!r}", key, "item_not_string",
                   {"index": i, "value": repr(v)[:60]})
    return tuple(values)


def _parse_unit(r: Reader) -> Unit:
    r.only(_UNIT_KEYS)
    return Unit(
        unit_id=r.string("id"), side=r.string("side"), name=r.string("name", None),
        leader=r.string("leader", None), profile=r.string("profile", None),
        kind=r.string("kind", None), rules=_strings(r, "rules"), extra=_extra(r),
    )


def _parse_model(r: Reader) -> Model:
    r.only(_MODEL_KEYS)
    marker_id = r.integer("marker_id", None)
    if marker_id is not None and marker_id < FIRST_MODEL_MARKER_ID:
        r.fail(f"must be {FIRST_MODEL_MARKER_ID} or more (ids 0-3 are the table corners), got {marker_id}",
               "marker_id", "marker_low", {"first": FIRST_MODEL_MARKER_ID, "value": str(marker_id)})
    facing = r.number("facing_deg", None)
    if facing is not None and not 0.0 <= facing < 360.0:
        r.fail(f"must be in [0, 360), got {facing}", "facing_deg", "facing_range", {"value": str(facing)})
    return Model(
        model_id=r.string("id"), unit_id=r.string("unit"),
        position_mm=(r.number("x_mm"), r.number("y_mm")),
        base_mm=r.number("base_mm", positive=True), marker_id=marker_id,
        facing_deg=facing, height_mm=r.number("height_mm", None),
        profile=r.string("profile", None), status=_strings(r, "status"),
        name=r.string("name", None), role=r.string("role", None),
        weapons=_strings(r, "weapons"), extra=_extra(r), elevation_mm=r.number("elevation_mm", None),
    )


def _parse_terrain(r: Reader) -> Terrain:
    r.only(_TERRAIN_KEYS)
    shape = r.string("shape", choices=TERRAIN_SHAPES)
    raw = r.array("points_mm")
    points = []
    for i, p in enumerate(raw):
        pr = Reader({"p": p}, source=r.source, error=r.error, path=f"{r.where('points_mm')}[{i}]")
        points.append(pr.numbers("p", length=2))
    need = 3 if shape == "area" else 2
    if len(points) < need:
        r.fail(f"must have at least {need} points for a{'n' if shape == 'area' else ''} {shape}, "
               f"got {len(points)}", "points_mm", f"few_points_{shape}", {"count": need, "got": len(points)})
    return Terrain(
        terrain_id=r.string("id"), kind=r.string("kind"), shape=shape,
        points_mm=tuple(points), height_mm=r.number("height_mm", None),
        name=r.string("name", None), extra=_extra(r),
    )


def _check_references(plan: TablePlan, top: Reader) -> None:
    for key, ids in (("units", [u.unit_id for u in plan.units]),
                     ("models", [m.model_id for m in plan.models]),
                     ("terrain", [t.terrain_id for t in plan.terrain]),
                     ("objectives", [o.objective_id for o in plan.objectives])):
        seen: set[str] = set()
        for i, one in enumerate(ids):
            if one in seen:
                top.fail(f"[{i}].id {one!r} is used twice; ids must be unique", key, "id_twice",
                         {"index": i, "id": one})
            seen.add(one)
    unit_ids = {u.unit_id for u in plan.units}
    markers: dict[int, str] = {}
    for i, m in enumerate(plan.models):
        if m.unit_id not in unit_ids:
            top.fail(f"[{i}].unit {m.unit_id!r} is not a unit of this game; "
                     f"units are: {_listing(sorted(unit_ids))}", "models", "unknown_unit",
                     {"index": i, "unit": m.unit_id, "units": names_param(sorted(unit_ids))})
        if m.marker_id is not None:
            if m.marker_id in markers:
                top.fail(f"[{i}].marker_id {m.marker_id} is already carried by model "
                         f"{markers[m.marker_id]!r}", "models", "marker_twice",
                         {"index": i, "marker": str(m.marker_id), "model": markers[m.marker_id]})
            markers[m.marker_id] = m.model_id
    model_units = {m.model_id: m.unit_id for m in plan.models}
    for i, u in enumerate(plan.units):
        if u.leader is not None and model_units.get(u.leader) != u.unit_id:
            top.fail(f"[{i}].leader {u.leader!r} is not a model of unit {u.unit_id!r}", "units", "leader_not_member",
                     {"index": i, "leader": u.leader, "unit": u.unit_id})


def load_game(path: str | Path) -> TablePlan:
    """Read and validate a game file; errors name the file and the field."""
    path = Path(path)
    data = read_json_file(path, what="game file", error=GameFileError)
    return parse_game(data, source=str(path))


def _put(out: dict[str, Any], key: str, value: Any) -> None:
    if value is not None:
        out[key] = thaw(value) if not isinstance(value, (str, int, float)) else value


def game_to_dict(plan: TablePlan) -> dict[str, Any]:
    """Return the game-file document of ``plan`` (the inverse of :func:`parse_game`)."""
    out: dict[str, Any] = {"ruleset": plan.ruleset,
                           "table": {"width_mm": plan.table.width_mm, "depth_mm": plan.table.depth_mm}}
    _put(out, "name", plan.name)
    out["units"] = [_unit_dict(u) for u in plan.units]
    out["models"] = [_model_dict(m) for m in plan.models]
    if plan.terrain:
        out["terrain"] = [_terrain_dict(t) for t in plan.terrain]
    if plan.objectives:
        out["objectives"] = [_objective_dict(o) for o in plan.objectives]
    for key in ("profiles", "weapons", "options", "state"):
        _put(out, key, getattr(plan, key))
    if plan.extra:
        out["extra"] = thaw(plan.extra)
    return out


def _unit_dict(u: Unit) -> dict[str, Any]:
    out: dict[str, Any] = {"id": u.unit_id, "side": u.side}
    for key in ("name", "leader", "profile", "kind", "rules"):
        _put(out, key, getattr(u, key))
    if u.extra:
        out["extra"] = thaw(u.extra)
    return out


def _model_dict(m: Model) -> dict[str, Any]:
    out: dict[str, Any] = {"id": m.model_id, "unit": m.unit_id}
    _put(out, "marker_id", m.marker_id)
    out.update(x_mm=m.position_mm[0], y_mm=m.position_mm[1], base_mm=m.base_mm)
    for key in ("facing_deg", "height_mm", "profile", "status", "name", "role", "weapons", "elevation_mm"):
        _put(out, key, getattr(m, key))
    if m.extra:
        out["extra"] = thaw(m.extra)
    return out


def _terrain_dict(t: Terrain) -> dict[str, Any]:
    out: dict[str, Any] = {"id": t.terrain_id, "kind": t.kind, "shape": t.shape,
                           "points_mm": [list(p) for p in t.points_mm]}
    _put(out, "height_mm", t.height_mm)
    _put(out, "name", t.name)
    if t.extra:
        out["extra"] = thaw(t.extra)
    return out


def _objective_dict(o: Objective) -> dict[str, Any]:
    out: dict[str, Any] = {"id": o.objective_id, "x_mm": o.position_mm[0], "y_mm": o.position_mm[1]}
    _put(out, "name", o.name)
    if o.extra:
        out["extra"] = thaw(o.extra)
    return out


def dump_game(plan: TablePlan) -> str:
    """Return the game file text of ``plan`` (indented JSON, UTF-8 safe)."""
    return json.dumps(game_to_dict(plan), indent=2, ensure_ascii=False) + "\n"
