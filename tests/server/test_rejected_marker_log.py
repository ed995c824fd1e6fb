"""A marker the tracker rejects is written to the game's log once per marker and kind of rejection,
with its words in French and English, and sent to the pages watching; the game itself is unchanged."""

from __future__ import annotations

from typing import Any

from server.live import TrackEvent
from server.tracking import rejection_entry
from tests.server.conftest import still

UNKNOWN_57 = {"type": "marker_rejected", "marker_id": 57, "center_px": [10.0, 20.0],
              "reason": "unknown marker: id 57 is not one of the setup's markers",
              "msg": "track.rejected.unknown_id", "params": {"id": 57}}
TWICE_57 = {"type": "marker_rejected", "marker_id": 57, "center_px": [10.0, 20.0],
            "reason": "id 57 seen 2 times in one frame; each model needs its own marker",
            "msg": "track.rejected.duplicate", "params": {"id": 57, "count": 2}}
OFF_9 = {"type": "marker_rejected", "marker_id": 9, "center_px": [700.0, 20.0],
         "reason": "centre at (640.0, 300.0) mm is outside the 600 x 400 mm table",
         "msg": "track.rejected.outside_table",
         "params": {"id": 9, "x_mm": 640.0, "y_mm": 300.0, "width_mm": 600.0, "depth_mm": 400.0}}


def rejected(e: dict[str, Any]) -> TrackEvent:
    return TrackEvent("marker_rejected", marker_id=e["marker_id"], data=e)


def _rejections(ov: Any) -> list[dict[str, Any]]:
    return [e.to_json() for e in ov.store.events(limit=1000) if e.kind == "marker_rejected"]


def test_each_rejected_marker_is_logged_once_per_kind_in_both_languages(make_app: Any) -> None:
    frames = [([still(4, 100, 100)], [rejected(UNKNOWN_57)]),
              ([still(4, 100, 100)], [rejected(UNKNOWN_57), rejected(OFF_9)]),  # a new tracker tells 57 again
              ([still(4, 100, 100)], [rejected(TWICE_57)]),  # the same marker, another kind: told
              ([still(4, 100, 100)], [])]
    ov = make_app(frames).extensions["tabletracker"]
    watcher = ov.broadcaster.subscribe()
    game_before = dict(ov.store.current().game)
    for _ in frames:
        ov.loop.step()
    logged = _rejections(ov)
    assert [(e["payload"]["marker_id"], e["payload"]["code"]) for e in logged] == [
        (57, "unknown_id"), (9, "outside_table"), (57, "duplicate")]
    first = logged[0]
    assert first["actor"] == "tracker" and not first["undoable"]
    assert first["payload"]["texts"]["fr"].startswith("marqueur inconnu n° 57 : aucune figurine ne le porte")
    assert first["payload"]["texts"]["en"].startswith("unknown marker no. 57: no model carries it")
    assert "(640 ; 300) mm est hors de la table de 600 x 400 mm" in logged[1]["payload"]["texts"]["fr"]
    assert ov.store.current().game == game_before  # the game is what it was
    sent = [m.data for m in watcher.drain() if m.event == "log"]
    assert [m["id"] for m in sent] == [e["id"] for e in logged]


def test_a_server_started_again_on_the_game_does_not_log_a_rejection_twice(make_app: Any) -> None:
    ov = make_app([([], [rejected(UNKNOWN_57)])]).extensions["tabletracker"]
    ov.loop.step()
    ov.stop()
    again = make_app([([], [rejected(UNKNOWN_57)]), ([], [rejected(OFF_9)])]).extensions["tabletracker"]
    again.loop.step()
    again.loop.step()
    assert [e["payload"]["marker_id"] for e in _rejections(again)] == [57, 9]


def test_a_rejection_does_not_hide_the_players_last_action_from_undo(make_app: Any) -> None:
    app = make_app([([], [rejected(UNKNOWN_57)])])
    ov = app.extensions["tabletracker"]
    client = app.test_client()
    r = client.post("/api/models/a1/move", json={"x_mm": 200, "y_mm": 120})
    assert r.status_code == 200, r.get_json()
    ov.loop.step()
    assert _rejections(ov)
    r = client.post("/api/undo", json={})
    assert r.status_code == 200, r.get_json()
    a1 = next(m for m in ov.store.current().game["models"] if m["id"] == "a1")
    assert (a1["x_mm"], a1["y_mm"]) == (100.0, 100.0)


def test_a_rejection_without_a_message_id_is_logged_with_the_generic_words() -> None:
    bare = {k: v for k, v in UNKNOWN_57.items() if k not in ("msg", "params")}
    entry = rejection_entry(bare)
    assert entry["code"] == "" and entry["marker_id"] == 57
    assert entry["texts"]["fr"] == "un marqueur vu ne peut pas être une figurine : il n'est pas suivi."
    assert entry["reason"] == bare["reason"]
