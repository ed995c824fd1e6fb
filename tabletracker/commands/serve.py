"""``tabletracker serve``: the web overlay (the bundled sample table when no source is given).

Listens on 127.0.0.1 by default. ``--lan`` lets phones at the table watch: it listens on
every interface and prints an access-token link that every device must open.
"""

from __future__ import annotations

import argparse
import contextlib
import ipaddress
import logging
import signal
import socket
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from tabletracker.errors import UsageError
from tabletracker.i18n import said, worded

log = logging.getLogger(__name__)

IMAGES_FPS = 5.0  # image folders and the sample sequence: slow enough to follow each move
VIDEO_FALLBACK_FPS = 25.0  # a video that does not say its frame rate
TABLE_TOLERANCE_MM = 1.0  # a game table this close to the setup's is the same table


def add_arguments(parser: argparse.ArgumentParser) -> None:
    src = parser.add_mutually_exclusive_group()
    src.add_argument("--camera", metavar="INDEX|DEVICE|URL",
                     help="a webcam: its index (0) or device path (/dev/video0), or a network camera's address "
                          "(a phone's MJPEG stream http://..., an IP camera's rtsp://...)")
    src.add_argument("--video", metavar="FILE", help="a video file")
    src.add_argument("--images", metavar="DIR", help="a folder of images, played in name order")
    src.add_argument("--sample", nargs="?", const="demo", default=None, metavar="GAME",
                     help="the bundled demo sequence, looping (the default when no source is given); "
                          "with a bundled game's name (at-43, feu-a-volonte, firefight, high-fire, star-wars) "
                          "that game's plan, no camera")
    src.add_argument("--no-source", action="store_true", help="no camera: the plan only (set up or review a game)")
    parser.add_argument("--game", metavar="GAME.json", help="the game file to play, or a bundled game's name "
                        "(default: the demo's, or an empty game; see docs/game-file.md)")
    parser.add_argument("--high-fire-tables", metavar="FILE", help="High Fire: your tables file (UNITABLE, weapons, "
                        "modifiers; default: the file the game names, see docs/rule-choices.md#high-fire-5)")
    parser.add_argument("--setup", metavar="SETUP.json", help="the setup file (table size, markers, camera)")
    parser.add_argument("--port", type=int, default=8000, help="TCP port (default 8000)")
    parser.add_argument("--host", default=None, help="address to listen on (default 127.0.0.1; 0.0.0.0 with --lan)")
    parser.add_argument("--lan", action="store_true",
                        help="let other devices on the local network watch, with an access token")
    parser.add_argument("--db", metavar="PATH", help="the game database (default: var/tabletracker.db in a "
                        "checkout, else tabletracker.db in your data folder)")
    parser.add_argument("--new-game", action="store_true", help="start a new game even if the database holds this one")
    parser.add_argument("--fps", type=float, default=None,
                        help="pace of video and image sources (default: a video's own rate, 5 for images)")
    parser.add_argument("--lang", choices=("fr", "en"), default="fr", help="the page's default language (fr)")


def source_of(args: argparse.Namespace) -> dict[str, Any] | None:
    """Return the SOURCE config for the chosen options (the sample when none)."""
    if args.no_source or (args.sample is not None and args.sample != "demo"):
        return None
    if args.camera is not None:
        value: Any = int(args.camera) if args.camera.isdigit() else args.camera
        return {"kind": "camera", "value": value}
    if args.video is not None:
        return {"kind": "video", "value": args.video}
    if args.images is not None:
        return {"kind": "images", "value": args.images}
    return {"kind": "sample"}


def default_fps(source: dict[str, Any] | None) -> float | None:
    """Return the pace of a source: a camera paces itself, a video plays at its own rate, images at 5/s."""
    if source is None or source["kind"] == "camera":
        return None
    if source["kind"] == "video":
        import cv2

        if not Path(str(source["value"])).is_file():
            return VIDEO_FALLBACK_FPS  # the app refuses the missing file with a clear message

        capture = cv2.VideoCapture(str(source["value"]))
        try:
            rate = float(capture.get(cv2.CAP_PROP_FPS) or 0.0)
        finally:
            capture.release()
        return rate if 0 < rate <= 240 else VIDEO_FALLBACK_FPS
    return IMAGES_FPS


def _is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def lan_address() -> str:
    """Return this computer's address on the local network (no packet is sent)."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        try:
            s.connect(("10.255.255.255", 1))
            return str(s.getsockname()[0])
        except OSError:
            return "127.0.0.1"


def demo_config(args: argparse.Namespace, source: dict[str, Any] | None) -> dict[str, Any]:
    """Return the config that points ``serve`` at the bundled demo or a bundled game by name.

    The demo sequence is found by :func:`tabletracker.samples.demo_sequence` (the
    installed package's copy, or a clean copy made in the data folder from a checkout),
    so it plays without its deliberately broken test frames and outside a checkout.
    """
    from tabletracker.samples import demo_sequence, game_file

    out: dict[str, Any] = {}
    if args.game is not None:
        out["GAME_PATH"] = str(game_file(args.game))
    if args.sample is not None and args.sample != "demo":
        out["GAME_PATH"] = str(game_file(args.sample))
    if source is not None and source["kind"] == "sample":
        demo = demo_sequence()
        out["SOURCE"] = {"kind": "images", "value": str(demo)}
        out["LOOP_SOURCE"] = True
        if args.setup is None:
            out["SETUP_PATH"] = str(demo / "setup.json")
        if args.game is None:
            out["GAME_PATH"] = str(demo / "game.json")
    return out


def default_db() -> Path:
    """Return the game database's default path: ``var/`` in a checkout, else the user's data folder."""
    from tabletracker.samples import data_dir, is_checkout

    if is_checkout():
        from server.app import default_db_path

        return default_db_path()
    return data_dir() / "tabletracker.db"


def warn_table_mismatch(config: dict[str, Any]) -> str | None:
    """Warn (stderr) when the game's table is not the setup's table; return the warning."""
    if not config.get("GAME_PATH") or not config.get("SETUP_PATH"):
        return None
    from calibration.setup import load_setup
    from rules.plan import load_game

    game, setup = load_game(config["GAME_PATH"]).table, load_setup(config["SETUP_PATH"]).table
    if abs(game.width_mm - setup.width_mm) <= TABLE_TOLERANCE_MM and \
            abs(game.depth_mm - setup.depth_mm) <= TABLE_TOLERANCE_MM:
        return None
    text = said("cli.table_mismatch", game_width=game.width_mm, game_depth=game.depth_mm,
                setup_width=setup.width_mm, setup_depth=setup.depth_mm)
    print(said("cli.warning", prog="tabletracker serve", message=text), file=sys.stderr, flush=True)
    return text


@contextlib.contextmanager
def removed_on_failure(db: Path) -> Iterator[None]:
    """Remove the game database (and the folder made for it) when ``serve`` fails to start.

    A database that existed before is never touched.
    """
    existed, folder_existed = db.exists(), db.parent.exists()
    try:
        yield
    except BaseException:
        if not existed:
            for suffix in ("", "-wal", "-shm", "-journal"):
                Path(str(db) + suffix).unlink(missing_ok=True)
            if not folder_existed:
                with contextlib.suppress(OSError):
                    db.parent.rmdir()
        raise


def run(args: argparse.Namespace) -> int:
    from server import create_app
    from server.httpd import make_server
    from server.security import new_token

    if not 0 < args.port < 65536:
        raise worded(UsageError, "cli.port_range", value=str(args.port))
    if args.fps is not None and not 0 < args.fps <= 240:
        raise worded(UsageError, "cli.fps_range", value=args.fps)
    host = args.host or ("0.0.0.0" if args.lan else "127.0.0.1")
    if not args.lan and not _is_loopback(host):
        raise worded(UsageError, "cli.host_needs_lan", host=host)
    source = source_of(args)
    token = new_token() if args.lan else None
    fps = args.fps if args.fps is not None else default_fps(source)
    config = {
        "SOURCE": source, "GAME_PATH": args.game, "HIGH_FIRE_TABLES": args.high_fire_tables, "SETUP_PATH": args.setup,
        "DB_PATH": args.db,
        "NEW_GAME": args.new_game, "FPS": fps, "LOOP_SOURCE": bool(source and source["kind"] == "sample"),
        "ACCESS_TOKEN": token, "LAN": args.lan, "DEFAULT_LANG": args.lang, "START_LIVE": False,
    }
    config.update(demo_config(args, source))
    if config["DB_PATH"] is None:
        config["DB_PATH"] = str(default_db())
    warn_table_mismatch(config)
    if logging.getLogger().getEffectiveLevel() > logging.INFO:
        logging.getLogger("werkzeug").setLevel(logging.WARNING)  # one line per request only with -v
    with removed_on_failure(Path(config["DB_PATH"])):
        app = create_app(config)
        overlay = app.extensions["tabletracker"]
        try:
            server = make_server(host, args.port, app)  # connection cap and idle timeout (server.httpd)
        except OSError as exc:
            overlay.store.close()
            raise worded(UsageError, "cli.cannot_listen", address=f"{host}:{args.port}",
                         reason=exc.strerror or exc) from None
    port = server.server_port
    shown_host = lan_address() if host in ("0.0.0.0", "::") else host
    url = f"http://{shown_host}:{port}/"
    if token:
        app.config["ACCESS_LINK"] = f"{url}?token={token}"
    print(said(f"cli.serve.game_{app.config['GAME_OPENED']}", path=overlay.store.path), flush=True)
    if token:
        print(said("cli.serve.open", url=f"{url}?token={token}"), flush=True)
        print(said("cli.serve.token", token=token), flush=True)
    else:
        print(said("cli.serve.open", url=url), flush=True)
    print(said("cli.serve.stop"), flush=True)

    def _stop(*_: Any) -> None:
        threading.Thread(target=server.shutdown, daemon=True).start()

    signal.signal(signal.SIGTERM, _stop)
    overlay.start()
    try:
        server.serve_forever()
    finally:
        overlay.stop()
        server.server_close()
        overlay.store.close()
    return 0
