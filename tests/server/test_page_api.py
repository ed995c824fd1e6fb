"""What the page relies on: undo of the players' actions, rule-set switch with a terrain
mapping, what an applied resolution changed, and the live status of the frame source."""

from __future__ import annotations

import json
from typing import Any

from server.live import TrackEvent
from tests.server.conftest import ROOT, small_game, still
from tests.server.test_api import at43_battle


def test_undo_skips_the_cameras_moves_and_keeps_where_it_sees_models(make_app: Any) -> None:
    frames = [([still(4, 100, 100), still(5, 140, 100), still(6, 400, 300)], []),
              ([still(4, 100, 180), still(5, 140, 100), still(6, 400, 300)],
               [TrackEvent("moved", marker_id=4, from_mm=(100.0, 100.0), to_mm=(100.0, 180.0), distance_mm=80.0)])]
    app = make_app(frames)
    ov = app.extensions["tabletracker"]
    client = app.test_client()
    ov.loop.step()
    r = client.post("/api/objectives", json={"x_mm": 50, "y_mm": 50})  # the player's action
    assert r.status_code == 200
    ov.loop.step()  # then the camera sees a1 move
    events = client.get("/api/log").json["events"]
    assert [(e["kind"], e["undoable"]) for e in events[-2:]] == [("objective.add", True), ("move", False)]
    r = client.post("/api/undo", json={})
    assert r.status_code == 200 and r.json["event"]["payload"]["undone_kind"] == "objective.add"
    game = r.json["game"]["game"]
    assert game.get("objectives", []) == small_game()["objectives"]
    a1 = next(m for m in game["models"] if m["id"] == "a1")
    assert (a1["x_mm"], a1["y_mm"]) == (100.0, 180.0)  # where the camera sees it, not where it was


def test_undo_back_to_a_picked_log_entry_undoes_the_later_actions_too(make_app: Any) -> None:
    client = make_app().test_client()
    first = client.post("/api/objectives", json={"x_mm": 50, "y_mm": 50}).json["event"]["id"]
    client.post("/api/setup/table", json={"width_mm": 700, "depth_mm": 500})
    client.post("/api/objectives", json={"x_mm": 60, "y_mm": 60})
    r = client.post("/api/undo", json={"event": first})
    assert r.status_code == 200 and len(r.json["event"]["payload"]["undone"]) == 3
    assert r.json["game"]["game"]["table"] == small_game()["table"]
    assert r.json["game"]["game"]["objectives"] == small_game()["objectives"]
    again = client.post("/api/undo", json={"event": first})
    assert again.status_code == 409 and again.json["error"]["code"] == "nothing_to_undo"


def test_switching_rule_set_proposes_a_kind_for_each_piece_and_applies_it_in_one_step(make_app: Any) -> None:
    client = make_app().test_client()
    client.post("/api/terrain", json={"kind": "ruins", "shape": "area", "points_mm": [[200, 150], [260, 150], [260, 210]]})
    client.post("/api/terrain", json={"kind": "building", "shape": "area", "points_mm": [[300, 50], [350, 50], [350, 90]]})
    r = client.post("/api/setup/ruleset/proposal", json={"ruleset": "star-wars"})
    assert r.status_code == 200
    proposed = {p["terrain"]: p for p in r.json["pieces"]}
    assert proposed["terrain-1"]["proposed"] in ("crates", "rocks")  # cover, difficult: the nearest
    assert proposed["terrain-2"]["proposed"] == "building" and proposed["terrain-2"]["same"]
    refused = client.post("/api/setup/ruleset", json={"ruleset": "star-wars"})
    assert refused.status_code == 400 and refused.json["error"]["proposal"]
    assert client.get("/api/state").json["game"]["game"]["ruleset"] == "at-43"
    mapping = {k: v["proposed"] for k, v in proposed.items()}
    r = client.post("/api/setup/ruleset", json={"ruleset": "star-wars", "mapping": mapping})
    assert r.status_code == 200, r.json
    assert r.json["game"]["game"]["ruleset"] == "star-wars"
    assert [t["kind"] for t in r.json["game"]["game"]["terrain"]] == [mapping["terrain-1"], "building"]
    assert r.json["event"]["payload"]["mapping"] == {"terrain-1": mapping["terrain-1"]}
    undone = client.post("/api/undo", json={}).json["game"]["game"]
    assert undone["ruleset"] == "at-43" and [t["kind"] for t in undone["terrain"]] == ["ruins", "building"]
    bad = client.post("/api/setup/ruleset", json={"ruleset": "star-wars", "mapping": {"terrain-1": "lava"}})
    assert bad.status_code == 400 and bad.json["error"]["code"] == "terrain_kind_refused"
    assert bad.json["error"]["params"]["terrain"] == "terrain-1"


def test_an_applied_shot_says_what_it_changed_and_the_removed_models_stay_known(make_app: Any) -> None:
    game = at43_battle()
    units = {u["side"]: u["id"] for u in game["units"]}
    firing, target = units["UNA"], next(v for k, v in units.items() if k != "UNA")
    weapon = next(w for m in game["models"] if m["unit"] == firing for w in m.get("weapons", []))
    client = make_app(GAME=game).test_client()
    body = {"action": "shoot", "request": {"firing": firing, "target": target, "weapon": weapon}}
    for seed in range(40):  # a roll that removes someone
        rolled = client.post("/api/resolve", json={**body, "seed": seed}).json
        if rolled["result"].get("removed"):
            break
    dice = [d["value"] for d in rolled["dice"]]
    applied = client.post("/api/resolve/apply", json={**body, "dice": dice})
    payload = applied.json["event"]["payload"]
    removed = [r["model"] for r in payload["changes"]["removed"]]
    assert removed == rolled["result"]["removed"]
    assert all(r["unit_name"] and r["name"] for r in payload["changes"]["removed"])
    assert payload["names"]["firing"] and payload["names"]["target"]
    state = client.get("/api/state").json["game"]
    assert [r["model"] for r in state["removed"]] == removed
    client.post("/api/undo", json={})
    assert client.get("/api/state").json["game"]["removed"] == []


def test_a_needed_roll_in_words_comes_in_both_languages_beside_its_english(make_app: Any) -> None:
    game = json.loads((ROOT / "rules" / "data" / "games" / "feu-a-volonte-sample.json").read_text(encoding="utf-8"))
    client = make_app(GAME=game).test_client()
    res = client.post("/api/resolve", json={"action": "melee", "request": {"attacker": "para-1", "defender": "us-2"}})
    assert res.status_code == 200, res.json
    assert res.json["needed"] == {"win": "higher total"}  # as before, for the API's users
    words = res.json["needed_words"]["win"]
    assert words["msg"] == "feu_a_volonte.needed.higher_total"
    assert words["texts"] == {"fr": "le total le plus fort", "en": "higher total"}


def test_the_live_view_names_its_run_and_says_when_the_source_ended(make_app: Any) -> None:
    app = make_app([([still(4, 100, 100)], [])])
    ov = app.extensions["tabletracker"]
    client = app.test_client()
    ov.loop.step()
    live = client.get("/api/state").json["live"]
    assert live["seq"] == 1 and live["run"] and live["status"] != "source_ended"
    ov.loop.step()  # the scripted source has no more frames
    assert client.get("/api/state").json["live"]["status"] == "source_ended"


def test_every_error_id_the_page_renders_has_french_and_english_words() -> None:
    import json
    import re

    from tests.server.conftest import ROOT

    text = (ROOT / "server" / "static" / "i18n.js").read_text(encoding="utf-8")
    words = json.loads(text[text.index("{"): text.rindex("}") + 1])
    api = (ROOT / "server" / "api.py").read_text(encoding="utf-8")
    # the errors the page's own code raises with parameters: each one has its sentence in both languages
    codes = {m.group(1) for chunk in api.split("ApiError(")[1:] if "params=" in chunk.split("\n\n")[0]
             for m in [re.match(r'\d+, "(\w+)"', chunk)] if m}
    codes |= {"nothing_to_undo", "nothing_to_apply", "dice_typed"}
    assert {"terrain_kind", "terrain_kind_refused", "unknown_kind"} <= codes
    for lang in ("fr", "en"):
        assert sorted(c for c in codes if f"err.{c}" not in words[lang]) == [], lang


def test_the_page_carries_its_first_state_and_versioned_scripts_kept_by_the_browser(client: Any) -> None:
    import json
    import re

    r = client.get("/")
    assert r.status_code == 200 and r.headers["Cache-Control"] == "no-cache"  # the state inside changes
    html = r.get_data(as_text=True)
    boot = re.search(r'<script id="boot-state" type="application/json">(.*?)</script>', html, re.S)
    assert boot is not None
    state = json.loads(boot.group(1))
    assert state["game"]["game"]["name"] == "test table" and "shoot" in state["action_forms"]
    assert state == client.get("/api/state").json  # the same as the API's
    scripts = re.findall(r'src="(/static/[a-z0-9]+\.js\?v=[0-9a-f]{12})"', html)
    assert len(scripts) == 3
    with client.get(scripts[0]) as kept:
        assert kept.status_code == 200 and "immutable" in kept.headers["Cache-Control"]
    with client.get(scripts[0].split("?")[0]) as plain:  # without its version: asked again each time
        assert "max-age" not in plain.headers.get("Cache-Control", "")


def test_the_page_state_escapes_what_a_player_typed(make_app: Any) -> None:
    game = small_game()
    game["name"] = "</script><script>alert(1)</script>"
    html = make_app(GAME=game).test_client().get("/").get_data(as_text=True)
    assert "<script>alert(1)" not in html
