"""A tiny vector PDF writer, in millimetres, for the printable marker kit.

Standard library only. Coordinates are millimetres from the page's top-left corner,
x to the right and y downward (like the table frame and images); the writer turns
them into PDF points (1 pt = 25.4/72 mm) from the bottom-left corner, so a page
printed at 100 % has exactly the stated sizes. Shapes are filled rectangles,
filled polygons, stroked lines and Helvetica text: enough for markers, cut lines
and labels.

Examples
--------
>>> c = PdfCanvas()
>>> c.page(210.0, 297.0)
>>> c.rect(10.0, 10.0, 60.0, 60.0)
>>> c.text(10.0, 80.0, "marker 0", size_pt=10)
>>> data = c.to_bytes()
>>> data.startswith(b"%PDF-1.4") and data.rstrip().endswith(b"%%EOF")
True
>>> c.page_count
1
>>> PdfCanvas().to_bytes()
Traceback (most recent call last):
...
ValueError: a PDF needs at least one page; call page() first
"""

from __future__ import annotations

import zlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

MM_PER_PT = 25.4 / 72.0
PT_PER_MM = 72.0 / 25.4

Grey = float
"""A grey level from 0.0 (black) to 1.0 (white)."""

# Advance widths of Helvetica (Adobe's AFM, per 1000 em) for WinAnsi codes 32-126.
_HELVETICA_WIDTHS = (
    278, 278, 355, 556, 556, 889, 667, 191, 333, 333, 389, 584, 278, 333, 278, 278,
    556, 556, 556, 556, 556, 556, 556, 556, 556, 556, 278, 278, 584, 584, 584, 556,
    1015, 667, 667, 722, 722, 667, 611, 778, 722, 278, 500, 667, 556, 833, 722, 778,
    667, 778, 722, 667, 611, 722, 667, 944, 667, 667, 611, 278, 278, 278, 469, 556,
    333, 556, 556, 500, 556, 556, 278, 556, 556, 222, 222, 500, 222, 833, 556, 556,
    556, 556, 333, 500, 278, 556, 500, 722, 500, 500, 500, 334, 260, 334, 584,
)
# The same for the WinAnsi letters and signs French needs (accented letters, guillemets, degree, no-break space).
_HELVETICA_LATIN = {
    **dict.fromkeys("àâäáèéêëôöòóùûüú", 556), "ç": 500, **dict.fromkeys("îïìí", 278), "ÿ": 500, "œ": 944, "æ": 889,
    **dict.fromkeys("ÀÂÄÁ", 667), "Ç": 722, **dict.fromkeys("ÈÉÊË", 667), **dict.fromkeys("ÎÏ", 278),
    **dict.fromkeys("ÔÖ", 778), **dict.fromkeys("ÙÛÜ", 722), "Œ": 1000, "«": 556, "»": 556, "°": 400,
    "\u00a0": 278, "’": 222, "‘": 222, "“": 333, "”": 333, "–": 556, "—": 1000, "…": 1000, "€": 556,
}
_DEFAULT_WIDTH = 556


def text_width_mm(text: str, size_pt: float) -> float:
    """Return the width of ``text`` set in Helvetica at ``size_pt``, in mm.

    Examples
    --------
    >>> round(text_width_mm("17", 10.0), 3)
    3.923
    >>> text_width_mm("", 10.0)
    0.0
    >>> round(text_width_mm("îç", 10.0), 3)  # narrower than most letters
    2.745
    """
    units = sum(
        _HELVETICA_WIDTHS[ord(ch) - 32] if 32 <= ord(ch) <= 126 else _HELVETICA_LATIN.get(ch, _DEFAULT_WIDTH)
        for ch in text
    )
    return units / 1000.0 * size_pt * MM_PER_PT


def _num(value: float) -> str:
    """Format a coordinate in points: 3 decimals (under 0.001 mm), no trailing zeros."""
    out = f"{value:.3f}".rstrip("0").rstrip(".")
    return "0" if out in ("-0", "") else out


def _pdf_string(text: str) -> str:
    """Return ``text`` as a PDF literal string, escaping ``( ) \\``.

    Characters outside WinAnsi (cp1252) become ``?`` when the page is encoded.
    """
    escaped = text.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")
    return f"({escaped})"


@dataclass
class _Page:
    width_mm: float
    height_mm: float
    ops: list[str] = field(default_factory=list)


class PdfCanvas:
    """Collect vector pages in mm (top-left origin, y down) and write them as one PDF.

    Consecutive filled rectangles of the same grey are joined into one path filled
    at once, so adjacent marker modules print without hairline seams.
    """

    def __init__(self, *, title: str = "", author: str = "tabletracker") -> None:
        self.title = title
        self.author = author
        self._pages: list[_Page] = []
        self._path_grey: Grey | None = None  # grey of the open rectangle path

    # -- pages ------------------------------------------------------------------
    @property
    def page_count(self) -> int:
        """Return the number of pages begun so far."""
        return len(self._pages)

    def page(self, width_mm: float, height_mm: float) -> None:
        """Begin a new page of ``width_mm`` x ``height_mm``; later drawing goes there."""
        if not (width_mm > 0 and height_mm > 0):
            raise ValueError(f"page size must be positive, got {width_mm} x {height_mm} mm")
        self._flush()
        self._pages.append(_Page(width_mm, height_mm))

    def _current(self) -> _Page:
        if not self._pages:
            raise ValueError("call page() before drawing")
        return self._pages[-1]

    def _x(self, x_mm: float) -> str:
        return _num(x_mm * PT_PER_MM)

    def _y(self, y_mm: float) -> str:
        return _num((self._current().height_mm - y_mm) * PT_PER_MM)

    def _flush(self) -> None:
        if self._path_grey is not None:
            self._pages[-1].ops.append("f")
            self._path_grey = None

    def _emit(self, op: str) -> None:
        self._flush()
        self._current().ops.append(op)

    # -- drawing ----------------------------------------------------------------
    def rect(self, x_mm: float, y_mm: float, w_mm: float, h_mm: float, *, grey: Grey = 0.0) -> None:
        """Fill the rectangle with top-left corner (``x_mm``, ``y_mm``) and size ``w_mm`` x ``h_mm``."""
        page = self._current()
        if self._path_grey != grey:
            self._flush()
            page.ops.append(f"{_num(grey)} g")
            self._path_grey = grey
        page.ops.append(
            f"{self._x(x_mm)} {self._y(y_mm + h_mm)} {_num(w_mm * PT_PER_MM)} {_num(h_mm * PT_PER_MM)} re"
        )

    def outline(
        self, x_mm: float, y_mm: float, w_mm: float, h_mm: float,
        *, width_mm: float = 0.1, grey: Grey = 0.0, dash_mm: float | None = None,
    ) -> None:
        """Stroke the outline of a rectangle (top-left corner, width, height in mm)."""
        self._emit(
            f"{self._stroke_style(width_mm, grey, dash_mm)} {self._x(x_mm)} {self._y(y_mm + h_mm)} "
            f"{_num(w_mm * PT_PER_MM)} {_num(h_mm * PT_PER_MM)} re S"
        )

    def polygon(self, points_mm: Sequence[tuple[float, float]], *, grey: Grey = 0.0) -> None:
        """Fill the closed polygon through ``points_mm`` ((x, y) pairs in mm)."""
        if len(points_mm) < 3:
            raise ValueError(f"a polygon needs at least 3 points, got {len(points_mm)}")
        (x0, y0), *rest = points_mm
        ops = [f"{_num(grey)} g", f"{self._x(x0)} {self._y(y0)} m"]
        ops += [f"{self._x(x)} {self._y(y)} l" for x, y in rest]
        ops.append("h f")
        self._emit("\n".join(ops))

    def line(
        self, x0_mm: float, y0_mm: float, x1_mm: float, y1_mm: float,
        *, width_mm: float = 0.1, grey: Grey = 0.0, dash_mm: float | None = None,
    ) -> None:
        """Stroke a straight line from (``x0_mm``, ``y0_mm``) to (``x1_mm``, ``y1_mm``)."""
        self._emit(
            f"{self._stroke_style(width_mm, grey, dash_mm)} "
            f"{self._x(x0_mm)} {self._y(y0_mm)} m {self._x(x1_mm)} {self._y(y1_mm)} l S"
        )

    @staticmethod
    def _stroke_style(width_mm: float, grey: Grey, dash_mm: float | None) -> str:
        dash = f"[{_num(dash_mm * PT_PER_MM)}] 0 d" if dash_mm else "[] 0 d"
        return f"{_num(grey)} G {_num(width_mm * PT_PER_MM)} w {dash}"

    def text(
        self, x_mm: float, y_mm: float, text: str,
        *, size_pt: float = 9.0, grey: Grey = 0.0, align: str = "left",
    ) -> None:
        """Write ``text`` in Helvetica with its baseline at ``y_mm``.

        ``align`` is ``left``, ``center`` or ``right``: where ``x_mm`` sits on the text.
        """
        shift = {"left": 0.0, "center": 0.5, "right": 1.0}.get(align)
        if shift is None:
            raise ValueError(f"align must be one of left, center, right; got {align!r}")
        x = x_mm - shift * text_width_mm(text, size_pt)
        self._emit(
            f"BT {_num(grey)} g /F1 {_num(size_pt)} Tf {self._x(x)} {self._y(y_mm)} Td "
            f"{_pdf_string(text)} Tj ET"
        )

    # -- output -----------------------------------------------------------------
    def to_bytes(self) -> bytes:
        """Return the whole document: catalog, pages, one Helvetica font, xref and trailer."""
        if not self._pages:
            raise ValueError("a PDF needs at least one page; call page() first")
        self._flush()
        objects: list[bytes] = []  # object n is objects[n - 1]

        def add(body: bytes) -> int:
            objects.append(body)
            return len(objects)

        catalog = add(b"")  # filled in once the page tree's number is known
        pages = add(b"")
        font = add(b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>")
        kids = []
        for page in self._pages:
            stream = zlib.compress("\n".join(page.ops).encode("cp1252", errors="replace"))
            contents = add(
                b"<< /Length %d /Filter /FlateDecode >>\nstream\n" % len(stream) + stream + b"\nendstream"
            )
            box = f"[0 0 {_num(page.width_mm * PT_PER_MM)} {_num(page.height_mm * PT_PER_MM)}]"
            kids.append(add(
                f"<< /Type /Page /Parent {pages} 0 R /MediaBox {box} "
                f"/Resources << /Font << /F1 {font} 0 R >> >> /Contents {contents} 0 R >>".encode()
            ))
        objects[catalog - 1] = f"<< /Type /Catalog /Pages {pages} 0 R >>".encode()
        objects[pages - 1] = (
            f"<< /Type /Pages /Kids [{' '.join(f'{k} 0 R' for k in kids)}] /Count {len(kids)} >>".encode()
        )
        info = add(
            f"<< /Title {_pdf_string(self.title)} /Producer {_pdf_string(self.author)} >>".encode(
                "cp1252", errors="replace")
        )
        return _assemble(objects, root=catalog, info=info)

    def write(self, path: str | Path) -> None:
        """Write the document to ``path`` (OSError when it cannot be written)."""
        Path(path).write_bytes(self.to_bytes())


def _assemble(objects: list[bytes], *, root: int, info: int) -> bytes:
    """Lay out numbered objects with a byte-exact cross-reference table and trailer."""
    out = bytearray(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    for offset in offsets:
        out += b"%010d 00000 n \n" % offset
    out += b"trailer\n<< /Size %d /Root %d 0 R /Info %d 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (
        len(objects) + 1, root, info, xref
    )
    return bytes(out)
