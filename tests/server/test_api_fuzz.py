"""Whatever JSON arrives, every API endpoint answers with JSON and never a 5xx or a traceback."""

from __future__ import annotations

from typing import Any, Iterator

import pytest

from hypothesis import given, settings
from hypothesis import strategies as st

from server import create_app
from tests.server.conftest import small_game

ENDPOINTS = ["/api/ask", "/api/resolve", "/api/resolve/apply", "/api/setup/ruleset", "/api/setup/table",
             "/api/setup/rosters", "/api/setup/assign", "/api/terrain", "/api/objectives", "/api/game/import",
             "/api/models/a1/move", "/api/bands", "/api/undo"]
KEYS = ["question", "args", "options", "action", "request", "dice", "seed", "ruleset", "width_mm", "depth_mm",
        "rosters", "model", "marker_id", "base_id", "kind", "shape", "points_mm", "height_mm", "name", "x_mm",
        "y_mm", "game", "filename", "weapon_range", "facing_deg", "text"]

scalars = st.one_of(st.none(), st.booleans(), st.integers(-10**6, 10**6),
                    st.floats(allow_nan=False, allow_infinity=False, width=32), st.text(max_size=12),
                    st.sampled_from(["a1", "g1", "alpha", "golems", "distance", "los", "firezone", "template",
                                     "shoot", "ruins", "area", "line", "at-43", "star-wars"]))
values = st.recursive(scalars, lambda inner: st.one_of(st.lists(inner, max_size=4),
                                                       st.dictionaries(st.sampled_from(KEYS), inner, max_size=4)),
                      max_leaves=12)
bodies = st.one_of(values, st.dictionaries(st.sampled_from(KEYS), values, max_size=5))


@pytest.fixture(scope="module")
def fuzz_app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """One app for all examples (the game may change along the way; that is fine)."""
    app = create_app({"DB_PATH": str(tmp_path_factory.mktemp("fuzz") / "game.db"), "GAME": small_game()})
    yield app
    app.extensions["tabletracker"].stop()
    app.extensions["tabletracker"].store.close()


@settings(max_examples=120, deadline=None, derandomize=True)
@given(endpoint=st.sampled_from(ENDPOINTS), body=bodies)
def test_no_input_makes_a_server_error(fuzz_app: Any, endpoint: str, body: Any) -> None:
    response = fuzz_app.test_client().post(endpoint, json=body)
    assert response.status_code < 500, (endpoint, body, response.get_json())
    data = response.get_json()
    assert isinstance(data, dict)
    if response.status_code >= 400:
        assert data["error"]["message"] and "Traceback" not in data["error"]["message"]
