"""``tabletracker markers``: write the printable marker kit as a true-scale PDF.

The kit holds the four 60 mm table-corner markers (ids 0-3) with where each goes,
sheets of base markers with cut lines, and the ChArUco board for
``calibrate-camera``. Every page has a 100 mm check bar: print at 100 %.
"""

from __future__ import annotations

import argparse

from calibration.kit import (
    DEFAULT_BASE_SIZE_MM, DEFAULT_DICTIONARY, DEFAULT_LAST_ID, PAPERS, KitError, KitOptions,
    build_kit, dictionary_size, format_id_ranges, parse_id_ranges,
)
from calibration.setup import FIRST_MODEL_ID

HELP = "write the printable marker kit as a PDF at true scale"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Declare the command's options."""
    parser.add_argument("--out", required=True, metavar="PDF", help="where to write the kit, e.g. kit.pdf")
    parser.add_argument("--paper", default="a4", type=str.lower, metavar="{a4,letter}",
                        help="paper size (default a4)")
    parser.add_argument("--ids", default=None, metavar="RANGES",
                        help=f"base marker ids, e.g. 4-60 or 4-20,30 (default {FIRST_MODEL_ID}-{DEFAULT_LAST_ID}, "
                        "capped at the dictionary's last id)")
    parser.add_argument("--base-size-mm", type=float, default=DEFAULT_BASE_SIZE_MM, metavar="MM",
                        help=f"base marker size across its black square (default {DEFAULT_BASE_SIZE_MM:g})")
    parser.add_argument("--dictionary", default=DEFAULT_DICTIONARY,
                        help=f"ArUco dictionary of the corner and base markers (default {DEFAULT_DICTIONARY})")


def run(args: argparse.Namespace) -> int:
    """Build the kit and write it; print what was written."""
    if args.paper not in PAPERS:
        raise KitError(f"--paper: unknown paper {args.paper!r}; use one of {', '.join(PAPERS)}")
    size = dictionary_size(args.dictionary)
    if args.ids is None:
        ids = tuple(range(FIRST_MODEL_ID, min(DEFAULT_LAST_ID + 1, size)))
    else:
        ids = parse_id_ranges(args.ids, dictionary_size=size)
    options = KitOptions(paper=args.paper, base_ids=ids, base_size_mm=args.base_size_mm,
                         dictionary=args.dictionary)
    kit = build_kit(options)
    try:
        kit.write(args.out)
    except OSError as exc:
        raise KitError(f"--out: cannot write {args.out} ({exc.strerror or exc}); "
                       "check that its folder exists and is writable") from None
    sheets = sum(1 for p in kit.pages if p.kind == "bases")
    print(f"wrote {args.out}: {len(kit.pages)} pages on {args.paper} paper")
    print("  page 1: corner markers 0-3, 60 mm (with where each goes)")
    pages = "page 2" if sheets == 1 else f"pages 2-{1 + sheets}"
    plural = "" if len(ids) == 1 else "s"
    print(f"  {pages}: {len(ids)} base marker{plural} of {args.base_size_mm:g} mm "
          f"(ids {format_id_ranges(ids)}), {args.dictionary}")
    board = options.board
    print(f"  page {len(kit.pages)}: ChArUco board {board.squares_x} x {board.squares_y} squares of "
          f"{board.square_mm:g} mm, markers {board.marker_mm:g} mm, {board.dictionary}")
    if args.dictionary == board.dictionary:
        print(f"Warning: the ChArUco board also uses {board.dictionary}: keep it off the table while "
              "tracking, or its markers will be taken for models.")
    print("Print at 100 % (no fit-to-page) and check that the bar on each page measures 100 mm.")
    return 0
