"""Terrain kinds: what each rule set's pieces do to sight, cover and movement.

A rule set owns a table of :class:`TerrainKind` (``rules/rulesets/<name>/__init__.py``);
this module holds the record, the shapes of pieces on the plan and the path
costing every rule set's ``move`` question uses.

Sight effects
    ``clear``   no effect on sight (a road, a river).
    ``cover``   does not block sight, but hides what stands in or behind it (a low wall).
    ``blocks``  blocks any sight line that crosses it (a building).
    ``sparse`` / ``dense``  High Fire area terrain: sight is blocked by a depth (4" / 2").
Movement effects
    ``open``, ``road``, ``difficult``, ``impassable``, ``linear`` (a linear obstacle
    crossed at a cost), ``dangerous`` (Firefight).

Examples
--------
>>> from rules.plan import Terrain
>>> wall = Terrain("w", "wall", "line", ((0.0, 0.0), (100.0, 0.0)))
>>> terrain_geometry(wall).length
100.0
>>> crossings(((50.0, -10.0), (50.0, 10.0)), [wall])[0].terrain_id
'w'
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Mapping, Sequence

import shapely
from shapely.geometry import LineString, Polygon
from shapely.geometry.base import BaseGeometry

from rules.explain import msg
from rules.plan import Terrain


def kind_msg_id(ruleset: str, kind: str) -> str:
    """Return the message id of a terrain kind's description: ``terrain_kind.<ruleset>.<kind>`` (``_`` for ``-``).

    >>> kind_msg_id("at-43", "low-wall")
    'terrain_kind.at_43.low_wall'
    """
    return f"terrain_kind.{ruleset.replace('-', '_')}.{kind.replace('-', '_')}"


@functools.lru_cache(maxsize=512)
def kind_msg(ruleset: str, kind: str) -> Mapping[str, Any]:
    """Return a terrain kind's description as a message parameter (its texts in ``<lang>.shared.po``; frozen)."""
    return msg(kind_msg_id(ruleset, kind))


SIGHT_EFFECTS = ("clear", "cover", "blocks", "sparse", "dense")
MOVEMENT_EFFECTS = ("open", "road", "difficult", "impassable", "linear", "dangerous")


@dataclass(frozen=True)
class TerrainKind:
    """What one kind of terrain piece does in a rule set.

    Parameters
    ----------
    kind : str
        The name used in game files (``"forest"``).
    sight : str
        One of :data:`SIGHT_EFFECTS`.
    movement : str
        One of :data:`MOVEMENT_EFFECTS`.
    cover : bool
        Whether a model in or behind it counts as in cover.
    shapes : tuple of str
        The piece shapes allowed (``"area"``, ``"line"``).
    text : str
        A short description in English shown in explanations.
    source : str
        Rule set and section it comes from.
    """

    kind: str
    sight: str
    movement: str
    cover: bool
    shapes: tuple[str, ...]
    text: str
    source: str

    def __post_init__(self) -> None:
        if self.sight not in SIGHT_EFFECTS:
            raise ValueError(f"sight must be one of {SIGHT_EFFECTS}, got {self.sight!r}")
        if self.movement not in MOVEMENT_EFFECTS:
            raise ValueError(f"movement must be one of {MOVEMENT_EFFECTS}, got {self.movement!r}")

    def message(self, ruleset: str) -> Mapping[str, Any]:
        """Return :attr:`text` as a message of ``ruleset`` (see :func:`kind_msg`)."""
        return kind_msg(ruleset, self.kind)

    def to_json(self) -> dict[str, object]:
        return {"kind": self.kind, "sight": self.sight, "movement": self.movement,
                "cover": self.cover, "shapes": list(self.shapes), "text": self.text,
                "source": self.source}


def terrain_geometry(piece: Terrain) -> BaseGeometry:
    """Return the shapely geometry of a piece: a polygon for an area, a line string for a line.

    An area whose outline crosses itself is repaired with ``shapely.make_valid``.
    Geometries are immutable and cached by shape and points.
    """
    return _geometry(piece.shape, piece.points_mm)


@functools.lru_cache(maxsize=4096)
def _geometry(shape: str, points: tuple[tuple[float, float], ...]) -> BaseGeometry:
    if shape == "area":
        poly = Polygon(points)
        return poly if poly.is_valid else shapely.make_valid(poly)
    return LineString(points)


@dataclass(frozen=True)
class Crossing:
    """A straight path meeting a terrain piece: length inside (areas) and whether it crosses."""

    terrain_id: str
    kind: str
    shape: str
    length_mm: float
    start_inside: bool
    end_inside: bool


def crossings(path: Sequence[tuple[float, float]], pieces: Iterable[Terrain]) -> list[Crossing]:
    """Return the pieces a straight path from ``path[0]`` to ``path[1]`` meets, nearest first.

    For an area the length is the part of the path inside it; for a line it is 0.
    """
    seg = LineString(path)
    start, end = shapely.Point(path[0]), shapely.Point(path[1])
    out: list[tuple[float, Crossing]] = []
    for piece in pieces:
        geom = terrain_geometry(piece)
        if not seg.intersects(geom):
            continue
        inter = seg.intersection(geom)
        first = seg.project(shapely.Point(inter.representative_point())) if not inter.is_empty else 0.0
        if piece.shape == "area":
            first = min((seg.project(shapely.Point(c)) for c in _coords(inter)), default=first)
            out.append((first, Crossing(piece.terrain_id, piece.kind, piece.shape, inter.length,
                                        geom.covers(start), geom.covers(end))))
        else:
            out.append((first, Crossing(piece.terrain_id, piece.kind, piece.shape, 0.0, False, False)))
    out.sort(key=lambda t: (t[0], t[1].terrain_id))
    return [c for _, c in out]


def _coords(geom: BaseGeometry) -> list[tuple[float, float]]:
    return [tuple(c) for c in shapely.get_coordinates(geom)]


def pieces_at(point: tuple[float, float], pieces: Iterable[Terrain]) -> list[Terrain]:
    """Return the area pieces covering ``point``."""
    p = shapely.Point(point)
    return [t for t in pieces if t.shape == "area" and terrain_geometry(t).covers(p)]


@dataclass(frozen=True)
class PathProfile:
    """What a straight move of a model's centre meets, by movement effect.

    ``by_effect`` maps a movement effect to the length (mm) of the path inside
    pieces of that effect (areas); ``lines`` lists the linear pieces crossed as
    ``(id, kind, movement, height_mm)``; ``blocked`` the impassable pieces met.
    """

    length_mm: float
    by_effect: dict[str, float]
    lines: tuple[tuple[str, str, str, float | None], ...]
    blocked: tuple[str, ...]
    dangerous: tuple[str, ...]
    end_in: tuple[str, ...]
    start_in: tuple[str, ...]

    def inside_mm(self, *effects: str) -> float:
        """Return the length of path inside area pieces of any of ``effects``."""
        return sum(self.by_effect.get(e, 0.0) for e in effects)


def path_profile(start: tuple[float, float], end: tuple[float, float], pieces: Iterable[Terrain],
                 movement_of: Callable[[Terrain], str]) -> PathProfile:
    """Return what the straight path ``start`` -> ``end`` crosses; ``movement_of(piece)`` gives its effect.

    Overlapping areas of the same effect are merged so no stretch counts twice; a
    stretch under both a difficult and an open piece counts as difficult.
    """
    seg = LineString([start, end]) if start != end else None
    by_geom: dict[str, list[BaseGeometry]] = {}
    lines: list[tuple[float, tuple[str, str, str, float | None]]] = []
    blocked: list[str] = []
    dangerous: list[str] = []
    end_in: list[str] = []
    start_in: list[str] = []
    p_end, p_start = shapely.Point(end), shapely.Point(start)
    for piece in pieces:
        geom = terrain_geometry(piece)
        effect = movement_of(piece)
        if piece.shape == "area":
            if geom.covers(p_end):
                end_in.append(piece.terrain_id)
            if geom.covers(p_start):
                start_in.append(piece.terrain_id)
        if seg is None or not seg.intersects(geom):
            if piece.shape == "area" and geom.covers(p_end) and effect == "impassable":
                blocked.append(piece.terrain_id)
            continue
        if effect == "impassable":
            blocked.append(piece.terrain_id)
        if effect == "dangerous":
            dangerous.append(piece.terrain_id)
        if piece.shape == "line":
            at = seg.project(seg.intersection(geom).representative_point())
            lines.append((at, (piece.terrain_id, piece.kind, effect, piece.height_mm)))
        else:
            by_geom.setdefault(effect, []).append(seg.intersection(geom))
    by_effect: dict[str, float] = {}
    taken: BaseGeometry | None = None
    for effect in ("impassable", "dangerous", "difficult", "road", "open"):
        parts = by_geom.get(effect)
        if not parts:
            continue
        merged = shapely.union_all(parts)
        if taken is not None:
            merged = merged.difference(taken)
        by_effect[effect] = float(merged.length)
        taken = merged if taken is None else shapely.union(taken, merged)
    lines.sort(key=lambda t: t[0])
    return PathProfile(float(seg.length) if seg is not None else 0.0, by_effect,
                       tuple(t for _, t in lines), tuple(blocked), tuple(dangerous), tuple(end_in), tuple(start_in))
