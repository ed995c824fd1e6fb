"""The printable marker kit: corner markers, base-marker sheets and the ChArUco board.

:func:`build_kit` lays out, at true scale, a multi-page vector PDF (see
:mod:`calibration.pdf`):

1. the four table-corner markers (ids 0-3, 60 mm by default) with a white quiet zone, each
   labelled with its id and the corner it goes in (docs/markers.md: 0 top-left at
   the table's origin, 1 top-right, 2 bottom-right, 3 bottom-left, all with their
   top edge toward the edge joining markers 0 and 1);
2. sheets of base markers (ids 4-249, 12 mm by default), each in a cell of grey cut
   lines with a one-module white quiet zone, a small arrow above its top edge (the
   edge that points where the model faces) and its id under it;
3. the ChArUco board of :data:`calibration.board.KIT_BOARD`, exactly as OpenCV's
   ``cv2.aruco.CharucoBoard`` defines it, with its parameters printed.

Every page carries a 100 mm check bar: printed at 100 % it measures 100 mm.

Every caption is a :class:`tabletracker.words.Said` (its English sentence, message id
``kit.sheet.*`` and parameters), put on the page as ``say`` words it: in English by default,
in the user's language when the command line passes its words (``tabletracker/locale/*.kit.po``).

Examples
--------
>>> parse_id_ranges("4-6,10", dictionary_size=250)
(4, 5, 6, 10)
>>> parse_id_ranges("2-5", dictionary_size=250)
Traceback (most recent call last):
...
calibration.kit.KitError: --ids: ids 0-3 are the table corners (always printed); base marker ids start at 4, got 2-5
>>> kit = build_kit(KitOptions(base_ids=tuple(range(4, 20))))
>>> [p.kind for p in kit.pages]
['corners', 'bases', 'charuco']
>>> kit.markers[0].marker_id, kit.markers[0].size_mm
(0, 60.0)
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np

from calibration.board import KIT_BOARD, BoardSpec
from calibration.errors import CalibrationPackageError
from calibration.pdf import PdfCanvas, text_width_mm
from calibration.setup import ARUCO_DICTIONARIES, CORNER_IDS, FIRST_MODEL_ID
from tabletracker.words import Said

logger = logging.getLogger(__name__)

PAPERS: dict[str, tuple[float, float]] = {"a4": (210.0, 297.0), "letter": (215.9, 279.4)}
"""Portrait paper sizes in mm (width, depth)."""

DEFAULT_DICTIONARY = "DICT_4X4_250"
DEFAULT_LAST_ID = 249
CORNER_SIZE_MM = 60.0
DEFAULT_BASE_SIZE_MM = 12.0
BASE_SIZE_RANGE_MM = (5.0, 80.0)
CORNER_SIZE_RANGE_MM = (30.0, 140.0)
MARGIN_MM = 10.0
MIN_QUIET_ZONE_MM = 2.0
RULER_MM = 100.0
CUT_GREY = 0.55
CORNER_NAMES = {0: "TOP-LEFT", 1: "TOP-RIGHT", 2: "BOTTOM-RIGHT", 3: "BOTTOM-LEFT"}

Say = Callable[[Said], str]
"""How a caption reaches the page: ``str`` (its English sentence), or the user's language's words for it."""

# Base-marker cell: arrow strip above the quiet zone, id strip under it (mm, text pt).
_ARROW_STRIP_MM = 1.6
_ID_STRIP_MM = 2.6
_ID_PT = 6.0


class KitError(CalibrationPackageError):
    """A kit option is out of range; the message says which and what is accepted."""


@dataclass(frozen=True)
class KitOptions:
    """What to print: paper, base marker ids and size, and the ArUco dictionary."""

    paper: str = "a4"
    base_ids: tuple[int, ...] = tuple(range(FIRST_MODEL_ID, DEFAULT_LAST_ID + 1))
    base_size_mm: float = DEFAULT_BASE_SIZE_MM
    dictionary: str = DEFAULT_DICTIONARY
    board: BoardSpec = KIT_BOARD
    corner_size_mm: float = CORNER_SIZE_MM
    size_overrides_mm: tuple[tuple[int, float], ...] = ()
    """(marker id, size) pairs for base markers printed at another size (setup ``per_marker``)."""

    def size_for(self, marker_id: int) -> float:
        """Return the printed size of base marker ``marker_id`` in mm."""
        return dict(self.size_overrides_mm).get(marker_id, self.base_size_mm)


@dataclass(frozen=True)
class PlacedMarker:
    """Where one marker's black square was printed: page index, top-left corner and size in mm."""

    marker_id: int
    dictionary: str
    page: int
    x_mm: float
    y_mm: float
    size_mm: float


@dataclass(frozen=True)
class KitPage:
    """One page of the kit: its kind (``corners``, ``bases``, ``charuco``) and size in mm."""

    kind: str
    width_mm: float
    height_mm: float


@dataclass(frozen=True)
class Kit:
    """A laid-out kit: the PDF canvas, its pages and every marker placed on them."""

    canvas: PdfCanvas = field(compare=False)
    pages: tuple[KitPage, ...]
    markers: tuple[PlacedMarker, ...]
    board_origin_mm: tuple[float, float]
    """Top-left corner of the ChArUco board on its page (mm)."""

    def write(self, path: str | Path) -> None:
        """Write the PDF to ``path``."""
        self.canvas.write(path)


# -- options ------------------------------------------------------------------------
def dictionary_size(name: str) -> int:
    """Return how many markers the OpenCV dictionary ``name`` holds.

    Examples
    --------
    >>> dictionary_size("DICT_4X4_250")
    250
    """
    return int(_dictionary(name).bytesList.shape[0])


def _dictionary(name: str) -> cv2.aruco.Dictionary:
    if name not in ARUCO_DICTIONARIES or not hasattr(cv2.aruco, name):
        raise KitError(f"unknown ArUco dictionary {name!r}; expected one of {', '.join(ARUCO_DICTIONARIES)}",
                       msg_id="kit.unknown_dictionary",
                       params={"name": repr(name), "names": ", ".join(ARUCO_DICTIONARIES)})
    return cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, name))


def parse_id_ranges(text: str, *, dictionary_size: int) -> tuple[int, ...]:
    """Parse ``"4-249"`` or ``"4-20,30,40-45"`` into sorted unique base marker ids.

    Raises
    ------
    KitError
        On syntax errors, a corner id (0-3) or an id the dictionary does not hold.
    """
    ids: set[int] = set()
    for part in text.replace(" ", "").split(","):
        bounds = part.split("-")
        if len(bounds) > 2 or not all(b.isdigit() for b in bounds):
            raise KitError(f"--ids: expected ids like 4-249 or 4-20,30,40-45, got {text!r}", msg_id="kit.ids_syntax",
                           params={"text": repr(text)})
        low, high = int(bounds[0]), int(bounds[-1])
        if low > high:
            raise KitError(f"--ids: range {part} runs backwards; write it low-high, e.g. {high}-{low}",
                           msg_id="kit.ids_backwards", params={"part": part, "low": str(low), "high": str(high)})
        if low < FIRST_MODEL_ID:
            raise KitError(
                f"--ids: ids 0-3 are the table corners (always printed); base marker ids start at "
                f"{FIRST_MODEL_ID}, got {part}", msg_id="kit.ids_corners",
                params={"first": str(FIRST_MODEL_ID), "part": part}
            )
        if high >= dictionary_size:
            raise KitError(
                f"--ids: the dictionary holds ids 0-{dictionary_size - 1}, got {part}; "
                "choose lower ids or a larger dictionary", msg_id="kit.ids_beyond",
                params={"last": str(dictionary_size - 1), "part": part}
            )
        ids.update(range(low, high + 1))
    return tuple(sorted(ids))


def validate(options: KitOptions) -> KitOptions:
    """Check ``options``; return them unchanged or raise :class:`KitError`."""
    if options.paper not in PAPERS:
        raise KitError(f"unknown paper {options.paper!r}; expected one of {', '.join(PAPERS)}",
                       msg_id="kit.unknown_paper", params={"paper": repr(options.paper), "papers": ", ".join(PAPERS)})
    size = dictionary_size(options.dictionary)
    if not options.base_ids:
        raise KitError("no base marker ids to print; give --ids such as 4-249", msg_id="kit.no_ids")
    bad = [i for i in options.base_ids if not FIRST_MODEL_ID <= i < size]
    if bad:
        raise KitError(f"base marker ids must be from {FIRST_MODEL_ID} to {size - 1} in "
                       f"{options.dictionary}, got {bad[:5]}", msg_id="kit.ids_range",
                       params={"first": str(FIRST_MODEL_ID), "last": str(size - 1), "dictionary": options.dictionary,
                               "ids": str(bad[:5])})
    low, high = BASE_SIZE_RANGE_MM
    if not low <= options.base_size_mm <= high:
        raise KitError(f"--base-size-mm must be from {low:g} to {high:g} mm, got {options.base_size_mm:g}",
                       msg_id="kit.base_size", params={"low": f"{low:g}", "high": f"{high:g}",
                                                       "size": f"{options.base_size_mm:g}"})
    for marker_id, size_mm in options.size_overrides_mm:
        if not low <= size_mm <= high:
            raise KitError(f"marker {marker_id}'s size must be from {low:g} to {high:g} mm, got {size_mm:g}",
                           msg_id="kit.marker_size",
                           params={"id": str(marker_id), "low": f"{low:g}", "high": f"{high:g}",
                                   "size": f"{size_mm:g}"})
    low, high = CORNER_SIZE_RANGE_MM
    if not low <= options.corner_size_mm <= high:
        raise KitError(f"corner markers must be from {low:g} to {high:g} mm, got {options.corner_size_mm:g}",
                       msg_id="kit.corner_size", params={"low": f"{low:g}", "high": f"{high:g}",
                                                         "size": f"{options.corner_size_mm:g}"})
    return options


# -- marker bits --------------------------------------------------------------------
@functools.lru_cache(maxsize=2048)
def _modules(dictionary: str, marker_id: int) -> bytes:
    d = _dictionary(dictionary)
    cells = d.markerSize + 2
    image = cv2.aruco.generateImageMarker(d, marker_id, cells)
    return (image < 128).tobytes()


def marker_modules(dictionary: str, marker_id: int) -> np.ndarray:
    """Return the marker's modules, border included, as a read-only bool array (True = black).

    Examples
    --------
    >>> m = marker_modules("DICT_4X4_250", 0)
    >>> m.shape, bool(m[0].all()), bool(m[:, 0].all())
    ((6, 6), True, True)
    >>> m[1].astype(int).tolist()
    [1, 0, 1, 0, 0, 1]
    """
    d = _dictionary(dictionary)
    if not 0 <= marker_id < d.bytesList.shape[0]:
        raise KitError(f"marker id {marker_id} is not in {dictionary} (ids 0-{d.bytesList.shape[0] - 1})",
                       msg_id="kit.id_not_in_dictionary", params={"id": str(marker_id), "dictionary": dictionary,
                                                                  "last": str(d.bytesList.shape[0] - 1)})
    cells = d.markerSize + 2
    out = np.frombuffer(_modules(dictionary, marker_id), dtype=bool).reshape(cells, cells).copy()
    out.flags.writeable = False
    return out


def draw_marker(canvas: PdfCanvas, dictionary: str, marker_id: int,
                x_mm: float, y_mm: float, size_mm: float) -> None:
    """Draw marker ``marker_id`` with its black square's top-left at (``x_mm``, ``y_mm``).

    Each row's runs of black modules become one filled rectangle; all of them join
    one path, so adjacent modules print without seams.
    """
    modules = marker_modules(dictionary, marker_id)
    cell = size_mm / modules.shape[0]
    for row, bits in enumerate(modules):
        col = 0
        while col < len(bits):
            if not bits[col]:
                col += 1
                continue
            start = col
            while col < len(bits) and bits[col]:
                col += 1
            canvas.rect(x_mm + start * cell, y_mm + row * cell, (col - start) * cell, cell)


def quiet_zone_mm(dictionary: str, size_mm: float) -> float:
    """Return the white margin around a marker: one module, and at least 2 mm.

    Examples
    --------
    >>> quiet_zone_mm("DICT_4X4_250", 12.0), quiet_zone_mm("DICT_4X4_250", 60.0)
    (2.0, 10.0)
    """
    module = size_mm / (_dictionary(dictionary).markerSize + 2)
    return max(MIN_QUIET_ZONE_MM, module)


# -- page furniture -----------------------------------------------------------------
def draw_ruler(canvas: PdfCanvas, x_mm: float, y_mm: float, say: Say = str) -> None:
    """Draw the 100 mm check bar (2 mm tall, top-left at ``x_mm``, ``y_mm``) and its caption."""
    canvas.rect(x_mm, y_mm, RULER_MM, 2.0)
    for tick in range(0, int(RULER_MM) + 1, 10):
        length = 2.5 if tick % 50 == 0 else 1.2
        canvas.line(x_mm + tick, y_mm + 2.6, x_mm + tick, y_mm + 2.6 + length, width_mm=0.2)
    canvas.text(x_mm, y_mm + 7.5, "0", size_pt=6)
    canvas.text(x_mm + RULER_MM / 2, y_mm + 7.5, "50", size_pt=6, align="center")
    canvas.text(x_mm + RULER_MM, y_mm + 7.5, "100 mm", size_pt=6, align="center")
    canvas.text(x_mm + RULER_MM + 4, y_mm + 1.0, say(Said("This bar must measure 100 mm.", "kit.sheet.bar")),
                size_pt=7.5)
    canvas.text(x_mm + RULER_MM + 4, y_mm + 4.5, say(Said("Print at 100 %, no fit-to-page.", "kit.sheet.print")),
                size_pt=7.5)


def _header(canvas: PdfCanvas, width_mm: float, title: str, lines: Sequence[str]) -> float:
    """Write a page title and its lines of instructions; return the y below them.

    A title too long for the page (many id ranges) is set smaller to fit.
    """
    room = width_mm - 2 * MARGIN_MM
    for line in lines:
        if text_width_mm(line, 8) > room:
            raise ValueError(f"kit text does not fit the page: {line!r}")  # a layout bug, not input
    canvas.text(MARGIN_MM, MARGIN_MM + 5, title, size_pt=_fitting(title, 13.0, room))
    y = MARGIN_MM + 10.5
    for line in lines:
        canvas.text(MARGIN_MM, y, line, size_pt=8, grey=0.15)
        y += 3.8
    return y + 2.0


def _fitting(text: str, size_pt: float, width_mm: float) -> float:
    """The text size at most ``size_pt`` that sets ``text`` within ``width_mm``."""
    return min(size_pt, size_pt * width_mm / max(text_width_mm(text, size_pt), 1e-9))


def _wrapped(text: str, size_pt: float, width_mm: float) -> list[str]:
    """``text`` cut at spaces into lines within ``width_mm`` (a word longer than that alone on its line).

    >>> _wrapped("the black square's corner goes in the table's corner", 6.5, 40.0)
    ["the black square's corner goes in the", "table's corner"]
    """
    lines: list[str] = []
    for word in text.split(" "):
        if lines and text_width_mm(f"{lines[-1]} {word}", size_pt) <= width_mm:
            lines[-1] += f" {word}"
        else:
            lines.append(word)
    return lines


def _footer(canvas: PdfCanvas, height_mm: float, say: Say) -> None:
    draw_ruler(canvas, MARGIN_MM, height_mm - MARGIN_MM - 8.0, say)


# -- pages ----------------------------------------------------------------------------
def _corner_pages(canvas: PdfCanvas, options: KitOptions, first_page: int, say: Say) -> list[PlacedMarker]:
    """The four corner markers: on one page laid out as on the table, or one a page when too big."""
    width, height = PAPERS[options.paper]
    size = options.corner_size_mm
    quiet = quiet_zone_mm(options.dictionary, size)
    cell, gap = size + 2 * quiet, 14.0
    row_step = cell + 21.0
    top = MARGIN_MM + 10.5 + 4 * 3.8 + 2.0 + 5.0  # below the header
    bottom = height - MARGIN_MM - 14.0  # above the check bar
    if 2 * cell + gap <= width - 2 * MARGIN_MM and top + 2 * row_step <= bottom:
        left = (width - 2 * cell - gap) / 2
        grid = {0: (0, 0), 1: (1, 0), 2: (1, 1), 3: (0, 1)}  # id -> (column, row) as on the table
        spots = {i: (0, left + c * (cell + gap), top + r * row_step) for i, (c, r) in grid.items()}
        room = cell + gap - 2.0  # a caption may reach into the gap between two markers, not past it
    elif cell <= width - 2 * MARGIN_MM and top + row_step <= bottom:
        spots = {i: (i, (width - cell) / 2, top) for i in CORNER_IDS}
        room = width - 2 * MARGIN_MM
    else:
        raise KitError(f"{size:g} mm corner markers do not fit on {options.paper} paper; "
                       f"use at most {CORNER_SIZE_RANGE_MM[1]:g} mm", msg_id="kit.corners_do_not_fit",
                       params={"size": f"{size:g}", "paper": options.paper, "most": f"{CORNER_SIZE_RANGE_MM[1]:g}"})
    placed = []
    for marker_id in CORNER_IDS:
        sheet, cx, cy = spots[marker_id]
        if sheet == canvas.page_count - first_page:
            _corner_page_header(canvas, options, width, height, say)
        mx, my = cx + quiet, cy + quiet
        draw_marker(canvas, options.dictionary, marker_id, mx, my, size)
        placed.append(PlacedMarker(marker_id, options.dictionary, first_page + sheet, mx, my, size))
        canvas.outline(cx, cy, cell, cell, width_mm=0.15, grey=CUT_GREY, dash_mm=2.0)
        _arrow(canvas, cx + cell / 2, cy - 3.6, 3.0)
        _corner_bracket(canvas, cx, cy, cell, marker_id)
        english = f"Marker {marker_id}: {CORNER_NAMES[marker_id]} corner" + (" (origin)" if marker_id == 0 else "")
        label = say(Said(english, f"kit.sheet.corner_{marker_id}", id=marker_id))
        canvas.text(cx + cell / 2, cy + cell + 8.0, label, size_pt=_fitting(label, 10.0, room), align="center")
        hint = Said("the black square's corner nearest the grey L goes in the table's corner", "kit.sheet.corner_hint")
        for k, line in enumerate(_wrapped(say(hint), 6.5, room)[:2]):  # two lines fit above the next row's arrow
            canvas.text(cx + cell / 2, cy + cell + 12.0 + 2.6 * k, line, size_pt=6.5, grey=0.3, align="center")
    return placed


def _corner_page_header(canvas: PdfCanvas, options: KitOptions, width: float, height: float, say: Say) -> None:
    canvas.page(width, height)
    size = options.corner_size_mm
    title = Said(f"Table corner markers 0-3: {size:g} mm, {options.dictionary}", "kit.sheet.corners_title",
                 size=size, dictionary=options.dictionary)
    _header(canvas, width, say(title), [say(line) for line in [
        Said("Seen from above: 0 top-left (the table's origin), 1 top-right, 2 bottom-right, 3 bottom-left.",
             "kit.sheet.corners_where"),
        Said("Lay each one flush in its corner: the black square's two outer edges on the play area's edges",
             "kit.sheet.corners_flush"),
        Said(f"(its centre {size / 2:g} mm from both). Keep the white margin; let it overhang past the edge.",
             "kit.sheet.corners_margin", centre=size / 2),
        Said("All four the same way round: the arrowed top edge toward the table edge joining markers 0 and 1.",
             "kit.sheet.corners_way"),
    ]])
    _footer(canvas, height, say)


def _arrow(canvas: PdfCanvas, x_mm: float, tip_y_mm: float, width_mm: float) -> None:
    """A filled triangle pointing up (toward y = 0) with its tip at (``x_mm``, ``tip_y_mm``)."""
    h = width_mm * 0.65
    canvas.polygon([(x_mm, tip_y_mm), (x_mm + width_mm / 2, tip_y_mm + h),
                    (x_mm - width_mm / 2, tip_y_mm + h)])


def _corner_bracket(canvas: PdfCanvas, cx: float, cy: float, cell: float, marker_id: int) -> None:
    """A grey L just outside the cell's corner that goes in the table's corner."""
    right = marker_id in (1, 2)
    bottom = marker_id in (2, 3)
    gap, arm = 2.0, 16.0
    x = cx + cell + gap if right else cx - gap  # the L's corner
    y = cy + cell + gap if bottom else cy - gap
    inward_x = -1.0 if right else 1.0
    inward_y = -1.0 if bottom else 1.0
    t = 1.2
    canvas.rect(min(x, x + inward_x * arm) - t / 2, y - t / 2, arm + t, t, grey=0.35)
    canvas.rect(x - t / 2, min(y, y + inward_y * arm) - t / 2, t, arm + t, grey=0.35)


def base_cell_mm(dictionary: str, size_mm: float) -> tuple[float, float, float]:
    """Return a base marker's cell (width, height) and quiet zone, in mm.

    Examples
    --------
    >>> [round(v, 6) for v in base_cell_mm("DICT_4X4_250", 12.0)]
    [16.0, 20.2, 2.0]
    """
    quiet = quiet_zone_mm(dictionary, size_mm)
    width = size_mm + 2 * quiet
    height = _ARROW_STRIP_MM + width + _ID_STRIP_MM
    return width, height, quiet


def _base_pages(canvas: PdfCanvas, options: KitOptions, ids: Sequence[int], size: float,
                first_page: int, say: Say) -> list[PlacedMarker]:
    """Sheets of base markers ``ids``, all ``size`` mm across."""
    width, height = PAPERS[options.paper]
    cell_w, cell_h, quiet = base_cell_mm(options.dictionary, size)
    top = MARGIN_MM + 10.5 + 2 * 3.8 + 2.0  # below the two header lines
    bottom = height - MARGIN_MM - 12.0  # above the check bar
    columns = int((width - 2 * MARGIN_MM) // cell_w)
    rows = int((bottom - top) // cell_h)
    per_page = columns * rows
    chunks = [ids[i:i + per_page] for i in range(0, len(ids), per_page)]
    left = (width - columns * cell_w) / 2
    placed = []
    for sheet, chunk in enumerate(chunks):
        page = first_page + sheet
        canvas.page(width, height)
        one = len(chunk) == 1
        title = Said(f"Base markers {size:g} mm, {options.dictionary}: {'id' if one else 'ids'} "
                     f"{format_id_ranges(chunk)} (sheet {sheet + 1} of {len(chunks)})",
                     "kit.sheet.bases_title_one" if one else "kit.sheet.bases_title", size=size,
                     dictionary=options.dictionary, ids=format_id_ranges(chunk), sheet=sheet + 1, sheets=len(chunks))
        _header(canvas, width, say(title), [say(line) for line in [
            Said("Cut along the grey lines. The arrow marks the marker's top edge: glue it pointing where the "
                 "model faces.", "kit.sheet.bases_cut"),
            Said(f"Keep the white margin ({round(quiet, 1):g} mm) round the black square; the id printed under "
                 "each marker is the model's marker_id.", "kit.sheet.bases_margin", margin=round(quiet, 1)),
        ]])
        cells = []
        for k, marker_id in enumerate(chunk):
            cx = left + (k % columns) * cell_w
            cy = top + (k // columns) * cell_h
            mx, my = cx + quiet, cy + _ARROW_STRIP_MM + quiet
            draw_marker(canvas, options.dictionary, marker_id, mx, my, size)
            placed.append(PlacedMarker(marker_id, options.dictionary, page, mx, my, size))
            cells.append((cx, cy, marker_id))
        for cx, cy, marker_id in cells:
            _arrow(canvas, cx + cell_w / 2, cy + 0.2, 2.0)
            canvas.text(cx + cell_w / 2, cy + cell_h - 0.8, str(marker_id), size_pt=_ID_PT, align="center")
        _cut_grid(canvas, left, top, cell_w, cell_h, columns, len(chunk))
        _footer(canvas, height, say)
    return placed


def _cut_grid(canvas: PdfCanvas, left: float, top: float, cell_w: float, cell_h: float,
              columns: int, count: int) -> None:
    """Thin grey lines round the first ``count`` cells of a grid filled row by row."""
    rows = -(-count // columns)

    def exists(row: int, col: int) -> bool:
        return 0 <= row and 0 <= col < columns and row * columns + col < count

    for r in range(rows + 1):  # each horizontal line spans the cells above or below it
        span = sum(1 for c in range(columns) if exists(r - 1, c) or exists(r, c))
        canvas.line(left, top + r * cell_h, left + span * cell_w, top + r * cell_h,
                    width_mm=0.1, grey=CUT_GREY)
    for c in range(columns + 1):  # each vertical line spans the cells left or right of it
        depth = sum(1 for r in range(rows) if exists(r, c - 1) or exists(r, c))
        canvas.line(left + c * cell_w, top, left + c * cell_w, top + depth * cell_h,
                    width_mm=0.1, grey=CUT_GREY)


def format_id_ranges(ids: Sequence[int]) -> str:
    """Return ``ids`` as compact ranges, e.g. ``4-20, 30``.

    Examples
    --------
    >>> format_id_ranges([4, 5, 6, 9, 11, 12])
    '4-6, 9, 11-12'
    """
    out: list[str] = []
    start = prev = ids[0]
    for i in list(ids[1:]) + [None]:
        if i is not None and i == prev + 1:
            prev = i
            continue
        out.append(f"{start}-{prev}" if prev != start else f"{start}")
        if i is not None:
            start = prev = i
    return ", ".join(out)


def charuco_board(spec: BoardSpec = KIT_BOARD) -> cv2.aruco.CharucoBoard:
    """Return OpenCV's ChArUco board for ``spec`` (lengths in mm)."""
    return cv2.aruco.CharucoBoard((spec.squares_x, spec.squares_y), spec.square_mm,
                                  spec.marker_mm, _dictionary(spec.dictionary))


def _charuco_page(canvas: PdfCanvas, options: KitOptions, page: int,
                  say: Say) -> tuple[list[PlacedMarker], tuple[float, float]]:
    spec = options.board
    height, width = PAPERS[options.paper]  # landscape
    canvas.page(width, height)
    last = (spec.squares_x * spec.squares_y) // 2 - 1
    title = Said("ChArUco board for tabletracker calibrate-camera", "kit.sheet.board_title")
    top = _header(canvas, width, say(title), [say(line) for line in [
        Said(f"{spec.squares_x} x {spec.squares_y} squares of {spec.square_mm:g} mm, markers {spec.marker_mm:g} mm, "
             f"{spec.dictionary} (ids 0-{last}): calibrate-camera's defaults.", "kit.sheet.board_spec",
             x=spec.squares_x, y=spec.squares_y, square=spec.square_mm, marker=spec.marker_mm,
             dictionary=spec.dictionary, last=last),
        Said("Glue it flat on stiff card. Photograph it 15-30 times from different angles and distances, "
             "filling much of the view.", "kit.sheet.board_photos"),
    ]])
    board = charuco_board(spec)
    x0 = (width - spec.width_mm) / 2
    y0 = top + 3.0
    if y0 + spec.height_mm > height - MARGIN_MM - 14.0:
        raise KitError(f"the ChArUco board ({spec.width_mm:g} x {spec.height_mm:g} mm) does not fit "
                       f"{options.paper} paper", msg_id="kit.board_does_not_fit",
                       params={"width": f"{spec.width_mm:g}", "height": f"{spec.height_mm:g}", "paper": options.paper})
    # OpenCV's layout (non-legacy): square (row 0, column 0) is black, markers sit in the white ones.
    for row in range(spec.squares_y):
        for col in range(spec.squares_x):
            if (row + col) % 2 == 0:
                canvas.rect(x0 + col * spec.square_mm, y0 + row * spec.square_mm, spec.square_mm, spec.square_mm)
    placed = []
    for marker_id, corners in zip(np.asarray(board.getIds()).ravel(), board.getObjPoints()):
        mx, my = float(corners[0][0]) + x0, float(corners[0][1]) + y0  # OpenCV's board frame: y down
        draw_marker(canvas, spec.dictionary, int(marker_id), mx, my, spec.marker_mm)
        placed.append(PlacedMarker(int(marker_id), spec.dictionary, page, mx, my, spec.marker_mm))
    check = Said(f"Each square must measure {spec.square_mm:g} mm, each marker {spec.marker_mm:g} mm.",
                 "kit.sheet.board_check", square=spec.square_mm, marker=spec.marker_mm)
    canvas.text(x0, y0 + spec.height_mm + 4.5, say(check), size_pt=8, grey=0.15)
    _footer(canvas, height, say)
    return placed, (x0, y0)


def build_kit(options: KitOptions = KitOptions(), say: Say = str) -> Kit:
    """Lay out the whole kit for ``options``: corner page, base sheets, ChArUco board; ``say`` words the captions
    (their English sentence by default).

    Raises
    ------
    KitError
        When an option is out of range (see :func:`validate`).
    """
    validate(options)
    canvas = PdfCanvas(title=say(Said(f"tabletracker marker kit ({options.dictionary}, {options.paper})",
                                      "kit.sheet.pdf_title", dictionary=options.dictionary, paper=options.paper)))
    kinds: list[str] = []
    markers = _corner_pages(canvas, options, 0, say)
    kinds += ["corners"] * (canvas.page_count - len(kinds))
    by_size: dict[float, list[int]] = {}
    for marker_id in options.base_ids:
        by_size.setdefault(options.size_for(marker_id), []).append(marker_id)
    for size in sorted(by_size, key=lambda s: (s != options.base_size_mm, s)):
        markers += _base_pages(canvas, options, by_size[size], size, canvas.page_count, say)
    kinds += ["bases"] * (canvas.page_count - len(kinds))
    board_markers, origin = _charuco_page(canvas, options, canvas.page_count, say)
    markers += board_markers
    kinds += ["charuco"]
    width, height = PAPERS[options.paper]
    pages = tuple(KitPage(kind, *((height, width) if kind == "charuco" else (width, height))) for kind in kinds)
    logger.info("kit: %d pages, %d markers", len(pages), len(markers))
    return Kit(canvas, pages, tuple(markers), origin)
