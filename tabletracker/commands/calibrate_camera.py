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
from tabletracker.i18n import LANGS, message_of, message_text, number, said


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
                                     "reason": r.reason, "rms_px": r.rms_px,
                                     **({"reason_texts": {lang: message_text(message_of(r.reason), lang)
                                                          for lang in LANGS}} if r.reason else {})}
                                    for r in report]}, indent=2))
        return 0
    m = cam.matrix
    print(said("cli.camera.calibrated", used=str(used), photos=str(len(report)),
               size=f"{cam.image_size[0]}x{cam.image_size[1]}"))
    print(said("cli.camera.rms_good" if rms < GOOD_RMS_PX else "cli.camera.rms_poor", rms=number(rms, 3),
               limit=number(GOOD_RMS_PX, 1)))
    print(said("cli.camera.focal", fx=number(m[0, 0], 1), fy=number(m[1, 1], 1), fov=number(cam.horizontal_fov_deg, 1)))
    print(said("cli.camera.principal_point", x=number(m[0, 2], 1), y=number(m[1, 2], 1)))
    print(said("cli.camera.distortion", values=", ".join(number(float(v), 5) for v in cam.distortion)))
    index = next((i for i, m in enumerate(LENS_MODELS) if m[0] == model), None)
    print(said("cli.camera.lens_model", model={"msg": f"camera.model.{index}", "text": model}))
    print(said("cli.camera.coverage", pct=f"{100 * coverage:.0f}"))
    for r in report:
        if r.used and r.rms_px is not None:
            print(said("cli.camera.photo_used", name=r.name, corners=str(r.corners_found), rms=number(r.rms_px, 3)))
        else:
            print(said("cli.camera.photo_unused", name=r.name, corners=str(r.corners_found),
                       reason=message_of(r.reason)))
    print(said("cli.camera.written", path=args.out))
    warn = "tabletracker calibrate-camera"
    if coverage < MIN_COVERAGE:
        print(said("cli.warning", prog=warn, message=said("cli.camera.low_coverage", pct=f"{100 * coverage:.0f}")),
              file=sys.stderr)
    if model != LENS_MODELS[1][0] and model != LENS_MODELS[0][0]:
        print(said("cli.warning", prog=warn, message=said("cli.camera.simpler_model", used=str(used),
                                                           model={"msg": f"camera.model.{index}", "text": model})),
              file=sys.stderr)
    if rms >= GOOD_RMS_PX:
        print(said("cli.warning", prog=warn, message=said("cli.camera.high_rms", rms=number(rms, 2),
                                                           limit=number(GOOD_RMS_PX, 1))), file=sys.stderr)
    return 0
