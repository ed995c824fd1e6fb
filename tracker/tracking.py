"""Follow models and bare bases through a game, frame after frame.

:class:`TrackBook` is the pure logic, fed with what one frame located (models by marker
id, bare bases by position); :class:`Tracker` (in :mod:`tracker.pipeline`) runs the
detectors on images and feeds it.

- Identity: a model is its marker id, never anything else. A bare base keeps its
  identity by continuity: the nearest unmatched track within :data:`BASE_GATE_MM`.
- No jitter: while a model stands still (each measurement within :data:`STILL_GATE_MM`
  of the estimate) the reported position is the running mean of its measurements, so it
  moves by a few hundredths of a millimetre per frame at most; a single stray
  measurement is ignored (the estimate jumps only when two in a row agree elsewhere).
- Hidden: a model not seen keeps its last position, flagged ``seen=False`` since when. A
  model missing from a single frame (a motion-blurred frame, a hand's shadow passing) is not
  hidden: it must be missing from :data:`HIDE_AFTER_FRAMES` frames in a row, and is then
  hidden since the first of them (no flicker).
- Moves: a model that settles (:data:`SETTLE_FRAMES` consistent measurements) farther
  than :data:`MOVE_THRESHOLD_MM` from where it last rested gives a ``moved`` event from
  that rest position (where it was lifted) to the new one (where it was put down), however
  it travelled in between (lifted out of sight or slid across the table).

Events are JSON-ready dicts with a ``type``: ``appeared``, ``hidden``, ``reappeared``,
``moved``, ``base_appeared``, ``base_hidden``, ``base_reappeared``, ``base_moved``.

Examples
--------
>>> book = TrackBook()
>>> [e["type"] for e in book.update([Fix(17, 100.0, 100.0, 0.0)], [], timestamp_s=0.0)]
['appeared']
>>> book.update([], [], timestamp_s=0.1)            # one frame without it: a blurred frame, perhaps
[]
>>> [e["type"] for e in book.update([], [], timestamp_s=0.15)]
['hidden']
>>> book.state().model(17).seen
False
>>> _ = book.update([Fix(17, 160.0, 100.0, 0.0)], [], timestamp_s=0.2)
>>> ev = book.update([Fix(17, 160.0, 100.0, 0.0)], [], timestamp_s=0.3)
>>> ev[0]["type"], ev[0]["from_mm"], ev[0]["to_mm"], ev[0]["distance_mm"]
('moved', [100.0, 100.0], [160.0, 100.0], 60.0)
"""

from __future__ import annotations

import math
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import Any

from tracker.state import BaseTrack, ModelTrack, TrackState

#: A measurement within this distance of a still model's estimate is the same position.
STILL_GATE_MM = 1.0
#: Same for the facing, degrees.
FACING_GATE_DEG = 3.0
#: Measurements averaged at most (a longer memory reacts too slowly to a nudge).
MEAN_WINDOW = 30
#: A model that settles farther than this from where it rested has moved.
MOVE_THRESHOLD_MM = 3.0
#: Consecutive consistent measurements before a model counts as put down.
SETTLE_FRAMES = 2
#: A model missing from this many consecutive frames is hidden (from the first of them).
HIDE_AFTER_FRAMES = 2
#: Largest distance a bare base is followed from one frame to the next.
BASE_GATE_MM = 12.0
#: Bare-base diameters closer than this are the same size.
BASE_SIZE_TOLERANCE_MM = 3.0


@dataclass(frozen=True)
class Fix:
    """One frame's measurement of a model: base centre and facing, table mm."""

    marker_id: int
    x_mm: float
    y_mm: float
    facing_deg: float


@dataclass(frozen=True)
class BaseFix:
    """One frame's measurement of a bare base."""

    x_mm: float
    y_mm: float
    diameter_mm: float
    side: str


def _r(v: float) -> float:
    return round(float(v), 2)


def _angle_diff(a: float, b: float) -> float:
    return (a - b + 180.0) % 360.0 - 180.0


class _Smoothed:
    """Running mean of a still position (and facing).

    A measurement inconsistent with the estimate becomes a candidate; only when the next
    one agrees with the candidate does the estimate jump there (the thing moved). A single
    stray measurement therefore never moves the reported position.
    """

    def __init__(self, x: float, y: float, facing: float) -> None:
        self.x, self.y, self.facing = x, y, facing % 360.0
        self.n = 1
        self.still = 1          # consecutive measurements consistent with the estimate
        self.candidate: tuple[float, float, float] | None = None

    @staticmethod
    def _agree(a: tuple[float, float, float], b: tuple[float, float, float]) -> bool:
        return (math.hypot(a[0] - b[0], a[1] - b[1]) <= STILL_GATE_MM
                and abs(_angle_diff(a[2], b[2])) <= FACING_GATE_DEG)

    def add(self, x: float, y: float, facing: float) -> None:
        new = (x, y, facing % 360.0)
        if self._agree(new, (self.x, self.y, self.facing)):
            self.n = min(self.n + 1, MEAN_WINDOW)
            self.x += (x - self.x) / self.n
            self.y += (y - self.y) / self.n
            self.facing = (self.facing + _angle_diff(new[2], self.facing) / self.n) % 360.0
            self.still += 1
            self.candidate = None
        elif self.candidate is not None and self._agree(new, self.candidate):
            cx, cy, cf = self.candidate
            self.x, self.y = (cx + x) / 2.0, (cy + y) / 2.0
            self.facing = (cf + _angle_diff(new[2], cf) / 2.0) % 360.0
            self.n = 2
            self.still = 2
            self.candidate = None
        else:
            self.candidate = new
            self.still = 0


class _Track:
    def __init__(self, x: float, y: float, facing: float, t: float) -> None:
        self.pos = _Smoothed(x, y, facing)
        self.rest = (x, y, facing % 360.0)      # where it last stood still
        self.seen = True
        self.last_seen_s = t
        self.unseen_since_s: float | None = None
        self.hidden_since_rest = False          # went out of sight since it last rested
        self.missing: list[float] = []          # timestamps of the frames in a row it was missing from


def _distance(tr: _Track, f: BaseFix) -> float:
    """Distance from a base track (its estimate, or the candidate it may be moving to) to a fix."""
    d = math.hypot(f.x_mm - tr.pos.x, f.y_mm - tr.pos.y)
    if tr.pos.candidate is not None:
        d = min(d, math.hypot(f.x_mm - tr.pos.candidate[0], f.y_mm - tr.pos.candidate[1]))
    return d


def _inside(x: float, y: float, regions: Sequence[tuple[float, float, float, float]] | None) -> bool:
    """Whether (x, y) lies in one of the regions (None: the whole table)."""
    return regions is None or any(x0 <= x <= x1 and y0 <= y <= y1 for x0, y0, x1, y1 in regions)


class TrackBook:
    """The tracker's memory: feed it each frame's fixes, read events and :class:`TrackState`.

    The core trusts its inputs (one fix per marker id: :func:`tracker.markers.locate_models`
    already rejected duplicates).
    """

    def __init__(self) -> None:
        self._models: dict[int, _Track] = {}
        self._bases: dict[str, _Track] = {}
        self._base_info: dict[str, tuple[float, str]] = {}
        self._next_base = 1
        self._frame = -1
        self._t = 0.0

    def update(self, models: Sequence[Fix], bases: Sequence[BaseFix] | None, *, timestamp_s: float,
               frame_index: int | None = None,
               base_regions: Sequence[tuple[float, float, float, float]] | None = None,
               present_ids: Collection[int] = (),
               present_bases: Collection[str] = (),
               unsearched_ids: Collection[int] = ()) -> list[dict[str, Any]]:
        """Take one frame's fixes; return the events they cause.

        ``bases`` is None when bare bases were not looked for in this frame (their tracks
        are then left as they were). ``base_regions`` are the table regions ``(x0, y0, x1,
        y1)`` (mm) where they were looked for, None for the whole table: a base track
        outside every region is left as it was unless a fix matches it (it is not hidden
        for want of one). ``present_ids`` are models without a fix whose base was seen
        where they stand (their marker unreadable, not lifted): they are not missing.
        ``present_bases`` are base tracks without a fix whose base was still seen where it
        stands (partly covered: :func:`tracker.bases.confirm_bases`): they are not hidden,
        and keep their position. ``unsearched_ids`` are models without a fix that were not
        looked for in this frame (their region's search waits for a next frame): this frame
        neither counts them missing nor seen.
        """
        self._frame = self._frame + 1 if frame_index is None else frame_index
        self._t = timestamp_s
        events: list[dict[str, Any]] = []
        seen_ids = set()
        for fix in models:
            seen_ids.add(fix.marker_id)
            events += self._update_model(fix, timestamp_s)
        for marker_id, tr in self._models.items():
            if marker_id in seen_ids or not tr.seen:
                continue
            if marker_id in present_ids:
                tr.missing = []
                continue
            if marker_id in unsearched_ids:
                continue
            tr.missing.append(timestamp_s)
            if len(tr.missing) >= HIDE_AFTER_FRAMES:
                events.append(self._hide(tr, tr.missing[0], {"type": "hidden", "marker_id": marker_id}))
        if bases is not None:
            events += self._update_bases(bases, timestamp_s, base_regions, present_bases)
        for e in events:
            e.setdefault("frame", self._frame)
            e.setdefault("timestamp_s", round(timestamp_s, 3))
        return events

    def state(self, *, calibrated: bool = True, warnings: tuple[str, ...] = ()) -> TrackState:
        """Return the immutable snapshot of what is known now."""
        models = tuple(
            ModelTrack(mid, tr.pos.x, tr.pos.y, tr.pos.facing, tr.seen, tr.last_seen_s, tr.unseen_since_s)
            for mid, tr in sorted(self._models.items()))
        bases = tuple(
            BaseTrack(bid, tr.pos.x, tr.pos.y, self._base_info[bid][0], self._base_info[bid][1],
                      tr.seen, tr.last_seen_s, tr.unseen_since_s)
            for bid, tr in sorted(self._bases.items(), key=lambda kv: int(kv[0].split("-")[1])))
        return TrackState(self._frame, self._t, models, bases, calibrated=calibrated, warnings=warnings)

    def known_positions_mm(self) -> list[tuple[int, float, float, bool]]:
        """Return (marker id, x, y, seen) of every model ever seen."""
        return [(mid, tr.pos.x, tr.pos.y, tr.seen) for mid, tr in self._models.items()]

    # ----------------------------------------------------------------------------- models

    @staticmethod
    def _hide(tr: _Track, t: float, event: dict[str, Any]) -> dict[str, Any]:
        tr.missing = []
        tr.seen = False
        tr.unseen_since_s = t
        tr.hidden_since_rest = True
        tr.pos.still = 0
        event.update(x_mm=_r(tr.pos.x), y_mm=_r(tr.pos.y))
        return event

    def _update_model(self, fix: Fix, t: float) -> list[dict[str, Any]]:
        tr = self._models.get(fix.marker_id)
        if tr is None:
            self._models[fix.marker_id] = _Track(fix.x_mm, fix.y_mm, fix.facing_deg, t)
            return [{"type": "appeared", "marker_id": fix.marker_id, "x_mm": _r(fix.x_mm),
                     "y_mm": _r(fix.y_mm), "facing_deg": _r(fix.facing_deg)}]
        events = []
        if not tr.seen:
            gone = math.hypot(fix.x_mm - tr.rest[0], fix.y_mm - tr.rest[1])
            if gone <= MOVE_THRESHOLD_MM:
                events.append({"type": "reappeared", "marker_id": fix.marker_id, "x_mm": _r(fix.x_mm),
                               "y_mm": _r(fix.y_mm), "hidden_s": round(t - (tr.unseen_since_s or t), 3)})
        tr.seen, tr.last_seen_s, tr.unseen_since_s = True, t, None
        tr.missing = []
        tr.pos.add(fix.x_mm, fix.y_mm, fix.facing_deg)
        events += self._settle(tr, {"type": "moved", "marker_id": fix.marker_id})
        return events

    @staticmethod
    def _settle(tr: _Track, event: dict[str, Any]) -> list[dict[str, Any]]:
        """Once the track stands still, compare with where it rested: a move, or the same place."""
        if tr.pos.still < SETTLE_FRAMES:
            return []
        x0, y0, f0 = tr.rest
        x1, y1, f1 = tr.pos.x, tr.pos.y, tr.pos.facing
        dist = math.hypot(x1 - x0, y1 - y0)
        lifted = tr.hidden_since_rest
        tr.rest = (x1, y1, f1)
        tr.hidden_since_rest = False
        if dist <= MOVE_THRESHOLD_MM:
            return []
        event.update(from_mm=[_r(x0), _r(y0)], to_mm=[_r(x1), _r(y1)], distance_mm=_r(dist),
                     facing_from_deg=_r(f0), facing_to_deg=_r(f1), lifted=lifted)
        return [event]

    # ------------------------------------------------------------------------------ bases

    def _update_bases(self, fixes: Sequence[BaseFix], t: float,
                      regions: Sequence[tuple[float, float, float, float]] | None = None,
                      present: Collection[str] = ()) -> list[dict[str, Any]]:
        events: list[dict[str, Any]] = []
        pairs = []
        for i, f in enumerate(fixes):
            for bid, tr in self._bases.items():
                d = _distance(tr, f)
                if d <= BASE_GATE_MM and self._same_kind(bid, f):
                    pairs.append((d, i, bid))
        pairs.sort()
        used_fix: set[int] = set()
        used_track: set[str] = set()
        for _, i, bid in pairs:
            if i in used_fix or bid in used_track:
                continue
            used_fix.add(i)
            used_track.add(bid)
            events += self._see_base(bid, fixes[i], t)
        # A fix far from every seen track: the same kind of base that went out of sight
        # (lifted, now put down) before a brand new one.
        for i, f in enumerate(fixes):
            if i in used_fix:
                continue
            lost = [(_distance(tr, f), bid) for bid, tr in self._bases.items()
                    if bid not in used_track and not tr.seen and self._same_kind(bid, f)]
            if lost:
                _, bid = min(lost)
                used_track.add(bid)
                events += self._see_base(bid, f, t)
                continue
            bid = f"base-{self._next_base}"
            self._next_base += 1
            self._bases[bid] = _Track(f.x_mm, f.y_mm, 0.0, t)
            self._base_info[bid] = (f.diameter_mm, f.side)
            used_track.add(bid)
            events.append({"type": "base_appeared", "track_id": bid, "x_mm": _r(f.x_mm), "y_mm": _r(f.y_mm),
                           "diameter_mm": f.diameter_mm, "side": f.side})
        for bid, tr in self._bases.items():
            if bid in used_track or not tr.seen:
                continue
            if bid in present:
                tr.last_seen_s = t
            elif _inside(tr.pos.x, tr.pos.y, regions):
                events.append(self._hide(tr, t, {"type": "base_hidden", "track_id": bid}))
        return events

    def _same_kind(self, bid: str, f: BaseFix) -> bool:
        diameter, side = self._base_info[bid]
        return side == f.side and abs(diameter - f.diameter_mm) <= BASE_SIZE_TOLERANCE_MM

    def _see_base(self, bid: str, f: BaseFix, t: float) -> list[dict[str, Any]]:
        tr = self._bases[bid]
        events = []
        if not tr.seen and math.hypot(f.x_mm - tr.rest[0], f.y_mm - tr.rest[1]) <= MOVE_THRESHOLD_MM:
            events.append({"type": "base_reappeared", "track_id": bid, "x_mm": _r(f.x_mm), "y_mm": _r(f.y_mm),
                           "hidden_s": round(t - (tr.unseen_since_s or t), 3)})
        tr.seen, tr.last_seen_s, tr.unseen_since_s = True, t, None
        tr.pos.add(f.x_mm, f.y_mm, 0.0)
        return events + self._settle(tr, {"type": "base_moved", "track_id": bid})
