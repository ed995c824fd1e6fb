"""Follow the page's live stream (``/api/stream``) as a browser does: the load benchmarks' one reader."""

from __future__ import annotations

import http.client
import threading
from collections.abc import Iterator


def live_messages(port: int, stop: threading.Event, timeout_s: float = 30.0) -> Iterator[str]:
    """Yield the data line of each ``live`` message of the server on ``port`` until ``stop`` or the stream ends.

    Connection errors propagate (``OSError``, ``http.client.HTTPException``): each caller says what they mean.
    """
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout_s)
    try:
        conn.request("GET", "/api/stream")
        resp = conn.getresponse()
        event = ""
        while not stop.is_set():
            line = resp.fp.readline().decode()
            if not line:
                break
            if line.startswith("event: "):
                event = line[7:].strip()
            elif line.startswith("data: ") and event == "live":
                yield line[6:]
    finally:
        conn.close()
