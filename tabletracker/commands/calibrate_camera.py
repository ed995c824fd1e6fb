"""``tabletracker calibrate-camera IMAGES... --out camera.json``: intrinsics from ChArUco photos.

The board defaults to the kit's (``calibration.board.KIT_BOARD``); print it from
``tabletracker markers``. Prints the RMS reprojection error (good below 0.3 px), the
intrinsics and what each photo gave.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from calibration.board import KIT_BOARD

HELP = "camera intrinsics from photos of the ChArUco board"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("images", type=Path, nargs="+", help="photos of the ChArUco board from different angles")
    parser.add_argument("--out", type=Path, required=True, help="where to write camera.json")
    parser.add_argument("--squares-x", type=int, default=KIT_BOARD.squares_x,
                        help=f"squares across the board (default {KIT_BOARD.squares_x})")
    parser.add_argument("--squares-y", type=int, default=KIT_BOARD.squares_y,
                        help=f"squares down the board (default {KIT_BOARD.squares_y})")
    parser.add_argument("--square-mm", type=float, default=KIT_BOARD.square_mm,
                        help=f"side of a square as printed, mm (default {KIT_BOARD.square_mm:g})")
    parser.add_argument("--marker-mm", type=float, default=KIT_BOARD.marker_mm,
                        help=f"side of a marker as printed, mm (default {KIT_BOARD.marker_mm:g})")
    parser.add_argument("--dictionary", default=KIT_BOARD.dictionary,
                        help=f"ArUco dictionary of the board (default {KIT_BOARD.dictionary})")
    parser.add_argument("--json", action="store_true", help="print the result as JSON")


def run(args: argparse.Namespace) -> int:
    from calibration.board import BoardSpec
    from calibration.charuco import GOOD_RMS_PX, LENS_MODELS, MIN_COVERAGE, calibrate_camera_model, image_coverage
    from calibration.store import intrinsics_to_dict, save_intrinsics

    board = BoardSpec(args.squares_x, args.squares_y, args.square_mm, args.marker_mm, args.dictionary)
    cam, rms, report, model = calibrate_camera_model(list(args.images), board)
    used = sum(1 for r in report if r.used)
    coverage = image_coverage(report, cam.image_size)
    save_intrinsics(args.out, cam, rms_px=rms, views=used)
    if args.json:
        print(json.dumps({"camera": str(args.out), "rms_px": rms, "good": rms < GOOD_RMS_PX, "lens_model": model,
                          "image_coverage": coverage,
                          "intrinsics": intrinsics_to_dict(cam),
                          "views": [{"image": r.name, "corners": r.corners_found, "used": r.used,
                                     "reason": r.reason, "rms_px": r.rms_px} for r in report]}, indent=2))
        return 0
    m = cam.matrix
    print(f"camera calibrated from {used} of {len(report)} photos ({cam.image_size[0]}x{cam.image_size[1]})")
    print(f"  RMS reprojection error: {rms:.3f} px ({'good' if rms < GOOD_RMS_PX else 'poor'}: "
          f"below {GOOD_RMS_PX} px is good)")
    print(f"  focal length: fx {m[0, 0]:.1f} px, fy {m[1, 1]:.1f} px "
          f"(horizontal field of view {cam.horizontal_fov_deg:.1f} degrees)")
    print(f"  principal point: ({m[0, 2]:.1f}, {m[1, 2]:.1f}) px")
    print(f"  distortion (k1, k2, p1, p2, k3): {', '.join(f'{v:.5f}' for v in cam.distortion)}")
    print(f"  lens model: {model}")
    print(f"  the board covered {100 * coverage:.0f} % of the image")
    for r in report:
        detail = f"{r.rms_px:.3f} px" if r.used and r.rms_px is not None else f"not used: {r.reason}"
        print(f"  {r.name}: {r.corners_found} corners, {detail}")
    print(f"  written to {args.out}")
    if coverage < MIN_COVERAGE:
        print(f"warning: the board covered only {100 * coverage:.0f} % of the image: lens distortion near the "
              "edges is extrapolated; add photos with the board near each corner and edge of the image",
              file=sys.stderr)
    if model != LENS_MODELS[1][0] and model != LENS_MODELS[0][0]:
        print(f"warning: these {used} photos determine only a simpler lens model ({model}); add photos with the "
              "board near each corner of the image and tilted 20-45 degrees for the full model", file=sys.stderr)
    if rms >= GOOD_RMS_PX:
        print(f"warning: RMS {rms:.2f} px is above {GOOD_RMS_PX} px: retake blurred photos, keep the board flat "
              "and add views tilted toward each image corner", file=sys.stderr)
    return 0
