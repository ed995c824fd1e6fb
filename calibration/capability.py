"""What a camera and table set-up can do: the smallest marker and base read, the error, the largest table.

:func:`setup_report` answers, for one calibration, the questions a player asks before a
game: will my 12 mm markers be read everywhere, how far off will positions be at the
centre and at the edges, and how large a table could this camera watch.

Examples
--------
>>> import numpy as np
>>> from calibration.camera import CameraIntrinsics
>>> from calibration.setup import parse_setup
>>> from calibration.table import TableCalibration
>>> setup = parse_setup({"table": {"width_mm": 600, "depth_mm": 600}})
>>> cal = TableCalibration(CameraIntrinsics.pinhole(1400.0, (1920, 1080)), rvec=(0.0, 0.0, 0.0),
...                        tvec=(-300.0, -300.0, 900.0), table=setup.table, reprojection_rms_px=0.1)
>>> report = setup_report(cal, setup)
>>> round(report.smallest_marker_mm, 1), report.smallest_base_mm
(10.3, 25.0)
>>> [round(v) for v in report.largest_table_mm]
[702, 702]
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from calibration.setup import BARE_BASE_DIAMETERS_MM, Setup
from calibration.table import TableCalibration

MARKER_MARGIN_MM = 2.0
"""White margin printed round a base marker, each side (what a base must hold besides the marker)."""

REFERENCE_MARKER_MM = 12.0
"""The usual base marker (docs/markers.md), for the largest-table answer."""


def base_for_marker(marker_mm: float, diameters: tuple[float, ...] = BARE_BASE_DIAMETERS_MM) -> float | None:
    """Smallest round base that holds a ``marker_mm`` marker and its margin, turned any way (None: none does).

    >>> base_for_marker(12.0), base_for_marker(16.0), base_for_marker(40.0)
    (25.0, 32.0, None)
    """
    need = (marker_mm + 2 * MARKER_MARGIN_MM) * math.sqrt(2.0)
    fits = [d for d in sorted(diameters) if d >= need]
    return float(fits[0]) if fits else None


@dataclass(frozen=True)
class SetupReport:
    """The answers for one camera and table (see the module docstring)."""

    marker_mm: float
    smallest_marker_px: float
    required_px: float
    smallest_marker_mm: float
    smallest_base_mm: float | None
    error_centre_mm: float
    error_edge_mm: float
    largest_table_mm: tuple[float, float]

    @property
    def markers_readable(self) -> bool:
        """Whether the setup's base markers are large enough everywhere on the table."""
        return self.smallest_marker_px >= self.required_px

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready fields (``calibrate --json``)."""
        return {"base_marker_mm": self.marker_mm, "base_marker_min_px": round(self.smallest_marker_px, 2),
                "required_px": self.required_px, "smallest_marker_mm": round(self.smallest_marker_mm, 1),
                "smallest_base_mm": self.smallest_base_mm,
                "error_centre_mm": round(self.error_centre_mm, 3), "error_edge_mm": round(self.error_edge_mm, 3),
                "largest_table_12mm_markers_mm": [round(v) for v in self.largest_table_mm]}


def setup_report(cal: TableCalibration, setup: Setup, *, trials: int = 60) -> SetupReport:
    """Answer the set-up questions for ``cal`` (markers at the setup's base height)."""
    height = setup.markers.base_height_mm
    marker = setup.markers.base_size_mm
    readable = cal.marker_readability(marker, height_mm=height)
    reference = cal.marker_readability(REFERENCE_MARKER_MM, height_mm=height)
    error = cal.expected_error_mm(height_mm=height, trials=trials)
    smallest = readable.smallest_marker_mm
    return SetupReport(marker, readable.min_side_px, readable.required_px, smallest,
                       base_for_marker(smallest, setup.bases.diameters_mm),
                       error.centre_mm, error.edge_mm, reference.largest_table_mm(cal.table))
