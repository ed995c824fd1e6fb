"""TrackBook frame by frame on synthetic fixes (as norfair tests its tracker)."""

from __future__ import annotations

import json
import random

import pytest

from tracker.tracking import (
    MOVE_THRESHOLD_MM,
    SETTLE_FRAMES,
    STILL_GATE_MM,
    BaseFix,
    Fix,
    TrackBook,
)


def run(book: TrackBook, frames: list[tuple[list[Fix], list[BaseFix] | None]], t0: float = 0.0,
        dt: float = 0.1) -> list[dict]:
    events = []
    for i, (fixes, bases) in enumerate(frames):
        events += book.update(fixes, bases, timestamp_s=t0 + i * dt)
    return events


def test_new_model_appears_once_and_keeps_identity() -> None:
    book = TrackBook()
    ev = run(book, [([Fix(17, 10, 10, 0), Fix(18, 50, 10, 90)], None)] * 5)
    assert [(e["type"], e["marker_id"]) for e in ev] == [("appeared", 17), ("appeared", 18)]
    s = book.state()
    assert [m.marker_id for m in s.models] == [17, 18]
    assert s.model(18).facing_deg == pytest.approx(90)


def test_still_model_does_not_jitter() -> None:
    rng = random.Random(3)
    book = TrackBook()
    reported = []
    for i in range(60):
        noise = STILL_GATE_MM * 0.4
        fix = Fix(17, 300 + rng.uniform(-noise, noise), 200 + rng.uniform(-noise, noise), 45 + rng.uniform(-1, 1))
        if i % 7 == 6:      # a stray measurement now and then (a half-hidden marker)
            fix = Fix(17, 300 + rng.choice((-4, 4)), 200, 45)
        assert [e["type"] for e in book.update([fix], None, timestamp_s=i / 30)] in ([], ["appeared"])
        m = book.state().model(17)
        reported.append((m.x_mm, m.y_mm))
    steps = [abs(a[0] - b[0]) + abs(a[1] - b[1]) for a, b in zip(reported[3:], reported[4:])]
    assert max(steps) <= 0.3
    assert reported[-1][0] == pytest.approx(300, abs=0.4)


def test_hidden_model_keeps_last_position_flagged_unseen() -> None:
    book = TrackBook()
    run(book, [([Fix(17, 100, 100, 0), Fix(18, 140, 100, 0)], None)] * 3)
    assert book.update([Fix(18, 140, 100, 0)], None, timestamp_s=1.0) == []     # one frame: not yet
    ev = book.update([Fix(18, 140, 100, 0)], None, timestamp_s=1.1)
    assert ev[0]["type"] == "hidden" and ev[0]["marker_id"] == 17
    m = book.state().model(17)
    assert (m.seen, m.unseen_since_s, m.x_mm, m.y_mm) == (False, 1.0, 100, 100)
    assert book.state().model(18).seen
    ev = book.update([Fix(17, 100.2, 100, 0), Fix(18, 140, 100, 0)], None, timestamp_s=2.5)
    assert [e["type"] for e in ev] == ["reappeared"]
    assert ev[0]["hidden_s"] == 1.5
    assert book.state().model(17).seen


def test_lift_and_put_down_measures_from_start() -> None:
    book = TrackBook()
    frames = [([Fix(17, 100, 100, 0)], None)] * 3
    frames += [([], None)] * 2                                        # lifted
    frames += [([Fix(17, 130, 140, 10)], None)]                       # seen in passing
    frames += [([], None)]                                            # hand over it
    frames += [([Fix(17, 160, 180, 30)], None)] * (SETTLE_FRAMES + 2)  # put down, still
    ev = [e for e in run(book, frames) if e["type"] == "moved"]
    assert len(ev) == 1
    assert ev[0]["from_mm"] == [100, 100] and ev[0]["to_mm"] == [160, 180]
    assert ev[0]["distance_mm"] == pytest.approx(100.0)
    assert ev[0]["lifted"] is True and ev[0]["facing_to_deg"] == 30
    json.dumps(ev)


def test_slide_without_disappearing_is_one_move() -> None:
    book = TrackBook()
    frames = [([Fix(17, 100, 100, 0)], None)] * 3
    frames += [([Fix(17, 100 + 10 * k, 100, 0)], None) for k in range(1, 6)]
    frames += [([Fix(17, 150, 100, 0)], None)] * 3
    moved = [e for e in run(book, frames) if e["type"] == "moved"]
    assert len(moved) == 1 and moved[0]["from_mm"] == [100, 100] and moved[0]["to_mm"] == [150, 100]
    assert moved[0]["lifted"] is False


def test_small_nudge_is_not_a_move() -> None:
    book = TrackBook()
    frames = [([Fix(17, 100, 100, 0)], None)] * 3 + [([Fix(17, 100 + MOVE_THRESHOLD_MM * 0.8, 100, 0)], None)] * 4
    assert not [e for e in run(book, frames) if e["type"] == "moved"]


def test_models_never_swap_identity() -> None:
    book = TrackBook()
    # two models exchange places while both are hidden
    frames = [([Fix(17, 100, 100, 0), Fix(18, 200, 100, 0)], None)] * 3 + [([], None)] * 2
    frames += [([Fix(17, 200, 100, 0), Fix(18, 100, 100, 0)], None)] * 3
    moved = {e["marker_id"]: e for e in run(book, frames) if e["type"] == "moved"}
    assert moved[17]["to_mm"] == [200, 100] and moved[18]["to_mm"] == [100, 100]


def test_bare_bases_by_continuity_and_new_base_reported() -> None:
    book = TrackBook()
    b1, b2 = BaseFix(100, 100, 25, "red"), BaseFix(300, 300, 32, "blue")
    ev = run(book, [([], [b1, b2]), ([], [BaseFix(100.3, 100, 25, "red"), b2])])
    assert [e["type"] for e in ev] == ["base_appeared", "base_appeared"]
    ids = {b.side: b.track_id for b in book.state().bases}
    ev = book.update([], [BaseFix(101, 100, 25, "red"), b2, BaseFix(500, 100, 25, "red")], timestamp_s=1)
    assert [(e["type"], e["track_id"]) for e in ev] == [("base_appeared", "base-3")]
    assert {b.side: b.track_id for b in book.state().bases if b.track_id != "base-3"} == ids
    # None means "not looked for": nothing changes
    assert book.update([], None, timestamp_s=2) == []
    assert all(b.seen for b in book.state().bases)


def test_bare_base_lifted_and_put_down_keeps_identity() -> None:
    book = TrackBook()
    run(book, [([], [BaseFix(100, 100, 25, "red")])] * 3)
    ev = run(book, [([], [])] + [([], [BaseFix(180, 100, 25, "red")])] * 3, t0=1)
    types = [e["type"] for e in ev]
    assert types == ["base_hidden", "base_moved"]
    assert ev[1]["track_id"] == "base-1" and ev[1]["distance_mm"] == pytest.approx(80)


def test_state_is_json_ready() -> None:
    book = TrackBook()
    run(book, [([Fix(17, 10, 10, 0)], [BaseFix(100, 100, 25, "red")])])
    json.dumps(book.state().to_dict())


def test_bases_searched_in_regions_leave_the_others_alone() -> None:
    """An incremental search covers part of the table: a base outside it is not hidden."""
    book = TrackBook()
    book.update([], [BaseFix(50, 50, 25, "red"), BaseFix(250, 250, 32, "blue")], timestamp_s=0.0)
    # only the region around the red base was searched, and found it: the blue one stays seen
    ev = book.update([], [BaseFix(50.2, 50.1, 25, "red")], timestamp_s=1.0, base_regions=[(30, 30, 70, 70)])
    assert ev == []
    assert all(b.seen for b in book.state().bases)
    # the blue base's region searched, nothing there: hidden at its last position
    ev = book.update([], [], timestamp_s=2.0, base_regions=[(200, 200, 300, 300)])
    assert [(e["type"], e["track_id"]) for e in ev] == [("base_hidden", "base-2")]
    assert book.state().bases[0].seen
    # a base found in a region keeps its identity even when its track lies outside the region
    ev = book.update([], [BaseFix(59.0, 50.0, 25, "red")], timestamp_s=3.0, base_regions=[(55, 30, 95, 70)])
    assert [e["type"] for e in ev] == [] and book.state().bases[0].seen


def test_a_model_missing_from_one_frame_is_not_hidden() -> None:
    """A single frame without a model (motion blur, a hand's shadow) is no "hidden" event and no
    flicker: the model stays seen where it was; only two frames in a row hide it (issue 9)."""
    book = TrackBook()
    run(book, [([Fix(17, 100, 100, 0), Fix(18, 140, 100, 0)], None)] * 3)
    events = []
    for k in range(12):
        present = [Fix(18, 140, 100, 0)] + ([] if k % 3 == 1 else [Fix(17, 100.1, 100, 0)])
        events += book.update(present, None, timestamp_s=1.0 + k / 10)
        assert book.state().model(17).seen
    assert events == []
    ev = book.update([Fix(18, 140, 100, 0)], None, timestamp_s=3.0)
    ev += book.update([Fix(18, 140, 100, 0)], None, timestamp_s=3.1)
    assert [(e["type"], e["timestamp_s"]) for e in ev] == [("hidden", 3.1)]
    assert book.state().model(17).unseen_since_s == 3.0


def test_a_model_whose_base_is_seen_in_place_is_not_hidden() -> None:
    """Its marker unreadable for several frames (motion blur) but its base seen where it stands:
    the model was not lifted, so it is not hidden; once the base is gone too, it is."""
    book = TrackBook()
    run(book, [([Fix(17, 100, 100, 0)], None)] * 3)
    events = []
    for k in range(4):
        events += book.update([], None, timestamp_s=1.0 + k / 10, present_ids={17})
    assert events == [] and book.state().model(17).seen
    events += book.update([], None, timestamp_s=1.5)
    events += book.update([], None, timestamp_s=1.6)
    assert [(e["type"], e["marker_id"]) for e in events] == [("hidden", 17)]


def test_a_model_not_looked_for_is_not_missing() -> None:
    """A model whose region's search waits for a next frame (``unsearched_ids``) is neither
    missing nor seen in that frame: two frames without it are needed where it was looked for."""
    book = TrackBook()
    book.update([Fix(5, 100.0, 100.0, 0.0)], [], timestamp_s=0.0)
    assert book.update([], [], timestamp_s=0.1) == []                         # lost: its region queued
    assert book.update([], [], timestamp_s=0.2, unsearched_ids={5}) == []     # not searched yet
    assert book.state().model(5).seen
    hidden = book.update([], [], timestamp_s=0.3)                              # searched, not found
    assert [(e["type"], e["timestamp_s"]) for e in hidden] == [("hidden", 0.3)]
    assert book.state().model(5).unseen_since_s == 0.1
