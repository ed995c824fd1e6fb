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
from typing import Any, NoReturn

from flask import Request, current_app
from werkzeug.exceptions import RequestEntityTooLarge

from calibration.fields import Reader
from calibration.limits import MAX_TEXT_BYTES, parse_json_bounded
from server.errors import ApiError, ServerError
from server.wording import french_where, reader_message_fr

MAX_ID_LENGTH = 80
MAX_POINTS = 200
_ID = re.compile(r"^[A-Za-z0-9_.:\- ]{1,80}$")


class RequestError(ServerError):
    """A request body or parameter is malformed (mapped to 400), said in English and French.

    ``fr`` is the French message; without it, the French of the body reader's own wording
    (:class:`calibration.fields.Reader`: missing field, wrong type...) is found from its English.

    >>> RequestError("request: body.x must be a number, got a string 'a'").message_fr
    "requête : body.x doit être un nombre, reçu : un texte 'a'"
    """

    def __init__(self, message: str, fr: str | None = None) -> None:
        super().__init__(message)
        self.message_fr = fr or reader_message_fr(message)


def refuse(r: Reader, key: str | None, en: str, fr: str) -> NoReturn:
    """Refuse the field ``key`` of a request (the whole body when ``None``), in English and French."""
    sep = "" if en.startswith("[") else " "
    where = r.where(key)
    raise RequestError(f"{r.source}: {where}{sep}{en}", fr=f"requête : {french_where(where)}{sep}{fr}")


def body_reader(data: Any) -> Reader:
    """Return a :class:`Reader` over a request body; errors are :class:`RequestError`."""
    return Reader(data, source="request", error=RequestError, path="body")


def json_body(request: Request) -> Reader:
    """Return a reader over the request's JSON object body (415 / 413 / 400 otherwise).

    The body is read whole first (a chunked body over the limit is a 413, not a JSON
    error), then parsed within :mod:`calibration.limits` (depth, no NaN/Infinity, sizes).
    """
    if not request.is_json:
        raise ApiError(415, "unsupported_media_type",
                       "send the request body as JSON with the header Content-Type: application/json",
                       fr="envoyez le corps de la requête en JSON avec l'en-tête Content-Type: application/json")
    limit = int(current_app.config.get("MAX_CONTENT_LENGTH") or MAX_TEXT_BYTES)
    raw = request.get_data(cache=True)  # werkzeug: 413 past MAX_CONTENT_LENGTH when the length is given
    if len(raw) > limit:
        raise RequestEntityTooLarge()
    if len(raw) >= limit and request.content_length is None and request.environ.get("wsgi.input_terminated"):
        if request.environ["wsgi.input"].read(1):  # a chunked body werkzeug cut at the limit: more follows
            raise RequestEntityTooLarge()
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise ApiError(400, "bad_json", "the request body is not UTF-8 text",
                       fr="le corps de la requête n'est pas du texte UTF-8") from None
    if not text.strip():
        raise ApiError(400, "bad_json", "the request body is empty; send a JSON object",
                       fr="le corps de la requête est vide ; envoyez un objet JSON")
    try:
        data = parse_json_bounded(text, source="request", error=RequestError)
    except RequestError as exc:
        raise ApiError(400, "bad_json", str(exc), fr=getattr(exc, "message_fr", None)
                       or "le corps de la requête n'est pas un JSON accepté (syntaxe, profondeur, "
                          "nombres non finis ou trop grands)") from None
    return body_reader(data)


def identifier(r: Reader, key: str, default: Any = ...) -> Any:
    """Read an id (letters, digits, ``-_.: ``, at most 80 characters)."""
    value = r.string(key) if default is ... else r.string(key, default)
    if value is not None and not _ID.match(value):
        refuse(r, key, f"must be an id of at most {MAX_ID_LENGTH} letters, digits or -_.: characters, "
                       f"got {value[:40]!r}",
               f"doit être un identifiant d'au plus {MAX_ID_LENGTH} lettres, chiffres ou caractères -_.:, "
               f"reçu : {value[:40]!r}")
    return value


def string_list(r: Reader, key: str, *, max_items: int = 20) -> list[str]:
    """Read a list of short strings (question arguments)."""
    values = r.array(key, [])
    if len(values) > max_items:
        refuse(r, key, f"must have at most {max_items} items, got {len(values)}",
               f"doit avoir au plus {max_items} éléments, reçu : {len(values)}")
    for i, v in enumerate(values):
        if not isinstance(v, (str, int, float)) or isinstance(v, bool):
            refuse(r, key, f"[{i}] must be a string or a number, got {str(v)[:40]!r}",
                   f"[{i}] doit être un texte ou un nombre, reçu : {str(v)[:40]!r}")
        if isinstance(v, str) and len(v) > MAX_ID_LENGTH:
            refuse(r, key, f"[{i}] is longer than {MAX_ID_LENGTH} characters",
                   f"[{i}] dépasse {MAX_ID_LENGTH} caractères")
    return [str(v) for v in values]


def points(r: Reader, key: str, *, minimum: int) -> list[tuple[float, float]]:
    """Read a list of ``[x_mm, y_mm]`` points (at least ``minimum``, at most 200)."""
    raw = r.array(key)
    if not minimum <= len(raw) <= MAX_POINTS:
        refuse(r, key, f"must have from {minimum} to {MAX_POINTS} points, got {len(raw)}",
               f"doit avoir de {minimum} à {MAX_POINTS} points, reçu : {len(raw)}")
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
        refuse(r, key, f"must have at most {max_keys} keys", f"doit avoir au plus {max_keys} clés")
    return dict(child.data)
