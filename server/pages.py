"""The page: one HTML document, plain JavaScript and CSS served by Flask (no build step, no CDN).

Also each action's form as the page builds it (:func:`action_forms`), from the rules
core's description of the action's arguments and their legal values; the page's form
renderer (``forms.js``) draws it.
"""

from __future__ import annotations

import functools
import hashlib
import logging
from pathlib import Path
from typing import Any

from flask import Blueprint, Response, current_app, render_template, request, url_for

from rules.plan import TablePlan
from server import rulesbridge
from tabletracker.errors import TabletrackerError

log = logging.getLogger(__name__)

bp = Blueprint("pages", __name__)

STATIC_DIR = Path(__file__).resolve().parent / "static"
# A static file asked for with its content's version (``?v=``) never changes: kept a year by the
# browser, so a phone opening the page again loads no script; a new version has a new address.
STATIC_MAX_AGE_S = 365 * 24 * 3600


@functools.lru_cache(maxsize=64)
def _version(name: str, mtime_ns: int) -> str:
    return hashlib.sha256((STATIC_DIR / name).read_bytes()).hexdigest()[:12]


def static_url(name: str) -> str:
    """Return the address of a static file with its content's version (``/static/app.js?v=...``)."""
    path = STATIC_DIR / name
    return url_for("static", filename=name, v=_version(name, path.stat().st_mtime_ns))


@bp.get("/")
def index() -> Any:
    from server.api import state_view  # the API imports this module

    try:  # the state the page draws first, in the page itself (no request before the first paint)
        boot: dict[str, Any] | None = state_view()
    except TabletrackerError as exc:  # the page then asks /api/state, which says what is wrong
        log.warning("page: no state in the page: %s", exc)
        boot = None
    html = render_template("index.html", default_lang=current_app.config["DEFAULT_LANG"],
                           lan=bool(current_app.config.get("LAN")), boot=boot, static_url=static_url)
    return Response(html, mimetype="text/html", headers={"Cache-Control": "no-cache"})  # the state changes


@bp.after_app_request
def _cache_static(response: Response) -> Response:
    if request.path.startswith("/static/") and request.args.get("v") and response.status_code == 200:
        response.headers["Cache-Control"] = f"public, max-age={STATIC_MAX_AGE_S}, immutable"
    return response


# The page's form of an argument, from the rules core's :class:`~rules.rulesets.params.Param`
# description: {"name", "kind": unit | model | weapon | number | choice | models, "label" (a page
# word id), "required", "values" (legal values), "values_by" (weapon: legal weapons by carrier),
# "enemy_of" (an argument naming the acting unit or model: only the other sides' are legal), "of"
# (weapon: the argument naming whose weapons), "min" (number), "integer", "help" (English help)}.
_KIND = {"unit": "unit", "model": "model", "figure": "model", "weapon": "weapon", "integer": "number",
         "number": "number", "choice": "choice", "bool": "choice", "side": "choice", "models": "models",
         "units": "units"}


def _arg_form(arg: dict[str, Any]) -> dict[str, Any] | None:
    """Return the page's form of one described argument (``None``: not asked on the page).

    A ``point`` or free ``table`` argument is never typed as JSON on the page: an optional
    one is left to the rule set's default; a required one makes the action not offered.
    """
    kind = _KIND.get(arg["kind"])
    if kind is None:
        return None
    out: dict[str, Any] = {"name": arg["name"], "kind": kind, "label": f"arg.{arg['name']}",
                           "required": bool(arg.get("required", True))}
    legal = arg.get("legal")
    if arg["kind"] == "bool":
        out["values"] = [True, False]
    elif arg["kind"] == "weapon":
        out["values_by"] = legal or {}
    elif legal is not None:
        out["values"] = list(legal)
    elif arg.get("choices"):
        out["values"] = list(arg["choices"])
    for key in ("enemy_of", "of", "help"):
        if arg.get(key) is not None:
            out[key] = arg[key]
    if arg["kind"] in ("integer", "number"):
        out["integer"] = arg["kind"] == "integer"
        if arg.get("minimum") is not None:
            out["min"] = arg["minimum"]
    return out


def action_forms(plan: TablePlan) -> dict[str, dict[str, Any]]:
    """Return, for each action of the plan's rule set, its arguments as the page's form renders them.

    Built from the rules core's own description (:func:`rules.resolve.describe_actions`),
    with the values legal in ``plan``. ``described`` is ``False`` when a required argument cannot
    be picked on the page (a free table): the action is then not offered.

    >>> from rules.plan import parse_game
    >>> plan = parse_game({"ruleset": "at-43", "table": {"width_mm": 600, "depth_mm": 600},
    ...     "units": [{"id": "a", "side": "A"}, {"id": "b", "side": "B"}],
    ...     "models": [{"id": "a1", "unit": "a", "x_mm": 100, "y_mm": 100, "base_mm": 25},
    ...                {"id": "b1", "unit": "b", "x_mm": 400, "y_mm": 400, "base_mm": 25}]})
    >>> form = action_forms(plan)["shoot"]
    >>> form["described"], [a["name"] for a in form["args"]][:3], form["args"][1]["enemy_of"]
    (True, ['firing', 'target', 'weapon'], 'firing')
    >>> form["args"][0]["values"]
    ['a', 'b']
    """
    out: dict[str, dict[str, Any]] = {}
    for desc in rulesbridge.describe_actions(plan):
        args, described = [], True
        for arg in desc["arguments"]:
            form = _arg_form(arg)
            if form is None:
                described = described and not arg.get("required", True)
                continue
            args.append(form)
        out[desc["action"]] = {"action": desc["action"], "label": f"action_name.{desc['action']}",
                               "described": described, "args": args}
    return out
