"""A malformed game or roster imported through the page is refused in the player's language (issue 10, item 4).

The refusal leaves the rules core as a message id with parameters (the field reader's, the
game file's, the roster's); the API answers its French and English texts (``error.text``)
beside the English ``message``, which the command line still prints.
"""

from __future__ import annotations

import json
from typing import Any

from tests.server.conftest import ROOT, small_game

ROSTERS = ROOT / "rules" / "data" / "rosters"


def _error(response: Any) -> dict[str, Any]:
    assert response.status_code == 400, response.json
    return dict(response.json["error"])


def test_a_malformed_game_is_refused_in_french(client: Any) -> None:
    game = small_game()
    broken = {**game, "models": [{**game["models"][0], "x_mm": "loin"}, *game["models"][1:]]}
    err = _error(client.post("/api/game/import", json={"game": broken, "filename": "partie.json"}))
    assert err["code"] == "invalid_game" and err["msg"] == "file.not_number"
    assert err["message"] == "imported game: models[0].x_mm must be a number, got a string 'loin'"
    assert err["text"]["fr"] == "partie importée : models[0].x_mm doit être un nombre, reçu : un texte 'loin'."
    assert err["text"]["en"] == err["message"]  # the English words are the core's own


def test_a_game_with_a_dangling_unit_is_refused_in_french(client: Any) -> None:
    game = small_game()
    broken = {**game, "models": [{**game["models"][0], "unit": "nobody"}, *game["models"][1:]]}
    err = _error(client.post("/api/game/import", json={"game": broken}))
    assert err["msg"] == "file.unknown_unit"
    assert err["text"]["fr"] == ("partie importée : models[0].unit « nobody » n'est pas une unité de cette partie ; "
                                 "unités : alpha, golems.")
    assert "'nobody' is not a unit" in err["message"]


def test_a_roster_with_an_unknown_weapon_is_refused_in_french(make_app: Any) -> None:
    game = json.loads((ROOT / "rules" / "data" / "games" / "at-43-sample.json").read_text(encoding="utf-8"))
    game = {**game, "units": [], "models": [], "profiles": {}, "weapons": {}}
    client = make_app(GAME=game).test_client()
    roster = json.loads((ROSTERS / "at-43-una-sierra.json").read_text(encoding="utf-8"))
    unit = roster["units"][0]
    model = unit["models"][0]
    unit["models"][0] = {**model, "weapons": [*model.get("weapons", []), "cuillère à plasma"]}
    r = client.post("/api/setup/rosters", json={"rosters": [{"filename": "una.json", "text": json.dumps(roster)}]})
    err = _error(r)
    assert err["code"] == "invalid_roster" and err["msg"] == "roster.weapon_not_listed"
    fr = err["text"]["fr"]
    assert fr.startswith(f"una.json : la figurine « {model['id']} » de l'unité « {unit['id']} » porte une arme "
                         "inconnue, « cuillère à plasma » ; armes connues : "), fr
    assert "carries unknown weapon 'cuillère à plasma'" in err["message"] and "carries" in err["text"]["en"]
    # the game is kept as it was
    assert json.loads(client.get("/api/game/export").get_data(as_text=True))["units"] == []


def test_a_roster_of_another_rule_set_is_refused_in_french(client: Any) -> None:
    text = (ROSTERS / "firefight-troopers.json").read_text(encoding="utf-8")
    err = _error(client.post("/api/setup/rosters", json={"rosters": [{"filename": "ff.json", "text": text}]}))
    assert err["msg"] == "roster.other_ruleset"
    assert err["text"]["fr"] == "ff.json : cette liste d'armée est pour firefight, mais la partie se joue à at-43."
