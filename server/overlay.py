"""The overlay: one object per app holding the saved game, the live loop and the watchers.

Created by :func:`server.app.create_app` and kept in ``app.extensions["tabletracker"]``
(no module-level state). Every change to the game goes through :meth:`Overlay.change`
or :meth:`Overlay.undo`: validated as a game file, written to the event log, then
pushed to the browsers.
"""

from __future__ import annotations

import logging
import threading
import time
from typing import Any, Callable, Mapping

from rules.plan import TablePlan, game_to_dict, parse_game
from server import edits, rulesbridge
from server.broadcast import Broadcaster
from server.live import FrameImages, FrameTracker, LiveLoop, Snapshot, TrackEvent
from server.store import Event, GameStore, StorageError, origin_of
from server.tracking import Status, rejection_entry
from tracker import apply

log = logging.getLogger(__name__)

SIDE_PALETTE = ("#c0392b", "#2e6fd8", "#27ae60", "#8e44ad", "#d35400", "#16a085")


class Overlay:
    """The saved game, the live loop and the browsers watching, for one app.

    Parameters
    ----------
    store
        The game database (already holding a current game).
    make_tracker
        Factory of the frame tracker, or ``None`` when no frame source is given.
    side_colours
        Known side colours (from the setup file), by side name.
    fps, loop_source, queue_size
        Live loop pace, whether the source starts over when it ends, SSE queue size.
    """

    def __init__(self, store: GameStore, make_tracker: Callable[[], FrameTracker] | None, *,
                 side_colours: Mapping[str, str] | None = None, fps: float | None = None,
                 loop_source: bool = False, queue_size: int = 8, source_label: str = "") -> None:
        self.store = store
        self.broadcaster = Broadcaster(queue_size)
        self.images = FrameImages()
        self.side_colours = dict(side_colours or {})
        self.source_label = source_label
        self.stopping = threading.Event()
        self._lock = threading.RLock()
        self._plan_cache: tuple[int, TablePlan] | None = None
        self._cohesion_cache: tuple[int, dict[str, list[str]]] | None = None
        self._placed_markers: set[int] = set()
        self._placed_bases: set[str] = set()
        # the rejected markers the log already tells, by (marker id, code), for the game they were told in
        self._told: tuple[int, set[tuple[int | None, str]]] | None = None
        # frames are named by run and seq: a new server, or the sample starting over, never
        # reuses an image address a page may hold in its cache
        self._boot = f"{int(time.time() * 1000):x}"
        self._restarts = 0
        self._live: dict[str, Any] = {"seq": 0, "run": self.run_id, "models": [], "bases": []}
        self.loop: LiveLoop | None = None
        if make_tracker is not None:
            self.loop = LiveLoop(make_tracker, self.on_snapshot, fps=fps, loop_source=loop_source,
                                 on_restart=self.on_source_restart, on_end=self.on_source_end)

    @property
    def run_id(self) -> str:
        """This server start and this pass of the source (changes when the sample starts over)."""
        return f"{self._boot}-{self._restarts}"

    def on_source_restart(self) -> None:
        """The source started over (the looping sample): place models again where first seen."""
        with self._lock:
            self._placed_markers.clear()
            self._placed_bases.clear()
            self._restarts += 1

    def on_source_end(self) -> None:
        """The frame source has ended (a video or image folder played once): say so to the pages."""
        with self._lock:
            ended = self._live.get("status") == "source_ended"  # the source's own words when it said so
            message = self._live.get("message", "") if ended else ""
            texts = self._live.get("texts") if ended else Status("source_ended").texts()
            live = dict(self._live, status="source_ended", message=message, texts=texts, published_s=time.time())
            self._live = live
        self.broadcaster.publish("live", live)

    # -- the game ---------------------------------------------------------------------
    def editing(self) -> threading.RLock:
        """The lock to hold across reading the game, changing it and recording the change."""
        return self._lock

    def plan(self) -> TablePlan:
        """Return the current game as a :class:`TablePlan` (parsed once per change)."""
        with self._lock:
            cur = self.store.current()
            if self._plan_cache is None or self._plan_cache[0] != cur.event_id:
                self._plan_cache = (cur.event_id, parse_game(dict(cur.game), source="saved game"))
            return self._plan_cache[1]

    def change(self, kind: str, plan: TablePlan, payload: Mapping[str, Any] | None = None,
               *, actor: str = "user") -> Event:
        """Validate ``plan`` as a game file, record it as one step, and push it to the browsers."""
        doc = game_to_dict(plan)
        parse_game(doc, source=f"the game after {kind}")  # a change never saves an invalid game
        with self._lock:
            try:
                event = self.store.record(kind, doc, actor=actor, payload=payload)
            except StorageError:  # kept in memory: the game goes on, the page is told (503)
                self._plan_cache = (self.store.current().event_id, plan)
                unsaved = True
            else:
                self._plan_cache = (event.event_id, plan)
                unsaved = False
        self.publish_game()
        if unsaved and actor != "tracker":
            raise StorageError("the change is kept in memory, not yet saved")
        if unsaved:
            return self.store.events(limit=1)[-1]
        return event

    def replace_game(self, doc: Mapping[str, Any], *, kind: str = "import",
                     payload: Mapping[str, Any] | None = None) -> Event:
        """Replace the whole game by ``doc`` (an import), as one undoable step."""
        plan = parse_game(dict(doc), source="imported game")
        return self.change(kind, plan, payload)

    def undo(self, event_id: int | None = None) -> Event:
        """Undo the player's last action (or back to log entry ``event_id``); see :meth:`GameStore.undo`.

        Camera sightings are not undone: every model whose marker the camera sees now is
        put back where it is seen in the restored game.
        """
        def where_seen(doc: dict[str, Any]) -> dict[str, Any]:
            if self.loop is None:
                return doc
            return game_to_dict(self.place_seen(parse_game(doc, source="the game before the undone action")))

        with self._lock:
            event = self.store.undo(event_id=event_id, adjust=where_seen)
            self._plan_cache = None
        self.publish_game()
        return event

    def game_view(self) -> dict[str, Any]:
        """Return what the page draws from the game: the game file plus derived facts."""
        plan = self.plan()
        cur = self.store.current()
        unit = rulesbridge.length_unit(plan)
        return {
            "event_id": cur.event_id,
            "game_id": cur.game_id,
            "game": dict(cur.game),
            "unit": {"symbol": unit.symbol, "name": unit.name, "mm": unit.mm},
            "sides": self.sides(plan),
            "last_move": self.last_move(),
            "cohesion": self.cohesion(cur.event_id, plan),
            "removed": self.removed_models(plan),
        }

    def removed_models(self, plan: TablePlan) -> list[dict[str, Any]]:
        """Return the models removed by resolutions still in force (their markers are known as removed)."""
        present = {m.model_id for m in plan.models}
        out: dict[str, dict[str, Any]] = {}
        for event in self.store.events(limit=1000):
            if event.kind == "resolution" and event.undone_by is None:
                for r in (event.payload.get("changes") or {}).get("removed", []):
                    if r.get("model") not in present:
                        out[r["model"]] = dict(r)
        return list(out.values())

    def cohesion(self, event_id: int, plan: TablePlan) -> dict[str, list[str]]:
        """Return, for each unit out of cohesion, the models breaking it (computed once per change)."""
        with self._lock:
            if self._cohesion_cache is not None and self._cohesion_cache[0] == event_id:
                return self._cohesion_cache[1]
        out: dict[str, list[str]] = {}
        try:
            has_rule = "cohesion" in rulesbridge.questions_of(plan)
        except ValueError as exc:
            log.warning("cohesion: %s", exc)
            has_rule = False
        for unit in plan.units if has_rule else ():
            if sum(1 for m in plan.models if m.unit_id == unit.unit_id and m.on_table) < 2:  # placed figures only
                continue
            try:
                answer = rulesbridge.ask(plan, "cohesion", [unit.unit_id], {})
            except ValueError as exc:  # e.g. a terrain kind the rule set does not know
                log.warning("cohesion of %s: %s", unit.unit_id, exc)
                continue
            if not answer.get("in_cohesion", True):
                breaking = list(answer.get("breaking", []))
                if not breaking:  # only the "all within" distance is broken: mark the pairs too far apart
                    breaking = list(dict.fromkeys(m for pair in answer.get("too_far", [])
                                                  for m in (pair.get("a"), pair.get("b")) if m))
                out[unit.unit_id] = breaking
        with self._lock:
            self._cohesion_cache = (event_id, out)
        return out

    def sides(self, plan: TablePlan) -> dict[str, str]:
        """Return a colour for each side: the setup's when it names the side, else a palette."""
        out: dict[str, str] = {}
        palette = [c for c in SIDE_PALETTE if c not in self.side_colours.values()]
        for u in plan.units:
            if u.side not in out:
                out[u.side] = self.side_colours.get(u.side) or (palette.pop(0) if palette else "#777777")
        return out

    def last_move(self) -> dict[str, Any] | None:
        """Return the last model move still in force (tracker or page), with its length."""
        for event in reversed(self.store.events(limit=50)):
            if event.kind == "move" and event.undone_by is None:
                return dict(event.payload)
        return None

    def publish_game(self) -> None:
        self.broadcaster.publish("game", self.game_view())

    # -- live -------------------------------------------------------------------------
    def on_snapshot(self, snap: Snapshot) -> None:
        """Take one processed frame: record moves and first placements, push the live view."""
        self.images.update(snap)
        with self._lock:  # read-modify-write of the game, atomic with the page's changes
            changed = self._apply_tracks(snap)
        live = {
            "seq": snap.seq,
            "run": self.run_id,
            "captured_s": snap.captured_s,
            "processed_s": snap.processed_s,
            "published_s": time.time(),
            "status": snap.status,
            "message": snap.message,
            "texts": dict(snap.texts),
            "source": self.source_label,
            "calibration_version": self.images.calibration_version,
            "has_plan_image": snap.projector is not None and snap.image is not None,
            "image_px": self.images.camera_size(snap),
            "models": [s.to_json() for s in snap.sightings],
            "bases": [b.to_json() for b in snap.bases],
            "events": [_event_json(e) for e in snap.events],
        }
        with self._lock:
            self._live = live
            told = self._tell_rejections(snap.events)
        self.broadcaster.publish("live", live)
        for entry in told:
            self.broadcaster.publish("log", entry.to_json())
        if changed:
            log.debug("live: game changed by frame %d", snap.seq)

    def live_view(self) -> dict[str, Any]:
        with self._lock:
            return dict(self._live)

    def _apply_tracks(self, snap: Snapshot) -> bool:
        """Record the game changes this frame causes (:func:`tracker.apply.track_changes`).

        The tracker's settled moves, then the models seen for the first time since the
        source (re)started: the server only keeps which markers it has placed already.
        """
        # a model's first sighting is placed once per pass of the source, from the sightings below
        events: list[apply.TrackEvent] = [_typed(e) for e in snap.events]
        for s in snap.sightings:
            if s.seen and s.marker_id not in self._placed_markers:
                self._placed_markers.add(s.marker_id)
                events.append(apply.Appeared((s.x_mm, s.y_mm), marker_id=s.marker_id, facing_deg=s.facing_deg))
        for b in snap.bases:
            if b.seen and b.base_id not in self._placed_bases:
                self._placed_bases.add(b.base_id)
                events.append(apply.Appeared((b.x_mm, b.y_mm), base_id=b.base_id))
        changes = apply.track_changes(self.plan(), events)
        for change in changes:
            payload = dict(change.payload)
            if change.kind == "move":
                unit = rulesbridge.length_unit(change.plan)
                payload.update(distance=round(unit.from_mm(float(payload["distance_mm"])), 2), unit=unit.symbol)
            self.change(change.kind, change.plan, payload, actor="tracker")
        return bool(changes)

    def _tell_rejections(self, events: tuple[TrackEvent, ...]) -> list[Event]:
        """Write each rejected marker to the game's log once per marker and kind (the frame loop's rule).

        The tracker tells a rejection once, but a new tracker (the sample starting over, a server
        started again on the saved game) tells it again: the log keeps what it told this game. The
        game itself does not change; the entry holds the words in both languages (the page shows its own).
        """
        rejected = [e for e in events if e.kind == "marker_rejected"]
        if not rejected:
            return []
        game_id = self.store.current().game_id
        if self._told is None or self._told[0] != game_id:
            self._told = (game_id, {(p.get("marker_id"), str(p.get("code", "")))
                                    for p in self.store.payloads("marker_rejected")})
        told = self._told[1]
        out: list[Event] = []
        for e in rejected:
            payload = rejection_entry(e.data)
            key = (payload["marker_id"], payload["code"])
            if key in told:
                continue
            told.add(key)
            cur = self.store.current()
            cached = self._plan_cache if self._plan_cache and self._plan_cache[0] == cur.event_id else None
            try:
                entry = self.store.record("marker_rejected", cur.game, actor="tracker", payload=payload)
            except StorageError:  # kept in memory (see GameStore.record) and written with the next change
                entry = self.store.events(limit=1)[-1]
            if cached is not None:  # the same game under a new log entry: not parsed again
                self._plan_cache = (entry.event_id, cached[1])
            out.append(entry)
        return out

    def place_seen(self, plan: TablePlan) -> TablePlan:
        """Return ``plan`` with every model whose marker the camera sees now standing where it is seen.

        Used when rosters bring models (with their marker ids) onto a table already in view.
        """
        seen = {s["marker_id"]: s for s in self.live_view().get("models", []) if s["seen"]}
        for m in plan.models:
            s = seen.get(m.marker_id) if m.marker_id is not None else None
            if s is not None:
                plan = edits.move_model(plan, m.model_id, (s["x_mm"], s["y_mm"]), s.get("facing_deg"))
        return plan

    def sighting(self, marker_id: int) -> dict[str, Any] | None:
        """Return the live sighting of ``marker_id``, if the tracker follows it."""
        for s in self.live_view().get("models", []):
            if s["marker_id"] == marker_id:
                return s
        return None

    def base_sighting(self, base_id: str) -> dict[str, Any] | None:
        for b in self.live_view().get("bases", []):
            if b["base_id"] == base_id:
                return b
        return None

    # -- life cycle --------------------------------------------------------------------------
    def start(self) -> None:
        if self.loop is not None:
            self.loop.start()

    def stop(self) -> None:
        self.stopping.set()
        if self.loop is not None:
            self.loop.stop()
        self.broadcaster.close_all()


def _typed(e: TrackEvent) -> apply.TrackEvent:
    """The tracker's own typed event behind the live loop's record of it."""
    if e.kind == "moved" and e.to_mm is not None:
        return apply.Moved(e.to_mm, e.marker_id, e.base_id, e.from_mm, e.distance_mm, e.facing_deg)
    return apply.SourceEvent(e.kind)  # first sightings come from the snapshot's sightings (see _apply_tracks)


def _event_json(e: TrackEvent) -> dict[str, Any]:
    out: dict[str, Any] = {"kind": e.kind}
    for key in ("marker_id", "base_id", "distance_mm", "facing_deg"):
        value = getattr(e, key)
        if value is not None:
            out[key] = value
    if e.from_mm is not None:
        out["from_mm"] = list(e.from_mm)
    if e.to_mm is not None:
        out["to_mm"] = list(e.to_mm)
    return out


def open_store_game(store: GameStore, doc: Mapping[str, Any], *, force_new: bool = False) -> tuple[str, int]:
    """Resume the saved game when it was started from ``doc``, else start ``doc`` as a new game.

    Returns ``("resumed" | "new", game_id)``.
    """
    origin = origin_of(doc)
    if not force_new and store.current_origin() == origin:
        cur = store.resume()
        if cur is not None:
            return "resumed", cur.game_id
    cur = store.open_game(doc, origin=origin)
    return "new", cur.game_id
