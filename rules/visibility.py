"""Line of sight on the table plan: model to model, unit to unit and all pairs at once.

Sight is judged from the observer's base centre toward the target's base: ``RAYS``
straight lines end on points spread evenly across the target's base (the chord
perpendicular to the line of sight), each trimmed to run from the observer's base
edge to where it enters the target's base. A ray is blocked by a terrain piece whose
kind blocks sight, by too much High Fire area depth, or by a figure where the rule
set says figures block; it is covered when it crosses a piece that gives cover.

* ``visible`` - at least one ray is clear: some of the target's base can be seen.
* ``visible_fraction`` - the share of clear rays: how much of the base's width is seen.
* ``cover_fraction`` - the share of rays crossing a cover piece (hidden behind it).
* ``centre_line_clear`` - the centre-to-centre line is not blocked (what
  :func:`all_pairs_sight` answers for every pair at once, vectorised).

An observer never blocks its own sight, nor does the target; a cover or blocking
area the observer stands in does not hide what it looks at, and a linear obstacle
the observer's base touches does not either (Feu à Volonté, Les Combats à distance).

Examples
--------
>>> from rules.plan import parse_game
>>> plan = parse_game({"ruleset": "at-43", "table": {"width_mm": 600, "depth_mm": 600},
...     "units": [{"id": "u", "side": "A"}, {"id": "v", "side": "B"}],
...     "models": [{"id": "a", "unit": "u", "x_mm": 100, "y_mm": 300, "base_mm": 30},
...                {"id": "b", "unit": "v", "x_mm": 500, "y_mm": 300, "base_mm": 30}],
...     "terrain": [{"id": "box", "kind": "container", "shape": "area",
...                  "points_mm": [[250, 250], [350, 250], [350, 350], [250, 350]]}]})
>>> from rules.rulesets import find_ruleset
>>> at43 = find_ruleset(plan.ruleset)
>>> s = line_of_sight(plan, "a", "b", ruleset=at43)
>>> s.visible, s.visible_fraction, s.blockers[0][:2]
(False, 0.0, ('container', 'box'))
>>> line_of_sight(plan, "a", "a", ruleset=at43)
Traceback (most recent call last):
...
rules.errors.InvalidActionError: a model always sees itself; ask about two different models
"""

from __future__ import annotations

import functools
import math
import threading
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, NamedTuple, Protocol, Sequence

import numpy as np
import shapely
from shapely.geometry.base import BaseGeometry

from rules.errors import InvalidActionError
from rules.explain import Step, explanation_json, msg
from rules.frozen import EMPTY
from rules.heights import HEIGHT_SOURCE, eye_mm, over_msg, over_text
from rules.measure import CONTACT_TOLERANCE_MM, FOOTPRINT_QUAD_SEGS, centroid_mm
from rules.ontable import on_table, placed_only
from rules.plan import Model, TablePlan, Terrain, Unit
from rules.reasons import Reason, reason_json
from rules.terrain import TerrainKind, kind_msg, terrain_geometry

RAYS = 21  # sight rays per model pair (odd: the centre line is one of them)
_RAY_SPREAD = np.linspace(-1.0, 1.0, RAYS)  # where the rays end across the target's base, in radii
_RAY_SPREAD.flags.writeable = False


class SightRules(Protocol):
    """What sight needs from a rule set (:class:`rules.rulesets.base.RuleSet` provides it).

    The geometry takes the rule set as an argument and never looks one up:
    ``models_block_sight`` says which figures block ("none", "models",
    "infantry-units"), ``sight_depth_mm`` the depth of each "depth" sight kind that
    blocks on its own (High Fire's sparse and dense areas), ``kind_of`` the kind of a
    terrain piece.
    """

    @property
    def name(self) -> str: ...
    @property
    def models_block_sight(self) -> str: ...
    @property
    def sight_depth_mm(self) -> Mapping[str, float]: ...
    def kind_of(self, piece: Any) -> TerrainKind: ...
    def source(self, section: str) -> str: ...
    def defaults(self) -> dict[str, Any]: ...
    def changed(self, options: Mapping[str, Any], name: str) -> str: ...
    def __hash__(self) -> int: ...


@dataclass(frozen=True)
class Blocker:
    """Something that may stop or hide a sight line: a terrain piece, a figure or a unit."""

    kind: str
    ident: str
    geometry: BaseGeometry
    effect: str  # "blocks", "cover" or "depth"
    reason: str
    source: str
    limit_mm: float = 0.0  # for "depth": the depth that blocks on its own
    what: Mapping[str, Any] = field(default=EMPTY)  # ``reason`` as a message (:func:`rules.explain.msg`)


@dataclass(frozen=True)
class Sight:
    """The answer to "can A see B?" with the reasons.

    ``blockers`` and ``cover`` are tuples of ``(kind, id, reason)``: what blocks at
    least one sight ray, and what hides part of the target without blocking.
    """

    observer: str
    target: str
    visible: bool
    visible_fraction: float
    cover_fraction: float
    centre_line_clear: bool
    blockers: tuple[tuple[str, str, str], ...]
    cover: tuple[tuple[str, str, str], ...]
    steps: tuple[Step, ...] = field(default=())

    def to_json(self) -> dict[str, Any]:
        return {"observer": self.observer, "target": self.target, "visible": self.visible,
                "visible_fraction": round(self.visible_fraction, 4),
                "cover_fraction": round(self.cover_fraction, 4),
                "centre_line_clear": self.centre_line_clear,
                "blockers": [reason_json(k, i, r) for k, i, r in self.blockers],
                "cover": [reason_json(k, i, r) for k, i, r in self.cover],
                "explanation": explanation_json(self.steps)}


Box = tuple[float, float, float, float]  # xmin, ymin, xmax, ymax in mm


def _apart(a: Box, b: Box) -> bool:
    """Whether two boxes do not meet (then nothing inside one meets anything inside the other)."""
    return a[2] < b[0] or b[2] < a[0] or a[3] < b[1] or b[3] < a[1]


@functools.lru_cache(maxsize=16)
def _terrain_boxes(terrain: tuple[Terrain, ...]) -> tuple[Box, ...]:
    """The bounding box of every terrain piece, remembered by value."""
    return tuple((float(b[0]), float(b[1]), float(b[2]), float(b[3]))
                 for b in shapely.bounds([terrain_geometry(t) for t in terrain]))


def rays_box(segs: np.ndarray, margin_mm: float = CONTACT_TOLERANCE_MM) -> Box:
    """The box holding every sight ray of ``segs`` (``(rays, 2, 2)``), widened by ``margin_mm``."""
    lo, hi = segs.reshape(-1, 2).min(axis=0), segs.reshape(-1, 2).max(axis=0)
    return (float(lo[0]) - margin_mm, float(lo[1]) - margin_mm, float(hi[0]) + margin_mm, float(hi[1]) + margin_mm)


@placed_only
def blockers_for(plan: TablePlan, observer: Model, target: Model, *, ruleset: SightRules,
                 options: Mapping[str, Any] | None = None, within: Box | None = None) -> list[Blocker]:
    """Return everything that may block or hide sight between two models in ``plan``'s rule set.

    With ``within`` (the box of the sight rays, :func:`rays_box`), only what meets that
    box is returned: nothing outside it can meet a ray, so the verdict is the same and a
    crowded table is not worked through piece by piece and figure by figure.
    """
    return _blockers_for(plan, observer, target, ruleset=ruleset, options=options, within=within)


def _blockers_for(plan: TablePlan, observer: Model, target: Model, *, ruleset: SightRules,
                  options: Mapping[str, Any] | None = None, within: Box | None = None) -> list[Blocker]:
    """:func:`blockers_for` on a plan holding only figures on the table."""
    return [c.make() for c in _candidates_for(plan, observer, target, ruleset, within, _context(plan, ruleset))]


class _Candidate(NamedTuple):
    """A blocker worth testing against the rays; its :class:`Blocker` (and messages) made only if a ray meets it."""

    geometry: BaseGeometry
    effect: str
    limit_mm: float
    make: Callable[[], Blocker]
    clip: "tuple[np.ndarray, np.ndarray] | None" = None  # a convex area's outward normals and offsets (depth)
    circle: "tuple[float, float, float] | None" = None  # a figure's base: centre and radius (its disc is a polygon)


@dataclass(frozen=True)
class _Context:
    """What sight between many pairs of one plan shares: the figures by unit, which units are infantry.

    Made once per question (one pair, or every pair of two units), never kept between questions;
    only what the rule set's figures need is filled in.
    """

    models: tuple[Model, ...]
    by_unit: Mapping[str, tuple[Model, ...]]
    xy: np.ndarray  # (n, 2) the figures' centres
    rad: np.ndarray  # (n,) their base radii
    terrain: tuple[Terrain, ...]
    boxes: np.ndarray  # (T, 4) the pieces' boxes
    box_tuples: tuple[Box, ...]
    kinds: tuple[TerrainKind | None, ...]
    geoms: tuple[BaseGeometry, ...]
    clips: tuple[tuple[np.ndarray, np.ndarray] | None, ...]  # convex areas' half-planes (depth clipping)
    obstacles: tuple[tuple[str, tuple[tuple[str, bool, BaseGeometry, Box], ...]], ...]  # High Fire: per infantry unit
    unknown: np.ndarray  # (T,) the pieces whose kind the rule set does not know
    hides: np.ndarray  # (T,) the pieces whose kind is known and not clear (they may hide something)
    geom_array: np.ndarray  # (T,) ``geoms`` as an array of objects
    candidates: tuple["_Candidate | None", ...]  # (T,) each piece as its kind makes it (not seen over)


def _context(plan: TablePlan, rs: SightRules) -> _Context:
    """Only what the rule set's figures need: their arrays where every figure blocks, High Fire's unit obstacles."""
    boxes, box_tuples, kinds, geoms, clips, unknown, hides, geom_array, candidates = _terrain_info(plan.terrain, rs)
    units: dict[str, tuple[Model, ...]] = {}
    obstacles: tuple[tuple[str, tuple[tuple[str, bool, BaseGeometry, Box], ...]], ...] = ()
    xy, rad = _NO_XY, _NO_RAD
    if rs.models_block_sight == "infantry-units":
        by_unit: dict[str, list[Model]] = {}
        for m in plan.models:
            by_unit.setdefault(m.unit_id, []).append(m)
        units = {k: tuple(v) for k, v in by_unit.items()}
        obstacles = tuple((u.unit_id, _unit_obstacles(u.unit_id, units[u.unit_id])) for u in plan.units
                          if (u.kind is None or u.kind == "infantry") and units.get(u.unit_id))
    elif rs.models_block_sight == "models":
        xy = np.array([m.position_mm for m in plan.models], dtype=float).reshape(-1, 2)
        rad = np.array([m.base_mm for m in plan.models], dtype=float) / 2.0
    return _Context(plan.models, units, xy, rad, plan.terrain, boxes, box_tuples, kinds, geoms, clips, obstacles,
                    unknown, hides, geom_array, candidates)


_NO_XY = np.zeros((0, 2))
_NO_RAD = np.zeros(0)


class _TerrainInfo(NamedTuple):
    """What sight reads of the terrain, by value (:func:`_terrain_of_thread`)."""

    boxes: np.ndarray
    box_tuples: tuple[Box, ...]
    kinds: tuple[TerrainKind | None, ...]
    geoms: tuple[BaseGeometry, ...]
    clips: tuple[tuple[np.ndarray, np.ndarray] | None, ...]
    unknown: np.ndarray
    hides: np.ndarray
    geom_array: np.ndarray
    candidates: tuple["_Candidate | None", ...]


def _terrain_info(terrain: tuple[Terrain, ...], rs: SightRules) -> _TerrainInfo:
    """:func:`_terrain_of_thread` for the calling thread (prepared geometries: one thread's own)."""
    return _terrain_of_thread(threading.get_ident(), terrain, rs)


# GEOS's prepared geometries are not thread-safe (libgeos issue 825; two at once crashed the web
# server, which answers requests on several threads): every prepared geometry this module
# remembers is its own thread's (the caches take the thread's id in their key) and never one of
# the shared geometries of rules.terrain (a copy is prepared). Copies, not a lock: one request's
# answers never wait for another's.


@functools.lru_cache(maxsize=16)
def _terrain_of_thread(thread: int, terrain: tuple[Terrain, ...], rs: SightRules) -> _TerrainInfo:
    """Every piece's box (as an array and as tuples), kind (``None`` when the rule set does not know it) and prepared
    geometry, by value; which kinds are unknown and which hide something, as arrays, and each piece's candidate
    blocker (read for every question)."""
    kinds: list[TerrainKind | None] = []
    for t in terrain:
        try:
            kinds.append(rs.kind_of(t))
        except Exception:  # noqa: BLE001 - asked again (and raised) only if the piece is in the way
            kinds.append(None)
    # copies (terrain_geometry's are shared by every thread), prepared: the same answers, faster
    # when tested against many rays
    geoms = tuple(shapely.transform([terrain_geometry(t) for t in terrain], lambda xy: xy)) if terrain else ()
    for g in geoms:
        shapely.prepare(g)
    box_tuples = _terrain_boxes(terrain)
    boxes = np.array(box_tuples, dtype=float).reshape(-1, 4)
    unknown = np.array([k is None for k in kinds], dtype=bool)
    hides = np.array([k is not None and k.sight != "clear" for k in kinds], dtype=bool)
    geom_array = np.empty(len(geoms), dtype=object)
    geom_array[:] = geoms
    for arr in (boxes, unknown, hides, geom_array):
        arr.flags.writeable = False
    clips = tuple(_half_planes(g) for g in geoms)
    return _TerrainInfo(boxes, box_tuples, tuple(kinds), geoms, clips, unknown, hides, geom_array,
                        tuple(_piece_candidate(rs, piece, kind, geom, clip)
                              for piece, kind, geom, clip in zip(terrain, kinds, geoms, clips)))


def _piece_candidate(rs: SightRules, piece: Terrain, kind: TerrainKind | None, geom: BaseGeometry,
                     clip: tuple[np.ndarray, np.ndarray] | None) -> "_Candidate | None":
    """The candidate blocker a piece makes by its kind (``None`` when clear or unknown): a High Fire depth, or what
    the kind does (a piece seen over is the pair's own, :func:`_candidates_for`)."""
    if kind is None or kind.sight == "clear":
        return None
    depth = rs.sight_depth_mm
    if kind.sight in depth:
        limit = depth[kind.sight]
        return _Candidate(geom, "depth", limit, functools.partial(
            Blocker, piece.kind, piece.terrain_id, geom, "depth", f"{kind.text}", kind.source, limit,
            what=kind_msg(rs.name, piece.kind)), clip)
    return _Candidate(geom, kind.sight, 0.0, functools.partial(
        Blocker, piece.kind, piece.terrain_id, geom, kind.sight, kind.text, kind.source,
        what=kind_msg(rs.name, piece.kind)))


def _candidates_for(plan: TablePlan, observer: Model, target: Model, rs: SightRules, within: Box | None,
                    ctx: _Context, figures: list[_Candidate] | None = None, meet: Sequence[int] | None = None
                    ) -> list[_Candidate]:
    """The blockers of :func:`blockers_for`, in its order, as candidates (nothing made for what no ray meets).

    ``figures``, ``meet``: the figures' candidates and the pieces whose box meets ``within`` when already
    found for many pairs (:func:`_figure_candidates_many`, :func:`_boxes_meet`).
    """
    out: list[_Candidate] = []
    origin: BaseGeometry | None = None
    kinds, geoms, terrain = ctx.kinds, ctx.geoms, ctx.terrain
    boxes = ctx.box_tuples
    ea, eb = eye_mm(observer), eye_mm(target)
    lower_eyes = min(ea, eb) if ea is not None and eb is not None else None  # sees_over, once for the pair
    if meet is not None:
        pass
    elif within is None:
        meet = range(len(terrain))
    else:  # the pieces whose box meets the rays' box (the others meet no ray), in the plan's order
        meet = np.flatnonzero(_boxes_meet(ctx.boxes, np.array([within]))[0]).tolist()
    for k in meet:
        piece = terrain[k]
        kind = kinds[k]
        if kind is None:
            kind = rs.kind_of(piece)  # raises: the kind is unknown
        if kind.sight == "clear":
            continue
        geom = geoms[k]
        if piece.shape == "area" and kind.sight in ("blocks", "cover"):
            bx = boxes[k]  # a piece covers only points of its box
            ox, oy = observer.position_mm
            if bx[0] <= ox <= bx[2] and bx[1] <= oy <= bx[3]:
                origin = origin if origin is not None else shapely.Point(observer.position_mm)
                if geom.covers(origin):
                    continue  # one sees out of the piece one stands in
        if piece.shape == "line" and kind.sight == "cover":
            origin = origin if origin is not None else shapely.Point(observer.position_mm)
            if geom.distance(origin) <= observer.base_mm / 2.0 + CONTACT_TOLERANCE_MM:
                continue  # a shooter against a linear obstacle sees over it (Feu à Volonté, Combats à distance)
        if (kind.sight == "blocks" and lower_eyes is not None and piece.height_mm is not None
                and float(piece.height_mm) < lower_eyes):  # sees_over(piece, observer, target)
            # heights decide: a piece lower than both figures' eyes is seen over and gives cover
            out.append(_Candidate(geom, "cover", 0.0, functools.partial(
                _seen_over_blocker, piece, kind, geom, observer, target)))
        else:  # what the piece's kind does, the same for every pair (made once with the terrain)
            cand = ctx.candidates[k]
            assert cand is not None  # a known kind that is not clear
            out.append(cand)
    out.extend(_figure_candidates(rs, observer, target, within, ctx) if figures is None else figures)
    return out


def _seen_over_blocker(piece: Terrain, kind: TerrainKind, geom: BaseGeometry, observer: Model, target: Model
                       ) -> Blocker:
    return Blocker(piece.kind, piece.terrain_id, geom, "cover", over_text(piece, observer, target),
                   f"{kind.source}; {HEIGHT_SOURCE}", what=over_msg(piece, observer, target))


def _near_centre_line(xy: np.ndarray, rad: np.ndarray, observer: Model, target: Model) -> np.ndarray:
    """Which figures' bases may meet a sight ray from ``observer`` to ``target``.

    Every ray lies in the triangle from the observer's centre to the chord across the
    target's base, so within the target's radius of the centre-to-centre segment: a base
    farther than its own radius plus that meets none.
    """
    o = np.asarray(observer.position_mm, dtype=float)
    v = np.asarray(target.position_mm, dtype=float) - o
    p = xy - o
    r = rad
    t = np.clip(p @ v / max(float(v @ v), 1e-12), 0.0, 1.0)
    gap = np.hypot(p[:, 0] - t * v[0], p[:, 1] - t * v[1])
    return np.asarray(gap <= r + target.base_mm / 2.0 + CONTACT_TOLERANCE_MM + 1e-6)


def _disc_box(m: Model, scale: float = 1.0) -> Box:
    r = m.base_mm / 2.0 * scale
    return (m.position_mm[0] - r, m.position_mm[1] - r, m.position_mm[0] + r, m.position_mm[1] + r)


def _figure_blockers(plan: TablePlan, rs: SightRules, observer: Model, target: Model,
                     within: Box | None = None) -> list[Blocker]:
    return [c.make() for c in _figure_candidates(rs, observer, target, within, _context(plan, rs))]


def _figure_candidates(rs: SightRules, observer: Model, target: Model, within: Box | None,
                       ctx: _Context) -> list[_Candidate]:
    out: list[_Candidate] = []
    if rs.models_block_sight == "models":
        models = ctx.models
        near = _near_centre_line(ctx.xy, ctx.rad, observer, target) if within is not None else None
        source = rs.source("Règles de Tir (note importante)")
        for k in (range(len(models)) if near is None else np.flatnonzero(near).tolist()):
            m = models[k]
            if m.model_id in (observer.model_id, target.model_id):
                continue
            disc = _disc(m)
            out.append(_Candidate(disc, "blocks", 0.0, functools.partial(_figure_blocker, m.model_id, disc, source),
                                  circle=(m.position_mm[0], m.position_mm[1], m.base_mm / 2.0)))
    elif rs.models_block_sight == "infantry-units":
        skip = {observer.unit_id, target.unit_id}
        source = rs.source("Ligne de vue")
        for uid, obstacles in ctx.obstacles:  # infantry units with figures on the table, in the plan's order
            if uid in skip:
                continue
            for ident, solid, hull, box in obstacles:
                if within is not None and _apart(box, within):
                    continue  # the hull lies within its bases' circumscribed polygons' boxes: no ray meets it
                if solid:
                    out.append(_Candidate(hull, "blocks", 0.0, functools.partial(_unit_blocker, ident, hull, source)))
                else:
                    out.append(_Candidate(hull, "cover", 0.0, functools.partial(_lone_blocker, ident, hull, source)))
    return out


def _pieces_in_reach(rs: SightRules, ctx: _Context, within: np.ndarray, hulls: Callable[[], np.ndarray]
                     ) -> np.ndarray:
    """``(P, T)``: the pieces that may meet each pair's rays and are worth the candidates' Python work.

    Those whose box meets the rays' box ``within`` ``(P, 4)``, not clear, and (when there are more than
    ``HULL_FIRST``) meeting the rays' hull (``hulls()``); a piece whose kind the rule set does not know is
    refused there, the first in the pairs' order, as :func:`_candidates_for` refuses it.
    """
    meet = _boxes_meet(ctx.boxes, within)
    unknown = ctx.unknown
    if unknown.any() and (meet & unknown).any():
        rs.kind_of(ctx.terrain[int(np.argwhere(meet & unknown)[0, 1])])  # raises: the kind is unknown
    meet &= ctx.hides
    if meet.sum() > HULL_FIRST:
        pi, ki = np.nonzero(meet)
        miss = ~shapely.intersects(ctx.geom_array[ki], hulls()[pi])
        meet[pi[miss], ki[miss]] = False
    return meet


def _rows(mask: np.ndarray) -> list[list[int]]:
    """The columns set in each row of a boolean matrix, in order (one ``nonzero`` for the whole matrix)."""
    out: list[list[int]] = [[] for _ in range(len(mask))]
    rows, cols = np.nonzero(mask)
    for r, c in zip(rows.tolist(), cols.tolist()):
        out[r].append(c)
    return out


def _boxes_meet(boxes: np.ndarray, within: np.ndarray) -> np.ndarray:
    """``(W, B)``: whether box ``b`` of ``boxes`` ``(B, 4)`` meets box ``w`` of ``within`` ``(W, 4)``."""
    w = within[:, None, :]
    return np.asarray((boxes[None, :, 2] >= w[..., 0]) & (w[..., 2] >= boxes[None, :, 0])
                      & (boxes[None, :, 3] >= w[..., 1]) & (w[..., 3] >= boxes[None, :, 1]))


def _figure_candidates_many(rs: SightRules, pairs: Sequence[tuple[Model, Model]], ctx: _Context,
                            within: np.ndarray) -> list[list[_Candidate]]:
    """:func:`_figure_candidates` of every pair (``within``: the boxes of its rays, ``(P, 4)``).

    The figures near each centre line, or the unit obstacles meeting each box, in one array pass;
    each figure's or obstacle's candidate made once for every pair.
    """
    if rs.models_block_sight == "infantry-units":
        source = rs.source("Ligne de vue")
        units = [uid for uid, obstacles in ctx.obstacles for _ in obstacles]
        obs = [_Candidate(hull, "blocks", 0.0, functools.partial(_unit_blocker, ident, hull, source)) if solid else
               _Candidate(hull, "cover", 0.0, functools.partial(_lone_blocker, ident, hull, source))
               for _, obstacles in ctx.obstacles for ident, solid, hull, _ in obstacles]
        meets = _boxes_meet(np.array([box for _, obstacles in ctx.obstacles for *_, box in obstacles],
                                     dtype=float).reshape(-1, 4), within)
        return [[obs[k] for k in row if units[k] != f.unit_id and units[k] != t.unit_id]
                for (f, t), row in zip(pairs, _rows(meets))]
    if rs.models_block_sight != "models":
        return [[] for _ in pairs]  # no figure blocks sight
    o = np.array([f.position_mm for f, _ in pairs], dtype=float)
    v = np.array([t.position_mm for _, t in pairs], dtype=float) - o
    p = ctx.xy[None, :, :] - o[:, None, :]
    t = np.clip(np.einsum("pnj,pj->pn", p, v) / np.maximum(np.einsum("pj,pj->p", v, v), 1e-12)[:, None], 0.0, 1.0)
    gap = np.hypot(p[..., 0] - t * v[:, 0:1], p[..., 1] - t * v[:, 1:2])
    reach = np.array([tg.base_mm for _, tg in pairs], dtype=float) / 2.0 + CONTACT_TOLERANCE_MM + 1e-6
    # a margin over _near_centre_line's: a figure this near is only tested against the rays, never one fewer
    near = gap <= ctx.rad[None, :] + reach[:, None] + 1e-6
    source = rs.source("Règles de Tir (note importante)")
    made: dict[int, _Candidate] = {}
    out = []
    for (f, tg), row in zip(pairs, _rows(near)):
        cands = []
        for k in row:
            c = made.get(k)
            if c is None:
                m = ctx.models[k]
                disc = _disc(m)
                c = made[k] = _Candidate(disc, "blocks", 0.0, functools.partial(
                    _figure_blocker, m.model_id, disc, source), circle=(m.position_mm[0], m.position_mm[1],
                                                                        m.base_mm / 2.0))
            if ctx.models[k].model_id not in (f.model_id, tg.model_id):
                cands.append(c)
        out.append(cands)
    return out


def _figure_blocker(model_id: str, disc: BaseGeometry, source: str) -> Blocker:
    return Blocker("figure", model_id, disc, "blocks", "a figure is in the way: no shot through another figure",
                   source, what=msg("sight.figure_in_way"))


def _unit_blocker(ident: str, hull: BaseGeometry, source: str) -> Blocker:
    return Blocker("unit", ident, hull, "blocks", "an infantry unit is a solid obstacle (its figures within 1\" of "
                   "one another)", source, what=msg("sight.unit_obstacle"))


def _lone_blocker(ident: str, hull: BaseGeometry, source: str) -> Blocker:
    return Blocker("figure", ident, hull, "cover", "an isolated infantry figure is a partial obstacle", source,
                   what=msg("sight.isolated_figure"))


def _unit_obstacles(unit_id: str, ms: tuple[Model, ...]) -> tuple[tuple[str, bool, BaseGeometry, Box], ...]:
    """:func:`_unit_obstacles_of_thread` for the calling thread (prepared outlines: one thread's own)."""
    return _unit_obstacles_of_thread(threading.get_ident(), unit_id, ms)


@functools.lru_cache(maxsize=512)
def _unit_obstacles_of_thread(thread: int, unit_id: str, ms: tuple[Model, ...]
                              ) -> tuple[tuple[str, bool, BaseGeometry, Box], ...]:
    """The obstacles a High Fire infantry unit makes, remembered by its figures' values.

    ``(ident, solid, outline, box)`` per :func:`obstacle_groups` group: a group of two or more
    figures is a solid (named by the unit, or by the unit and its figures when the unit is split),
    a figure alone a partial obstacle; ``box`` holds the outline (its bases' circumscribed polygons).
    """
    out = []
    for group in obstacle_groups(ms):
        hull = unit_hull(group)
        shapely.prepare(hull)
        boxes = [_disc_box(m, HULL_SCALE) for m in group]
        box = (min(b[0] for b in boxes), min(b[1] for b in boxes), max(b[2] for b in boxes), max(b[3] for b in boxes))
        if len(group) >= 2:
            ident = unit_id if len(group) == len(ms) else f"{unit_id} ({', '.join(m.model_id for m in group)})"
            out.append((ident, True, hull, box))
        else:
            out.append((group[0].model_id, False, hull, box))
    return tuple(out)


OBSTACLE_LINK_MM = 25.4  # High Fire, UNITES: a member stays within 1" of another one


def obstacle_groups(models: Sequence[Model], link_mm: float = OBSTACLE_LINK_MM) -> list[list[Model]]:
    """Split a High Fire infantry unit into the obstacles it makes on the table.

    High Fire, Ligne de vue: an infantry unit is a solid obstacle, an isolated infantry
    figure a partial one. A unit out of cohesion is not one solid: each group of figures
    linked base edge to base edge within ``link_mm`` (the 1" of UNITES) is one obstacle,
    and a figure alone is a partial obstacle. Groups come in the order of their first figure.
    """
    n = len(models)
    if n <= 1:
        return [list(models)]
    p = np.array([m.position_mm for m in models], dtype=float)
    r = np.array([m.base_mm / 2.0 for m in models], dtype=float)
    gap = np.hypot(p[:, None, 0] - p[None, :, 0], p[:, None, 1] - p[None, :, 1]) - r[:, None] - r[None, :]
    adj = gap <= link_mm + 1e-6
    label = list(range(n))

    def root(k: int) -> int:
        while label[k] != k:
            label[k] = label[label[k]]
            k = label[k]
        return k

    for i, j in zip(*np.nonzero(np.triu(adj, k=1))):
        a, b = root(int(i)), root(int(j))
        if a != b:
            label[max(a, b)] = min(a, b)
    groups: dict[int, list[Model]] = {}
    for k, m in enumerate(models):
        groups.setdefault(root(k), []).append(m)
    return list(groups.values())


def _group_labels(x: np.ndarray, y: np.ndarray, rad: np.ndarray, unit_of: np.ndarray,
                  link_mm: float = OBSTACLE_LINK_MM) -> np.ndarray:
    """Label every model with the least index of its obstacle group (:func:`obstacle_groups`, all units at once).

    Only the pairs of one unit are measured (the models sorted by unit, each unit's block
    paired with itself), with np.hypot as obstacle_groups does.
    """
    n = len(x)
    if n == 0:
        return np.arange(0)
    order = np.argsort(unit_of, kind="stable")
    sorted_units = unit_of[order]
    first = np.flatnonzero(np.concatenate([[True], sorted_units[1:] != sorted_units[:-1]]))
    sizes = np.diff(np.concatenate([first, [n]]))
    times = np.repeat(sizes, sizes)  # each model pairs with the models of its unit block
    a = np.repeat(np.arange(n), times)
    b = np.repeat(np.repeat(first, sizes), times) + (np.arange(len(a)) - np.repeat(np.cumsum(times) - times, times))
    i, j = order[a], order[b]
    link = np.hypot(x[i] - x[j], y[i] - y[j]) - rad[i] - rad[j] <= link_mm + 1e-6
    by_model = np.argsort(i[link], kind="stable")
    i, j = i[link][by_model], j[link][by_model]  # the links, by model (each one's link to itself among them)
    labels = np.arange(n)
    starts = np.flatnonzero(np.concatenate([[True], i[1:] != i[:-1]]))  # every model has links: n of them
    for _ in range(n):  # min-label propagation: settles within the longest chain's length
        nxt = np.minimum.reduceat(labels[j], starts)  # the least label among each model's links
        nxt = nxt[nxt]  # pointer jumping: chains settle in a few rounds
        if np.array_equal(nxt, labels):
            break
        labels = nxt
    return labels


def _disc(m: Model) -> BaseGeometry:
    return _disc_at(threading.get_ident(), m.position_mm[0], m.position_mm[1], m.base_mm)


@functools.lru_cache(maxsize=1024)
def _disc_at(thread: int, x: float, y: float, base_mm: float) -> BaseGeometry:
    """A base's footprint, remembered by value and prepared (a figure is tested against many sight lines).

    Remembered per thread: a prepared geometry is never shared between threads (see _terrain_of_thread).
    """
    disc = shapely.Point(x, y).buffer(base_mm / 2.0, quad_segs=FOOTPRINT_QUAD_SEGS)
    shapely.prepare(disc)
    return disc


def sight_rays(observer: Model, target: Model, *, rays: int = RAYS) -> np.ndarray | None:
    """Return ``(rays, 2, 2)`` trimmed sight segments, or ``None`` when the bases touch.

    Ray ``i`` runs from the observer's base edge toward the point at ``s_i`` of the
    target's radius across its base (``s`` from -1 to 1), stopping where it enters
    the target's base.
    """
    segs, apart = _sight_rays_many(np.asarray([observer.position_mm], dtype=float),
                                   np.asarray([target.position_mm], dtype=float),
                                   np.array([observer.base_mm / 2.0]), np.array([target.base_mm / 2.0]),
                                   _RAY_SPREAD if rays == RAYS else np.linspace(-1.0, 1.0, rays))
    return segs[0] if apart[0] else None


def _sight_rays_many(o: np.ndarray, c: np.ndarray, ra: np.ndarray, rb: np.ndarray,
                     spread: np.ndarray = _RAY_SPREAD) -> tuple[np.ndarray, np.ndarray]:
    """:func:`sight_rays` of many pairs at once: ``(P', rays, 2, 2)`` for the pairs whose bases do not touch, and
    which those are (``(P,)``).

    ``o``, ``c`` ``(P, 2)`` the observers' and targets' centres, ``ra``, ``rb`` ``(P,)`` their base radii. The same
    arithmetic element by element as for one pair (a matrix product where one pair's dot products are one).
    """
    v = c - o
    dist = np.hypot(v[:, 0], v[:, 1])
    apart = dist > ra + rb + CONTACT_TOLERANCE_MM
    if not apart.all():
        o, c, ra, rb, v, dist = o[apart], c[apart], ra[apart], rb[apart], v[apart], dist[apart]
    ux, uy = v[:, 0] / dist, v[:, 1] / dist
    s = spread[None, :] * rb[:, None] * 0.999
    d = np.empty(s.shape + (2,))  # ends - o, x and y written in place (no stacked temporaries)
    np.subtract(c[:, 0:1] + s * -uy[:, None], o[:, 0:1], out=d[..., 0])
    np.subtract(c[:, 1:2] + s * ux[:, None], o[:, 1:2], out=d[..., 1])
    length = np.hypot(d[..., 0], d[..., 1])
    f = o - c
    a = np.einsum("pij,pij->pi", d, d)
    b = np.matmul(2.0 * d, f[:, :, None])[..., 0]
    cc = np.einsum("pj,pj->p", f, f)[:, None] - (rb * rb)[:, None]
    t_entry = (-b - np.sqrt(np.maximum(b * b - 4 * a * cc, 0.0))) / (2 * a)
    t_start = np.minimum(ra[:, None] / length, t_entry)
    segs = np.empty(d.shape[:2] + (2, 2))
    np.multiply(t_start[..., None], d, out=segs[:, :, 0])
    np.multiply(t_entry[..., None], d, out=segs[:, :, 1])
    segs += o[:, None, None, :]  # the starts and the stops
    return segs, apart


@placed_only
def line_of_sight(plan: TablePlan, a_id: str, b_id: str, *, options: Mapping[str, Any] | None = None,
                  ruleset: SightRules) -> Sight:
    """Return whether model ``a_id`` sees model ``b_id``, how much of its base, and what is in the way.

    Parameters
    ----------
    plan : TablePlan
    a_id, b_id : str
        Observer and target model ids (different).
    options : mapping, optional
        The rule set's options in force (``sight_depth`` for High Fire); defaults otherwise.
    ruleset : SightRules
        The game's rule set (``rules.rulesets.find_ruleset(plan.ruleset)``).

    Returns
    -------
    Sight
    """
    return _lines_of_sight(plan, [(a_id, b_id)], options, ruleset)[0]


@placed_only
def lines_of_sight(plan: TablePlan, pairs: Sequence[tuple[str, str]], *, options: Mapping[str, Any] | None = None,
                   ruleset: SightRules, explained: bool = True) -> list[Sight]:
    """Return :func:`line_of_sight` of each ``(observer, target)`` pair of ids, the rays of every pair traced at once.

    The same answers, explanations and refusals (the first pair refused in the order given); without
    ``explained``, Sights without their explanation steps (for a rule that reads only the verdict and reasons).
    """
    return _lines_of_sight(plan, pairs, options, ruleset, explained)


def _lines_of_sight(plan: TablePlan, pairs: Sequence[tuple[str, str]], options: Mapping[str, Any] | None,
                    rs: SightRules, explained: bool = True) -> list[Sight]:
    models: list[tuple[Model, Model]] = []
    for a_id, b_id in pairs:
        if a_id == b_id:
            plan.model(a_id)
            raise InvalidActionError("a model always sees itself; ask about two different models",
                                     msg_id="los.itself", params={"model": a_id})
        models.append((plan.model(a_id), plan.model(b_id)))
    opts = {**rs.defaults(), **(options or {})}
    out = []
    for (observer, target), rays in zip(models, _trace_many(plan, models, rs, opts, _context(plan, rs))):
        if rays is None:
            a_id, b_id = observer.model_id, target.model_id
            step = Step("line of sight", f"{a_id} and {b_id} are in base contact: they see each other",
                        rs.source("Ligne de vue") if rs.name == "high-fire" else "geometry",
                        msg="los.contact", params={"a": a_id, "b": b_id})
            out.append(Sight(a_id, b_id, True, 1.0, 0.0, True, (), (), (step,) if explained else ()))
        else:
            out.append(_sight_result(rs, opts, observer, target, *rays, explained=explained))
    return out


def _rays(plan: TablePlan, observer: Model, target: Model, rs: SightRules, opts: Mapping[str, Any],
          ctx: _Context | None = None, *, explain: bool = True
          ) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[tuple["Blocker", np.ndarray]]] | None:
    """Trace the sight rays of one pair (:func:`_trace_many`); ``ctx`` is ``plan``'s :func:`_context` when
    many pairs are asked one by one."""
    return _trace_many(plan, [(observer, target)], rs, opts, ctx if ctx is not None else _context(plan, rs),
                       explain=explain)[0]


HULL_FIRST = 6  # more candidates than this: test them against the rays' hulls before every ray


_Traced = tuple[np.ndarray, np.ndarray, np.ndarray, list[tuple[Blocker, np.ndarray]]]


def _trace_many(plan: TablePlan, pairs: Sequence[tuple[Model, Model]], rs: SightRules, opts: Mapping[str, Any],
                ctx: _Context, *, explain: bool = True) -> list[_Traced | None]:
    """Trace every pair's sight rays: which are blocked, which covered, the depth each crosses, what hit them.

    ``None`` for a pair whose bases touch. ``plan`` holds only figures on the table (a view, or a
    plan with none off it); ``ctx`` is its :func:`_context`. Without ``explain`` only ``blocked`` is
    meant to be read: what hit the rays is not named. One shapely call tests every pair's candidates
    against its rays' hull, one every (candidate, ray) left (prepared geometries first), one clip
    measures every depth a ray crosses; depths add up in each pair's candidates' order.
    """
    out: list[_Traced | None] = [None] * len(pairs)
    if not pairs:
        return out
    rays, apart = _sight_rays_many(np.array([f.position_mm for f, _ in pairs], dtype=float),
                                   np.array([t.position_mm for _, t in pairs], dtype=float),
                                   np.array([f.base_mm for f, _ in pairs], dtype=float) / 2.0,
                                   np.array([t.base_mm for _, t in pairs], dtype=float) / 2.0)
    n_pairs, n_rays = rays.shape[:2]  # only the pairs whose bases do not touch have rays
    if not n_pairs:
        return out
    ends = rays.reshape(n_pairs, -1, 2)
    lo, hi = ends.min(axis=1) - CONTACT_TOLERANCE_MM, ends.max(axis=1) + CONTACT_TOLERANCE_MM  # rays_box of each
    traced = [k for k, a in enumerate(apart.tolist()) if a]
    boxes = np.concatenate([lo, hi], axis=1)
    hulls: np.ndarray | None = None

    def hulls_of() -> np.ndarray:  # what misses the hull of a pair's rays meets none of them (the hull of one
        nonlocal hulls  # line through the rays' ends: far cheaper to build than from as many points)
        if hulls is None:
            hulls = shapely.convex_hull(shapely.linestrings(ends))
        return hulls

    meet = _pieces_in_reach(rs, ctx, boxes, hulls_of)
    figures = _figure_candidates_many(rs, [pairs[k] for k in traced], ctx, boxes)
    cand_list: list[list[_Candidate]] = []
    for j, (k, reach) in enumerate(zip(traced, _rows(meet))):
        f, t = pairs[k]
        within = (float(lo[j, 0]), float(lo[j, 1]), float(hi[j, 0]), float(hi[j, 1]))
        cand_list.append(_candidates_for(plan, f, t, rs, within, ctx, figures[j], reach))
    cands = [c for cs in cand_list for c in cs]
    pair_of = np.repeat(np.arange(n_pairs), [len(cs) for cs in cand_list])
    pieces = np.array([i < len(cs) - len(fs) for cs, fs in zip(cand_list, figures) for i in range(len(cs))],
                      dtype=bool).reshape(-1)  # the pieces come first: already found to meet their pair's rays' hull
    geoms = np.empty(len(cands), dtype=object)
    geoms[:] = [c.geometry for c in cands]
    lines = np.empty((n_pairs, n_rays), dtype=object)  # each pair's rays as shapely lines, made when first needed
    made = np.zeros(n_pairs, dtype=bool)

    def lines_of(rows: np.ndarray) -> np.ndarray:
        new = np.unique(rows[~made[rows]])
        if len(new):
            lines[new] = shapely.linestrings(rays[new].reshape(-1, 2, 2)).reshape(len(new), n_rays)
            made[new] = True
        return lines

    meets = np.zeros((len(cands), n_rays), dtype=bool)
    near = np.flatnonzero(pieces)
    if rs.models_block_sight == "infantry-units":  # the candidates after the pieces are unit obstacles
        units = np.flatnonzero(~pieces)
        if len(units) > HULL_FIRST:
            units = units[shapely.intersects(geoms[units], hulls_of()[pair_of[units]])]
        tested = pieces.copy()
        tested[units] = True  # the unit obstacles left, with the pieces, in order
        near = np.flatnonzero(tested)
    if len(near):
        meets[near] = shapely.intersects(geoms[near][:, None], lines_of(pair_of[near])[pair_of[near]])
    if rs.models_block_sight == "models" and len(discs := np.flatnonzero(~pieces)):  # figures' bases: circles
        meets[discs] = _meets_discs(np.array([cands[k].circle for k in discs]), rays[pair_of[discs]],
                                    lambda i, r: shapely.intersects(geoms[discs[i]],
                                                                    lines_of(pair_of[discs[i]])[pair_of[discs[i]], r]))
    effect = [c.effect for c in cands]
    blocked = np.zeros((n_pairs, n_rays), dtype=bool)
    covered = np.zeros((n_pairs, n_rays), dtype=bool)
    depth_sum = np.zeros((n_pairs, n_rays))
    hits = meets.copy()  # what each candidate counts as hit (for a depth: the rays it adds to or blocks)
    for out_rays, what in ((blocked, "blocks"), (covered, "cover")):
        rows = np.array([e == what for e in effect], dtype=bool)
        if n_pairs == 1:  # one pair: a plain reduction (ufunc.at's set-up costs more than the work)
            out_rays[0] = meets[rows].any(axis=0)
        else:
            np.logical_or.at(out_rays, pair_of[rows], meets[rows])
    separate = opts.get("sight_depth", "proportional") == "separate"
    deep = (np.flatnonzero(np.array([e == "depth" for e in effect], dtype=bool) & meets.any(axis=1))
            if "depth" in effect else np.zeros(0, dtype=np.intp))
    if len(deep):
        ratio = np.zeros((len(deep), n_rays))
        ki, ri = np.nonzero(meets[deep])  # every (depth candidate, ray) that meets, candidates in order
        got = np.zeros(len(ki))
        clip = [cands[int(k)].clip for k in deep]
        convex = np.array([c is not None for c in clip])[ki]
        segs_ki = rays[pair_of[deep][ki], ri]
        if convex.any():
            width = max(len(c[1]) for c in clip if c is not None)
            normal = np.zeros((len(deep), width, 2))
            offset = np.full((len(deep), width), np.inf)
            for j, c in enumerate(clip):
                if c is not None:
                    normal[j, :len(c[1])], offset[j, :len(c[1])] = c
            sel = np.flatnonzero(convex)
            got[sel] = _clip_rows(segs_ki[sel, 0], segs_ki[sel, 1], normal[ki[sel]], offset[ki[sel]])
        exact = ~convex | (got < GRAZE_MM)  # other pieces and grazing rays: shapely's intersection
        if exact.any():
            sel = np.flatnonzero(exact)
            rows = pair_of[deep][ki[sel]]
            got[sel] = shapely.length(shapely.intersection(lines_of(rows)[rows, ri[sel]], geoms[deep][ki[sel]]))
        limits = np.array([cands[int(k)].limit_mm for k in deep])
        ratio[ki, ri] = got / limits[ki]
        if separate:
            hits[deep] = ratio >= 1.0 - 1e-9
            np.logical_or.at(blocked, pair_of[deep], hits[deep])
        else:
            hits[deep] = ratio > 0
            np.add.at(depth_sum, pair_of[deep], ratio)  # in each pair's candidates' order
    if not separate and len(deep):  # (no depth crossed: every sum is 0)
        blocked |= depth_sum >= 1.0 - 1e-9
    said: list[bool] = np.asarray(hits.any(axis=1)).tolist()
    first = 0
    for j, k in enumerate(traced):
        last = first + len(cand_list[j])
        hit_by = [(cands[i].make(), hits[i]) for i in range(first, last) if said[i]] if explain else []
        out[k] = (blocked[j], covered[j], depth_sum[j], hit_by)
        first = last
    return out


GRAZE_MM = 1e-6
DISC_MARGIN_MM = 1e-6  # a ray this much beyond a base's circle, or inside its polygon's inscribed circle, is decided
_INSCRIBED = math.cos(math.pi / (4 * FOOTPRINT_QUAD_SEGS))  # a base polygon's inscribed radius, in radii


def _meets_discs(circle: np.ndarray, segs: np.ndarray, exact: Callable[[np.ndarray, np.ndarray], np.ndarray]
                 ) -> np.ndarray:
    """Whether each ray of ``segs`` ``(C, R, 2, 2)`` meets base ``c``'s polygon (``circle`` ``(C, 3)``: centre, radius).

    The polygon's corners lie on the circle: a ray farther from the centre than the radius misses
    it, one nearer than the inscribed radius meets it (beyond ``DISC_MARGIN_MM`` either way); the
    few in between are asked of shapely (``exact(candidates, rays)``), as every ray was.
    """
    p = segs[:, :, 0]
    d = segs[:, :, 1] - p
    w = circle[:, None, :2] - p
    t = np.clip((w[..., 0] * d[..., 0] + w[..., 1] * d[..., 1]) / (d[..., 0] * d[..., 0] + d[..., 1] * d[..., 1]),
                0.0, 1.0)
    gap = np.hypot(w[..., 0] - t * d[..., 0], w[..., 1] - t * d[..., 1])
    r = circle[:, 2:3]
    out = gap < r * _INSCRIBED - DISC_MARGIN_MM
    unsure = ~out & (gap <= r + DISC_MARGIN_MM)
    if unsure.any():
        i, j = np.nonzero(unsure)
        out[i, j] = exact(i, j)
    return np.asarray(out)


def _clip_rows(p: np.ndarray, q: np.ndarray, normal: np.ndarray, offset: np.ndarray) -> np.ndarray:
    """Length of each segment ``p[i]-q[i]`` inside the convex piece of half-planes ``normal[i], offset[i]``.

    ``(S, 2)`` ends, ``(S or 1, E, 2)`` outward normals and ``(S or 1, E)`` offsets ``normal . a``;
    a padding edge (normal 0, offset +inf) changes nothing. Cyrus-Beck, element by element (the
    same arithmetic for one pair and for many).
    """
    px, py = p[:, 0:1], p[:, 1:2]
    dx, dy = q[:, 0:1] - px, q[:, 1:2] - py
    nx, ny = normal[..., 0], normal[..., 1]
    num = offset - (px * nx + py * ny)  # normal . (a - p) for each segment and edge
    den = dx * nx + dy * ny
    with np.errstate(divide="ignore", invalid="ignore"):
        t = num / den
    enter = np.where(den < 0, t, -np.inf).max(axis=1, initial=0.0)
    leave = np.where(den > 0, t, np.inf).min(axis=1, initial=1.0)
    outside = ((den == 0) & (num < 0)).any(axis=1)
    return np.asarray(np.where(outside, 0.0, np.clip(np.minimum(leave, 1.0) - np.maximum(enter, 0.0), 0.0, None)
                               * np.hypot(dx[:, 0], dy[:, 0])))


def _visible_many(plan: TablePlan, pairs: Sequence[tuple[Model, Model]], rs: SightRules, opts: Mapping[str, Any],
                  ctx: _Context) -> list[bool]:
    """Whether each observer sees its target (some ray clear, or the bases touch): :func:`_trace_many`."""
    return [r is None or not bool(r[0].all()) for r in _trace_many(plan, pairs, rs, opts, ctx, explain=False)]


def _half_planes(g: BaseGeometry) -> tuple[np.ndarray, np.ndarray] | None:
    """A convex polygon's outward edge normals ``(E, 2)`` and offsets ``normal . a`` (``None`` for anything else).

    Remembered with the terrain (:func:`_terrain_info`); a segment's length inside is then one clip
    (Cyrus-Beck, as :func:`_clip_length`).
    """
    if g.geom_type != "Polygon" or not _convex(g):
        return None
    coords = shapely.get_coordinates(g.exterior)
    a, b = coords[:-1], coords[1:]
    centre = a.mean(axis=0)
    normal = np.stack([b[:, 1] - a[:, 1], a[:, 0] - b[:, 0]], axis=1)
    side = np.einsum("ej,ej->e", centre - a, normal)
    normal = np.where((side > 0)[:, None], -normal, normal)  # outward
    offset = np.einsum("ej,ej->e", normal, a)
    normal.flags.writeable = offset.flags.writeable = False
    return normal, offset


def _sight_result(rs: SightRules, opts: Mapping[str, Any], observer: Model, target: Model,
                  blocked: np.ndarray, covered: np.ndarray, depth_sum: np.ndarray,
                  hit_by: list[tuple[Blocker, np.ndarray]], *, explained: bool = True) -> Sight:
    """The :class:`Sight` of traced rays; without ``explained``, without its steps (the verdict and reasons kept)."""
    n = len(blocked)
    mid = n // 2
    steps: list[Step] = []
    blockers: list[tuple[str, str, str]] = []
    cover: list[tuple[str, str, str]] = []
    for bl, hits in hit_by:
        hit = int(np.count_nonzero(hits))
        share = f"{hit}/{n} sight rays"
        params = {"piece": bl.ident, "what": bl.what, "hit": hit, "rays": n}
        if bl.effect == "depth":
            reason = Reason(f"{bl.reason}; sight passes through it ({share})", msg("sight.reason.depth", **params))
            cover.append((bl.kind, bl.ident, reason))
            if explained:
                steps.append(Step("area depth", f"{bl.ident}: {reason}", bl.source, msg="los.depth_through",
                                  params=params))
        elif bl.effect == "blocks" and (hits & blocked).any():
            reason = Reason(f"{bl.reason} ({share} blocked)", msg("sight.reason.blocks", **params))
            blockers.append((bl.kind, bl.ident, reason))
            if explained:
                steps.append(Step("blocked", f"{bl.ident}: {reason}", bl.source, msg="los.blocked_by", params=params))
        elif bl.effect == "cover":
            reason = Reason(f"{bl.reason} (hides {share})", msg("sight.reason.cover", **params))
            cover.append((bl.kind, bl.ident, reason))
            if explained:
                steps.append(Step("cover", f"{bl.ident}: {reason}", bl.source, msg="los.cover_by", params=params))
    if depth_sum.max(initial=0.0) > 0:
        if explained:
            worst = float(depth_sum[mid])
            separate = opts.get("sight_depth") == "separate"
            text = (f"area depth on the centre line: {worst:.2f} of what blocks (sparse 4\", dense 2\"; "
                    f"{'each piece on its own' if separate else 'depths add up in proportion'})")
            steps.append(Step("area depth", text, rs.source("Ligne de vue"), value=round(worst, 4),
                              option=rs.changed(opts, "sight_depth"),
                              msg="los.depth_separate" if separate else "los.depth_added",
                              params={"depth": round(worst, 2)}))
        if blocked.any():
            blockers.extend((bl.kind, bl.ident, Reason(f"{bl.reason}: too deep to see through",
                                                       msg("sight.reason.too_deep", piece=bl.ident, what=bl.what)))
                            for bl, hits in hit_by if bl.effect == "depth" and (hits & blocked).any())
    clear = ~blocked
    seen = int(np.count_nonzero(clear))
    visible = seen > 0
    fraction = seen / n  # the mean of ``clear`` (its sum is exact), without np.mean's wrappers
    cover_fraction = int(np.count_nonzero(covered | blocked)) / n if covered.any() else 0.0
    if not explained:
        return Sight(observer.model_id, target.model_id, visible, fraction, cover_fraction,
                     bool(clear[mid]), tuple(blockers), tuple(cover))
    steps.append(Step("line of sight",
                      f"{observer.model_id} {'sees' if visible else 'does not see'} {target.model_id}: "
                      f"{fraction:.0%} of its base width seen from {observer.model_id}'s base centre"
                      + (f", {cover_fraction:.0%} behind cover" if cover_fraction else ""),
                      "geometry: sight rays from the observer's base centre across the target's base",
                      value=round(fraction, 4),
                      msg=("los.sees_cover" if cover_fraction else "los.sees") if visible else "los.not_seen",
                      params={"observer": observer.model_id, "target": target.model_id,
                              "percent": round(fraction * 100), "cover": round(cover_fraction * 100)}))
    return Sight(observer.model_id, target.model_id, visible, fraction, cover_fraction,
                 bool(clear[mid]), tuple(blockers), tuple(cover), tuple(steps))


# -- all pairs, vectorised ----------------------------------------------------------------

@dataclass(frozen=True)
class SightMatrix:
    """Centre-line sight for every pair of models: ``clear[i, j]`` for ``ids[i]`` -> ``ids[j]``."""

    ids: tuple[str, ...]
    clear: np.ndarray

    def __post_init__(self) -> None:
        n = len(self.ids)
        if self.clear.shape != (n, n):
            raise ValueError(f"clear must have shape ({n}, {n}), got {self.clear.shape}")
        self.clear.flags.writeable = False

    def sees(self, a_id: str, b_id: str) -> bool:
        return bool(self.clear[self.ids.index(a_id), self.ids.index(b_id)])


@functools.lru_cache(maxsize=16)
def _static_blockers_of(terrain: tuple[Terrain, ...], rs: SightRules
                        ) -> tuple[tuple[BaseGeometry, ...], tuple[str, ...], tuple[float, ...], tuple[str, ...]]:
    """The terrain's blockers, remembered by value (terrain pieces and rule sets hash; the result is immutable)."""
    geoms, effects, limits, ids = [], [], [], []
    for piece in terrain:
        kind = rs.kind_of(piece)
        if kind.sight in ("blocks",) or kind.sight in rs.sight_depth_mm:
            geoms.append(terrain_geometry(piece))
            effects.append("depth" if kind.sight in rs.sight_depth_mm else "blocks")
            limits.append(rs.sight_depth_mm.get(kind.sight, 0.0))
            ids.append(piece.terrain_id)
    return tuple(geoms), tuple(effects), tuple(limits), tuple(ids)


ANGLE_EPS = 1e-9
DEEP_MARGIN_MM = 1e-6  # a base this far inside every edge of a convex piece is inside it beyond rounding


@placed_only
def all_pairs_sight(plan: TablePlan, *, options: Mapping[str, Any] | None = None,
                    ruleset: SightRules) -> SightMatrix:
    """Return the centre-line sight of every pair of models at once (vectorised).

    The answer for a pair equals ``line_of_sight(plan, a, b).centre_line_clear``
    except for blocking areas an observer stands in (ignored there, counted here).
    Figures block as the rule set says (Star Wars: every figure; High Fire: infantry
    units of two or more).

    How: seen from each model, a convex blocker covers an interval of directions
    and lies between ``dmin`` and ``dmax``. The other models are sorted by direction
    once, so a binary search finds those behind each blocker; a segment reaching
    past ``dmax`` strictly inside the interval is blocked for sure, a model whose
    whole base lies inside a convex blocker is cut off from everyone, and only the
    few pairs left in doubt (and not yet blocked) are tested edge by edge; High Fire
    depths are clipped only for pairs nothing solid blocks (the solid pieces go first).
    A High Fire unit's solid is seen through its bases' circles: where it may lie and
    where it surely lies (:func:`_circle_extent`). Coordinates are kept as separate x
    and y arrays so every numpy loop runs over long rows.

    The answer is remembered by value (:class:`_SightTable`: the models, units and
    terrain, the rule set and its depth option): the page asks it again and again of a
    table that has not changed; any change of a figure or a piece computes it anew.
    """
    opts = {**ruleset.defaults(), **(options or {})}
    return _all_pairs_remembered(_SightTable(plan, ruleset, str(opts.get("sight_depth", "proportional"))))


class _Key:
    """A value used as a cache key, hashed once: the caches below look it up several times a call
    (a tuple hashes its items anew each time; terrain pieces and figures are dataclasses)."""

    __slots__ = ("value", "hashed")

    def __init__(self, value: Any) -> None:
        self.value = value
        self.hashed = hash(value)

    def __hash__(self) -> int:
        return self.hashed

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Key) and self.hashed == other.hashed and self.value == other.value


@dataclass(frozen=True, eq=False)
class _SightTable:
    """What all-pairs sight depends on, as a hashable key (the plan rides along, not compared).

    Equal when what sight reads of the figures (ids, and :func:`_figure_columns`: centres, bases, eyes
    and units), the units (order and which are infantry), the terrain, the rule set and the depth option
    are equal: the figures' columns are hashed as bytes, not a hundred records field by field (and
    ``_all_pairs`` reads them). The hash is taken once, and the terrain's with the rule set
    (``terrain_key``) once too, for the caches of what depends on them alone.
    """

    plan: TablePlan
    ruleset: SightRules
    sight_depth: str
    key: tuple[Any, ...] = field(init=False)
    hashed: int = field(init=False)
    terrain_key: _Key = field(init=False)
    columns: np.ndarray = field(init=False)

    def __post_init__(self) -> None:
        terrain_key = _Key((self.plan.terrain, self.ruleset))
        columns = _figure_columns(self.plan) if len(self.plan.models) >= 2 else _NO_COLUMNS  # (alone: all it sees)
        units = tuple((u.unit_id, _is_infantry(u)) for u in self.plan.units)
        key = (tuple(m.model_id for m in self.plan.models), columns.tobytes(), units, terrain_key, self.sight_depth)
        object.__setattr__(self, "terrain_key", terrain_key)
        object.__setattr__(self, "columns", columns)
        object.__setattr__(self, "key", key)
        object.__setattr__(self, "hashed", hash(key))

    def __hash__(self) -> int:
        return self.hashed

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _SightTable) and self.hashed == other.hashed and self.key == other.key


@functools.lru_cache(maxsize=8)
def _all_pairs_remembered(table: _SightTable) -> SightMatrix:
    """:func:`all_pairs_sight` of one table, remembered by value (the matrix is read-only)."""
    return _all_pairs(table.plan, table.ruleset, {"sight_depth": table.sight_depth}, table.terrain_key, table.columns)


def _is_infantry(unit: Unit) -> bool:
    return unit.kind is None or unit.kind == "infantry"


_NO_COLUMNS = np.zeros((0, 5))
_NO_COLUMNS.flags.writeable = False


def _figure_columns(plan: TablePlan) -> np.ndarray:
    """``(n, 5)``: every figure's centre, base, eyes (rules.heights.eyes: -inf where unknown) and unit (its
    place in ``plan.units``), in one pass over the figures (read-only)."""
    unit_index = {un.unit_id: k for k, un in enumerate(plan.units)}
    cols = np.array([(m.position_mm[0], m.position_mm[1], m.base_mm,
                      -math.inf if m.height_mm is None
                      else (float(m.elevation_mm) if m.elevation_mm is not None else 0.0) + float(m.height_mm),
                      unit_index[m.unit_id]) for m in plan.models], dtype=float).reshape(-1, 5)
    cols.flags.writeable = False
    return cols


def _all_pairs(plan: TablePlan, rs: SightRules, opts: Mapping[str, Any], terrain_key: _Key,
               cols: np.ndarray) -> SightMatrix:
    """Compute :func:`all_pairs_sight` (``opts``: the options in force; ``terrain_key``: the terrain and ``rs``;
    ``cols``: :func:`_figure_columns`)."""
    models = plan.models
    n = len(models)
    ids = tuple(m.model_id for m in models)
    if n < 2:
        return SightMatrix(ids, np.ones((n, n), dtype=bool))
    x, y, eye = cols[:, 0].copy(), cols[:, 1].copy(), cols[:, 3].copy()
    rad = cols[:, 2] / 2.0
    unit_of = cols[:, 4].astype(np.intp)
    static = _static_part(terrain_key, float(eye.max()))
    geoms: Sequence[BaseGeometry] = static.geoms
    hard, limits, own = static.hard, static.limits, static.own
    pieces = static.pieces
    members: np.ndarray | None = None  # each unit solid's models, when every solid is a polygon
    if rs.models_block_sight == "infantry-units":
        # each group of figures within 1" of one another is one solid (High Fire, Ligne de vue)
        counts = np.bincount(unit_of, minlength=len(plan.units)).tolist()
        infantry = frozenset(k for k, un in enumerate(plan.units) if counts[k] >= 2 and _is_infantry(un))
        solids_key = _Key((tuple(zip(x.tolist(), y.tolist(), rad.tolist(), unit_of.tolist())), infantry))
        solid_owner, hulls, hull_pieces, members = _unit_solids(*solids_key.value)
        members = members if hull_pieces is not None else None
        if hulls:
            geoms = static.geoms + hulls
            hard = np.concatenate([hard, np.ones(len(hulls), dtype=bool)])
            limits = np.concatenate([limits, np.zeros(len(hulls))])
            own = np.concatenate([own, np.asarray(solid_owner, dtype=np.intp)])
            pieces = _terrain_and_solids(static, solids_key)
    dx = x[None, :] - x[:, None]  # (n, n): from row model to column model
    dy = y[None, :] - y[:, None]
    dist = np.sqrt(dx * dx + dy * dy)  # np.hypot is 5x slower; where it matters (contact) it is used below
    # directions in [0, 2 pi) of the pairs i < j only (an arctangent costs as much as a hundred products):
    # the open pairs are read from the lower index, and the other way round by :func:`_towards`
    ang = np.zeros((n, n))
    up = _upper_flat(n)
    ang.ravel()[up] = _directions(dx, dy, up)
    blocked = np.zeros((n, n), dtype=bool)
    pts = _Points(x, y, rad)
    if pieces is not None:
        _terrain_pass(pts, dist, ang, pieces, geoms, hard, limits, own, unit_of,
                      str(opts.get("sight_depth", "proportional")), blocked, members)
    if static.low:
        _low_pass(pts, dist, ang, static.low, eye, unit_of, blocked)
    if rs.models_block_sight == "models":
        _disc_pass(pts, dist, ang, blocked)
    blocked = blocked | blocked.T
    contact = rad[:, None] + rad[None, :] + CONTACT_TOLERANCE_MM
    touching = dist <= contact
    close = np.abs(dist - contact) <= 1e-6 * contact  # decided exactly as np.hypot would
    if close.any():
        touching[close] = np.hypot(dx[close], dy[close]) <= contact[close]
    blocked &= ~touching
    np.fill_diagonal(blocked, False)
    return SightMatrix(ids, ~blocked)


@dataclass(frozen=True, eq=False)
class _Static:
    """What all-pairs sight takes from the terrain alone (and the highest eyes), worked out once.

    ``geoms``, ``hard`` (blocks, or thins as a High Fire depth), ``limits`` (depths), ``own``
    (-1: terrain) and ``pieces`` (their arrays, ``None`` without any) are the pieces tested for
    every pair; ``low`` the blocking pieces some figures see over (:func:`_low_pieces`), by
    height, lowest first. Compared by identity: a cache keyed on it (:func:`_terrain_and_solids`)
    holds it, so it is not mistaken for a later one.
    """

    geoms: tuple[BaseGeometry, ...]
    hard: np.ndarray
    limits: np.ndarray
    own: np.ndarray
    outlines: "_Outlines | None"
    pieces: "_Pieces | None"
    low: tuple[tuple[float, tuple[BaseGeometry, ...], "_Pieces"], ...]


@functools.lru_cache(maxsize=16)
def _static_part(terrain_key: _Key, top: float) -> _Static:
    """The :class:`_Static` of the terrain and rule set ``terrain_key``, the highest eyes being ``top``."""
    terrain, rs = terrain_key.value
    geoms, effects, limits, ids = (list(part) for part in _static_blockers_of(terrain, rs))
    low = _low_pieces(terrain, top, geoms, effects, limits, ids)
    outlines = _outlines(geoms) if geoms else None
    by_height = []
    for h in sorted({h for h, _ in low}):
        gs = tuple(g for hh, g in low if hh == h)
        by_height.append((h, gs, _pieces_from_edges(*_outlines(gs))))
    arrays = (np.array([e == "blocks" for e in effects], dtype=bool), np.asarray(limits, dtype=float),
              np.full(len(geoms), -1, dtype=np.intp))
    for arr in arrays:
        arr.flags.writeable = False
    return _Static(tuple(geoms), *arrays, outlines, _pieces_from_edges(*outlines) if outlines else None,
                   tuple(by_height))


def _low_pieces(terrain: tuple[Terrain, ...], top: float, geoms: list[BaseGeometry], effects: list[str],
                limits: list[float], ids: list[str]) -> list[tuple[float, BaseGeometry]]:
    """Take out of ``geoms`` (in place) the blocking pieces some pair of figures may see over.

    A blocking piece with a height lower than the highest eyes on the table (``top``) may be seen
    over (:mod:`rules.heights`); it is returned as ``(height, geometry)`` and tested apart, only for
    the pairs whose lower eyes are not above it. The others stay as they are (no height test).
    """
    if top == -math.inf:  # no height known
        return []
    height = {t.terrain_id: t.height_mm for t in terrain}
    keep: list[int] = []
    low: list[tuple[float, BaseGeometry]] = []
    for k, tid in enumerate(ids):
        h = height.get(tid)
        if effects[k] == "blocks" and h is not None and float(h) < top:
            low.append((float(h), geoms[k]))
        else:
            keep.append(k)
    if low:
        geoms[:] = [geoms[k] for k in keep]
        effects[:] = [effects[k] for k in keep]
        limits[:] = [limits[k] for k in keep]
        ids[:] = [ids[k] for k in keep]
    return low


def _low_pass(pts: _Points, dist: np.ndarray, ang: np.ndarray,
              low: tuple[tuple[float, tuple[BaseGeometry, ...], "_Pieces"], ...],
              e: np.ndarray, unit_of: np.ndarray, blocked: np.ndarray) -> None:
    """Block the pairs a low piece stands between unless both figures' eyes are above it.

    One vectorised pass per distinct height (``low``: height, pieces and their arrays, lowest
    first): only the pairs whose lower eyes are at or under that height (and not blocked yet)
    are tested; the others see over it (rules.heights); ``e``: the figures' eye heights.
    """
    lower = np.minimum(e[:, None], e[None, :])
    for h, gs, pieces in low:
        skip = (lower > h) | blocked | blocked.T
        if skip.all():
            continue
        b2 = skip.copy()
        _terrain_pass(pts, dist, ang, pieces, gs, np.ones(len(gs), dtype=bool), np.zeros(len(gs)),
                      np.full(len(gs), -1, dtype=np.intp), unit_of, "proportional", b2)
        blocked |= b2 & ~skip


TWO_PI = 2 * np.pi


def _wrap(z: np.ndarray) -> np.ndarray:
    """Return ``np.mod(z, 2 pi)`` for ``z`` in [-2 pi, 4 pi) (bit for bit, several times faster).

    Masked in-place sums: no branch per element, no third array (``np.where`` twice was 2.5x slower).
    """
    out = np.array(z, dtype=float)  # a copy
    np.add(out, TWO_PI, out=out, where=z < 0)
    np.subtract(out, TWO_PI, out=out, where=z >= TWO_PI)
    return out


def _directions(dx: np.ndarray, dy: np.ndarray, flat: np.ndarray) -> np.ndarray:
    """The direction in [0, 2 pi) of the ``(n, n)`` offsets ``dx``, ``dy`` at flat indices ``flat`` (what the
    whole matrix's ``np.arctan2`` gives there, bit for bit)."""
    out = np.arctan2(dy.ravel()[flat], dx.ravel()[flat])
    np.add(out, TWO_PI, out=out, where=out < 0)
    return np.asarray(out)


def _towards(ang: np.ndarray, i: np.ndarray, j: np.ndarray) -> np.ndarray:
    """The direction from figure ``i`` to figure ``j`` (``i != j``) out of ``ang``, which holds the pairs
    ``i < j``: for ``i > j`` the reverse of ``j``'s toward ``i``, half a turn away (to rounding: it feeds
    bounds with margins, never a verdict)."""
    n = ang.shape[1]
    later = i > j
    out = ang.ravel()[np.where(later, j * n + i, i * n + j)]
    np.add(out, np.pi, out=out, where=later)
    np.subtract(out, TWO_PI, out=out, where=out >= TWO_PI)
    return np.asarray(out)


@functools.lru_cache(maxsize=8)
def _upper_flat(n: int) -> np.ndarray:
    """The flat indices of the pairs ``i < j`` of ``n`` models, in order (read-only)."""
    flat = np.flatnonzero(_upper(n))
    flat.flags.writeable = False
    return flat


@functools.lru_cache(maxsize=8)
def _all_open(n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """What :func:`_sweep` reads of ``_upper(n)`` (every pair open): the pairs' second models, flat indices,
    the rows with a pair and each pair's row among them (read-only)."""
    pi, pj = np.nonzero(_upper(n))
    out = (pj, _upper_flat(n), np.unique(pi), pi)  # the rows with a pair are the first n - 1: each its own place
    for arr in out:
        arr.flags.writeable = False
    return out


@functools.lru_cache(maxsize=8)
def _upper(n: int) -> np.ndarray:
    """Return the (read-only) mask of the pairs ``i < j`` of ``n`` models."""
    mask = np.triu(np.ones((n, n), dtype=bool), k=1)
    mask.flags.writeable = False
    return mask


UNIT_HULL_POINTS = 12  # points per base of a unit's hull (circumscribed: the hull holds every base)


def unit_hull(models: Sequence[Model]) -> BaseGeometry:
    """Return the solid obstacle a High Fire infantry unit makes: the convex hull of its bases."""
    pts = np.concatenate([np.asarray(m.position_mm) + _HULL_RING * (m.base_mm / 2.0) for m in models])
    return shapely.convex_hull(shapely.multipoints(pts))


HULL_SCALE = 1.0 / math.cos(math.pi / UNIT_HULL_POINTS)  # a hull point's distance from its base centre, in radii
_HULL_ANGLES = np.linspace(0.0, 2 * np.pi, UNIT_HULL_POINTS, endpoint=False)
_HULL_RING = np.stack([np.cos(_HULL_ANGLES), np.sin(_HULL_ANGLES)], axis=1) * HULL_SCALE


@functools.lru_cache(maxsize=8)
def _unit_solids(bases: tuple[tuple[float, float, float, int], ...], infantry: frozenset[int]
                 ) -> tuple[tuple[int, ...], tuple[BaseGeometry, ...], "_Outlines | None", np.ndarray]:
    """The solids High Fire's infantry units make, remembered by value: owners, hulls, outlines, members.

    ``bases`` is ``(x, y, radius, unit)`` of every model, ``infantry`` the units (by index) that
    are infantry of two figures or more. Each group of figures within 1" of one another is one
    solid (:func:`obstacle_groups`); the solids come in the order of their first figure.
    ``members`` is ``(solids, M)``: the models (by index) of each solid, a short group repeating
    its first (what :func:`_circle_extent` reads).
    """
    arr = np.array(bases, dtype=float).reshape(-1, 4)
    x, y, rad, unit_of = arr[:, 0], arr[:, 1], arr[:, 2], arr[:, 3].astype(int)
    labels = _group_labels(x, y, rad, unit_of)
    by_label: dict[int, list[int]] = {}
    for k, (label, unit) in enumerate(zip(labels.tolist(), unit_of.tolist())):
        if unit in infantry:
            by_label.setdefault(label, []).append(k)
    groups = [g for g in by_label.values() if len(g) >= 2]
    flat = np.array([k for g in groups for k in g], dtype=np.intp)
    hulls, outlines = _unit_hulls(x[flat], y[flat], rad[flat], [len(g) for g in groups])
    members = _outer_members(groups, x, y, rad, outlines)
    return tuple(int(unit_of[g[0]]) for g in groups), tuple(hulls), outlines, members


def _outer_members(groups: list[list[int]], x: np.ndarray, y: np.ndarray, rad: np.ndarray,
                   outlines: "_Outlines | None") -> np.ndarray:
    """The members of each group owning a corner of its hull, ``(groups, M)``, a short row repeating its first.

    The hull is that of the polygons around the bases, so it is the hull of the corners' owners'
    polygons, held by their outer circles and holding their own bases: the others add no
    direction to the solid's span (:func:`_circle_extent`) and are left out (in a line of
    figures, the two ends are kept). A corner is owned by the bases it lies on the outer circle
    of (the hull's corners are the polygons' points); a group with a corner owned by none, or
    without outlines, keeps every member.
    """
    if not groups:
        return np.zeros((0, 1), dtype=np.intp)
    width = max(len(g) for g in groups)
    full = np.array([g + g[:1] * (width - len(g)) for g in groups], dtype=np.intp)
    if outlines is not None:
        vx, vy = outlines.edges[:, :, 0, 0], outlines.edges[:, :, 0, 1]  # (S, E) corners, NaN past the last
        ex, ey = vx[:, :, None] - x[full][:, None, :], vy[:, :, None] - y[full][:, None, :]
        d = np.sqrt(ex * ex + ey * ey)  # (S, E, M); within 1e-9 of the circle either way (np.hypot is 5x slower)
        outer = rad[full][:, None, :] * HULL_SCALE
        with np.errstate(invalid="ignore"):
            on = np.abs(d - outer) <= 1e-9 * outer
        owned = on.any(axis=2) | np.isnan(vx)
        keep = on.any(axis=1) | ~owned.all(axis=1)[:, None]
        kept = [[i for i, k in zip(g, row) if k] for g, row in zip(groups, keep.tolist())]
        width = max(len(g) for g in kept)
        full = np.array([g + g[:1] * (width - len(g)) for g in kept], dtype=np.intp)
    full.flags.writeable = False
    return full


@functools.lru_cache(maxsize=8)
def _terrain_and_solids(static: _Static, solids_key: _Key) -> "_Pieces":
    """The arrays of the terrain's blockers followed by the units' solids, remembered by value."""
    _, hulls, rest, _ = _unit_solids(*solids_key.value)
    both = [o for o in (static.outlines, rest if rest is not None else _outlines(hulls)) if o is not None]
    width = max(o.edges.shape[1] for o in both)
    edges = np.concatenate([np.concatenate([o.edges, np.full((len(o.edges), width - o.edges.shape[1], 2, 2), np.nan)],
                                           axis=1) for o in both])
    return _pieces_from_edges(edges, *(np.concatenate([o[k] for o in both]) for k in (1, 2, 3)))


def _unit_hulls(x: np.ndarray, y: np.ndarray, half: np.ndarray, sizes: Sequence[int]
                ) -> tuple[list[BaseGeometry], "_Outlines | None"]:
    """Return :func:`unit_hull` of each unit and their padded edges, in one go: the units' bases one after
    the other (centres ``x``, ``y``, radii ``half``), ``sizes[k]`` of them in unit ``k``."""
    if not len(sizes):
        return [], None
    centres = np.stack([x, y], axis=1)
    pts = (centres[:, None, :] + _HULL_RING[None, :, :] * half[:, None, None]).reshape(-1, 2)
    which = np.repeat(np.arange(len(sizes)), np.asarray(sizes) * UNIT_HULL_POINTS)
    # The hull of a line string through the points is the hull of the points (checked on 3000
    # random units, aligned and integer ones too), and it skips making one object per point.
    hulls = list(shapely.convex_hull(shapely.linestrings(pts, indices=which)))
    if any(h.geom_type != "Polygon" for h in hulls):
        return hulls, None  # a degenerate hull: worked out piece by piece
    coords, index = shapely.get_coordinates(hulls, return_index=True)  # each ring closed
    counts = np.bincount(index, minlength=len(hulls))
    n_edges = counts - 1
    width = max(int(n_edges.max()), 1)
    edges = np.full((len(hulls), width, 2, 2), np.nan)
    starts = np.cumsum(counts) - counts
    k = np.arange(len(coords)) - np.repeat(starts, counts)  # position of each coordinate in its ring
    last = k == np.repeat(n_edges, counts)
    edges[index[~last], k[~last], 0] = coords[~last]
    first = k == 0
    edges[index[~first], k[~first] - 1, 1] = coords[~first]
    ones = np.ones(len(hulls), dtype=bool)
    for arr in (edges, n_edges, ones):
        arr.flags.writeable = False
    return hulls, _Outlines(edges, n_edges, ones, ones)


@dataclass(frozen=True)
class _Points:
    """Model centres and base radii as separate arrays (no trailing axis of 2: numpy loops stay long)."""

    x: np.ndarray
    y: np.ndarray
    rad: np.ndarray

    def segments(self, i: np.ndarray, j: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Return ``px, py, qx, qy``: the centre segments from ``i``'s base edge to ``j``'s base edge."""
        x, y, rad = self.x, self.y, self.rad
        xi, yi, ri, rj = x[i], y[i], rad[i], rad[j]
        vx, vy = x[j] - xi, y[j] - yi
        d = np.hypot(vx, vy)
        d = np.where(d > 0, d, 1.0)
        ux, uy = vx / d, vy / d
        return xi + ux * ri, yi + uy * ri, x[j] - ux * rj, y[j] - uy * rj


SWEEP_BINS = 128  # direction bins per observer: a lookup table instead of binary searches


@dataclass(frozen=True)
class _Sweep:
    """The pairs still open (each once, ``i < j``), grouped by observer and direction bin.

    The open pairs of observer ``rows[r]`` whose direction falls in bin ``b`` are
    ``cols[first[r * (B + 1) + b]:first[r * (B + 1) + b + 1]]``, their directions in ``angles``.
    """

    rows: np.ndarray  # (R,) the observers with an open pair
    cols: np.ndarray  # (P,) the other model of each open pair
    angles: np.ndarray  # (P,) its direction from the observer, in [0, 2 pi)
    first: np.ndarray  # (R * (B + 1) + 1,) where each (observer, bin) group starts


def _sweep(ang: np.ndarray, still: np.ndarray) -> _Sweep | None:
    """Return the :class:`_Sweep` of the open pairs ``still`` (``i < j``), or ``None`` if there are none."""
    if len(still) > 1 and still is _upper(len(still)):  # every pair open (nothing blocked yet): indices known
        pj, flat, rows, local_pi = _all_open(len(still))
    else:
        pi, pj = np.nonzero(still)
        if not len(pi):
            return None
        has = still.any(axis=1)
        rows = np.flatnonzero(has)
        local_pi = (np.cumsum(has) - 1)[pi]
        flat = pi * still.shape[1] + pj  # flat: faster than indexing by two arrays
    a = ang.ravel()[flat]
    key = local_pi * (SWEEP_BINS + 1) + _bin(a)
    small = key.astype(np.uint16) if len(rows) * (SWEEP_BINS + 1) <= 65535 else key
    perm = np.argsort(small, kind="stable")  # a radix sort when the keys fit in 16 bits
    first = np.zeros(len(rows) * (SWEEP_BINS + 1) + 1, dtype=np.intp)
    np.cumsum(np.bincount(key, minlength=len(rows) * (SWEEP_BINS + 1)), out=first[1:])
    return _Sweep(rows, pj[perm], a[perm], first)


def _bin(a: np.ndarray) -> np.ndarray:
    """Return the direction bin of angles ``a`` (monotone: a larger angle never has a smaller bin)."""
    b = (a * (SWEEP_BINS / TWO_PI)).astype(np.intp)
    np.maximum(b, 0, out=b)  # np.clip's result, without its Python wrappers (called several times a pass)
    return np.minimum(b, SWEEP_BINS - 1, out=b)


def _candidates(sweep: _Sweep, lo: np.ndarray, span: np.ndarray,
                keys: tuple[np.ndarray, np.ndarray] | None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Return ``(r, j, g)`` for every open pair ``(sweep.rows[r], j)`` whose direction lies in blocker ``g``'s interval.

    ``lo`` and ``span`` are ``(R, G)``: the interval of directions blocker ``g`` covers
    seen from observer ``sweep.rows[r]``; or, with ``keys = (r, g)``, flat arrays for
    those (observer row, blocker) pairs only. The bins give a few more models than
    asked for; each is then checked against its interval.
    """
    if keys is None:
        oi, g = np.divmod(np.arange(lo.size), lo.shape[1])
    else:
        oi, g = keys
    lo_m = _wrap(lo.ravel())
    hi_m = lo_m + span.ravel()
    wrap = hi_m > TWO_PI
    q_lo, q_hi, rows, gs = lo_m - ANGLE_EPS, np.minimum(hi_m, TWO_PI) + ANGLE_EPS, oi, g
    if wrap.any():  # the part past 2 pi is asked again from 0
        q_lo = np.concatenate([q_lo, np.full(int(wrap.sum()), -ANGLE_EPS)])
        q_hi = np.concatenate([q_hi, hi_m[wrap] - TWO_PI + ANGLE_EPS])
        rows = np.concatenate([oi, oi[wrap]])
        gs = np.concatenate([g, g[wrap]])
    first = sweep.first
    group = rows * (SWEEP_BINS + 1)
    starts = first[group + _bin(q_lo)]
    counts = first[group + _bin(q_hi) + 1] - starts
    total = int(counts.sum())
    if total == 0:
        empty = np.zeros(0, dtype=np.intp)
        return empty, empty, empty
    query = np.repeat(np.arange(len(counts)), counts)  # the query of each open pair looked at
    at = np.arange(total) + (starts - (np.cumsum(counts) - counts))[query]  # into the open pairs
    a = sweep.angles[at]
    keep = (a >= q_lo[query]) & (a <= q_hi[query])
    query = query[keep]
    return rows[query], sweep.cols[at[keep]], gs[query]


def _terrain_pass(pts: _Points, dist: np.ndarray, ang: np.ndarray, pieces: "_Pieces", geoms: Sequence[BaseGeometry],
                  hard: np.ndarray, limits: np.ndarray, own: np.ndarray, unit_of: np.ndarray, depth_mode: str,
                  blocked: np.ndarray, members: np.ndarray | None = None) -> None:
    """Block the pairs the pieces ``pieces`` stand between (terrain first, ``own`` -1, then unit solids).

    ``hard``: the piece blocks (else it thins sight as a High Fire depth of ``limits``);
    ``own``: the unit whose solid it is; ``members``: the solids' models (:func:`_circle_extent`).
    The candidate pairs of every piece are found at once; the solid pieces go first and the
    depths are clipped only for the pairs they left open.
    """
    x, y, rad = pts.x, pts.y, pts.rad
    g_count = len(own)
    n_static = int((own < 0).sum())
    _deep_inside(pts, pieces, hard, own, unit_of, blocked)
    n = len(x)
    sweep = _sweep(ang, _upper(n) & ~(blocked | blocked.T) if blocked.any() else _upper(n))
    if sweep is None:
        return
    rows = sweep.rows
    xr, yr = x[rows], y[rows]
    gx = np.maximum(np.maximum(pieces.lox[None, :] - xr[:, None], xr[:, None] - pieces.hix[None, :]), 0.0)
    gy = np.maximum(np.maximum(pieces.loy[None, :] - yr[:, None], yr[:, None] - pieces.hiy[None, :]), 0.0)
    dmin = np.sqrt(gx * gx + gy * gy)  # (R, G) distance to the piece's box: a lower bound of the distance to it
    extents = [_extent(pieces, slice(0, n_static), xr, yr)] if n_static else []  # terrain, then unit hulls
    if g_count > n_static:
        cols = slice(n_static, g_count)
        if members is None:
            extents.append(_extent(pieces, cols, xr, yr))
        else:
            ac, wmin, wmax, far, imin, imax = _circle_extent(members, rows, dist, ang, rad,
                                                             _far_corner(pieces, cols, xr, yr))
            extents.append((ac + wmin, wmax - wmin, far, imin - wmin, imax - imin))
    # where each piece's directions start and how far they span, its farthest point's bound, and where
    # it surely lies (from ``lo``; the rest is tested)
    lo, span, dmax, inner_lo, inner_span = (np.concatenate(part, axis=1) if len(extents) > 1 else part[0]
                                            for part in zip(*extents))
    wide = (dmin <= rad[rows, None] + CONTACT_TOLERANCE_MM) | (span >= np.pi - 1e-6)
    lo = np.where(wide, 0.0, lo)
    span = np.where(wide, 2 * np.pi, span)
    if n_static < g_count:
        # a unit's own solid never blocks its members: its members ask nothing of it (they stand in it,
        # so every one of their pairs would be a candidate)
        oi, og = np.nonzero(own[None, :] != unit_of[rows][:, None])
        flat_q = oi * g_count + og  # flat indices into the (R, G) spans: faster than by two arrays
        li, cj, cg = _candidates(sweep, lo.ravel()[flat_q], span.ravel()[flat_q], (oi, og))
    else:  # every piece, every observer
        li, cj, cg = _candidates(sweep, lo, span, None)
    ci = rows[li]
    pair = ci * n + cj  # flat indices: much faster than indexing the (n, n) arrays by two arrays
    ig = li * g_count + cg  # and into the observers' (R, G) spans
    end = dist.ravel()[pair] - rad[cj]
    reach = dmin.ravel()[ig] <= end + CONTACT_TOLERANCE_MM
    if n_static < g_count:  # nor does the target's own solid hide it (the observer's own were never asked)
        reach &= own[cg] != unit_of[cj]  # (terrain's -1 is no unit)
    reach &= ~blocked.ravel()[pair]
    solid = hard[cg]
    s = np.flatnonzero(reach & solid)  # solid pieces first: a pair they block asks nothing of the depths
    if len(s):
        _solid_pass(pts, ang, pieces, blocked, ci[s], cj[s], cg[s], end[s], ig[s], pair[s],
                    (lo, inner_lo, inner_span, wide, dmax))
    d = reach & ~solid
    if d.any():
        d = np.flatnonzero(d)
        d = d[~blocked.ravel()[pair[d]]]
        _depth_pass(pts, pieces, geoms, limits, depth_mode, blocked, ci[d], cj[d], cg[d])


def _solid_pass(pts: _Points, ang: np.ndarray, pieces: "_Pieces", blocked: np.ndarray, ci: np.ndarray,
                cj: np.ndarray, cg: np.ndarray, end: np.ndarray, flat_ig: np.ndarray, pair: np.ndarray,
                spans: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]) -> None:
    """Block the candidate pairs ``(ci, cj)`` a solid piece ``cg`` stands between (of :func:`_terrain_pass`).

    A segment reaching past the piece's farthest point (``end`` past ``dmax``) strictly within where a
    convex piece surely lies is blocked for sure; the others are tested edge by edge, in a few batches.
    ``flat_ig`` indexes the observers' ``(R, G)`` spans, ``pair`` the ``(n, n)`` matrices.
    """
    lo, inner_lo, inner_span, wide, dmax = spans
    assert blocked.flags.c_contiguous  # written through its flat view
    flat = blocked.ravel()
    relang = _wrap(ang.ravel()[pair] - lo.ravel()[flat_ig])
    inner_at = inner_lo.ravel()[flat_ig]
    strictly = (relang > inner_at + 1e-7) & (relang < inner_at + inner_span.ravel()[flat_ig] - 1e-7)
    sure = (pieces.convex[cg] & ~wide.ravel()[flat_ig] & strictly
            & (dmax.ravel()[flat_ig] < end - CONTACT_TOLERANCE_MM))
    flat[pair[sure]] = True
    doubt = ~sure & ~flat[pair]  # after the sure ones: it sees what was just blocked
    if not doubt.any():
        return
    di, dj, dg, dp = ci[doubt], cj[doubt], cg[doubt], pair[doubt]
    n_e = pieces.n_edges[dg]
    width = np.where(n_e <= 1, 1, np.where(n_e <= 4, 4, n_e.max()))  # lines, boxes, the rest
    # a few batches, fewest edges first; shorter pieces repeat their last edge (bincount: no sort of every pair)
    for count in np.flatnonzero(np.bincount(width)):
        sel = np.flatnonzero(width == count)
        sel = sel[~flat[dp[sel]]]  # what an earlier batch blocked needs no test
        if not len(sel):
            continue
        hit = _hits_pieces(pts.segments(di[sel], dj[sel]), pieces, dg[sel], int(count))
        flat[dp[sel][hit]] = True


def _depth_pass(pts: _Points, pieces: "_Pieces", geoms: Sequence[BaseGeometry], limits: np.ndarray,
                depth_mode: str, blocked: np.ndarray, si: np.ndarray, sj: np.ndarray, sg: np.ndarray) -> None:
    """Block the candidate pairs ``(si, sj)`` too much depth of High Fire areas ``sg`` stands between.

    The depth inside each piece is clipped exactly; with ``depth_mode`` "proportional" the
    shares of each piece's limit add up (in the candidates' order, as np.add.at would).
    """
    n = len(pts.x)
    px, py, qx, qy = pts.segments(si, sj)
    inside_mm = np.zeros(len(si))
    conv = pieces.convex[sg] & pieces.is_area[sg]
    box = pieces.box[sg]
    if box.any():  # depth inside rectangles along the axes: clipped between their sides' lines
        k = np.flatnonzero(box)
        inside_mm[k] = _clip_box_length(px[k], py[k], qx[k], qy[k], pieces, sg[k])
    if (conv & ~box).any():  # other convex areas: clipped exactly, every piece in one batch
        k = np.flatnonzero(conv & ~box)
        clip_w = int(pieces.n_edges[sg[k]].max())  # every piece's normals once (wider ones are not asked)
        inside_mm[k] = _clip_length_many(px[k], py[k], qx[k], qy[k], pieces.edges[:, :clip_w], sg[k])
    for g in np.unique(sg[~conv]) if not conv.all() else ():  # the other pieces one by one
        sel = (sg == g) & ~conv
        p = np.stack([px[sel], py[sel]], axis=1)
        q = np.stack([qx[sel], qy[sel]], axis=1)
        lines = shapely.linestrings(np.stack([p, q], axis=1))
        inside_mm[sel] = shapely.length(shapely.intersection(lines, geoms[g]))
    ratio = inside_mm / limits[sg]
    if depth_mode == "separate":
        deep = ratio >= 1.0 - 1e-9
        blocked[si[deep], sj[deep]] = True
    else:
        total = np.bincount(si * n + sj, weights=ratio, minlength=n * n).reshape(blocked.shape)
        blocked |= total >= 1.0 - 1e-9


def _extent(pieces: "_Pieces", cols: slice, x: np.ndarray, y: np.ndarray
            ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Return, seen from each point, where each piece's directions start (its vertices' least angle from its box
    centre's direction), the angle they span, its farthest vertex's bound, and where it surely lies (the same
    interval: ``0`` from the start, the same span): ``(R, C)`` arrays.

    Only as many vertex rows as the widest piece of ``cols`` has are used (the rest repeat a vertex).
    An area's last vertex row (its last edge's end) closes a ring, so it repeats a vertex already
    there and is left out; a line's last end is a vertex of its own.
    """
    n_vert = max(int((pieces.n_edges[cols] + ~pieces.is_area[cols]).max(initial=0)), 1)
    vx, vy = pieces.vx[:n_vert, cols], pieces.vy[:n_vert, cols]  # (V, C)
    relx = vx[:, None, :] - x[None, :, None]  # (V, R, C)
    rely = vy[:, None, :] - y[None, :, None]
    w = np.arctan2(rely, relx)
    ac = np.arctan2(pieces.cy[None, cols] - y[:, None], pieces.cx[None, cols] - x[:, None])  # (R, C)
    w -= ac[None, :, :]  # in (-3 pi, 3 pi): brought into [-pi, pi) in place
    np.subtract(w, TWO_PI, out=w, where=w >= np.pi)  # masked in place: no gather and scatter of the masked values
    np.add(w, TWO_PI, out=w, where=w < -np.pi)
    wmin = w.min(axis=0)
    span = w.max(axis=0) - wmin
    return ac + wmin, span, _far_corner(pieces, cols, x, y), np.zeros_like(wmin), span


def _far_corner(pieces: "_Pieces", cols: slice, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """The distance from each point to the farthest corner of each piece's box ``(R, C)``: an upper
    bound of its farthest vertex (a pair is then blocked for sure a little less often; the exact
    test decides the others), without a (V, R, C) pass."""
    fx = np.maximum(np.abs(pieces.lox[None, cols] - x[:, None]), np.abs(pieces.hix[None, cols] - x[:, None]))
    fy = np.maximum(np.abs(pieces.loy[None, cols] - y[:, None]), np.abs(pieces.hiy[None, cols] - y[:, None]))
    return np.asarray(np.sqrt(fx * fx + fy * fy))


def _circle_extent(members: np.ndarray, rows: np.ndarray, dist: np.ndarray, ang: np.ndarray, rad: np.ndarray,
                   far: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """:func:`_extent` of the unit solids, from their bases' circles instead of their hulls' vertices.

    A solid is the hull of polygons around its bases whose vertices lie on circles of
    ``HULL_SCALE`` radii and whose edges touch the bases' own circles. Seen from outside it,
    its directions are those of these outer circles' vertices, so they lie within the outer
    circles' angular spans (where it may lie: a candidate); the hull holds the bases' circles,
    so every direction within their spans meets it (where it surely lies). The centres'
    directions and distances are already known (``ang``, ``dist``): no arctangent per vertex,
    and no arcsine either: a circle's half span ``asin(r / d)`` lies between ``r / d`` (the
    sure part shrinks a little) and ``tan(asin(r / d))`` (the candidates grow a little).
    Spans are taken from the first member's direction, which the solid holds; an observer
    within a circle gets a quarter turn either side (read as wide). ``far`` (the box's farthest
    corner) bounds the farthest vertex, as does the farthest outer circle: the nearer is kept.
    Only the members that may show on the outline are read (:func:`_outer_members`).
    """
    at = rows[:, None, None] * dist.shape[1] + members[None, :, :]  # flat indices (R, S, M): one gather each
    d = dist.ravel()[at]
    w = ang.ravel()[at]
    below = np.flatnonzero(rows[:, None, None] > members[None, :, :])  # ``ang`` holds the pairs i < j
    w.ravel()[below] = _towards(ang, np.broadcast_to(rows[:, None, None], at.shape).ravel()[below],
                                np.broadcast_to(members[None, :, :], at.shape).ravel()[below])
    ac = w[:, :, 0].copy()
    w -= ac[:, :, None]  # in (-2 pi, 2 pi): brought into [-pi, pi)
    np.subtract(w, TWO_PI, out=w, where=w >= np.pi)  # masked in place: no gather and scatter of the masked values
    np.add(w, TWO_PI, out=w, where=w < -np.pi)
    r = rad[members]  # (S, M)
    inner = r / np.maximum(d, 1e-12)  # sin of a circle's half span: at most the half span (a lower bound)
    s = np.minimum(inner * HULL_SCALE, 1.0)
    with np.errstate(divide="ignore"):  # tan of an outer circle's half span: at least the half span (an upper bound)
        outer = np.minimum(s / np.sqrt(1.0 - s * s), np.pi / 2)
    dmax = np.minimum(far, (d + r * HULL_SCALE).max(axis=2))
    return (ac, (w - outer).min(axis=2), (w + outer).max(axis=2), dmax,
            (w - inner).min(axis=2), (w + inner).max(axis=2))


def _deep_inside(pts: _Points, pieces: "_Pieces", hard: np.ndarray, own: np.ndarray, unit_of: np.ndarray,
                 blocked: np.ndarray) -> None:
    """Block every pair of a model whose whole base lies inside a convex blocking area.

    Any centre segment from such a base starts inside the piece, so it meets it: the
    exact test would say so pair by pair. A unit's own hull never blocks its members.
    """
    cols = np.flatnonzero(hard & pieces.convex & pieces.is_area)
    if not len(cols):
        return
    x, y, r = pts.x[:, None], pts.y[:, None], pts.rad[:, None]
    # the base must lie inside the piece's box first (the piece lies inside its box)
    in_box = ((x - pieces.lox[cols] > r) & (pieces.hix[cols] - x > r)
              & (y - pieces.loy[cols] > r) & (pieces.hiy[cols] - y > r))
    if (own[cols] >= 0).any():
        in_box &= own[cols][None, :] != unit_of[:, None]  # a unit's own solid (it holds its members) never blocks them
    mi, mc = np.nonzero(in_box)  # (model, piece) pairs worth the edge by edge test
    if not len(mi):
        return
    mg = cols[mc]
    # inward distance from the centre to each edge line, at the edge's first vertex (V, P)
    s = pieces.pad_inf[:, mg] - (pieces.nx[:, mg] * (pieces.vx[:, mg] - pts.x[mi])
                                 + pieces.ny[:, mg] * (pieces.vy[:, mg] - pts.y[mi]))
    inside = s.min(axis=0) > pts.rad[mi] + DEEP_MARGIN_MM
    if not inside.any():
        return
    deep = np.zeros((len(pts.x), len(cols)), dtype=bool)  # (n, C)
    deep[mi[inside], mc[inside]] = True
    own_c = own[cols]
    terrain = (deep & (own_c < 0)[None, :]).any(axis=1)
    blocked[terrain, :] = True
    owned = np.flatnonzero(own_c >= 0)
    if len(owned) and deep[:, owned].any():
        n_units = int(max(own.max(), unit_of.max())) + 1
        onehot = np.zeros((len(owned), n_units), dtype=np.int64)
        onehot[np.arange(len(owned)), own_c[owned]] = 1
        inside_unit = deep[:, owned].astype(np.int64) @ onehot  # a unit may make several solids (groups)
        inside_unit[np.arange(len(unit_of)), unit_of] = 0  # a model's own unit never blocks it
        others = inside_unit.sum(axis=1)[:, None] - inside_unit[:, unit_of]  # hulls not of i's or j's unit
        blocked |= others > 0


@dataclass(frozen=True)
class _Pieces:
    """Blocking pieces as padded arrays: edges, vertices, boxes and inward edge normals."""

    edges: np.ndarray  # (G, E, 2, 2), NaN past the last edge
    ax: np.ndarray  # (G, E) edge starts and ends, the last edge repeated past it
    ay: np.ndarray
    bx: np.ndarray
    by: np.ndarray
    vx: np.ndarray  # (V, G) every vertex once, padded with a repeated vertex
    vy: np.ndarray
    nx: np.ndarray  # (V, G) inward unit normal of the edge starting at each vertex (convex areas)
    ny: np.ndarray
    pad_inf: np.ndarray  # (V, G) 0 for a real edge, +inf past the last: neutral for a minimum
    lox: np.ndarray
    loy: np.ndarray
    hix: np.ndarray
    hiy: np.ndarray
    cx: np.ndarray
    cy: np.ndarray
    n_edges: np.ndarray
    is_area: np.ndarray
    convex: np.ndarray
    box: np.ndarray  # (G,) a rectangle with sides along the axes: its box is the piece


class _Outlines(NamedTuple):
    """Pieces as padded edges ``(G, E, 2, 2)`` (NaN past each piece's ``n_edges``) and their kinds."""

    edges: np.ndarray
    n_edges: np.ndarray
    is_area: np.ndarray
    convex: np.ndarray


def _outlines(geoms: Sequence[BaseGeometry]) -> _Outlines:
    infos = [_geom_info(g) for g in geoms]
    g_count = len(infos)
    width = max(max((len(e) for e, _, _ in infos), default=0), 1)
    edges = np.full((g_count, width, 2, 2), np.nan)
    for k, (e, _, _) in enumerate(infos):
        edges[k, :len(e)] = e
    n_edges = np.array([len(e) for e, _, _ in infos], dtype=int)
    is_area = np.array([a for _, a, _ in infos], dtype=bool)
    convex = np.array([c for _, _, c in infos], dtype=bool)
    return _Outlines(edges, n_edges, is_area, convex)


def _pieces_from_edges(edges: np.ndarray, n_edges: np.ndarray, is_area: np.ndarray, convex: np.ndarray) -> _Pieces:
    """Return the :class:`_Pieces` of padded edges ``(G, E, 2, 2)`` (NaN past each piece's ``n_edges``)."""
    g_count, width = edges.shape[:2]
    last_end = edges[np.arange(g_count), np.maximum(n_edges - 1, 0), 1, :]
    verts = np.concatenate([edges[:, :, 0, :], np.full((g_count, 1, 2), np.nan)], axis=1)
    verts[np.arange(g_count), n_edges] = last_end  # every vertex once: the edges' starts, then the last end
    pad = np.isnan(verts[..., 0])
    verts = np.where(pad[..., None], verts[:, :1, :], verts)  # pad with a repeated vertex, not NaN
    lo, hi = verts.min(axis=1), verts.max(axis=1)
    cen = (lo + hi) / 2.0
    # inward unit normals of the edges of convex areas (the edge from vertex k to k + 1)
    ex = verts[:, 1:, 0] - verts[:, :-1, 0]
    ey = verts[:, 1:, 1] - verts[:, :-1, 1]
    length = np.hypot(ex, ey)
    real = (np.arange(width)[None, :] < n_edges[:, None]) & (length > 0) & (convex & is_area)[:, None]
    starts = edges[:, :, 0, :]
    known = ~np.isnan(starts[:, :, 0])
    count = known.sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        nx, ny = -ey / length, ex / length  # left normal: inward for a counter-clockwise ring
        # np.nanmean's sums (NaN read as 0, over the known starts), without its checks: several times faster
        mean_x = np.where(known, starts[:, :, 0], 0.0).sum(axis=1) / count
        mean_y = np.where(known, starts[:, :, 1], 0.0).sum(axis=1) / count
    side = nx * (mean_x[:, None] - verts[:, :-1, 0]) + ny * (mean_y[:, None] - verts[:, :-1, 1])
    flip = np.where(side < 0, -1.0, 1.0)
    nx, ny = np.where(real, nx * flip, 0.0), np.where(real, ny * flip, 0.0)
    pad_inf = np.where(real, 0.0, np.inf)
    # one more row so the normals line up with the (V = E + 1) vertices; its edge is not real
    nx = np.concatenate([nx, np.zeros((g_count, 1))], axis=1)
    ny = np.concatenate([ny, np.zeros((g_count, 1))], axis=1)
    pad_inf = np.concatenate([pad_inf, np.full((g_count, 1), np.inf)], axis=1)
    # Past its last edge a piece repeats that edge, which does not change whether a segment meets
    # some edge (the inside test counts only the real edges), so pieces of a few sizes share a batch.
    src = np.where(np.arange(width)[None, :] < n_edges[:, None], np.arange(width)[None, :],
                   np.maximum(n_edges - 1, 0)[:, None])
    dup = edges[np.arange(g_count)[:, None], src]
    arrays = dict(
        edges=edges, ax=dup[:, :, 0, 0].copy(), ay=dup[:, :, 0, 1].copy(),
        bx=dup[:, :, 1, 0].copy(), by=dup[:, :, 1, 1].copy(),
        vx=np.ascontiguousarray(verts[..., 0].T), vy=np.ascontiguousarray(verts[..., 1].T),
        nx=np.ascontiguousarray(nx.T), ny=np.ascontiguousarray(ny.T), pad_inf=np.ascontiguousarray(pad_inf.T),
        lox=lo[:, 0].copy(), loy=lo[:, 1].copy(), hix=hi[:, 0].copy(), hiy=hi[:, 1].copy(),
        cx=cen[:, 0].copy(), cy=cen[:, 1].copy(), n_edges=n_edges, is_area=is_area, convex=convex,
        box=_axis_rectangles(edges, n_edges, is_area, convex))
    for arr in arrays.values():
        arr.flags.writeable = False
    return _Pieces(**arrays)


def _axis_rectangles(edges: np.ndarray, n_edges: np.ndarray, is_area: np.ndarray, convex: np.ndarray) -> np.ndarray:
    """Which pieces are rectangles whose sides run along the axes (four edges, each with equal x or equal y ends)."""
    real = np.arange(edges.shape[1])[None, :] < n_edges[:, None]
    along = (edges[:, :, 0, 0] == edges[:, :, 1, 0]) | (edges[:, :, 0, 1] == edges[:, :, 1, 1])
    return np.asarray(is_area & convex & (n_edges == 4) & (along | ~real).all(axis=1))


def _disc_pass(pts: _Points, dist: np.ndarray, ang: np.ndarray, blocked: np.ndarray) -> None:
    """Star Wars: any other figure's base on the segment blocks it (exact for discs).

    Only the pairs terrain left open are looked at, and from each observer only the
    figures near enough to stand before one of its open targets.
    """
    rad = pts.rad
    n = len(rad)
    assert blocked.flags.c_contiguous  # written through its flat view below
    still = _upper(n) & ~(blocked | blocked.T)
    sweep = _sweep(ang, still)
    if sweep is None:
        return
    rows = sweep.rows
    d_r = dist[rows]
    front = d_r - rad[None, :]  # (R, n): how far each figure's base starts from each observer
    reach = np.where(still[rows], front, -np.inf).max(axis=1)  # farthest open target's base
    valid = (np.arange(n)[None, :] != rows[:, None]) & (front <= reach[:, None] + CONTACT_TOLERANCE_MM)
    oi, ok = np.nonzero(valid)  # (observer row, figure) worth looking up
    d = d_r.ravel()[oi * n + ok]  # flat indices: faster than indexing by two arrays
    half = np.arcsin(np.minimum(np.maximum(rad[ok] / np.where(d > 0, d, 1.0), 0.0), 1.0))
    obs = rows[oi]
    wide = d <= rad[obs] + rad[ok] + CONTACT_TOLERANCE_MM
    lo = np.where(wide, 0.0, _towards(ang, obs, ok) - half)
    span = np.where(wide, 2 * np.pi, 2 * half)
    li, cj, ck = _candidates(sweep, lo, span, (oi, ok))
    base = li * n
    front = front.ravel()
    keep = (ck != cj) & (front[base + ck] <= front[base + cj] + CONTACT_TOLERANCE_MM)  # the figure is not beyond
    ci, cj, ck = rows[li[keep]], cj[keep], ck[keep]
    px, py, qx, qy = pts.segments(ci, cj)
    ddx, ddy = qx - px, qy - py
    cx, cy = pts.x[ck], pts.y[ck]
    t = np.minimum(np.maximum(((cx - px) * ddx + (cy - py) * ddy) / np.maximum(ddx * ddx + ddy * ddy, 1e-12), 0.0), 1.0)
    near = np.hypot(px + t * ddx - cx, py + t * ddy - cy) <= rad[ck]
    blocked.ravel()[ci[near] * n + cj[near]] = True


def _convex(g: BaseGeometry) -> bool:
    if g.geom_type == "LineString":
        return len(g.coords) == 2
    if g.geom_type != "Polygon" or len(g.interiors):
        return False
    return bool(abs(g.convex_hull.area - g.area) <= 1e-9 * max(g.area, 1.0))


def _hits_pieces(seg: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray], pieces: "_Pieces",
                 g: np.ndarray, count: int) -> np.ndarray:
    """Return, row by row, whether segment ``p-q`` meets piece ``g`` (each with ``count`` edges)."""
    px, py, qx, qy = (c[:, None] for c in seg)
    ax, ay = pieces.ax[g, :count], pieces.ay[g, :count]
    bx, by_ = pieces.bx[g, :count], pieces.by[g, :count]
    hit = _segments_cross(px, py, qx, qy, ax, ay, bx, by_).any(axis=1)
    area = pieces.is_area[g]
    if not area.any():  # lines only: nothing to start inside
        return np.asarray(hit)
    straddle = (ay > py) != (by_ > py)
    x_at = ax + (py - ay) * (bx - ax) / np.where(straddle, by_ - ay, 1.0)  # what does not straddle never counts
    crossing = straddle & (px < x_at) & (np.arange(ax.shape[1])[None, :] < pieces.n_edges[g][:, None])  # real edges
    inside = (crossing.sum(axis=1) % 2 == 1) & area
    return np.asarray(hit | inside)


def _clip_length_many(px: np.ndarray, py: np.ndarray, qx: np.ndarray, qy: np.ndarray,
                      ring: np.ndarray, which: np.ndarray) -> np.ndarray:
    """:func:`_clip_length` of segment ``c`` in convex polygon ``ring[which[c]]`` ((U, E, 2, 2), NaN-padded).

    Each polygon's outward normals are worked out once (there are far fewer pieces than segments).
    """
    ax, ay, bx, by = ring[:, :, 0, 0], ring[:, :, 0, 1], ring[:, :, 1, 0], ring[:, :, 1, 1]
    valid = ~np.isnan(ax)
    count = valid.sum(axis=1)
    cx = np.where(valid, ax, 0.0).sum(axis=1) / count
    cy = np.where(valid, ay, 0.0).sum(axis=1) / count
    nx, ny = by - ay, ax - bx  # one of the two normals of each edge
    flip = ((cx[:, None] - ax) * nx + (cy[:, None] - ay) * ny) > 0
    nx, ny = np.where(flip, -nx, nx)[which], np.where(flip, -ny, ny)[which]  # outward, per segment
    ax, ay, valid = ax[which], ay[which], valid[which]
    dx, dy = qx - px, qy - py
    num = nx * (ax - px[:, None]) + ny * (ay - py[:, None])
    den = dx[:, None] * nx + dy[:, None] * ny
    with np.errstate(divide="ignore", invalid="ignore"):
        t = num / den
    enter = np.where(valid & (den < 0), t, -np.inf).max(axis=1, initial=0.0)
    leave = np.where(valid & (den > 0), t, np.inf).min(axis=1, initial=1.0)
    outside = (valid & (den == 0) & (num < 0)).any(axis=1)
    length = np.clip(np.minimum(leave, 1.0) - np.maximum(enter, 0.0), 0.0, None) * np.hypot(dx, dy)
    return np.where(outside, 0.0, length)


def _clip_box_length(px: np.ndarray, py: np.ndarray, qx: np.ndarray, qy: np.ndarray, pieces: "_Pieces",
                     which: np.ndarray) -> np.ndarray:
    """:func:`_clip_length_many` of segment ``c`` in the rectangle along the axes ``which[c]`` (Liang-Barsky).

    The part of the segment between the lines of the rectangle's left and right sides, and of its
    bottom and top ones: a few operations per segment instead of a few per segment and edge. A
    segment along the sides' direction is within them or outside for its whole length (the sides count
    as inside, as in :func:`_clip_length_many`).
    """
    dx, dy = qx - px, qy - py
    enter, leave = np.zeros(len(px)), np.ones(len(px))
    for d, p, lo, hi in ((dx, px, pieces.lox[which], pieces.hix[which]),
                         (dy, py, pieces.loy[which], pieces.hiy[which])):
        with np.errstate(divide="ignore", invalid="ignore"):
            t1 = np.subtract(lo, p)
            t1 /= d
            t2 = np.subtract(hi, p)
            t2 /= d
        a, b = np.minimum(t1, t2), np.maximum(t1, t2)
        along = d == 0
        if along.any():
            within = (lo <= p) & (p <= hi)
            a = np.where(along, np.where(within, -np.inf, np.inf), a)
            b = np.where(along, np.inf, b)
        np.maximum(enter, a, out=enter)
        np.minimum(leave, b, out=leave)
    return np.asarray(np.maximum(leave - enter, 0.0) * np.hypot(dx, dy))


def _clip_length(p: np.ndarray, q: np.ndarray, ring: np.ndarray) -> np.ndarray:
    """Return the length of each segment ``p-q`` inside a convex polygon given by its edges (Cyrus-Beck)."""
    a, b = ring[:, 0], ring[:, 1]  # (E, 2)
    centre = a.mean(axis=0)
    normal = np.stack([b[:, 1] - a[:, 1], a[:, 0] - b[:, 0]], axis=1)  # one of the two normals of each edge
    side = np.einsum("ej,ej->e", centre - a, normal)
    normal = np.where((side > 0)[:, None], -normal, normal)  # outward
    d = q - p
    num = np.einsum("ej,cej->ce", normal, a[None, :, :] - p[:, None, :])  # (C, E)
    den = d @ normal.T
    with np.errstate(divide="ignore", invalid="ignore"):
        t = num / den
    enter = np.where(den < 0, t, -np.inf).max(axis=1, initial=0.0)
    leave = np.where(den > 0, t, np.inf).min(axis=1, initial=1.0)
    outside = ((den == 0) & (num < 0)).any(axis=1)
    length = np.clip(np.minimum(leave, 1.0) - np.maximum(enter, 0.0), 0.0, None) * np.hypot(d[:, 0], d[:, 1])
    return np.where(outside, 0.0, length)


def _geom_info(g: BaseGeometry) -> tuple[np.ndarray, bool, bool]:
    """Return a piece's boundary edges ``(E, 2, 2)``, whether it is an area, and whether it is convex.

    Terrain's are remembered with its outlines (:func:`_static_part`, keyed on the pieces'
    values); unit hulls change with every move and are worked out each time.
    """
    area = g.geom_type in ("Polygon", "MultiPolygon")
    parts = shapely.get_rings(shapely.get_parts(g)) if area else shapely.get_parts(g)
    segs = [np.stack([c[:-1], c[1:]], axis=1) for c in (shapely.get_coordinates(r) for r in parts)]
    edges = np.concatenate(segs) if segs else np.zeros((0, 2, 2))
    edges.flags.writeable = False
    return edges, area, _convex(g)


def _segments_cross(px: np.ndarray, py: np.ndarray, qx: np.ndarray, qy: np.ndarray,
                    ax: np.ndarray, ay: np.ndarray, bx: np.ndarray, by: np.ndarray) -> np.ndarray:
    """Return whether segments ``p-q`` and ``a-b`` meet (touching counts), element by element."""
    def orient(ox: np.ndarray, oy: np.ndarray, sx: np.ndarray, sy: np.ndarray,
               tx: np.ndarray, ty: np.ndarray) -> np.ndarray:
        return np.asarray((sx - ox) * (ty - oy) - (sy - oy) * (tx - ox))

    d1, d2 = orient(ax, ay, bx, by, px, py), orient(ax, ay, bx, by, qx, qy)
    d3, d4 = orient(px, py, qx, qy, ax, ay), orient(px, py, qx, qy, bx, by)
    proper = (d1 * d2 <= 0) & (d3 * d4 <= 0)
    # Collinear segments: require overlapping extents.
    collinear = (d1 == 0) & (d2 == 0)
    if not collinear.any():
        return np.asarray(proper)
    overlap = ((np.minimum(px, qx) <= np.maximum(ax, bx)) & (np.minimum(ax, bx) <= np.maximum(px, qx))
               & (np.minimum(py, qy) <= np.maximum(ay, by)) & (np.minimum(ay, by) <= np.maximum(py, qy)))
    return np.asarray(np.where(collinear, overlap, proper))


# -- units ----------------------------------------------------------------------------------

@dataclass(frozen=True)
class UnitSight:
    """Sight between two units: who sees whom, and whether the unit-level rule is met."""

    firing_unit: str
    target_unit: str
    visible: bool
    seeing: tuple[str, ...]  # firing models that see at least one target model
    seen: tuple[str, ...]  # target models seen by at least one firing model
    pairs: Mapping[str, tuple[str, ...]]  # firing model -> target models it sees
    steps: tuple[Step, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {"firing_unit": self.firing_unit, "target_unit": self.target_unit, "visible": self.visible,
                "seeing": list(self.seeing), "seen": list(self.seen),
                "pairs": {k: list(v) for k, v in self.pairs.items()},
                "explanation": explanation_json(self.steps)}


@placed_only
def sight_pairs(plan: TablePlan, firers: Sequence[Model], targets: Sequence[Model], *,
                options: Mapping[str, Any] | None = None, ruleset: SightRules
                ) -> dict[str, tuple[str, ...]]:
    """Return, for each firing model, the target models it sees (model-to-model sight)."""
    out: dict[str, tuple[str, ...]] = {}
    if on_table(plan) is plan:  # every figure asked about is on the table: only the rays are traced
        opts = {**ruleset.defaults(), **(options or {})}
        ctx = _context(plan, ruleset)  # the figures by unit, the terrain's boxes: once for every pair
        pairs = [(f, t) for f in firers for t in targets if t.model_id != f.model_id]
        sees = iter(_visible_many(plan, pairs, ruleset, opts, ctx))
        for f in firers:
            out[f.model_id] = tuple(t.model_id for t in targets if t.model_id != f.model_id and next(sees))
        return out
    for f in firers:
        out[f.model_id] = tuple(t.model_id for t in targets if t.model_id != f.model_id
                                and line_of_sight(plan, f.model_id, t.model_id, options=options,
                                                  ruleset=ruleset).visible)
    return out


@placed_only
def unit_sight(plan: TablePlan, unit_a: str, unit_b: str, *, options: Mapping[str, Any] | None = None,
               ruleset: SightRules) -> UnitSight:
    """Return sight from unit ``unit_a`` to unit ``unit_b``: visible when any model sees any model."""
    rs = ruleset
    firers, targets = plan.models_of(unit_a), plan.models_of(unit_b)
    pairs = sight_pairs(plan, firers, targets, options=options, ruleset=rs)
    seeing = tuple(k for k, v in pairs.items() if v)
    seen = tuple(t.model_id for t in targets if any(t.model_id in v for v in pairs.values()))
    step = Step("unit sight", f"{len(seeing)} of {len(firers)} models of {unit_a} see at least one of "
                f"{len(targets)} models of {unit_b}; {len(seen)} of them are seen", "geometry: model-to-model sight",
                value=len(seeing), msg="los.unit",
                params={"seeing": len(seeing), "firers": len(firers), "unit_a": unit_a, "targets": len(targets),
                        "unit_b": unit_b, "seen": len(seen)})
    return UnitSight(unit_a, unit_b, bool(seeing), seeing, seen, pairs, (step,))


@placed_only
def unit_centre_distance_mm(plan: TablePlan, unit_a: str, unit_b: str) -> float:
    """Return the distance between the approximate centres (mean positions) of two units."""
    return math.dist(centroid_mm(plan.models_of(unit_a)), centroid_mm(plan.models_of(unit_b)))
