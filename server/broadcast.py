"""Server-Sent Events to every watching browser, bounded so no watcher can slow the tracker.

Each client gets its own small queue. Publishing never blocks: when a client's queue is
full (a slow phone, a stalled tab) its oldest message is dropped, so the live loop spends
the same few microseconds per frame whether one browser or fifty are watching.

Examples
--------
>>> b = Broadcaster(queue_size=2)
>>> c = b.subscribe()
>>> for i in range(3):
...     _ = b.publish("state", {"seq": i})
>>> [m.data["seq"] for m in c.drain()]
[1, 2]
>>> c.dropped
1
>>> b.unsubscribe(c)
>>> b.client_count
0
"""

from __future__ import annotations

import collections
import json
import threading
import time
from dataclasses import dataclass
from typing import Any, Iterator

DEFAULT_QUEUE_SIZE = 8
KEEPALIVE_S = 15.0


@dataclass(frozen=True)
class Message:
    """One SSE message: an event name, its JSON data, and its wire bytes (encoded once)."""

    event: str
    data: Any
    event_id: int
    wire: bytes = b""

    @classmethod
    def make(cls, event: str, data: Any, event_id: int) -> "Message":
        try:
            body = json.dumps(data, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
        except ValueError:  # NaN or Infinity: the browser cannot parse them, send null
            from server.app import finite
            body = json.dumps(finite(data), ensure_ascii=False, separators=(",", ":"))
        return cls(event, data, event_id, f"id: {event_id}\nevent: {event}\ndata: {body}\n\n".encode())

    def encode(self) -> bytes:
        """Return the message as SSE wire text."""
        return self.wire


class Client:
    """One watcher's bounded queue (drop-oldest)."""

    def __init__(self, queue_size: int) -> None:
        self._queue: collections.deque[Message] = collections.deque(maxlen=queue_size)
        self._cond = threading.Condition()
        self.dropped = 0
        self.closed = False

    def put(self, message: Message) -> None:
        with self._cond:
            if len(self._queue) == self._queue.maxlen:
                self.dropped += 1
            self._queue.append(message)
            self._cond.notify()

    def get(self, timeout_s: float) -> Message | None:
        """Return the next message, or ``None`` after ``timeout_s`` (or once closed)."""
        with self._cond:
            if not self._queue and not self.closed:
                self._cond.wait(timeout_s)
            return self._queue.popleft() if self._queue else None

    def drain(self) -> list[Message]:
        with self._cond:
            out = list(self._queue)
            self._queue.clear()
            return out

    def close(self) -> None:
        with self._cond:
            self.closed = True
            self._cond.notify_all()


class Broadcaster:
    """Fan-out of messages to every subscribed :class:`Client`."""

    def __init__(self, queue_size: int = DEFAULT_QUEUE_SIZE) -> None:
        self.queue_size = queue_size
        self._clients: set[Client] = set()
        self._lock = threading.Lock()
        self._next_id = 0
        self._last: dict[str, Message] = {}

    @property
    def client_count(self) -> int:
        with self._lock:
            return len(self._clients)

    def subscribe(self) -> Client:
        """Add a client; it first receives the last message of each event kind."""
        client = Client(self.queue_size)
        with self._lock:
            for message in self._last.values():
                client.put(message)
            self._clients.add(client)
        return client

    def unsubscribe(self, client: Client) -> None:
        with self._lock:
            self._clients.discard(client)
        client.close()

    def publish(self, event: str, data: Any) -> Message:
        """Queue ``data`` for every client (never blocks; drops a slow client's oldest)."""
        with self._lock:
            self._next_id += 1
            message = Message.make(event, data, self._next_id)
            self._last[event] = message
            clients = list(self._clients)
        for client in clients:
            client.put(message)
        return message

    def close_all(self) -> None:
        with self._lock:
            clients = list(self._clients)
            self._clients.clear()
        for client in clients:
            client.close()


def stream(broadcaster: Broadcaster, client: Client, stop: threading.Event,
           *, keepalive_s: float = KEEPALIVE_S) -> Iterator[bytes]:
    """Yield SSE bytes for ``client`` until it disconnects or ``stop`` is set."""
    try:
        yield b"retry: 1000\n\n"
        last = time.monotonic()
        while not stop.is_set() and not client.closed:
            message = client.get(timeout_s=0.5)
            if message is not None:
                yield message.encode()
                last = time.monotonic()
            elif time.monotonic() - last > keepalive_s:
                yield b": keepalive\n\n"
                last = time.monotonic()
    finally:
        broadcaster.unsubscribe(client)
