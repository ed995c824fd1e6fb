"""Figures loaded from rosters wait off the table until placed; the page's questions ignore or refuse them.

Situation: the AT-43 sample table emptied, both bundled AT-43 rosters loaded from the
set-up tab, no camera: every figure is "off-table" until moved onto the table by hand.
"""

from __future__ import annotations

import json
from typing import Any

from tests.server.conftest import ROOT

ROSTERS = ROOT / "rules" / "data" / "rosters"


def test_roster_figures_wait_off_the_table_until_moved_onto_it(make_app: Any) -> None:
    game = json.loads((ROOT / "rules" / "data" / "games" / "at-43-sample.json").read_text())
    game = {**game, "units": [], "models": [], "profiles": {}, "weapons": {}}
    client = make_app(GAME=game).test_client()
    rosters = [{"filename": p.name, "text": p.read_text(encoding="utf-8")} for p in sorted(ROSTERS.glob("at-43-*.json"))]
    r = client.post("/api/setup/rosters", json={"rosters": rosters})
    assert r.status_code == 200, r.json
    models = {m["id"]: m for m in r.json["game"]["game"]["models"]}
    assert models["sa-1"]["status"] == ["off-table"] and models["g256-1"]["status"] == ["off-table"]

    r = client.post("/api/ask", json={"question": "distance", "args": ["sa-1", "g256-1"]})
    assert r.status_code == 409 and "'sa-1' is not on the table yet" in r.json["error"]["message"]

    for model_id, x in (("sa-1", 200.0), ("g256-1", 500.0)):
        r = client.post(f"/api/models/{model_id}/move", json={"x_mm": x, "y_mm": 300.0})
        assert r.status_code == 200, r.json
        assert r.json["event"]["kind"] == "place" and "distance_mm" not in r.json["event"]["payload"]
    models = {m["id"]: m for m in client.get("/api/state").json["game"]["game"]["models"]}
    assert "status" not in models["sa-1"] and models["sa-2"]["status"] == ["off-table"]
    r = client.post("/api/ask", json={"question": "distance", "args": ["sa-1", "g256-1"]})
    assert r.status_code == 200, r.json
    assert r.json["explanation"][0]["rule"] == "figures off the table"
    assert "sa-2" in r.json["explanation"][0]["text"] and "sa-1," not in r.json["explanation"][0]["text"]
    base = (models["sa-1"]["base_mm"] + models["g256-1"]["base_mm"]) / 2
    assert abs(r.json["distance"]["mm"] - (300.0 - base)) < 0.01
