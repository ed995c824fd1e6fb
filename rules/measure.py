"""Distances on the table plan, in mm: models, units, terrain, objectives, table edges.

A model is a round base (``base_mm`` across) centred on ``position_mm``. Base edge
to base edge is the centre distance minus both radii (never below 0: touching or
overlapping bases are 0 apart); centre to centre is the plain distance. Which of the
two a rule set uses by default is its ``measure`` option (docs/rule-choices.md, choice 1 of each rule set).

Examples
--------
>>> from rules.plan import parse_game
>>> plan = parse_game({"ruleset": "firefight", "table": {"width_mm": 600, "depth_mm": 400},
...     "units": [{"id": "u", "side": "A"}, {"id": "v", "side": "B"}],
...     "models": [{"id": "a", "unit": "u", "x_mm": 100, "y_mm": 100, "base_mm": 25},
...                {"id": "b", "unit": "v", "x_mm": 200, "y_mm": 100, "base_mm": 25},
...                {"id": "c", "unit": "v", "x_mm": 125, "y_mm": 100, "base_mm": 25}]})
>>> distance_mm(plan, "a", "b"), distance_mm(plan, "a", "b", how="centre")
(75.0, 100.0)
>>> distance_mm(plan, "a", "c")  # touching bases
0.0
>>> unit_distance_mm(plan, "u", "v").distance_mm
0.0
>>> distance_to_table_edge_mm(plan, "a").edge, distance_to_table_edge_mm(plan, "a").distance_mm
('top', 87.5)
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Iterable, Sequence

import numpy as np
import shapely
from shapely.geometry import Point, Polygon

from rules.errors import InvalidActionError
from rules.ontable import placed_only
from rules.plan import Model, TablePlan
from rules.terrain import terrain_geometry

HOWS = ("edge", "centre")
FOOTPRINT_QUAD_SEGS = 16  # segments per quarter circle of a derived base footprint
CONTACT_TOLERANCE_MM = 0.5  # bases closer than this count as in contact
TABLE_EDGES = ("top", "bottom", "left", "right")  # y = 0, y = depth, x = 0, x = width


def _check_how(how: str) -> None:
    if how not in HOWS:
        raise InvalidActionError(f"how must be one of {', '.join(HOWS)}, got {how!r}", msg_id="measure.bad_how",
                                 params={"got": str(how)})


def footprint(model: Model) -> Polygon:
    """Return the base of ``model`` as a shapely disc (derived, never stored).

    >>> from rules.plan import Model
    >>> round(footprint(Model("m", "u", (0.0, 0.0), 20.0)).area)
    314
    """
    return Point(model.position_mm).buffer(model.base_mm / 2.0, quad_segs=FOOTPRINT_QUAD_SEGS)


def model_distance_mm(a: Model, b: Model, *, how: str = "edge") -> float:
    """Return the distance between two models (``how``: ``"edge"`` or ``"centre"``)."""
    _check_how(how)
    d = math.dist(a.position_mm, b.position_mm)
    if how == "centre":
        return d
    return max(0.0, d - a.base_mm / 2.0 - b.base_mm / 2.0)


@placed_only
def distance_mm(plan: TablePlan, a_id: str, b_id: str, *, how: str = "edge") -> float:
    """Return the distance between models ``a_id`` and ``b_id`` in mm.

    Parameters
    ----------
    plan : TablePlan
    a_id, b_id : str
        Model ids; an unknown id raises :class:`InvalidActionError` naming the known ones.
    how : {"edge", "centre"}
        Base edge to base edge (0 when the bases touch or overlap) or centre to centre.
    """
    return model_distance_mm(plan.model(a_id), plan.model(b_id), how=how)


@dataclass(frozen=True)
class Closest:
    """The closest pair of models of two groups and their distance."""

    distance_mm: float
    a_id: str
    b_id: str


def closest_models(a_models: Sequence[Model], b_models: Sequence[Model], *, how: str = "edge") -> Closest:
    """Return the closest pair between two non-empty groups of models (ties: game-file order)."""
    _check_how(how)
    if not a_models or not b_models:
        raise InvalidActionError("cannot measure from an empty group of models", msg_id="measure.empty_group")
    pa = np.array([m.position_mm for m in a_models], dtype=float)
    pb = np.array([m.position_mm for m in b_models], dtype=float)
    d = np.hypot(pa[:, None, 0] - pb[None, :, 0], pa[:, None, 1] - pb[None, :, 1])
    if how == "edge":
        ra = np.array([m.base_mm for m in a_models]) / 2.0
        rb = np.array([m.base_mm for m in b_models]) / 2.0
        d = np.maximum(0.0, d - ra[:, None] - rb[None, :])
    i, j = (int(k) for k in np.unravel_index(int(np.argmin(d)), d.shape))
    return Closest(float(d[i, j]), a_models[i].model_id, b_models[j].model_id)


@placed_only
def unit_distance_mm(plan: TablePlan, unit_a: str, unit_b: str, *, how: str = "edge") -> Closest:
    """Return the distance between two units: their closest models.

    Raises :class:`InvalidActionError` on an unknown unit or a unit with no model on the table.
    """
    a, b = plan.models_of(unit_a), plan.models_of(unit_b)
    for uid, ms in ((unit_a, a), (unit_b, b)):
        if not ms:
            raise InvalidActionError(f"unit {uid!r} has no model on the table", msg_id="ids.unit_empty",
                                     params={"unit": uid})
    return closest_models(a, b, how=how)


def point_distance_mm(model: Model, point: tuple[float, float], *, how: str = "edge") -> float:
    """Return the distance from a model to a point (its base edge or centre)."""
    _check_how(how)
    d = math.dist(model.position_mm, point)
    return max(0.0, d - model.base_mm / 2.0) if how == "edge" else d


@placed_only
def distance_to_terrain_mm(plan: TablePlan, model_id: str, terrain_id: str, *, how: str = "edge") -> float:
    """Return the distance from a model to a terrain piece (0 when the base touches or is inside it)."""
    m = plan.model(model_id)
    geom = terrain_geometry(plan.terrain_piece(terrain_id))
    d = float(geom.distance(Point(m.position_mm)))
    if how == "centre":
        _check_how(how)
        return d
    _check_how(how)
    return max(0.0, d - m.base_mm / 2.0)


@placed_only
def distance_to_objective_mm(plan: TablePlan, model_id: str, objective_id: str, *, how: str = "edge") -> float:
    """Return the distance from a model to an objective marker's centre."""
    return point_distance_mm(plan.model(model_id), plan.objective(objective_id).position_mm, how=how)


@dataclass(frozen=True)
class EdgeDistance:
    """Distance from a model to a table edge (``top`` y=0, ``bottom``, ``left`` x=0, ``right``)."""

    edge: str
    distance_mm: float


@placed_only
def edge_distances_mm(plan: TablePlan, model: Model, *, how: str = "edge") -> dict[str, float]:
    """Return the distance from ``model`` to each of the four table edges."""
    _check_how(how)
    x, y = model.position_mm
    r = model.base_mm / 2.0 if how == "edge" else 0.0
    raw = {"top": y, "bottom": plan.table.depth_mm - y, "left": x, "right": plan.table.width_mm - x}
    return {k: max(0.0, v - r) for k, v in raw.items()}


@placed_only
def distance_to_table_edge_mm(plan: TablePlan, model_id: str, edge: str | None = None, *,
                              how: str = "edge") -> EdgeDistance:
    """Return the distance to ``edge`` (one of :data:`TABLE_EDGES`) or to the nearest edge."""
    dists = edge_distances_mm(plan, plan.model(model_id), how=how)
    if edge is None:
        edge = min(TABLE_EDGES, key=lambda e: dists[e])
    elif edge not in TABLE_EDGES:
        raise InvalidActionError(f"table edge must be one of {', '.join(TABLE_EDGES)}, got {edge!r}",
                                 msg_id="measure.bad_edge", params={"got": str(edge)})
    return EdgeDistance(edge, dists[edge])


def centroid_mm(models: Iterable[Model]) -> tuple[float, float]:
    """Return the mean position of ``models`` (a unit's approximate centre)."""
    pts = np.array([m.position_mm for m in models], dtype=float)
    if len(pts) == 0:
        raise InvalidActionError("cannot take the centre of an empty group of models", msg_id="measure.empty_group")
    c = pts.mean(axis=0)
    return (float(c[0]), float(c[1]))


def footprints(models: Sequence[Model]) -> np.ndarray:
    """Return the footprints of ``models`` as a shapely geometry array (vectorised)."""
    pts = shapely.points(np.array([m.position_mm for m in models], dtype=float).reshape(-1, 2))
    radii = np.array([m.base_mm / 2.0 for m in models], dtype=float)
    return np.asarray(shapely.buffer(pts, radii, quad_segs=FOOTPRINT_QUAD_SEGS))
