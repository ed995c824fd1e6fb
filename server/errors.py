"""API errors: every failure reaches the client as a small JSON document, never a traceback.

Domain errors (the packages' errors, under :class:`tabletracker.errors.TabletrackerError`)
are mapped to 4xx at the blueprint edge; anything unexpected becomes a 500 with a generic message while the
traceback goes to the server log only. A game database that cannot be written is a
503 saying what to do (free disk space, or ``--db``); the game goes on in memory.

Every error the server words itself carries ``message`` (English) and ``message_fr``
(French); the page shows the one of its language. Messages never quote Python's own
exception texts.
"""

from __future__ import annotations

import logging
from typing import Any, TypeVar

from flask import Flask, jsonify
from werkzeug.exceptions import HTTPException

from rules.errors import GameFileError, IllegalActionError, InvalidActionError, MissingTableError, RosterError
from server.wording import reader_message_fr
from tabletracker import i18n
from tabletracker.errors import TabletrackerError

log = logging.getLogger(__name__)

# Domain error -> (HTTP status, code). Order matters: the first match wins.
DOMAIN_ERRORS: tuple[tuple[type[Exception], int, str], ...] = (
    (IllegalActionError, 409, "illegal_action"),
    (MissingTableError, 409, "missing_table"),
    (InvalidActionError, 400, "invalid_action"),
    (GameFileError, 400, "invalid_game"),
    (RosterError, 400, "invalid_roster"),
)


class ServerError(TabletrackerError):
    """Root of the server's own errors (a malformed request, nothing to undo), under the project root."""


class ServerConfigError(ServerError, ValueError):
    """A server option that cannot be used (an unknown language or frame source kind); also a ``ValueError``."""


class ApiError(Exception):
    """A client error with its HTTP status, a stable ``code`` and a readable message."""

    def __init__(self, status: int, code: str, message: str, *, fr: str | None = None, **details: Any) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.message_fr = fr
        self.details = details

    def to_json(self) -> dict[str, Any]:
        body: dict[str, Any] = {"code": self.code, "message": self.message}
        if self.message_fr:
            body["message_fr"] = self.message_fr
        body.update(self.details)
        return {"error": body}


E = TypeVar("E", bound=BaseException)


def with_fr(exc: E, fr: str) -> E:
    """Return ``exc`` carrying its message in French too (``message_fr``, shown by the French page)."""
    exc.message_fr = fr  # type: ignore[attr-defined]
    return exc


def bad_request(message: str, *, fr: str, **details: Any) -> ApiError:
    """Return a 400 :class:`ApiError` (raise it), said in English and French."""
    return ApiError(400, "bad_request", message, fr=fr, **details)


def from_domain(exc: TabletrackerError) -> ApiError:
    """Map a package's error (under the project root) to an :class:`ApiError`."""
    fr = getattr(exc, "message_fr", None) or reader_message_fr(str(exc))  # a game file's fields: the reader's words
    # a message id from the rules core: its words in both languages, for the page to show its own
    words = i18n.texts(exc)
    extra: dict[str, Any] = {"msg": getattr(exc, "msg_id", None), "text": words} if words else {}
    for kind, status, code in DOMAIN_ERRORS:
        if isinstance(exc, kind):
            return ApiError(status, code, str(exc), fr=fr, **extra)
    return ApiError(400, "bad_request", str(exc), fr=fr, **extra)


# Our own words for HTTP errors (never werkzeug's English descriptions): status -> (code, en, fr).
HTTP_MESSAGES: dict[int, tuple[str, str, str]] = {
    400: ("bad_request", "the request is malformed", "la requête est mal formée"),
    403: ("forbidden", "this request is not allowed", "cette requête n'est pas permise"),
    404: ("not_found", "nothing here: check the address", "rien ici : vérifiez l'adresse"),
    405: ("method_not_allowed", "this address does not accept this method",
          "cette adresse n'accepte pas cette méthode"),
    408: ("timeout", "the request took too long to arrive", "la requête a mis trop de temps à arriver"),
    411: ("length_required", "say the body's length (Content-Length)",
          "indiquez la longueur du corps (Content-Length)"),
    413: ("too_large", "the request is too large; the limit is {kib} KiB",
          "la requête est trop grosse ; la limite est de {kib} Kio"),
    415: ("unsupported_media_type", "send the request body as JSON with the header Content-Type: application/json",
          "envoyez le corps de la requête en JSON avec l'en-tête Content-Type: application/json"),
    429: ("too_many", "too many requests at once; try again in a moment",
          "trop de requêtes à la fois ; réessayez dans un instant"),
}


def storage_error(exc: BaseException) -> ApiError:
    """A 503 for a game database that cannot be written: the change is kept in memory."""
    return ApiError(503, "storage_unavailable",
                    "the game database cannot be written (disk full, or a read-only folder); the game goes on "
                    "in memory and is saved as soon as writing works again. Free some disk space, or restart "
                    "with --db PATH on a writable disk",
                    fr="la base de la partie ne peut pas être écrite (disque plein, ou dossier en lecture seule) ; "
                       "la partie continue en mémoire et sera enregistrée dès que l'écriture refonctionne. "
                       "Libérez de la place sur le disque, ou relancez avec --db CHEMIN sur un disque inscriptible")


def register_error_handlers(app: Flask) -> None:
    """Make every error a JSON answer for ``/api`` (and a short text elsewhere)."""
    from server.store import StorageError  # the store's errors are ServerErrors: imported here, not at the top

    @app.errorhandler(ApiError)
    def _api_error(exc: ApiError) -> Any:
        return jsonify(exc.to_json()), exc.status

    @app.errorhandler(HTTPException)
    def _http_error(exc: HTTPException) -> Any:
        status = exc.code or 500
        kib = app.config.get("MAX_CONTENT_LENGTH", 0) // 1024
        code, en, fr = HTTP_MESSAGES.get(status, ("http_error", f"HTTP error {status}", f"erreur HTTP {status}"))
        return jsonify({"error": {"code": code, "message": en.format(kib=kib),
                                  "message_fr": fr.format(kib=kib)}}), status

    @app.errorhandler(StorageError)
    def _storage(exc: Exception) -> Any:
        log.error("game database: %s", exc)
        err = storage_error(exc)
        return jsonify(err.to_json()), err.status

    @app.errorhandler(Exception)
    def _unexpected(exc: Exception) -> Any:
        log.exception("unexpected error while answering a request")
        return jsonify({"error": {"code": "internal", "message":
                                  "the server met an unexpected error; it is in the server log",
                                  "message_fr": "le serveur a rencontré une erreur inattendue ; "
                                                "elle est dans son journal"}}), 500
