"""A small MJPEG camera on 127.0.0.1 for the network-camera tests, whose behaviour a test steers.

``/video`` streams multipart JPEG frames (``mode``: ``ok``, ``stall`` (the connection stays
open, nothing comes), ``garbage`` (one part that is not a JPEG), ``down`` (connections
refused with a 503)); ``size`` sets the picture size; ``/shot.jpg`` is one JPEG; ``/page``
is a web page.
"""

from __future__ import annotations

import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import cv2
import numpy as np

BOUNDARY = "tabletrackerframe"
#: After a part that is not a JPEG, the stream waits this long before the next frame.
GARBAGE_HELD_S = 1.0


def jpeg(size: tuple[int, int], value: int) -> bytes:
    w, h = size
    image = np.full((h, w, 3), value % 256, np.uint8)
    cv2.putText(image, str(value), (2, h - 4), cv2.FONT_HERSHEY_SIMPLEX, 0.4, (255, 255, 255), 1)
    ok, data = cv2.imencode(".jpg", image)
    assert ok
    return data.tobytes()


class CameraServer:
    """Start with ``with CameraServer() as cam:``; ``cam.url('/video')``; change ``cam.mode``, ``cam.size``."""

    def __init__(self, fps: float = 50.0) -> None:
        self.mode = "ok"
        self.size = (64, 48)
        self.fps = fps
        self.sent = 0
        self.sent_at: dict[int, float] = {}
        self.with_length = True
        state = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:  # quiet
                pass

            def do_GET(self) -> None:
                if state.mode == "down":
                    self.send_error(503, "camera off")
                    return
                if self.path == "/page":
                    body = b"<html><body>Phone webcam: open /video</body></html>"
                    self.send_response(200)
                    self.send_header("Content-Type", "text/html; charset=utf-8")
                    self.send_header("Content-Length", str(len(body)))
                    self.end_headers()
                    self.wfile.write(body)
                    return
                if self.path == "/shot.jpg":
                    body = jpeg(state.size, state.sent)
                    state.sent += 1
                    self.send_response(200)
                    self.send_header("Content-Type", "image/jpeg")
                    self.send_header("Content-Length", str(len(body)))
                    self.end_headers()
                    self.wfile.write(body)
                    return
                self.send_response(200)
                self.send_header("Content-Type", f"multipart/x-mixed-replace; boundary={BOUNDARY}")
                self.end_headers()
                try:
                    while not state.stopping.is_set():
                        if state.mode == "stall":
                            time.sleep(0.02)
                            continue
                        if state.mode == "down":
                            return
                        held = 0.0
                        if state.mode == "garbage":
                            body = b"this is not a JPEG image at all" * 10
                            state.mode = "ok"
                            # the reader keeps only the newest part: the next one waits, so a test on a loaded
                            # machine takes this one before it is replaced (well under the stall time)
                            held = GARBAGE_HELD_S
                        else:
                            body = jpeg(state.size, state.sent)
                        head = f"--{BOUNDARY}\r\nContent-Type: image/jpeg\r\n"
                        if state.with_length:
                            head += f"Content-Length: {len(body)}\r\n"
                        self.wfile.write(head.encode() + b"\r\n" + body + b"\r\n")
                        self.wfile.flush()
                        state.sent_at[state.sent] = time.time()
                        state.sent += 1
                        time.sleep(max(1.0 / state.fps, held))
                except (BrokenPipeError, ConnectionResetError, ConnectionAbortedError):
                    return

        self.stopping = threading.Event()
        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}{path}"

    def __enter__(self) -> CameraServer:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stopping.set()
        self.httpd.shutdown()
        self.httpd.server_close()
        self.thread.join(5)
