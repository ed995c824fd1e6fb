"""In headless chromium: a roster figure not placed yet is not drawn at the table corner.

Situation: the High Fire sample game, no camera, with the bundled blue roster merged in
(blue-hq, blue-1... whose figures the tracker has not placed: "off-table").
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from rules.plan import OFF_TABLE, game_to_dict, load_game
from rules.roster import load_roster, merge_rosters
from tests.server.browser import chromium, open_page
from tests.server.conftest import ROOT
from tests.server.serving import Served

pytestmark = pytest.mark.browser


def test_off_table_figures_are_not_drawn_until_placed(tmp_path: Path) -> None:
    plan = load_game(ROOT / "rules" / "data" / "games" / "high-fire-sample.json")
    merged = merge_rosters(plan, [load_roster(ROOT / "rules" / "data" / "rosters" / "high-fire-blue.json")])
    waiting = [m.model_id for m in merged.models if m.has_status(OFF_TABLE)]
    assert "bhq-1" in waiting  # blue-hq is not in the sample game: its figures wait off the table
    game = tmp_path / "game.json"
    game.write_text(json.dumps(game_to_dict(merged)), encoding="utf-8")
    with chromium() as browser, Served(["--no-source", "--game", str(game), "--db", str(tmp_path / "g.db")]) as served:
        page = open_page(browser, served.url)
        drawn = set(page.eval_on_selector_all("#plan-svg polygon.model", "ps => ps.map(p => p.dataset.model)"))
        assert drawn == {m.model_id for m in merged.models} - set(waiting)
        status, body = served.post("api/models/" + waiting[0] + "/move", {"x_mm": 300.0, "y_mm": 300.0})
        assert status == 200, body
        page.wait_for_selector(f"#plan-svg polygon.model[data-model='{waiting[0]}']", timeout=30_000)
        assert page.errors == []
        page.close()
