"""The roll a resolution needs, in the page's language, in headless chromium.

A needed roll is a figure ("5+") or words: Feu à Volonté's melee is won by the "higher total", its
shot needs "more than the defence (...)". The rules core gives those words a message id; the
server words them in both languages (``needed_words``, beside ``needed``) and the page shows the
one of its language, as it does an explanation's steps.
"""

from __future__ import annotations

import json
from typing import Any, Iterator

import pytest

from tests.server.browser import chromium
from tests.server.conftest import ROOT
from tests.server.serving import Served, serve_game

pytestmark = pytest.mark.browser
WORDS = {"fr": ("le total le plus fort", "plus que la défense (4d6, on garde les 2 meilleurs"),
         "en": ("higher total", "more than the defence (4d6 keep 2")}


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    game = json.loads((ROOT / "rules" / "data" / "games" / "feu-a-volonte-sample.json").read_text(encoding="utf-8"))
    with serve_game(tmp_path_factory.mktemp("needed"), game) as s:
        yield s


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with chromium() as b:
        yield b


def _needed(page: Any, action: str, args: dict[str, str]) -> str:
    """Ask the odds of ``action`` from the resolve tab; return the needed line the page shows."""
    page.select_option("#rs-action", action)
    for name, value in args.items():
        page.select_option(f"#arg-{name}", value)
    with page.expect_response(lambda r: r.url.endswith("api/resolve")):
        page.click("#rs-odds")
    page.wait_for_selector("#rs-needed")
    return str(page.inner_text("#rs-needed"))


def test_feu_a_volontes_needed_words_are_in_the_pages_language(served: Served, browser: Any) -> None:
    ctx = browser.new_context(viewport={"width": 1440, "height": 900})
    page = ctx.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    try:
        page.goto(served.url)
        page.wait_for_selector("#plan-svg polygon.model")
        for lang, other in (("fr", "en"), ("en", "fr")):
            page.click(f"#lang-{lang}")
            page.click("[data-tab=resolve]")
            melee = _needed(page, "melee", {"attacker": "para-1", "defender": "us-2"})
            assert WORDS[lang][0] in melee and WORDS[other][0] not in melee, melee
            shot = _needed(page, "shoot", {"firing": "para-1", "target": "us-2"})
            assert WORDS[lang][1] in shot and WORDS[other][1] not in shot, shot
        assert errors == []
    finally:
        ctx.close()
