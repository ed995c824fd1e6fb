"""Every refusal the page can meet is said in French too (issue 10, item 4).

A scan of the server's code: each error it words itself (``ApiError``, ``RequestError``...)
carries its French (``fr=``), and no field is refused through the body reader's English-only
``fail``; then the body reader's own wordings (missing field, wrong type...) are checked to
come out in French, and a set of bad requests through the API each answer ``message_fr``.
"""

from __future__ import annotations

import ast
from typing import Any

import pytest

from server.validate import RequestError, body_reader
from tests.server.conftest import ROOT

SERVER = ROOT / "server"
# errors raised before any page exists (the server's own start-up options) or never worded to a
# player (an internal guard); each says why it is exempt
NOT_FOR_THE_PAGE = {
    ("live.py", "ValueError"): "views are checked by the API (camera, plan) before the frame store is asked",
    ("overlay.py", "StorageError"): "answered by storage_error, which has its French",
    ("store.py", "StorageError"): "answered by storage_error, which has its French (the CLI prints the path)",
    ("store.py", "LookupError"): "the database lost its game: the undo route words it in French",
    ("errors.py", "ApiError"): "from_domain passes the domain error's own French (fr=fr)",
}


def _called_name(node: ast.Call) -> str:
    f = node.func
    return f.id if isinstance(f, ast.Name) else (f.attr if isinstance(f, ast.Attribute) else "")


def _english_only_errors() -> list[str]:
    out = []
    for path in sorted(SERVER.glob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        wrapped = {id(n.args[0]) for n in ast.walk(tree)
                   if isinstance(n, ast.Call) and _called_name(n) == "with_fr" and n.args}
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call):
                continue
            name = _called_name(node)
            if name == "fail" and isinstance(node.func, ast.Attribute):
                out.append(f"{path.name}:{node.lineno} .fail() (use validate.refuse with French)")
            if not name.endswith("Error") or name in ("TypeVar",) or not (node.args or node.keywords):
                continue
            has_fr = any(k.arg in ("fr", "message_fr") for k in node.keywords) or id(node) in wrapped
            if not has_fr and (path.name, name) not in NOT_FOR_THE_PAGE:
                out.append(f"{path.name}:{node.lineno} {name}(...) without fr=")
    return out


def test_every_error_the_server_words_has_its_french() -> None:
    assert _english_only_errors() == []


READER_FAILURES: list[tuple[Any, Any]] = [
    ([1], lambda r: None),                                  # not an object
    ({"y": 1}, lambda r: r.only(("x",))),                   # unknown key
    ({}, lambda r: r.number("x")),                          # missing
    ({"x": "a"}, lambda r: r.number("x")),                  # not a number
    ({"x": 10**40}, lambda r: r.number("x")),               # too large
    ({"x": float("inf")}, lambda r: r.number("x")),         # not finite
    ({"x": -1}, lambda r: r.number("x", positive=True)),    # not positive
    ({"x": 1.5}, lambda r: r.integer("x")),                 # not an integer
    ({"x": 10**40}, lambda r: r.integer("x")),              # too large integer
    ({"x": ""}, lambda r: r.string("x")),                   # empty string
    ({"x": "c"}, lambda r: r.string("x", choices=("a", "b"))),
    ({"x": 1}, lambda r: r.boolean("x")),
    ({"x": {}}, lambda r: r.array("x")),
    ({"x": [1, 2, 3]}, lambda r: r.numbers("x", length=2)),
    ({"x": [1, "a"]}, lambda r: r.numbers("x")),
    ({"x": [1]}, lambda r: r.children("x")),                # an item that is not an object
]


@pytest.mark.parametrize("data,read", READER_FAILURES)
def test_the_body_readers_own_refusals_come_out_in_french(data: Any, read: Any) -> None:
    with pytest.raises(RequestError) as err:
        read(body_reader(data))
    fr = err.value.message_fr
    assert fr and fr.startswith("requête : ") and fr != str(err.value), str(err.value)
    assert " got " not in fr and " must " not in fr and " is " not in fr


def test_every_wording_of_the_body_reader_is_tried_above() -> None:
    """A new wording in calibration/fields.py needs its French in server/validate.py (and a line above)."""
    text = (ROOT / "calibration" / "fields.py").read_text(encoding="utf-8")
    assert text.count("self.fail(") == 15  # 14 wordings, one of them (too large) twice


BAD_REQUESTS: list[tuple[str, str, Any]] = [
    ("get", "/api/log?limit=x", None),
    ("get", "/api/frame/side.jpg", None),
    ("get", "/api/shot-preview", None),
    ("get", "/api/shot-preview?unit=nobody", None),
    ("post", "/api/ask", {"question": "distance", "args": [[1]]}),
    ("post", "/api/ask", {"question": "bad id!"}),
    ("post", "/api/resolve", {"action": "shoot", "dice": [0]}),
    ("post", "/api/resolve", {"action": "shoot", "dice": [1], "seed": 3}),
    ("post", "/api/resolve", {"action": "shoot", "seed": -1}),
    ("post", "/api/resolve/apply", {"action": "shoot", "request": {}}),
    ("post", "/api/undo", {"event": 99999}),
    ("post", "/api/game/import", {}),
    ("post", "/api/setup/ruleset", {"ruleset": "at-43", "mapping": {"nowhere": "ruins"}}),
    ("post", "/api/setup/table", {"width_mm": 20000, "depth_mm": 400}),
    ("post", "/api/setup/rosters", {"rosters": []}),
    ("post", "/api/setup/rosters", {"rosters": [{"filename": "a.txt", "text": "{}"}]}),
    ("post", "/api/setup/assign", {"model": "a1"}),
    ("post", "/api/setup/assign", {"model": "a1", "marker_id": 2}),
    ("post", "/api/setup/assign", {"model": "a1", "base_id": "b-9"}),
    ("post", "/api/terrain", {"kind": "ruins", "shape": "area", "points_mm": [[0, 0], [10, 0], [0, 10]],
                              "height_mm": 5000}),
    ("post", "/api/terrain", {"kind": "lava", "shape": "area", "points_mm": [[0, 0], [10, 0], [0, 10]]}),
    ("post", "/api/terrain", {"kind": "ruins", "shape": "area", "points_mm": [[0, 0], [10, 0], [9000, 10]]}),
    ("post", "/api/objectives", {"x_mm": 1, "y_mm": "a"}),
    ("post", "/api/models/a1/elevation", {"elevation_mm": 99999}),
    ("post", "/api/models/a1/move", {"x_mm": 1, "y_mm": 1, "extra": 1}),
    ("post", "/api/bands", {"model": "a1", "weapon_range": 5000}),
    # a model, a piece or an objective gone meanwhile (a page left open while another player acted)
    ("post", "/api/models/gone/elevation", {"elevation_mm": 3}),
    ("post", "/api/models/gone/move", {"x_mm": 1, "y_mm": 1}),
    ("post", "/api/setup/assign", {"model": "gone", "marker_id": 7}),
    ("post", "/api/bands", {"model": "gone"}),
    ("delete", "/api/terrain/gone", None),
    ("delete", "/api/objectives/gone", None),
]


@pytest.mark.parametrize("method,path,body", BAD_REQUESTS)
def test_a_bad_request_is_refused_in_french_too(client: Any, method: str, path: str, body: Any) -> None:
    r = {"post": lambda: client.post(path, json=body), "get": lambda: client.get(path),
         "delete": lambda: client.delete(path)}[method]()
    assert 400 <= r.status_code < 500, r.json
    err = r.json["error"]
    assert err.get("message_fr") or (err.get("text") or {}).get("fr"), err
