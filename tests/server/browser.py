"""Headless Debian chromium driven by Playwright (never a downloaded browser).

``python -m tests.server.browser docs/overlay.png`` starts ``tabletracker serve`` on the
sample table and saves the README's screenshot of the page with a fire zone and a
measurement drawn.
"""

from __future__ import annotations

import sys
import tempfile
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--headless", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]
VIEWPORT = {"width": 1440, "height": 900}


@contextmanager
def chromium() -> Iterator[Any]:
    """Yield a Playwright browser on Debian's chromium."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            yield browser
        finally:
            browser.close()


def model_centre(page: Any, model: str) -> tuple[float, float]:
    """The on-screen centre of a model's figure on the plan, once it is drawn.

    The plan may be drawn again (a language switch, a live update) between finding the
    figure and reading its box: the box is read again until the figure is on screen.
    """
    figure = page.locator(f'#plan-svg polygon[data-model="{model}"]')
    for _ in range(100):
        figure.wait_for(state="visible")
        box = figure.bounding_box()
        if box is not None:
            return box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
        page.wait_for_timeout(100)
    raise AssertionError(f"{model} is never drawn on the plan")


def open_page(browser: Any, url: str, *, lang: str | None = None) -> Any:
    """Open the overlay and wait until the game is drawn (and, when live, a frame shown)."""
    page = browser.new_page(viewport=VIEWPORT)
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.errors = errors  # type: ignore[attr-defined]
    page.goto(url)
    page.wait_for_selector("#plan-svg polygon.model", timeout=20_000)
    if lang:
        page.click(f"#lang-{lang}")
    return page


def wait_live(page: Any, frames: int = 2) -> None:
    """Wait until the page has shown ``frames`` live frames (image loaded in both views)."""
    page.wait_for_function(f"() => window.TT.imageSeq.plan >= {frames} && window.TT.imageSeq.camera >= {frames} "
                           "&& window.TT.grid !== null", timeout=30_000)


def pick_units(page: Any, firing: str, target: str) -> None:
    page.select_option("#fz-firing", firing)
    page.select_option("#fz-target", target)
    page.wait_for_selector("#plan-svg polygon.firezone", timeout=30_000)


def measure(page: Any, a: str, b: str) -> str:
    page.click("[data-tool=measure]")
    page.click(f'#plan-svg polygon[data-model="{a}"]')
    page.click(f'#plan-svg polygon[data-model="{b}"]')
    page.wait_for_selector("#measure-result", timeout=30_000)
    return str(page.inner_text("#measure-result"))


def screenshot(out: Path) -> None:
    """Serve the sample table, show a tool or two, and save the page as ``out``."""
    from tests.server.serving import Served

    with tempfile.TemporaryDirectory() as tmp, Served(["--db", str(Path(tmp) / "g.db")]) as served, \
            chromium() as browser:
        state = served.get("api/state")
        page = open_page(browser, served.url)
        wait_live(page, 3)
        # a calm moment: a move already recorded, every model seen where it stands
        page.wait_for_function("() => window.TT.game.last_move !== null && window.TT.live.models.length > 0 "
                               "&& window.TT.live.models.every((m) => m.seen)", timeout=60_000)
        units = state["game"]["game"]["units"]
        sides: dict[str, str] = {}
        for u in units:
            sides.setdefault(u["side"], u["id"])
        firing, target = list(sides.values())[:2]
        if "firezone" in state["questions"]:
            pick_units(page, firing, target)
        models = state["game"]["game"]["models"]
        a = next(m["id"] for m in models if m["unit"] == firing)
        b = next(m["id"] for m in models if m["unit"] == target)
        page.select_option("#rg-model", a)
        weapon = next((w for m in models if m["id"] == a for w in m.get("weapons", [])), None)
        if weapon:  # the rings of the model's weapon, its range from the roster
            page.select_option("#rg-weapon", weapon)
        else:
            page.fill("#rg-range", "12")
            page.click("#rg-show")
        page.wait_for_selector("#bands-result", timeout=20_000)
        measure(page, a, b)
        page.click("#legend-toggle")
        page.wait_for_timeout(800)
        out.parent.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(out))


if __name__ == "__main__":
    screenshot(Path(sys.argv[1] if len(sys.argv) > 1 else "docs/overlay.png"))
