"""Adapter from the tracker package (frame sources, :class:`tracker.pipeline.Tracker`) to the live loop.

One :class:`TrackerStep` reads one frame from a source, runs the tracker on it, and
returns a :class:`server.live.Snapshot` in the overlay's terms: where each marker and
bare base is (table mm, seen or not), the moves the tracker settled, and a projector
from table mm to the frame's pixels (from the tracker's current calibration).

Examples
--------
>>> spec = source_text({"kind": "camera", "value": 0})
>>> spec
'0'
>>> source_text({"kind": "sample"})
'sample'
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, Mapping

import numpy as np

from calibration.setup import Setup
from server.errors import ServerConfigError, with_fr
from server.live import BaseSighting, Sighting, Snapshot, TrackEvent
from tabletracker.i18n import step_texts

log = logging.getLogger(__name__)

SOURCE_KINDS = ("sample", "camera", "video", "images")
# Events worth a line on the page's status bar (the rest are counted, not shown).
STATUS_EVENTS = ("calibration_failed", "camera_lost", "camera_back", "camera_gave_up", "frame_error",
                 "calibrated", "recalibrated", "corners_hidden", "source_failed", "source_ended",
                 "resolution_changed", "frame_size_changed", "lens_settled")
# Statuses said on the page besides those events: each has the message ``live.<status>`` in the
# catalogues (``tabletracker/locale/<lang>.live.po``), the words shown when nothing more precise is known.
STATES = ("not_calibrated", "warning", "marker_rejected")
#: How long a rejected marker stays said on the status line once all else is well, seconds (the
#: tracker reports a rejection once; a line shown for one frame could not be read).
REJECTION_SHOWN_S = 8.0


def source_text(spec: Mapping[str, Any]) -> str:
    """Return the tracker's source text (``tracker.sources.parse_source``) for a serve option."""
    kind = spec.get("kind", "sample")
    if kind not in SOURCE_KINDS:
        raise with_fr(ServerConfigError(f"unknown source kind {kind!r}; kinds are {', '.join(SOURCE_KINDS)}"),
                      f"type de source inconnu {kind!r} ; les types sont {', '.join(SOURCE_KINDS)}")
    if kind == "sample":
        return "sample"
    return str(spec["value"])


@dataclass(frozen=True)
class Status:
    """The live feed's status: its kind, the English detail, and the message id that words it.

    ``msg`` and ``params`` are the tracker's or the source's when its event carries them (a
    frame of another size, hidden corner markers, a calibration refused), else ``live.<kind>``.
    """

    kind: str
    message: str = ""
    msg: str = ""
    params: Mapping[str, Any] = field(default_factory=dict)

    def texts(self) -> dict[str, str]:
        """The detail in French and English (the generic ``live.<kind>`` words for a language the id lacks)."""
        generic = step_texts({"msg": f"live.{self.kind}"}) or {}
        precise = step_texts({"msg": self.msg, "params": dict(self.params)}) if self.msg else None
        return {**generic, **(precise or {})}


STARTING = Status("starting")


def event_status(e: Mapping[str, Any]) -> Status:
    """The status an event of the frame loop or the source puts on the page, with its message id."""
    kind = str(e["type"])
    return Status(kind, str(e.get("message", "")), *_words(e, f"live.{kind}"))


def _words(e: Mapping[str, Any], generic: str) -> tuple[str, dict[str, Any]]:
    """An event's message id and parameters, or the ``generic`` id without parameters."""
    msg, params = e.get("msg"), e.get("params")
    if not isinstance(msg, str):
        return generic, {}
    return msg, dict(params or {})


class _Projector:
    """Table mm -> image px on the table plane, from a calibration (kept while it is in use)."""

    def __init__(self, calibration: Any) -> None:
        self.calibration = calibration

    def __call__(self, points_mm: np.ndarray) -> np.ndarray:
        return np.asarray(self.calibration.to_image_px(np.asarray(points_mm, dtype=np.float64),
                                                        height_mm=0.0)).reshape(-1, 2)


class TrackerStep:
    """One frame at a time: source -> tracker -> :class:`Snapshot`.

    Parameters
    ----------
    frames
        The tracker's frame iterator (``tracker.sources.open_frames``).
    tracker
        A :class:`tracker.pipeline.Tracker` (or anything with ``process(frame)``,
        ``state`` and ``calibration``).
    table_mm
        The table size, for the warped top-down image.
    clock
        Wall clock for capture stamps (``time.time``).
    """

    def __init__(self, frames: Iterator[Any], tracker: Any, table_mm: tuple[float, float], *,
                 clock: Callable[[], float] = time.time,
                 base_mm_of: Callable[[int], float | None] = lambda marker_id: None) -> None:
        self._frames = frames
        self._base_mm_of = base_mm_of
        self._tracker = tracker
        self._table_mm = table_mm
        self._clock = clock
        self._seq = 0
        self._projector: _Projector | None = None
        self._status = STARTING
        self._status_since = 0.0
        self._texts: tuple[Status, dict[str, str]] = (STARTING, {})
        self._state: Any = None

    def step(self) -> Snapshot | None:
        try:
            frame = next(self._frames)
        except StopIteration:
            return None
        captured_s = self._clock()
        received = getattr(frame, "received_wall_s", None)
        if received is not None:  # a network camera: its latency counts from the frame's arrival
            captured_s = min(captured_s, float(received))
        events = self._tracker.process(frame)
        state = self._tracker.state
        calibration = self._tracker.calibration
        if calibration is None:
            self._projector = None
        elif self._projector is None or self._projector.calibration is not calibration:
            self._projector = _Projector(calibration)
        self._seq += 1
        status = _status(events, state, self._status, skipped=state is self._state)
        if (status.kind == "ok" and self._status.kind == "marker_rejected"
                and captured_s - self._status_since < REJECTION_SHOWN_S):
            status = self._status  # still said a while: nothing more pressing to say
        if status != self._status:
            self._status_since = captured_s
        self._status = status
        self._state = state
        if self._texts[0] != self._status:  # worded once per status, not once per frame
            self._texts = (self._status, self._status.texts())
        return Snapshot(
            seq=self._seq, captured_s=captured_s, processed_s=self._clock(), image=frame.image,
            sightings=tuple(Sighting(m.marker_id, float(m.x_mm), float(m.y_mm), float(m.facing_deg), bool(m.seen),
                                     self._base_mm_of(m.marker_id)) for m in state.models),
            bases=tuple(BaseSighting(b.track_id, float(b.x_mm), float(b.y_mm), float(b.diameter_mm), b.side,
                                     bool(b.seen)) for b in state.bases),
            events=tuple(_event(e) for e in events),
            projector=self._projector if frame.image is not None else None,
            table_mm=self._table_mm, status=self._status.kind, message=self._status.message,
            texts=self._texts[1])

    def close(self) -> None:
        close = getattr(self._frames, "close", None)
        if callable(close):
            try:
                close()
            except ValueError:  # the loop's thread is still inside the source (waiting to reconnect)
                log.debug("frame source still busy at close; its daemon thread ends with the program")
        close = getattr(self._tracker, "close", None)  # a lens refiner's background work
        if callable(close):
            close()


def _status(events: list[dict[str, Any]], state: Any, last: Status, *, skipped: bool = False) -> Status:
    """The status after a frame; ``skipped``: the tracker kept its state (a frame of another size)."""
    for e in events:
        if e.get("type") in STATUS_EVENTS:
            return event_status(e)
    warnings = "; ".join(getattr(state, "warnings", ()))
    if not getattr(state, "calibrated", True):
        if last.kind in ("calibration_failed", "not_calibrated") and last.msg != "live.calibration_failed":
            return Status("not_calibrated", warnings, last.msg, last.params)  # the reason still holds
        return Status("not_calibrated", warnings, "live.not_calibrated")
    hidden = tuple(getattr(state, "corners_hidden", ()))
    if hidden:
        # a hand over a corner marker: positions still come from the last good calibration
        return Status("corners_hidden", warnings, "track.corners_hidden", {"ids": list(hidden)})
    if warnings:
        return Status("warning", warnings, "live.warning")
    if (skipped and last.kind == "frame_error") or last.kind in ("camera_lost", "source_failed", "source_ended"):
        return last  # said as long as it lasts: frames still skipped, a camera still away
    rejected = [e for e in events if e.get("type") == "marker_rejected"]
    if rejected:
        # an unknown marker, a marker seen twice...: said when nothing more pressing is (the first one)
        return Status("marker_rejected", str(rejected[0].get("reason", "")),
                      *_words(rejected[0], "live.marker_rejected"))
    return Status("ok")


def rejection_entry(e: Mapping[str, Any]) -> dict[str, Any]:
    """The game log's entry for a rejected marker: its id, the kind of rejection, and its words in both languages.

    ``code`` is one of the tracker's rejection kinds (``tracker.markers.REJECTION_CODES``, from the
    message id ``track.rejected.<code>``), empty for a rejection without one (worded generically).

    >>> entry = rejection_entry({"type": "marker_rejected", "marker_id": 57, "reason": "unknown marker: id 57",
    ...                          "msg": "track.rejected.unknown_id", "params": {"id": 57}})
    >>> entry["code"], entry["texts"]["fr"][:24], entry["texts"]["en"][:24]
    ('unknown_id', 'marqueur inconnu n° 57 :', 'unknown marker no. 57: n')
    """
    msg, params = _words(e, "live.marker_rejected")
    marker = e.get("marker_id")
    return {"marker_id": None if marker is None else int(marker),
            "code": msg.removeprefix("track.rejected.") if msg.startswith("track.rejected.") else "",
            "reason": str(e.get("reason", "")), "msg": msg, "params": params,
            "texts": Status("marker_rejected", msg=msg, params=params).texts()}


def _event(e: Mapping[str, Any]) -> TrackEvent:
    kind = str(e.get("type", "event"))
    from_mm = tuple(e["from_mm"]) if "from_mm" in e else None
    to_mm = tuple(e["to_mm"]) if "to_mm" in e else None
    if kind in ("moved", "base_moved"):
        return TrackEvent("moved", marker_id=e.get("marker_id"), base_id=e.get("track_id"),
                          from_mm=from_mm, to_mm=to_mm, distance_mm=e.get("distance_mm"),
                          facing_deg=e.get("facing_to_deg"), data=dict(e))
    return TrackEvent(kind, marker_id=e.get("marker_id"), base_id=e.get("track_id"), data=dict(e))


def make_tracker_step(source: Mapping[str, Any], setup: Setup) -> Callable[[], TrackerStep]:
    """Return a factory of :class:`TrackerStep` over the real tracker for ``source``.

    Raises ``ValueError`` (the tracker's ``SourceError``) at once for a file that does not
    exist or an address of an unknown kind. A camera, address or video that cannot be
    opened is a ``source_failed`` status on the page (one warning line on the command
    line), the plan is still served, and a camera or address is tried again with back-off.
    """
    from tracker.pipeline import Tracker
    from tracker.sources import open_frames_waiting, parse_source

    text = source_text(source)
    table = (setup.table.width_mm, setup.table.depth_mm)
    parse_source(text)  # a missing file or an unknown address fails now; a camera that will not open is waited for

    def factory() -> TrackerStep:
        frames = open_frames_waiting(text)
        tracker: Any = Tracker(setup)
        if setup.camera is None:  # no camera file: the lens is refined from the markers as frames come
            from calibration.refine import LensRefiner, LensRefiningTracker

            live = source.get("kind") == "camera"  # off the loop's thread where frames keep coming
            tracker = LensRefiningTracker(tracker, LensRefiner(setup, background=live))
        return TrackerStep(frames, tracker, table,
                           base_mm_of=lambda marker_id: setup.markers.for_marker(marker_id).base_mm)

    return factory
