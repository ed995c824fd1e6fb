"""Hostile input under load (issue 12): request times, the live feed's rate, database growth.

Two phases on the real app and the real tracker playing the bundled sample sequence:

1. **Requests while the live feed runs** (``--seconds``, default 20): the server (capped,
   as ``serve`` runs it) plays the sample at 5 frames/s (``serve``'s pace) on a game whose
   rifles have 100 attacks; one browser follows ``/api/stream`` while a hostile client
   sends, over and over, the issue's requests: a 200-attack salvo's odds and its apply,
   forged cross-site undos, NaN bodies, 1000-deep JSON, huge integers, a YAML alias bomb,
   an import with a 1e300 mm table, a chunked body over the limit. Prints each kind's
   slowest answer and status, the count of 5xx, and the live messages per second the
   browser received against the 5 frames/s played.
2. **Database growth** (``--loops``, default 6): the looping sample flat out, as
   ``serve`` loops it (models placed again at each start over); prints the bytes the
   database grows per loop, per hour of play at 5 frames/s, and what the former
   storage (every event holding the whole game as JSON text) would have grown.

Usage: ``.venv/bin/python benchmarks/hostile_load.py [--seconds 20] [--loops 6]``
"""

from __future__ import annotations

import argparse
import http.client
import json
import logging
import multiprocessing
import socket
import sqlite3
import sys
import tempfile
import threading
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks._sse import live_messages  # noqa: E402
from server import create_app  # noqa: E402
from server.httpd import make_server  # noqa: E402

SEQUENCE = ROOT / "sample_images" / "sequence"
FRAMES_PER_LOOP = len(list(SEQUENCE.glob("frame_*.jpg")))
SERVE_FPS = 5.0


def sample_game(attacks: int = 1) -> dict[str, Any]:
    game = json.loads((SEQUENCE / "game.json").read_text(encoding="utf-8"))
    for weapon in game["weapons"].values():
        weapon["attacks"] = attacks
    return game


def hostile_requests() -> list[tuple[str, str, str, bytes, dict[str, str]]]:
    """(label, method, path, body, headers) of the issue's hostile and careless requests."""
    js = {"Content-Type": "application/json"}
    bomb = "a: &a [x, x, x, x, x, x, x, x, x]\n" + "".join(
        f"{chr(98 + i)}: &{chr(98 + i)} [" + ", ".join([f"*{chr(97 + i)}"] * 9) + "]\n" for i in range(8))
    big_table = json.dumps({"game": dict(sample_game(), table={"width_mm": 1e300, "depth_mm": 900})})
    salvo = {"action": "shoot", "request": {"firing": "red-1", "target": "blue-1", "weapon": "rifle"}}
    return [
        ("odds of a 200-attack salvo", "POST", "/api/resolve", json.dumps(salvo).encode(), js),
        ("forged empty form POST /api/undo", "POST", "/api/undo", b"",
         {"Origin": "http://evil.example", "Content-Type": "application/x-www-form-urlencoded"}),
        ("NaN in resolve/apply", "POST", "/api/resolve/apply",
         b'{"action": "shoot", "request": {"x": NaN}, "dice": [3]}', js),
        ("JSON nested 1000 deep", "POST", "/api/game/import", ("[" * 1000 + "]" * 1000).encode(), js),
        ("integer too large for a float", "POST", "/api/objectives", b'{"x_mm": 1' + b"0" * 400 + b', "y_mm": 1}', js),
        ("YAML alias bomb roster", "POST", "/api/setup/rosters",
         json.dumps({"rosters": [{"filename": "r.yaml", "text": bomb}]}).encode(), js),
        ("import of a 1e300 mm table", "POST", "/api/game/import", big_table.encode(), js),
        ("chunked body over the limit", "CHUNKED", "/api/objectives",
         json.dumps({"x_mm": 1, "y_mm": 1, "name": "n" * (3 * 1024 * 1024)}).encode(), js),
        ("game state", "GET", "/api/state", b"", {}),
    ]


def send(port: int, method: str, path: str, body: bytes, headers: dict[str, str]) -> int:
    if method == "CHUNKED":
        with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
            head = f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nTransfer-Encoding: chunked\r\n"
            head += "".join(f"{k}: {v}\r\n" for k, v in headers.items()) + "\r\n"
            try:
                s.sendall(head.encode())
                for i in range(0, len(body), 65536):
                    piece = body[i:i + 65536]
                    s.sendall(f"{len(piece):x}\r\n".encode() + piece + b"\r\n")
                s.sendall(b"0\r\n\r\n")
            except OSError:
                pass  # the server may answer 413 and close before the body ends
            answer = s.recv(64)
            return int(answer.split()[1]) if answer.startswith(b"HTTP/") else 0
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    conn.request(method, path, body=body or None, headers=headers)
    r = conn.getresponse()
    r.read()
    conn.close()
    return r.status


class LiveCounter(threading.Thread):
    """One browser following /api/stream: counts live messages."""

    def __init__(self, port: int, stop: threading.Event) -> None:
        super().__init__(daemon=True)
        self.port, self.stop, self.times = port, stop, []  # type: ignore[var-annotated]

    def run(self) -> None:
        for _ in live_messages(self.port, self.stop):
            self.times.append(time.monotonic())


def attack_in_child(port: int, warmup_s: float, quiet_s: float, seconds: float, out: Any) -> None:
    """The browser and the hostile client, in their own process (as real ones are): no shared interpreter."""
    stop = threading.Event()
    watcher = LiveCounter(port, stop)
    watcher.start()
    time.sleep(warmup_s)
    q0, n_quiet = time.monotonic(), len(watcher.times)
    time.sleep(quiet_s)  # the live rate with no request, to compare
    quiet_rate = (len(watcher.times) - n_quiet) / (time.monotonic() - q0)
    times: dict[str, list[float]] = defaultdict(list)
    statuses: dict[str, set[int]] = defaultdict(set)
    t0 = time.monotonic()
    n0 = len(watcher.times)
    while time.monotonic() - t0 < seconds:
        for label, method, path, body, headers in hostile_requests():
            start = time.monotonic()
            status = send(port, method, path, body, headers)
            times[label].append(time.monotonic() - start)
            statuses[label].add(status)
    elapsed = time.monotonic() - t0
    got = watcher.times[n0:]
    stop.set()
    gaps = [b - a for a, b in zip(got, got[1:])]
    out.put({"count": sum(len(v) for v in times.values()),
             "server_errors": sum(1 for k in statuses for s in statuses[k] if s >= 500),
             "slowest": {k: max(v) for k, v in times.items()}, "median": {k: sorted(v)[len(v) // 2] for k, v in times.items()},
             "statuses": {k: sorted(v) for k, v in statuses.items()}, "live_rate": len(got) / elapsed,
             "quiet_rate": quiet_rate, "max_gap": max(gaps) if gaps else float("nan")})


def phase_requests(seconds: float, db: Path) -> dict[str, Any]:
    app = create_app({"DB_PATH": str(db), "SOURCE": {"kind": "sample"}, "GAME": sample_game(100),
                      "FPS": SERVE_FPS, "LOOP_SOURCE": True, "NEW_GAME": True})
    overlay = app.extensions["tabletracker"]
    server = make_server("127.0.0.1", 0, app)
    port = server.server_port
    threading.Thread(target=server.serve_forever, daemon=True).start()
    overlay.start()
    ctx = multiprocessing.get_context("spawn")
    results = ctx.Queue()
    quiet_s = min(10.0, seconds / 2)
    child = ctx.Process(target=attack_in_child, args=(port, 3.0, quiet_s, seconds, results), daemon=True)
    child.start()
    got = results.get(timeout=seconds + quiet_s + 120)
    child.join(10)
    overlay.stop()
    server.shutdown()
    server.server_close()
    overlay.store.close()
    return got


def db_bytes(path: Path) -> int:
    with sqlite3.connect(path) as db:
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    return path.stat().st_size


def phase_storage(loops: int, db: Path) -> dict[str, Any]:
    app = create_app({"DB_PATH": str(db), "SOURCE": {"kind": "sample"}, "FPS": 1000.0, "LOOP_SOURCE": True,
                      "NEW_GAME": True})
    overlay = app.extensions["tabletracker"]
    overlay.start()
    assert overlay.loop is not None
    while overlay.loop.frames < FRAMES_PER_LOOP:  # the first pass places everything: not counted
        time.sleep(0.05)
    first_events = overlay.store.count_events()
    start_bytes = db_bytes(db)
    f0 = overlay.loop.frames
    while overlay.loop.frames - f0 < loops * FRAMES_PER_LOOP:
        time.sleep(0.05)
    frames = overlay.loop.frames - f0
    overlay.stop()
    grown = db_bytes(db) - start_bytes
    events = overlay.store.events(limit=100_000, with_games=True)
    later = events[first_events:]
    former = sum(len(json.dumps(dict(e.game), ensure_ascii=False)) + len(json.dumps(dict(e.payload))) + 60
                 for e in later)
    kinds: dict[str, int] = defaultdict(int)
    for e in later:
        kinds[e.kind] += 1
    payload_bytes = sum(len(json.dumps(dict(e.payload))) for e in later)
    overlay.store.close()
    per_frame = grown / frames
    hour_frames = SERVE_FPS * 3600
    return {"frames": frames, "events": len(later), "grown": grown, "per_hour_mb": per_frame * hour_frames / 1e6,
            "former_per_hour_mb": former / frames * hour_frames / 1e6, "kinds": dict(kinds),
            "payload_bytes": payload_bytes}


def main() -> int:
    logging.getLogger("werkzeug").setLevel(logging.ERROR)
    logging.getLogger("server").setLevel(logging.ERROR)
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--loops", type=int, default=6)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        got = phase_requests(args.seconds, Path(tmp) / "requests.db")
        print(f"hostile requests while the sample plays at {SERVE_FPS:g} frames/s: {got['count']} sent, "
              f"{got['server_errors']} answered 5xx")
        for label, worst in got["slowest"].items():
            print(f"  {label:38s} median {got['median'][label] * 1000:6.0f} ms, slowest {worst * 1000:6.0f} ms"
                  f"   status {got['statuses'][label]}")
        print(f"  live feed: {got['live_rate']:.2f} messages/s received during the requests, "
              f"{got['quiet_rate']:.2f} with no request (frames played at {SERVE_FPS:g}/s; the sample's one "
              f"corrupt frame per loop sends none), longest gap {got['max_gap'] * 1000:.0f} ms")
        st = phase_storage(args.loops, Path(tmp) / "storage.db")
        print(f"database growth, looping sample: {st['events']} events over {st['frames']} frames, "
              f"{st['grown']} bytes -> {st['per_hour_mb']:.3f} MB per hour at {SERVE_FPS:g} frames/s "
              f"(former storage: {st['former_per_hour_mb']:.2f} MB per hour)")
        print(f"  events by kind: {st['kinds']}; their payloads {st['payload_bytes']} bytes")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
