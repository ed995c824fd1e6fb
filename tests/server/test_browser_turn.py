"""A whole turn played from the page only, in headless chromium, on a desk screen and a phone.

For each of the five rule sets (Firefight on the sample table, AT-43 on the bundled rosters,
the bundled Star Wars, Feu à Volonté and High Fire sample games, High Fire with the players'
tables file): switch rule set with the proposed terrain mapping (then undo it), measure,
check sight, prepare a shot (the shot shown before it is taken: every enemy unit's verdict
and odds, then the rule set's geometry of the chosen target) and read its odds, type the dice, apply,
see the casualties gone from the plan and named in the log, undo the shot; then the same
in English. No console error. ``TT_SHOTS=folder`` saves a screenshot of each step.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any, Iterator

import pytest

from tests.server.browser import chromium
from tests.server.conftest import ROOT
from tests.server.serving import Served, serve_game

pytestmark = pytest.mark.browser
SIZES = {"desk": ({"width": 1440, "height": 900}, False), "phone": ({"width": 390, "height": 844}, True)}
WORDS = {
    "fr": {"chance": r"[1-9]\d* % de chances d'au moins une perte", "removed": "retirées :", "undone": "annulé",
           "out": "hors de combat",
           "sight": r"(visible|partiellement caché \d+ %|bloquée par .+)( · à couvert derrière .+)?",
           "measure": r'\d+,\d\d( cm| pas| UD|") bord à bord · \d+,\d\d( cm| pas| UD|") centre à centre'},
    "en": {"chance": r"[1-9]\d* % chance of at least one casualty", "removed": "removed:", "undone": "undone",
           "out": "out of action",
           "sight": r"(visible|partly hidden \d+ %|blocked by .+)( · in cover behind .+)?",
           "measure": r'\d+\.\d\d( cm| pas| UD|") edge to edge · \d+\.\d\d( cm| pas| UD|") centre to centre'},
}


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with chromium() as b:
        yield b


@pytest.fixture(scope="module")
def firefight(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    game = json.loads((ROOT / "sample_images" / "sequence" / "game.json").read_text())
    with serve_game(tmp_path_factory.mktemp("ff"), game) as served:
        yield served


@pytest.fixture(scope="module")
def at43(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    from tests.server.test_api import at43_battle

    game = at43_battle()
    game["terrain"] = [{"id": "ruins-1", "kind": "ruins", "shape": "area", "name": "ruins",
                        "points_mm": [[500, 500], [620, 500], [620, 580], [500, 580]]}]
    with serve_game(tmp_path_factory.mktemp("at43"), game) as served:
        yield served


@pytest.fixture(scope="module")
def star_wars(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    game = json.loads((ROOT / "rules" / "data" / "games" / "star-wars-sample.json").read_text())
    with serve_game(tmp_path_factory.mktemp("sw"), game) as served:
        yield served


@pytest.fixture(scope="module")
def feu_a_volonte(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    game = json.loads((ROOT / "rules" / "data" / "games" / "feu-a-volonte-sample.json").read_text())
    with serve_game(tmp_path_factory.mktemp("fav"), game) as served:
        yield served


@pytest.fixture(scope="module")
def high_fire(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    """The High Fire sample with the players' tables file (fictitious test tables: the booklet is not shipped)."""
    from tests.rules.test_combat_high_fire import fake_tables
    from tests.rules.test_sample_games_playable import HF_WEAPONS

    folder = tmp_path_factory.mktemp("hf")
    (folder / "my-high-fire-tables.json").write_text(json.dumps(fake_tables(weapons=HF_WEAPONS)), encoding="utf-8")
    game = json.loads((ROOT / "rules" / "data" / "games" / "high-fire-sample.json").read_text())
    game["options"] = {**game.get("options", {}), "high_fire_tables": str(folder / "my-high-fire-tables.json")}
    with serve_game(folder, game) as served:
        yield served


def star_wars_pair(served: Served, game: dict[str, Any]) -> tuple[str, str]:
    """An imperial trooper and a rebel it can shoot at (in range and seen)."""
    side = {u["id"]: u["side"] for u in game["units"]}
    armed = [m for m in game["models"] if m.get("weapons")]
    for a in (m for m in armed if side[m["unit"]] == "empire"):
        for b in (m for m in armed if side[m["unit"]] != "empire"):
            status, _ = served.post("api/resolve", {"action": "shoot", "request": {"shooter": a["id"], "target": b["id"]}})
            if status == 200:
                return a["id"], b["id"]
    raise AssertionError("no imperial can shoot at a rebel in the Star Wars sample")


def killing_dice(served: Served, body: dict[str, Any]) -> list[int]:
    """Dice (typed by the players) that make this shot remove (or put out of action) at least one model."""
    before = len(served.get("api/state")["game"]["game"]["models"])
    for face in (1, 10):
        for n in range(1, 25):
            status, res = served.post("api/resolve", {**body, "dice": [face] * n})
            if status == 200 and (len(res["game"]["models"]) < before or "out-of-action" in json.dumps(res["result"])):
                return [face] * n
            if status == 200:
                break
    for hits in range(1, 25):
        for tail in range(0, 25):
            dice = [6] * hits + [1] * tail
            status, res = served.post("api/resolve", {**body, "dice": dice})
            if status == 200 and (len(res["game"]["models"]) < before or "out-of-action" in json.dumps(res["result"])):
                return dice
            if status == 200 or "not needed" in json.dumps(res):
                break
    raise AssertionError(f"no typed dice remove a model for {body}")


def shot(page: Any, name: str) -> None:
    folder = os.environ.get("TT_SHOTS")
    if folder:
        Path(folder).mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(Path(folder) / f"{name}.png"))


def tap_model(page: Any, model: str, touch: bool) -> None:
    """Tap a little beside the model's centre: the tap selects the nearest model within a finger's reach."""
    x, y = page.evaluate("""(id) => {
        const m = window.TT.game.game.models.find((x) => x.id === id);
        const ctm = document.querySelector("#plan-svg").getScreenCTM();
        return [ctm.a * m.x_mm + ctm.e + 3, ctm.d * m.y_mm + ctm.f + 2];
    }""", model)
    if touch:
        page.touchscreen.tap(x, y)
    else:
        page.mouse.click(x, y)


def play_turn(page: Any, served: Served, *, lang: str, touch: bool, switch_to: str, request: dict[str, str],
              pair: tuple[str, str], name: str) -> dict[str, float]:
    w = WORDS[lang]
    state = served.get("api/state")
    game = state["game"]["game"]
    ruleset = game["ruleset"]
    page.click(f"#lang-{lang}")

    # 1. switch rule set: each terrain piece gets a proposed kind, confirmed in one undoable step
    page.click("[data-tab=setup]")
    page.select_option("#su-ruleset", switch_to)
    page.wait_for_selector("#su-mapping:not([hidden])")
    assert page.locator("#su-mapping select").count() == len(game.get("terrain", []))
    shot(page, f"{name}-1-mapping")
    # the page reloads its state once the switch is answered: that answer read before the undo below,
    # so an older state cannot come back after the undo's
    with page.expect_response(lambda r: r.url.endswith("api/state")):
        page.click("#su-apply")
    page.wait_for_function(f"() => window.TT.game.game.ruleset === '{switch_to}'")
    kinds = {k["kind"] for k in served.get("api/state")["terrain_kinds"]}
    assert {t["kind"] for t in served.get("api/state")["game"]["game"].get("terrain", [])} <= kinds
    page.click("[data-tab=log]")
    with page.expect_response(lambda r: r.url.endswith("api/undo")):
        page.click("#undo")
    page.wait_for_function(f"() => window.TT.game.game.ruleset === '{ruleset}'")
    page.wait_for_function(f"() => document.querySelector('#su-ruleset').value === '{ruleset}'")

    # 2. measure, as the rule set measures first
    page.click("[data-tab=tools]")
    page.click("[data-tool=measure]")
    tap_model(page, pair[0], touch)
    tap_model(page, pair[1], touch)
    page.wait_for_selector("#measure-result")
    measured = page.inner_text("#measure-result")
    names = {m["id"]: m.get("name") or m["id"] for m in game["models"]}
    assert measured.startswith(f"{names[pair[0]]} → {names[pair[1]]}"), measured
    # the way the rule set measures comes first (Feu à Volonté: centre to centre)
    first_how, second_how = w["measure"].split(" · ")
    assert re.search(f"{first_how} · {second_how}|{second_how} · {first_how}", measured), measured
    # 3. sight, in one vocabulary
    page.click("[data-tool=los]")
    tap_model(page, pair[0], touch)
    tap_model(page, pair[1], touch)
    page.wait_for_selector("#los-result")
    assert page.inner_text("#los-result").startswith(f"{names[pair[0]]} → {names[pair[1]]}")
    sight = page.inner_text("#los-result").split(" : ", 1)[-1].split(": ", 1)[-1]
    assert re.fullmatch(w["sight"], sight), sight
    assert "dégagée" not in sight
    timings = dict(page.evaluate("() => window.TT.timings"))
    shot(page, f"{name}-2-sight")

    # 4. prepare the shot: the form's pickers, then the odds, headline first
    page.click("[data-tab=resolve]")
    page.select_option("#rs-action", "shoot")
    first, *rest = request.items()
    page.select_option(f"#arg-{first[0]}", first[1])
    # the shot shown before it is taken: every enemy unit's verdict, drawn on the plan and listed
    acting = first[1] if first[0] in ("firing",) and any(u["id"] == first[1] for u in game["units"]) else \
        next(m["unit"] for m in game["models"] if m["id"] == first[1])
    page.wait_for_function(f"() => window.TT.preview && window.TT.preview.ruleset === '{ruleset}' "
                           f"&& window.TT.preview.unit === '{acting}' && document.querySelector('#shot-preview li')")
    side = next(u["side"] for u in game["units"] if u["id"] == acting)
    placed = {m["unit"] for m in game["models"] if m.get("x_mm") is not None}
    enemies = {u["id"] for u in game["units"] if u["side"] != side and u["id"] in placed}
    listed = page.eval_on_selector_all("#shot-preview li", "(els) => els.map((e) => [e.dataset.unit, e.dataset.status])")
    assert {u for u, _ in listed} == enemies, listed
    assert {st for _, st in listed} <= {"clear", "cover", "refused", "not_visible"}
    assert {st for _, st in listed} & {"clear", "cover"}, page.inner_text("#shot-preview")
    page.wait_for_function(f"() => document.querySelectorAll('#plan-svg polyline.preview').length === {len(enemies)}")
    timings_preview = page.evaluate("() => window.TT.timings.preview")
    for arg, value in rest:  # in the form's order: each choice narrows the next one
        page.select_option(f"#arg-{arg}", value)
    page.wait_for_selector("#aim-result")  # the rule set's geometry of this shot, with no further click
    assert page.inner_text("#aim-result").strip()
    shot(page, f"{name}-3-aim")
    page.click("#rs-odds")
    page.wait_for_selector("#rs-headline")
    assert re.fullmatch(w["chance"], page.inner_text("#rs-headline")), page.inner_text("#rs-headline")
    assert page.locator("#resolution table.odds").count() >= 1
    assert page.locator("#resolution details.explain[open]").count() == 0  # folded
    assert "RULES-NOTES" not in page.inner_text("#resolution")
    timings["preview"] = timings_preview
    shot(page, f"{name}-3-odds")

    # 5. the players roll and type their dice; apply; the casualties leave the plan and enter the log
    body = {"action": "shoot", "request": request}
    dice = killing_dice(served, body)
    page.fill("#rs-dice", ", ".join(map(str, dice)))
    page.click("#rs-typed")
    page.wait_for_selector("#rolled-dice")
    page.click("#rs-apply")
    page.wait_for_selector("#applied-list li")
    removed = [r["model"] for r in served.get("api/state")["game"]["removed"]]
    # High Fire keeps a figure put out of action on the table, marked so (Hors de combat)
    out = [m["id"] for m in served.get("api/state")["game"]["game"]["models"] if "out-of-action" in (m.get("status") or [])]
    assert removed or out
    for m in removed:
        page.wait_for_selector(f'#plan-svg polygon[data-model="{m}"]', state="detached")
    models = {m["id"]: m for m in game["models"]}
    applied = page.inner_text("#applied-list")
    assert all((models[m].get("name") or m) in applied for m in removed + out), applied
    assert w["removed"] in applied if removed else w["out"] in applied, applied
    removed = removed or out
    shot(page, f"{name}-4-applied")
    page.click("[data-tab=log]")
    line = page.inner_text("#log li.log-resolution:not(.undone)")
    assert all((models[m].get("name") or m) in line for m in removed), line

    # 6. undo the shot: the models are back, the log says so (answered before the next pass or test acts:
    # a figure put out of action stays drawn, so its return below does not wait for the undo)
    with page.expect_response(lambda r: r.url.endswith("api/undo")) as undone:
        page.click("#undo")
    assert undone.value.ok
    event = undone.value.json()["event"]["id"]
    page.wait_for_selector(f'#log li[data-event="{event}"]')
    page.wait_for_selector("#log li.log-resolution.undone")
    for m in removed:
        page.wait_for_selector(f'#plan-svg polygon[data-model="{m}"]')
    assert w["undone"] in page.inner_text("#log li.log-resolution.undone")
    shot(page, f"{name}-5-undone")
    return timings


@pytest.mark.parametrize("size", list(SIZES))
@pytest.mark.parametrize("ruleset", ["firefight", "at-43", "star-wars", "feu-a-volonte", "high-fire"])
def test_a_whole_turn_from_the_page(browser: Any, firefight: Served, at43: Served, star_wars: Served,
                                    feu_a_volonte: Served, high_fire: Served, ruleset: str, size: str) -> None:
    served = {"firefight": firefight, "at-43": at43, "star-wars": star_wars, "feu-a-volonte": feu_a_volonte,
              "high-fire": high_fire}[ruleset]
    viewport, touch = SIZES[size]
    ctx = browser.new_context(viewport=viewport, has_touch=touch, is_mobile=touch)
    page = ctx.new_page()
    problems: list[str] = []
    page.on("console", lambda m: problems.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: problems.append(str(e)))
    refused: list[str] = []  # which request a "failed to load" console error was about
    page.on("response", lambda r: refused.append(f"{r.url} {r.status} {r.text()[:200]}") if r.status >= 400 else None)
    page.goto(served.url)
    page.wait_for_selector("#plan-svg polygon.model")
    game = served.get("api/state")["game"]["game"]
    if ruleset == "firefight":
        args = {"switch_to": "at-43", "request": {"firing": "red-2", "target": "blue-1"}, "pair": ("m10", "m16")}
    elif ruleset == "at-43":
        golems = [u["id"] for u in game["units"] if u["side"] != "UNA"]
        args = {"switch_to": "firefight", "request": {"firing": "sierra-alpha", "target": golems[-1], "weapon": "laser rifle"},
                "pair": ("sa-1", next(m["id"] for m in game["models"] if m["unit"] == golems[-1]))}
    elif ruleset == "feu-a-volonte":  # a figure shoots at a figure in its front arc, in sight
        args = {"switch_to": "firefight", "pair": ("para-1", "us-2"), "request": {"firing": "para-1", "target": "us-2"}}
    elif ruleset == "high-fire":  # unit against unit, with the players' tables
        args = {"switch_to": "firefight", "pair": ("al-1", "rd2-1" if any(m["id"] == "rd2-1" for m in game["models"])
                                                   else next(m["id"] for m in game["models"] if m["unit"] == "red-2")),
                "request": {"firing": "alpha", "target": "red-2", "weapon": "fusil d'assaut"}}
    else:  # Star Wars: a figure shoots at a figure, with a weapon of its own
        shooter, target = star_wars_pair(served, game)
        args = {"switch_to": "firefight", "pair": (shooter, target),
                "request": {"shooter": shooter, "target": target,
                            "weapon": next(m for m in game["models"] if m["id"] == shooter)["weapons"][0]}}
    for lang in ("fr", "en"):
        play_turn(page, served, lang=lang, touch=touch, name=f"{ruleset}-{size}-{lang}", **args)
    assert problems == [], refused
    ctx.close()


def test_a_refused_switch_says_why_beside_the_select_and_keeps_the_games_rule_set(browser: Any, at43: Served) -> None:
    page = browser.new_page(viewport=SIZES["desk"][0])
    page.goto(at43.url)
    page.wait_for_selector("#plan-svg polygon.model")
    page.click("[data-tab=setup]")
    page.select_option("#su-ruleset", "star-wars")
    page.wait_for_selector("#su-mapping:not([hidden]) select")
    # a kind the player could not pick (the list changed under their hand): refused by the server
    page.evaluate("""() => { const s = document.querySelector('#su-mapping select');
                             const o = document.createElement('option'); o.value = 'lava'; o.textContent = 'lava';
                             s.appendChild(o); s.value = 'lava'; }""")
    page.click("#su-apply")
    error = page.wait_for_selector("#su-game .error.near")
    assert "lava" in error.inner_text() and "Star Wars" in error.inner_text(), error.inner_text()
    assert page.input_value("#su-ruleset") == "at-43"  # never left showing a rule set the game is not in
    assert at43.get("api/state")["game"]["game"]["ruleset"] == "at-43"
    page.click("[data-tab=log]")
    with page.expect_response(lambda r: r.url.endswith("api/undo")):  # done before the next test's actions
        page.click("#undo")  # the next action starts: the old error goes
    assert page.locator(".error.near").count() <= 1
    assert page.locator("#su-game .error.near").count() == 0
    page.close()


def test_undo_back_to_a_log_entry_from_the_page(browser: Any, at43: Served) -> None:
    first = at43.post("api/objectives", {"x_mm": 600, "y_mm": 1000})[1]["event"]["id"]
    at43.post("api/objectives", {"x_mm": 700, "y_mm": 1000})
    page = browser.new_page(viewport=SIZES["desk"][0])
    page.goto(at43.url)
    page.wait_for_selector("#plan-svg polygon.model")
    page.click("[data-tab=log]")
    page.click(f'#log li[data-event="{first}"] button.undo-to')
    page.wait_for_selector(f'#log li[data-event="{first}"].undone')
    assert page.locator("#log li.log-objective-add.undone").count() >= 2
    assert not [o for o in at43.get("api/state")["game"]["game"].get("objectives", []) if o["y_mm"] == 1000]
    page.close()


def test_a_tapped_model_offers_what_it_can_do(browser: Any, firefight: Served) -> None:
    ctx = browser.new_context(viewport=SIZES["phone"][0], has_touch=True, is_mobile=True)
    page = ctx.new_page()
    page.goto(firefight.url)
    page.wait_for_selector("#plan-svg polygon.model")
    tap_model(page, "m12", True)
    page.wait_for_selector("#selected-model")
    assert page.inner_text("#selected-model") == "m12 · Snipers"
    offers = page.locator(".model-actions button").all_inner_texts()
    assert offers[:2] == ["Mesurer depuis", "Ligne de vue depuis"] and "tir" in offers
    page.click("[data-offer='offer.measure']")
    tap_model(page, "m14", True)
    page.wait_for_selector("#measure-result")
    assert page.inner_text("#measure-result").startswith("m12 → m14 : ")
    page.click("[data-tool=measure]")  # the measure tool off: a tap selects again
    tap_model(page, "m12", True)
    page.click("[data-offer=shoot]")
    assert page.is_visible("#tab-resolve") and page.input_value("#arg-firing") == "red-2"
    ctx.close()
