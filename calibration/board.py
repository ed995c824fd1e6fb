"""The kit's ChArUco board for camera calibration: one definition for the PDF and the solver.

Its markers come from a dictionary other than the table's (``DICT_4X4_250``) so a
board left on the table is never taken for a model.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class BoardSpec:
    """A ChArUco board: ``squares_x`` x ``squares_y`` squares of ``square_mm``."""

    squares_x: int = 7
    squares_y: int = 5
    square_mm: float = 30.0
    marker_mm: float = 22.0
    dictionary: str = "DICT_5X5_100"

    @property
    def width_mm(self) -> float:
        return self.squares_x * self.square_mm

    @property
    def height_mm(self) -> float:
        return self.squares_y * self.square_mm


KIT_BOARD = BoardSpec()
