"""An answer's explanation in French and in English, in headless chromium (issue 10, item 4).

Every step of the rules core leaves it as a message id with parameters; the server adds their
``texts`` ({fr, en}, from the catalogues, ``tabletracker.i18n.localize``) and the page shows the
one of its language. Here the sight answer of the sample table (m11 to m16, behind ruins) must
read in French on the French page and in English on the English page, with nothing spilling out
of the screen at 1440 x 900 or 390 x 844. ``TT_SHOTS=folder`` saves the screenshots.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, Iterator

import pytest

from tests.server.browser import chromium, model_centre
from tests.server.conftest import ROOT
from tests.server.serving import Served, serve_game

pytestmark = pytest.mark.browser
FR = ("m11 voit m16 : 100 % de la largeur de son socle", "ruins-1 : ruines : couvert et terrain difficile")
EN = ("m11 sees m16: 100% of its base width", "ruins-1: ruins: cover and difficult")


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    game = json.loads((ROOT / "sample_images" / "sequence" / "game.json").read_text(encoding="utf-8"))
    with serve_game(tmp_path_factory.mktemp("explain"), game) as s:
        yield s


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with chromium() as b:
        yield b


def _tap(page: Any, model: str) -> None:
    x, y = model_centre(page, model)
    page.locator("#plan-svg").dispatch_event("pointerdown", {
        "button": 0, "clientX": x, "clientY": y})


def _overflow(page: Any) -> list[str]:
    """Elements of the answer reaching past the right edge of the screen."""
    return list(page.evaluate("""() => {
        const w = document.documentElement.clientWidth;
        return Array.from(document.querySelectorAll('#answer, #answer *'))
            .filter((e) => e.getBoundingClientRect().right > w + 1)
            .map((e) => e.tagName + ' ' + (e.textContent || '').slice(0, 40));
    }"""))


@pytest.mark.parametrize("size", [{"width": 1440, "height": 900}, {"width": 390, "height": 844}])
def test_an_explanation_shows_the_cores_french_steps_and_the_english_fallback_fits(
        served: Any, browser: Any, size: dict[str, int]) -> None:
    phone = size["width"] < 700
    ctx = browser.new_context(viewport=size, has_touch=phone, is_mobile=phone, locale="fr-FR")
    page = ctx.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(served.url)
    page.wait_for_selector("#plan-svg polygon.model")
    page.click("#lang-fr")
    try:
        page.click("[data-tool=los]")
        _tap(page, "m11")
        _tap(page, "m16")
        page.wait_for_selector("#los-result")
        page.click("#answer details.explain summary")
        steps = page.locator("#answer ul.explanation li")
        assert steps.count() >= 2
        text = page.inner_text("#answer")
        assert all(fr in text for fr in FR), text  # the core's messages, in French
        assert not any(en in text for en in EN) and "RULES-NOTES" not in text
        assert "géométrie : lignes de vue" in text and "geometry" not in text  # the step's source too
        if phone and "full" not in (page.get_attribute("#sheet", "class") or ""):
            page.click("#sheet-handle")  # the answers' sheet pulled up over the plan
        page.locator("#answer details.explain").scroll_into_view_if_needed()
        page.wait_for_timeout(300)
        assert _overflow(page) == []
        if os.environ.get("TT_SHOTS"):
            Path(os.environ["TT_SHOTS"]).mkdir(parents=True, exist_ok=True)
            page.screenshot(path=str(Path(os.environ["TT_SHOTS"]) / f"explain-fr-{size['width']}.png"))
        page.click("#lang-en")  # the page's other language: the same steps from the English catalogue
        page.wait_for_function(f"() => document.querySelector('#answer').innerText.includes({json.dumps(EN[0])})")
        text = page.inner_text("#answer")
        assert all(en in text for en in EN) and not any(fr in text for fr in FR), text
        assert errors == []
    finally:
        ctx.close()
