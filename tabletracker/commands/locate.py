"""``tabletracker locate IMAGE``: every model and bare base in one image, in table mm.

Without ``--calibration`` the table is calibrated from the four corner markers in the
same image (the setup file gives the table size, and the camera when known).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from calibration.errors import CalibrationError
from tabletracker.i18n import (
    LANGS,
    message_of,
    message_text,
    pattern_words,
    render,
    said,
    step_texts,
    user_language,
    worded,
)
from tabletracker.words import Said

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray


#: Python's thread switch interval while locating (s): see :func:`_interpreter_for_one_image`.
LOCK_SWITCH_S = 0.001


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("image", help="a photo of the table from the camera above it (JPEG, PNG...), or 'demo' "
                        "for a frame of the bundled demo sequence (with its setup)")
    parser.add_argument("--setup", help="the setup file (table size, markers, sides); required without "
                        "--calibration")
    parser.add_argument("--calibration", help="a calibration file from 'tabletracker calibrate' "
                        "(default: calibrate from the corner markers in IMAGE)")
    parser.add_argument("--camera", help="camera intrinsics from 'tabletracker calibrate-camera', used when "
                        "calibrating from IMAGE")
    parser.add_argument("--no-bases", action="store_true", help="do not look for bare bases")
    parser.add_argument("--json", action="store_true", help="print one JSON object (the default is a "
                        "readable list)")


def run(args: argparse.Namespace) -> int:
    if args.image.strip().lower() in ("demo", "sample") and not Path(args.image).exists():
        from tabletracker.samples import bundled_frame

        args.image = str(bundled_frame())
        if args.setup is None and args.calibration is None:
            args.setup = str(Path(args.image).parent / "setup.json")
    # numpy's BLAS starts a thread per core when numpy is imported (0.04-0.06 s of CPU, on the
    # start-up's path) for matrix products this command never makes large: one thread, unless
    # the user's environment says otherwise (the answers are the same)
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    with _interpreter_for_one_image():
        return _located(args)


def _located(args: argparse.Namespace) -> int:
    # the image is decoded on another core while the rest of the program is imported (the
    # decoder releases the GIL): a 4K JPEG takes about as long as those imports from bytecode
    reading = _ImageRead(args.image)
    from calibration.setup import Setup, load_setup, parse_setup
    from calibration.store import load_calibration, load_intrinsics
    from calibration.table import calibrate_table
    from tracker.locate import locate_all, warm_up
    from tracker.markers import aruco_cells

    if not args.no_bases:
        warm_up()
    try:
        setup: Setup | None = load_setup(args.setup) if args.setup else None
    except Exception:
        reading.result()      # an unreadable image is told first, as when it was read first
        raise
    image = reading.result()
    notes: list[Said] = []
    if args.calibration:
        cal = load_calibration(args.calibration)
        if setup is None:
            setup = parse_setup({"table": {"width_mm": cal.table.width_mm, "depth_mm": cal.table.depth_mm}},
                                source=args.calibration)
            notes.append(Said(render("cli.locate.default_markers", {}, "en") or "", "cli.locate.default_markers"))
        source = args.calibration
    else:
        if setup is None:
            raise worded(CalibrationError, "cli.locate_needs_setup")
        aruco_cells(setup.markers.dictionary)   # an unknown dictionary fails here, clearly
        intrinsics = load_intrinsics(args.camera) if args.camera else None
        if intrinsics is not None:
            from tabletracker.commands.calibrate import check_resolution

            check_resolution(intrinsics.image_size, image.shape, camera=args.camera, image_path=args.image)
        cal = calibrate_table(image, setup, intrinsics, source=args.image)
        source = said("cli.locate.from_corners")
    with _opencv_workers_off(not args.no_bases):
        found = locate_all(image, cal, setup, bare_bases=not args.no_bases)
    warnings = notes + list(getattr(cal, "warnings", ())) + list(found.warnings)
    doc = {"image": args.image, "image_size": [int(image.shape[1]), int(image.shape[0])],
           "calibration": source, "table_mm": [setup.table.width_mm, setup.table.depth_mm]}
    doc.update(found.to_dict())
    doc["warnings"] = warnings
    if args.json:  # the words in both languages for a program that reads the JSON (the readable list: the user's)
        doc["warning_texts"] = [{lang: warning_words(w, lang) for lang in LANGS} for w in warnings]
        json.dump(doc, sys.stdout)
        sys.stdout.write("\n")
        return 0
    rejected = [(r.marker_id, (step_texts(r.words()) or {}).get(user_language()) or r.reason) for r in found.rejected]
    _print_readable(doc, rejected)
    return 0


def _print_readable(doc: dict, rejected: list[tuple[int, str]]) -> None:
    """Print what was found, in the user's language (a rejected marker's reason too, from its message id)."""
    out = sys.stdout
    out.write(said("cli.locate.found", image=doc["image"], models=str(len(doc["models"])),
                   bases=str(len(doc["bases"])), calibration=doc["calibration"]) + "\n")
    for m in doc["models"]:
        out.write(said("cli.locate.model", id=f"{m['marker_id']:>3}", x=f"{m['x_mm']:8.1f}", y=f"{m['y_mm']:8.1f}",
                       facing=f"{m['facing_deg']:5.1f}") + "\n")
    for b in doc["bases"]:
        out.write(said("cli.locate.base", side=f"{b['side']:>6}", diameter=f"{b['diameter_mm']:g}",
                       x=f"{b['x_mm']:8.1f}", y=f"{b['y_mm']:8.1f}") + "\n")
    for marker_id, reason in rejected:
        out.write(said("cli.locate.rejected", id=str(marker_id), reason=reason) + "\n")
    lang = user_language()
    for w in doc["warnings"]:
        out.write(said("cli.locate.warning", warning=warning_words(w, lang)) + "\n")


# the tracker's warnings (tracker/locate.py, in English) and their message ids: said in the user's language
_TRACKER_WARNINGS = (
    (r"(?P<size>\S+) mm base markers are only (?P<px>\S+) px across in this image, and a marker needs about "
     r"(?P<required>\S+) px to be read: with this camera use markers of at least (?P<smallest>\S+) mm, or a table of "
     r"at most (?P<width>\S+) x (?P<depth>\S+) mm \(camera closer\), or a higher-resolution camera\. Bare bases are "
     r"still found by their rim colour\.", "cli.locate.markers_unreadable"),
    (r"grey image: bare bases need colour to tell the sides, none looked for", "cli.locate.grey_image"),
)


def warning_words(warning: Any, lang: str) -> str:
    """A warning of the calibration (with its message id) or of the tracker (known sentences) in ``lang``."""
    if getattr(warning, "msg_id", None):
        return message_text(message_of(warning), lang)
    return pattern_words(str(warning), _TRACKER_WARNINGS, lang, numbers=True)


@contextmanager
def _interpreter_for_one_image() -> Iterator[None]:
    """Python's thread switch interval at :data:`LOCK_SWITCH_S` while one image is located.

    The image is read, the warm-up and the bare-base search run on threads beside the main
    one, and each comes back from OpenCV or numpy (which release the interpreter's lock) many
    times: a thread waiting for the lock gets it from the other within a millisecond instead
    of Python's 5 ms (the marker scan's waits halved). The answers are the same.
    """
    interval = sys.getswitchinterval()
    sys.setswitchinterval(LOCK_SWITCH_S)
    try:
        yield
    finally:
        sys.setswitchinterval(interval)


@contextmanager
def _opencv_workers_off(off: bool) -> Iterator[None]:
    """OpenCV's own worker threads off while the marker scan and the bare-base search run.

    They already run side by side, one per core: OpenCV's workers would only contend with
    the other search (about a tenth more CPU time for the same result). The calibration
    before them, alone on the machine, and a marker scan alone (``--no-bases``) keep them.
    """
    import cv2

    threads = cv2.getNumThreads()
    if off:
        cv2.setNumThreads(1)
    try:
        yield
    finally:
        cv2.setNumThreads(threads)


class _ImageRead:
    """:func:`calibration.images.load_image` on a thread of its own; :meth:`result` waits for it."""

    def __init__(self, path: str) -> None:
        import threading

        from calibration.images import load_image

        self._out: NDArray[np.uint8] | None = None
        self._error: BaseException | None = None

        def read() -> None:
            try:
                self._out = load_image(path)
            except BaseException as exc:       # handed to the caller's thread by result()
                self._error = exc

        self._thread = threading.Thread(target=read, daemon=True, name="read-image")
        self._thread.start()

    def result(self) -> NDArray[np.uint8]:
        self._thread.join()
        if self._error is not None:
            raise self._error
        assert self._out is not None
        return self._out
