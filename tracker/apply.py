"""The tracker makes the plan: typed tracker events, and the game changes they cause.

The tracker (:class:`tracker.tracking.TrackBook`) speaks in JSON-ready dicts;
:func:`event_from_dict` turns one into a frozen record (:class:`Appeared`,
:class:`Moved`, :class:`Hidden`, :class:`Reappeared`, :class:`SourceEvent`).
:func:`apply_tracks` is the pure step from a :class:`rules.plan.TablePlan` and events to
the next plan; :func:`track_changes` gives the same steps one by one with what each
changed (the server records each as an undoable change, ``tabletracker track --game``
prints them).

Which model a marker or bare base is comes from the game's :class:`Assignment` (the
models' ``marker_id``, and the bare base the page tied to a model). A marker no model
carries is not a model; a model removed from the game (a casualty) stays removed, even
while its marker is still on the table.

Examples
--------
>>> from rules.plan import parse_game
>>> plan = parse_game({"ruleset": "at-43", "table": {"width_mm": 1200, "depth_mm": 1200},
...                    "units": [{"id": "u", "side": "A"}],
...                    "models": [{"id": "a", "unit": "u", "x_mm": 100, "y_mm": 100, "base_mm": 25, "marker_id": 17}]})
>>> moved = event_from_dict({"type": "moved", "marker_id": 17, "from_mm": [100.0, 100.0],
...                          "to_mm": [160.0, 100.0], "distance_mm": 60.0, "facing_to_deg": 90.0})
>>> after = apply_tracks(plan, [moved])
>>> after.model("a").position_mm, after.model("a").facing_deg
((160.0, 100.0), 90.0)
>>> apply_tracks(plan, [event_from_dict({"type": "moved", "marker_id": 99, "to_mm": [5, 5]})]) == plan
True
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Union

from rules.plan import TablePlan

#: A model first seen this far from its saved place is put where it is seen.
PLACE_TOLERANCE_MM = 5.0


@dataclass(frozen=True)
class Appeared:
    """A marker (or bare base) seen for the first time: it stands at ``position_mm``."""

    position_mm: tuple[float, float]
    marker_id: int | None = None
    base_id: str | None = None
    facing_deg: float | None = None


@dataclass(frozen=True)
class Moved:
    """A marker (or bare base) lifted at ``from_mm`` and put down at ``to_mm``."""

    to_mm: tuple[float, float]
    marker_id: int | None = None
    base_id: str | None = None
    from_mm: tuple[float, float] | None = None
    distance_mm: float | None = None
    facing_deg: float | None = None


@dataclass(frozen=True)
class Hidden:
    """A marker (or bare base) no longer seen; it keeps its last place."""

    marker_id: int | None = None
    base_id: str | None = None


@dataclass(frozen=True)
class Reappeared:
    """A hidden marker (or bare base) seen again where it was."""

    marker_id: int | None = None
    base_id: str | None = None


@dataclass(frozen=True)
class SourceEvent:
    """Anything about the camera or the calibration (``camera_lost``, ``calibrated``...): no plan change."""

    kind: str
    message: str = ""


TrackEvent = Union[Appeared, Moved, Hidden, Reappeared, SourceEvent]


@dataclass(frozen=True)
class Assignment:
    """Which model each marker id and each bare-base track is (from the game)."""

    markers: Mapping[int, str]
    bases: Mapping[str, str]

    @classmethod
    def of(cls, plan: TablePlan) -> Assignment:
        """Return the plan's own assignment: the models' marker ids and their ``base_track``."""
        markers = {m.marker_id: m.model_id for m in plan.models if m.marker_id is not None}
        bases = {str(m.extra["base_track"]): m.model_id for m in plan.models if m.extra.get("base_track")}
        return cls(markers, bases)

    def model_of(self, marker_id: int | None, base_id: str | None) -> str | None:
        if marker_id is not None:
            return self.markers.get(marker_id)
        if base_id is not None:
            return self.bases.get(base_id)
        return None


@dataclass(frozen=True)
class TrackChange:
    """One game change the tracker caused: ``"move"`` (one model) or ``"placed"`` (first sightings)."""

    kind: str
    plan: TablePlan
    payload: Mapping[str, Any]


def _pair(value: Any) -> tuple[float, float] | None:
    if value is None:
        return None
    return (float(value[0]), float(value[1]))


def _number(value: Any) -> float | None:
    return None if value is None else float(value)


def event_from_dict(e: Mapping[str, Any]) -> TrackEvent:
    """Return the typed record of one of the tracker's JSON events (see :mod:`tracker.tracking`)."""
    kind = str(e.get("type", "event"))
    marker = e.get("marker_id")
    marker_id = None if marker is None else int(marker)
    base = e.get("track_id")
    base_id = None if base is None else str(base)
    if kind in ("moved", "base_moved") and e.get("to_mm") is not None:
        to_mm = _pair(e["to_mm"])
        assert to_mm is not None
        return Moved(to_mm, marker_id, base_id, _pair(e.get("from_mm")), _number(e.get("distance_mm")),
                     _number(e.get("facing_to_deg")))
    if kind in ("appeared", "base_appeared") and "x_mm" in e:
        return Appeared((float(e["x_mm"]), float(e["y_mm"])), marker_id, base_id, _number(e.get("facing_deg")))
    if kind in ("hidden", "base_hidden"):
        return Hidden(marker_id, base_id)
    if kind in ("reappeared", "base_reappeared"):
        return Reappeared(marker_id, base_id)
    return SourceEvent(kind, str(e.get("message", "")))


def _move(plan: TablePlan, model_id: str, to_mm: tuple[float, float], facing_deg: float | None) -> TablePlan:
    new = plan.model(model_id).placed_at(to_mm)  # a figure put somewhere stands on the table
    if facing_deg is not None:
        value = float(facing_deg) % 360.0
        new = dataclasses.replace(new, facing_deg=0.0 if value >= 360.0 else value)
    return plan.with_model(new)


def _r2(p: tuple[float, float]) -> list[float]:
    return [round(p[0], 2), round(p[1], 2)]


def track_changes(plan: TablePlan, events: Sequence[TrackEvent],
                  assignment: Assignment | None = None) -> list[TrackChange]:
    """Return the game changes ``events`` cause, in order, each with the plan after it.

    A :class:`Moved` model is one ``"move"`` change; consecutive :class:`Appeared` models
    standing off the table or farther than :data:`PLACE_TOLERANCE_MM` from their saved
    place are one ``"placed"`` change. Markers no model carries, and models no longer in
    the plan (removed), change nothing.
    """
    assign = Assignment.of(plan) if assignment is None else assignment
    present = {m.model_id for m in plan.models}
    changes: list[TrackChange] = []
    placing: list[tuple[str, tuple[float, float], float | None, tuple[float, float]]] = []

    def flush(current: TablePlan) -> TablePlan:
        if not placing:
            return current
        for model_id, to_mm, facing, _ in placing:
            current = _move(current, model_id, to_mm, facing)
        changes.append(TrackChange("placed", current, {"models": [
            {"model": m, "from_mm": _r2(f), "to_mm": _r2(t)} for m, t, _, f in placing]}))
        placing.clear()
        return current

    for event in events:
        if isinstance(event, Appeared):
            model_id = assign.model_of(event.marker_id, event.base_id)
            if model_id is None or model_id not in present:
                continue
            model = plan.model(model_id)
            if not model.on_table or math.dist(model.position_mm, event.position_mm) > PLACE_TOLERANCE_MM:
                placing.append((model_id, event.position_mm, event.facing_deg, model.position_mm))
            continue
        plan = flush(plan)
        if not isinstance(event, Moved):
            continue
        model_id = assign.model_of(event.marker_id, event.base_id)
        if model_id is None or model_id not in present:
            continue
        model = plan.model(model_id)
        start = event.from_mm if event.from_mm is not None else model.position_mm
        distance = event.distance_mm if event.distance_mm is not None else math.dist(start, event.to_mm)
        plan = _move(plan, model_id, event.to_mm, event.facing_deg)
        changes.append(TrackChange("move", plan, {
            "model": model_id, "name": model.name, "marker_id": event.marker_id,
            "from_mm": _r2(start), "to_mm": _r2(event.to_mm), "distance_mm": round(distance, 2)}))
    flush(plan)
    return changes


def apply_tracks(plan: TablePlan, events: Sequence[TrackEvent], assignment: Assignment | None = None) -> TablePlan:
    """Return ``plan`` after the tracker's ``events`` (pure): models moved and placed where seen.

    ``assignment`` says which model each marker and bare base is (default: the plan's own).
    """
    changes = track_changes(plan, events, assignment)
    return changes[-1].plan if changes else plan
