"""``tabletracker markers``: write the printable marker kit as a true-scale PDF.

The kit holds the four 60 mm table-corner markers (ids 0-3) with where each goes,
sheets of base markers with cut lines, and the ChArUco board for
``calibrate-camera``. Every page has a 100 mm check bar: print at 100 %.
With ``--setup`` the dictionary and the corner, base and per-marker sizes come
from the setup file, so the print matches what the tracker expects. The sheets'
captions are in the user's language (``LANG``), as the command's lines are.
"""

from __future__ import annotations

import argparse

from calibration.kit import (
    DEFAULT_BASE_SIZE_MM,
    DEFAULT_DICTIONARY,
    DEFAULT_LAST_ID,
    PAPERS,
    Kit,
    KitError,
    KitOptions,
    build_kit,
    dictionary_size,
    format_id_ranges,
    parse_id_ranges,
)
from calibration.setup import FIRST_MODEL_ID, MarkerSettings, load_setup
from tabletracker.i18n import message_text, said, user_language, worded
from tabletracker.words import Said


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Declare the command's options."""
    parser.add_argument("--out", required=True, metavar="PDF", help="where to write the kit, e.g. kit.pdf")
    parser.add_argument("--paper", default="a4", type=str.lower, metavar="{a4,letter}",
                        help="paper size (default a4)")
    parser.add_argument("--ids", default=None, metavar="RANGES",
                        help=f"base marker ids, e.g. 4-60 or 4-20,30 (default {FIRST_MODEL_ID}-{DEFAULT_LAST_ID}, "
                        "capped at the dictionary's last id)")
    parser.add_argument("--base-size-mm", type=float, default=None, metavar="MM",
                        help=f"base marker size across its black square (default {DEFAULT_BASE_SIZE_MM:g}, "
                        "or the setup file's)")
    parser.add_argument("--dictionary", default=None,
                        help=f"ArUco dictionary of the corner and base markers (default {DEFAULT_DICTIONARY}, "
                        "or the setup file's)")
    parser.add_argument("--setup", default=None, metavar="JSON",
                        help="take the dictionary and the corner, base and per-marker sizes from this setup file")


def run(args: argparse.Namespace) -> int:
    """Build the kit and write it; print what was written."""
    options = kit_options(args)
    ids = options.base_ids
    lang = user_language()
    kit = build_kit(options, lambda caption: sheet_words(caption, lang))
    try:
        kit.write(args.out)
    except OSError as exc:
        raise worded(KitError, "cli.cannot_write_kit", path=args.out, reason=exc.strerror or exc) from None
    print(said("cli.kit.wrote", path=args.out, pages=str(len(kit.pages)), paper=options.paper))
    print(said("cli.kit.corners", pages=_pages(kit, "corners"), size_mm=f"{options.corner_size_mm:g}"))
    sizes = sorted({options.size_for(i) for i in ids})
    print(said("cli.kit.bases" if len(ids) > 1 else "cli.kit.base", pages=_pages(kit, "bases"), count=str(len(ids)),
               sizes_mm=" / ".join(f"{v:g}" for v in sizes), ids=format_id_ranges(ids), dictionary=options.dictionary))
    board = options.board
    print(said("cli.kit.board", page=str(len(kit.pages)), x=str(board.squares_x), y=str(board.squares_y),
               square_mm=f"{board.square_mm:g}", marker_mm=f"{board.marker_mm:g}", dictionary=board.dictionary))
    if options.dictionary == board.dictionary:
        print(said("cli.kit.same_dictionary", dictionary=board.dictionary))
    print(said("cli.kit.print"))
    return 0


def sheet_words(caption: Said, lang: str) -> str:
    """A caption of the printed sheets in ``lang`` (``kit.sheet.*`` in ``tabletracker/locale/<lang>.kit.po``)."""
    return message_text(caption.words(), lang)


def kit_options(args: argparse.Namespace) -> KitOptions:
    """Turn the command line (and the setup file, when given) into checked kit options.

    Options given on the command line win over the setup file's values.
    """
    if args.paper not in PAPERS:
        raise worded(KitError, "cli.unknown_paper", value=repr(args.paper), papers=", ".join(PAPERS))
    markers = load_setup(args.setup).markers if args.setup else MarkerSettings()
    dictionary = args.dictionary or markers.dictionary
    base_size_mm = markers.base_size_mm if args.base_size_mm is None else args.base_size_mm
    size = dictionary_size(dictionary)
    if args.ids is None:
        ids = tuple(range(FIRST_MODEL_ID, min(DEFAULT_LAST_ID + 1, size)))
    else:
        ids = parse_id_ranges(args.ids, dictionary_size=size)
    overrides = tuple(sorted((i, o.size_mm) for i, o in markers.per_marker.items()
                             if o.size_mm is not None and i in ids))
    return KitOptions(paper=args.paper, base_ids=ids, base_size_mm=base_size_mm, dictionary=dictionary,
                      corner_size_mm=markers.corner_size_mm, size_overrides_mm=overrides)


def _pages(kit: Kit, kind: str) -> str:
    numbers = [n for n, page in enumerate(kit.pages, start=1) if page.kind == kind]
    return said("cli.kit.page", n=str(numbers[0])) if len(numbers) == 1 else \
        said("cli.kit.pages", first=str(numbers[0]), last=str(numbers[-1]))
