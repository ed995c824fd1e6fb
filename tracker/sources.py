"""Frame sources: a webcam, a network camera, a video file, a folder of images, one image, the bundled sequence.

Every source yields :class:`Frame` records. A frame that cannot be decoded is a frame with
``image=None`` and an ``error`` message (the caller reports it and moves on); a camera that
stops delivering frames is reopened with a bounded exponential back-off, and each step of
that is visible as a frame with ``event`` set (``camera_lost``, ``camera_back``), so the
tracker can keep its last known state and say what is happening.

The camera opener is injectable (``opener=``), so tests fake a camera that disconnects.

Examples
--------
>>> spec = parse_source("0")
>>> spec.kind, spec.target
('camera', 0)
>>> parse_source("/dev/video2").kind
'camera'
>>> parse_source("no/such/thing.mkv")  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
tracker.sources.SourceError: no/such/thing.mkv: no such file or folder; give a camera index (0), ... or 'sample'
>>> parse_source("http://192.168.1.20:8080/video").kind
'url'
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Generator, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

import cv2
import numpy as np

from calibration.errors import CalibrationError
from calibration.images import load_image
from tracker.errors import TrackerError
from tracker.mjpeg import MjpegReader, StreamError

log = logging.getLogger(__name__)

IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png", ".bmp", ".tif", ".tiff", ".webp")
VIDEO_SUFFIXES = (".mp4", ".avi", ".mkv", ".mov", ".webm", ".m4v", ".mpg", ".mpeg", ".wmv")
SAMPLE_SEQUENCE = Path(__file__).resolve().parents[1] / "sample_images" / "sequence"
#: Back-off between attempts to reopen a lost camera: first wait, factor, longest wait (s).
REOPEN_FIRST_WAIT_S = 0.5
REOPEN_FACTOR = 2.0
REOPEN_MAX_WAIT_S = 8.0
#: After this many failed reopen attempts in a row the camera source gives up (None: never).
REOPEN_MAX_ATTEMPTS: int | None = None
#: Consecutive failed reads before a camera counts as lost.
READS_BEFORE_LOST = 3
#: Address schemes of network cameras.
URL_SCHEMES = ("http", "https", "rtsp", "rtsps")
#: Seconds without a frame from a network camera before it counts as lost.
URL_STALL_S = 3.0
#: OpenCV's open and read time-outs for RTSP (and other non-MJPEG) addresses, ms.
FFMPEG_OPEN_TIMEOUT_MS = 5000
FFMPEG_READ_TIMEOUT_MS = 3000
#: Frame rate assumed for an image folder when none is given.
FOLDER_FPS = 10.0


class SourceError(TrackerError):
    """A frame source cannot be opened; the message says what to give instead.

    It may carry a message id and its parameters (``msg_id``, ``params``) for the page to
    word it in the user's language (``tabletracker/locale/<lang>.live.po``).
    """

    def __init__(self, *args: object, msg_id: str | None = None, params: Mapping[str, Any] | None = None) -> None:
        super().__init__(*args)
        self.msg_id = msg_id
        self.params: Mapping[str, Any] = dict(params or {})


@dataclass(frozen=True)
class Frame:
    """One frame, or the report that there is none right now.

    ``image`` is a BGR array, or None when ``error`` (an undecodable frame) or ``event``
    (``camera_lost``, ``camera_back``, ``camera_gave_up``, ``source_failed``,
    ``source_ended``, ``resolution_changed``) says why not. ``received_wall_s`` is the wall
    clock (``time.time()``) when a network camera's frame arrived, for the latency shown.
    """

    index: int
    timestamp_s: float
    image: np.ndarray | None
    error: str | None = None
    event: str | None = None
    name: str = ""
    received_wall_s: float | None = None
    #: the message id (and its parameters) of ``error`` or ``event``, for the page's languages
    msg: str | None = None
    params: Mapping[str, Any] = field(default_factory=dict)

    def words(self) -> dict[str, Any]:
        """``{"msg", "params"}`` for an event of this frame, or nothing without a message id."""
        return {"msg": self.msg, "params": dict(self.params)} if self.msg else {}


@dataclass(frozen=True)
class SourceSpec:
    """What the user asked for: ``camera`` (int index or device path), ``url``, ``video``, ``folder``, ``image``."""

    kind: str
    target: int | str


class Capture(Protocol):
    """The part of ``cv2.VideoCapture`` a camera source uses."""

    def isOpened(self) -> bool: ...

    def read(self) -> tuple[bool, np.ndarray | None]: ...

    def release(self) -> None: ...


def parse_source(text: str) -> SourceSpec:
    """Tell what kind of source ``text`` names (see the module examples)."""
    t = text.strip()
    if t.isdigit():
        return SourceSpec("camera", int(t))
    scheme = t.split("://", 1)[0].lower() if "://" in t else ""
    if scheme in URL_SCHEMES:
        return SourceSpec("url", t)
    if scheme:
        raise SourceError(f"{t}: unknown kind of address; give an http://, https://, rtsp:// or rtsps:// camera "
                          "address, a camera index (0), a /dev/video path or a file",
                          msg_id="live.unknown_address", params={"address": t})
    if t.startswith("/dev/video"):
        return SourceSpec("camera", t)
    if t.lower() == "sample":
        return SourceSpec("folder", str(SAMPLE_SEQUENCE))
    p = Path(t)
    if p.is_dir():
        return SourceSpec("folder", str(p))
    if p.is_file():
        suffix = p.suffix.lower()
        if suffix in IMAGE_SUFFIXES:
            return SourceSpec("image", str(p))
        if suffix in VIDEO_SUFFIXES:
            return SourceSpec("video", str(p))
        raise SourceError(f"{t}: not an image ({', '.join(IMAGE_SUFFIXES)}) "
                          f"or a video ({', '.join(VIDEO_SUFFIXES)})", msg_id="live.not_image_or_video",
                          params={"path": t, "images": list(IMAGE_SUFFIXES), "videos": list(VIDEO_SUFFIXES)})
    raise SourceError(f"{t}: no such file or folder; give a camera index (0), a /dev/video path, a camera "
                      "address (http://..., rtsp://...), a video file, an image, a folder of images or 'sample'",
                      msg_id="live.no_such_source", params={"path": t})


def read_image(path: str | Path) -> np.ndarray:
    """Read a colour image (:func:`calibration.images.load_image`), raising ``SourceError`` with the reason when it
    cannot be read or decoded.

    A missing or undecodable picture is said in the live feed's words (``live.*``); a file too large or
    that cannot be read, as the calibration's reader says it (``image.*``).
    """
    try:
        return load_image(path)
    except CalibrationError as exc:
        where = {"path": str(exc.params.get("path", path))}
        if exc.msg_id in ("image.missing", "image.directory"):
            raise SourceError(f"{where['path']}: no such image file", msg_id="live.no_such_picture",
                              params=where) from None
        if exc.msg_id == "image.not_an_image":
            raise SourceError(f"{where['path']}: cannot decode the image (corrupt or not an image file)",
                              msg_id="live.picture_undecodable", params=where) from None
        raise SourceError(str(exc), msg_id=exc.msg_id, params=exc.params) from None


def frames_from_folder(folder: str | Path, *, fps: float = FOLDER_FPS) -> Iterator[Frame]:
    """Yield the images of ``folder`` sorted by name; an undecodable one is an error frame.

    When every name ends with a distinct number (``frame_0007.jpg``), that number is the
    frame's index and sets its time stamp, so a dropped frame leaves a gap.
    """
    paths = sorted(p for p in Path(folder).iterdir() if p.suffix.lower() in IMAGE_SUFFIXES)
    if not paths:
        raise SourceError(f"{folder}: no images ({', '.join(IMAGE_SUFFIXES)}) in this folder",
                          msg_id="live.folder_without_pictures",
                          params={"path": str(folder), "images": list(IMAGE_SUFFIXES)})
    numbers = [_frame_number(p.stem) for p in paths]
    if None in numbers or len(set(numbers)) != len(numbers):
        numbers = list(range(len(paths)))
    for i, p in zip(numbers, paths):
        assert i is not None
        t = i / fps
        try:
            yield Frame(i, t, read_image(p), name=p.name)
        except SourceError as exc:
            yield Frame(i, t, None, error=str(exc), name=p.name, msg="live.picture_unreadable",
                        params={"path": p.name})


def _frame_number(stem: str) -> int | None:
    """The number a file name ends with (``frame_0021`` -> 21): a missing number is a dropped frame."""
    digits = ""
    for ch in reversed(stem):
        if not ch.isdigit():
            break
        digits = ch + digits
    return int(digits) if digits else None


def frames_from_image(path: str | Path) -> Iterator[Frame]:
    """Yield one frame (raises ``SourceError`` when the image cannot be read)."""
    yield Frame(0, 0.0, read_image(path), name=Path(path).name)


def frames_from_video(path: str | Path, *, opener: Callable[[int | str], Capture] | None = None) -> Iterator[Frame]:
    """Yield the frames of a video file until it ends (a last ``source_ended`` frame says so).

    A bad frame inside is an error frame.
    """
    cap = (opener or cv2.VideoCapture)(str(path))
    if not cap.isOpened():
        raise SourceError(f"{path}: cannot open the video (unknown format or missing codec)",
                          msg_id="live.video_unavailable", params={"path": str(path)})
    fps = 0.0
    get = getattr(cap, "get", None)
    if get is not None:
        fps = float(get(cv2.CAP_PROP_FPS) or 0.0)
    fps = fps if fps > 0 else 25.0
    i = 0
    try:
        while True:
            ok, image = cap.read()
            if not ok:
                yield Frame(i, i / fps, None, event="source_ended", error=f"{path}: the video ended",
                            msg="live.video_ended", params={"path": str(path)})
                return
            if image is None or image.size == 0:
                yield Frame(i, i / fps, None, error=f"{path}: frame {i} could not be decoded",
                            msg="live.frame_unreadable", params={"path": str(path), "index": i})
            else:
                yield Frame(i, i / fps, image)
            i += 1
    finally:
        cap.release()


def frames_from_camera(target: int | str, *, opener: Callable[[int | str], Capture] | None = None,
                       clock: Callable[[], float] = time.monotonic,
                       sleep: Callable[[float], None] = time.sleep,
                       max_attempts: int | None = REOPEN_MAX_ATTEMPTS) -> Iterator[Frame]:
    """Yield frames from a live camera forever, reopening it with back-off when it stops.

    Parameters
    ----------
    target : int or str
        Camera index or device path.
    opener : callable, optional
        ``opener(target) -> capture`` (``cv2.VideoCapture`` by default); tests pass a fake.
    clock, sleep : callable
        Time source and sleeper (injectable so tests need not wait).
    max_attempts : int, optional
        Give up after this many failed reopen attempts in a row (a ``camera_gave_up``
        frame ends the stream); None retries forever.
    """
    open_ = opener or _video_capture
    cap: Capture | None = open_(target)
    assert cap is not None
    if not cap.isOpened():
        cap.release()
        if isinstance(target, str) and "://" in target:
            raise SourceError(f"{target}: cannot open the stream; check the address (and the user name and password "
                              "in it, if the camera asks for them) and that the camera is on the same network",
                              msg_id="live.stream_unavailable", params={"address": target})
        raise SourceError(f"camera {target!r}: cannot open it (is it plugged in, or used by another program?)",
                          msg_id="live.camera_unavailable", params={"camera": str(target)})
    start = clock()
    index = 0
    failures = 0
    while True:
        ok, image = cap.read()
        if ok and image is not None and image.size:
            failures = 0
            yield Frame(index, clock() - start, image)
            index += 1
            continue
        failures += 1
        if failures < READS_BEFORE_LOST:
            continue
        cap.release()
        log.warning("camera %r stopped delivering frames; reopening with back-off", target)
        yield Frame(index, clock() - start, None, event="camera_lost",
                    error=f"camera {target!r} stopped delivering frames", msg="live.camera_stopped",
                    params={"camera": str(target)})
        cap = yield from _reopen(open_, target, clock, sleep, start, index, max_attempts)
        if cap is None:
            return
        failures = 0
        yield Frame(index, clock() - start, None, event="camera_back")


def _reopen(open_: Callable[[int | str], Capture], target: int | str, clock: Callable[[], float],
            sleep: Callable[[float], None], start: float, index: int,
            max_attempts: int | None) -> Generator[Frame, None, Capture | None]:
    wait = REOPEN_FIRST_WAIT_S
    attempt = 0
    while max_attempts is None or attempt < max_attempts:
        sleep(wait)
        attempt += 1
        cap = open_(target)
        if cap.isOpened():
            log.info("camera %r reopened after %d attempt(s)", target, attempt)
            return cap
        cap.release()
        log.info("camera %r: reopen attempt %d failed, next in %.1f s", target, attempt, wait)
        wait = min(wait * REOPEN_FACTOR, REOPEN_MAX_WAIT_S)
    yield Frame(index, clock() - start, None, event="camera_gave_up",
                error=f"camera {target!r}: gave up after {attempt} reopen attempts", msg="live.camera_abandoned",
                params={"camera": str(target), "attempts": attempt})
    return None


def open_frames(text: str, *, opener: Callable[[int | str], Capture] | None = None) -> Iterator[Frame]:
    """Return the frames of the source named by ``text`` (see :func:`parse_source`)."""
    spec = parse_source(text)
    if spec.kind == "camera":
        return frames_from_camera(spec.target, opener=opener)
    target = str(spec.target)
    if spec.kind == "url":
        return frames_from_url(target, opener=opener)
    if spec.kind == "video":
        return frames_from_video(target, opener=opener)
    if spec.kind == "folder":
        if not Path(target).is_dir():
            raise SourceError(f"{target}: the sample sequence is missing; render it with "
                              "'tabletracker render-samples'", msg_id="live.sample_missing", params={"path": target})
        return frames_from_folder(target)
    return frames_from_image(target)


# -- network cameras -------------------------------------------------------------------
def frames_from_url(url: str, *, opener: Callable[[int | str], Capture] | None = None,
                    reader: Callable[[str], MjpegReader] | None = None,
                    clock: Callable[[], float] = time.monotonic, sleep: Callable[[float], None] = time.sleep,
                    stall_s: float = URL_STALL_S, max_attempts: int | None = REOPEN_MAX_ATTEMPTS) -> Iterator[Frame]:
    """Yield frames from a network camera forever, reconnecting with back-off like a USB camera.

    An ``http(s)://`` address that serves MJPEG or JPEG snapshots is read by
    :class:`tracker.mjpeg.MjpegReader` (newest frame only, time of arrival kept); other
    addresses (``rtsp://``, an HTTP video) go through OpenCV's FFmpeg back-end with time-outs,
    as a camera. A frame that is not a JPEG is an error frame; a stream that stalls for
    ``stall_s`` is ``camera_lost`` and reconnected; a change of picture size is reported
    (``resolution_changed``) before the first frame of the new size.

    Raises
    ------
    SourceError
        When the address cannot be reached at first, or answers with a web page.
    """
    scheme = url.split("://", 1)[0].lower()
    if scheme in ("http", "https") and opener is None:
        return _frames_from_mjpeg(url, reader or MjpegReader, clock, sleep, stall_s, max_attempts)
    return frames_from_camera(url, opener=opener or _ffmpeg_capture, clock=clock, sleep=sleep,
                              max_attempts=max_attempts)


def _video_capture(target: int | str) -> Capture:
    """``cv2.VideoCapture(target)`` (a device index or a path/address), typed as a :class:`Capture`."""
    return cv2.VideoCapture(target)


def _ffmpeg_capture(target: int | str) -> Capture:
    params = [cv2.CAP_PROP_OPEN_TIMEOUT_MSEC, FFMPEG_OPEN_TIMEOUT_MS,
              cv2.CAP_PROP_READ_TIMEOUT_MSEC, FFMPEG_READ_TIMEOUT_MS]
    return cv2.VideoCapture(str(target), cv2.CAP_FFMPEG, params)


def _frames_from_mjpeg(url: str, make: Callable[[str], MjpegReader], clock: Callable[[], float],
                       sleep: Callable[[float], None], stall_s: float,
                       max_attempts: int | None) -> Iterator[Frame]:
    try:
        stream: MjpegReader | None = make(url)
    except StreamError as exc:
        raise SourceError(str(exc), msg_id="live.stream_unavailable", params={"address": url}) from None
    return _mjpeg_frames(url, stream, make, clock, sleep, stall_s, max_attempts)


def _mjpeg_frames(url: str, stream: MjpegReader | None, make: Callable[[str], MjpegReader],
                  clock: Callable[[], float], sleep: Callable[[float], None], stall_s: float,
                  max_attempts: int | None) -> Iterator[Frame]:
    start = clock()
    index = 0
    shape: tuple[int, ...] | None = None
    try:
        while stream is not None:
            got = stream.next(stall_s)
            if got is None:
                reason = stream.failure or f"{url}: no frame for {stall_s:g} s (the stream stalled)"
                stream.close()
                log.warning("%s; reconnecting with back-off", reason)
                yield Frame(index, clock() - start, None, event="camera_lost", error=reason, msg="live.camera_stopped",
                            params={"camera": url})
                stream = yield from _reconnect(url, make, clock, sleep, start, index, max_attempts)
                if stream is not None:
                    yield Frame(index, clock() - start, None, event="camera_back")
                continue
            t = clock() - start
            if got.image is None:
                yield Frame(index, t, None, error=got.error, received_wall_s=got.received_wall_s)
                index += 1
                continue
            if shape is not None and got.image.shape != shape:
                old = f"{shape[1]}x{shape[0]}"
                new = f"{got.image.shape[1]}x{got.image.shape[0]}"
                log.warning("%s: the picture changed from %s to %s", url, old, new)
                yield Frame(index, t, None, event="resolution_changed",
                            error=f"{url}: the picture changed from {old} to {new} pixels",
                            msg="live.picture_resized", params={"address": url, "old": old, "new": new})
            shape = got.image.shape
            yield Frame(index, t, got.image, received_wall_s=got.received_wall_s)
            index += 1
    finally:
        if stream is not None:
            stream.close()


def _reconnect(url: str, make: Callable[[str], MjpegReader], clock: Callable[[], float],
               sleep: Callable[[float], None], start: float, index: int,
               max_attempts: int | None) -> Generator[Frame, None, MjpegReader | None]:
    wait = REOPEN_FIRST_WAIT_S
    attempt = 0
    last = ""
    while max_attempts is None or attempt < max_attempts:
        sleep(wait)
        attempt += 1
        try:
            stream = make(url)
        except StreamError as exc:
            last = str(exc)
            log.info("%s: reconnect attempt %d failed (%s), next in %.1f s", url, attempt, exc, wait)
            wait = min(wait * REOPEN_FACTOR, REOPEN_MAX_WAIT_S)
            continue
        log.info("%s: reconnected after %d attempt(s)", url, attempt)
        return stream
    yield Frame(index, clock() - start, None, event="camera_gave_up",
                error=f"{url}: gave up after {attempt} reconnect attempts ({last})", msg="live.camera_abandoned",
                params={"camera": url, "attempts": attempt})
    return None


# -- a source that cannot be opened yet -------------------------------------------------
def open_frames_waiting(text: str, *, opener: Callable[[int | str], Capture] | None = None,
                        sleep: Callable[[float], None] = time.sleep,
                        clock: Callable[[], float] = time.monotonic) -> Iterator[Frame]:
    """Frames of ``text`` like :func:`open_frames`, but a camera that cannot be opened yet is waited for.

    The name itself is checked at once (``SourceError`` for a missing file or an unknown
    address). When the camera, the address or the video cannot be opened, a
    ``source_failed`` frame says why (the caller shows it and keeps serving); a camera or
    address is then tried again with back-off until it answers, a video is not.
    """
    spec = parse_source(text)
    live = spec.kind in ("camera", "url")
    wait = REOPEN_FIRST_WAIT_S
    said = ""
    start = clock()
    while True:
        try:
            frames = open_frames(text, opener=opener)
            first = next(frames, None)  # cameras and videos open on the first read
        except SourceError as exc:
            if str(exc) != said:
                said = str(exc)
                log.warning("%s", exc)
                yield Frame(0, clock() - start, None, event="source_failed", error=str(exc), msg=exc.msg_id,
                            params=exc.params)
            if not live:
                return
            sleep(wait)
            wait = min(wait * REOPEN_FACTOR, REOPEN_MAX_WAIT_S)
            continue
        if said:
            yield Frame(0, clock() - start, None, event="camera_back")
        if first is not None:
            yield first
        yield from frames
        return
