"""Bad input raises its package's root error (issue 11, item 5), still a ValueError for older callers."""

from __future__ import annotations

import numpy as np
import pytest

from calibration.errors import CalibrationPackageError
from server.errors import ServerError
from tabletracker.errors import TabletrackerError
from tracker.errors import TrackerError


def test_unknown_unit_and_bad_ud_are_calibration_errors() -> None:
    from calibration.units import find_unit, length_unit

    with pytest.raises(CalibrationPackageError, match="unknown unit 'furlong'"):
        find_unit("furlong")
    with pytest.raises(CalibrationPackageError, match="ud_mm must be greater than 0") as got:
        length_unit("ud", ud_mm=0.0)
    assert isinstance(got.value, ValueError)


def test_points_in_the_wrong_shape_are_calibration_errors() -> None:
    from calibration.aruco import MarkerDetections
    from calibration.table import _points

    with pytest.raises(CalibrationPackageError, match=r"must have shape \(N, 2\)"):
        _points([[1.0, 2.0, 3.0]], "points_mm")
    with pytest.raises(CalibrationPackageError, match=r"corners_px must have shape \(N, 4, 2\)"):
        MarkerDetections(np.array([17, 18]), np.zeros((1, 4, 2)))


def test_malformed_detections_are_tracker_errors() -> None:
    from tracker.detections import Detections

    with pytest.raises(TrackerError, match=r"marker_ids must be integers"):
        Detections(np.zeros((1, 2)), np.zeros(1, float), np.ones(1), np.zeros((1, 4, 2)))


def test_bad_server_options_are_server_errors() -> None:
    from server.app import create_app
    from server.tracking import source_text

    with pytest.raises(ServerError, match="unknown source kind 'webcam'"):
        source_text({"kind": "webcam"})
    with pytest.raises(ServerError, match="unknown language 'de'") as got:
        create_app({"DEFAULT_LANG": "de"})
    assert isinstance(got.value, TabletrackerError) and isinstance(got.value, ValueError)
