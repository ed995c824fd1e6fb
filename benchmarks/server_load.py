"""Load test of the web overlay on loopback: ten browsers watching do not slow the tracker.

Runs the real app (``server.create_app``) behind werkzeug's threaded server on a free
127.0.0.1 port, with the real tracker on the bundled sample sequence (frames held in
memory, so disk reads do not count). Prints:

1. tracker throughput flat out with no watcher, then with ten SSE watchers that each also
   download the camera JPEG of every frame they are told about (as the page does);
2. at a camera pace (``--fps``, 30 by default) with the ten watchers: the latency from a
   frame's capture to each watcher receiving its SSE message, and to the watcher holding
   the frame's JPEG (what "the browser shows it" needs), median / p95 / max;
3. whether the pace was kept (frames processed per second against the camera's rate).

Bounded: a few seconds per phase, daemon threads, everything stopped at the end.
Usage: ``.venv/bin/python benchmarks/server_load.py [--watchers 10] [--seconds 6] [--fps 30]``
"""

from __future__ import annotations

import argparse
import http.client
import json
import logging
import multiprocessing
import os
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any, Iterator

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from werkzeug.serving import make_server  # noqa: E402

from benchmarks._sse import live_messages  # noqa: E402
from calibration.setup import load_setup  # noqa: E402
from rules.plan import game_to_dict, load_game  # noqa: E402
from server import create_app  # noqa: E402
from server.tracking import TrackerStep  # noqa: E402
from tracker.pipeline import Tracker  # noqa: E402
from tracker.sources import Frame, read_image  # noqa: E402

SEQUENCE = ROOT / "sample_images" / "sequence"
MIN_IMAGE_INTERVAL_S = 0.080  # the page's MIN_IMAGE_INTERVAL_MS (server/static/app.js)


def memory_frames(images: list[Any]) -> Iterator[Frame]:
    """Yield the sample frames from memory, forever, with wall-clock timestamps."""
    i = 0
    start = time.monotonic()
    while True:
        yield Frame(i, time.monotonic() - start, images[i % len(images)], name=f"frame {i}")
        i += 1


class Watcher(threading.Thread):
    """One browser: follows /api/stream; like the page, it fetches the camera JPEG of the
    newest frame announced whenever its previous image download has finished."""

    def __init__(self, port: int, stop: threading.Event, fetch_images: bool = True) -> None:
        super().__init__(daemon=True)
        self.port = port
        self.stop = stop
        self.fetch_images = fetch_images
        self.sse_latency_ms: list[float] = []
        self.delivery_ms: list[float] = []
        self.image_latency_ms: list[float] = []
        self.messages = 0
        self.error: str | None = None
        self._wanted: tuple[int, float] | None = None
        self._cond = threading.Condition()

    def run(self) -> None:
        if self.fetch_images:
            threading.Thread(target=self._images, daemon=True).start()
        try:
            for text in live_messages(self.port, self.stop, timeout_s=10):
                now = time.time()
                data = json.loads(text)
                self.messages += 1
                self.sse_latency_ms.append((now - data["captured_s"]) * 1000)
                self.delivery_ms.append((now - data["processed_s"]) * 1000)
                with self._cond:
                    self._wanted = (data["seq"], data["captured_s"])
                    self._cond.notify()
        except (OSError, http.client.HTTPException) as exc:
            if not self.stop.is_set():
                self.error = str(exc)
        with self._cond:
            self._cond.notify()

    def _images(self) -> None:
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=10)
        last_asked = 0.0
        try:
            while not self.stop.is_set():
                with self._cond:
                    while self._wanted is None and not self.stop.is_set():
                        self._cond.wait(0.2)
                    wanted, self._wanted = self._wanted, None
                if wanted is None:
                    continue
                wait = MIN_IMAGE_INTERVAL_S - (time.monotonic() - last_asked)
                if wait > 0:  # as the page: one picture at most every 80 ms, the newest announced
                    time.sleep(wait)
                    with self._cond:
                        wanted = self._wanted or wanted
                        self._wanted = None
                last_asked = time.monotonic()
                seq, captured_s = wanted
                conn.request("GET", f"/api/frame/camera.jpg?seq={seq}")
                r = conn.getresponse()
                r.read()
                self.image_latency_ms.append((time.time() - captured_s) * 1000)
        except (OSError, http.client.HTTPException) as exc:
            if not self.stop.is_set():
                self.error = str(exc)
        finally:
            conn.close()


def watch_in_child(port: int, watchers: int, stop_after_s: float, out: Any) -> None:
    """Run ``watchers`` browsers in this (separate) process, as real browsers are, then report."""
    stop = threading.Event()
    crowd = [Watcher(port, stop) for _ in range(watchers)]
    for w in crowd:
        w.start()
    time.sleep(stop_after_s)
    stop.set()
    out.put({"sse": [v for w in crowd for v in w.sse_latency_ms],
             "img": [v for w in crowd for v in w.image_latency_ms],
             "delivery": [v for w in crowd for v in w.delivery_ms],
             "errors": [w.error for w in crowd if w.error]})


def run_phase(images: list[Any], setup: Any, game: dict[str, Any], *, watchers: int, seconds: float,
              fps: float | None, db: Path) -> dict[str, Any]:
    """Serve the app with the real tracker on ``images``; ``watchers`` browsers in another process."""
    table = (setup.table.width_mm, setup.table.depth_mm)
    durations_ms: list[float] = []

    class Timed(TrackerStep):
        def step(self) -> Any:
            snap = super().step()
            if snap is not None:
                durations_ms.append((snap.processed_s - snap.captured_s) * 1000)
            return snap

    app = create_app({"DB_PATH": str(db), "GAME": game, "NEW_GAME": True, "FPS": fps,
                      "TRACKER_FACTORY": lambda: Timed(memory_frames(images), Tracker(setup), table)})
    overlay = app.extensions["tabletracker"]
    server = make_server("127.0.0.1", 0, app, threaded=True)
    port = server.server_port
    serving = threading.Thread(target=server.serve_forever, daemon=True)
    serving.start()
    ctx = multiprocessing.get_context("spawn")
    results = ctx.Queue()
    child = None
    if watchers:
        child = ctx.Process(target=watch_in_child, args=(port, watchers, seconds + 1.5, results), daemon=True)
        child.start()
    deadline = time.monotonic() + 20
    while overlay.broadcaster.client_count < watchers and time.monotonic() < deadline:
        time.sleep(0.01)
    if overlay.loop is None:
        raise RuntimeError("the app has no live loop")
    overlay.start()
    time.sleep(0.5)  # warm-up: calibration on the first frame, first JPEG encodes
    f0, t0, d0 = overlay.loop.frames, time.monotonic(), len(durations_ms)
    time.sleep(seconds)
    frames, elapsed = overlay.loop.frames - f0, time.monotonic() - t0
    per_frame = durations_ms[d0:]
    got = results.get(timeout=30) if child is not None else {"sse": [], "img": [], "delivery": [], "errors": []}
    overlay.stop()  # ends the live loop and every SSE stream
    if child is not None:
        child.join(10)
    time.sleep(0.2)  # let in-flight image requests finish before the server goes
    server.shutdown()
    serving.join(5)
    overlay.store.close()
    return {"fps": frames / elapsed, "frames": frames, "sse": got["sse"], "img": got["img"],
            "delivery": got["delivery"], "errors": got["errors"],
            "track_ms": statistics.median(per_frame) if per_frame else float("nan")}


def pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    s = sorted(values)
    return s[min(len(s) - 1, int(round(q * (len(s) - 1))))]


def main() -> int:
    logging.getLogger("werkzeug").setLevel(logging.ERROR)
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--watchers", type=int, default=10)
    parser.add_argument("--seconds", type=float, default=6.0)
    parser.add_argument("--fps", type=float, default=10.0,
                        help="the camera's frame rate for the latency phase (the sample sequence's is 10)")
    parser.add_argument("--switch-interval", type=float, default=None,
                        help="sys.setswitchinterval for this run, to study GIL hand-offs (default: Python's)")
    parser.add_argument("--frames", type=Path, default=SEQUENCE,
                        help="a folder of frame_*.jpg with setup.json (and game.json); default the sample sequence")
    args = parser.parse_args()
    if args.switch_interval is not None:
        sys.setswitchinterval(args.switch_interval)
    paths = sorted(args.frames.glob("frame_*.jpg"))
    if not paths:
        print(f"no frames in {args.frames}; render them with 'tabletracker render-samples'", file=sys.stderr)
        return 2
    images = []
    for p in paths:
        try:
            images.append(read_image(p))
        except ValueError:  # the sequence's deliberately corrupt frame
            continue
    setup = load_setup(args.frames / "setup.json")
    if (args.frames / "game.json").exists():
        game = game_to_dict(load_game(args.frames / "game.json"))
    else:
        table = {"width_mm": setup.table.width_mm, "depth_mm": setup.table.depth_mm}
        game = {"ruleset": "firefight", "table": table, "units": [], "models": []}
    h, w = images[0].shape[:2]
    print(f"sample sequence: {len(images)} frames of {w}x{h} in memory; table "
          f"{setup.table.width_mm:g} x {setup.table.depth_mm:g} mm")
    with tempfile.TemporaryDirectory() as tmp:
        alone = run_phase(images, setup, game, watchers=0, seconds=args.seconds, fps=None, db=Path(tmp) / "a.db")
        crowd = run_phase(images, setup, game, watchers=args.watchers, seconds=args.seconds, fps=None,
                          db=Path(tmp) / "b.db")
        paced_alone = run_phase(images, setup, game, watchers=0, seconds=args.seconds, fps=args.fps,
                                db=Path(tmp) / "c0.db")
        paced = run_phase(images, setup, game, watchers=args.watchers, seconds=args.seconds, fps=args.fps,
                          db=Path(tmp) / "c.db")
    load = os.getloadavg()[0]
    print(f"machine: {os.cpu_count()} CPU(s), load average {load:.1f} at the end (other work slows every figure)")
    print(f"tracker flat out, no watcher:  {alone['fps']:6.1f} frames/s, median {alone['track_ms']:5.1f} ms per frame "
          f"({alone['frames']} frames)")
    print(f"tracker flat out, {args.watchers} watchers:  {crowd['fps']:6.1f} frames/s, median {crowd['track_ms']:5.1f} ms "
          f"per frame ({crowd['fps'] / alone['fps']:.0%} of the throughput alone; each watcher also fetched the "
          f"newest camera JPEG whenever free)")
    print(f"camera pace {args.fps:g} fps, no watcher:  {paced_alone['fps']:6.1f} frames/s processed, "
          f"median {paced_alone['track_ms']:5.1f} ms per frame")
    print(f"camera pace {args.fps:g} fps, {args.watchers} watchers: {paced['fps']:6.1f} frames/s processed "
          f"({paced['fps'] / paced_alone['fps']:.0%} of no watcher), median {paced['track_ms']:5.1f} ms per frame")
    for name, values in (("tracked -> SSE message", paced["delivery"]), ("capture -> SSE message", paced["sse"]),
                         ("capture -> JPEG received", paced["img"])):
        print(f"  {name:26s} median {statistics.median(values) if values else float('nan'):6.1f} ms, "
              f"p95 {pct(values, 0.95):6.1f} ms, max {max(values) if values else float('nan'):6.1f} ms "
              f"({len(values)} samples)")
    kept = paced["fps"] >= 0.95 * paced_alone["fps"]
    fast = bool(paced["img"]) and pct(paced["img"], 0.95) <= 100.0
    print(f"target: watchers do not slow the tracker (>= 95% of its paced rate alone): {'met' if kept else 'NOT met'}")
    print(f"target: p95 capture -> JPEG in the browser <= 100 ms: {'met' if fast else 'NOT met'} "
          f"(median {statistics.median(paced['img']) if paced['img'] else float('nan'):.0f} ms; the tracker's own "
          f"time per frame is part of it)")
    for phase in (alone, crowd, paced_alone, paced):
        for err in phase["errors"]:
            print(f"watcher error: {err}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
