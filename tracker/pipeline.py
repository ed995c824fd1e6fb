"""The frame loop: detectors on images, fed to the :class:`~tracker.tracking.TrackBook`.

After a full scan of the first frame, each marker seen in the last frame is followed by
refining its old corners on the new frame (:mod:`tracker.refine`) and checking that the
refined square still reads as the same id (:mod:`tracker.decode`); a marker lost by that (a
defocus and JPEG soften its edges and cells) is then read where it was, its square of known
size aligned on its cells (:meth:`Tracker._read_in_place`: taken only as that id, within
half a cell of its place and at its known size, at its new corners, and at most
:data:`IN_PLACE_CHECK_AFTER` frames in a row); a marker that moved too far for either is
searched for in a small region around where it was (the ArUco detector runs on the crop; at
most :data:`REGION_SEARCHES_PER_FRAME` such regions and :data:`REGION_SEARCH_PIXELS` per
frame, the others carried to the next frames, oldest first; when :data:`SHAKE_LOST_MARKERS`
or more are lost at once, the frame was shaken: they first wait a frame, followed again on
the next one); a full scan runs every :data:`FULL_SCAN_EVERY` frames, and sooner (every
:data:`MISSING_SCAN_EVERY` frames) while a known model is missing; once markers are followed
it covers the table's part of the frame only (:data:`TABLE_SCAN_MARGIN_SIDES`); its bands
wait for the search around lost markers at most :data:`BAND_MAX_WAIT_FRAMES` frames; it
keeps following the known markers it misses (one read on its base, :mod:`tracker.onbase`).

Bare bases are searched on the rectified plan (:mod:`tracker.bases`) incrementally, so no
frame pays for the whole table: the whole table is searched once, on the first calibrated
frame (and when :meth:`Tracker.request_full_scan` asks for it); after that each known base
(and each missing model, whose marker may be read on its base) is fitted again in a small
region around where it was, each once every :data:`BASE_SCAN_INTERVAL_S` seconds (spread
over the interval; a base whose place shows no change since its last fit is left as it is,
for up to :data:`BASE_UNCHANGED_MAX_S`), and new bases are looked for in one tile of the
table at a time, the tiles taken in turn at :data:`BASE_SWEEP_PX_PER_S` plan pixels per
second of video (a 60 x 60 cm table at 1080p in about four seconds, a 120 x 120 cm one at 4K
in about sixteen: the safety net for a base the change map misses); where the table changed
since it was last searched (a base put down, :mod:`tracker.changes`) is searched first, once
it has settled. That work is done every :data:`BASE_STEP_S` seconds, never on a frame that
ran a full marker scan nor (at 5 frames a second or more) beside another expensive step (a
band of a spread scan waits for it once it has waited :data:`BASE_MAX_WAIT_S`), a few fits
at a time (:data:`BASE_FITS_PER_STEP`, none beside a tile), the others waiting for the next
step. A known base the fit does not find is looked for again where it stood, knowing its
size (:func:`tracker.bases.confirm_bases`: a hand over part of it keeps it), and is hidden
only when two fits in a row miss it.

The corner markers are checked every :data:`CORNER_CHECK_EVERY` frames: when all four are
visible and have shifted (the table or camera was bumped) or :data:`RECALIBRATE_EVERY`
frames have passed, the table is calibrated again; when some are hidden, the last good
calibration is kept with a warning.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Callable
from dataclasses import replace
from typing import Any

import cv2
import numpy as np

from calibration.aruco import read_corner_markers
from calibration.setup import CORNER_IDS, Setup
from tracker.bases import MODEL_EXCLUSION_MM, FoundBase, PlanView, confirm_bases, find_bases, find_bases_in
from tracker.candidates import Readings, prepare_blurred_reading, read_in_place, snapped_squares
from tracker.changes import ChangeMap
from tracker.decode import same_ids
from tracker.detections import Detections, diagonal_centres
from tracker.markers import (
    IN_PLAY_MAX_ERRORS,
    MarkerDetector,
    MarkerFixes,
    TableMapping,
    detector_for,
    locate_models,
    side_lengths,
)
from tracker.onbase import markers_on_bases
from tracker.refine import refine_corners_status
from tracker.sources import Frame
from tracker.state import TrackState
from tracker.tracking import BASE_GATE_MM, BASE_SIZE_TOLERANCE_MM, STILL_GATE_MM, BaseFix, Fix, TrackBook

log = logging.getLogger(__name__)

FULL_SCAN_EVERY = 30
#: While a known model is missing, a full scan every this many frames (a 1080p scan of two
#: bands leaves three frames of five to the other steps; at 3, the bands followed each other);
#: a model put down is also found where the table changed, its marker read on its base
#: (:mod:`tracker.onbase`).
MISSING_SCAN_EVERY = 5
#: Each known bare base (and a marker on it) is fitted again once per this many seconds of video.
BASE_SCAN_INTERVAL_S = 1.0
#: New bare bases are looked for over this much of the plan (px of the table) per second of video
#: (where the table changed is searched first, whatever the rate: this is the sweep in turn).
BASE_SWEEP_PX_PER_S = 2.5e5
#: A sweep tile spans about this many plan px (its crop adds the search margin around it).
BASE_TILE_PX = 320
#: The base work due (fits, a tile) is done together, once per this many seconds of video:
#: most frames do none of it.
BASE_STEP_S = 0.1
#: At most this many known bases (or missing models' places) are fitted again in one step, and
#: this many beside a tile of the sweep (a tile and a fit together made the base step the
#: slowest frequent step of a 10 fps sequence). Three fits under a hand took 55 to 65 ms CPU at
#: 1080p (the slowest frame of the blurred 1080p sequence once a shake's searches no longer
#: took that frame); twenty fits a second are still many more than a table's bare bases.
BASE_FITS_PER_STEP = 2
BASE_FITS_WITH_TILE = 0
#: A known bare base whose place shows the same as when it was last fitted (:mod:`tracker.changes`)
#: is not fitted again at its turn, for at most this long (seconds of video).
BASE_UNCHANGED_MAX_S = 5.0
#: Base work put off this long behind other steps (seconds of video) goes before the next band.
BASE_MAX_WAIT_S = 0.25
CORNER_CHECK_EVERY = 30
#: A full marker scan covers about this many pixels per frame (a 1080p frame in two frames,
#: a 4K one in eight).
SCAN_BAND_PIXELS = 1_100_000
RECALIBRATE_EVERY = 900
#: While not calibrated, the corner markers are looked for every this many frames.
CALIBRATION_RETRY_EVERY = 5
#: White margin added around a frame when a corner marker close to its edge is missed, px.
CALIBRATION_MARGIN_PX = 8
#: A region searched around a model's last position spans this many marker sides.
ROI_MARKER_SIDES = 4.0
#: A marker followed by refining its old corners may have moved this far (marker cells);
#: farther, its region is searched again.
FOLLOW_MAX_SHIFT_MODULES = 0.5
#: A lost marker read in place (:meth:`Tracker._read_in_place`) may measure this much bigger or
#: smaller than its known size (a model lifted straight up looks bigger), as a fraction.
IN_PLACE_MAX_SCALE = 0.05
#: At most this many lost markers a frame are read in place with the blurred codes (a shaken 4K
#: frame's four to seven took 45 to 65 ms); the others are read by their plain cells only.
IN_PLACE_BLURRED_PER_FRAME = 2
#: A marker read in place this many frames in a row goes to the region search at its next loss.
IN_PLACE_CHECK_AFTER = 5
#: Smallest region searched around a model, px.
ROI_MIN_PX = 48
#: The regions searched around lost markers cover at most this many pixels per frame (at
#: least one region is searched on a frame that searches): when many markers are lost at
#: once (a hand sweeping the table, a bumped camera), the rest wait for the next frames,
#: oldest first, so that no frame pays for all of them (the full scan is spread the same way).
REGION_SEARCH_PIXELS = 60_000
#: And at most this many lost markers' regions per frame: what a region costs is reading the
#: candidates found in it (a blurred marker's, a hand's edges), 20 to 50 ms CPU at 1080p
#: whatever its size, so that three or four in one frame went over 100 ms.
REGION_SEARCHES_PER_FRAME = 2
#: On a frame of more than this many pixels (4K), one region a frame: the rest of the frame's
#: work (following 16 markers, reading some in place) is 25 to 40 ms there, and a blurred region's
#: reading 30 to 50 ms, so that two regions made frames of 95 to 115 ms.
LARGE_FRAME_PIXELS = 4_000_000
#: A frame on which the follow loses this many markers at once was shaken (the camera or the
#: table bumped: a motion blur over the whole frame): those markers wait one frame, kept where
#: they were, and are followed again on the next one (the shake has mostly passed) before any
#: search around them; lost again, they are searched for as usual. Each of their searches costs
#: 30 to 50 ms at 4K, and a shaken 4K frame lost six or eight at once.
SHAKE_LOST_MARKERS = 3
#: A band of a spread scan put off this many frames by the search around lost markers goes
#: before that search: a shaken camera loses several markers at once, frame after frame, and
#: their searches took nearly every frame (a 4K scan took 45 frames, and a model put down
#: meanwhile was never seen again).
BAND_MAX_WAIT_FRAMES = 4
#: Corner markers seen farther than this from where the calibration puts them: recalibrate.
CORNER_SHIFT_PX = 1.5
#: While a corner marker is hidden, the corners are checked every this many frames.
HIDDEN_CORNER_CHECK_EVERY = 10
#: Frames of another size than the calibrated one are skipped; after this many in a row of
#: one new size (the camera switched resolution), the table is calibrated again on them.
FRAME_SIZE_PATIENCE = 30

Calibrate = Callable[[np.ndarray, Setup], TableMapping]


def default_calibrate(intrinsics: Any = None) -> Calibrate:
    """Return a function calibrating the table from a frame's corner markers.

    It calls :func:`calibration.table.calibrate_table`. When that misses a corner marker,
    the frame is tried once more inside a white margin of :data:`CALIBRATION_MARGIN_PX`:
    OpenCV's ArUco detector drops a marker whose thresholded outline reaches the image
    border (a corner marker's paper close to the frame's edge, the dark table edge beyond
    it), and the margin keeps it clear. The result is mapped back to the original frame.
    """
    def calibrate(image: np.ndarray, setup: Setup) -> TableMapping:
        from calibration.errors import CalibrationError
        from calibration.table import calibrate_table

        try:
            return calibrate_table(image, setup, intrinsics)
        except CalibrationError as exc:
            if "missing corner marker" not in str(exc):
                raise
            try:
                return _calibrate_with_margin(image, setup, intrinsics)
            except CalibrationError:
                raise exc from None
    return calibrate


def _calibrate_with_margin(image: np.ndarray, setup: Setup, intrinsics: Any) -> TableMapping:
    from dataclasses import replace

    from calibration.camera import CameraIntrinsics
    from calibration.table import calibrate_table

    m = CALIBRATION_MARGIN_PX
    h, w = image.shape[:2]
    white = (255,) * (image.shape[2] if image.ndim == 3 else 1)
    padded = np.asarray(cv2.copyMakeBorder(image, m, m, m, m, cv2.BORDER_CONSTANT, value=white), np.uint8)
    if intrinsics is None and setup.camera is not None:
        intrinsics = CameraIntrinsics.from_settings(setup.camera, (w, h))
    shifted = None
    if intrinsics is not None:
        intrinsics = intrinsics.scaled_to((w, h))
        k = np.array(intrinsics.matrix)
        k[:2, 2] += m
        shifted = CameraIntrinsics(k, np.array(intrinsics.distortion), (w + 2 * m, h + 2 * m), intrinsics.estimated)
    cal = calibrate_table(padded, setup, shifted)
    k = np.array(cal.intrinsics.matrix)
    k[:2, 2] -= m
    back = CameraIntrinsics(k, np.array(cal.intrinsics.distortion), (w, h), cal.intrinsics.estimated)
    log.info("corner markers found only with a margin around the frame (one lies close to its edge)")
    return replace(cal, intrinsics=back, corners_px=np.array(cal.corners_px) - m)


def sweep_tiles(width_mm: float, depth_mm: float, tile_mm: float) -> list[tuple[float, float, float, float]]:
    """Split the table into equal tiles about ``tile_mm`` wide, row by row: (x0, y0, x1, y1) mm.

    Examples
    --------
    >>> sweep_tiles(400.0, 300.0, 250.0)
    [(0.0, 0.0, 200.0, 150.0), (200.0, 0.0, 400.0, 150.0), (0.0, 150.0, 200.0, 300.0), (200.0, 150.0, 400.0, 300.0)]
    """
    nx, ny = max(1, math.ceil(width_mm / tile_mm)), max(1, math.ceil(depth_mm / tile_mm))
    xs = [width_mm * i / nx for i in range(nx + 1)]
    ys = [depth_mm * j / ny for j in range(ny + 1)]
    return [(xs[i], ys[j], xs[i + 1], ys[j + 1]) for j in range(ny) for i in range(nx)]


def scan_bands(width: int, height: int, max_side_px: float, *,
               band_pixels: int = SCAN_BAND_PIXELS) -> list[tuple[int, int, int, int]]:
    """Split a frame into horizontal bands of about ``band_pixels`` for a spread full scan.

    Consecutive bands overlap by 1.5 largest marker sides, so a marker across a band's
    edge lies wholly in one of them. Returns (x, y, w, h) regions, top to bottom.

    Examples
    --------
    >>> scan_bands(640, 480, 40.0)
    [(0, 0, 640, 480)]
    >>> len(scan_bands(1920, 1080, 40.0)), len(scan_bands(3840, 2160, 40.0)), scan_bands(3840, 2160, 40.0)[-1]
    (2, 8, (0, 1860, 3840, 300))
    """
    n = max(1, math.ceil(width * height / band_pixels))
    if n == 1:
        return [(0, 0, width, height)]
    overlap = int(math.ceil(1.5 * max_side_px))
    step = math.ceil(height / n)
    out = []
    for k in range(n):
        y0 = max(0, k * step - overlap // 2 if k else 0)
        y1 = min(height, (k + 1) * step + overlap // 2)
        out.append((0, y0, width, y1 - y0))
    return out


#: Once markers are followed, the spread scans cover the table's image (its outline at the
#: table's and the markers' height) grown by this many largest marker sides: a marker whose
#: centre is on the table lies within, and the frame beyond it (often half of a 16:9 frame)
#: is not scanned. The first scan covers the whole frame (a marker off the table is reported).
TABLE_SCAN_MARGIN_SIDES = 2.0


def table_box(calibration: TableMapping, setup: Setup, margin_px: float) -> tuple[int, int, int, int]:
    """The box (x0, y0, x1, y1) px around the table's image, at the table's and the base markers'
    height, grown by ``margin_px`` (not clipped to the frame).

    Examples
    --------
    >>> from calibration.setup import parse_setup
    >>> from tracker.markers import ScaledPlane
    >>> table_box(ScaledPlane(2.0), parse_setup({"table": {"width_mm": 600, "depth_mm": 400}}), 10.0)
    (-10, -10, 1210, 810)
    """
    w, d = setup.table.width_mm, setup.table.depth_mm
    outline = np.array([[0.0, 0.0], [w, 0.0], [w, d], [0.0, d]])
    px = np.concatenate([calibration.to_image_px(outline, height_mm=h)
                         for h in (0.0, setup.markers.base_height_mm)])
    lo, hi = px.min(axis=0) - margin_px, px.max(axis=0) + margin_px
    return int(math.floor(lo[0])), int(math.floor(lo[1])), int(math.ceil(hi[0])), int(math.ceil(hi[1]))


def merge_boxes(boxes: list[tuple[int, int, int, int]]) -> list[tuple[int, int, int, int]]:
    """Merge overlapping (x, y, w, h) boxes into their bounding boxes, until none overlap.

    Examples
    --------
    >>> merge_boxes([(0, 0, 10, 10), (5, 5, 10, 10), (50, 50, 4, 4)])
    [(0, 0, 15, 15), (50, 50, 4, 4)]
    """
    rects = [[x, y, x + w, y + h] for x, y, w, h in boxes]
    merged = True
    while merged:
        merged = False
        out: list[list[int]] = []
        for r in rects:
            for o in out:
                if r[0] < o[2] and o[0] < r[2] and r[1] < o[3] and o[1] < r[3]:
                    o[0], o[1], o[2], o[3] = min(o[0], r[0]), min(o[1], r[1]), max(o[2], r[2]), max(o[3], r[3])
                    merged = True
                    break
            else:
                out.append(list(r))
        rects = out
    return [(a, b, c - a, d - b) for a, b, c, d in rects]


class Tracker:
    """Track every model through a stream of frames.

    Parameters
    ----------
    setup : Setup
        Table size, markers and bare-base sides.
    calibration : TableMapping, optional
        A table calibration; without one, the first frame showing the four corner markers
        calibrates the table.
    calibrate : callable, optional
        ``calibrate(image, setup) -> calibration`` (``calibration.table.calibrate_table``).
    find_bare_bases : bool
        Also look for bases without markers.
    full_scan_every : int
        Frames between full marker scans (sooner while a model is missing).
    base_scan_interval_s : float
        Seconds of video between two fits of each known bare base; 0 searches the whole
        table on every frame (no incremental search: for tests and offline runs).
    base_sweep_px_per_s : float
        Plan pixels of the table searched for new bare bases per second of video.
    """

    def __init__(self, setup: Setup, calibration: TableMapping | None = None, *,
                 calibrate: Calibrate | None = None, find_bare_bases: bool = True,
                 full_scan_every: int = FULL_SCAN_EVERY,
                 base_scan_interval_s: float = BASE_SCAN_INTERVAL_S,
                 base_sweep_px_per_s: float = BASE_SWEEP_PX_PER_S) -> None:
        self.setup = setup
        self._calibrate = calibrate or default_calibrate()
        self._book = TrackBook()
        self._find_bases = find_bare_bases
        self._full_every = max(1, full_scan_every)
        self._base_interval_s = max(0.0, base_scan_interval_s)
        self._frames = 0
        self._last_full = -10**9
        self._base_sweep_rate = max(1.0, base_sweep_px_per_s)
        self._base_full_due = True                      # the whole table on the first search
        self._base_fitted_s: dict[str, float] = {}      # base track id -> when last fitted (or seen unchanged)
        self._base_refit_s: dict[str, float] = {}       # base track id -> when last fitted
        self._base_last_s: float | None = None          # timestamp of the last frame with base work
        self._frame_last_s: float | None = None         # timestamp of the last frame asked for base work
        self._sweep_credit = 0.0                        # plan px of tiles due
        self._t_now = 0.0                               # this frame's timestamp
        self._sweep_next = 0
        self._present: set[int] = set()      # missing models whose base was seen in place
        self._present_bases: set[str] = set()   # base tracks not found but confirmed in place
        self._base_missed: set[str] = set()     # base tracks missed at their last fit (fitted again soon)
        self._fitted_now: list[str] = []        # base tracks whose regions this base step fits
        self._tiles: list[tuple[float, float, float, float]] = []
        self._changes: ChangeMap | None = None          # where the table changed since its tiles were swept
        self._last_calibrated = 0
        self._last_attempt = -10**9
        self._last_corners: dict[int, np.ndarray] = {}   # id -> (4, 2) px of last frame's markers
        self._search_queue: dict[int, np.ndarray] = {}   # lost markers whose region is still to search
        self._in_place_run: dict[int, int] = {}          # markers read in place, frames in a row
        self._shaken: dict[int, np.ndarray] = {}         # lost on a shaken frame: followed again next frame
        self._shaken_last: set[int] = set()              # ... those that waited on the last frame
        self._warnings: tuple[str, ...] = ()
        self._corners_hidden: tuple[int, ...] = ()
        self._band_next: int | None = None             # next band of a full scan under way
        self._band_last = 0                            # frame of the last band (or of a scan's start)
        self._band_now = False                         # this frame scanned a band
        self._band_alone = False                       # ... and the next one will not
        self._corners_checked = False                  # this frame checked the corner markers
        self._steps: list[str] = []                    # the expensive steps this frame ran
        self._regions_waiting = False                  # lost markers' regions put off to this frame
        self._bands_last: list[tuple[int, int, int, int]] = []
        self._frame_size: tuple[int, int] | None = None          # (w, h) of the calibrated frames
        self._other_size: tuple[tuple[int, int], int] | None = None   # a new size and its count
        self._rejected_seen: set[tuple[int, str]] = set()
        self._calibration: TableMapping | None = None
        self._detector: MarkerDetector | None = None
        self._scan_box: tuple[int, int, int, int] | None = None    # the spread scans' part of the frame
        self._plan: PlanView | None = None
        if calibration is not None:
            self._use_calibration(calibration)
        self._state = TrackState.empty()

    @property
    def state(self) -> TrackState:
        """The latest immutable snapshot (safe to read from another thread)."""
        return self._state

    def request_full_scan(self) -> None:
        """Make the next frame scan the whole frame for markers and the whole table for bare bases.

        For when the caller knows the table changed beyond what tracking follows (a new
        game laid out, the lights changed): the incremental searches would find it too,
        but only after a sweep of the table.
        """
        self._last_full = -10**9
        self._band_next = None
        self._base_full_due = True

    @property
    def last_steps(self) -> tuple[str, ...]:
        """The expensive steps the last frame ran, in order (for tests and benchmarks): ``corners``
        (corner markers checked), ``band`` (a band of a full marker scan), ``regions`` (the
        search around lost markers), ``bases`` (bare-base work). Once markers are followed a
        frame runs one at most; the others wait for the next frames, the longest waiting first."""
        return tuple(self._steps)

    @property
    def calibration(self) -> TableMapping | None:
        """The calibration in use (the last good one)."""
        return self._calibration

    def replace_calibration(self, calibration: TableMapping) -> None:
        """Use a better calibration of the same view (a lens refined over frames); the tracks are kept."""
        self._use_calibration(calibration)

    def _use_calibration(self, calibration: TableMapping) -> None:
        self._calibration = calibration
        self._detector = detector_for(calibration, self.setup)
        self._scan_box = table_box(calibration, self.setup, TABLE_SCAN_MARGIN_SIDES * self._detector.max_side_px)
        if self._detector.in_play is not None:
            # built on the first blurred square instead, they made that frame's search around
            # lost markers 140 ms (a single `locate` builds them only if it meets one)
            prepare_blurred_reading(self._detector.dictionary, self._detector.in_play)
        self._plan = PlanView(calibration, self.setup) if self._find_bases else None
        self._tiles = sweep_tiles(self.setup.table.width_mm, self.setup.table.depth_mm,
                                  BASE_TILE_PX / self._plan.px_per_mm) if self._plan is not None else []
        self._changes = None if self._plan is None else ChangeMap(
            calibration, (self.setup.table.width_mm, self.setup.table.depth_mm), self._tiles,
            grow_mm=max(self.setup.bases.diameters_mm) / 2.0, height_mm=self._plan.height_mm)
        self._last_calibrated = self._frames

    # ------------------------------------------------------------------------------ loop

    def process(self, frame: Frame) -> list[dict[str, Any]]:
        """Process one frame from a source; return the events (JSON-ready dicts)."""
        stamp = {"frame": frame.index, "timestamp_s": round(frame.timestamp_s, 3)}
        if frame.event is not None:
            event = {"type": frame.event, **stamp}
            if frame.error:
                event["message"] = frame.error
            return [{**event, **frame.words()}]
        if frame.image is None:
            log.warning("frame %d skipped: %s", frame.index, frame.error)
            return [{"type": "frame_error", **stamp, "message": frame.error or "no image", **frame.words()}]
        events: list[dict[str, Any]] = []
        image = frame.image
        wrong = self._wrong_size(image, stamp)
        if wrong is not None:
            return wrong
        gray = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY) if image.ndim == 3 else image
        self._corners_checked = False
        self._steps = []
        self._t_now = frame.timestamp_s
        if self._calibration is None:
            if self._frames - self._last_attempt < CALIBRATION_RETRY_EVERY and self._frames > 0:
                self._frames += 1                 # the last attempt was a moment ago
                return []
            self._last_attempt = self._frames
            try:
                self._use_calibration(self._calibrate(image, self.setup))
                self._frame_size = (int(image.shape[1]), int(image.shape[0]))
                events.append({"type": "calibrated", **stamp})
            except ValueError as exc:
                self._frames += 1
                warning = f"not calibrated: {exc}"
                repeated = self._warnings == (warning,)
                self._warnings = (warning,)
                self._state = TrackState(frame.index, frame.timestamp_s, self._state.models,
                                         self._state.bases, calibrated=False, warnings=self._warnings)
                # said once, then again only when the reason changes (a live camera keeps trying)
                msg_id = getattr(exc, "msg_id", None)  # the edges word it (calibration.errors)
                words = {"msg": msg_id, "params": dict(getattr(exc, "params", {}))} if msg_id else {}
                return [] if repeated else [{"type": "calibration_failed", **stamp, "message": str(exc), **words}]
        else:
            events += self._check_corners(image, gray, stamp)
        fixes = self._detect_models(gray)
        events += self._rejections(fixes, stamp)
        bases, regions = None, None
        self._present, self._present_bases = set(), set()
        if self._find_bases and image.ndim == 3:
            bases, regions, fixes = self._detect_bases(image, gray, fixes, frame.timestamp_s)
        events += self._book.update(
            [Fix(m.marker_id, m.x_mm, m.y_mm, m.facing_deg) for m in fixes.models],
            None if bases is None else [BaseFix(b.x_mm, b.y_mm, b.diameter_mm, b.side) for b in bases],
            timestamp_s=frame.timestamp_s, frame_index=frame.index, base_regions=regions,
            present_ids=self._present, present_bases=self._present_bases,
            unsearched_ids=set(self._search_queue) | set(self._shaken))
        if bases is not None:
            self._after_base_update(frame.timestamp_s, full=regions is None)
        self._frames += 1
        self._state = replace(self._book.state(calibrated=True, warnings=self._warnings),
                              corners_hidden=self._corners_hidden)
        return events

    def _wrong_size(self, image: np.ndarray, stamp: dict[str, Any]) -> list[dict[str, Any]] | None:
        """Skip a frame whose size is not the calibrated one (the last good state is kept).

        After :data:`FRAME_SIZE_PATIENCE` frames in a row of one new size the camera has
        changed resolution for good: the calibration is dropped and made again on them.
        """
        size = (int(image.shape[1]), int(image.shape[0]))
        if self._frame_size is None and self._calibration is not None:
            self._frame_size = size               # a calibration given from outside: its first frame
        if self._frame_size is None or size == self._frame_size:
            self._other_size = None
            return None
        count = self._other_size[1] + 1 if self._other_size and self._other_size[0] == size else 1
        self._other_size = (size, count)
        if count >= FRAME_SIZE_PATIENCE:
            log.warning("frames are now %d x %d px: calibrating the table again", *size)
            self._calibration = self._detector = self._plan = None
            self._frame_size, self._other_size = None, None
            self._last_corners = {}
            self._last_full, self._band_next = -10**9, None      # a first scan of the whole new frames
            self._search_queue, self._regions_waiting = {}, False
            self._in_place_run, self._shaken = {}, {}
            self._last_attempt = -10**9
            return [{"type": "frame_size_changed", **stamp, "size_px": list(size),
                     "message": f"the camera now gives {size[0]} x {size[1]} px frames: calibrating the table again",
                     "msg": "track.frame_size_changed", "params": {"width": size[0], "height": size[1]}}]
        message = (f"frame of {size[0]} x {size[1]} px, but the table was calibrated on {self._frame_size[0]} x "
                   f"{self._frame_size[1]} px frames: frame skipped, the last positions are kept")
        if count == 1:
            log.warning(message)
            # msg and params: the edges say it in the user's language (tabletracker.i18n)
            return [{"type": "frame_error", **stamp, "message": message, "msg": "track.frame_other_size",
                     "params": {"width": size[0], "height": size[1], "calibrated_width": self._frame_size[0],
                                "calibrated_height": self._frame_size[1]}}]
        return []

    def _detect_models(self, gray: np.ndarray) -> MarkerFixes:
        assert self._detector is not None and self._calibration is not None
        self._shaken_last, self._shaken = set(self._shaken), {}
        since_full = self._frames - self._last_full
        missing = any(not seen for _, _, _, seen in self._book.known_positions_mm())
        # The first full scan (and one asked for) covers the whole frame, band after band until
        # it is done; the later ones the table's part of it. (Its bands were laid over the table's
        # part as soon as its first band found a marker: a 4K frame's bands changed under the
        # scan, and a strip of the table was left out of the first scan, its models found only
        # by the next one, or once moved.)
        first = self._last_full < 0
        x0, y0, x1, y1 = (0, 0, gray.shape[1], gray.shape[0])
        if self._last_corners and self._scan_box is not None and not first:
            bx0, by0, bx1, by1 = self._scan_box
            x0, y0, x1, y1 = max(x0, bx0), max(y0, by0), min(x1, bx1), min(y1, by1)
        bands = self._bands_last = [(x + x0, y + y0, w, h) for x, y, w, h in scan_bands(
            max(1, x1 - x0), max(1, y1 - y0), self._detector.max_side_px)]
        # while a model is missing, scans come sooner (a spread scan already takes several
        # frames)
        full = (since_full >= self._full_every or not self._last_corners
                or (missing and since_full >= max(1, MISSING_SCAN_EVERY - len(bands) + 1)))
        if full and self._band_next is None:
            self._band_next, self._band_last = 0, self._frames
        # a scan spread over several frames runs on odd frames, the even ones left to the
        # corner check and the base work (nothing known yet, or a model missing from a frame
        # of two bands or fewer: every frame)
        every_frame = len(bands) == 1 or not self._last_corners or (missing and len(bands) <= 2)
        # once markers are followed, a frame runs one expensive step: the band waits for a frame
        # after the corner check, and after the search around lost markers put off until now
        # (a lost model first: the regions went first; the band finds new markers)
        # (the regions go first until the band has waited BAND_MAX_WAIT_FRAMES)
        band_overdue = self._band_next is not None and self._frames - self._band_last >= BAND_MAX_WAIT_FRAMES
        busy = (bool(self._steps) or (self._regions_waiting and bool(self._search_queue) and not band_overdue)
                or self._base_overdue())
        self._band_now = (self._band_next is not None and (every_frame or self._frames % 2 == 1)
                          and not (busy and self._last_corners))
        # a band scanned on an odd frame leaves the next (even) one free: the regions around
        # lost markers and the base work due wait for it rather than pile onto this frame
        self._band_alone = self._band_now and not every_frame
        if self._band_now:
            assert self._band_next is not None
            # the full scan, one band of the frame per frame (a 4K frame in several), so that
            # no frame pays for the whole image; known markers are followed meanwhile
            band = bands[min(self._band_next, len(bands) - 1)]
            # the known markers are followed first: the scan does not read the candidates on
            # those followed (a blurred one's cost 5 ms each), it looks for new markers
            # (a band's frame: the follow reads no lost marker with the blurred codes)
            self._steps.append("band")
            followed = self._follow(gray, search=False) if self._last_corners else None
            # (its first band is thorough; later ones read OpenCV's squares only: fast)
            det = self._detector.detect_in(gray, [band], thorough=not self._last_corners, followed=followed)
            self._band_next += 1
            self._band_last = self._frames
            if self._band_next >= len(bands):
                self._band_next = None
                self._last_full = self._frames
            if followed is not None:
                det = Detections.concat([det, followed.select(~np.isin(followed.marker_ids, det.marker_ids))])
            # a marker followed until now that the scan missed and the follow lost (outside
            # this band, or moved) is searched for: the scan looks for new markers, it does
            # not drop known ones
            # (followed above already: they are not followed again on the same image)
            missed = sorted(set(self._last_corners) - set(det.marker_ids.tolist()) - set(self._shaken))
            if missed and len(bands) > 1:
                # (their regions wait for a next frame, but on the first scans: nothing else runs then)
                det = Detections.concat([det, self._search_lost(
                    gray, np.array(missed, dtype=np.int64), np.array([self._last_corners[i] for i in missed]),
                    np.zeros(0, dtype=np.int64), budget_px=0 if self._band_alone else None)])
        else:
            # on a frame scanned in more than two bands (4K), the search around lost markers waits,
            # like a band, for base work that has waited too long: a marker missed in place on
            # every frame (small and blurred, found again by its region's search each time) took
            # every frame, the base work waited for a frame without another step and the bands
            # for the base work, so no scan ended and a model put down was never found (with two
            # bands or fewer a missing model's bands come every frame: the search goes first)
            overdue = self._last_corners and len(bands) > 2 and self._base_overdue()
            det = self._follow(gray, budget_px=0 if overdue else None)
        fixes = locate_models(det, self._calibration, self.setup)
        accepted = {m.marker_id for m in fixes.models}
        self._last_corners = {int(i): c for i, c in zip(det.marker_ids, det.corners_px) if int(i) in accepted}
        for marker_id in accepted:
            self._search_queue.pop(marker_id, None)
        # the markers lost on a shaken frame are followed again on the next one, from where they were
        for marker_id, quad in self._shaken.items():
            self._last_corners.setdefault(marker_id, quad)
        return fixes

    def _follow(self, gray: np.ndarray, *, search: bool = True, budget_px: int | None = None) -> Detections:
        """Find last frame's markers again: refine their old corners, else read them in place
        (:meth:`_read_in_place`), else (with ``search``) search around them, within ``budget_px``
        of regions (:meth:`_search_lost`; 0: the lost ones only wait in the queue)."""
        assert self._detector is not None
        ids = np.array(sorted(self._last_corners), dtype=np.int64)
        old = np.array([self._last_corners[i] for i in ids])
        cells = self._detector.cells
        refined, ok = refine_corners_status(gray, old, cells=cells)
        module = side_lengths(old) / cells
        shift = np.linalg.norm(refined - old, axis=2).max(axis=1)
        ok &= shift <= FOLLOW_MAX_SHIFT_MODULES * module
        ok &= same_ids(gray, refined, ids, self._detector.dictionary)
        if (~ok).any():
            # a figure over a corner leaves too little of the edges to fit, every frame: a
            # marker whose old square still reads as its id has not moved (no search needed)
            still = np.zeros_like(ok)
            still[~ok] = same_ids(gray, old[~ok], ids[~ok], self._detector.dictionary)
            refined = np.where(still[:, None, None], old, refined)
            ok |= still
        for marker_id in ids[ok].tolist():
            self._in_place_run.pop(int(marker_id), None)
        waiting = self._wait_for_shake(ids, old, ok)
        if (~ok & ~waiting).any():
            # a blurred marker whose edges and plain cells the fast follow cannot trust: read
            # where it was, at its known size, before any region search
            lost = np.flatnonzero(~ok & ~waiting)
            placed, corners = self._read_in_place(gray, ids[lost], old[lost])
            refined[lost[placed]] = corners[placed]
            ok[lost[placed]] = True
        kept = Detections.from_corners(refined[ok], ids[ok])
        if not search:
            return kept
        lost = ~ok & ~waiting
        return Detections.concat([kept, self._search_lost(gray, ids[lost], old[lost], ids[ok], budget_px)])

    def _wait_for_shake(self, ids: np.ndarray, old: np.ndarray, ok: np.ndarray) -> np.ndarray:
        """Which of the followed markers ``ids`` (last squares ``old``) wait for the next frame.

        When the fast follow loses :data:`SHAKE_LOST_MARKERS` or more at once (``~ok``), the frame
        was shaken: those that did not already wait on the last frame are neither read in place
        nor searched for now; they stay where they were (:attr:`_shaken`), are followed again on
        the next frame, and count neither seen nor missing meanwhile. Lost again there, they go
        the usual way (read in place, then the search around them)."""
        waiting = np.zeros(len(ids), dtype=bool)
        if int((~ok).sum()) < SHAKE_LOST_MARKERS:
            return waiting
        for k in np.flatnonzero(~ok).tolist():
            marker_id = int(ids[k])
            if marker_id not in self._shaken_last:
                waiting[k] = True
                self._shaken[marker_id] = old[k]
                self._in_place_run.pop(marker_id, None)
        return waiting

    def _search_lost(self, gray: np.ndarray, lost: np.ndarray, quads: np.ndarray, kept: np.ndarray,
                     budget_px: int | None = None) -> Detections:
        """Queue the ``lost`` markers (last squares ``quads``) for the search around them, take the
        ``kept`` ones off the queue, and search the regions due now, within ``budget_px`` (see
        :meth:`_due_regions`); the markers found there, but those of ids ``kept``."""
        assert self._detector is not None
        for marker_id, quad in zip(lost.tolist(), quads):
            self._search_queue.setdefault(int(marker_id), quad)
            self._in_place_run.pop(int(marker_id), None)
        for marker_id in kept.tolist():
            self._search_queue.pop(int(marker_id), None)
        if self._last_corners and self._steps:
            budget_px = 0             # one expensive step a frame: the regions wait for the next frame
        boxes = self._due_regions(budget_px)
        self._regions_waiting = bool(self._search_queue)
        if not boxes:
            return Detections.empty()
        found = self._detector.detect_in(gray, list[tuple[int, int, int, int] | None](boxes))
        self._steps.append("regions")
        return found.select(~np.isin(found.marker_ids, kept))

    def _read_in_place(self, gray: np.ndarray, ids: np.ndarray, old: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Read lost markers where they were: (N,) which were read there, and (N, 4, 2) their new corners.

        The fast follow loses a marker whose edges a defocus and JPEG leave too soft to fit
        and whose plain cells read a cell wrong; it has mostly not moved. The square of the
        marker's known size (the calibration's, :attr:`MarkerDetector.sizes`, at the old
        square's centre and angle) is aligned on its cells by a short search from there and
        read against the ids in play as a searched square is (:func:`tracker.candidates.read_in_place`,
        and the blurred codes), a few ms a frame at 1080p instead of a region search's 25-60.
        On a frame that runs another expensive step (a band of a scan, the corner check, a
        region search already queued) the blurred codes are left out (a motion-blurred frame's
        lost markers made a band's frame the slowest), and on any frame only
        :data:`IN_PLACE_BLURRED_PER_FRAME` markers are read with them: what their plain cells do
        not read waits for the region search.

        The guard, so that a marker that moved is never kept at its old place:

        - the reading must be of that id, every other id in play reading clearly worse
          (what the candidate reader requires of any reading), and its new corners are the
          reading's (aligned, fitted to the edges where they show): a marker nudged by a
          fraction of a cell is followed to where it now is;
        - its centre may have moved by at most :data:`FOLLOW_MAX_SHIFT_MODULES` cells, well
          within the alignment's reach (a marker farther off may have left the alignment at a
          local optimum), and its side must stay within :data:`IN_PLACE_MAX_SCALE` of the
          known size (a model lifted straight up looks bigger; the region search then decides);
        - a marker read in place :data:`IN_PLACE_CHECK_AFTER` frames in a row goes to the region
          search at its next loss, which measures it afresh over the whole region.

        Whatever is not read here goes to the region search as before; a lifted model (no
        marker there) reads as nothing and is hidden on time.
        """
        det = self._detector
        assert det is not None
        placed = np.zeros(len(ids), dtype=bool)
        corners = np.array(old, dtype=np.float64, copy=True)
        if not det.in_play or det.sizes is None or not len(ids):
            return placed, corners
        due = np.array([self._in_place_run.get(int(i), 0) < IN_PLACE_CHECK_AFTER for i in ids.tolist()])
        if not due.any():
            return placed, corners
        rows = np.flatnonzero(due)
        sides_mm = det.sizes.sides_mm
        # the square of each size at the old centre and angle: the one nearest the old side
        snapped = snapped_squares(old[rows], det.sizes).reshape(len(sides_mm), len(rows), 4, 2)
        pick = np.abs(side_lengths(snapped.reshape(-1, 4, 2)).reshape(len(sides_mm), len(rows))
                      - side_lengths(old[rows])[None]).argmin(axis=0)
        squares = snapped[pick, np.arange(len(rows))]
        # the blurred codes for a few only (10 to 15 ms each at 4K): the others' plain cells, and
        # what these do not read waits for the region search
        blurred = 0 if self._steps or self._search_queue else IN_PLACE_BLURRED_PER_FRAME
        read = Readings.concat([read_in_place(gray, part, det.dictionary, sorted(det.in_play),
                                              max_errors=IN_PLAY_MAX_ERRORS, blurred=with_blurred)
                                for part, with_blurred in ((squares[:blurred], True), (squares[blurred:], False))])
        if not len(read):
            return placed, corners
        centres = diagonal_centres(read.corners)
        sides = side_lengths(read.corners)
        starts, knowns = diagonal_centres(squares), side_lengths(squares)
        for j, k in enumerate(rows.tolist()):
            known = float(knowns[j])
            shift = np.linalg.norm(centres - starts[j], axis=1)
            match = np.flatnonzero((read.ids == ids[k]) & (shift <= FOLLOW_MAX_SHIFT_MODULES * known / det.cells)
                                   & (np.abs(sides / known - 1.0) <= IN_PLACE_MAX_SCALE))
            if len(match) == 1:
                placed[k] = True
                corners[k] = read.corners[match[0]]
                self._in_place_run[int(ids[k])] = self._in_place_run.get(int(ids[k]), 0) + 1
        return placed, corners

    def _due_regions(self, budget_px: int | None = None) -> list[tuple[int, int, int, int]]:
        """Take the lost markers' regions due now off the search queue, oldest first, merged.

        Their merged area stays within ``budget_px`` (:data:`REGION_SEARCH_PIXELS`), and
        they are :data:`REGION_SEARCHES_PER_FRAME` at most (one on a frame of more than
        :data:`LARGE_FRAME_PIXELS`), except that one region is always
        taken, so every lost marker's region is searched within as many frames as markers
        were lost before it.
        """
        budget = REGION_SEARCH_PIXELS if budget_px is None else budget_px
        if budget <= 0:
            return []
        frame_w, frame_h = self._frame_size or (0, 0)
        most = 1 if frame_w * frame_h > LARGE_FRAME_PIXELS else REGION_SEARCHES_PER_FRAME
        boxes: list[tuple[int, int, int, int]] = []
        merged: list[tuple[int, int, int, int]] = []
        for marker_id, quad in list(self._search_queue.items()):
            (x, y), side = quad.mean(axis=0), float(side_lengths(quad[None])[0])
            half = max(ROI_MIN_PX / 2.0, ROI_MARKER_SIDES * side / 2.0)
            box = (int(x - half), int(y - half), int(2 * half) + 1, int(2 * half) + 1)
            if len(boxes) >= most:
                break
            more = merge_boxes([*boxes, box])
            if boxes and sum(w * h for _, _, w, h in more) > budget:
                break
            boxes.append(box)
            merged = more
            del self._search_queue[marker_id]
        return merged

    def _rejections(self, fixes: MarkerFixes, stamp: dict[str, Any]) -> list[dict[str, Any]]:
        events = []
        for r in fixes.rejected:
            key = (r.marker_id, r.code)  # the reason's kind (off the table and on a corner both begin "centre")
            if key not in self._rejected_seen:
                self._rejected_seen.add(key)
                events.append({"type": "marker_rejected", **stamp, **r.to_dict(), **r.words()})
        return events

    def _detect_bases(self, image: np.ndarray, gray: np.ndarray, fixes: MarkerFixes, timestamp_s: float
                      ) -> tuple[list[FoundBase] | None, list[tuple[float, float, float, float]] | None, MarkerFixes]:
        """Bare bases (and markers read on bases the marker scan missed), incrementally.

        Returns the bases found (None when none was looked for in this frame), the table
        regions where the known bases were fitted (None for the whole table) and the model
        fixes with the markers read on bases added.
        """
        assert self._plan is not None and self._calibration is not None
        if (self._last_full == self._frames and len(self._bands_last) == 1 and not self._base_full_due
                and self._base_interval_s > 0.0 and self._last_corners):
            # this frame paid for a full marker scan: the base work due waits for the next one
            # (with no marker known, every frame scans: the base work cannot wait)
            return None, None, fixes
        t = timestamp_s
        near = self._frames_near()
        self._frame_last_s = t
        dt = 0.0 if self._base_last_s is None else t - self._base_last_s
        if 0.0 <= dt < BASE_STEP_S and not self._base_full_due and self._base_interval_s > 0.0:
            return None, None, fixes
        # (with no marker known, every frame scans: the base work cannot wait)
        steps = set(self._steps) if self._last_corners else set()
        if steps and near and not self._base_full_due and self._base_interval_s > 0.0:
            # this frame ran another expensive step (a band of a spread scan, the search around
            # lost markers, the corner check): the work waits for the next frame, when frames
            # come often enough that it is only put off (at a few frames a second the sweep
            # would fall behind); a band waits for it in turn once it is overdue (_base_overdue)
            return None, None, fixes
        if dt < 0.0:
            # the source's clock started again (a source reopened): keep the fits' spacing
            self._base_fitted_s = {k: v + dt for k, v in self._base_fitted_s.items()}
            self._base_refit_s = {k: v + dt for k, v in self._base_refit_s.items()}
            dt = 0.0
        self._base_last_s = t
        if self._changes is not None:
            self._changes.look(image)
        # Circles under the models seen now are theirs. Circles where a known model is missing
        # are looked at for its marker (the marker scan may not read it, see tracker.onbase),
        # and are never reported as bare bases.
        seen_now = {m.marker_id for m in fixes.models}
        here = [(m.x_mm, m.y_mm) for m in fixes.models]
        missing = [(mid, x, y) for mid, x, y, _ in self._book.known_positions_mm() if mid not in seen_now]
        regions: list[tuple[float, float, float, float]] | None
        if self._base_full_due or self._base_interval_s == 0.0:
            self._base_full_due = False
            self._sweep_credit, self._sweep_next = 0.0, 0
            regions = None
            bases = list(find_bases(image, self._plan, self.setup, exclude_mm=here))
            if self._changes is not None:
                self._changes.searched(None)
            self._fitted_now = [b.track_id for b in self._book.state().bases]
        else:
            regions, tiles = self._base_regions(t, dt, missing)
            if not regions and not tiles:
                return None, None, fixes
            bases = list(find_bases_in(image, self._plan, self.setup, regions, exclude_mm=here)) if regions else []
            # the sweep looks for new bases: what is already followed is not fitted there again
            followed = [(b.x_mm, b.y_mm, b.diameter_mm) for b in self._book.state().bases]
            followed += [(m.x_mm, m.y_mm, self._model_base_mm(m.marker_id)) for m in fixes.models]
            new = find_bases_in(image, self._plan, self.setup, tiles, exclude_mm=here,
                                known_mm=followed) if tiles else ()
            bases += [b for b in new
                      if all(math.hypot(b.x_mm - o.x_mm, b.y_mm - o.y_mm) >= min(b.diameter_mm, o.diameter_mm) / 2
                             for o in bases)]
            # (a track is hidden only where it was fitted for: the sweep skips what is followed)
        self._steps.append("bases")
        bases, fixes = self._markers_on(image, gray, bases, fixes)
        self._present_bases = self._confirm_missed(image, bases, [(m.x_mm, m.y_mm) for m in fixes.models], t)
        if regions is not None:
            self._keep_still(bases)
        # a missing model whose base is still where it stood was not lifted (its marker blurred)
        self._present = {mid for mid, x, y in missing
                         if any(math.hypot(b.x_mm - x, b.y_mm - y) <= MODEL_EXCLUSION_MM for b in bases)}
        bases = [b for b in bases if all(math.hypot(b.x_mm - x, b.y_mm - y) > MODEL_EXCLUSION_MM
                                         for _, x, y in missing)]
        return bases, regions, fixes

    def _frames_near(self) -> bool:
        """Whether this frame came two base steps or less after the last one asked for base work
        (10 a second, one dropped now and then; 1 % for the timestamps' rounding)."""
        return (self._frame_last_s is not None
                and 0.0 <= self._t_now - self._frame_last_s <= 2 * BASE_STEP_S * 1.01)

    def _base_overdue(self) -> bool:
        """Whether the base work has waited :data:`BASE_MAX_WAIT_S` behind other steps: the next
        band of a spread scan then waits for it (while a model is missing, a 1080p frame's
        bands follow each other on every frame, and would leave no frame to the bare bases).

        Only while frames come two base steps apart or closer: slower (a camera at a few frames a
        second), the base work runs beside the other steps (see :meth:`_detect_bases`) and is
        always "overdue" on the next frame, so that a band waiting for it never ran: at 2 frames a
        second the first scan never got past its first band."""
        return (self._frames_near() and self._plan is not None and self._base_last_s is not None
                and self._base_interval_s > 0.0 and self._t_now - self._base_last_s >= BASE_MAX_WAIT_S)

    def _model_base_mm(self, marker_id: int) -> float:
        """A model's base diameter: from the setup, else the largest allowed."""
        base = self.setup.markers.for_marker(marker_id).base_mm
        return float(base) if base else float(max(self.setup.bases.diameters_mm))

    def _base_regions(self, t: float, dt: float, missing: list[tuple[int, float, float]]
                      ) -> tuple[list[tuple[float, float, float, float]], list[tuple[float, float, float, float]]]:
        """The regions due now: around the known bases and missing models not looked at for
        an interval (a model as soon as it is missing), and the sweep's tiles."""
        assert self._plan is not None
        g = BASE_GATE_MM
        places = [(b.track_id, b.x_mm, b.y_mm) for b in self._book.state().bases]
        places += [(f"model-{mid}", x, y) for mid, x, y in missing]
        due = []
        for key, x, y in places:
            first = t - self._base_interval_s if key.startswith("model-") else t
            if t - self._base_fitted_s.setdefault(key, first) < self._base_interval_s:
                continue
            if (self._changes is not None and key not in self._base_missed
                    and t - self._base_refit_s.get(key, -math.inf) < BASE_UNCHANGED_MAX_S
                    and self._changes.unchanged(key)):
                # a base seen where the table shows the same as when it was last fitted there
                # (neither lifted nor slid): fitting it again would find it again
                self._base_fitted_s[key] = t
                continue
            due.append((key, x, y))
        tiles = []
        if self._tiles:
            x0, y0, x1, y1 = self._tiles[0]
            cost = (x1 - x0) * (y1 - y0) * self._plan.px_per_mm ** 2      # plan px of one tile
            # one tile a step at most; after a gap in the video, the next step's tile is due too
            self._sweep_credit = min(self._sweep_credit + dt * self._base_sweep_rate, 2 * cost)
            area = self._sweep_area(self._sweep_credit >= cost)
            if area is not None:
                # (where the table changed goes first even before its credit: the sweep's turn comes later)
                self._sweep_credit = max(self._sweep_credit - cost, -cost)
                tiles.append(area)
                if self._changes is not None:
                    self._changes.searched(area)
        # the longest waiting first, a few a step (fewer beside a tile): the others wait for
        # the next step, so that no frame pays for many
        due.sort(key=lambda p: self._base_fitted_s[p[0]])
        due = due[:BASE_FITS_WITH_TILE if tiles else BASE_FITS_PER_STEP]
        regions = []
        self._fitted_now = []
        for key, x, y in due:
            regions.append((x - g, y - g, x + g, y + g))
            self._base_fitted_s[key] = self._base_refit_s[key] = t
            self._fitted_now.append(key)
        return regions, tiles

    def _sweep_area(self, due: bool) -> tuple[float, float, float, float] | None:
        """The sweep's region to search now: around where the table changed since it was last
        searched and has settled (a base put down there), else when ``due`` the next tile in
        turn, those with something moving over them (a hand) skipped (searched once it settles)."""
        changed = self._changes.changed_area() if self._changes is not None else None
        if changed is not None or not due:
            return changed
        moving = set(self._changes.moving_tiles()) if self._changes is not None else set()
        for _ in range(len(self._tiles)):
            k = self._sweep_next
            self._sweep_next = (self._sweep_next + 1) % len(self._tiles)
            if k not in moving:
                return self._tiles[k]
        return None

    def _keep_still(self, bases: list[FoundBase]) -> None:
        """Keep the places of the base tracks fitted now that the fit found where they stood (within
        :data:`~tracker.tracking.STILL_GATE_MM`): while such a place shows no change, the track is
        not fitted again (:meth:`_base_regions`). A track found elsewhere (slid, its new place not
        settled yet) or not found is fitted again at its next turn."""
        if self._changes is None:
            return
        g = BASE_GATE_MM
        for b in self._book.state().bases:
            if b.track_id not in self._fitted_now:
                continue
            if b.seen and any(math.hypot(f.x_mm - b.x_mm, f.y_mm - b.y_mm) <= STILL_GATE_MM and f.side == b.side
                              and abs(f.diameter_mm - b.diameter_mm) <= BASE_SIZE_TOLERANCE_MM for f in bases):
                self._changes.keep(b.track_id, (b.x_mm - g, b.y_mm - g, b.x_mm + g, b.y_mm + g))
            else:
                self._changes.forget(b.track_id)

    def _confirm_missed(self, image: np.ndarray, bases: list[FoundBase], models_mm: list[tuple[float, float]],
                        t: float) -> set[str]:
        """The base tracks fitted now that the search did not find, looked for again where they
        stand (:func:`tracker.bases.confirm_bases`): those partly covered are kept. One missed
        for the first time is kept too, and fitted again at the next base step: only two
        misses in a row hide it (a blurred frame hides nothing). A track where a model is seen
        now (``models_mm``: its marker read at last) is that model's base: it is not kept."""
        assert self._plan is not None
        tracks = [b for b in self._book.state().bases if b.seen and b.track_id in self._fitted_now
                  and all(math.hypot(b.x_mm - x, b.y_mm - y) > MODEL_EXCLUSION_MM for x, y in models_mm)]
        unmatched = [b for b in tracks
                     if not any(math.hypot(f.x_mm - b.x_mm, f.y_mm - b.y_mm) <= BASE_GATE_MM and f.side == b.side
                                and abs(f.diameter_mm - b.diameter_mm) <= BASE_SIZE_TOLERANCE_MM for f in bases)]
        self._base_missed -= {b.track_id for b in tracks} - {b.track_id for b in unmatched}
        if not unmatched:
            return set()
        again = confirm_bases(image, self._plan, self.setup, [(b.x_mm, b.y_mm, b.diameter_mm, b.side)
                                                               for b in unmatched])
        present = set()
        for b, found in zip(unmatched, again):
            if found is None and b.track_id in self._base_missed:
                self._base_missed.discard(b.track_id)
                continue
            present.add(b.track_id)
            if found is None:
                self._base_missed.add(b.track_id)
                self._base_fitted_s[b.track_id] = t - self._base_interval_s
            else:
                self._base_missed.discard(b.track_id)
        return present

    def _after_base_update(self, t: float, full: bool) -> None:
        """Note when each base track was fitted; after a whole-table search, spread the next fits."""
        tracks = [b.track_id for b in self._book.state().bases]
        if full:
            n = max(1, len(tracks))
            self._base_fitted_s = {bid: t - self._base_interval_s * (1.0 - (k + 1) / n)
                                   for k, bid in enumerate(tracks)}
        for bid in tracks:
            self._base_fitted_s.setdefault(bid, t)

    def _markers_on(self, image: np.ndarray, gray: np.ndarray, bases: list[FoundBase],
                    fixes: MarkerFixes) -> tuple[list[FoundBase], MarkerFixes]:
        """Markers read on the bases found: those models join the fixes, their circles leave the bases."""
        assert self._plan is not None and self._calibration is not None
        if not bases:
            return bases, fixes
        more = markers_on_bases(image, gray, self._plan, self._calibration, self.setup, bases)
        more = more.select(~np.isin(more.marker_ids, [m.marker_id for m in fixes.models]))
        if not len(more):
            return bases, fixes
        extra = locate_models(more, self._calibration, self.setup)
        for m in extra.models:
            hit = more.marker_ids == m.marker_id
            self._last_corners[m.marker_id] = more.corners_px[hit][0]
            self._search_queue.pop(m.marker_id, None)
            self._shaken.pop(m.marker_id, None)
        models = tuple(sorted(fixes.models + extra.models, key=lambda m: m.marker_id))
        bases = [b for b in bases if all(math.hypot(b.x_mm - m.x_mm, b.y_mm - m.y_mm) > MODEL_EXCLUSION_MM
                                         for m in extra.models)]
        return bases, MarkerFixes(models, fixes.rejected + extra.rejected)

    # ----------------------------------------------------------------------- calibration

    def _check_corners(self, image: np.ndarray, gray: np.ndarray, stamp: dict[str, Any]) -> list[dict[str, Any]]:
        every = HIDDEN_CORNER_CHECK_EVERY if self._corners_hidden else CORNER_CHECK_EVERY
        self._corners_checked = False
        if self._frames % every:              # an even frame: a spread full scan runs on odd ones
            return []
        self._corners_checked = True
        self._steps.append("corners")
        assert self._calibration is not None
        size = self.setup.markers.corner_size_mm
        w, d = self.setup.table.width_mm, self.setup.table.depth_mm
        h = size / 2.0
        centres_mm = np.array([[h, h], [w - h, h], [w - h, d - h], [h, d - h]])
        outline = np.array([[-size, -size], [size, -size], [size, size], [-size, size]])
        found: dict[int, np.ndarray] = {}
        boxes: dict[int, tuple[int, int, int, int]] = {}
        side_px = 0.0
        for cid, c in zip(CORNER_IDS, centres_mm):
            box_px = self._calibration.to_image_px(c + outline)
            x0, y0 = np.floor(box_px.min(axis=0)).astype(int)
            x1, y1 = np.ceil(box_px.max(axis=0)).astype(int)
            side_px = max(side_px, float(x1 - x0) / 2.0)
            x0, y0 = max(0, int(x0)), max(0, int(y0))
            x1, y1 = min(gray.shape[1], int(x1)), min(gray.shape[0], int(y1))
            if x1 - x0 >= 8 and y1 - y0 >= 8:
                boxes[cid] = (x0, y0, x1, y1)
        # the four regions in one detection: their readings are checked together (a third of the time)
        plain = MarkerDetector(self.setup.markers.dictionary, side_px * 0.4, side_px * 1.5).detect_in(
            gray, [(x0, y0, x1 - x0, y1 - y0) for x0, y0, x1, y1 in boxes.values()]) if boxes else Detections.empty()
        for cid, (x0, y0, x1, y1) in boxes.items():
            x, y = plain.centers_px[:, 0], plain.centers_px[:, 1]
            hit = (plain.marker_ids == cid) & (x >= x0) & (x < x1) & (y >= y0) & (y < y1)
            if hit.any():
                found[cid] = plain.centers_px[hit][0]
                continue
            # not read plainly: against the four corner codes only, with their large error tolerance
            det = read_corner_markers(gray[y0:y1, x0:x1], dictionary=self.setup.markers.dictionary,
                                      corner_ids=(cid,), min_side_px=side_px * 0.4, max_side_px=side_px * 1.5)
            if len(det):
                found[cid] = det.centers_px[0] + (x0, y0)
        missing = [c for c in CORNER_IDS if c not in found]
        if missing:
            self._corners_hidden = tuple(missing)
            warning = (f"corner marker(s) {', '.join(map(str, missing))} hidden: keeping the last "
                       "good calibration")
            if warning not in self._warnings:
                log.warning(warning)
                self._warnings = (warning,)
                return [{"type": "calibration_warning", **stamp, "message": warning, "corners_hidden": missing,
                         "calibration_kept": True, "msg": "track.corners_hidden", "params": {"ids": missing}}]
            return []
        was_hidden = bool(self._corners_hidden)
        self._corners_hidden = ()
        self._warnings = ()
        back = [{"type": "corners_visible", **stamp}] if was_hidden else []
        expected = self._calibration.to_image_px(centres_mm)
        shift = float(np.max(np.linalg.norm(np.array([found[c] for c in CORNER_IDS]) - expected, axis=1)))
        if shift <= CORNER_SHIFT_PX and self._frames - self._last_calibrated < RECALIBRATE_EVERY:
            return back
        try:
            self._use_calibration(self._calibrate(image, self.setup))
        except ValueError as exc:
            log.warning("recalibration failed, keeping the last calibration: %s", exc)
            return back
        return back + [{"type": "recalibrated", **stamp, "corner_shift_px": round(shift, 2)}]
