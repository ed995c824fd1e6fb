"""Safe by default: loopback only unless ``--lan``, then an access token on every request.

* Without an access token the app answers only requests addressed to a loopback host
  name (``127.0.0.1``, ``localhost``, ``[::1]``), so a web page elsewhere cannot reach
  it through DNS rebinding.
* With an access token (``--lan``) every request must carry it: ``?token=`` in the link
  printed at start (the page then keeps it in a cookie), the ``X-Access-Token`` header,
  or the cookie.
* Requests with a body must be JSON (``Content-Type: application/json``): a cross-site
  form cannot send that without the browser asking first, and the app never says yes.
"""

from __future__ import annotations

import hmac
import secrets
from typing import Any

from flask import Flask, jsonify, redirect, request

TOKEN_COOKIE = "tt_token"
LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "::1", "[::1]")


def new_token() -> str:
    """Return a fresh random access token."""
    return secrets.token_urlsafe(16)


def _host_name(host: str) -> str:
    if host.startswith("["):
        return host[: host.find("]") + 1]
    return host.rsplit(":", 1)[0] if host.count(":") == 1 else host


def install(app: Flask) -> None:
    """Check the host, the token and the body type before every request."""

    @app.before_request
    def _guard() -> Any:
        token = app.config.get("ACCESS_TOKEN")
        if not token:
            if _host_name(request.host) not in LOOPBACK_HOSTS:
                return _refuse(403, "forbidden", "this server listens for this computer only; "
                               "start it with --lan to let other devices watch")
        else:
            given = (request.args.get("token") or request.headers.get("X-Access-Token")
                     or request.cookies.get(TOKEN_COOKIE) or "")
            if not hmac.compare_digest(given.encode(), token.encode()):
                return _refuse(403, "forbidden", "an access token is needed: open the link with "
                               "?token=... printed by the server when it started")
            if request.args.get("token") and request.method == "GET" and not request.path.startswith("/api/"):
                response = redirect(request.path)
                response.set_cookie(TOKEN_COOKIE, token, httponly=True, samesite="Strict")
                return response
        if request.method in ("POST", "PUT", "PATCH") and request.content_length and not request.is_json:
            return _refuse(415, "unsupported_media_type",
                           "send the request body as JSON with the header Content-Type: application/json")
        return None

    @app.after_request
    def _headers(response: Any) -> Any:
        response.headers.setdefault("X-Content-Type-Options", "nosniff")
        response.headers.setdefault("Referrer-Policy", "no-referrer")
        response.headers.setdefault("X-Frame-Options", "DENY")
        response.headers.setdefault(
            "Content-Security-Policy",
            "default-src 'self'; img-src 'self' data: blob:; style-src 'self'; script-src 'self'; "
            "connect-src 'self'; frame-ancestors 'none'")
        return response


def _refuse(status: int, code: str, message: str) -> Any:
    if request.path.startswith("/api/"):
        return jsonify({"error": {"code": code, "message": message}}), status
    return message + "\n", status, {"Content-Type": "text/plain; charset=utf-8"}
