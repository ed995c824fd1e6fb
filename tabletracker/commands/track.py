"""``tabletracker track SOURCE``: follow the models, print events as JSON lines.

SOURCE is a camera index (``0``), a ``/dev/video`` path, a video file, a folder of images,
one image, or ``sample`` (the bundled rendered sequence). Each line of output is one JSON
event: ``appeared``, ``hidden``, ``reappeared``, ``moved`` (from where the model was
lifted to where it was put down, with the distance), ``base_appeared`` / ``base_moved``...,
``frame_error`` (an undecodable frame, skipped), ``camera_lost`` / ``camera_back``,
``calibrated``, ``calibration_failed``, ``calibration_warning``, ``recalibrated``.
"""

from __future__ import annotations

import argparse
import json
import logging
import sys

from tabletracker.errors import UsageError

log = logging.getLogger(__name__)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("source", help="camera index or /dev/video path, video file, image folder, image, "
                        "or 'sample'")
    parser.add_argument("--setup", help="the setup file (default for 'sample': the sequence's setup.json)")
    parser.add_argument("--calibration", help="a calibration file from 'tabletracker calibrate' (default: "
                        "calibrate from the corner markers of the first frame that shows all four)")
    parser.add_argument("--camera", help="camera intrinsics from 'tabletracker calibrate-camera'")
    parser.add_argument("--max-frames", type=int, default=None, help="stop after this many frames")
    parser.add_argument("--no-bases", action="store_true", help="do not look for bare bases")
    parser.add_argument("--state", action="store_true", help="also print the full state after the last frame")


def run(args: argparse.Namespace) -> int:
    from calibration.errors import CalibrationError, SetupFileError
    from calibration.setup import load_setup, parse_setup
    from calibration.store import load_calibration, load_intrinsics
    from tracker.pipeline import Tracker, default_calibrate
    from tracker.sources import SAMPLE_SEQUENCE, open_frames, parse_source

    if args.max_frames is not None and args.max_frames < 1:
        raise UsageError(f"--max-frames must be at least 1, got {args.max_frames}")
    setup_path = args.setup
    if setup_path is None and args.source.strip().lower() == "sample":
        setup_path = str(SAMPLE_SEQUENCE / "setup.json")
    cal = load_calibration(args.calibration) if args.calibration else None
    if setup_path:
        setup = load_setup(setup_path)
    elif cal is not None:
        setup = parse_setup({"table": {"width_mm": cal.table.width_mm, "depth_mm": cal.table.depth_mm}},
                            source=args.calibration)
    else:
        raise SetupFileError("pass --setup setup.json (the table size and markers), or --calibration")
    intrinsics = load_intrinsics(args.camera) if args.camera else None
    frames = open_frames(args.source)
    tracker = Tracker(setup, cal, calibrate=default_calibrate(intrinsics), find_bare_bases=not args.no_bases)
    out = sys.stdout
    count = 0
    try:
        for frame in frames:
            for event in tracker.process(frame):
                out.write(json.dumps(event) + "\n")
            out.flush()
            if frame.image is not None:
                count += 1
            if args.max_frames is not None and frame.index + 1 >= args.max_frames:
                break
    finally:
        close = getattr(frames, "close", None)
        if close is not None:
            close()
    if args.state:
        out.write(json.dumps({"type": "state", **tracker.state.to_dict()}) + "\n")
    if parse_source(args.source).kind == "image" and tracker.calibration is None:
        # one image and nothing to track it with: exit non-zero with the reason
        raise CalibrationError(f"{args.source}: " + "; ".join(tracker.state.warnings or ("not calibrated",)))
    if count == 0:
        log.warning("no frame could be read from %s", args.source)
    return 0
