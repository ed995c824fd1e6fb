"""End to end in headless chromium: the page on the sample table, its tools and its languages.

One ``tabletracker serve`` subprocess plays the bundled sample sequence (the README's
run command); another serves the AT-43 sample game, whose rule set has fire zones.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any, Iterator

import pytest

from rules.plan import load_game
from rules.questions import ask
from tests.server.browser import chromium, measure, open_page, pick_units, wait_live
from tests.server.conftest import ROOT
from tests.server.serving import Served, game_path

pytestmark = pytest.mark.browser
SAMPLE_GAME = ROOT / "sample_images" / "sequence" / "game.json"


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with chromium() as b:
        yield b


@pytest.fixture(scope="module")
def sample(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    db = tmp_path_factory.mktemp("sample") / "game.db"
    with Served(["--db", str(db)]) as served:
        yield served


@pytest.fixture(scope="module")
def at43(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    db = tmp_path_factory.mktemp("at43") / "game.db"
    with Served(["--no-source", "--game", str(game_path()), "--db", str(db)]) as served:
        yield served


def test_the_page_shows_the_sample_table_live(browser: Any, sample: Served) -> None:
    state = sample.get("api/state")
    models = state["game"]["game"]["models"]
    page = open_page(browser, sample.url)
    wait_live(page, 2)
    assert page.locator("#plan-svg polygon.model").count() == len(models)
    assert page.locator("#camera-svg polygon.model").count() == len(models)
    # frames are named by this server's run and the frame's number: never an address a previous run used
    run = page.evaluate("() => window.TT.live.run")
    assert run and sample.url + f"api/frame/plan.jpg?run={run}&seq=" in page.get_attribute("#plan-svg image", "href")
    assert sample.url + f"api/frame/camera.jpg?run={run}&seq=" in page.get_attribute("#camera-svg image", "href")
    # live: a frame came within the last seconds (a loaded machine may leave a gap: "paused" until the next one)
    status = page.wait_for_function("""() => { const s = document.querySelector("#status");
                                              return s.dataset.status === "ok" && s.innerText; }""").json_value()
    assert status.startswith("en direct"), status
    names = page.locator("#plan-svg text.model-label").all_text_contents()
    assert any((m.get("name") or m["id"]) in " ".join(names) for m in models)
    assert page.errors == []
    page.close()


def test_a_measurement_shows_the_expected_distance(browser: Any, sample: Served) -> None:
    # m11 and m17 stand still through the whole sample sequence (truth.json moves others)
    page = open_page(browser, sample.url)
    text = measure(page, "m11", "m17")
    expected = ask(load_game(SAMPLE_GAME), "distance", ["m11", "m17"])
    edge, centre = expected["edge_to_edge"], expected["centre_to_centre"]
    # the rule set's way first (Firefight: edge to edge), in French with a decimal comma
    assert text.endswith(f'{edge["value"]:.2f}" bord à bord · {centre["value"]:.2f}" centre à centre'.replace(".", ",")), text
    assert page.locator("#plan-svg polyline.measure").count() == 1
    assert page.is_hidden("#fz-fieldset")  # Firefight has no fire zone question
    page.close()


def test_a_move_seen_by_the_camera_is_shown_with_its_length(browser: Any, sample: Served) -> None:
    page = open_page(browser, sample.url)
    # the move and its label read together (the sequence goes on moving models meanwhile)
    shown = page.wait_for_function(
        """() => {
            const move = window.TT.game.last_move;
            const label = document.querySelector("#plan-svg text.move-label");
            return move && label ? {move, label: label.textContent} : null;
        }""", timeout=60_000).json_value()
    move, label = shown["move"], shown["label"]
    truth = {e["marker_id"]: e for e in json.loads((SAMPLE_GAME.parent / "truth.json").read_text())["events"]
             if e["type"] == "move"}
    t = truth[move["marker_id"]]
    assert abs(move["distance_mm"] - t["distance_mm"]) < 3.0
    assert label == f'{move["distance_mm"] / 25.4:.2f}"'.replace(".", ",")
    page.close()


def test_choosing_two_units_draws_the_fire_zone(browser: Any, at43: Served) -> None:
    page = open_page(browser, at43.url)
    pick_units(page, "sierra-alpha", "golems-264")
    expected = ask(load_game(game_path()), "firezone", ["sierra-alpha", "golems-264"])
    numbers = page.locator("#plan-svg text.impact-number").all_text_contents()
    assert numbers == [str(i + 1) for i in range(len(expected["impact_order"]))]
    assert len(numbers) >= 1
    caught = page.inner_text("#firezone-result")
    for item in expected["impact_order"]:
        assert item["model"] in caught
    assert f"{expected['band']}" in page.inner_text("#firezone-band")
    points = page.get_attribute("#plan-svg polygon.firezone", "points")
    assert len(points.split()) == len(expected["zone_mm"])
    page.close()


def test_the_language_switch_works_and_is_remembered(browser: Any, at43: Served) -> None:
    page = open_page(browser, at43.url)
    assert page.get_attribute("html", "lang") == "fr"
    assert page.inner_text("[data-tab=tools]") == "Outils"
    assert page.inner_text("#tool-hint") == "Choisissez un outil, puis cliquez sur les figurines."
    page.click("#lang-en")
    assert page.get_attribute("html", "lang") == "en"
    assert page.inner_text("[data-tab=tools]") == "Tools"
    assert page.inner_text("[data-tab=log]") == "Log"
    page.reload()
    page.wait_for_selector("#plan-svg polygon.model")
    assert page.inner_text("[data-tab=setup]") == "Set-up"
    page.click("#lang-fr")
    assert page.inner_text("[data-tab=setup]") == "Mise en place"
    page.close()


def test_undo_from_the_page_and_the_log(browser: Any, at43: Served) -> None:
    status, _ = at43.post("api/objectives", {"x_mm": 600, "y_mm": 1000})
    assert status == 200
    page = open_page(browser, at43.url)
    page.click("[data-tab=log]")
    page.wait_for_selector("#log li.log-objective-add")
    assert re.search(r"Objectif ajouté", page.inner_text("#log"))
    page.click("#undo")
    page.wait_for_selector("#log li.log-objective-add.undone")
    assert "annulé" in page.inner_text("#log li.log-objective-add")
    page.close()


def test_a_terrain_piece_is_drawn_on_the_plan(browser: Any, at43: Served) -> None:
    page = open_page(browser, at43.url)
    page.click("[data-tab=setup]")
    page.select_option("#tr-kind", "ruins")
    page.click("#tr-draw")
    box = page.locator("#plan-svg").bounding_box()
    cx, cy = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    side = min(box["width"], box["height"])  # the square table, centred in the view
    for fx, fy in ((0.20, 0.20), (0.35, 0.20), (0.35, 0.35)):
        page.mouse.click(cx + side * fx, cy + side * fy)
    page.click("#tr-done")
    page.wait_for_function("() => window.TT.game.game.terrain.some(t => t.kind === 'ruins' && t.points_mm.length === 3)")
    assert page.locator("#plan-svg polygon.terrain-area").count() >= 1
    page.close()


def test_no_request_leaves_the_machine(browser: Any, at43: Served) -> None:
    page = browser.new_page()
    urls: list[str] = []
    page.on("request", lambda r: urls.append(r.url))
    page.goto(at43.url)
    page.wait_for_selector("#plan-svg polygon.model")
    page.wait_for_timeout(300)
    assert urls and all(u.startswith(at43.url) or u.startswith("data:") for u in urls), urls
    page.close()



@pytest.fixture(scope="module")
def battle(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Served, dict[str, Any]]]:
    from tests.server.test_api import at43_battle

    folder = tmp_path_factory.mktemp("battle")
    game = at43_battle()
    (folder / "battle.json").write_text(json.dumps(game), encoding="utf-8")
    with Served(["--no-source", "--game", str(folder / "battle.json"), "--db", str(folder / "g.db")]) as served:
        yield served, game


def test_an_action_is_resolved_from_the_page(browser: Any, battle: tuple[Served, dict[str, Any]]) -> None:
    served, game = battle
    sides = {u["side"]: u["id"] for u in game["units"]}
    firing, target = sides["UNA"], next(v for k, v in sides.items() if k != "UNA")
    weapon = next(w for m in game["models"] if m["unit"] == firing for w in m.get("weapons", []))
    page = open_page(browser, served.url)
    page.click("[data-tab=resolve]")
    page.select_option("#rs-action", "shoot")
    page.select_option("#arg-firing", firing)
    page.select_option("#arg-target", target)
    page.select_option("#arg-weapon", weapon)
    page.click("#rs-odds")
    page.wait_for_selector("#resolution table.odds")
    assert re.fullmatch(r"\d+ % de chances d'au moins une perte", page.inner_text("#rs-headline"))  # the headline first
    assert "Il faut" in page.inner_text("#resolution")  # the roll needed, then the modifiers with sources
    assert page.locator("#resolution .explanation cite").count() >= 3
    assert page.is_disabled("#rs-apply")
    page.click("#rs-roll")
    page.wait_for_selector("#rolled-dice")
    dice = page.inner_text("#rolled-dice")
    assert re.fullmatch(r"\d(, \d)*", dice)
    models_before = page.evaluate("() => window.TT.game.game.models.length")
    page.click("#rs-apply")
    page.wait_for_function("() => window.TT.game.game !== null && window.TT.logEvents.some(e => e.kind === 'resolution')")
    page.wait_for_selector("#applied-list li")
    page.click("[data-tab=log]")
    assert f"dés {dice}" in page.inner_text("#log li.log-resolution")
    assert "Sierra" in page.inner_text("#log li.log-resolution")  # units by their names
    page.click("#undo")
    page.wait_for_selector("#log li.log-resolution.undone")
    assert page.evaluate("() => window.TT.game.game.models.length") == models_before
    page.close()


def test_range_bands_of_a_weapon_are_drawn_around_a_model(browser: Any, sample: Served) -> None:
    page = open_page(browser, sample.url)
    page.select_option("#rg-model", "m11")
    page.select_option("#rg-weapon", "rifle")  # the roster knows its range: 24"
    page.wait_for_selector("#bands-result")
    assert page.input_value("#rg-range") == "24"
    page.fill("#rg-range", "12")
    page.click("#rg-show")
    page.wait_for_function("() => document.querySelector('#bands-result').textContent.includes('12,00')")
    text = page.inner_text("#bands-result")
    # Firefight: in range up to 12", and Stealth/Relentless change beyond 9"; measured from the base's
    # edge, which the rings' note says (the base radius is added to each ring)
    assert text.startswith('à portée < 9,00"') and "hors de portée" in text, text
    assert "rayon 0,49\" ajouté" in page.inner_text("#bands-how")
    assert page.locator("#plan-svg polygon.range-band").count() == 2
    page.close()


def test_the_game_is_set_up_from_the_page(browser: Any, tmp_path: Path) -> None:
    with Served(["--no-source", "--game", str(game_path()), "--db", str(tmp_path / "g.db")]) as served:
        page = open_page(browser, served.url)
        page.click("[data-tab=setup]")
        page.fill("#su-width", "1000")
        page.fill("#su-depth", "900")
        with page.expect_response("**/api/state") as reloaded:  # the handler reloads the state when done
            page.click("#su-apply")
        assert reloaded.value.ok
        page.wait_for_function("() => window.TT.game.game.table.width_mm === 1000")
        assert page.get_attribute("#plan-svg", "viewBox") == "0 0 1000 900"
        # a rule set that does not know this table's terrain: each piece gets a proposed kind there
        terrain = served.get("api/state")["game"]["game"]["terrain"]
        page.select_option("#su-ruleset", "high-fire")
        page.wait_for_selector("#su-mapping:not([hidden])")
        assert page.locator("#su-mapping select").count() == len(terrain)
        page.click("#su-apply")
        page.wait_for_function("() => window.TT.game.game.ruleset === 'high-fire'")
        assert page.input_value("#su-ruleset") == "high-fire"
        assert page.locator(".error").filter(has_text="Erreur").count() == 0
        page.close()


def test_rosters_are_loaded_and_markers_assigned_from_the_page(browser: Any, tmp_path: Path) -> None:
    truth = json.loads((ROOT / "sample_images" / "hf600_1080p_top.json").read_text())
    frames = tmp_path / "frames"
    frames.mkdir()
    (frames / "frame_0000.jpg").write_bytes((ROOT / "sample_images" / "hf600_1080p_top.jpg").read_bytes())
    (tmp_path / "setup.json").write_text(json.dumps(truth["setup"]))
    table = truth["setup"]["table"]
    (tmp_path / "game.json").write_text(json.dumps({"ruleset": "firefight", "table": table, "units": [], "models": []}))
    roster = ROOT / "rules" / "data" / "rosters" / "firefight-troopers.json"
    markers = {m["marker_id"]: m for m in truth["models"]}
    with Served(["--images", str(frames), "--setup", str(tmp_path / "setup.json"), "--game",
                 str(tmp_path / "game.json"), "--db", str(tmp_path / "g.db")]) as served:
        page = open_page_empty(browser, served.url)
        page.wait_for_function("() => window.TT.live && window.TT.live.models.length > 5", timeout=30_000)
        page.click("[data-tab=setup]")
        page.set_input_files("#su-rosters", str(roster))
        page.wait_for_function("() => window.TT.game.game.models.length > 0")
        game = page.evaluate("() => window.TT.game.game")
        tr1 = next(m for m in game["models"] if m["id"] == "tr-1")  # carries marker 10, which the camera sees
        assert abs(tr1["x_mm"] - markers[10]["x_mm"]) < 2 and abs(tr1["y_mm"] - markers[10]["y_mm"]) < 2
        # give marker 17 (seen, not in the roster) to the captain
        row = page.locator("#su-detected li", has_text="#17")
        row.locator("select").select_option("tr-cpt")
        row.locator("button").click()
        page.wait_for_function("() => window.TT.game.game.models.some(m => m.id === 'tr-cpt' && m.marker_id === 17)")
        cpt = next(m for m in page.evaluate("() => window.TT.game.game.models") if m["id"] == "tr-cpt")
        assert abs(cpt["x_mm"] - markers[17]["x_mm"]) < 2 and abs(cpt["y_mm"] - markers[17]["y_mm"]) < 2
        page.close()


def open_page_empty(browser: Any, url: str) -> Any:
    """Open a page whose game has no model yet."""
    page = browser.new_page()
    page.goto(url)
    page.wait_for_function("() => window.TT.game !== null")
    return page


def test_the_rules_words_of_a_resolution_are_in_the_pages_language(browser: Any,
                                                                   battle: tuple[Served, dict[str, Any]]) -> None:
    # the rules core writes its rule names and needed/odds labels in English: the French page
    # shows them in French (the detail text of each step stays as the rules core wrote it)
    served, game = battle
    sides = {u["side"]: u["id"] for u in game["units"]}
    firing, target = sides["UNA"], next(v for k, v in sides.items() if k != "UNA")
    weapon = next(w for m in game["models"] if m["unit"] == firing for w in m.get("weapons", []))
    words: dict[str, tuple[list[str], str, list[str]]] = {}
    for lang in ("fr", "en"):
        page = open_page(browser, served.url, lang=lang)
        page.click("[data-tab=resolve]")
        page.select_option("#rs-action", "shoot")
        page.select_option("#arg-firing", firing)
        page.select_option("#arg-target", target)
        page.select_option("#arg-weapon", weapon)
        page.click("#rs-odds")
        page.wait_for_selector("#resolution table.odds")
        page.click("#resolution details.explain summary")  # the explanation comes folded
        words[lang] = (page.locator("#resolution .explanation li > b").all_inner_texts(),
                       page.inner_text("#rs-needed"),
                       page.locator("#resolution table.odds caption").all_inner_texts())
        assert page.errors == []
        page.close()
    (fr_rules, fr_needed, fr_odds), (en_rules, en_needed, en_odds) = words["fr"], words["en"]
    assert {"zone de feu", "couvert", "test de tir"} <= set(fr_rules) and "fire zone" not in fr_rules
    assert {"fire zone", "cover", "shooting test"} <= set(en_rules) and "zone de feu" not in en_rules
    assert len(fr_rules) == len(en_rules) and not set(fr_rules) & set(en_rules)
    assert "pour toucher : " in fr_needed and "to hit" not in fr_needed and fr_needed.startswith("Il faut")
    assert re.search(r"dégâts \([^)]+\) : \d\+", fr_needed) and re.search(r"damage \([^)]+\): \d\+", en_needed)
    assert "to hit: " in en_needed and "pour toucher" not in en_needed and en_needed.startswith("Needed")
    assert "figurines retirées" in fr_odds and "models removed" in en_odds


def test_the_cameras_moves_are_folded_in_the_log(browser: Any, sample: Served) -> None:
    page = open_page(browser, sample.url)
    page.click("[data-tab=log]")
    # the sample's camera places and moves models: three in a row or more become one line
    page.wait_for_selector("#log li.camera-run:not(.camera-rejected) summary", timeout=60_000)
    # the line and its entries read at once: the sequence goes on, and a new move redraws the log
    summary, count = page.evaluate("""() => {
        const run = document.querySelector("#log li.camera-run:not(.camera-rejected)");
        return [run.querySelector("summary").innerText, run.querySelectorAll("ol > li").length];
    }""")
    assert re.fullmatch(r"caméra : \d+ mouvements et placements vus", summary), summary
    n = int(re.search(r"\d+", summary).group())
    assert n >= 3 and count == n
    page.close()


def _hold_first(page: Any, pattern: str, asking: str) -> list[Any]:
    """Route ``pattern``: its first request whose body holds ``asking`` is answered by the server at once but
    the answer reaches the page only when :func:`_let_go` says; the others pass."""
    held: list[Any] = []

    def handler(route: Any) -> None:
        if held or asking not in (route.request.post_data or ""):
            route.continue_()
        else:
            held.append((route, route.fetch()))

    page.route(pattern, handler)
    return held


def _wait_held(page: Any, held: list[Any]) -> None:
    for _ in range(1200):  # the request reaches the route a moment after the click (30 s at most)
        if held:
            return
        page.wait_for_timeout(25)
    raise AssertionError("the request to hold never came")


def _let_go(page: Any, held: list[Any], pattern: str) -> None:
    """Answer the held request now, then leave the page time to handle that late answer."""
    _wait_held(page, held)
    with page.expect_response(pattern) as late:
        route, answer = held[0]
        route.fulfill(response=answer)
    late.value.finished()
    page.wait_for_timeout(500)  # a page that used the late answer has done so by now


def test_a_roll_answered_after_the_target_changed_is_not_offered_to_apply(
        browser: Any, battle: tuple[Served, dict[str, Any]]) -> None:
    served, game = battle
    weapon = next(w for m in game["models"] if m["unit"] == "sierra-bravo" for w in m.get("weapons", []))
    page = open_page(browser, served.url)
    page.click("[data-tab=resolve]")
    page.select_option("#rs-action", "shoot")
    page.select_option("#arg-firing", "sierra-bravo")
    page.select_option("#arg-target", "golems-264")
    page.select_option("#arg-weapon", weapon)
    held = _hold_first(page, "**/api/resolve", '"seed"')
    page.click("#rs-roll")
    page.select_option("#arg-target", "golems-256")  # the player changes the target before the dice come back
    _let_go(page, held, "**/api/resolve")
    assert page.is_disabled("#rs-apply")  # never the first target's dice applied to the second
    assert page.locator("#rolled-dice").count() == 0
    assert page.evaluate("() => window.TT.lastRoll") is None
    page.close()


def test_a_sight_line_answered_after_a_measurement_does_not_replace_it(browser: Any, at43: Served) -> None:
    page = open_page(browser, at43.url)
    held = _hold_first(page, "**/api/ask", '"los"')
    page.click("[data-tool=los]")
    page.click('#plan-svg polygon[data-model="sa-1"]')
    page.click('#plan-svg polygon[data-model="sa-2"]')
    text = measure(page, "sa-1", "sa-4")  # asked after the sight line, answered before it
    _let_go(page, held, "**/api/ask")
    assert page.inner_text("#measure-result") == text
    assert page.locator("#los-result").count() == 0
    page.close()


def test_a_fire_zone_answered_after_a_newer_one_does_not_replace_it(browser: Any, at43: Served) -> None:
    game = load_game(game_path())
    older = ask(game, "firezone", ["sierra-alpha", "golems-264"])
    newer = ask(game, "firezone", ["sierra-alpha", "golems-256"])
    assert older["zone_mm"] != newer["zone_mm"]  # (else the test could not tell them apart)
    page = open_page(browser, at43.url)
    held = _hold_first(page, "**/api/ask", '"golems-264"')
    page.select_option("#fz-firing", "sierra-alpha")
    page.select_option("#fz-target", "golems-264")
    _wait_held(page, held)
    page.select_option("#fz-target", "golems-256")  # asked after the first zone, answered before it
    page.wait_for_selector("#plan-svg polygon.firezone", timeout=30_000)
    shown = page.get_attribute("#plan-svg polygon.firezone", "points")
    caught = page.inner_text("#firezone-result")
    assert len(shown.split()) == len(newer["zone_mm"])
    _let_go(page, held, "**/api/ask")
    assert page.get_attribute("#plan-svg polygon.firezone", "points") == shown
    assert page.inner_text("#firezone-result") == caught
    assert page.locator("#plan-svg polygon.firezone").count() == 1
    page.close()


def test_a_state_or_a_log_answered_before_a_later_change_does_not_replace_it(browser: Any, at43: Served) -> None:
    page = open_page(browser, at43.url)
    page.wait_for_function("() => window.TT.logEvents !== undefined && window.TT.logEvents !== null")
    # the state read again (the set-up applied with nothing changed) is answered after the next change came
    page.click("[data-tab=setup]")
    held = _hold_first(page, "**/api/state", "")
    page.click("#su-apply")
    _wait_held(page, held)
    first = at43.post("api/objectives", {"x_mm": 650, "y_mm": 1100})[1]["event"]["id"]
    page.wait_for_function(f"() => window.TT.game.event_id === {first}")
    _let_go(page, held, "**/api/state")
    assert page.evaluate("() => window.TT.game.event_id") == first
    # the log asked for after one change is answered after the next change's
    held = _hold_first(page, "**/api/log*", "")
    assert at43.post("api/objectives", {"x_mm": 700, "y_mm": 1100})[0] == 200
    _wait_held(page, held)
    third = at43.post("api/objectives", {"x_mm": 750, "y_mm": 1100})[1]["event"]["id"]
    page.wait_for_selector(f'#log li[data-event="{third}"]', state="attached")
    _let_go(page, held, "**/api/log*")
    assert page.locator(f'#log li[data-event="{third}"]').count() == 1
    page.close()
    for _ in range(3):  # the game as the other tests found it
        assert at43.post("api/undo", {})[0] == 200
