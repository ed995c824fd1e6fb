"""The tracker benchmark's count of unanswered frames whose corner markers were readable."""

from __future__ import annotations

from benchmarks.realistic_score import (
    CORNERS_NEEDED_CAMERA_KNOWN,
    CORNERS_NEEDED_LENS_ESTIMATED,
    Score,
    score_frame,
    unanswered_readable,
)


def test_unanswered_counts_only_frames_with_enough_readable_corners() -> None:
    two = {0: True, 1: False, 2: True, 3: False}
    four = {0: True, 1: True, 2: True, 3: True}
    assert unanswered_readable(False, two, CORNERS_NEEDED_CAMERA_KNOWN)
    assert not unanswered_readable(False, {0: True, 1: False, 2: False, 3: False}, CORNERS_NEEDED_CAMERA_KNOWN)
    assert not unanswered_readable(False, two, CORNERS_NEEDED_LENS_ESTIMATED)
    assert unanswered_readable(False, four, CORNERS_NEEDED_LENS_ESTIMATED)
    assert not unanswered_readable(True, four, CORNERS_NEEDED_CAMERA_KNOWN)


def test_score_frame_names_the_unanswered_frames() -> None:
    # corner 3 under an arm (94.6 % visible): not "4 corners visible", yet three are readable
    truth = {"bases": [{"id": 7, "centre_mm": [100.0, 100.0], "diameter_mm": 32.0, "visibility": 1.0,
                        "marker_px": 30.0}],
             "corner_markers": [{"id": i, "visibility": 0.946 if i == 3 else 1.0} for i in range(4)]}
    readable = {0: True, 1: True, 2: True, 3: False}
    total = Score()
    for label, models in (("a", None), ("b", [{"marker_id": 7, "x_mm": 100.0, "y_mm": 101.0}]), ("c", None)):
        total.add(score_frame(truth, {"7": True}, models, None, camera_known=True, label=label,
                              corners_readable=readable, corners_needed=CORNERS_NEEDED_CAMERA_KNOWN))
    assert (total.no_answer, total.corners_enough, total.no_answer_readable, total.no_answer_frames) == (
        0, 3, 2, ["a", "c"])
    lens = score_frame(truth, {"7": True}, None, None, camera_known=False, label="a", corners_readable=readable,
                       corners_needed=CORNERS_NEEDED_LENS_ESTIMATED)
    assert (lens.corners_enough, lens.no_answer_readable, lens.no_answer_frames) == (0, 0, [])
