"""Refine the lens over the frames of a stream, and say when it has settled.

Without a camera file the first frame gives a lens from its markers and the table's
edges (:func:`calibration.table.calibrate_table`). While ``serve`` or ``track`` runs,
:class:`LensRefiner` takes a frame now and then (every :data:`REFINE_EVERY_FRAMES` frames
until the lens settles, then every :data:`SETTLED_EVERY_FRAMES`), in a background thread so
the tracking loop never waits, and fits one lens to the last :data:`MAX_FRAMES` frames
together: models moved to new places add new constraints, and noise averages out.

The lens has *settled* when at least :data:`MIN_FRAMES_TO_SETTLE` frames are in the fit,
the position error its uncertainty predicts at the table's edges is at most
:data:`SETTLED_ERROR_MM`, and the last estimate moved table positions by at most
:data:`SETTLED_CHANGE_MM` from the one before.

:class:`LensRefiningTracker` wraps a tracker (anything with ``process(frame)``, ``state``,
``calibration`` and ``replace_calibration(calibration)``) and adds ``lens_refined`` and
``lens_settled`` events to what it reports.
"""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass, replace
from typing import Any, Protocol

import numpy as np
from numpy.typing import NDArray

from calibration.errors import CalibrationError
from calibration.lens import LensFit, LensObservation, expected_error_mm, fit_lens
from calibration.setup import Setup
from calibration.table import TableCalibration, calibrate_table, lens_estimated

log = logging.getLogger(__name__)

REFINE_EVERY_FRAMES = 15
"""Frames between two refinements until the lens settles."""

SETTLED_EVERY_FRAMES = 300
"""Frames between two refinements once it has settled (the lens does not change; models move)."""

MAX_FRAMES = 6
"""Frames fitted together (the oldest is dropped)."""

MIN_FRAMES_TO_SETTLE = 3
SETTLED_ERROR_MM = 0.5
SETTLED_CHANGE_MM = 0.2


@dataclass(frozen=True)
class LensStatus:
    """What the refiner knows: for the page and the ``track`` output."""

    frames: int
    focal_px: float
    focal_sd_px: float
    k1: float
    k1_sd: float
    k2: float
    edge_error_mm: float
    change_mm: float
    settled: bool

    def to_dict(self) -> dict[str, Any]:
        return {"frames": self.frames, "focal_px": round(self.focal_px, 1), "focal_sd_px": round(self.focal_sd_px, 1),
                "k1": round(self.k1, 4), "k1_sd": round(self.k1_sd, 4), "k2": round(self.k2, 4),
                "expected_edge_error_mm": round(self.edge_error_mm, 3), "change_mm": round(self.change_mm, 3),
                "settled": self.settled}

    def message(self) -> str:
        state = "settled" if self.settled else "refining"
        return (f"lens {state} over {self.frames} frame(s): focal {self.focal_px:.0f} ± {self.focal_sd_px:.0f} px, "
                f"k1 {self.k1:+.3f} ± {self.k1_sd:.3f}; expected error {self.edge_error_mm:.2f} mm at the edges")


def _grid_px(cal: TableCalibration, height_mm: float) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    w, d = cal.table.width_mm, cal.table.depth_mm
    xs, ys = np.meshgrid(np.linspace(0.03 * w, 0.97 * w, 7), np.linspace(0.03 * d, 0.97 * d, 7))
    pts = np.column_stack([xs.ravel(), ys.ravel()])
    return pts, cal.to_image_px(pts, height_mm=height_mm)


class LensRefiner:
    """Accumulate frames and refit the lens (see the module docstring).

    Parameters
    ----------
    setup
        Table, markers.
    background
        Do the work in a background thread (live sources); False does it in the caller
        (tests, offline runs).
    """

    def __init__(self, setup: Setup, *, background: bool = True, every_frames: int = REFINE_EVERY_FRAMES,
                 max_frames: int = MAX_FRAMES) -> None:
        self.setup = setup
        self.background = background
        self.every_frames = every_frames
        self.max_frames = max_frames
        self._observations: list[LensObservation] = []
        self._last_cal: TableCalibration | None = None
        self._ready: TableCalibration | None = None
        self._status: LensStatus | None = None
        self._lock = threading.Lock()
        self._busy = False
        self._next_frame = 0
        self._thread: threading.Thread | None = None

    def close(self, timeout_s: float = 10.0) -> None:
        """Wait for a refinement under way to finish (before the program exits)."""
        thread = self._thread
        if thread is not None:
            thread.join(timeout_s)

    @property
    def status(self) -> LensStatus | None:
        """The latest estimate's status (None before the first refinement)."""
        with self._lock:
            return self._status

    def offer(self, frame_index: int, image: NDArray[np.uint8] | None) -> TableCalibration | None:
        """Give the refiner a frame; returns a refined calibration when one is ready (else None)."""
        with self._lock:
            ready, self._ready = self._ready, None
            due = image is not None and frame_index >= self._next_frame and not self._busy
            if due:
                settled = self._status is not None and self._status.settled
                self._next_frame = frame_index + (SETTLED_EVERY_FRAMES if settled else self.every_frames)
                self._busy = True
        if due:
            assert image is not None
            if self.background:
                self._thread = threading.Thread(target=self._work, args=(image.copy(),), name="tabletracker-lens",
                                                daemon=True)
                self._thread.start()
            else:
                self._work(image)
                with self._lock:
                    ready, self._ready = self._ready or ready, None
        return ready

    def _work(self, image: NDArray[np.uint8]) -> None:
        try:
            self._refine(image)
        except (CalibrationError, ValueError, np.linalg.LinAlgError) as exc:
            log.info("lens refinement skipped on this frame: %s", exc)
        except Exception:  # noqa: BLE001 - a background refinement must never stop the tracking
            log.exception("lens refinement failed")
        finally:
            with self._lock:
                self._busy = False

    def _refine(self, image: NDArray[np.uint8]) -> None:
        seen: list[LensObservation] = []
        cal = calibrate_table(image, self.setup, observations_out=seen)
        if not seen or cal.lens is None:
            return
        self._observations = (self._observations + seen)[-self.max_frames:]
        fit: LensFit = cal.lens
        if len(self._observations) > 1:
            fit = fit_lens(self._observations, cal.intrinsics.image_size, initial=cal.intrinsics)
        refined = replace(cal, intrinsics=fit.intrinsics, rvec=fit.rvecs[-1], tvec=fit.tvecs[-1], lens=fit,
                          warnings=tuple(w if getattr(w, "msg_id", None) != "calibration.lens_estimated"
                                         else lens_estimated(fit) for w in cal.warnings))
        height = self.setup.markers.base_height_mm
        _centre, edge, _rms = expected_error_mm(fit, (cal.table.width_mm, cal.table.depth_mm), height_mm=height,
                                                trials=20)
        change = float("inf")
        if self._last_cal is not None:
            pts, px = _grid_px(self._last_cal, height)
            change = float(np.nanmax(np.linalg.norm(refined.to_table_mm(px, height_mm=height) - pts, axis=1)))
        k = fit.intrinsics.distortion
        settled = (len(self._observations) >= MIN_FRAMES_TO_SETTLE and edge <= SETTLED_ERROR_MM
                   and change <= SETTLED_CHANGE_MM)
        status = LensStatus(len(self._observations), fit.intrinsics.focal_px, fit.focal_sd_px, float(k[0]),
                            fit.k1_sd, float(k[1]), edge, change if np.isfinite(change) else 0.0, settled)
        log.info("%s", status.message())
        with self._lock:
            self._last_cal = refined
            self._ready = refined
            self._status = status


class _Tracker(Protocol):
    @property
    def state(self) -> Any: ...

    @property
    def calibration(self) -> Any: ...

    def process(self, frame: Any) -> list[dict[str, Any]]: ...

    def replace_calibration(self, calibration: Any) -> None: ...


class LensRefiningTracker:
    """A tracker whose lens is refined over the frames (no camera file); same interface as the tracker."""

    def __init__(self, tracker: _Tracker, refiner: LensRefiner) -> None:
        self.tracker = tracker
        self.refiner = refiner
        self._settled_said = False

    @property
    def state(self) -> Any:
        return self.tracker.state

    def close(self) -> None:
        """Let a refinement under way finish."""
        self.refiner.close()

    @property
    def calibration(self) -> Any:
        return self.tracker.calibration

    def process(self, frame: Any) -> list[dict[str, Any]]:
        events = self.tracker.process(frame)
        if self.tracker.calibration is None or getattr(frame, "image", None) is None:
            return events
        refined = self.refiner.offer(int(frame.index), frame.image)
        status = self.refiner.status
        if refined is not None and status is not None:
            self.tracker.replace_calibration(refined)
            stamp = {"frame": frame.index, "timestamp_s": round(float(frame.timestamp_s), 3)}
            events.append({"type": "lens_refined", **stamp, **status.to_dict()})
            if status.settled and not self._settled_said:
                self._settled_said = True
                events.append({"type": "lens_settled", **stamp, "message": status.message(), **status.to_dict(),
                               "msg": "live.lens_figures",
                               "params": {"focal": round(status.focal_px), "error": round(status.edge_error_mm, 2)}})
        return events
