"""``tabletracker`` entry point: dispatch to the subcommand modules.

Each subcommand lives in ``tabletracker/commands/<name>.py`` with ``add_arguments(parser)``
and ``run(args) -> int``. Modules are imported only when their command runs, so
``tabletracker --help`` is fast and one broken command cannot break the others.
Every error the project raises on bad input is a ``ValueError`` (or ``OSError``)
subclass with a message that says what is wrong: it is printed, never a traceback.
"""

from __future__ import annotations

import argparse
import gc
import importlib
import logging
import os
import sys
from collections.abc import Sequence

from tabletracker.errors import TabletrackerError


def _in_user_language(exc: BaseException) -> str:
    """The error in the user's language (``LANG``/``LC_ALL``/``LC_MESSAGES`` fr or en) when it has a message id."""
    from tabletracker import i18n

    words = (i18n.texts(exc) or {}).get(i18n.user_language())
    # the core's own sentence follows: it says how to fix it for whoever edits the files
    return f"{words}\n  ({exc})" if words and words != str(exc) else str(exc)


# name -> (module, one-line help)
COMMANDS: dict[str, tuple[str, str]] = {
    "serve": ("tabletracker.commands.serve", "run the web overlay (the sample table when no camera is given)"),
    "markers": ("tabletracker.commands.markers", "write the printable marker kit as a PDF at true scale"),
    "calibrate-camera": ("tabletracker.commands.calibrate_camera",
                         "camera intrinsics from photos of the ChArUco board"),
    "calibrate": ("tabletracker.commands.calibrate", "table pose from one frame showing the four corner markers"),
    "locate": ("tabletracker.commands.locate", "find every model in one image, in table millimetres"),
    "track": ("tabletracker.commands.track", "follow models through a camera, video or image folder (JSON lines)"),
    "ask": ("tabletracker.commands.ask",
            "answer a geometric question about a game file (distance, sight, fire zone...)"),
    "resolve": ("tabletracker.commands.resolve", "resolve an action (shoot, melee, morale...) with odds and dice"),
    "render-samples": ("tabletracker.commands.render_samples", "re-render the bundled sample images and sequence"),
}

EXIT_BAD_INPUT = 2


def quiet_opencv(*, verbose: bool = False) -> None:
    """Keep OpenCV's own ``[ WARN]`` lines (a camera probe, a codec) off the terminal.

    The program says what went wrong in its own words; ``-v`` lets OpenCV's warnings through.
    Must run before ``cv2`` is imported: the commands import it lazily.
    """
    if "OPENCV_LOG_LEVEL" not in os.environ:
        os.environ["OPENCV_LOG_LEVEL"] = "WARNING" if verbose else "ERROR"
    if "cv2" in sys.modules:
        import cv2

        levels = cv2.utils.logging
        levels.setLogLevel(levels.LOG_LEVEL_WARNING if verbose else levels.LOG_LEVEL_ERROR)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="tabletracker",
        description="A referee's assistant for tabletop skirmish games: a camera above the table, "
        "every model located in millimetres, and the rules' questions answered.",
        epilog="Each command has --help. The user guide is in the docs/ folder of the project: docs/README.md "
        "(setup file, game file, rosters, marker kit, units, rule choices, HTTP API).",
    )
    parser.add_argument("-v", "--verbose", action="store_true", help="log what happens (to stderr)")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, (_module, help_text) in COMMANDS.items():
        sub.add_parser(name, help=help_text, add_help=False)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    if argv is not None:
        return _main(list(argv))
    # The command line's own run: the process ends right after. Frozen objects are left out of
    # the collector's last pass over everything at exit (a tenth of a second once numpy,
    # OpenCV and a 4K image are loaded); a caller that goes on (tests) passes argv.
    try:
        return _main(sys.argv[1:])
    finally:
        gc.freeze()


def _main(argv: list[str]) -> int:
    parser = build_parser()
    # Parse only the global part; the subcommand parses the rest itself.
    head: list[str] = []
    while argv and argv[0].startswith("-") and argv[0] not in ("-h", "--help"):
        head.append(argv.pop(0))
    if not argv or argv[0] in ("-h", "--help"):
        parser.print_help()
        return 0
    name, rest = argv[0], argv[1:]
    if name not in COMMANDS:
        parser.print_usage(sys.stderr)
        print(f"tabletracker: unknown command {name!r}; commands are: {', '.join(COMMANDS)}", file=sys.stderr)
        return EXIT_BAD_INPUT
    opts = parser.parse_args(head)
    quiet_opencv(verbose=opts.verbose)
    logging.basicConfig(level=logging.INFO if opts.verbose else logging.WARNING,
                        format="%(levelname)s %(name)s: %(message)s")
    module = importlib.import_module(COMMANDS[name][0])
    sub = argparse.ArgumentParser(prog=f"tabletracker {name}", description=COMMANDS[name][1])
    module.add_arguments(sub)
    args = sub.parse_args(rest)
    try:
        return int(module.run(args) or 0)
    except (TabletrackerError, OSError) as exc:  # the project's errors: what the user gave is wrong
        print(f"tabletracker {name}: error: {_in_user_language(exc)}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except ValueError as exc:
        # Not a project error: a bug, or a package still raising a plain ValueError for bad input
        # (being moved under TabletrackerError). Say it and keep the traceback in the log.
        logging.getLogger("tabletracker").error("unexpected %s in %s", type(exc).__name__, name, exc_info=exc)
        print(f"tabletracker {name}: error: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
