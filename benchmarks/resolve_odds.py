"""Time the rules core's resolutions (exact odds, no dice) on the test tables; prints median ms per call.

Run: ``.venv/bin/python benchmarks/resolve_odds.py``. The exact odds are computed by
enumeration and convolution, so their cost depends on the dice pools, not on luck.
"""

from __future__ import annotations

import dataclasses
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from rules.resolve import resolve  # noqa: E402
from rules.dice import keep_best  # noqa: E402
from rules.plan import Terrain  # noqa: E402
from tests.rules.at43_table import at43_plan  # noqa: E402
from tests.rules.fav_table import fav_plan  # noqa: E402


def median_ms(fn, repeat: int = 15) -> float:  # type: ignore[no-untyped-def]
    fn()
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t0) * 1000.0)
    return statistics.median(times)


def main() -> None:
    wall = Terrain("wall-1", "low-wall", "line", ((300.0, 540.0), (700.0, 540.0)), height_mm=25.0)
    at43 = dataclasses.replace(at43_plan(475.0), terrain=(wall,))
    alpha = [m for m in at43.models if m.unit_id == "sierra-alpha"]
    four_more = tuple(dataclasses.replace(alpha[i % len(alpha)], model_id=f"sa-x{i}",
                                          position_mm=(alpha[i % len(alpha)].position_mm[0] + 30.0 * (i + 1),
                                                       alpha[i % len(alpha)].position_mm[1] - 30.0))
                      for i in range(10 - len(alpha)))
    at43_ten = dataclasses.replace(at43, models=(*at43.models, *four_more))
    fav = fav_plan()
    thrower = fav.model("para-2")
    fav_grenadier = fav.with_model(dataclasses.replace(thrower, position_mm=(340.0, 220.0), extra={"rules": ["Grenade"]}))
    cases = [
        ("AT-43 laser rifles, 6 firers at 9 golems behind a wall", at43, "shoot",
         {"firing": "sierra-alpha", "target": "golems-256", "weapon": "laser rifle"}),
        ("AT-43 laser rifles, a 10-model salvo at 9 golems (the wall)", at43_ten, "shoot",
         {"firing": "sierra-alpha", "target": "golems-256", "weapon": "laser rifle"}),
        ("AT-43 grenade launchers, template with deviation", at43, "shoot",
         {"firing": "sierra-bravo", "target": "g256-1", "weapon": "grenade launcher"}),
        ("Feu à Volonté shot, 2d6 against élite 4d6", fav, "shoot", {"firing": "us-2", "target": "para-2"}),
        ("Feu à Volonté grenade odds, 3 UD blast", fav_grenadier, "throw", {"thrower": "para-2", "target": "us-2"}),
        ("Feu à Volonté melee", fav, "melee", {"attacker": "us-2", "defender": "para-2"}),
    ]
    print(f"{'resolution (odds only)':58s} median ms")
    for name, plan, action, req in cases:
        try:
            ms = median_ms(lambda: resolve(plan, action, req, None))
            print(f"{name:58s} {ms:8.1f}")
        except ValueError as exc:
            print(f"{name:58s} refused: {exc}")
    print(f"{'keep the best 2 of 6d6 (462 multisets)':58s} {median_ms(lambda: keep_best(6)):8.1f}")


if __name__ == "__main__":
    main()
