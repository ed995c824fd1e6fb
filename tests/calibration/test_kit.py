"""The printable kit: rasterise the PDF as a printer would and measure it.

Sizes are measured on pypdfium2 rasters at 600 dpi (1 px = 0.0423 mm) by summing the
darkness along a row through a marker's solid border, so anti-aliased edges count at
their true fraction. Markers are found with cv2.aruco on 200 dpi rasters.
"""

from __future__ import annotations

import json
import re
from contextlib import nullcontext
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pypdfium2 as pdfium
import pytest

from calibration.board import KIT_BOARD
from calibration.kit import (
    KitError, KitOptions, build_kit, format_id_ranges, marker_modules, parse_id_ranges, validate,
)
from calibration.pdf import MM_PER_PT, PdfCanvas, text_width_mm
from tabletracker import cli, i18n
from tabletracker.words import Said

DETECT_DPI = 200
MEASURE_DPI = 600
SIZE_TOLERANCE_MM = 0.2
A4_PT = (595.276, 841.89)
LETTER_PT = (612.0, 792.0)


# -- helpers --------------------------------------------------------------------------
def make_kit(tmp_path: Path, *args: str) -> Path:
    out = tmp_path / "kit.pdf"
    assert cli.main(["markers", "--out", str(out), *args]) == 0
    return out


def render(pdf: pdfium.PdfDocument, page: int, dpi: int) -> np.ndarray:
    image = pdf[page].render(scale=dpi / 72.0, grayscale=True).to_numpy()
    return image.reshape(image.shape[0], image.shape[1])


def detect(image: np.ndarray, dictionary: int = cv2.aruco.DICT_4X4_250) -> dict[int, np.ndarray]:
    params = cv2.aruco.DetectorParameters()
    params.cornerRefinementMethod = cv2.aruco.CORNER_REFINE_SUBPIX
    detector = cv2.aruco.ArucoDetector(cv2.aruco.getPredefinedDictionary(dictionary), params)
    corners, ids, _ = detector.detectMarkers(image)
    if ids is None:
        return {}
    return {int(i): c.reshape(4, 2) for i, c in zip(ids.ravel(), corners)}


def page_text(pdf: pdfium.PdfDocument, page: int) -> str:
    return pdf[page].get_textpage().get_text_range()


def text_below(pdf: pdfium.PdfDocument, page: int, corners_px: np.ndarray, dpi: int,
               depth_mm: float) -> str:
    """Text in the band of ``depth_mm`` just under a detected marker."""
    height_pt = pdf[page].get_size()[1]
    to_pt = 72.0 / dpi
    left, right = corners_px[:, 0].min() * to_pt, corners_px[:, 0].max() * to_pt
    bottom_y = corners_px[:, 1].max() * to_pt
    return pdf[page].get_textpage().get_text_bounded(
        left - 2, height_pt - bottom_y - depth_mm / MM_PER_PT, right + 2, height_pt - bottom_y).strip()


def row_width_mm(image: np.ndarray, y_px: float, x0_px: float, x1_px: float, dpi: int) -> float:
    """Sum the darkness of one row between two columns: the black run's length in mm."""
    row = image[int(round(y_px)), int(round(x0_px)):int(round(x1_px))].astype(float)
    return float(((255.0 - row) / 255.0).sum()) * 25.4 / dpi


def marker_size_mm(image: np.ndarray, corners_px: np.ndarray, dpi: int, *, modules: int,
                   margin_mm: float) -> tuple[float, float]:
    """Width and height of a marker's black square, measured through its border modules."""
    px = dpi / 25.4
    (x0, y0), (x1, _), (_, y1) = corners_px.min(0), corners_px.max(0), corners_px.max(0)
    half_module = (x1 - x0) / modules / 2
    width = row_width_mm(image, y0 + half_module, x0 - margin_mm * px, x1 + margin_mm * px, dpi)
    height = row_width_mm(image.T, x0 + half_module, y0 - margin_mm * px, y1 + margin_mm * px, dpi)
    return width, height


@pytest.fixture(scope="module")
def a4_kit(tmp_path_factory: pytest.TempPathFactory) -> pdfium.PdfDocument:
    return pdfium.PdfDocument(make_kit(tmp_path_factory.mktemp("a4")))


class _Rasters(dict):
    """Rasters of one PDF by (page, dpi), each rendered on first use."""

    def __init__(self, pdf: pdfium.PdfDocument) -> None:
        super().__init__()
        self.pdf = pdf

        self._found: dict[int, dict[int, np.ndarray]] = {}

    def __missing__(self, key: tuple[int, int]) -> np.ndarray:
        self[key] = render(self.pdf, *key)
        return self[key]

    def found(self, page: int) -> dict[int, np.ndarray]:
        """DICT_4X4_250 markers detected on ``page`` at DETECT_DPI (corners in its pixels)."""
        if page not in self._found:
            self._found[page] = detect(self[page, DETECT_DPI])
        return self._found[page]


@pytest.fixture(scope="module")
def a4_pages(a4_kit: pdfium.PdfDocument) -> _Rasters:
    return _Rasters(a4_kit)


# -- the corner page --------------------------------------------------------------------
def test_corner_page_holds_ids_0_to_3_laid_out_as_on_the_table(a4_pages, a4_kit) -> None:
    found = a4_pages.found(0)
    assert sorted(found) == [0, 1, 2, 3]
    centre = {i: c.mean(axis=0) for i, c in found.items()}
    assert centre[0][0] < centre[1][0] and centre[0][1] < centre[3][1]  # 0 top-left
    assert centre[2][0] > centre[3][0] and centre[2][1] > centre[1][1]  # 2 bottom-right
    for corners in found.values():  # all upright: OpenCV's corner 0 is the top-left one
        assert int(np.argmin(corners.sum(axis=1))) == 0
    for marker_id, name in [(0, "TOP-LEFT"), (1, "TOP-RIGHT"), (2, "BOTTOM-RIGHT"), (3, "BOTTOM-LEFT")]:
        label = text_below(a4_kit, 0, found[marker_id], DETECT_DPI, depth_mm=22)
        assert f"Marker {marker_id}: {name} corner" in label


@pytest.mark.parametrize("paper", ["a4", "letter"])
def test_corner_markers_measure_60_mm(tmp_path: Path, paper: str) -> None:
    pdf = pdfium.PdfDocument(make_kit(tmp_path, "--paper", paper, "--ids", "4-10"))
    found = detect(render(pdf, 0, DETECT_DPI))
    fine = render(pdf, 0, MEASURE_DPI)
    scale = MEASURE_DPI / DETECT_DPI
    for marker_id in range(4):
        width, height = marker_size_mm(fine, found[marker_id] * scale, MEASURE_DPI, modules=6, margin_mm=5)
        assert width == pytest.approx(60.0, abs=SIZE_TOLERANCE_MM)
        assert height == pytest.approx(60.0, abs=SIZE_TOLERANCE_MM)


def test_corner_markers_have_a_quiet_zone_of_one_module(a4_pages) -> None:
    image = a4_pages[0, DETECT_DPI]
    px = DETECT_DPI / 25.4
    quiet = int(9.5 * px)  # one 10 mm module, less a little for the dashed cut line
    for corners in a4_pages.found(0).values():
        (x0, y0), (x1, y1) = corners.min(0).astype(int), corners.max(0).astype(int)
        around = image[y0 - quiet:y1 + quiet, x0 - quiet:x1 + quiet]
        margin = np.ones(around.shape, bool)
        margin[quiet - 2:-quiet + 2, quiet - 2:-quiet + 2] = False  # the black square itself
        assert around[margin].min() > 200  # nothing printed round the black square


# -- base marker sheets -----------------------------------------------------------------------
def test_first_sheet_holds_the_ids_its_header_names_starting_at_4(a4_pages, a4_kit) -> None:
    header = re.search(r"ids (\d+)-(\d+) \(sheet 1 of (\d+)\)", page_text(a4_kit, 1))
    assert header is not None
    first, last, sheets = map(int, header.groups())
    assert first == 4 and sheets == 2
    assert sorted(a4_pages.found(1)) == list(range(4, last + 1))


def test_all_sheets_together_hold_ids_4_to_249_once(a4_pages, a4_kit) -> None:
    kinds = [page_text(a4_kit, i).splitlines()[0] for i in range(len(a4_kit))]
    sheets = [i for i, title in enumerate(kinds) if title.startswith("Base markers 12 mm")]
    assert sheets == [1, 2]
    ids: list[int] = []
    for page in sheets:
        ids += a4_pages.found(page)
    assert sorted(ids) == list(range(4, 250))


def test_base_markers_measure_12_mm(a4_pages) -> None:
    found = a4_pages.found(1)
    fine = a4_pages[1, MEASURE_DPI]
    scale = MEASURE_DPI / DETECT_DPI
    for marker_id in (4, 17, 60, 135):
        width, height = marker_size_mm(fine, found[marker_id] * scale, MEASURE_DPI, modules=6, margin_mm=1)
        assert width == pytest.approx(12.0, abs=SIZE_TOLERANCE_MM)
        assert height == pytest.approx(12.0, abs=SIZE_TOLERANCE_MM)


def test_base_size_option_prints_that_size(tmp_path: Path) -> None:
    pdf = pdfium.PdfDocument(make_kit(tmp_path, "--ids", "30-40", "--base-size-mm", "16"))
    found = detect(render(pdf, 1, DETECT_DPI))
    assert sorted(found) == list(range(30, 41))
    width, height = marker_size_mm(render(pdf, 1, MEASURE_DPI), found[33] * MEASURE_DPI / DETECT_DPI,
                                   MEASURE_DPI, modules=6, margin_mm=1)
    assert (width, height) == (pytest.approx(16.0, abs=SIZE_TOLERANCE_MM),) * 2


@pytest.mark.parametrize("dictionary", ["DICT_7X7_1000", "DICT_ARUCO_ORIGINAL", "DICT_APRILTAG_36h11"])
def test_other_dictionaries_print_detectable_markers(tmp_path: Path, dictionary: str) -> None:
    pdf = pdfium.PdfDocument(make_kit(tmp_path, "--dictionary", dictionary, "--ids", "4-30"))
    code = getattr(cv2.aruco, dictionary)
    assert sorted(detect(render(pdf, 0, DETECT_DPI), code)) == [0, 1, 2, 3]
    assert sorted(detect(render(pdf, 1, DETECT_DPI), code)) == list(range(4, 31))


def test_setup_file_sets_dictionary_and_sizes(tmp_path: Path) -> None:
    setup = tmp_path / "setup.json"
    setup.write_text(json.dumps({
        "table": {"width_mm": 900, "depth_mm": 900},
        "markers": {"dictionary": "DICT_5X5_250", "corner_size_mm": 80, "base_size_mm": 14,
                    "per_marker": {"17": {"offset_mm": 5, "size_mm": 20}}},
    }), encoding="utf-8")
    pdf = pdfium.PdfDocument(make_kit(tmp_path, "--setup", str(setup), "--ids", "4-40"))
    titles = [page_text(pdf, i).splitlines()[0] for i in range(len(pdf))]
    assert titles[:4] == ["Table corner markers 0-3: 80 mm, DICT_5X5_250"] * 4  # too big for 2 x 2
    assert titles[4:6] == ["Base markers 14 mm, DICT_5X5_250: ids 4-16, 18-40 (sheet 1 of 1)",
                           "Base markers 20 mm, DICT_5X5_250: id 17 (sheet 1 of 1)"]
    code = cv2.aruco.DICT_5X5_250
    for page, marker_id, size_mm in [(0, 0, 80.0), (3, 3, 80.0), (4, 4, 14.0), (4, 40, 14.0), (5, 17, 20.0)]:
        found = detect(render(pdf, page, DETECT_DPI), code)
        assert marker_id in found
        measured = marker_size_mm(render(pdf, page, MEASURE_DPI), found[marker_id] * MEASURE_DPI / DETECT_DPI,
                                  MEASURE_DPI, modules=7, margin_mm=1)
        assert measured == (pytest.approx(size_mm, abs=SIZE_TOLERANCE_MM),) * 2


def test_command_line_options_win_over_the_setup_file(tmp_path: Path, capsys) -> None:
    setup = tmp_path / "setup.json"
    setup.write_text('{"table": {"width_mm": 600, "depth_mm": 600}, "markers": {"base_size_mm": 16}}')
    make_kit(tmp_path, "--setup", str(setup), "--base-size-mm", "10", "--ids", "4-9")
    assert "6 base markers of 10 mm (ids 4-9), DICT_4X4_250" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (None, r"nope\.json: cannot read the setup file"),
        ('{"table": {"width_mm": 600}}', r"nope\.json: table\.depth_mm is missing"),
        ('{"table": {"width_mm": 600, "depth_mm": 600}, "markers": {"corner_size_mm": 200}}',
         r"corner markers must be from 30 to 140 mm, got 200"),
        ('{"table": {"width_mm": 600, "depth_mm": 600}, "markers": {"per_marker": {"9": {"size_mm": 90}}}}',
         r"marker 9's size must be from 5 to 80 mm, got 90"),
    ],
)
def test_bad_setup_file_is_a_clean_error(tmp_path: Path, capsys, content: str | None, message: str) -> None:
    setup = tmp_path / "nope.json"
    if content is not None:
        setup.write_text(content, encoding="utf-8")
    assert cli.main(["markers", "--out", str(tmp_path / "k.pdf"), "--setup", str(setup)]) == 2
    err = capsys.readouterr().err
    assert re.search(message, err) and "Traceback" not in err


def test_each_base_marker_has_quiet_zone_arrow_above_and_id_below(a4_pages, a4_kit) -> None:
    image = a4_pages[1, MEASURE_DPI]
    px = MEASURE_DPI / 25.4
    found = a4_pages.found(1)
    for marker_id in (4, 5, 40, 100):
        corners = found[marker_id] * MEASURE_DPI / DETECT_DPI
        assert int(np.argmin(corners.sum(axis=1))) == 0  # upright: the top edge is the arrowed one
        (x0, y0), (x1, y1) = corners.min(0), corners.max(0)
        cx, cy = int((x0 + x1) / 2), int((y0 + y1) / 2)
        column = image[:, cx]
        edge = int(0.3 * px)  # leeway for the detector's corners
        quiet = column[int(y0 - 1.9 * px):int(y0) - edge]
        arrow = column[int(y0 - 3.6 * px):int(y0 - 2.0 * px)]
        assert quiet.min() > 200, "the 2 mm above the marker must be white"
        assert arrow.min() < 80, "an arrow must mark the top edge above the quiet zone"
        for strip in (column[int(y1) + edge:int(y1 + 1.9 * px)],
                      image[cy, int(x0 - 1.9 * px):int(x0) - edge],
                      image[cy, int(x1) + edge:int(x1 + 1.9 * px)]):
            assert strip.min() > 200, "quiet zone below, left and right"
        assert text_below(a4_kit, 1, corners, MEASURE_DPI, depth_mm=5) == str(marker_id)


def test_cut_lines_are_thin_grey_lines_between_cells(a4_pages) -> None:
    image = a4_pages[1, MEASURE_DPI]
    px = MEASURE_DPI / 25.4
    found = a4_pages.found(1)
    left = found[4] * MEASURE_DPI / DETECT_DPI
    right = found[5] * MEASURE_DPI / DETECT_DPI
    y = int(left[:, 1].mean())
    edge = int(0.3 * px)  # leeway for the detector's corners
    gap = image[y, int(left[:, 0].max()) + edge:int(right[:, 0].min()) - edge]
    assert len(gap) + 2 * edge == pytest.approx(4 * px, abs=0.3 * px)  # two 2 mm quiet zones
    dark = np.flatnonzero(gap < 235)
    assert dark.size and dark.size < 0.3 * px  # one line under 0.3 mm wide
    assert abs(dark.mean() - len(gap) / 2) < 0.2 * px  # in the middle
    assert 60 < gap.min() < 200  # grey, not black


# -- the ChArUco page -------------------------------------------------------------------------------
def opencv_kit_board() -> cv2.aruco.CharucoBoard:
    return cv2.aruco.CharucoBoard((7, 5), 30.0, 22.0, cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_5X5_100))


def test_charuco_board_is_detected_with_every_corner(a4_pages, a4_kit) -> None:
    page = len(a4_kit) - 1
    detector = cv2.aruco.CharucoDetector(opencv_kit_board())
    corners, ids, marker_corners, marker_ids = detector.detectBoard(a4_pages[page, DETECT_DPI])
    assert sorted(marker_ids.ravel().tolist()) == list(range(17))
    assert sorted(ids.ravel().tolist()) == list(range(24))
    text = page_text(a4_kit, page)
    assert "7 x 5 squares of 30 mm, markers 22 mm, DICT_5X5_100" in text
    assert (KIT_BOARD.squares_x, KIT_BOARD.squares_y, KIT_BOARD.square_mm) == (7, 5, 30.0)


def test_charuco_squares_measure_30_mm(a4_pages, a4_kit) -> None:
    page = len(a4_kit) - 1
    detector = cv2.aruco.CharucoDetector(opencv_kit_board())
    corners, ids, _, _ = detector.detectBoard(a4_pages[page, DETECT_DPI])  # sub-pixel corners
    by_id = {int(i): c for i, c in zip(ids.ravel(), corners.reshape(-1, 2))}
    steps = [np.linalg.norm(by_id[i + 1] - by_id[i]) for i in range(24) if (i + 1) % 6]  # 6 per row
    assert np.mean(steps) * 25.4 / DETECT_DPI == pytest.approx(30.0, abs=SIZE_TOLERANCE_MM)
    # The black square at the board's top-left ends at inner corner 0, 30 mm from the board's edge.
    image = a4_pages[page, MEASURE_DPI]
    x, y = by_id[0] * MEASURE_DPI / DETECT_DPI
    px = MEASURE_DPI / 25.4
    width = row_width_mm(image, y - 15 * px, x - 33 * px, x + 3 * px, MEASURE_DPI)
    height = row_width_mm(image.T, x - 15 * px, y - 33 * px, y + 3 * px, MEASURE_DPI)
    assert (width, height) == (pytest.approx(30.0, abs=SIZE_TOLERANCE_MM),) * 2


# -- every page -------------------------------------------------------------------------------------
def test_every_page_has_a_100_mm_check_bar(a4_pages, a4_kit) -> None:
    px = MEASURE_DPI / 25.4
    for page in range(len(a4_kit)):
        assert "This bar must measure 100 mm" in page_text(a4_kit, page)
        assert "Print at 100 %, no fit-to-page" in page_text(a4_kit, page)
    image = a4_pages[1, MEASURE_DPI]
    runs = [(run.max() - run.min(), y, run.min(), run.max()) for y, run in _dark_runs(image, 90 * px)]
    _, y, start, end = max(runs)  # the longest black run on the page: through the bar
    width = row_width_mm(image, y, start - 20, end + 20, MEASURE_DPI)
    assert width == pytest.approx(100.0, abs=SIZE_TOLERANCE_MM)


def _dark_runs(image: np.ndarray, min_px: float):
    """Yield (row, columns of one contiguous dark run) for runs longer than ``min_px``."""
    for y in np.flatnonzero((image < 128).sum(axis=1) > min_px):
        dark = np.flatnonzero(image[y] < 128)
        for run in np.split(dark, np.flatnonzero(np.diff(dark) > 1) + 1):
            if len(run) > min_px:
                yield int(y), run


@pytest.mark.parametrize(
    ("paper", "portrait_pt"),
    [("a4", A4_PT), ("letter", LETTER_PT), ("LETTER", LETTER_PT)],
)
def test_paper_sizes(tmp_path: Path, paper: str, portrait_pt: tuple[float, float]) -> None:
    pdf = pdfium.PdfDocument(make_kit(tmp_path, "--paper", paper))
    sizes = [pdf[i].get_size() for i in range(len(pdf))]
    assert len(sizes) == 4  # corners, two sheets of base markers, ChArUco
    for w, h in sizes[:-1]:
        assert (w, h) == (pytest.approx(portrait_pt[0], abs=0.01), pytest.approx(portrait_pt[1], abs=0.01))
    w, h = sizes[-1]  # the board page is landscape
    assert (w, h) == (pytest.approx(portrait_pt[1], abs=0.01), pytest.approx(portrait_pt[0], abs=0.01))


# -- bad input ------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--paper", "a3"], "unknown paper 'a3'; use one of a4, letter"),
        (["--ids", "0-10"], "ids 0-3 are the table corners"),
        (["--ids", "20-10"], "runs backwards"),
        (["--ids", "4-x"], "expected ids like 4-249"),
        (["--ids", ""], "expected ids like 4-249"),
        (["--ids", "4-250"], "the dictionary holds ids 0-249"),
        (["--dictionary", "DICT_4X4_50", "--ids", "4-60"], "the dictionary holds ids 0-49"),
        (["--dictionary", "DICT_9X9"], "unknown ArUco dictionary 'DICT_9X9'"),
        (["--base-size-mm", "3"], "--base-size-mm must be from 5 to 80 mm"),
    ],
)
def test_bad_options_exit_2_with_one_clear_line(tmp_path: Path, capsys, args: list[str], message: str) -> None:
    out = tmp_path / "kit.pdf"
    assert cli.main(["markers", "--out", str(out), *args]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err and len(err.strip().splitlines()) == 1
    assert not out.exists()


def test_unwritable_output_is_a_clean_error(tmp_path: Path, capsys) -> None:
    assert cli.main(["markers", "--out", str(tmp_path / "missing" / "kit.pdf")]) == 2
    assert "cannot write" in capsys.readouterr().err


def test_success_message_says_what_was_written(tmp_path: Path, capsys) -> None:
    make_kit(tmp_path, "--ids", "4-20,30", "--dictionary", "DICT_4X4_50")
    out = capsys.readouterr().out
    assert "3 pages" in out and "18 base markers of 12 mm (ids 4-20, 30)" in out and "100 %" in out


# -- the sheets' words ------------------------------------------------------------------------------------
def _sheet_fragments(lang: str) -> set[str]:
    """The fixed words of the sheets' captions in ``lang`` (between their ``{fields}``), long enough to tell."""
    captions = {k: v for k, v in i18n.catalogue(lang).items() if k.startswith("kit.sheet.")}
    assert len(captions) >= 15, captions
    return {p.strip(" ,;:().") for text in captions.values() for p in re.split(r"\{[^{}]*\}", text)
            if len(p.strip(" ,;:().")) >= 12}


@pytest.mark.parametrize(("env", "lang", "other"), [("fr_FR.UTF-8", "fr", "en"), ("en_GB.UTF-8", "en", "fr")])
def test_the_sheets_captions_are_in_the_users_language(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                       env: str, lang: str, other: str) -> None:
    monkeypatch.setenv("LANG", env)
    monkeypatch.delenv("LC_ALL", raising=False)
    monkeypatch.delenv("LC_MESSAGES", raising=False)
    pdf = pdfium.PdfDocument(make_kit(tmp_path, "--ids", "4-140", "--paper", "letter"))
    text = " ".join(page_text(pdf, page).replace("\r\n", " ") for page in range(len(pdf)))
    mine, theirs = _sheet_fragments(lang), _sheet_fragments(other)
    assert sorted(f for f in theirs - mine if f in text) == []  # no caption in the other language
    missing = sorted(f for f in mine if f not in text and "marker" not in f.lower() and "marqueur" not in f.lower())
    assert missing == []  # every caption on the sheets, in the user's language (corner labels checked below)
    corner = i18n.render("kit.sheet.corner_2", {"id": 2}, lang)
    assert corner and corner in text and ("BOTTOM-RIGHT" in text) == (lang == "en")


def test_every_caption_on_the_sheets_goes_through_their_words(monkeypatch: pytest.MonkeyPatch) -> None:
    """A caption drawn without a message (English whatever the user's language) fails here: only figures
    (ids, the check bar's scale) are drawn as they are."""
    drawn: list[str] = []
    original = PdfCanvas.text

    def record(self: PdfCanvas, x_mm: float, y_mm: float, text: str, **kwargs: Any) -> None:
        drawn.append(text)
        original(self, x_mm, y_mm, text, **kwargs)

    monkeypatch.setattr(PdfCanvas, "text", record)
    said: list[Said] = []
    kit = build_kit(KitOptions(base_ids=(4, 5, 9), size_overrides_mm=((9, 20.0),)),
                    lambda caption: said.append(caption) or f"<{len(said) - 1}>")
    bare = [t for t in drawn if not re.fullmatch(r"<\d+>", t)]
    assert bare and all(re.fullmatch(r"\d+( mm)?", t) for t in bare), bare
    assert re.fullmatch(r"<\d+>", kit.canvas.title)  # the document's title too
    ids = {s.msg_id for s in said}
    assert {"kit.sheet.bar", "kit.sheet.corner_0", "kit.sheet.bases_title", "kit.sheet.bases_title_one",
            "kit.sheet.board_check", "kit.sheet.pdf_title"} <= ids
    for caption in said:  # each one worded in both languages, the English catalogue saying what the code says
        assert i18n.render(caption.msg_id, caption.params, "en") == str(caption), caption.msg_id
        fr = i18n.render(caption.msg_id, caption.params, "fr")
        assert fr and fr != str(caption), caption.msg_id


@pytest.mark.parametrize("paper", ["a4", "letter"])
@pytest.mark.parametrize("corner_mm", [30.0, 40.0, 60.0, 90.0, 140.0])
@pytest.mark.parametrize("lang", ["fr", "en"])
def test_every_caption_fits_its_place_in_either_language(monkeypatch: pytest.MonkeyPatch, lang: str,
                                                          corner_mm: float, paper: str) -> None:
    """No caption runs off the page's margins or into another, whatever the language and the corner markers' size
    (the longer French labels and hints are set smaller or on two lines where the markers sit close)."""
    boxes: list[tuple[int, float, float, float, float, str]] = []  # page, left, right, cap top, baseline, text
    original = PdfCanvas.text

    def record(self: PdfCanvas, x_mm: float, y_mm: float, text: str, *, size_pt: float = 9.0,
               align: str = "left", **kwargs: Any) -> None:
        width = text_width_mm(text, size_pt)
        left = x_mm - {"left": 0.0, "center": 0.5, "right": 1.0}[align] * width
        boxes.append((self.page_count - 1, left, left + width, y_mm - 0.72 * size_pt * MM_PER_PT, y_mm, text))
        original(self, x_mm, y_mm, text, size_pt=size_pt, align=align, **kwargs)

    monkeypatch.setattr(PdfCanvas, "text", record)
    kit = build_kit(KitOptions(paper=paper, base_ids=(4, 5, 9, 10), corner_size_mm=corner_mm,
                               size_overrides_mm=((9, 20.0), (10, 20.0))),
                    lambda caption: i18n.render(caption.msg_id, caption.params, lang) or "")
    for n, page in enumerate(kit.pages):
        mine = [b for b in boxes if b[0] == n]
        assert mine and all(page.width_mm - 10.0 + 0.01 >= right and left >= 10.0 - 0.01 and top >= 0
                            and base <= page.height_mm - 10.0 for _, left, right, top, base, _ in mine), (n, mine)
        for i, a in enumerate(mine):
            for b in mine[i + 1:]:
                apart = a[2] <= b[1] or b[2] <= a[1] or a[4] <= b[3] or b[4] <= a[3]
                assert apart, (n, a[5], b[5])


# -- library ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("text", "expected", "exception"),
    [
        ("4-249", tuple(range(4, 250)), nullcontext()),
        ("4", (4,), nullcontext()),
        ("10-12, 4,11", (4, 10, 11, 12), nullcontext()),
        ("249", (249,), nullcontext()),
        ("3", None, pytest.raises(KitError, match="table corners")),
        ("250", None, pytest.raises(KitError, match="holds ids 0-249")),
        ("4--6", None, pytest.raises(KitError, match="expected ids like")),
        ("-4", None, pytest.raises(KitError, match="expected ids like")),
        ("4,", None, pytest.raises(KitError, match="expected ids like")),
    ],
)
def test_parse_id_ranges(text: str, expected, exception) -> None:
    with exception:
        assert parse_id_ranges(text, dictionary_size=250) == expected


@pytest.mark.parametrize(
    ("options", "exception"),
    [
        (KitOptions(), nullcontext()),
        (KitOptions(paper="legal"), pytest.raises(KitError, match="unknown paper 'legal'")),
        (KitOptions(base_ids=()), pytest.raises(KitError, match="no base marker ids")),
        (KitOptions(base_ids=(2, 5)), pytest.raises(KitError, match=r"from 4 to 249.*\[2\]")),
        (KitOptions(base_size_mm=81), pytest.raises(KitError, match="from 5 to 80")),
        (KitOptions(base_size_mm=float("nan")), pytest.raises(KitError, match="from 5 to 80")),
        (KitOptions(dictionary="DICT_4X4_50", base_ids=(49,)), nullcontext()),
        (KitOptions(dictionary="DICT_4X4_50", base_ids=(50,)), pytest.raises(KitError, match=r"from 4 to 49")),
        (KitOptions(corner_size_mm=29), pytest.raises(KitError, match="corner markers must be from 30 to 140")),
        (KitOptions(corner_size_mm=140), nullcontext()),
        (KitOptions(size_overrides_mm=((17, 4.0),)), pytest.raises(KitError, match="marker 17's size")),
        (KitOptions(size_overrides_mm=((17, 20.0),)), nullcontext()),
    ],
)
def test_validate(options: KitOptions, exception) -> None:
    with exception:
        assert validate(options) is options


@pytest.mark.parametrize("marker_id", [0, 3, 4, 17, 249])
def test_marker_modules_match_the_dictionary_bits(marker_id: int) -> None:
    d = cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_250)
    bits = cv2.aruco.Dictionary.getBitsFromByteList(d.bytesList[marker_id:marker_id + 1], 4)
    modules = marker_modules("DICT_4X4_250", marker_id)
    assert modules.shape == (6, 6) and not modules.flags.writeable
    assert modules[0].all() and modules[-1].all() and modules[:, 0].all() and modules[:, -1].all()
    np.testing.assert_array_equal(modules[1:-1, 1:-1], bits == 0)  # bit 1 is white


def test_kit_records_where_each_marker_went() -> None:
    kit = build_kit(KitOptions(paper="letter", base_ids=(4, 5, 6)))
    assert [m.marker_id for m in kit.markers if m.dictionary == "DICT_4X4_250"] == [0, 1, 2, 3, 4, 5, 6]
    assert {m.size_mm for m in kit.markers[:4]} == {60.0}
    assert len([m for m in kit.markers if m.dictionary == "DICT_5X5_100"]) == 17
    assert [p.kind for p in kit.pages] == ["corners", "bases", "charuco"]
    assert format_id_ranges([m.marker_id for m in kit.markers[4:7]]) == "4-6"


# -- the PDF writer -----------------------------------------------------------------------------------------
def test_pdf_cross_reference_table_points_at_each_object() -> None:
    canvas = PdfCanvas(title="t")
    canvas.page(100, 50)
    canvas.rect(10, 10, 20, 20)
    canvas.page(50, 100)
    canvas.text(5, 20, "hello")
    data = canvas.to_bytes()
    startxref = int(data.rsplit(b"startxref\n", 1)[1].split(b"\n")[0])
    assert data[startxref:].startswith(b"xref\n0 ")
    lines = data[startxref:].split(b"\n")
    count = int(lines[1].split()[1])
    for number, entry in enumerate(lines[3:2 + count], start=1):
        assert len(entry) + 1 == 20  # fixed-width entries, newline included
        offset = int(entry[:10])
        assert data[offset:].startswith(b"%d 0 obj\n" % number)
    assert b"/Size %d" % count in data


def test_pdf_text_and_rect_land_where_asked(tmp_path: Path) -> None:
    canvas = PdfCanvas()
    canvas.page(100, 60)
    canvas.rect(20, 10, 30, 5)
    canvas.text(20, 40, "a (b) \\ c", size_pt=12)
    path = tmp_path / "t.pdf"
    canvas.write(path)
    pdf = pdfium.PdfDocument(path)
    assert pdf[0].get_size() == (pytest.approx(100 / MM_PER_PT, abs=1e-3), pytest.approx(60 / MM_PER_PT, abs=1e-3))
    assert page_text(pdf, 0).strip() == "a (b) \\ c"
    image = render(pdf, 0, 254)  # 10 px per mm
    ys, xs = np.nonzero(image[:300] < 128)
    assert (xs.min(), xs.max() + 1, ys.min(), ys.max() + 1) == (
        pytest.approx(200, abs=1), pytest.approx(500, abs=1), pytest.approx(100, abs=1), pytest.approx(150, abs=1))
    box = pdf[0].get_textpage().get_charbox(0)  # 'a' starts at x = 20 mm
    assert box[0] * MM_PER_PT == pytest.approx(20, abs=0.5)
    assert text_width_mm("a (b) \\ c", 12) > 0


@pytest.mark.parametrize(
    ("call", "exception"),
    [
        (lambda c: c.rect(0, 0, 1, 1), pytest.raises(ValueError, match="call page")),
        (lambda c: c.page(0, 10), pytest.raises(ValueError, match="must be positive")),
        (lambda c: (c.page(10, 10), c.polygon([(0, 0), (1, 1)])), pytest.raises(ValueError, match="3 points")),
        (lambda c: (c.page(10, 10), c.text(0, 0, "x", align="middle")), pytest.raises(ValueError, match="align")),
        (lambda c: (c.page(10, 10), c.text(0, 5, "x", align="right")), nullcontext()),
    ],
)
def test_pdf_canvas_refuses_misuse(call, exception) -> None:
    with exception:
        call(PdfCanvas())
