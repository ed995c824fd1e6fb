"""Setting a model's elevation from the page (issue 13, item 5), in headless chromium.

A short figure behind a low wall is out of sight; the player taps it, the page proposes the
height of the terrain piece it stands on (here a hill), the player sets it, and the sight answer
changes: the wall is now lower than both figures' eyes, seen over, and gives cover. The plan
labels the raised model; undo (a player's action) puts it back on the table.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Iterator

import pytest

from tests.server.browser import chromium, model_centre
from tests.server.serving import Served, serve_game

pytestmark = pytest.mark.browser

GAME = {
    "ruleset": "firefight", "name": "low wall",
    "table": {"width_mm": 1219.2, "depth_mm": 1219.2},
    "units": [{"id": "a", "side": "A"}, {"id": "b", "side": "B"}],
    "models": [{"id": "a1", "unit": "a", "x_mm": 100, "y_mm": 300, "base_mm": 25, "height_mm": 30},
               {"id": "b1", "unit": "b", "x_mm": 500, "y_mm": 300, "base_mm": 25, "height_mm": 15}],
    "terrain": [{"id": "low-wall", "kind": "wall", "shape": "line", "name": "muret",
                 "points_mm": [[300, 200], [300, 400]], "height_mm": 20},
                {"id": "hill", "kind": "open", "shape": "area", "name": "colline",
                 "points_mm": [[450, 250], [560, 250], [560, 350], [450, 350]], "height_mm": 12.7}],
}


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    with serve_game(tmp_path_factory.mktemp("elevation"), GAME) as s:
        yield s


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with chromium() as b:
        yield b


def _tap(page: Any, model: str) -> None:
    x, y = model_centre(page, model)
    page.locator(f'#plan-svg polygon[data-model="{model}"]').dispatch_event(
        "pointerdown", {"button": 0, "clientX": x, "clientY": y})


def _sight(page: Any) -> tuple[str, str]:
    page.click("[data-tool=clear]")
    page.click("[data-tool=los]")
    _tap(page, "a1")
    _tap(page, "b1")
    page.wait_for_selector("#los-result")
    out = page.locator("#los-result")
    verdict, text = out.get_attribute("data-verdict"), out.inner_text()
    page.click("[data-tool=los]")  # the tool off: a tap selects a model again
    return verdict, text


@pytest.mark.parametrize("size", [{"width": 1440, "height": 900}, {"width": 390, "height": 844}])
def test_a_player_raises_a_model_onto_a_hill_and_the_low_wall_no_longer_blocks_sight(
        served: Any, browser: Any, size: dict[str, int], tmp_path: Path) -> None:
    phone = size["width"] < 700
    ctx = browser.new_context(viewport=size, has_touch=phone, is_mobile=phone, locale="fr-FR")
    page = ctx.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.goto(served.url)
    page.wait_for_selector("#plan-svg polygon.model")
    page.click("#lang-fr")
    try:
        verdict, text = _sight(page)
        assert verdict == "sight.blocked_by" and "muret" in text, text

        _tap(page, "b1")  # selected: the ground height control, the hill's height proposed
        page.wait_for_selector("#elevation-control")
        assert "Hauteur du sol" in page.inner_text("#elevation-control")
        assert "colline" in page.inner_text("#elevation-hint")
        assert page.input_value("#elevation-value") == "0.5"  # 12.7 mm in Firefight's inches
        page.select_option("#elevation-unit", label="mm")
        assert page.input_value("#elevation-value") == "12.7"
        page.click("#elevation-set")
        page.wait_for_selector('#plan-svg text[data-elevation="b1"]')
        assert "0,5" in page.text_content('#plan-svg text[data-elevation="b1"]')  # in the rule set's unit

        verdict, text = _sight(page)  # b1's eyes now 27.7 mm up, a1's 30: both over the 20 mm wall
        assert verdict == "sight.visible" and "couvert derrière muret" in text, text
        page.click("#answer details.explain summary")
        assert "20 mm" in page.inner_text("#answer details.explain")  # the explanation says the height decided

        page.click("[data-tab=log]")
        # the newest line is this setting (the phone's run finds the desk's setting and its undo before it)
        page.wait_for_selector("#log > li:first-child.log-elevation:not(.undone)")
        assert "b1" in page.inner_text("#log > li:first-child")
        with page.expect_response(lambda r: r.url.endswith("api/undo")):  # answered before the next run acts
            page.click("#undo")
        page.wait_for_function("() => !document.querySelector('#plan-svg text[data-elevation]')")
        page.click("[data-tab=tools]")
        verdict, _ = _sight(page)
        assert verdict == "sight.blocked_by"
        if phone:
            page.screenshot(path=str(tmp_path / "elevation-phone.png"))
        assert errors == []
    finally:
        ctx.close()
