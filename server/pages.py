"""The page: one HTML document, plain JavaScript and CSS served by Flask (no build step, no CDN)."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, current_app, render_template

bp = Blueprint("pages", __name__)


@bp.get("/")
def index() -> Any:
    return render_template("index.html", default_lang=current_app.config["DEFAULT_LANG"],
                           lan=bool(current_app.config.get("LAN")))
