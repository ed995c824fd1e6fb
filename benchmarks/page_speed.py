"""The page's speed at the table: run ``.venv/bin/python benchmarks/page_speed.py``.

Serves the bundled sample table (live, the README's command) and drives Debian's
chromium (headless, Playwright) at 1440 x 900 and at 390 x 844 (touch):

- first meaningful paint: from navigation start to the plan drawn with its models, ms
  (target <= 1000);
- tap to answer: from the second tap on the plan to the measurement / sight answer shown,
  median and worst of ``--taps`` tries, ms (target <= 150);
- page weight: bytes of the HTML, scripts and style sheet the page loads (no framework);
- the shot shown before it is taken: from choosing who shoots in the shot form to every enemy
  unit's verdict and odds drawn, ms (target <= 500 for a 10-unit game), on each bundled sample
  game (Feu à Volonté 12 units, Star Wars 14, AT-43 6, Firefight 6, High Fire 5).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.server.browser import CHROMIUM, CHROMIUM_ARGS  # noqa: E402
from tests.server.serving import Served  # noqa: E402

SIZES = {"1440x900": ({"width": 1440, "height": 900}, False), "390x844": ({"width": 390, "height": 844}, True)}

TAP_AND_WAIT = """async ([tool, a, b]) => {
    const svg = document.querySelector("#plan-svg");
    const at = (id) => {
        const m = window.TT.game.game.models.find((x) => x.id === id);
        const ctm = svg.getScreenCTM();
        return [ctm.a * m.x_mm + ctm.e, ctm.d * m.y_mm + ctm.f];
    };
    const out = tool === "measure" ? "#measure-result" : "#los-result";
    document.querySelector(`[data-tool=${tool}]`).click();
    if (!document.querySelector(`[data-tool=${tool}]`).classList.contains("on")) document.querySelector(`[data-tool=${tool}]`).click();
    document.querySelector("#answer").replaceChildren();
    const tap = ([x, y]) => svg.dispatchEvent(new PointerEvent("pointerdown", {clientX: x, clientY: y, button: 0, bubbles: true}));
    tap(at(a));
    const t0 = performance.now();
    tap(at(b));
    while (!document.querySelector(out)) await new Promise((r) => requestAnimationFrame(r));
    return performance.now() - t0;
}"""


def run(taps: int) -> None:
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as tmp, Served(["--db", str(Path(tmp) / "g.db")]) as served, \
            sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        for size, (viewport, touch) in SIZES.items():
            ctx = browser.new_context(viewport=viewport, has_touch=touch, is_mobile=touch)
            page = ctx.new_page()
            sizes: dict[str, int] = {}

            def on_response(r: Any) -> None:
                if r.request.resource_type in ("document", "script", "stylesheet"):
                    try:
                        sizes[r.url] = len(r.body())
                    except Exception:  # a response without a body
                        pass

            page.on("response", on_response)
            page.goto(served.url)
            page.wait_for_selector("#plan-svg polygon.model", timeout=30_000)
            paint = page.evaluate("() => performance.now()")
            page.wait_for_timeout(1500)
            figures = {}
            for tool in ("measure", "los"):
                times = [page.evaluate(TAP_AND_WAIT, [tool, "m11", "m17" if i % 2 else "m16"]) for i in range(taps)]
                figures[tool] = (statistics.median(times), max(times))
            print(f"{size}: first meaningful paint {paint:.0f} ms; "
                  + "; ".join(f"tap to {k} answer median {m:.0f} ms, worst {w:.0f} ms" for k, (m, w) in figures.items())
                  + f"; page weight {sum(sizes.values()) / 1024:.1f} KiB in {len(sizes)} files (no framework)")
            ctx.close()
        browser.close()


PREVIEWS = {"feu-a-volonte": "para-1", "star-wars": "st-1", "at-43": "sierra-alpha", "firefight": "snipers-a",
            "high-fire": "alpha"}


def preview(tries: int) -> None:
    """The per-enemy display, timed in the page (``window.TT.timings.preview``) at 1440 x 900."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        for name, actor in PREVIEWS.items():
            with tempfile.TemporaryDirectory() as tmp:
                game = json.loads((ROOT / "rules" / "data" / "games" / f"{name}-sample.json").read_text(encoding="utf-8"))
                (Path(tmp) / "game.json").write_text(json.dumps(game), encoding="utf-8")
                with Served(["--no-source", "--game", str(Path(tmp) / "game.json"), "--db", str(Path(tmp) / "g.db")]) as s:
                    page = browser.new_page(viewport=SIZES["1440x900"][0])
                    page.goto(s.url)
                    page.wait_for_selector("#plan-svg polygon.model", timeout=30_000)
                    page.click("[data-tab=resolve]")
                    page.select_option("#rs-action", "shoot")
                    first = page.locator("#rs-form [data-arg]").first
                    times = []
                    for _ in range(tries):
                        first.select_option("")
                        page.evaluate("() => { window.TT.timings.preview = null; }")
                        first.select_option(actor)
                        page.wait_for_function("() => window.TT.timings.preview !== null && document.querySelector('#shot-preview li')")
                        times.append(page.evaluate("() => window.TT.timings.preview"))
                    units = len(game["units"])
                    print(f"shot preview, {name} ({units} units): median {statistics.median(times):.0f} ms, "
                          f"worst {max(times):.0f} ms over {tries}")
                    page.close()
        browser.close()


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--taps", type=int, default=10)
    ap.add_argument("--previews", type=int, default=5)
    args = ap.parse_args()
    run(args.taps)
    preview(args.previews)
