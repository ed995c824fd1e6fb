"""The HTTP server ``tabletracker serve`` runs: werkzeug's threaded server, with caps.

* At most ``max_connections`` connections are served at once (one thread each); one
  more is answered ``503`` at once and closed, so 200 idle sockets cannot hold 200
  threads.
* A connection that sends nothing for ``idle_timeout_s`` while its request is read is
  closed (a slow or idle client cannot keep a thread).

The live feed (``/api/stream``) has its own cap on watchers (``MAX_SSE_CLIENTS`` in the
app's config), below the connection cap so pages can still load.
"""

from __future__ import annotations

import threading
from typing import Any

from werkzeug.serving import ThreadedWSGIServer, WSGIRequestHandler

MAX_CONNECTIONS = 64
IDLE_TIMEOUT_S = 20.0

_BUSY_BODY = "trop de connexions à la fois ; réessayez\ntoo many connections at once; try again\n".encode()
_BUSY = (b"HTTP/1.1 503 Service Unavailable\r\nContent-Type: text/plain; charset=utf-8\r\n"
         b"Retry-After: 2\r\nConnection: close\r\nContent-Length: " + str(len(_BUSY_BODY)).encode()
         + b"\r\n\r\n" + _BUSY_BODY)


class _Handler(WSGIRequestHandler):
    timeout = IDLE_TIMEOUT_S  # socketserver applies it to the socket: reading a request cannot hang forever


class CappedServer(ThreadedWSGIServer):
    """A threaded WSGI server serving at most ``max_connections`` connections at once."""

    def __init__(self, *args: Any, max_connections: int = MAX_CONNECTIONS, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.max_connections = max_connections
        self._slots = threading.BoundedSemaphore(max_connections)
        self.refused = 0

    def process_request(self, request: Any, client_address: Any) -> None:
        if not self._slots.acquire(blocking=False):
            self.refused += 1
            try:
                request.settimeout(1.0)
                request.sendall(_BUSY)
            except OSError:
                pass
            self.shutdown_request(request)
            return
        try:
            super().process_request(request, client_address)
        except Exception:
            self._slots.release()
            raise

    def process_request_thread(self, request: Any, client_address: Any) -> None:
        try:
            super().process_request_thread(request, client_address)
        finally:
            self._slots.release()


def make_server(host: str, port: int, app: Any, *, max_connections: int = MAX_CONNECTIONS) -> CappedServer:
    """Return the capped threaded server for ``app`` on ``host:port``."""
    return CappedServer(host, port, app, _Handler, max_connections=max_connections)

