"""Fuzz (issue 12): hostile bytes at every route and every file loader, bounded in count and time.

Asserts no 5xx, no traceback in any answer, and afterwards a game that still loads and exports
valid JSON (no NaN). Hypothesis runs derandomized with a fixed number of examples, so CI time
is bounded (about twenty seconds on two cores).
"""

from __future__ import annotations

import json
import math
import re
from pathlib import Path
from typing import Any, Iterator

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from calibration.limits import MAX_DEPTH
from rules.plan import parse_game
from server import create_app
from tests.server.conftest import small_game

KEYS = ["question", "args", "options", "action", "request", "dice", "seed", "ruleset", "width_mm", "depth_mm",
        "rosters", "model", "marker_id", "base_id", "kind", "shape", "points_mm", "height_mm", "name", "x_mm",
        "y_mm", "game", "filename", "weapon_range", "facing_deg", "text", "table", "models", "units", "extra",
        "attacks", "weapons", "profiles", "id", "unit"]
IDS = ["a1", "a2", "g1", "alpha", "golems", "obj-1", "distance", "shoot", "melee", "ruins", "area", "line",
       "at-43", "star-wars", "firefight", "r.yaml", "r.json", "../../etc/passwd", "%00", "\u202e", "a" * 300]

# Scalars a careless or hostile client sends: huge and non-finite numbers, long and odd strings.
scalars = st.one_of(
    st.none(), st.booleans(), st.integers(-10**6, 10**6), st.sampled_from([10**400, -10**30, 2**63, 1e308, -1e-308]),
    st.floats(allow_nan=True, allow_infinity=True), st.text(max_size=20), st.sampled_from(IDS))
values = st.recursive(scalars, lambda inner: st.one_of(st.lists(inner, max_size=5),
                                                       st.dictionaries(st.sampled_from(KEYS), inner, max_size=5)),
                      max_leaves=20)


def _deep(n: int) -> str:
    return "[" * n + "]" * n


RAW_BODIES = st.one_of(
    st.dictionaries(st.sampled_from(KEYS), values, max_size=6).map(lambda v: json.dumps(v, allow_nan=True)),
    st.dictionaries(st.sampled_from(KEYS), values, max_size=6).map(lambda v: json.dumps(v, allow_nan=True)),
    values.map(lambda v: json.dumps(v, allow_nan=True)),                  # JSON, with NaN and Infinity as Python writes them
    st.sampled_from([_deep(MAX_DEPTH + 1), _deep(1000), '{"a":' * 500 + "1" + "}" * 500, "1" + "0" * 5000,
                     "", " ", "null", "[]", '"x"', "{", '{"game": [1]}', '{"game": {"ruleset": "at-43"}}',
                     '{"rosters": [{"filename": "r.yaml", "text": "a: &a [*a]"}]}',
                     '{"rosters": [{"filename": "r.yaml", "text": "- &a [1,1,1,1,1,1,1,1,1]\\n- [*a,*a,*a,*a]"}]}',
                     '{"dice": [' + ",".join(["6"] * 5000) + "]}"]),
    st.binary(max_size=64).map(lambda b: b.decode("latin-1")),
)
CONTENT_TYPES = st.sampled_from(["application/json"] * 6 + ["application/json; charset=utf-8", "text/plain",
                                 "application/x-www-form-urlencoded", "multipart/form-data; boundary=x", ""])
ORIGINS = st.sampled_from([None] * 6 + ["http://localhost", "http://evil.example", "null"])


@pytest.fixture(scope="module")
def fuzz_app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    app = create_app({"DB_PATH": str(tmp_path_factory.mktemp("hostile") / "game.db"), "GAME": small_game(),
                      "RESOLVE_BUDGET_S": 0.3})
    yield app
    app.extensions["tabletracker"].stop()
    app.extensions["tabletracker"].store.close()


def _routes(app: Any) -> list[tuple[str, str]]:
    """Every (route, method) the app serves, each ``<param>`` to be filled by the fuzz; plus wrong methods."""
    out = {(rule.rule, m) for rule in app.url_map.iter_rules() if rule.endpoint != "static"
           for m in rule.methods or () if m not in ("HEAD", "OPTIONS")}
    return sorted(out | {("/static/app.js", "GET"), ("/api/undo", "PUT"), ("/api/state", "DELETE")})


def _check(response: Any, what: Any) -> None:
    assert response.status_code < 500 or response.status_code == 503 and \
        response.get_json()["error"]["code"] in ("too_many_watchers", "storage_unavailable"), (what, response.status_code)
    text = response.get_data(as_text=True) if not response.is_streamed else ""
    assert "Traceback" not in text and 'File "' not in text, what
    if response.status_code >= 400 and response.mimetype == "application/json":
        err = response.get_json()["error"]
        assert err["message"] and err["code"]


def _export_is_valid(app: Any) -> None:
    c = app.test_client()
    state = c.get("/api/state")
    assert state.status_code == 200
    text = c.get("/api/game/export").get_data(as_text=True)
    doc = json.loads(text, parse_constant=lambda name: pytest.fail(f"export holds {name}"))
    parse_game(doc, source="export")
    for path in ("/api/state", "/api/log?limit=1000"):
        json.loads(c.get(path).get_data(as_text=True), parse_constant=lambda name: pytest.fail(f"{path}: {name}"))


def _good(route: str) -> dict[str, Any] | None:
    """A valid body for ``route`` (the fuzz then spoils one of its values), or ``None``."""
    return {
        "/api/objectives": {"x_mm": 50, "y_mm": 50, "name": "o"},
        "/api/models/<model_id>/move": {"x_mm": 120, "y_mm": 90, "facing_deg": 10},
        "/api/setup/table": {"width_mm": 600, "depth_mm": 400},
        "/api/terrain": {"kind": "ruins", "shape": "area", "points_mm": [[10, 10], [50, 10], [50, 50]]},
        "/api/game/import": {"game": small_game(), "filename": "g.json"},
        "/api/resolve": {"action": "shoot", "request": {"firing": "alpha", "target": "golems"}},
        "/api/resolve/apply": {"action": "shoot", "request": {"firing": "alpha", "target": "golems"}, "dice": [4, 5]},
        "/api/ask": {"question": "distance", "args": ["a1", "g1"]},
        "/api/bands": {"model": "a1", "weapon_range": 12},
        "/api/setup/assign": {"model": "g2", "marker_id": 9},
    }.get(route)


def _spoil(body: dict[str, Any], data: st.DataObject) -> dict[str, Any]:
    """Replace one value of ``body`` (or of its game's first model) by a hostile one."""
    body = json.loads(json.dumps(body))
    if data.draw(st.integers(0, 2)) == 0:
        return body  # left valid: the game changes along the way
    target = body
    if "game" in body and data.draw(st.booleans()):
        target = body["game"]["models"][0] if data.draw(st.booleans()) else body["game"]
    key = data.draw(st.sampled_from(sorted(target)))
    target[key] = data.draw(values)
    return body


@settings(max_examples=400, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_every_route_survives_hostile_requests(fuzz_app: Any, data: st.DataObject) -> None:
    route, method = data.draw(st.sampled_from(_routes(fuzz_app)))
    path = re.sub(r"<[^>]+>", lambda _: data.draw(st.sampled_from(IDS + ["camera", "plan", "x" * 500])), route)
    good = _good(route)
    if good is not None and data.draw(st.booleans()):
        body = json.dumps(_spoil(good, data), allow_nan=True)
    else:
        body = data.draw(RAW_BODIES)
    headers = {"Content-Type": data.draw(CONTENT_TYPES)}
    origin = data.draw(ORIGINS)
    if origin:
        headers["Origin"] = origin
    query = data.draw(st.sampled_from(["", "?limit=5", "?limit=-1", "?limit=1e9", "?limit=" + "9" * 50, "?token=x"]))
    if path.endswith("/stream"):
        method = "POST"  # the live feed never ends on GET; its cap is tested apart
    response = fuzz_app.test_client().open(path + query, method=method, data=body.encode("utf-8", "surrogatepass"),
                                           headers=headers)
    try:
        _check(response, (method, path, body[:80]))
    finally:
        response.close()  # a static file answer holds the file open until closed


def test_the_game_still_loads_and_exports_after_the_fuzz(fuzz_app: Any) -> None:
    # runs after the fuzz above (same module app, file order)
    _export_is_valid(fuzz_app)


# -- every file loader ---------------------------------------------------------------------------
def _loaders() -> dict[str, Any]:
    from calibration.setup import load_setup
    from calibration.store import load_calibration, load_image, load_intrinsics
    from rules.plan import load_game
    from rules.roster import load_roster
    from tracker.sources import read_image

    return {"game.json": load_game, "setup.json": load_setup, "roster.json": load_roster,
            "roster.yaml": load_roster, "calibration.json": load_calibration, "intrinsics.json": load_intrinsics,
            "image.png": load_image, "frame.jpg": read_image}


YAML_TEXTS = st.sampled_from(["a: &a [*a]", "&a [*a]", "- " * 500 + "x", "[" * 300 + "]" * 300,
                              "side: 1" + "0" * 5000, "side: .nan", "units: !!python/object:os.system x",
                              "a: &x [1,1,1,1,1,1,1,1,1]\nb: &y [*x,*x,*x,*x,*x,*x,*x,*x,*x]\nc: [*y,*y,*y,*y,*y]",
                              "ruleset: at-43\nside: S\nunits: []", ": : :", "\t\tx"])


@settings(max_examples=160, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
@given(name=st.sampled_from(sorted(_loaders())), text=st.one_of(RAW_BODIES, YAML_TEXTS),
       raw=st.one_of(st.none(), st.binary(max_size=200)))
def test_every_file_loader_refuses_hostile_files_in_one_line(tmp_path_factory: pytest.TempPathFactory,
                                                             name: str, text: str, raw: bytes | None) -> None:
    folder = tmp_path_factory.mktemp("files")
    path = Path(folder) / name
    if raw is not None and name.endswith((".png", ".jpg")):
        path.write_bytes(raw)
    else:
        path.write_bytes(text.encode("utf-8", "surrogatepass"))
    try:
        _loaders()[name](path)
    except (ValueError, OSError) as exc:  # every loader's documented errors
        message = str(exc)
        assert "Traceback" not in message and len(message) < 1000, message[:200]
