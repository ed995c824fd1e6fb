"""calibrate's warning about rim colours the camera cannot tell from the mat or border (issue 9)."""

from __future__ import annotations

import numpy as np

from calibration.setup import parse_setup
from tracker.markers import ScaledPlane
from tracker.rimcheck import delta_e, hex_bgr, rim_colour_warnings

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
    return parse_setup({"table": {"width_mm": 600, "depth_mm": 600}, "bases": {"sides": sides}})


def test_a_rim_the_colour_of_the_border_is_named_with_a_colour_that_works() -> None:
    image = _table(mat=(60, 110, 80), border=(228, 230, 230))          # green mat, white border
    warnings = rim_colour_warnings(image, Shifted(PX_PER_MM), _setup({"white": "#e8e8e8", "red": "#c0392b"}))
    assert len(warnings) == 1
    text = warnings[0]
    assert text.startswith("side white's rim colour #e8e8e8 is too close to the table's border")
    suggested = text.split("rim (")[1].split(")")[0]
    for background in ((60, 110, 80), (228, 230, 230), hex_bgr("#c0392b")):
        assert delta_e(hex_bgr(suggested), background) >= 25


def test_a_rim_close_to_the_mat_or_to_the_other_side_is_reported() -> None:
    image = _table(mat=(40, 60, 170), border=(40, 70, 110))            # a red mat on a wooden table
    warnings = rim_colour_warnings(image, Shifted(PX_PER_MM), _setup({"red": "#c0392b", "rust": "#b03a30"}))
    assert any("side red's" in w and "the mat" in w and "side rust's rim" in w for w in warnings)


def test_colours_that_stand_apart_give_no_warning() -> None:
    image = _table(mat=(60, 110, 80), border=(45, 75, 110))
    assert rim_colour_warnings(image, Shifted(PX_PER_MM), _setup({"red": "#c0392b", "blue": "#2e6fd8"})) == []
