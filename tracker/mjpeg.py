"""A network camera over HTTP: an MJPEG stream (phone webcam apps, IP cameras) or a JPEG snapshot URL.

:class:`MjpegReader` connects, checks what the address answers (an MJPEG stream, one JPEG
image to poll, or something else such as a web page, which is refused with a message
saying what to give instead) and then reads frames in a background thread, keeping only
the newest: a tracker slower than the camera always gets the latest frame, never a
backlog, so the delay from the camera to the tracker stays within one frame time.

Every frame carries the wall-clock time it was received (``received_wall_s``) so the page
can show the source's latency. A part that is not a decodable JPEG is reported as a bad
frame, a connection that stops delivering frames is reported as stalled (the caller
reconnects), and the reader never raises in its thread.

Standard library (``http.client``) and OpenCV only.
"""

from __future__ import annotations

import http.client
import logging
import socket
import threading
import time
from dataclasses import dataclass
from urllib.parse import urlsplit

import cv2
import numpy as np

from tracker.errors import TrackerError

log = logging.getLogger(__name__)

CONNECT_TIMEOUT_S = 5.0
"""Seconds to wait for the camera to answer a connection."""

READ_TIMEOUT_S = 3.0
"""Seconds without any byte from the stream before it counts as stalled."""

MAX_PART_BYTES = 32 * 1024 * 1024
"""Largest JPEG part accepted (a 4K JPEG is a few MB); beyond it the stream is not a camera's."""

SNAPSHOT_INTERVAL_S = 0.05
"""Pause between two requests to a snapshot (single JPEG) address."""


class StreamError(TrackerError):
    """The address does not give camera frames; the message says why and what to give instead."""


@dataclass(frozen=True)
class NetFrame:
    """One part of the stream: an image, or why it is not one."""

    image: np.ndarray | None
    received_wall_s: float
    received_s: float
    error: str | None = None


def _connect(url: str, timeout_s: float
             ) -> tuple[http.client.HTTPConnection, http.client.HTTPResponse, socket.socket | None]:
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise StreamError(f"{url}: not an http:// or https:// address")
    cls = http.client.HTTPSConnection if parts.scheme == "https" else http.client.HTTPConnection
    conn = cls(parts.hostname, parts.port, timeout=timeout_s)
    path = parts.path or "/"
    if parts.query:
        path += "?" + parts.query
    try:
        conn.request("GET", path,
                     headers={"User-Agent": "tabletracker", "Accept": "multipart/x-mixed-replace, image/jpeg"})
        sock = conn.sock  # kept: http.client lets go of it for a stream with no length
        resp = conn.getresponse()
    except (OSError, http.client.HTTPException) as exc:
        conn.close()
        raise StreamError(f"{url}: cannot connect ({exc or type(exc).__name__}); check the address, that the "
                          "camera app is running and that this computer is on the same network") from None
    if resp.status != 200:
        conn.close()
        raise StreamError(f"{url}: the camera answered HTTP {resp.status} {resp.reason}; check the address "
                          "(and the user name and password, if the camera asks for them)")
    return conn, resp, sock


def _boundary(content_type: str) -> bytes | None:
    for item in content_type.split(";")[1:]:
        key, _, value = item.strip().partition("=")
        if key.strip().lower() == "boundary":
            value = value.strip().strip('"')
            return value[2:].encode() if value.startswith("--") else value.encode()
    return None


def _decode(data: bytes) -> np.ndarray | None:
    if not data:
        return None
    image = cv2.imdecode(np.frombuffer(data, dtype=np.uint8), cv2.IMREAD_COLOR)
    return image if image is not None and image.size else None


class MjpegReader:
    """Read an HTTP camera in a background thread, keeping the newest frame.

    Parameters
    ----------
    url
        ``http://`` or ``https://`` address of an MJPEG stream or of a JPEG snapshot.
    timeout_s
        Seconds without data before the stream counts as stalled.

    Raises
    ------
    StreamError
        At construction, when the address cannot be reached or answers with something
        that is not camera frames (a web page, for instance).
    """

    def __init__(self, url: str, *, timeout_s: float = READ_TIMEOUT_S,
                 connect_timeout_s: float = CONNECT_TIMEOUT_S) -> None:
        self.url = url
        self.timeout_s = timeout_s
        self._conn, self._resp, self._sock = _connect(url, connect_timeout_s)
        if self._sock is not None:
            self._sock.settimeout(timeout_s)
        kind = (self._resp.getheader("Content-Type") or "").lower()
        self._snapshot = kind.startswith("image/")
        self._boundary = _boundary(kind) if kind.startswith("multipart/") else None
        if not self._snapshot and self._boundary is None:
            what = "a web page" if "html" in kind else (f"'{kind}'" if kind else "data of no stated type")
            self.close()
            raise StreamError(f"{url}: this address answers with {what}, not a camera stream; give the address of "
                              "the camera's MJPEG stream (in phone webcam apps often ending in /video or /mjpeg), or "
                              "an rtsp:// address")
        self._cond = threading.Condition()
        self._latest: NetFrame | None = None
        self._seq = 0
        self._taken = 0
        self.failure: str | None = None
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="tabletracker-mjpeg", daemon=True)
        self._thread.start()

    # -- consumer side ------------------------------------------------------------
    @property
    def alive(self) -> bool:
        """Whether the reading thread still runs (False after a failure or :meth:`close`)."""
        return self._thread.is_alive()

    def next(self, timeout_s: float | None = None) -> NetFrame | None:
        """Return the newest frame not yet returned; None after ``timeout_s`` or when the reader died."""
        wait = self.timeout_s if timeout_s is None else timeout_s
        deadline = time.monotonic() + wait
        with self._cond:
            while self._seq == self._taken:
                left = deadline - time.monotonic()
                if left <= 0 or not self._thread.is_alive():
                    return None
                self._cond.wait(min(left, 0.1))
            self._taken = self._seq
            return self._latest

    def close(self) -> None:
        """Stop reading and close the connection."""
        stop = getattr(self, "_stop", None)
        if stop is not None:
            stop.set()
        sock = self._sock
        if sock is not None:  # wakes the reading thread at once (closing the response would wait for it)
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
        try:
            self._resp.close()
        finally:
            self._conn.close()

    # -- reading thread -----------------------------------------------------------
    def _put(self, frame: NetFrame) -> None:
        with self._cond:
            self._latest = frame
            self._seq += 1
            self._cond.notify_all()

    def _run(self) -> None:
        try:
            if self._snapshot:
                self._run_snapshots()
            else:
                self._run_stream()
        except Exception as exc:  # noqa: BLE001 - the reading thread reports, never raises
            # (closing the connection under a blocked read also ends here, as an AttributeError)
            if not self._stop.is_set():
                self.failure = f"{self.url}: the stream stopped ({exc or type(exc).__name__})"
                log.info("%s", self.failure)
        finally:
            with self._cond:
                self._cond.notify_all()

    def _frame(self, data: bytes) -> NetFrame:
        image = _decode(data)
        error = None if image is not None else f"{self.url}: a frame of the stream is not a JPEG image"
        return NetFrame(image, time.time(), time.monotonic(), error)

    def _run_snapshots(self) -> None:
        resp, conn = self._resp, self._conn
        while not self._stop.is_set():
            data = resp.read(MAX_PART_BYTES + 1)
            if len(data) > MAX_PART_BYTES:
                raise StreamError("a snapshot larger than any camera image")
            self._put(self._frame(data))
            conn.close()
            if self._stop.wait(SNAPSHOT_INTERVAL_S):
                return
            conn, resp, sock = _connect(self.url, self.timeout_s)
            self._conn, self._resp, self._sock = conn, resp, sock

    def _run_stream(self) -> None:
        assert self._boundary is not None
        resp = self._resp
        marker = b"--" + self._boundary
        at_part = False              # the boundary line of the next part was already read
        while not self._stop.is_set():
            if not at_part:
                line = resp.readline(65536)
                if not line:
                    raise StreamError("the camera closed the connection")
                if not line.strip().startswith(marker):
                    continue         # preamble, or the CRLF after a part
                if line.strip() == marker + b"--":
                    raise StreamError("the camera ended the stream")
            at_part = False
            length = None
            while True:              # the part's headers
                header = resp.readline(65536)
                if not header:
                    raise StreamError("the camera closed the connection")
                if not header.strip():
                    break
                key, _, value = header.decode("latin-1").partition(":")
                if key.strip().lower() == "content-length":
                    try:
                        length = int(value.strip())
                    except ValueError:
                        length = None
            ended = False
            if length is not None and 0 <= length <= MAX_PART_BYTES:
                data = resp.read(length)
                if len(data) < length:
                    raise StreamError("the camera closed the connection in the middle of a frame")
            else:                    # no length: read up to the next boundary
                chunks: list[bytes] = []
                size = 0
                while True:
                    chunk = resp.readline(65536)
                    if not chunk:
                        raise StreamError("the camera closed the connection")
                    if chunk.strip().startswith(marker):
                        ended = chunk.strip() == marker + b"--"
                        at_part = True
                        break
                    chunks.append(chunk)
                    size += len(chunk)
                    if size > MAX_PART_BYTES:
                        raise StreamError("a frame larger than any camera image: this is not a camera stream")
                data = b"".join(chunks).rstrip(b"\r\n")
            self._put(self._frame(data))
            if ended:
                raise StreamError("the camera ended the stream")
