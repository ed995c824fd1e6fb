"""calibrate's warning about rim colours the camera cannot tell from the mat or border (issue 9)."""

from __future__ import annotations

import cv2
import numpy as np

from calibration.setup import parse_setup
from tabletracker.i18n import render
from tracker.markers import ScaledPlane
from tracker.rimcheck import as_seen, delta_e, hex_bgr, rim_colour_warnings, white_balance

PX_PER_MM = 1.0


def _table(mat: tuple[int, int, int], border: tuple[int, int, int]) -> np.ndarray:
    img = np.zeros((700, 700, 3), np.uint8)
    img[...] = border
    img[50:650, 50:650] = mat
    return img


class Shifted(ScaledPlane):
    """The table's origin 50 px into the image."""

    def to_image_px(self, points_mm: np.ndarray, *, height_mm: float = 0.0) -> np.ndarray:
        return super().to_image_px(points_mm) + 50.0

    def to_table_mm(self, points_px: np.ndarray, *, height_mm: float = 0.0) -> np.ndarray:
        return super().to_table_mm(np.asarray(points_px, float) - 50.0)


def _setup(sides: dict[str, str]):  # type: ignore[no-untyped-def]
    return parse_setup({"table": {"width_mm": 600, "depth_mm": 600}, "markers": {"base_height_mm": 0.0},
                        "bases": {"sides": sides}})


def _words(image: np.ndarray, sides: dict[str, str], lang: str = "en", px_per_mm: float = PX_PER_MM) -> list[str]:
    out = []
    for w in rim_colour_warnings(image, Shifted(px_per_mm), _setup(sides)):
        text = render(w["msg"], w["params"], lang)
        assert text is not None and "{" not in text and "rims." not in text, w
        out.append(text)
    return out


def test_a_rim_the_colour_of_the_border_is_named_with_a_colour_that_works() -> None:
    image = _table(mat=(60, 110, 80), border=(228, 230, 230))          # green mat, white border
    warnings = _words(image, {"white": "#e8e8e8", "red": "#c0392b"})
    assert len(warnings) == 1
    text = warnings[0]
    assert text.startswith("side white's rim colour #e8e8e8 shows as #e8e8e8 in this frame: too close to the "
                           "table's border")
    suggested = text.split("rim (")[1].split(")")[0]
    for background in ((60, 110, 80), (228, 230, 230), hex_bgr("#c0392b")):
        assert delta_e(hex_bgr(suggested), background) >= 25


def test_a_rim_close_to_the_mat_or_to_the_other_side_is_reported() -> None:
    image = _table(mat=(40, 60, 170), border=(40, 70, 110))            # a red mat on a wooden table
    warnings = _words(image, {"red": "#c0392b", "rust": "#b03a30"})
    assert any("side red's" in w and "the mat" in w and "side rust's rim" in w for w in warnings)


def test_colours_that_stand_apart_give_no_warning() -> None:
    image = _table(mat=(60, 110, 80), border=(45, 75, 110))
    assert _words(image, {"red": "#c0392b", "blue": "#2e6fd8"}) == []


MAT = (76, 140, 113)           # BGR: a green mat as a dev scene's camera sees it
SEEN = (99, 170, 139)          # a thin green rim on it, as that frame shows it: lighter, paler
PAINT = (60, 165, 55)          # the green rim's paint (#37a53c), 35 Delta E from the mat


def _faint_green_base(image: np.ndarray, x_mm: float, y_mm: float, px_per_mm: float) -> None:
    """A 25 mm base whose rim band shows the pale green, its paint kept in one-pixel dashes on its outline."""
    def pt(x: float, y: float) -> tuple[int, int]:
        return int(round((x * px_per_mm + 50.0) * 16)), int(round((y * px_per_mm + 50.0) * 16))

    cv2.circle(image, pt(x_mm, y_mm), int(round(10 * px_per_mm * 16)), (55, 65, 80), -1, cv2.LINE_AA, shift=4)
    cv2.circle(image, pt(x_mm, y_mm), int(round(11.25 * px_per_mm * 16)), SEEN, int(round(2.5 * px_per_mm)),
               cv2.LINE_AA, shift=4)
    r = int(round(12.2 * px_per_mm * 16))
    for start in range(0, 360, 30):
        cv2.ellipse(image, pt(x_mm, y_mm), (r, r), 0, start, start + 15, PAINT, 1, cv2.LINE_AA, shift=4)


def test_a_rim_its_bases_show_near_the_mat_is_reported_though_its_paint_stands_apart() -> None:
    """The dev scene medium-2900's case: the paint stands 35 from the mat, the rim as the frame shows
    it on the side's base about 12: warned, in English and in French, with a colour that stands apart."""
    px = 1.5
    image = np.full((1000, 1000, 3), (45, 75, 110), np.uint8)          # a wooden border
    image[50:950, 50:950] = MAT
    _faint_green_base(image, 300.0, 300.0, px)
    sides = {"green": "#37a53c", "blue": "#1e5abe"}
    assert delta_e(PAINT, MAT) > 25 > delta_e(SEEN, MAT)
    (text,) = _words(image, sides, px_per_mm=px)
    assert text.startswith("side green's rim colour #37a53c shows as #")
    assert "too close to the mat (colour difference" in text
    suggested = text.split("rim (")[1].split(")")[0]
    for background in (MAT, (45, 75, 110), hex_bgr("#1e5abe")):
        assert delta_e(hex_bgr(suggested), background) >= 25
    (texte,) = _words(image, sides, "fr", px_per_mm=px)
    assert texte.startswith("la bordure des socles du camp green (#37a53c) apparaît #")
    assert "trop proche du tapis (écart de couleur" in texte and "s'en distinguerait" in texte
    # without the base, the paint alone is measured: it stands apart
    plain = np.full((1000, 1000, 3), (45, 75, 110), np.uint8)
    plain[50:950, 50:950] = MAT
    assert _words(plain, sides, px_per_mm=px) == []


def test_the_white_balance_is_read_on_the_corner_markers() -> None:
    """Paper and ink of the four corner markers (their cells known from their ids): a bluish cast is
    measured, and a paint is seen through it."""
    setup = _setup({"red": "#c0392b", "blue": "#2e6fd8"})
    image = _table(mat=(60, 110, 80), border=(45, 75, 110))
    ink, paper = np.array([30.0, 25.0, 20.0]), np.array([235.0, 215.0, 190.0])     # BGR: bluish paper
    dictionary = cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_250)
    for mid, (x, y) in enumerate(((0, 0), (540, 0), (540, 540), (0, 540))):
        cells = dictionary.generateImageMarker(mid, 6) > 127
        square = np.where(np.kron(cells, np.ones((10, 10), bool))[..., None], paper, ink).astype(np.uint8)
        image[50 + y:110 + y, 50 + x:110 + x] = square
    measured = white_balance(image, Shifted(PX_PER_MM), setup)
    assert measured is not None
    assert np.allclose(measured[0], ink, atol=1.0) and np.allclose(measured[1], paper, atol=1.0)
    assert np.allclose(as_seen((255, 255, 255), measured), paper, atol=1.0)
    assert np.allclose(as_seen((0, 0, 0), measured), ink, atol=1.0)
    assert white_balance(_table(mat=(60, 110, 80), border=(45, 75, 110)), Shifted(PX_PER_MM), setup) is None


def test_the_rim_catalogue_has_every_message_in_both_languages() -> None:
    from tabletracker.i18n import LOCALE_DIR
    from tracker.rimcheck import SUGGESTIONS

    def ids(lang: str) -> set[str]:
        text = (LOCALE_DIR / f"{lang}.rims.po").read_text(encoding="utf-8")
        return {line.split('"')[1] for line in text.splitlines() if line.startswith('msgid "') and line != 'msgid ""'}

    assert ids("fr") == ids("en")
    assert {f"rims.colour.{name}" for name, _ in SUGGESTIONS} <= ids("en")
