"""Checked reading of API request bodies: a clear 4xx JSON error on anything wrong.

Built on :class:`calibration.fields.Reader`, so API errors read like the file errors:
what field, what was expected, what arrived.

Examples
--------
>>> r = body_reader({"question": "distance", "args": ["m1", "m2"]})
>>> r.string("question")
'distance'
>>> body_reader([1, 2])
Traceback (most recent call last):
...
server.validate.RequestError: request: body must be a JSON object, got an array
"""

from __future__ import annotations

import re
from typing import Any

from flask import Request

from calibration.fields import Reader
from server.errors import ApiError, ServerError

MAX_ID_LENGTH = 80
MAX_POINTS = 200
_ID = re.compile(r"^[A-Za-z0-9_.:\- ]{1,80}$")


class RequestError(ServerError):
    """A request body or parameter is malformed (mapped to 400)."""


def body_reader(data: Any) -> Reader:
    """Return a :class:`Reader` over a request body; errors are :class:`RequestError`."""
    return Reader(data, source="request", error=RequestError, path="body")


def json_body(request: Request) -> Reader:
    """Return a reader over the request's JSON object body (415 / 400 otherwise)."""
    if not request.is_json:
        raise ApiError(415, "unsupported_media_type",
                       "send the request body as JSON with the header Content-Type: application/json")
    data = request.get_json(silent=True)
    if data is None:
        raise ApiError(400, "bad_json", "the request body is not valid JSON")
    return body_reader(data)


def identifier(r: Reader, key: str, default: Any = ...) -> Any:
    """Read an id (letters, digits, ``-_.: ``, at most 80 characters)."""
    value = r.string(key) if default is ... else r.string(key, default)
    if value is not None and not _ID.match(value):
        r.fail(f"must be an id of at most {MAX_ID_LENGTH} letters, digits or -_.: characters, got {value[:40]!r}", key)
    return value


def string_list(r: Reader, key: str, *, max_items: int = 20) -> list[str]:
    """Read a list of short strings (question arguments)."""
    values = r.array(key, [])
    if len(values) > max_items:
        r.fail(f"must have at most {max_items} items, got {len(values)}", key)
    for i, v in enumerate(values):
        if not isinstance(v, (str, int, float)) or isinstance(v, bool):
            r.fail(f"[{i}] must be a string or a number, got {v!r}", key)
        if isinstance(v, str) and len(v) > MAX_ID_LENGTH:
            r.fail(f"[{i}] is longer than {MAX_ID_LENGTH} characters", key)
    return [str(v) for v in values]


def points(r: Reader, key: str, *, minimum: int) -> list[tuple[float, float]]:
    """Read a list of ``[x_mm, y_mm]`` points (at least ``minimum``, at most 200)."""
    raw = r.array(key)
    if not minimum <= len(raw) <= MAX_POINTS:
        r.fail(f"must have from {minimum} to {MAX_POINTS} points, got {len(raw)}", key)
    out = []
    for i, p in enumerate(raw):
        pr = Reader({"p": p}, source=r.source, error=r.error, path=f"{r.where(key)}[{i}]")
        x, y = pr.numbers("p", length=2)
        out.append((float(x), float(y)))
    return out


def plain_object(r: Reader, key: str, *, max_keys: int = 50) -> dict[str, Any]:
    """Read an optional JSON object of free options (at most ``max_keys`` keys)."""
    if not r.has(key):
        return {}
    child = r.child(key)
    if len(child.data) > max_keys:
        r.fail(f"must have at most {max_keys} keys", key)
    return dict(child.data)
