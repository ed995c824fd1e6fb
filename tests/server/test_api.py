"""The HTTP API through Flask's test client: status codes, JSON answers, bad requests."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest

from server.live import TrackEvent
from tests.server.conftest import ROOT, small_game, still

ROSTERS = ROOT / "rules" / "data" / "rosters"


def error_of(response: Any) -> dict[str, Any]:
    assert response.is_json, response.data[:200]
    return response.json["error"]


# -- reading ----------------------------------------------------------------------------------
def test_state_shows_the_game_with_its_unit_and_side_colours(client: Any) -> None:
    r = client.get("/api/state")
    assert r.status_code == 200
    game = r.json["game"]
    assert game["game"]["name"] == "test table"
    assert game["unit"]["symbol"] == "cm" and game["unit"]["mm"] == 10.0
    assert set(game["sides"]) == {"una", "therians"}
    assert r.json["server"]["default_lang"] == "fr"
    assert "shoot" in r.json["actions"]
    assert "ruins" in [k["kind"] for k in r.json["terrain_kinds"]]


def test_the_page_is_served_in_french_with_local_scripts_only(client: Any) -> None:
    r = client.get("/")
    assert r.status_code == 200
    html = r.get_data(as_text=True)
    assert 'lang="fr"' in html and "/static/app.js" in html
    static = ROOT / "server" / "static"
    for path in [*static.iterdir(), ROOT / "server" / "templates" / "index.html"]:
        text = path.read_text(encoding="utf-8")
        for url in ("https://", "http://", "//cdn"):
            for line in text.splitlines():
                if url in line:
                    assert "www.w3.org/2000/svg" in line, f"{path.name} fetches {line.strip()}"
    js = client.get("/static/app.js")
    assert js.status_code == 200
    js.close()
    assert "Content-Security-Policy" in r.headers


def test_unknown_routes_and_methods_are_json_errors(client: Any) -> None:
    r = client.get("/api/nothing-here")
    assert r.status_code == 404 and error_of(r)["code"] == "not_found"
    r = client.get("/api/undo")
    assert r.status_code == 405 and error_of(r)["code"] == "method_not_allowed"


@pytest.mark.parametrize("limit", ["0", "abc", "100000", "-1"])
def test_log_limit_is_checked(client: Any, limit: str) -> None:
    r = client.get(f"/api/log?limit={limit}")
    assert r.status_code == 400 and "limit" in error_of(r)["message"]


# -- bad bodies --------------------------------------------------------------------------------
@pytest.mark.parametrize("path", ["/api/ask", "/api/resolve", "/api/setup/table", "/api/terrain", "/api/undo"])
def test_a_body_that_is_not_json_is_refused(client: Any, path: str) -> None:
    r = client.post(path, data="question=distance", content_type="application/x-www-form-urlencoded")
    assert r.status_code == 415
    assert "Content-Type: application/json" in error_of(r)["message"]


def test_broken_json_is_a_400(client: Any) -> None:
    r = client.post("/api/ask", data="{not json", content_type="application/json")
    assert r.status_code == 400 and error_of(r)["code"] == "bad_json"


@pytest.mark.parametrize("body, words", [
    ([1, 2], "must be a JSON object"),
    ({"args": ["a1", "a2"]}, "question is missing"),
    ({"question": "distance", "args": "a1 a2"}, "args must be"),
    ({"question": "distance", "args": [["a1"]]}, "args[0] must be a string"),
    ({"question": "distance", "args": ["a1", "a2"], "colour": "red"}, "unknown key(s) 'colour'"),
    ({"question": "<script>", "args": []}, "must be an id"),
    ({"question": "distance", "args": ["a1"] * 50}, "at most 20 items"),
])
def test_ask_refuses_malformed_questions(client: Any, body: Any, words: str) -> None:
    r = client.post("/api/ask", json=body)
    assert r.status_code == 400
    assert words in error_of(r)["message"]


def test_request_size_is_bounded(make_app: Any) -> None:
    client = make_app(MAX_CONTENT_LENGTH=1024).test_client()
    r = client.post("/api/ask", data=json.dumps({"question": "distance", "args": ["x" * 60] * 20}),
                    content_type="application/json")
    assert r.status_code == 413
    assert error_of(r)["code"] == "too_large" and "1 KiB" in error_of(r)["message"]


def test_an_unexpected_error_is_a_json_500_without_traceback(app: Any) -> None:
    ov = app.extensions["tabletracker"]

    def broken() -> Any:
        raise RuntimeError("secret internals")

    ov.game_view = broken  # type: ignore[method-assign]
    r = app.test_client().get("/api/state")
    assert r.status_code == 500
    assert "secret" not in r.get_data(as_text=True) and "Traceback" not in r.get_data(as_text=True)


# -- set-up changes ------------------------------------------------------------------------------
def test_table_size_change_is_saved_and_validated(client: Any) -> None:
    r = client.post("/api/setup/table", json={"width_mm": 900, "depth_mm": 600})
    assert r.status_code == 200
    assert r.json["game"]["game"]["table"] == {"width_mm": 900.0, "depth_mm": 600.0}
    assert r.json["event"]["kind"] == "setup.table"
    for body, words in [({"width_mm": -5, "depth_mm": 600}, "width_mm must be greater than 0"),
                        ({"width_mm": 50000, "depth_mm": 600}, "at most 10000"),
                        ({"width_mm": "wide", "depth_mm": 600}, "width_mm must be a number"),
                        ({"depth_mm": 600}, "width_mm is missing")]:
        r = client.post("/api/setup/table", json=body)
        assert r.status_code == 400, body
        assert words in error_of(r)["message"], error_of(r)


def test_ruleset_change_lists_the_rule_sets_when_unknown(client: Any) -> None:
    r = client.post("/api/setup/ruleset", json={"ruleset": "chess"})
    assert r.status_code == 400
    assert "high-fire" in error_of(r)["message"] and "star-wars" in error_of(r)["message"]
    r = client.post("/api/setup/ruleset", json={"ruleset": "star-wars"})
    assert r.status_code == 200
    assert r.json["game"]["unit"]["symbol"] == "pas"
    client.post("/api/setup/ruleset", json={"ruleset": "at-43"})
    client.post("/api/terrain", json={"kind": "crates", "shape": "area", "points_mm": [[10, 10], [50, 10], [50, 50]]})
    r = client.post("/api/setup/ruleset", json={"ruleset": "high-fire"})
    assert r.status_code == 400
    assert "'crates'" in error_of(r)["message"] and error_of(r)["proposal"][0]["proposed"] is not None


def test_terrain_is_drawn_checked_and_removed(client: Any) -> None:
    body = {"kind": "ruins", "shape": "area", "points_mm": [[200, 150], [260, 150], [260, 220], [200, 220]],
            "height_mm": 60}
    r = client.post("/api/terrain", json=body)
    assert r.status_code == 200
    piece = r.json["game"]["game"]["terrain"][0]
    assert piece == {"id": "terrain-1", "kind": "ruins", "shape": "area", "height_mm": 60.0,
                     "points_mm": [[200.0, 150.0], [260.0, 150.0], [260.0, 220.0], [200.0, 220.0]]}
    bad = [({**body, "kind": "lava"}, 400, "no terrain kind 'lava'"),
           ({**body, "points_mm": [[0, 0], [10, 10]]}, 400, "from 3 to 200 points"),
           ({**body, "points_mm": [[0, 0], [10, 10], [9000, 0]]}, 400, "off the table"),
           ({**body, "points_mm": [[0, 0], [10, "x"], [5, 5]]}, 400, "points_mm[1]"),
           ({**body, "shape": "circle"}, 400, "shape must be one of"),
           ({**body, "height_mm": -3}, 400, "height_mm must be from 0")]
    for b, status, words in bad:
        r = client.post("/api/terrain", json=b)
        assert r.status_code == status, b
        assert words in error_of(r)["message"], error_of(r)
    r = client.delete("/api/terrain/terrain-9")
    assert r.status_code == 400 and "no terrain 'terrain-9'" in error_of(r)["message"]
    r = client.delete("/api/terrain/terrain-1")
    assert r.status_code == 200 and "terrain" not in r.json["game"]["game"]


def test_objectives_are_added_and_removed(client: Any) -> None:
    r = client.post("/api/objectives", json={"x_mm": 500, "y_mm": 50, "name": "radio"})
    assert r.status_code == 200
    assert [o["id"] for o in r.json["game"]["game"]["objectives"]] == ["obj-1", "obj-2"]
    assert client.delete("/api/objectives/obj-2").status_code == 200
    assert client.delete("/api/objectives/obj-2").status_code == 400


def test_moving_a_model_by_hand_is_logged_with_its_length_in_the_rule_set_unit(client: Any) -> None:
    r = client.post("/api/models/g2/move", json={"x_mm": 440, "y_mm": 250, "facing_deg": 270})
    assert r.status_code == 200
    move = r.json["game"]["last_move"]
    assert move["model"] == "g2" and move["distance_mm"] == 50.0
    assert move["distance"] == 5.0 and move["unit"] == "cm"
    assert client.post("/api/models/zz/move", json={"x_mm": 1, "y_mm": 1}).status_code == 400


def test_rosters_are_loaded_and_merged(make_app: Any) -> None:
    game = json.loads((ROOT / "rules" / "data" / "games" / "at-43-sample.json").read_text())
    game = {**game, "units": [], "models": [], "profiles": {}, "weapons": {}}
    client = make_app(GAME=game).test_client()
    rosters = [{"filename": p.name, "text": p.read_text(encoding="utf-8")}
               for p in sorted(ROSTERS.glob("at-43-*.json"))]
    r = client.post("/api/setup/rosters", json={"rosters": rosters})
    assert r.status_code == 200, r.json
    g = r.json["game"]["game"]
    assert len(g["units"]) >= 2 and len(g["models"]) >= 4
    assert {u["side"] for u in g["units"]} == {json.loads(x["text"])["side"] for x in rosters}
    r = client.post("/api/setup/rosters", json={"rosters": [{"filename": "bad.yaml", "text": "units: [1, 2"}]})
    assert r.status_code == 400 and "bad.yaml: not valid YAML" in error_of(r)["message"]
    r = client.post("/api/setup/rosters", json={"rosters": [{"filename": "army.txt", "text": "{}"}]})
    assert r.status_code == 400 and ".json, .yaml or .yml" in error_of(r)["message"]
    other = next(p for p in ROSTERS.glob("firefight-*.json"))
    r = client.post("/api/setup/rosters", json={"rosters": [{"filename": other.name, "text": other.read_text()}]})
    assert r.status_code == 400 and "but the game is at-43" in error_of(r)["message"]


# -- undo, import, export ----------------------------------------------------------------------
def test_undo_restores_the_step_before_and_logs_it(client: Any) -> None:
    client.post("/api/setup/table", json={"width_mm": 900, "depth_mm": 600})
    client.post("/api/objectives", json={"x_mm": 10, "y_mm": 10})
    r = client.post("/api/undo", json={})
    assert r.status_code == 200 and r.json["event"]["payload"]["undone_kind"] == "objective.add"
    assert len(r.json["game"]["game"]["objectives"]) == 1
    r = client.post("/api/undo")
    assert r.json["game"]["game"]["table"]["width_mm"] == 600.0
    r = client.post("/api/undo")
    assert r.status_code == 409 and error_of(r)["code"] == "nothing_to_undo"
    kinds = [(e["kind"], e["undone"]) for e in client.get("/api/log").json["events"]]
    assert kinds == [("start", False), ("setup.table", True), ("objective.add", True), ("undo", False), ("undo", False)]


def test_export_then_import_round_trips_and_bad_games_are_refused(client: Any) -> None:
    r = client.get("/api/game/export")
    assert r.status_code == 200 and "attachment" in r.headers["Content-Disposition"]
    exported = json.loads(r.get_data(as_text=True))
    assert exported == small_game()
    changed = {**exported, "name": "imported"}
    r = client.post("/api/game/import", json={"game": changed, "filename": "g.json"})
    assert r.status_code == 200 and r.json["game"]["game"]["name"] == "imported"
    broken = {**exported, "models": [{**exported["models"][0], "unit": "nobody"}]}
    r = client.post("/api/game/import", json={"game": broken})
    assert r.status_code == 400
    assert "models" in error_of(r)["message"] and "'nobody' is not a unit" in error_of(r)["message"]
    r = client.post("/api/game/import", json={"filename": "x.json"})
    assert r.status_code == 400 and "game is missing" in error_of(r)["message"]


# -- live: the tracker's moves, first sightings, assignment -------------------------------------------
def test_a_tracker_move_updates_the_game_and_the_log(make_app: Any) -> None:
    frames = [([still(4, 100, 100), still(5, 140, 100), still(6, 400, 300)], []),
              ([still(4, 100, 100, seen=False), still(5, 140, 100), still(6, 400, 300)], []),
              ([still(4, 100, 180), still(5, 140, 100), still(6, 400, 300)],
               [TrackEvent("moved", marker_id=4, from_mm=(100.0, 100.0), to_mm=(100.0, 180.0), distance_mm=80.0,
                           facing_deg=90.0)])]
    app = make_app(frames)
    ov = app.extensions["tabletracker"]
    client = app.test_client()
    ov.loop.step()
    ov.loop.step()
    live = client.get("/api/state").json["live"]
    assert [m["seen"] for m in live["models"]] == [False, True, True]
    ov.loop.step()
    state = client.get("/api/state").json
    a1 = next(m for m in state["game"]["game"]["models"] if m["id"] == "a1")
    assert (a1["x_mm"], a1["y_mm"], a1["facing_deg"]) == (100.0, 180.0, 90.0)
    move = state["game"]["last_move"]
    assert move["distance"] == 8.0 and move["unit"] == "cm" and move["from_mm"] == [100.0, 100.0]
    events = client.get("/api/log").json["events"]
    assert events[-1]["kind"] == "move" and events[-1]["actor"] == "tracker"
    # a camera sighting is not a player's step: undo has nothing to undo (the camera corrects itself)
    r = client.post("/api/undo")
    assert r.status_code == 409 and error_of(r)["code"] == "nothing_to_undo"
    assert not events[-1]["undoable"]


def test_a_model_first_seen_elsewhere_is_placed_where_seen_once(make_app: Any) -> None:
    frames = [([still(4, 120, 110), still(5, 141, 101)], []), ([still(4, 300, 300)], [])]
    app = make_app(frames)
    ov = app.extensions["tabletracker"]
    ov.loop.step()
    events = ov.store.events()
    assert events[-1].kind == "placed"
    assert [m["model"] for m in events[-1].payload["models"]] == ["a1"]  # a2 is within 5 mm
    ov.loop.step()  # a jump without a 'moved' event is not a placement any more
    assert ov.plan().model("a1").position_mm == (120.0, 110.0)


def test_detected_markers_are_assigned_to_models(make_app: Any) -> None:
    app = make_app([([still(4, 100, 100), still(77, 250, 260)], [])])
    ov = app.extensions["tabletracker"]
    client = app.test_client()
    ov.loop.step()
    r = client.post("/api/setup/assign", json={"model": "g2", "marker_id": 77})
    assert r.status_code == 200
    g2 = next(m for m in r.json["game"]["game"]["models"] if m["id"] == "g2")
    assert (g2["marker_id"], g2["x_mm"], g2["y_mm"]) == (77, 250.0, 260.0)
    r = client.post("/api/setup/assign", json={"model": "a2", "marker_id": 77})
    models = {m["id"]: m for m in r.json["game"]["game"]["models"]}
    assert models["a2"]["marker_id"] == 77 and "marker_id" not in models["g2"]
    for body, words in [({"model": "a2", "marker_id": 2}, "ids 0-3 are the table corners"),
                        ({"model": "a2"}, "give marker_id"),
                        ({"model": "nobody", "marker_id": 9}, "no model 'nobody'"),
                        ({"model": "a2", "base_id": "base-9"}, "no bare base 'base-9'")]:
        r = client.post("/api/setup/assign", json=body)
        assert r.status_code == 400, body
        assert words in error_of(r)["message"]


def test_frames_and_projection_are_served_after_a_frame(make_app: Any) -> None:
    app = make_app([([still(4, 100, 100)], [])])
    client = app.test_client()
    assert client.get("/api/frame/camera.jpg").status_code == 404
    assert client.get("/api/projection").status_code == 404
    app.extensions["tabletracker"].loop.step()
    for view in ("camera", "plan"):
        r = client.get(f"/api/frame/{view}.jpg")
        assert r.status_code == 200 and r.mimetype == "image/jpeg" and r.data[:2] == b"\xff\xd8"
        assert r.headers["X-Frame-Seq"] == "1"
    assert client.get("/api/frame/other.jpg").status_code == 404
    grid = client.get("/api/projection").json
    n = grid["steps"] + 1
    assert len(grid["points_px"]) == n * n
    assert grid["points_px"][-1] == [300.0, 200.0]  # the far corner at 0.5 px/mm


def test_the_stream_sends_the_game_then_live_frames(make_app: Any) -> None:
    app = make_app([([still(4, 100, 100)], [])])
    client = app.test_client()
    r = client.get("/api/stream", buffered=False)
    assert r.status_code == 200 and r.mimetype == "text/event-stream"
    chunks = iter(r.response)
    assert next(chunks).startswith(b"retry:")
    first = next(chunks).decode()
    assert "event: game" in first and '"test table"' in first
    app.extensions["tabletracker"].loop.step()
    live = next(chunks).decode()
    assert "event: live" in live
    data = json.loads(live.split("data: ", 1)[1])
    assert data["seq"] == 1 and data["models"][0]["marker_id"] == 4
    r.close()
    assert app.extensions["tabletracker"].broadcaster.client_count == 0


def test_the_live_thread_runs_and_stops(make_app: Any) -> None:
    frames = [([still(4, 100, 100)], [])] * 5
    app = make_app(frames, FPS=200.0)
    ov = app.extensions["tabletracker"]
    ov.start()
    import time
    deadline = time.monotonic() + 60  # a ceiling for a loaded machine; five frames take milliseconds
    while ov.loop.frames < 5 and time.monotonic() < deadline:
        time.sleep(0.01)
    ov.stop()
    assert ov.loop.frames == 5 and not ov.loop.running


# -- safety ---------------------------------------------------------------------------------------
def test_only_loopback_host_names_are_answered_without_a_token(client: Any) -> None:
    assert client.get("/api/state", headers={"Host": "127.0.0.1:8000"}).status_code == 200
    r = client.get("/api/state", headers={"Host": "evil.example:8000"})
    assert r.status_code == 403 and "--lan" in error_of(r)["message"]


def test_lan_mode_needs_the_access_token(make_app: Any) -> None:
    client = make_app(ACCESS_TOKEN="s3cret-token", LAN=True,
                      ACCESS_LINK="http://192.168.1.20:8000/?token=s3cret-token").test_client()
    r = client.get("/api/state", headers={"Host": "192.168.1.20:8000"})
    assert r.status_code == 403 and "token" in error_of(r)["message"]
    assert client.get("/", headers={"Host": "192.168.1.20:8000"}).status_code == 403
    r = client.get("/api/state", headers={"Host": "192.168.1.20:8000", "X-Access-Token": "s3cret-token"})
    assert r.status_code == 200 and r.json["server"]["access_link"].endswith("?token=s3cret-token")
    r = client.get("/?token=s3cret-token", headers={"Host": "192.168.1.20:8000"})
    assert r.status_code == 302 and "tt_token=s3cret-token" in r.headers["Set-Cookie"]
    r = client.get("/api/state", headers={"Host": "192.168.1.20:8000"})  # the cookie now
    assert r.status_code == 200
    assert client.get("/api/state?token=wrong", headers={"Host": "x"}).status_code == 403


def test_a_bad_game_file_or_language_fails_at_creation(make_app: Any, tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text('{"ruleset": "at-43"}')
    with pytest.raises(ValueError, match="table"):
        make_app(GAME=None, GAME_PATH=str(bad))
    with pytest.raises(ValueError, match="unknown language"):
        make_app(DEFAULT_LANG="de")


def test_the_same_game_file_resumes_and_a_new_one_starts_a_new_game(make_app: Any) -> None:
    first = make_app()
    first.test_client().post("/api/objectives", json={"x_mm": 10, "y_mm": 10})
    first.extensions["tabletracker"].store.close()
    again = make_app()
    assert again.config["GAME_OPENED"] == "resumed"
    assert len(again.test_client().get("/api/state").json["game"]["game"]["objectives"]) == 2
    other = make_app(GAME={**small_game(), "name": "another"})
    assert other.config["GAME_OPENED"] == "new"
    assert math.isclose(other.extensions["tabletracker"].plan().table.width_mm, 600.0)


# -- resolving an action ----------------------------------------------------------------------------
def at43_battle() -> dict[str, Any]:
    """Sierra Alpha and the storm golems from the bundled AT-43 rosters, placed 40 cm apart."""
    import dataclasses

    from rules.plan import game_to_dict, parse_game
    from rules.roster import load_roster, merge_rosters

    empty = parse_game({"ruleset": "at-43", "table": {"width_mm": 1200, "depth_mm": 1200}})
    plan = merge_rosters(empty, [load_roster(ROSTERS / "at-43-una-sierra.json"),
                                 load_roster(ROSTERS / "at-43-therian-golems.json")])
    rows: dict[str, int] = {}
    models = []
    for m in plan.models:
        side = plan.unit(m.unit_id).side
        row = list(dict.fromkeys(u.side for u in plan.units)).index(side)
        k = rows.get(m.unit_id, 0)
        rows[m.unit_id] = k + 1
        unit_index = [u.unit_id for u in plan.units if u.side == side].index(m.unit_id)
        models.append(m.placed_at((150.0 + 40 * k + 330 * unit_index, 300.0 + 400 * row)))  # as the tracker does
    return game_to_dict(dataclasses.replace(plan, models=tuple(models)))


def test_an_action_is_resolved_rolled_applied_and_undone(make_app: Any) -> None:
    game = at43_battle()
    units = {u["side"]: u["id"] for u in game["units"]}
    firing, target = units["UNA"], next(v for k, v in units.items() if k != "UNA")
    weapon = next(w for m in game["models"] if m["unit"] == firing for w in m.get("weapons", []))
    client = make_app(GAME=game).test_client()
    body = {"action": "shoot", "request": {"firing": firing, "target": target, "weapon": weapon}}
    start = client.get("/api/state").json["game"]["event_id"]

    odds = client.post("/api/resolve", json=body)
    assert odds.status_code == 200, odds.json
    assert odds.json["needed"] and odds.json["odds"] and "result" not in odds.json
    assert all("source" in s for s in odds.json["explanation"])
    total = sum(row["probability"] for dist in odds.json["odds"].values() for row in dist) / len(odds.json["odds"])
    assert math.isclose(total, 1.0)

    rolled = client.post("/api/resolve", json={**body, "seed": 7})
    assert rolled.status_code == 200 and rolled.json["result"] is not None and "game" in rolled.json
    dice = [d["value"] for d in rolled.json["dice"]]
    assert client.get("/api/state").json["game"]["event_id"] == start  # a roll changes nothing yet

    applied = client.post("/api/resolve/apply", json={**body, "dice": dice})
    assert applied.status_code == 200
    assert applied.json["resolution"]["result"] == rolled.json["result"]
    state = client.get("/api/state").json["game"]
    assert state["game"] == rolled.json["game"]
    log = client.get("/api/log").json["events"]
    assert log[-1]["kind"] == "resolution" and log[-1]["payload"]["dice"] == dice

    assert client.post("/api/undo").json["game"]["game"] == game

    for extra, status, words in [({"dice": dice[:1]}, 400, "not enough dice typed in"),
                                 ({"dice": [3, 9.5]}, 400, "dice[1] must be a whole number"),
                                 ({"dice": [], "seed": 1}, 400, "either dice"),
                                 ({"seed": -1}, 400, "seed must be"),
                                 ({"action": "dance"}, 400, "actions are: activate"),
                                 ({"request": {"firing": firing, "target": firing, "weapon": weapon}}, 409,
                                  "on the firer's side")]:
        r = client.post("/api/resolve", json={**body, **extra})
        assert r.status_code == status, (extra, r.json)
        assert words in error_of(r)["message"], error_of(r)
    r = client.post("/api/resolve/apply", json=body)
    assert r.status_code == 400 and "apply needs the dice" in error_of(r)["message"]


def test_range_bands_are_the_rule_sets_own(client: Any) -> None:
    r = client.post("/api/bands", json={"model": "a1"})
    assert r.status_code == 200
    bands = r.json["bands"]
    # AT-43: bands of 10 cm base edge to base edge, drawn from the centre of a 30 mm base
    assert [b["band"] for b in bands[:3]] == ["0", "1", "2"]
    assert [b["to_mm"] for b in bands[:3]] == pytest.approx([115.0, 215.0, 315.0], abs=0.5)
    assert r.json["centre_mm"] == [100.0, 100.0] and r.json["unit"] == "cm"
    for body, words in [({"model": "a1", "weapon_range": -2}, "weapon_range must be above 0"),
                        ({"model": "zz"}, "no model 'zz'"), ({}, "model is missing")]:
        r = client.post("/api/bands", json=body)
        assert r.status_code == 400 and words in error_of(r)["message"]


def test_deployment_zones_follow_the_rule_set(make_app: Any, client: Any) -> None:
    assert client.get("/api/zones").json == {"deployment": []}  # AT-43 has no deployment rule here
    game = json.loads((ROOT / "rules" / "data" / "games" / "firefight-sample.json").read_text())
    zones = make_app(GAME=game).test_client().get("/api/zones").json["deployment"]
    assert {z["side"] for z in zones} == {u["side"] for u in game["units"]}
    width = game["table"]["width_mm"]
    for z in zones:
        ys = sorted({p[1] for p in z["points_mm"]})
        assert ys[1] - ys[0] == pytest.approx(304.8)  # 12" deep
        assert sorted({p[0] for p in z["points_mm"]}) == [0.0, width]


def test_models_out_of_cohesion_are_marked_for_every_watcher(make_app: Any) -> None:
    game = {"ruleset": "firefight", "table": {"width_mm": 1219.2, "depth_mm": 1219.2},
            "units": [{"id": "squad", "side": "A", "leader": "s1"}],
            "models": [{"id": "s1", "unit": "squad", "x_mm": 100, "y_mm": 100, "base_mm": 25},
                       {"id": "s2", "unit": "squad", "x_mm": 140, "y_mm": 100, "base_mm": 25},
                       {"id": "s3", "unit": "squad", "x_mm": 400, "y_mm": 100, "base_mm": 25}]}
    client = make_app(GAME=game).test_client()
    assert client.get("/api/state").json["game"]["cohesion"] == {"squad": ["s3"]}
    r = client.post("/api/models/s3/move", json={"x_mm": 180, "y_mm": 100})  # 15 mm from s2: within 1"
    assert r.json["game"]["cohesion"] == {}


def test_a_frame_without_image_keeps_the_last_good_one(make_app: Any) -> None:
    from server.live import Snapshot
    app = make_app([([still(4, 100, 100)], [])])
    ov = app.extensions["tabletracker"]
    ov.loop.step()
    lost = Snapshot(2, 0.0, 0.0, None, (), (), (TrackEvent("camera_lost"),), None, (600.0, 400.0),
                    status="camera_lost", message="camera 0: no frame")
    ov.on_snapshot(lost)
    client = app.test_client()
    assert client.get("/api/state").json["live"]["status"] == "camera_lost"
    r = client.get("/api/frame/camera.jpg")
    assert r.status_code == 200 and r.headers["X-Frame-Seq"] == "1"
    assert client.get("/api/projection").status_code == 200


def test_page_changes_and_tracker_moves_at_once_lose_nothing(make_app: Any) -> None:
    import time
    frames = []
    for i in range(60):
        y0, y1 = 100.0 + 2 * i, 102.0 + 2 * i
        frames.append(([still(4, 100, y1)], [TrackEvent("moved", marker_id=4, from_mm=(100.0, y0), to_mm=(100.0, y1),
                                                        distance_mm=2.0)]))
    app = make_app(frames, FPS=400.0)
    ov = app.extensions["tabletracker"]
    client = app.test_client()
    ov.start()
    for i in range(20):
        assert client.post("/api/objectives", json={"x_mm": 10 + i, "y_mm": 10}).status_code == 200
    deadline = time.monotonic() + 60  # a ceiling for a loaded machine: the loop ends with its frames
    while ov.loop.running and time.monotonic() < deadline:
        time.sleep(0.01)
    ov.stop()
    game = client.get("/api/state").json["game"]["game"]
    assert len(game["objectives"]) == 21  # the sample one and the 20 added
    a1 = next(m for m in game["models"] if m["id"] == "a1")
    assert a1["y_mm"] == 220.0  # the tracker's last move
    assert sum(e["kind"] == "move" for e in client.get("/api/log?limit=1000").json["events"]) == 60


def test_actions_lists_each_action_with_its_typed_arguments_and_legal_values(make_app: Any) -> None:
    game = at43_battle()
    client = make_app(GAME=game).test_client()
    got = client.get("/api/actions")
    assert got.status_code == 200
    by_name = {a["action"]: a for a in got.json["actions"]}
    assert set(by_name) == {"shoot", "activate", "lead", "artillery", "end-turn", "shoot_melee"}
    shoot = {p["name"]: p for p in by_name["shoot"]["arguments"]}
    units = [u["id"] for u in game["units"]]
    assert shoot["firing"]["kind"] == "unit" and shoot["firing"]["required"] and shoot["firing"]["legal"] == units
    assert shoot["cover"]["legal"] == ["yes", "no", "auto"]
    una = next(u["id"] for u in game["units"] if u["side"] == "UNA")
    carried = {w for m in game["models"] if m["unit"] == una for w in m.get("weapons", [])}
    assert shoot["weapon"]["of"] == "firing" and set(shoot["weapon"]["legal"][una]) == carried
