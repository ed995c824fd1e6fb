"""``tabletracker track SOURCE``: follow the models, print events as JSON lines.

SOURCE is a camera index (``0``), a ``/dev/video`` path, a video file, a folder of images,
one image, or ``sample`` (the bundled rendered sequence). Each line of output is one JSON
event: ``appeared``, ``hidden``, ``reappeared``, ``moved`` (from where the model was
lifted to where it was put down, with the distance), ``base_appeared`` / ``base_moved``...,
``frame_error`` (an undecodable frame, skipped), ``camera_lost`` / ``camera_back``,
``calibrated``, ``calibration_failed``, ``calibration_warning``, ``recalibrated``; without a
camera file, ``lens_refined`` (the lens measured again over the frames so far, with its
uncertainty) and ``lens_settled`` (once, when it no longer changes); ``source_ended`` at the
end of a video.

With ``--game G`` the models of game file G follow their markers (:func:`tracker.apply.track_changes`,
the same step the server takes): each change is one more line, ``game_move`` (one model lifted and
put down) or ``game_placed`` (models first seen away from their saved place); at the end a
``game`` line holds the whole game, also written to ``--game-out`` when given.
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
from pathlib import Path
from typing import Any

from tabletracker.errors import UsageError
from tabletracker.i18n import said, worded

log = logging.getLogger(__name__)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("source", help="camera index or /dev/video path, network camera address (http://..., "
                        "rtsp://...), video file, image folder, image, or 'demo' (the bundled demo sequence)")
    parser.add_argument("--setup",
                        help="the setup file (default for 'demo': the demo's setup.json; see docs/setup-file.md)")
    parser.add_argument("--calibration", help="a calibration file from 'tabletracker calibrate' (default: "
                        "calibrate from the corner markers of the first frame that shows all four)")
    parser.add_argument("--camera", help="camera intrinsics from 'tabletracker calibrate-camera'")
    parser.add_argument("--max-frames", type=int, default=None, help="stop after this many frames")
    parser.add_argument("--no-bases", action="store_true", help="do not look for bare bases")
    parser.add_argument("--state", action="store_true", help="also print the full state after the last frame")
    parser.add_argument("--game", help="a game file (or bundled game name) whose models follow their markers "
                        "(moves printed as "
                        "'game_move' lines, the game after the last frame as a 'game' line)")
    parser.add_argument("--game-out", help="with --game: write the game after the last frame to this file")


def run(args: argparse.Namespace) -> int:
    from calibration.errors import CalibrationError, SetupFileError
    from calibration.setup import load_setup, parse_setup
    from calibration.store import load_calibration, load_intrinsics
    from tracker.pipeline import Tracker, default_calibrate
    from tracker.sources import open_frames, parse_source

    if args.max_frames is not None and args.max_frames < 1:
        raise worded(UsageError, "cli.max_frames", value=str(args.max_frames))
    if args.game_out and not args.game:
        raise worded(UsageError, "cli.game_out_needs_game")
    plan = None
    if args.game:
        from rules.plan import load_game
        from tabletracker.samples import game_file
        from tracker.apply import event_from_dict, track_changes

        plan = load_game(game_file(args.game))  # a file, or a bundled game by name
    setup_path = args.setup
    if args.source.strip().lower() in ("sample", "demo") and not Path(args.source).exists():
        from tabletracker.samples import demo_sequence

        args.source = str(demo_sequence())  # the clean demo frames, installed or from a checkout
        if setup_path is None:
            setup_path = str(Path(args.source) / "setup.json")
    cal = load_calibration(args.calibration) if args.calibration else None
    if setup_path:
        setup = load_setup(setup_path)
    elif cal is not None:
        setup = parse_setup({"table": {"width_mm": cal.table.width_mm, "depth_mm": cal.table.depth_mm}},
                            source=args.calibration)
    else:
        raise worded(SetupFileError, "cli.track_needs_setup")
    intrinsics = load_intrinsics(args.camera) if args.camera else None
    frames = open_frames(args.source)
    tracker: Any = Tracker(setup, cal, calibrate=default_calibrate(intrinsics), find_bare_bases=not args.no_bases)
    if cal is None and intrinsics is None and setup.camera is None:
        # no camera file: the lens is measured from the markers and refined as frames come
        from calibration.refine import LensRefiner, LensRefiningTracker

        live = parse_source(args.source).kind in ("camera", "url")
        tracker = LensRefiningTracker(tracker, LensRefiner(setup, background=live))
    out = sys.stdout
    count = 0
    why: Any = None  # the last refused calibration's message, for a single image's reason
    try:
        for frame in frames:
            events = tracker.process(frame)
            for event in events:
                out.write(json.dumps(_worded(event)) + "\n")
                if event.get("type") == "calibration_failed" and "msg" in event:
                    why = {"msg": event["msg"], "params": event.get("params") or {}, "text": event.get("message")}
            if plan is not None:
                for change in track_changes(plan, [event_from_dict(e) for e in events]):
                    out.write(json.dumps({"type": f"game_{change.kind}", **change.payload}) + "\n")
                    plan = change.plan
            out.flush()
            if frame.image is not None:
                count += 1
            if args.max_frames is not None and frame.index + 1 >= args.max_frames:
                break
    finally:
        close = getattr(frames, "close", None)
        if close is not None:
            close()
        close = getattr(tracker, "close", None)  # a lens refiner's background work
        if close is not None:
            close()
    if args.state:
        out.write(json.dumps({"type": "state", **tracker.state.to_dict()}) + "\n")
    if plan is not None:
        from rules.plan import game_to_dict

        doc = game_to_dict(plan)
        out.write(json.dumps({"type": "game", "game": doc}) + "\n")
        if args.game_out:
            Path(args.game_out).write_text(json.dumps(doc, indent=2) + "\n", encoding="utf-8")
    if parse_source(args.source).kind == "image" and tracker.calibration is None:
        # one image and nothing to track it with: exit non-zero with the reason
        raise worded(CalibrationError, "cli.image_not_calibrated", source=args.source,
                     reasons=why or "; ".join(tracker.state.warnings or ("not calibrated",)))
    if count == 0:
        log.warning("%s", said("cli.no_frame", source=args.source))
    return 0


def _worded(event: dict[str, Any]) -> dict[str, Any]:
    """The event with its message in French and English (``texts``) when it carries a message id."""
    if "msg" not in event:
        return event
    from tabletracker.i18n import localize

    worded: dict[str, Any] = localize(event)
    return worded
