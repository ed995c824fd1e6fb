"""apply_tracks: the tracker's events turned into plan changes, from concrete table situations."""

from __future__ import annotations

from typing import Any

from rules.plan import TablePlan, parse_game
from tracker.apply import (
    Appeared,
    Assignment,
    Hidden,
    Moved,
    Reappeared,
    SourceEvent,
    apply_tracks,
    event_from_dict,
    track_changes,
)
from tracker.tracking import Fix, TrackBook


def skirmish(**extra_models: dict[str, Any]) -> TablePlan:
    """Two AT-43 squads on a 1200 mm table: Sergeant (marker 17) and Trooper (marker 18) for the blues,
    Scout (marker 20) for the reds; any extra models given by id."""
    models = [
        {"id": "sgt", "unit": "blue", "x_mm": 200, "y_mm": 300, "base_mm": 30, "marker_id": 17, "facing_deg": 0},
        {"id": "trp", "unit": "blue", "x_mm": 240, "y_mm": 300, "base_mm": 30, "marker_id": 18},
        {"id": "sct", "unit": "red", "x_mm": 900, "y_mm": 800, "base_mm": 30, "marker_id": 20},
    ]
    models += [{"id": k, **v} for k, v in extra_models.items()]
    return parse_game({"ruleset": "at-43", "table": {"width_mm": 1200, "depth_mm": 1200},
                       "units": [{"id": "blue", "side": "A"}, {"id": "red", "side": "B"}], "models": models})


def test_sergeant_lifted_and_put_down_six_cm_ahead_moves_and_turns() -> None:
    plan = skirmish()
    after = apply_tracks(plan, [Moved((260.0, 300.0), marker_id=17, from_mm=(200.0, 300.0),
                                      distance_mm=60.0, facing_deg=90.0)])
    assert after.model("sgt").position_mm == (260.0, 300.0)
    assert after.model("sgt").facing_deg == 90.0
    assert after.model("trp") == plan.model("trp")
    assert plan.model("sgt").position_mm == (200.0, 300.0)  # the plan given is not changed


def test_move_change_says_who_moved_from_where_and_how_far() -> None:
    plan = skirmish()
    [change] = track_changes(plan, [Moved((240.0, 340.0), marker_id=18)])  # no from/distance: from the plan
    assert change.kind == "move"
    assert dict(change.payload) == {"model": "trp", "name": None, "marker_id": 18, "from_mm": [240.0, 300.0],
                                    "to_mm": [240.0, 340.0], "distance_mm": 40.0}
    assert change.plan.model("trp").facing_deg is None  # no facing measured: kept


def test_casualty_marker_still_on_the_table_is_not_put_back() -> None:
    plan = skirmish()
    assignment = Assignment.of(plan)  # taken before the trooper fell
    dead = TablePlan(**{**plan.__dict__, "models": tuple(m for m in plan.models if m.model_id != "trp")})
    events = [Appeared((250.0, 310.0), marker_id=18), Moved((300.0, 300.0), marker_id=18, distance_mm=60.0)]
    assert apply_tracks(dead, events, assignment) == dead
    assert track_changes(dead, events, assignment) == []


def test_unknown_marker_is_not_a_model() -> None:
    plan = skirmish()
    events = [Appeared((500.0, 500.0), marker_id=42), Moved((520.0, 500.0), marker_id=42, distance_mm=20.0)]
    assert apply_tracks(plan, events) == plan


def test_first_sighting_places_off_table_and_displaced_models_only() -> None:
    plan = skirmish(rfc={"unit": "red", "x_mm": 0, "y_mm": 0, "base_mm": 30, "marker_id": 21,
                         "status": ["off-table"]})
    events = [Appeared((203.0, 302.0), marker_id=17),         # 3.6 mm from its place: left where saved
              Appeared((240.0, 312.0), marker_id=18),         # 12 mm off: put where seen
              Appeared((700.0, 700.0), marker_id=21, facing_deg=180.0)]  # waiting off the table: now on it
    [change] = track_changes(plan, events)
    assert change.kind == "placed"
    assert [m["model"] for m in change.payload["models"]] == ["trp", "rfc"]
    after = change.plan
    assert after.model("sgt").position_mm == (200.0, 300.0)
    assert after.model("trp").position_mm == (240.0, 312.0)
    assert after.model("rfc").on_table and after.model("rfc").position_mm == (700.0, 700.0)
    assert after.model("rfc").facing_deg == 180.0


def test_bare_base_tied_to_a_model_moves_it() -> None:
    plan = skirmish(crate={"unit": "red", "x_mm": 600, "y_mm": 600, "base_mm": 40, "extra": {"base_track": "base-2"}})
    after = apply_tracks(plan, [event_from_dict({"type": "base_moved", "track_id": "base-2", "from_mm": [600, 600],
                                                 "to_mm": [650, 600], "distance_mm": 50.0})])
    assert after.model("crate").position_mm == (650.0, 600.0)
    assert apply_tracks(plan, [Moved((650.0, 600.0), base_id="base-9")]) == plan  # a base nobody is


def test_hidden_reappeared_and_camera_events_change_nothing() -> None:
    plan = skirmish()
    events = [Hidden(marker_id=17), Reappeared(marker_id=17), SourceEvent("camera_lost", "no frame for 2 s"),
              SourceEvent("camera_back")]
    assert track_changes(plan, events) == []


def test_events_from_the_track_book_drive_the_plan() -> None:
    """The tracker's own output: the scout seen, lifted out of sight, put down 80 mm away."""
    book = TrackBook()
    raw = book.update([Fix(20, 900.0, 800.0, 0.0)], [], timestamp_s=0.0)
    raw += book.update([], [], timestamp_s=0.1)
    raw += book.update([], [], timestamp_s=0.15)            # out of sight two frames in a row: hidden
    raw += book.update([Fix(20, 980.0, 800.0, 45.0)], [], timestamp_s=0.2)
    raw += book.update([Fix(20, 980.0, 800.0, 45.0)], [], timestamp_s=0.3)
    events = [event_from_dict(e) for e in raw]
    assert [type(e).__name__ for e in events] == ["Appeared", "Hidden", "Moved"]
    changes = track_changes(skirmish(), events)
    assert [c.kind for c in changes] == ["move"]  # first seen where saved: no placement
    assert changes[0].plan.model("sct").position_mm == (980.0, 800.0)
    assert changes[0].plan.model("sct").facing_deg == 45.0
    assert changes[0].payload["distance_mm"] == 80.0


def test_moves_in_order_end_where_the_last_put_it_down() -> None:
    plan = skirmish()
    events = [Moved((260.0, 300.0), marker_id=17), Moved((260.0, 360.0), marker_id=17)]
    changes = track_changes(plan, events)
    assert [c.payload["from_mm"] for c in changes] == [[200.0, 300.0], [260.0, 300.0]]
    assert apply_tracks(plan, events).model("sgt").position_mm == (260.0, 360.0)


def test_event_from_dict_reads_every_kind() -> None:
    assert event_from_dict({"type": "appeared", "marker_id": 17, "x_mm": 1, "y_mm": 2, "facing_deg": 3}) == \
        Appeared((1.0, 2.0), 17, None, 3.0)
    assert event_from_dict({"type": "base_hidden", "track_id": "base-1"}) == Hidden(None, "base-1")
    assert event_from_dict({"type": "reappeared", "marker_id": 5}) == Reappeared(5, None)
    assert event_from_dict({"type": "calibrated", "message": "ok"}) == SourceEvent("calibrated", "ok")
