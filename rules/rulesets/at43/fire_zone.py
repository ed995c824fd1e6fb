"""AT-43's fire zone and indirect-fire template radius (AT-43, 2/ Détermination de la zone de feu).

Moved out of the shared :mod:`rules.zones`: only AT-43 has a fire zone.

Examples
--------
>>> from rules.plan import parse_game
>>> plan = parse_game({"ruleset": "at-43", "table": {"width_mm": 1000, "depth_mm": 1000},
...     "units": [{"id": "f", "side": "A", "leader": "f1"}, {"id": "t", "side": "B", "leader": "t1"},
...               {"id": "x", "side": "B"}],
...     "models": [{"id": "f1", "unit": "f", "x_mm": 100, "y_mm": 500, "base_mm": 30},
...                {"id": "f2", "unit": "f", "x_mm": 100, "y_mm": 560, "base_mm": 30},
...                {"id": "t1", "unit": "t", "x_mm": 600, "y_mm": 500, "base_mm": 30},
...                {"id": "t2", "unit": "t", "x_mm": 600, "y_mm": 560, "base_mm": 30},
...                {"id": "x1", "unit": "x", "x_mm": 350, "y_mm": 590, "base_mm": 30},
...                {"id": "x2", "unit": "x", "x_mm": 300, "y_mm": 530, "base_mm": 30}]})
>>> fz = fire_zone(plan, "f", "t")
>>> fz.caught  # x2 stands in the zone; x1's base only touches its edge (y 575): not caught
('x2',)
"""

from __future__ import annotations

import functools
import itertools
import math
from dataclasses import dataclass, field
from typing import Any, Mapping, NamedTuple, Sequence

import numpy as np
import shapely
import shapely.affinity
from shapely.geometry import Polygon
from shapely.geometry.base import BaseGeometry

from rules.errors import InvalidActionError
from rules.explain import Step, explanation_json, msg
from rules.measure import model_distance_mm
from rules.ontable import placed_only
from rules.plan import Model, TablePlan
from rules.rulesets.at43.words import ids_or_nobody


def _size(plan: TablePlan, m: Model) -> float | None:
    size = m.extra.get("size") if m.extra else None
    if size is None and m.profile and plan.profiles and m.profile in plan.profiles:
        prof = plan.profiles[m.profile]
        size = prof.get("size") if hasattr(prof, "get") else None
    return float(size) if isinstance(size, (int, float)) else None


HULL_TOLERANCE_MM = 0.01  # a base must reach more than this into the zone to be caught
HULL_DRAW_SEGS = 32  # points per quarter circle of the drawn zone (the test itself is exact)


class _HullArrays(NamedTuple):
    """A hull's numbers as read-only arrays, made once per hull: centres, radii, and which drawn
    points of which bases may be corners of the outline (``None`` until asked)."""

    centres: np.ndarray
    radii: np.ndarray
    corners: tuple[np.ndarray, np.ndarray] | None


@dataclass(frozen=True)
class CircleHull:
    """The exact convex hull of round bases: tangent segments between circles and arcs of them.

    The hull of discs is the convex polygon through the points where the outer tangent
    lines touch the circles, united with the discs themselves (the arcs between two
    tangent points bulge out of that polygon but stay inside their disc). So the distance
    from a point to the hull is the least of its distance to that polygon and to each disc,
    with no polygonal approximation of the circles.
    """

    centres: tuple[tuple[float, float], ...]
    radii: tuple[float, ...]
    tangent_points: tuple[tuple[float, float], ...]
    _arrays: _HullArrays | None = field(default=None, compare=False, repr=False)

    @classmethod
    def of(cls, models: Sequence[Model]) -> "CircleHull":
        return _circle_hull(tuple((float(m.position_mm[0]), float(m.position_mm[1]), m.base_mm / 2.0) for m in models))

    def polygon(self) -> BaseGeometry:
        """The convex polygon through the tangent points (empty when one disc holds all the others)."""
        return _tangent_polygon(self)

    def arrays(self) -> _HullArrays:
        """The centres ``(N, 2)`` and radii ``(N,)`` as read-only arrays, and the drawn points that may be
        corners of the outline when the hull was built from bases (made once per hull)."""
        arrays = self._arrays
        if arrays is None:
            c, r = np.array(self.centres, dtype=float).reshape(-1, 2), np.array(self.radii, dtype=float)
            c.flags.writeable = r.flags.writeable = False
            arrays = _HullArrays(c, r, None)
            object.__setattr__(self, "_arrays", arrays)
        return arrays

    def distances_mm(self, points: Sequence[tuple[float, float]] | np.ndarray) -> np.ndarray:
        """Exact distance from each point to the hull (0 inside): to the polygon or the nearest disc."""
        p = np.asarray(points, dtype=float).reshape(-1, 2)
        c, r, _ = self.arrays()
        best = np.hypot(p[:, None, 0] - c[None, :, 0], p[:, None, 1] - c[None, :, 1]) - r[None, :]
        out = np.maximum(best.min(axis=1), 0.0)
        poly = self.polygon()
        if not poly.is_empty and len(p):
            out = np.minimum(out, shapely.distance(poly, shapely.points(p)))
        return np.asarray(out, dtype=float)

    def distance_mm(self, point: tuple[float, float]) -> float:
        """Exact distance from ``point`` to the hull (0 inside)."""
        return float(self.distances_mm([point])[0])

    def outline(self) -> BaseGeometry:
        """A drawn polygon of the hull (circles at ``HULL_DRAW_SEGS`` points a quarter, drawn outside them)."""
        return _outline(self)


# The hulls are remembered by value (the bases' centres and radii): a fire zone asked again while
# nobody moved (the page refreshing) costs no geometry. Keys are values, never object ids.

@functools.lru_cache(maxsize=32)
def _tangent_pairs(n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(i, j, sign)``: each pair ``i < j`` of ``n`` bases (``np.triu_indices``' order) twice, for its two
    outer tangents (``sign`` +1 then -1), read-only and remembered (it is slow for its size)."""
    i, j = np.triu_indices(n, k=1)
    out = (np.concatenate([i, i]), np.concatenate([j, j]), np.repeat([1.0, -1.0], len(i)))
    for a in out:
        a.flags.writeable = False
    return out


_DRAW_K = 4 * HULL_DRAW_SEGS  # drawn points per base
_DRAW_ANGLES = np.linspace(0.0, 2 * np.pi, _DRAW_K, endpoint=False)
_DRAW_RING = np.stack([np.cos(_DRAW_ANGLES), np.sin(_DRAW_ANGLES)], axis=1) / math.cos(math.pi / _DRAW_K)
_DRAW_RING.flags.writeable = False  # circumscribed: the drawn polygon holds the hull
# the outward normal of each drawn edge (from point e to point e + 1), e = -1 .. K - 1 (row e + 1): there
# a drawn polygon touches its circle, so a base's polygon reaches c . n + r along it, as far as the base
_DRAW_NORMALS = np.stack([np.cos(_DRAW_ANGLES[np.arange(-1, _DRAW_K)] + np.pi / _DRAW_K),
                          np.sin(_DRAW_ANGLES[np.arange(-1, _DRAW_K)] + np.pi / _DRAW_K)], axis=1)
_DRAW_NORMALS.flags.writeable = False
_DRAW_ROWS = np.arange(_DRAW_K + 1)
_DRAW_ROWS.flags.writeable = False
_DRAW_BULGE = 1.0 / math.cos(math.pi / _DRAW_K) - 1.0  # how far a drawn point stands out of its circle, per mm
SUPPORT_SLACK_MM = 1e-6  # rounding allowance of the tests below (far above it, far below anything drawn)


def _support_candidates(c: np.ndarray, r: np.ndarray, slack: float) -> tuple[np.ndarray, np.ndarray]:
    """Return ``(near, corner)``: which bases reach within ``slack`` of the farthest along a drawn
    normal ``(K + 1, N)``, and which drawn points may be corners of the outline ``(K, N)``.

    ``S[e, k] = c_k . n_e + r_k`` is how far base ``k`` (and its drawn polygon) reaches along the
    normal ``n_e``. Drawn point ``m`` lies between the normals ``a = m - 1`` and ``b = m``. If base
    (or drawn point) ``k`` is within ``d`` of the farthest in a direction ``alpha n_a + beta n_b``
    (``alpha, beta >= 0``, so ``alpha + beta`` is 1 to ``1 + _DRAW_BULGE``), then with ``j`` the
    farthest along ``n_a`` and ``beta <= alpha``: either ``S[a, j] - S[a, k] <= 2 d`` or
    ``S[a, k] + S[b, k] >= S[a, j] + S[b, j] - 2 d``; and the same with ``a`` and ``b`` swapped when
    ``alpha <= beta``. What fails all four is no corner of the outline (for a drawn point) and
    no hull base (for a base, with ``d`` counting the bases' differing bulges).
    (Normals along the rows: numpy reduces and gathers along a row faster.)
    """
    s = np.dot(_DRAW_NORMALS, c.T)  # (K + 1, bases): row e + 1 is normal e, from e = -1
    s += r
    top = s.argmax(axis=1)
    best = s[_DRAW_ROWS, top]
    after = best[:-1] + s[_DRAW_ROWS[1:], top[:-1]]  # the farthest along n_a, as far as it reaches along n_b
    before = best[1:] + s[_DRAW_ROWS[:-1], top[1:]]  # the farthest along n_b, as far as it reaches along n_a
    floor = np.minimum(after, before)
    floor -= slack
    best -= slack
    return s >= best[:, None], s[:-1] + s[1:] >= floor[:, None]


def _corners(corner: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The (base, drawn point) indices where ``corner`` ``(K, N)`` is true, base by base as
    ``np.nonzero`` of its transpose gives them (the flat indices: far faster than a 2-D nonzero)."""
    k, m = np.divmod(corner.T.ravel().nonzero()[0], corner.shape[0])
    return k, m


@functools.lru_cache(maxsize=64)
def _circle_hull(bases: tuple[tuple[float, float, float], ...]) -> CircleHull:
    """:meth:`CircleHull.of` for bases ``(x, y, radius)``.

    Only the bases that may touch the hull (:func:`_support_candidates`, a superset of those
    that do) are paired: the others lie inside it and can neither make nor break an edge.
    """
    arr = np.fromiter(itertools.chain.from_iterable(bases), float, 3 * len(bases)).reshape(-1, 3)  # np.array's values
    c, r = arr[:, :2], arr[:, 2]
    c.flags.writeable = r.flags.writeable = False
    if not bases:
        return CircleHull((), (), (), _HullArrays(c, r, _corners(np.zeros((_DRAW_K, 0), bool))))
    slack = 2.0 * (SUPPORT_SLACK_MM + _DRAW_BULGE * float(r.max() - r.min()))
    near, corner = _support_candidates(c, r, slack)
    hull_bases = np.flatnonzero(near.any(axis=0) | corner.any(axis=0))
    ch, rh = c[hull_bases], r[hull_bases]
    i, j, sign = _tangent_pairs(len(hull_bases))
    ci, ri = ch[i], rh[i]
    d = ch[j] - ci
    length = np.hypot(d[:, 0], d[:, 1])
    # a pair where one circle holds the other (|dr| >= length) has no outer tangent: its angle is
    # NaN, and a NaN line is no edge below
    with np.errstate(invalid="ignore", divide="ignore"):
        theta = np.arctan2(d[:, 1], d[:, 0]) + sign * np.arccos((ri - rh[j]) / length)
    u = np.empty((len(theta), 2))  # outward normal of each tangent line (np.stack's values, without its wrappers)
    np.cos(theta, out=u[:, 0])
    np.sin(theta, out=u[:, 1])
    h = np.einsum("ij,ij->i", ci, u) + ri
    edge = np.flatnonzero((ch @ u.T + rh[:, None] <= h[None, :] + 1e-9).all(axis=0))  # every circle inside: an edge
    ends = np.concatenate([i[edge], j[edge]])
    pts = ch[ends] + rh[ends, None] * np.concatenate([u[edge], u[edge]])
    # the bases' own floats (CircleHull.of made them floats), not numpy's copies of them
    return CircleHull(tuple((x, y) for x, y, _ in bases), tuple(b[2] for b in bases), tuple(map(tuple, pts.tolist())),
                      _HullArrays(c, r, _corners(corner)))


@functools.lru_cache(maxsize=64)
def _tangent_polygon(hull: CircleHull) -> BaseGeometry:
    if len(hull.tangent_points) < 3:
        return shapely.Polygon()
    # the hull of a line string through the points is the hull of the points, without one object a point
    return shapely.convex_hull(shapely.linestrings(np.array(hull.tangent_points)))


@functools.lru_cache(maxsize=64)
def _outline(hull: CircleHull) -> BaseGeometry:
    """:meth:`CircleHull.outline`: the convex hull of the circumscribed polygons of the bases.

    Only the drawn points that may be corners go to GEOS (:func:`_support_candidates`): the same hull.
    """
    c, r, corners = hull.arrays()
    if corners is None:  # a hull made by hand, not from bases
        corners = _corners(_support_candidates(c, r, SUPPORT_SLACK_MM)[1] if len(r) else np.zeros((_DRAW_K, 0), bool))
    k, m = corners
    pts = c[k] + _DRAW_RING[m] * r[k, None]
    if len(pts) < 2:  # no base
        return shapely.convex_hull(shapely.multipoints(pts))
    return shapely.convex_hull(shapely.linestrings(pts))  # the points' hull, without one object a point


@dataclass(frozen=True)
class FireZone:
    """AT-43 fire zone: its polygon, the models caught in impact order, the ones skipped."""

    firing_unit: str
    target_unit: str
    zone: BaseGeometry
    caught: tuple[str, ...]
    skipped: tuple[tuple[str, str], ...]
    distances_mm: Mapping[str, float]
    steps: tuple[Step, ...] = field(default=())

    def to_json(self) -> dict[str, Any]:
        return {"firing_unit": self.firing_unit, "target_unit": self.target_unit,
                "zone_mm": round_2(shapely.get_coordinates(self.zone.exterior)).tolist(),
                "caught": list(self.caught),
                "impact_order": [{"model": mid, "distance_mm": round(self.distances_mm[mid], 2)}
                                 for mid in self.caught],
                "skipped": [{"model": mid, "reason": r} for mid, r in self.skipped],
                "explanation": explanation_json(self.steps)}


ROUND_SURE = 1e-6  # x * 100 this far from a half: its float product rounds the same way as the exact one


def round_2(values: np.ndarray) -> np.ndarray:
    """``round(v, 2)`` of every value, as Python rounds (the nearest float to the decimal rounded
    half-even from the exact value), without a Python call per value (a zone has some 130 corners).

    ``rint(v * 100) / 100`` is that float when ``v * 100`` (rounded) is not within ``ROUND_SURE`` of a
    half: its rounding error (under 1e-8 below 1e6 mm) cannot cross the half, and the division is
    correctly rounded. The values near a half, or huge, are rounded by Python itself.
    """
    v = np.asarray(values, dtype=float)
    scaled = v * 100.0
    out = np.rint(scaled) / 100.0
    unsure = ~(np.abs(scaled - np.floor(scaled) - 0.5) >= ROUND_SURE) | ~(np.abs(v) < 1e6)
    if unsure.any():
        flat, src = out.reshape(-1), v.reshape(-1)
        for k in np.flatnonzero(unsure.reshape(-1)).tolist():
            flat[k] = round(float(src[k]), 2)
    return out


@placed_only
def fire_zone(plan: TablePlan, firing_unit: str, target_unit: str, *, how: str = "edge",
              target_models: Sequence[str] | None = None, source: str = "AT-43, 2/ Détermination de la zone de feu"
              ) -> FireZone:
    """Return the AT-43 fire zone between two units and who is caught in it.

    The zone is the convex hull of both units' bases (docs/rule-choices.md#at-43-2): the
    area between the lines joining the two units' extremities, the units included.
    Every model of another unit whose base is even partly inside is caught; impacts
    go to the nearest to the firing leader first (``how`` measures it). Skipped:
    models smaller than the firers or the targets (``size`` in the model's extra or
    its profile), and prone or kneeling ones (AT-43, Tir direct : qui est touché ?).
    ``target_models`` narrows the target to some models (a single vehicle targeted).
    """
    if firing_unit == target_unit:
        raise InvalidActionError("a unit cannot fire at itself; name two different units", msg_id="at43.two_units",
                                 params={"question": "firezone"})
    firers = plan.models_of(firing_unit)
    targets = plan.models_of(target_unit)
    if target_models is not None:
        chosen = set(target_models)
        targets = tuple(m for m in targets if m.model_id in chosen)
    for uid, ms in ((firing_unit, firers), (target_unit, targets)):
        if not ms:
            raise InvalidActionError(f"unit {uid!r} has no model on the table", msg_id="at43.unit_empty",
                                     params={"unit": uid})
    # AT-43, 2/ Détermination de la zone de feu: the exact hull of the round bases (tangent lines
    # and arcs); a base is caught when it reaches more than HULL_TOLERANCE_MM into it.
    hull = CircleHull.of(list(firers) + list(targets))
    zone = hull.outline()
    others = [m for m in plan.models if m.unit_id not in (firing_unit, target_unit)]
    centres = np.fromiter(itertools.chain.from_iterable(m.position_mm for m in others), float, 2 * len(others))
    radii = np.fromiter((m.base_mm for m in others), float, len(others)) / 2.0
    inside = hull.distances_mm(centres.reshape(-1, 2)) < radii - HULL_TOLERANCE_MM
    leader = plan.leader_of(firing_unit) or firers[0]
    sizes_f = [s for s in (_size(plan, m) for m in firers) if s is not None]
    sizes_t = [s for s in (_size(plan, m) for m in targets) if s is not None]
    floor_size = min(max(sizes_f, default=-math.inf), max(sizes_t, default=-math.inf))
    caught: list[tuple[float, int, str]] = []
    skipped: list[tuple[str, str]] = []
    dist: dict[str, float] = {}
    for k, (m, ins) in enumerate(zip(others, inside)):
        if not ins:
            continue
        d = model_distance_mm(leader, m, how=how)
        dist[m.model_id] = d
        size = _size(plan, m)
        if m.has_status("prone") or m.has_status("kneeling"):
            skipped.append((m.model_id, "prone or kneeling: ignored"))
        elif size is not None and size < floor_size:
            skipped.append((m.model_id, f"size {size:g} is smaller than the firers' or the targets': ignored"))
        else:
            caught.append((d, k, m.model_id))
    caught.sort()
    order = tuple(mid for _, _, mid in caught)
    steps = (
        Step("fire zone", f"the area between the lines joining the extremities of {firing_unit} and "
             f"{target_unit} (convex hull of both units' bases, built exactly from tangent lines between the "
             f"round bases and arcs of them; a base is caught when it reaches more than {HULL_TOLERANCE_MM} mm "
             "into it)", source, option="fire_zone=hull", msg="at43.fire_zone_hull",
             params={"firing": firing_unit, "target": target_unit, "tolerance": HULL_TOLERANCE_MM}),
        Step("caught", f"{len(order) + len(skipped)} model(s) of other units stand even partly in it", source,
             value=len(order) + len(skipped), msg="at43.caught_count", params={"n": len(order) + len(skipped)}),
        Step("impact order", "impacts go first to the models caught, nearest to the firing leader "
             f"{leader.model_id} first: {', '.join(order) if order else 'none'}",
             "AT-43, Tir direct : qui est touché ?", value=list(order), msg="at43.impact_order",
             params={"leader": leader.model_id, "models": ids_or_nobody(order)}),
        *(Step("skipped", f"{mid}: {why}", "AT-43, Tir direct : qui est touché ?", msg="at43.skipped",
               params={"model": mid, "why": skip_msg(why)}) for mid, why in skipped),
    )
    return FireZone(firing_unit, target_unit, zone, order, tuple(skipped), dist, steps)


def skip_msg(why: str) -> Mapping[str, Any]:
    """Why a model in the fire zone takes no impact, as a message (prone, kneeling, too small, unseen)."""
    if why.startswith("prone"):
        return msg("at43.skip.prone")
    if why.startswith("size"):
        return msg("at43.skip.size", size=float(why.split()[1]))
    if why.startswith("its unit kneels"):
        return msg("at43.skip.kneels")
    return msg("at43.skip.unseen")


def sweep_beyond(obstacle: BaseGeometry, direction: tuple[float, float], length_mm: float) -> BaseGeometry:
    """Return the area an obstacle covers when swept ``length_mm`` along ``direction`` (its lee side)."""
    dx, dy = direction
    norm = math.hypot(dx, dy) or 1.0
    shifted = shapely.affinity.translate(obstacle, dx / norm * length_mm, dy / norm * length_mm)
    return shapely.convex_hull(shapely.union(obstacle, shifted)) if obstacle.geom_type in (
        "LineString", "Polygon") and _is_convex(obstacle) else _sweep_parts(obstacle, dx / norm, dy / norm, length_mm)


def _is_convex(g: BaseGeometry) -> bool:
    if g.geom_type == "LineString":
        return len(g.coords) == 2
    return bool(abs(g.convex_hull.area - g.area) <= 1e-6 * max(g.area, 1.0))


def _sweep_parts(g: BaseGeometry, ux: float, uy: float, length_mm: float) -> BaseGeometry:
    coords = shapely.get_coordinates(g.boundary if g.geom_type.endswith("Polygon") else g)
    quads = []
    for a, b in zip(coords[:-1], coords[1:]):
        quads.append(Polygon([a, b, (b[0] + ux * length_mm, b[1] + uy * length_mm),
                              (a[0] + ux * length_mm, a[1] + uy * length_mm)]).buffer(0))
    parts = [q for q in quads if not q.is_empty]
    if g.geom_type.endswith("Polygon"):
        parts.append(g)
    return shapely.union_all(parts)


def at43_template_radius_cm(area_cm: float, successes: int, failures: int
                            ) -> tuple[float, int, list[tuple[str, str, dict[str, Any]]]]:
    """Return (radius in cm, impacts per model, reasons) of an AT-43 indirect-fire template.

    Each reason is its English text, its message id and the message's parameters.

    All shots failed: the radius is the area of effect; otherwise area × successes,
    capped at 10 cm, and models under a capped template take two impacts
    (AT-43, Tir indirect : qui est touché).

    >>> at43_template_radius_cm(3, 2, 0)[:2]
    (6.0, 1)
    >>> at43_template_radius_cm(3, 4, 2)[:2]
    (10.0, 2)
    >>> at43_template_radius_cm(3, 0, 2)[:2]
    (3.0, 1)
    """
    if area_cm <= 0 or successes < 0 or failures < 0 or successes + failures == 0:
        raise InvalidActionError("an indirect shot needs an area of effect above 0 and at least one die "
                                 f"(got area {area_cm}, {successes} successes, {failures} failures)",
                                 msg_id="at43.indirect_bad",
                                 params={"area": area_cm, "successes": successes, "failures": failures})
    if successes == 0:
        return float(area_cm), 1, [(f"every shot failed: the radius is the area of effect, {area_cm:g} cm",
                                    "at43.radius_all_failed", {"area": area_cm})]
    raw = area_cm * successes
    if raw > 10:
        return 10.0, 2, [(f"{area_cm:g} cm x {successes} successes = {raw:g} cm, over 10 cm: "
                          "the radius stays 10 cm and each model takes two impacts", "at43.radius_capped",
                          {"area": area_cm, "successes": successes, "raw": raw})]
    return float(raw), 1, [(f"{area_cm:g} cm x {successes} successes = {raw:g} cm", "at43.radius",
                            {"area": area_cm, "successes": successes, "raw": raw})]
