"""API errors: every failure reaches the client as a small JSON document, never a traceback.

Domain errors (the packages' errors, under :class:`tabletracker.errors.TabletrackerError`)
are mapped to 4xx at the blueprint edge; anything unexpected becomes a 500 with a generic message while the
traceback goes to the server log only.
"""

from __future__ import annotations

import logging
from typing import Any

from flask import Flask, jsonify
from werkzeug.exceptions import HTTPException

from rules.errors import GameFileError, IllegalActionError, InvalidActionError, MissingTableError, RosterError
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


class ApiError(Exception):
    """A client error with its HTTP status, a stable ``code`` and a readable message."""

    def __init__(self, status: int, code: str, message: str, **details: Any) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.details = details

    def to_json(self) -> dict[str, Any]:
        body: dict[str, Any] = {"code": self.code, "message": self.message}
        body.update(self.details)
        return {"error": body}


def bad_request(message: str, **details: Any) -> ApiError:
    """Return a 400 :class:`ApiError` (raise it)."""
    return ApiError(400, "bad_request", message, **details)


def from_domain(exc: TabletrackerError) -> ApiError:
    """Map a package's error (under the project root) to an :class:`ApiError`."""
    # a message id from the rules core: its words in both languages, for the page to show its own
    words = i18n.texts(exc)
    extra: dict[str, Any] = {"msg": getattr(exc, "msg_id"), "text": words} if words else {}
    for kind, status, code in DOMAIN_ERRORS:
        if isinstance(exc, kind):
            return ApiError(status, code, str(exc), **extra)
    return ApiError(400, "bad_request", str(exc), **extra)


def register_error_handlers(app: Flask) -> None:
    """Make every error a JSON answer for ``/api`` (and a short text elsewhere)."""

    @app.errorhandler(ApiError)
    def _api_error(exc: ApiError) -> Any:
        return jsonify(exc.to_json()), exc.status

    @app.errorhandler(HTTPException)
    def _http_error(exc: HTTPException) -> Any:
        status = exc.code or 500
        code = {404: "not_found", 405: "method_not_allowed", 413: "too_large",
                415: "unsupported_media_type", 403: "forbidden", 400: "bad_request"}.get(status, "http_error")
        message = {413: "the request is too large; the limit is "
                        f"{app.config.get('MAX_CONTENT_LENGTH', 0) // 1024} KiB"}.get(status, exc.description or exc.name)
        return jsonify({"error": {"code": code, "message": message}}), status

    @app.errorhandler(Exception)
    def _unexpected(exc: Exception) -> Any:
        log.exception("unexpected error while answering a request")
        return jsonify({"error": {"code": "internal", "message":
                                  "the server met an unexpected error; it is in the server log"}}), 500
