"""``tabletracker calibrate IMAGE --setup setup.json [--camera camera.json] --out calibration.json``.

Finds the four corner markers in one frame, solves the table's pose from their 16 corners
and writes calibration.json. Without a camera file the lens (focal length, distortion) is
estimated from the markers on the table and the table's edges (``--save-camera`` keeps it
as a camera file). Prints the corner reprojection error in pixels, the lens with its
uncertainty, the expected position error at the centre and the edges of the table, and
what the set-up can do: the smallest marker and base read everywhere, the largest table
this camera covers with 12 mm markers.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from tabletracker.errors import UsageError
from tabletracker.i18n import LANGS, localize, message_of, message_text, number, said, step_texts, user_language, worded


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("image", type=Path, help="a camera frame showing the whole table and its four corner markers")
    parser.add_argument("--setup", type=Path, required=True, help="setup file (table size, marker sizes)")
    parser.add_argument("--camera", type=Path, help="camera.json from 'tabletracker calibrate-camera' "
                        "(without it the focal length is estimated from this image)")
    parser.add_argument("--out", type=Path, required=True, help="where to write calibration.json")
    parser.add_argument("--save-camera", type=Path, metavar="CAMERA.json",
                        help="also write the lens (estimated from the markers when no --camera is given) as a camera "
                             "file for 'track --camera' and 'calibrate --camera'")
    parser.add_argument("--json", action="store_true", help="print the result as JSON")


def check_resolution(camera_size: tuple[int, int], image_shape: tuple[int, ...], *, camera: Any,
                     image_path: Any) -> None:
    """Refuse a camera file made at another resolution than the image, naming both.

    >>> check_resolution((1920, 1080), (1080, 1920, 3), camera="cam.json", image_path="f.jpg")
    >>> check_resolution((1280, 720), (1080, 1920, 3), camera="cam.json", image_path="f.jpg")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    tabletracker.errors.UsageError: cam.json was made at 1280x720 but f.jpg is 1920x1080: a camera calibration ... \
calibrate the camera again at 1920x1080 (tabletracker calibrate-camera) or set the camera to 1280x720
    """
    width, height = int(image_shape[1]), int(image_shape[0])
    if (int(camera_size[0]), int(camera_size[1])) == (width, height):
        return
    made = f"{camera_size[0]}x{camera_size[1]}"
    raise worded(UsageError, "cli.camera_resolution", camera=camera, made=made, image=image_path,
                 size=f"{width}x{height}")


def run(args: argparse.Namespace) -> int:
    from calibration.setup import load_setup
    from calibration.store import calibration_to_dict, load_image, load_intrinsics, save_calibration
    from calibration.table import calibrate_table

    setup = load_setup(args.setup)
    intrinsics = load_intrinsics(args.camera) if args.camera is not None else None
    image = load_image(args.image)
    from calibration.capability import setup_report
    from calibration.store import save_intrinsics

    if intrinsics is not None:
        check_resolution(intrinsics.image_size, image.shape, camera=args.camera, image_path=args.image)
    cal = calibrate_table(image, setup, intrinsics, source=str(args.image))
    error = cal.expected_error_mm()
    base = setup.markers.base_size_mm
    readable = cal.marker_readability(base, height_mm=setup.markers.base_height_mm)
    report = setup_report(cal, setup)
    save_calibration(args.out, cal)
    if args.save_camera is not None:
        save_intrinsics(args.save_camera, cal.intrinsics,
                        rms_px=cal.lens.rms_px if cal.lens is not None else cal.reprojection_rms_px, views=1)
    from tracker.rimcheck import rim_colour_warnings

    rims = rim_colour_warnings(image, cal, setup)           # bare bases: rims that stand apart
    warnings = [message_of(w) for w in (*cal.warnings, *rims)]
    if not readable.ok:
        w, d = readable.largest_table_mm(setup.table)
        warnings.append({"msg": "cli.calibrate.markers_too_small", "params": {
            "base": f"{base:g}", "px": round(readable.min_side_px, 1), "x": f"{readable.at_mm[0]:.0f}",
            "y": f"{readable.at_mm[1]:.0f}", "required": f"{readable.required_px:g}",
            "smallest": round(readable.smallest_marker_mm, 1), "width": f"{w:.0f}", "depth": f"{d:.0f}"}})
    if args.json:
        out: dict[str, Any] = {
            "calibration": str(args.out),
            "reprojection_rms_px": cal.reprojection_rms_px,
            "expected_error_mm": {"max": error.max_mm, "rms": error.rms_mm, "corner_noise_px": error.sigma_px},
            "focal_px": cal.intrinsics.focal_px,
            "focal_estimated": cal.intrinsics.estimated,
            "camera_height_mm": cal.camera_height_mm,
            "base_marker_min_px": readable.min_side_px,
            "base_markers_readable": readable.ok,
            "lens": _lens_json(cal),
            "setup_report": report.to_dict(),
            "camera_file": str(args.save_camera) if args.save_camera is not None else None,
            "warnings": [message_text(w, "en") for w in warnings],
            "warning_texts": [{lang: message_text(w, lang) for lang in LANGS} for w in warnings],
            "rim_colours": localize(rims),      # the rim warnings with their words in French and English
            "saved": calibration_to_dict(cal),
        }
        print(json.dumps(out, indent=2))
    else:
        lang = user_language()
        _print_text(args, cal, error, readable, [message_text(w, lang) for w in warnings])
        for line in report_lines(report):
            print(f"  {line}")
        if args.save_camera is not None:
            print(said("cli.calibrate.lens_written", path=args.save_camera))
    return 0


def report_lines(report: Any) -> list[str]:
    """The set-up report (``calibration.capability.SetupReport``) as lines in the user's language."""
    from calibration.capability import REFERENCE_MARKER_MM

    bases = (said("cli.calibrate.report_bases", base=number(report.smallest_base_mm, 1, trim=True))
             if report.smallest_base_mm is not None else said("cli.calibrate.report_no_base"))
    w, d = report.largest_table_mm
    return [
        said("cli.calibrate.report_smallest", smallest=number(report.smallest_marker_mm, 1), bases=bases,
             marker=number(report.marker_mm, 1, trim=True), px=number(report.smallest_marker_px, 1),
             required=number(report.required_px, 1, trim=True)),
        said("cli.calibrate.report_error", centre=number(report.error_centre_mm, 2),
             edge=number(report.error_edge_mm, 2)),
        said("cli.calibrate.report_largest", marker=number(REFERENCE_MARKER_MM, 1, trim=True),
             width=f"{w:.0f}", depth=f"{d:.0f}"),
    ]


def _lens_json(cal: Any) -> dict[str, Any] | None:
    lens = cal.lens
    if lens is None:
        return None
    k = cal.intrinsics.distortion
    return {"texts": step_texts(lens.words()),
            "focal_px": cal.intrinsics.focal_px, "focal_sd_px": lens.focal_sd_px, "k1": float(k[0]),
            "k1_sd": lens.k1_sd, "k2": float(k[1]), "k2_sd": lens.k2_sd,
            "principal_point_px": [float(cal.intrinsics.matrix[0, 2]), float(cal.intrinsics.matrix[1, 2])],
            "model": list(lens.model), "base_markers": lens.markers_used, "edge_points": lens.edge_points,
            "rms_px": lens.rms_px}


def _print_text(args: argparse.Namespace, cal: Any, error: Any, readable: Any, warnings: list[str]) -> None:
    cam = cal.intrinsics
    w, h = cam.image_size
    print(said("cli.calibrate.table", width=number(cal.table.width_mm, 2, trim=True),
               depth=number(cal.table.depth_mm, 2, trim=True),
               image=args.image, size=f"{w}x{h}"))
    print(said("cli.calibrate.reprojection", rms=number(cal.reprojection_rms_px, 3)))
    print(said("cli.calibrate.expected_error", max=number(error.max_mm, 2), rms=number(error.rms_mm, 2),
               noise=number(error.sigma_px, 2)))
    if cal.lens is not None:
        print(said("cli.calibrate.lens", lens=cal.lens.words()))
    elif not cam.has_distortion:
        print(said("cli.calibrate.no_distortion"))
    source = ("cli.calibrate.focal_from_image" if cam.estimated and cal.lens is None
              else "cli.calibrate.focal_from_markers" if cal.lens is not None else "cli.calibrate.focal_from_camera")
    print(said("cli.calibrate.focal", focal=number(cam.focal_px, 1), source={"msg": source},
               height=f"{cal.camera_height_mm:.0f}"))
    print(said("cli.calibrate.smallest_readable" if readable.ok else "cli.calibrate.smallest_too_small",
               px=number(readable.min_side_px, 1)))
    print(said("cli.calibrate.written", path=args.out))
    for text in warnings:
        print(said("cli.warning", prog="tabletracker calibrate", message=text), file=sys.stderr)
