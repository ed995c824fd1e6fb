"""The project's docs served for the explanations' links; the shot shown before it is taken; forms from the core."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from rules.plan import parse_game
from rules.questions import ask
from rules.resolve import resolve
from server.docs import docs_dir, markdown_to_html
from server.pages import action_forms
from server.shotpreview import shot_preview
from tests.server.conftest import ROOT

GAMES = ROOT / "rules" / "data" / "games"
RULESETS = ("at-43", "feu-a-volonte", "firefight", "high-fire", "star-wars")


def sample(name: str) -> Any:
    return parse_game(json.loads((GAMES / f"{name}-sample.json").read_text(encoding="utf-8")))


def test_a_doc_page_renders_safely_with_its_anchors(tmp_path: Any) -> None:
    html = markdown_to_html('# T\n<a id="firefight-3"></a>\n**3. Cover** <script>x</script> [game](game-file.md)')
    assert '<a id="firefight-3"></a>' in html and "<script>" not in html and '<a href="game-file">game</a>' in html


def test_the_docs_route_serves_a_page_and_refuses_others(client: Any, tmp_path: Any, monkeypatch: Any) -> None:
    import server.docs

    (tmp_path / "rule-choices.md").write_text('# Choices\n<a id="firefight-3"></a>\n**3. Cover helps the target.**',
                                              encoding="utf-8")
    monkeypatch.setattr(server.docs, "docs_dir", lambda: tmp_path)
    r = client.get("/docs/rule-choices")
    assert r.status_code == 200 and r.mimetype == "text/html"
    assert b'<a id="firefight-3"></a>' in r.data and b"<b>3. Cover helps the target.</b>" in r.data
    for bad in ("../pyproject", "nope", "x.toml", "Rule-Choices"):
        assert client.get(f"/docs/{bad}").status_code == 404


@pytest.mark.parametrize("ruleset", RULESETS)
def test_explanations_cite_the_docs_never_the_team_notes(ruleset: str) -> None:
    plan = sample(ruleset)
    texts = [json.dumps(ask(plan, "distance", [plan.models[0].model_id, plan.models[-1].model_id]))]
    side = {u.unit_id: u.side for u in plan.units}
    for a in plan.models:
        for b in plan.models:
            if side[a.unit_id] == side[b.unit_id]:
                continue
            first = "shooter" if ruleset == "star-wars" else "firing"
            ids = (a.model_id, b.model_id) if ruleset in ("star-wars", "feu-a-volonte") else (a.unit_id, b.unit_id)
            try:
                texts.append(json.dumps(resolve(plan, "shoot", {first: ids[0], "target": ids[1]}, None).to_json()))
            except ValueError:
                continue
            if len(texts) > 3:
                break
    joined = "\n".join(texts)
    assert "RULES-NOTES" not in joined and "CONVENTIONS" not in joined
    for doc in re.findall(r'"doc": "([^"]+)"', joined):
        page, anchor = doc.split("#")
        text = (docs_dir() / page).read_text(encoding="utf-8") if docs_dir() and (docs_dir() / page).exists() else None
        assert anchor.startswith(ruleset) and (text is None or f'id="{anchor}"' in text), doc


@pytest.mark.parametrize("ruleset, unit", [("at-43", "sierra-alpha"), ("firefight", "snipers-a"),
                                           ("star-wars", "st-1"), ("feu-a-volonte", "para-1")])
def test_the_shot_preview_gives_every_enemy_a_verdict_and_odds_from_the_core(ruleset: str, unit: str,
                                                                            monkeypatch: Any) -> None:
    import server.shotpreview

    # exact odds whatever the machine's load (the preview's short budget is partly on the clock: a busy CI
    # machine turned them into estimates, or refusals, which then differ from the core's exact odds)
    monkeypatch.setattr(server.shotpreview, "PREVIEW_BUDGET_S", 30.0)
    plan = sample(ruleset)
    out = shot_preview(plan, unit)
    side = plan.unit(unit).side
    enemies = {u.unit_id for u in plan.units if u.side != side}
    assert {e["unit"] for e in out["enemies"]} == enemies
    shootable = [e for e in out["enemies"] if e["status"] in ("clear", "cover")]
    assert shootable, out
    for e in shootable:  # the chance is the one the rules core gives for that very shot
        w = e["weapons"][0]
        odds = resolve(plan, "shoot", w["request"], None).to_json()["odds"]
        from server.shotpreview import casualty_chance
        assert w["chance"] == casualty_chance(odds) and 0 < w["chance"] <= 1
    for e in out["enemies"]:
        assert e["status"] in ("not_visible", "refused", "cover", "clear")
        assert (e["status"] == "refused") == bool(e.get("reason"))


def test_a_high_fire_preview_names_the_missing_table_entry() -> None:
    out = shot_preview(sample("high-fire"), "alpha")
    refused = [e for e in out["enemies"] if e["status"] == "refused"]
    assert refused and all("weapon" in e["reason"] for e in refused)
    assert all("/" not in e["reason"] for e in refused)  # never a server path


@pytest.mark.parametrize("ruleset", RULESETS)
def test_every_action_form_comes_from_the_core_with_legal_values(ruleset: str) -> None:
    plan = sample(ruleset)
    forms = action_forms(plan)
    shoot = forms["shoot"]
    assert shoot["described"] and shoot["args"][1]["enemy_of"] == shoot["args"][0]["name"]
    kinds = {a["kind"] for f in forms.values() for a in f["args"]}
    assert kinds <= {"unit", "model", "weapon", "number", "choice", "models", "units"}
    weapon = next(a for a in shoot["args"] if a["kind"] == "weapon")
    assert weapon["values_by"] and all(isinstance(v, list) for v in weapon["values_by"].values())
