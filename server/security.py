"""Safe by default: loopback only unless ``--lan``, then an access token on every request.

* Without an access token the app answers only requests addressed to a loopback host
  name (``127.0.0.1``, ``localhost``, ``[::1]``), so a web page elsewhere cannot reach
  it through DNS rebinding.
* With an access token (``--lan``) every request must carry it: ``?token=`` in the link
  printed at start (the page then keeps it in a cookie), the ``X-Access-Token`` header,
  or the cookie.
* Every state-changing request (POST, PUT, PATCH, DELETE), with a body or not, must
  come from the page itself: a browser says where a request comes from (``Origin``,
  ``Sec-Fetch-Site``), and a request another site made is refused (403) in both modes,
  so a web page the player visits cannot undo the game by posting an empty form.
  Programs that are not browsers (``curl``, scripts) send neither header and pass.
* Requests with a body (sized or chunked) must be JSON (``Content-Type: application/json``).
* The access token never reaches a log: the request lines the web server logs have
  ``token=...`` replaced by ``token=[hidden]``.
"""

from __future__ import annotations

import hmac
import ipaddress
import logging
import re
import secrets
from typing import Any

from flask import Flask, jsonify, redirect, request

TOKEN_COOKIE = "tt_token"
LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "::1", "[::1]")


def new_token() -> str:
    """Return a fresh random access token."""
    return secrets.token_urlsafe(16)


CHANGING_METHODS = ("POST", "PUT", "PATCH", "DELETE")
_TOKEN_IN_TEXT = re.compile(r"(token=)[^&\s\"']+", re.IGNORECASE)


def _host_name(host: str) -> str:
    if host.startswith("["):
        return host[: host.find("]") + 1]
    return host.rsplit(":", 1)[0] if host.count(":") == 1 else host


def is_loopback_host(host: str) -> bool:
    """Return whether a ``Host`` header names this computer (``localhost``, ``127.0.0.0/8``, ``[::1]``).

    >>> is_loopback_host("127.0.0.2:8000"), is_loopback_host("[::1]:80"), is_loopback_host("evil.example")
    (True, True, False)
    """
    name = _host_name(host.strip().lower())
    if name in LOOPBACK_HOSTS:
        return True
    try:
        return ipaddress.ip_address(name.strip("[]")).is_loopback
    except ValueError:
        return False


def cross_site_reason() -> str | None:
    """Return why the current request comes from another site, or ``None`` when it is the page's own."""
    fetch_site = request.headers.get("Sec-Fetch-Site", "").strip().lower()
    if fetch_site and fetch_site not in ("same-origin", "none"):
        return f"Sec-Fetch-Site: {fetch_site[:20]}"
    origin = request.headers.get("Origin")
    if origin is not None:
        expected = f"{request.scheme}://{request.host}".lower()
        if origin.strip().lower() != expected:
            return f"Origin: {origin[:60]}"
    return None


class HideTokens(logging.Filter):
    """A logging filter replacing ``token=...`` by ``token=[hidden]`` in every record."""

    def filter(self, record: logging.LogRecord) -> bool:
        if record.args:
            record.args = tuple(_TOKEN_IN_TEXT.sub(r"\1[hidden]", a) if isinstance(a, str) else a
                                for a in (record.args if isinstance(record.args, tuple) else (record.args,)))
        if isinstance(record.msg, str) and "token=" in record.msg.lower():
            record.msg = _TOKEN_IN_TEXT.sub(r"\1[hidden]", record.msg)
        return True


def hide_tokens_in_logs() -> None:
    """Install :class:`HideTokens` on the web server's request log (once)."""
    logger = logging.getLogger("werkzeug")
    if not any(isinstance(f, HideTokens) for f in logger.filters):
        logger.addFilter(HideTokens())


def install(app: Flask) -> None:
    """Check the host, the token and the body type before every request."""

    hide_tokens_in_logs()

    @app.before_request
    def _guard() -> Any:
        token = app.config.get("ACCESS_TOKEN")
        if not token:
            if not is_loopback_host(request.host):
                return _refuse(403, "forbidden", "this server listens for this computer only; "
                               "start it with --lan to let other devices watch",
                               "ce serveur n'écoute que cet ordinateur ; lancez-le avec --lan pour que "
                               "d'autres appareils puissent regarder")
        else:
            given = (request.args.get("token") or request.headers.get("X-Access-Token")
                     or request.cookies.get(TOKEN_COOKIE) or "")
            if not hmac.compare_digest(given.encode(), token.encode()):
                return _refuse(403, "forbidden", "an access token is needed: open the link with "
                               "?token=... printed by the server when it started",
                               "il faut le jeton d'accès : ouvrez le lien avec ?token=... affiché par le "
                               "serveur à son démarrage")
            if request.args.get("token") and request.method == "GET" and not request.path.startswith("/api/"):
                response = redirect(request.path)
                response.set_cookie(TOKEN_COOKIE, token, httponly=True, samesite="Strict")
                return response
        if request.method in CHANGING_METHODS:
            why = cross_site_reason()
            if why is not None:
                return _refuse(403, "cross_site", "this change was sent by another web site "
                               f"({why}); only the tabletracker page can change the game",
                               f"ce changement vient d'un autre site web ({why}) ; seule la page "
                               "de tabletracker peut modifier la partie")
            chunked = "chunked" in request.headers.get("Transfer-Encoding", "").lower()
            if (request.content_length or chunked) and not request.is_json:
                return _refuse(415, "unsupported_media_type",
                               "send the request body as JSON with the header Content-Type: application/json",
                               "envoyez le corps de la requête en JSON avec l'en-tête "
                               "Content-Type: application/json")
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


def _refuse(status: int, code: str, message: str, message_fr: str) -> Any:
    if request.path.startswith("/api/"):
        return jsonify({"error": {"code": code, "message": message, "message_fr": message_fr}}), status
    return f"{message_fr}\n{message}\n", status, {"Content-Type": "text/plain; charset=utf-8"}
