"""Line of sight from several threads at once (the web server answers requests on several).

GEOS's prepared geometries are not thread-safe: two requests tracing sight through the same
remembered, prepared piece of terrain at once crashed the server (the Star Wars turn of the
browser test). Each thread now prepares its own copies; these tests check that no prepared
geometry is shared between threads and that concurrent answers equal the single-threaded ones.
"""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from rules.plan import load_game
from rules.rulesets import find_ruleset
from rules.terrain import terrain_geometry
from rules.visibility import _disc_at, _terrain_info, line_of_sight

GAMES = Path(__file__).resolve().parents[2] / "rules" / "data" / "games"


def _in_thread(fn):  # type: ignore[no-untyped-def]
    out = []
    t = threading.Thread(target=lambda: out.append(fn()))
    t.start()
    t.join()
    return out[0]


def test_each_thread_prepares_its_own_copies_of_the_terrain() -> None:
    plan = load_game(GAMES / "star-wars-sample.json")
    rs = find_ruleset(plan.ruleset)
    mine = _terrain_info(plan.terrain, rs)[3]
    theirs = _in_thread(lambda: _terrain_info(plan.terrain, rs)[3])
    assert mine and len(mine) == len(theirs)
    shared = {id(terrain_geometry(t)) for t in plan.terrain}
    assert not {id(g) for g in mine} & {id(g) for g in theirs}  # never the same prepared object
    assert not {id(g) for g in mine + theirs} & shared  # nor the terrain's own geometries
    assert all(a.equals(b) for a, b in zip(mine, theirs))
    assert _disc_at(threading.get_ident(), 1.0, 2.0, 25.0) is not _in_thread(
        lambda: _disc_at(threading.get_ident(), 1.0, 2.0, 25.0))


def test_concurrent_sight_answers_equal_the_single_threaded_ones() -> None:
    for name in ("star-wars", "high-fire", "firefight"):
        plan = load_game(GAMES / f"{name}-sample.json")
        rs = find_ruleset(plan.ruleset)
        ids = [m.model_id for m in plan.models if m.position_mm is not None][:8]
        pairs = [(a, b) for a in ids for b in ids if a != b]
        alone = [line_of_sight(plan, a, b, ruleset=rs).to_json() for a, b in pairs]
        with ThreadPoolExecutor(max_workers=6) as pool:
            together = list(pool.map(lambda p, plan=plan, rs=rs: line_of_sight(plan, p[0], p[1], ruleset=rs).to_json(),
                                     pairs * 3))
        assert together == alone * 3, name
