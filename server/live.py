"""The live loop: frame -> tracker -> plan update -> browsers, in one background thread.

The loop owns nothing but its thread: frames come from a frame source, positions from
a tracker (both made by factories so tests can give fakes), and each processed frame is
handed to a callback (the overlay updates the game and publishes to the browsers).
Publishing is non-blocking (see :mod:`server.broadcast`), so the loop runs at the
camera's pace however many browsers watch.

The latest frame is kept with the calibration that maps it; the JPEGs the page shows
(camera view and the top-down plan warped from it) are encoded on request, once per
frame, whoever asks first.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Protocol

import cv2
import numpy as np

from tabletracker.errors import TabletrackerError

log = logging.getLogger(__name__)

PLAN_IMAGE_MAX_PX = 900  # longest side of the warped top-down image
CAMERA_IMAGE_MAX_PX = 1280  # longest side of the camera image sent to browsers
JPEG_QUALITY = 80
GRID_STEPS = 16  # projection grid cells per table side (for the camera-view overlay)
MAP_STEP_PX = 8  # the warped plan asks the projector every 8 plan pixels and interpolates between
WATCHER_NICENESS = 10  # request threads serving watchers run below the live loop


class Projector(Protocol):
    """Maps table mm (N, 2) to image px (N, 2) on the table plane (distortion included)."""

    def __call__(self, points_mm: np.ndarray) -> np.ndarray: ...


@dataclass(frozen=True)
class Sighting:
    """A base marker the tracker follows: base centre in table mm, whether seen in this frame."""

    marker_id: int
    x_mm: float
    y_mm: float
    facing_deg: float | None
    seen: bool
    base_mm: float | None = None  # from the setup's per-marker settings, when given

    def to_json(self) -> dict[str, Any]:
        return {"marker_id": self.marker_id, "x_mm": round(self.x_mm, 2), "y_mm": round(self.y_mm, 2),
                "facing_deg": None if self.facing_deg is None else round(self.facing_deg, 1),
                "seen": self.seen, "base_mm": self.base_mm}


@dataclass(frozen=True)
class BaseSighting:
    """A bare round base the tracker follows by continuity."""

    base_id: str
    x_mm: float
    y_mm: float
    diameter_mm: float
    side: str | None
    seen: bool

    def to_json(self) -> dict[str, Any]:
        return {"base_id": self.base_id, "x_mm": round(self.x_mm, 2), "y_mm": round(self.y_mm, 2),
                "diameter_mm": round(self.diameter_mm, 1), "side": self.side, "seen": self.seen}


@dataclass(frozen=True)
class TrackEvent:
    """A tracker event: ``moved`` (lifted and put down), ``appeared``, ``new_base``, ``lost``..."""

    kind: str
    marker_id: int | None = None
    base_id: str | None = None
    from_mm: tuple[float, float] | None = None
    to_mm: tuple[float, float] | None = None
    distance_mm: float | None = None
    facing_deg: float | None = None
    data: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Snapshot:
    """One processed frame: the image, what the tracker knows, and when it happened."""

    seq: int
    captured_s: float
    processed_s: float
    image: np.ndarray | None
    sightings: tuple[Sighting, ...]
    bases: tuple[BaseSighting, ...]
    events: tuple[TrackEvent, ...]
    projector: Projector | None
    table_mm: tuple[float, float]
    status: str = "ok"
    message: str = ""
    #: the status's detail in each language (``fr``, ``en``), from the catalogues
    texts: Mapping[str, str] = field(default_factory=dict)


class FrameTracker(Protocol):
    """What the loop needs from a tracker adapter: one step per frame, and a close."""

    def step(self) -> Snapshot | None:
        """Read and process the next frame; ``None`` when the source has ended."""

    def close(self) -> None: ...


class LiveLoop:
    """Run ``tracker.step()`` in a daemon thread and pass each snapshot to ``on_snapshot``.

    Parameters
    ----------
    make_tracker
        Returns a fresh :class:`FrameTracker` (called at start, and again when a
        looping source ends).
    on_snapshot
        Called in the loop thread with every snapshot; must not block.
    fps
        The pace for file sources (a camera paces itself); ``None`` runs flat out.
    loop_source
        Start over when the source ends (the bundled sample sequence).
    """

    def __init__(self, make_tracker: Callable[[], FrameTracker], on_snapshot: Callable[[Snapshot], None],
                 *, fps: float | None = None, loop_source: bool = False,
                 on_restart: Callable[[], None] | None = None,
                 on_end: Callable[[], None] | None = None) -> None:
        self._make_tracker = make_tracker
        self._on_restart = on_restart
        self._on_end = on_end
        self.ended = False
        self._on_snapshot = on_snapshot
        self.fps = fps
        self.loop_source = loop_source
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._tracker: FrameTracker | None = None
        self.frames = 0
        self.started_s: float | None = None
        self.last_error: str | None = None

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def start(self) -> None:
        if self.running:
            return
        self._stop.clear()
        self._thread = threading.Thread(target=self._run, name="tabletracker-live", daemon=True)
        self._thread.start()

    def stop(self, timeout_s: float = 5.0) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout_s)
            self._thread = None
        if self._tracker is not None:
            self._tracker.close()
            self._tracker = None

    def step(self) -> Snapshot | None:
        """Process one frame in the calling thread (tests, and the thread's body)."""
        if self._tracker is None:
            self._tracker = self._make_tracker()
        snap = self._tracker.step()
        if snap is None and self.loop_source:
            self._tracker.close()
            self._tracker = self._make_tracker()
            if self._on_restart is not None:
                self._on_restart()
            snap = self._tracker.step()
        if snap is not None:
            self.frames += 1
            self._on_snapshot(snap)
        elif not self.ended:  # the source has ended (and does not start over): said once
            self.ended = True
            if self._on_end is not None:
                self._on_end()
        return snap

    def _run(self) -> None:
        self.started_s = time.monotonic()
        period = 1.0 / self.fps if self.fps else 0.0
        next_s = time.monotonic()
        while not self._stop.is_set():
            try:
                snap = self.step()
                self.last_error = None
            except TabletrackerError as exc:  # a project error (no camera, calibration lost): say why, go on
                log.warning("live loop: frame failed: %s", exc)
                self.last_error = str(exc)
                snap = None
                self._stop.wait(0.5)
            except Exception as exc:  # a bug: logged with its traceback and shown as an internal error, never silent
                log.exception("live loop: internal error (a bug) while processing a frame")
                self.last_error = f"internal error ({type(exc).__name__}): see the server log"
                snap = None
                self._stop.wait(0.5)
            if snap is None and not self.loop_source and self.last_error is None:
                log.info("live loop: the frame source has ended")
                break
            if period:
                next_s += period
                delay = next_s - time.monotonic()
                if delay > 0:
                    self._stop.wait(delay)
                else:
                    next_s = time.monotonic()


class FrameImages:
    """The latest frame and its two JPEG views, encoded once per frame on first request."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._snap: Snapshot | None = None
        self._cache: dict[str, tuple[int, bytes]] = {}
        self._maps_for: Any = None
        self._maps: tuple[np.ndarray, np.ndarray, tuple[int, int]] | None = None
        self._grid: dict[str, Any] | None = None
        self._encoders = {"camera": threading.Lock(), "plan": threading.Lock()}
        self.calibration_version = 0

    def update(self, snap: Snapshot) -> None:
        """Keep ``snap`` as the latest frame (a frame without an image keeps the last good one)."""
        if snap.image is None:
            return
        with self._lock:
            if snap.projector is not (self._snap.projector if self._snap else None):
                self.calibration_version += 1
                self._grid = None
            self._snap = snap

    @property
    def seq(self) -> int:
        with self._lock:
            return self._snap.seq if self._snap else 0

    def jpeg(self, view: str) -> tuple[int, bytes] | None:
        """Return ``(seq, jpeg bytes)`` of the ``camera`` or ``plan`` view, or ``None``.

        Encoding happens outside the lock the live loop takes, so a slow encode never
        holds the tracker up; one encoder per view, the others reuse its result.
        """
        if view not in self._encoders:
            raise ValueError(f"unknown view {view!r}; views are camera, plan")
        with self._encoders[view]:
            with self._lock:
                snap = self._snap
                cached = self._cache.get(view)
            if snap is None or snap.image is None:
                return None
            if cached is not None and cached[0] == snap.seq:
                return cached
            if view == "camera":
                image = _fit(snap.image, CAMERA_IMAGE_MAX_PX)
            else:
                if snap.projector is None:
                    return None
                image = self._warp(snap)
            ok, buf = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, JPEG_QUALITY])
            if not ok:
                return None
            result = (snap.seq, buf.tobytes())
            with self._lock:
                self._cache[view] = result
            return result

    @staticmethod
    def camera_size(snap: Snapshot) -> list[int] | None:
        """Return the size ``[w, h]`` of the camera JPEG the page is sent for ``snap``."""
        if snap.image is None:
            return None
        h, w = snap.image.shape[:2]
        scale = min(1.0, CAMERA_IMAGE_MAX_PX / max(h, w))
        return [round(w * scale), round(h * scale)]

    def projection_grid(self) -> dict[str, Any] | None:
        """Return a grid of table mm -> camera-view px (scaled as the camera JPEG) for the page."""
        with self._lock:
            snap = self._snap
            if snap is None or snap.projector is None or snap.image is None:
                return None
            if self._grid is None:
                w_mm, d_mm = snap.table_mm
                xs = np.linspace(0.0, w_mm, GRID_STEPS + 1)
                ys = np.linspace(0.0, d_mm, GRID_STEPS + 1)
                pts = np.array([(x, y) for y in ys for x in xs], dtype=np.float64)
                px = np.asarray(snap.projector(pts), dtype=np.float64).reshape(-1, 2)
                h, w = snap.image.shape[:2]
                scale = min(1.0, CAMERA_IMAGE_MAX_PX / max(h, w))
                self._grid = {"version": self.calibration_version, "steps": GRID_STEPS,
                              "table_mm": [w_mm, d_mm],
                              "image_px": [round(w * scale), round(h * scale)],
                              "points_px": np.round(px * scale, 2).tolist()}
            return self._grid

    def _warp(self, snap: Snapshot) -> np.ndarray:
        if self._maps is None or self._maps_for is not snap.projector:
            w_mm, d_mm = snap.table_mm
            px_per_mm = PLAN_IMAGE_MAX_PX / max(w_mm, d_mm)
            out_w, out_h = max(1, round(w_mm * px_per_mm)), max(1, round(d_mm * px_per_mm))
            px = _dense_map(snap.projector, out_w, out_h, px_per_mm)
            self._maps = (np.ascontiguousarray(px[..., 0]), np.ascontiguousarray(px[..., 1]), (out_w, out_h))
            self._maps_for = snap.projector
        map_x, map_y, _ = self._maps
        return cv2.remap(snap.image, map_x, map_y, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT)


def _dense_map(projector: Projector, out_w: int, out_h: int, px_per_mm: float) -> np.ndarray:
    """Return the image px of every plan pixel centre, (out_h, out_w, 2) float32.

    The lens and the perspective vary smoothly, so the projector is asked on a grid
    every :data:`MAP_STEP_PX` plan pixels and the rest is interpolated bilinearly
    (64 times fewer projections; well under 0.1 px off for a webcam lens).
    """
    step = MAP_STEP_PX
    nx, ny = -(-(out_w - 1) // step) + 1, -(-(out_h - 1) // step) + 1
    us, vs = np.arange(nx) * step, np.arange(ny) * step
    gx, gy = np.meshgrid((us + 0.5) / px_per_mm, (vs + 0.5) / px_per_mm)
    coarse = np.asarray(projector(np.stack([gx.ravel(), gy.ravel()], axis=1)), dtype=np.float64).reshape(ny, nx, 2)
    fx, fy = np.arange(out_w) / step, np.arange(out_h) / step
    i0 = np.minimum(fx.astype(int), nx - 2) if nx > 1 else np.zeros(out_w, int)
    j0 = np.minimum(fy.astype(int), ny - 2) if ny > 1 else np.zeros(out_h, int)
    tx, ty = (fx - i0)[None, :, None], (fy - j0)[:, None, None]
    i1, j1 = np.minimum(i0 + 1, nx - 1), np.minimum(j0 + 1, ny - 1)
    top = coarse[j0][:, i0] * (1 - tx) + coarse[j0][:, i1] * tx
    bottom = coarse[j1][:, i0] * (1 - tx) + coarse[j1][:, i1] * tx
    return (top * (1 - ty) + bottom * ty).astype(np.float32)


def lower_thread_priority(niceness: int = WATCHER_NICENESS) -> None:
    """Let the calling thread (serving a watcher) give way to the live loop for the CPU.

    Linux schedules threads one by one, so a request thread encoding a JPEG for a phone
    can be niced without touching the tracker's thread. Elsewhere this does nothing.
    """
    try:
        os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), niceness)
    except (AttributeError, OSError, PermissionError):
        pass


def _fit(image: np.ndarray, max_px: int) -> np.ndarray:
    h, w = image.shape[:2]
    scale = max_px / max(h, w)
    if scale >= 1.0:
        return image
    return cv2.resize(image, (round(w * scale), round(h * scale)), interpolation=cv2.INTER_LINEAR)
