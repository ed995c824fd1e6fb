"""Bad input in the frame loop (issue 9): a frame of another size mid-stream, hidden corners,
a setup putting corner ids in play. A clear message, the last good state kept, no traceback."""

from __future__ import annotations

import pytest

from calibration.errors import SetupFileError
from calibration.setup import parse_setup
from tests.tracker.test_pipeline import PX_PER_MM, SETUP, draw
from tracker.markers import ScaledPlane
from tracker.pipeline import FRAME_SIZE_PATIENCE, Tracker
from tracker.sources import Frame

MODELS = {17: (80.0, 90.0, 30.0), 18: (200.0, 100.0, 200.0)}


def test_a_frame_of_another_size_is_skipped_and_the_state_kept() -> None:
    tracker = Tracker(SETUP, ScaledPlane(PX_PER_MM), base_scan_interval_s=0.0)
    for i in range(3):
        tracker.process(Frame(i, i / 10, draw(MODELS, noise_seed=i)))
    before = tracker.state
    small = draw(MODELS, noise_seed=9)[:400, :500]
    events = tracker.process(Frame(3, 0.3, small))
    assert [e["type"] for e in events] == ["frame_error"]
    assert "500 x 400 px" in events[0]["message"] and "600 x 600 px" in events[0]["message"]
    assert tracker.state == before                            # nothing lost, nothing moved
    assert tracker.process(Frame(4, 0.4, small)) == []         # said once
    events = tracker.process(Frame(5, 0.5, draw(MODELS, noise_seed=5)))
    assert not any(e["type"] in ("hidden", "moved") for e in events)
    assert {m.marker_id for m in tracker.state.models if m.seen} == {17, 18}


def test_a_camera_that_changed_resolution_for_good_is_calibrated_again() -> None:
    calls = []

    def calibrate(image, setup):  # type: ignore[no-untyped-def]
        calls.append(image.shape)
        return ScaledPlane(PX_PER_MM * image.shape[1] / 600)

    tracker = Tracker(SETUP, calibrate=calibrate, base_scan_interval_s=0.0)
    tracker.process(Frame(0, 0.0, draw(MODELS)))
    small = draw(MODELS)[:400, :500]
    types = [e["type"] for i in range(FRAME_SIZE_PATIENCE) for e in tracker.process(Frame(1 + i, 0.1 * i, small))]
    assert types[0] == "frame_error" and types[-1] == "frame_size_changed"
    tracker.process(Frame(99, 9.9, small))
    assert calls[-1] == small.shape                            # calibrated on the new frames


def test_hidden_corner_markers_keep_the_calibration_and_say_so() -> None:
    tracker = Tracker(SETUP, ScaledPlane(PX_PER_MM), base_scan_interval_s=0.0)
    events = tracker.process(Frame(0, 0.0, draw(MODELS)))      # no corner marker drawn in these frames
    warning = [e for e in events if e["type"] == "calibration_warning"]
    assert warning and warning[0]["calibration_kept"] and warning[0]["corners_hidden"] == [0, 1, 2, 3]
    state = tracker.state.to_dict()
    assert state["calibration_kept"] and state["corners_hidden"] == [0, 1, 2, 3]
    assert {m["marker_id"] for m in state["models"]} == {17, 18}


def test_a_setup_putting_corner_ids_in_play_is_refused_clearly() -> None:
    with pytest.raises(SetupFileError, match="must be a base marker id"):
        parse_setup({"table": {"width_mm": 600, "depth_mm": 600},
                     "markers": {"per_marker": {"2": {"offset_mm": 1.0}, "17": {}}}})
