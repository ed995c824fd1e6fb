"""POST /api/models/<id>/elevation: a model standing on a floor or a hill (docs/heights.md)."""

from __future__ import annotations

from typing import Any


def test_setting_a_models_elevation_is_saved_in_the_game_and_logged(client: Any) -> None:
    r = client.post("/api/models/g2/elevation", json={"elevation_mm": 63.5})
    assert r.status_code == 200, r.json
    model = next(m for m in r.json["game"]["game"]["models"] if m["id"] == "g2")
    assert model["elevation_mm"] == 63.5
    back = client.post("/api/models/g2/elevation", json={"elevation_mm": 0})
    model = next(m for m in back.json["game"]["game"]["models"] if m["id"] == "g2")
    assert "elevation_mm" not in model  # on the table again: the default, not written
    log = client.get("/api/log?limit=5").json["events"]
    assert any(e["kind"] == "elevation" and e["payload"]["elevation_mm"] == 63.5 for e in log)


def test_a_bad_elevation_is_refused_with_a_reason(client: Any) -> None:
    r = client.post("/api/models/g2/elevation", json={"elevation_mm": "high"})
    assert r.status_code == 400
    r = client.post("/api/models/g2/elevation", json={"elevation_mm": 99999})
    assert r.status_code == 400 and "between" in r.json["error"]["message"]
    assert client.post("/api/models/zz/elevation", json={"elevation_mm": 10}).status_code == 400
