"""The page's speed at the table: run ``.venv/bin/python benchmarks/page_speed.py``.

Serves the bundled sample table (live, the README's command) and drives Debian's
chromium (headless, Playwright) at 1440 x 900 and at 390 x 844 (touch):

- first meaningful paint: from navigation start to the plan with its models painted, ms
  (target <= 1000), timed in the page (the frame after the first model is drawn); the time
  the test driver sees it (one more round trip to the browser, behind the page's other
  work) is printed beside it;
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

# the frame after the plan first holds a model: its paint is done when the next frame starts
PAINT_PROBE = """
window.__ttPaint = null;
new MutationObserver((_, obs) => {
    if (!document.querySelector('#plan-svg polygon.model')) return;
    obs.disconnect();
    requestAnimationFrame(() => requestAnimationFrame(() => { window.__ttPaint = performance.now(); }));
}).observe(document, {subtree: true, childList: true});
"""

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


def first_paint(browser: Any, url: str, viewport: dict[str, int], touch: bool) -> tuple[float, float, Any, Any]:
    """Load the page in a fresh browser context; return (paint ms, seen by the driver ms, context, page)."""
    ctx = browser.new_context(viewport=viewport, has_touch=touch, is_mobile=touch)
    page = ctx.new_page()
    page.add_init_script(PAINT_PROBE)
    sizes: dict[str, int] = {}

    def on_response(r: Any) -> None:
        if r.request.resource_type in ("document", "script", "stylesheet"):
            try:
                sizes[r.url] = len(r.body())
            except Exception:  # a response without a body
                pass

    page.on("response", on_response)
    page.goto(url, wait_until="commit")  # not "load": that waits for the camera's first pictures too
    page.wait_for_selector("#plan-svg polygon.model", timeout=30_000)
    seen = page.evaluate("() => performance.now()")
    page.wait_for_function("() => window.__ttPaint !== null")
    paint = page.evaluate("() => window.__ttPaint")
    page.sizes = sizes  # type: ignore[attr-defined]
    return paint, seen, ctx, page


def run(taps: int, loads: int = 1) -> None:
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as tmp, Served(["--db", str(Path(tmp) / "g.db")]) as served, \
            sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        for size, (viewport, touch) in SIZES.items():
            paints, seens = [], []
            for _ in range(max(1, loads) - 1):
                paint, seen, ctx, _page = first_paint(browser, served.url, viewport, touch)
                paints.append(paint)
                seens.append(seen)
                ctx.close()
            paint, seen, ctx, page = first_paint(browser, served.url, viewport, touch)
            paints.append(paint)
            seens.append(seen)
            warm = []  # the page opened again on the same phone: its scripts and style kept by the browser
            for _ in range(max(1, loads)):
                page.goto(served.url, wait_until="commit")
                page.wait_for_function("() => window.__ttPaint !== null", timeout=30_000)
                warm.append(page.evaluate("() => window.__ttPaint"))
            page.wait_for_timeout(1500)
            figures = {}
            for tool in ("measure", "los"):
                times = [page.evaluate(TAP_AND_WAIT, [tool, "m11", "m17" if i % 2 else "m16"]) for i in range(taps)]
                figures[tool] = (statistics.median(times), max(times))
            sizes = page.sizes
            print(f"{size}: first meaningful paint median {statistics.median(paints):.0f} ms, worst {max(paints):.0f} ms "
                  f"over {len(paints)} loads (seen by the test driver: median {statistics.median(seens):.0f} ms), "
                  f"opened again median {statistics.median(warm):.0f} ms, worst {max(warm):.0f} ms; "
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
    ap.add_argument("--previews", type=int, default=5, help="tries of the shot preview per game (0: none)")
    ap.add_argument("--loads", type=int, default=1, help="page loads per size (the first paint's median and worst)")
    args = ap.parse_args()
    run(args.taps, args.loads)
    if args.previews:
        preview(args.previews)
