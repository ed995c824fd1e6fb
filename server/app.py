"""The Flask application factory: ``create_app(config)`` builds one self-contained overlay.

Everything an app needs (the game database, the live loop, the watchers) is made
here and kept in ``app.extensions["tabletracker"]``; there is no module-level state,
so tests build as many apps as they like.

Configuration keys (all optional):

``DB_PATH``
    The SQLite game database (default: :func:`default_db_path`).
``GAME`` / ``GAME_PATH``
    The game to play (a game-file dict, or its path). Default: the sample sequence's
    game when playing the sample, else an empty game on the setup's table.
``SETUP`` / ``SETUP_PATH``
    The setup (a :class:`calibration.setup.Setup` or its file). Default: the sample
    sequence's setup when playing the sample, else the game's table with defaults.
``SOURCE``
    ``{"kind": "sample" | "camera" | "video" | "images", "value": ...}`` or ``None``
    for no live source.
``TRACKER_FACTORY``
    A callable returning a :class:`server.live.FrameTracker` (tests' fake frames).
``FPS``, ``LOOP_SOURCE``
    Pace of file sources and whether the source starts over when it ends.
``START_LIVE``
    Start the live loop thread now (``serve`` does; tests step it by hand).
``NEW_GAME``
    Start a new game even when the database holds one started from the same file.
``ACCESS_TOKEN``, ``LAN``
    The token every request must carry (``--lan``), and whether LAN mode is on.
``DEFAULT_LANG``
    ``"fr"`` (default) or ``"en"``.
``MAX_CONTENT_LENGTH``
    Largest request body in bytes (default 2 MiB).
``MAX_SSE_CLIENTS``
    Most pages following the live feed at once (default 32; one more gets a 503).
``RESOLVE_BUDGET_S``
    Time for exact odds (default 0.6 s); past it, a stated Monte-Carlo estimate.

JSON answers and the live feed never carry ``NaN`` or ``Infinity`` (the browser cannot
parse them): a non-finite number is sent as ``null``.
"""

from __future__ import annotations

import logging
import math
import os
from pathlib import Path
from typing import Any, Mapping

from flask import Flask
from flask.json.provider import DefaultJSONProvider

from calibration.setup import Setup, load_setup, parse_setup
from rules.plan import game_to_dict, load_game, parse_game
from server import api, docs, pages, security
from server.errors import ServerConfigError, register_error_handlers, with_fr
from server.overlay import Overlay, open_store_game
from server.store import GameStore

log = logging.getLogger(__name__)

REPO_ROOT = Path(__file__).resolve().parents[1]
SAMPLE_SEQUENCE = REPO_ROOT / "sample_images" / "sequence"
DEFAULT_TABLE_MM = 1200.0
DEFAULT_RULESET = "firefight"
LANGS = ("fr", "en")

DEFAULTS: dict[str, Any] = {
    "DB_PATH": None,
    "GAME": None,
    "GAME_PATH": None,
    "HIGH_FIRE_TABLES": None,
    "SETUP": None,
    "SETUP_PATH": None,
    "SOURCE": None,
    "TRACKER_FACTORY": None,
    "FPS": 5.0,
    "LOOP_SOURCE": False,
    "START_LIVE": False,
    "NEW_GAME": False,
    "ACCESS_TOKEN": None,
    "LAN": False,
    "DEFAULT_LANG": "fr",
    "MAX_CONTENT_LENGTH": 2 * 1024 * 1024,
    "SSE_QUEUE_SIZE": 8,
    "MAX_SSE_CLIENTS": 32,
    "RESOLVE_BUDGET_S": 0.6,
    "JSON_SORT_KEYS": False,
}


def finite(value: Any) -> Any:
    """Return ``value`` with every non-finite float (NaN, Infinity) replaced by ``None``.

    >>> finite({"a": [1.0, float("nan")], "b": float("inf")})
    {'a': [1.0, None], 'b': None}
    """
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, Mapping):  # dicts and the rules core's frozen mappings
        return {k: finite(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [finite(v) for v in value]
    return value


class FiniteJSONProvider(DefaultJSONProvider):
    """Flask's JSON, refusing to write ``NaN``/``Infinity``: they become ``null``."""

    @staticmethod
    def default(o: Any) -> Any:
        """The rules core's frozen mappings are written as JSON objects."""
        if isinstance(o, Mapping):
            return dict(o)
        return DefaultJSONProvider.default(o)

    def dumps(self, obj: Any, **kwargs: Any) -> str:
        kwargs.setdefault("allow_nan", False)
        try:
            return super().dumps(obj, **kwargs)
        except ValueError:
            return super().dumps(finite(obj), **kwargs)


def default_db_path() -> Path:
    """Return where the game database lives by default.

    ``var/tabletracker.db`` in the repository when it is writable (a checkout), else
    ``$XDG_DATA_HOME/tabletracker/tabletracker.db`` (``~/.local/share``).
    """
    var = REPO_ROOT / "var"
    if os.access(REPO_ROOT, os.W_OK) and (REPO_ROOT / "pyproject.toml").exists():
        return var / "tabletracker.db"
    data_home = Path(os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share")
    return data_home / "tabletracker" / "tabletracker.db"


def create_app(config: Mapping[str, Any] | None = None) -> Flask:
    """Build the web overlay app.

    Parameters
    ----------
    config
        Overrides of :data:`DEFAULTS` (see the module docstring).

    Raises
    ------
    TabletrackerError
        A game or setup file that does not load, an unknown language (``ServerConfigError``), a frame source
        that cannot be opened (the message says what to fix).
    """
    app = Flask(__name__, static_folder="static", template_folder="templates")
    app.json = FiniteJSONProvider(app)
    app.config.update(DEFAULTS)
    app.config.update(dict(config or {}))
    if app.config["DEFAULT_LANG"] not in LANGS:
        lang = repr(app.config["DEFAULT_LANG"])
        raise with_fr(ServerConfigError(f"unknown language {lang}; languages are {', '.join(LANGS)}"),
                      f"langue inconnue {lang} ; les langues sont {', '.join(LANGS)}")

    source = app.config["SOURCE"]
    setup = _setup(app.config, source)
    game_doc = _game(app.config, source, setup)
    if setup is None:
        table = game_doc["table"]
        setup = parse_setup({"table": {"width_mm": table["width_mm"], "depth_mm": table["depth_mm"]}})

    store = GameStore(app.config["DB_PATH"] or default_db_path())
    how, game_id = open_store_game(store, game_doc, force_new=bool(app.config["NEW_GAME"]))
    log.info("game %d %s (database %s)", game_id, how, store.path)
    app.config["GAME_OPENED"] = how

    make_tracker = app.config["TRACKER_FACTORY"]
    if make_tracker is None and source is not None:
        from server.tracking import make_tracker_step
        make_tracker = make_tracker_step(source, setup)
    overlay = Overlay(store, make_tracker, side_colours=dict(setup.bases.sides),
                      fps=app.config["FPS"], loop_source=bool(app.config["LOOP_SOURCE"]),
                      queue_size=int(app.config["SSE_QUEUE_SIZE"]), source_label=_label(source))
    app.extensions["tabletracker"] = overlay

    security.install(app)
    register_error_handlers(app)
    app.register_blueprint(api.bp)
    app.register_blueprint(pages.bp)
    app.register_blueprint(docs.bp)
    overlay.publish_game()
    if app.config["START_LIVE"]:
        overlay.start()
    return app


def _label(source: Mapping[str, Any] | None) -> str:
    if source is None:
        return ""
    kind = source.get("kind", "sample")
    return kind if kind == "sample" else f"{kind} {source.get('value')}"


def _setup(config: Mapping[str, Any], source: Mapping[str, Any] | None) -> Setup | None:
    if config["SETUP"] is not None:
        return config["SETUP"]
    if config["SETUP_PATH"]:
        return load_setup(config["SETUP_PATH"])
    if source is not None and source.get("kind") == "sample" and (SAMPLE_SEQUENCE / "setup.json").exists():
        return load_setup(SAMPLE_SEQUENCE / "setup.json")
    return None


def _game(config: Mapping[str, Any], source: Mapping[str, Any] | None, setup: Setup | None) -> dict[str, Any]:
    if config["GAME"] is not None:
        return game_to_dict(parse_game(config["GAME"], source="game"))
    if config["GAME_PATH"]:  # High Fire tables the game names are read here, at the edge
        from rules.rulesets.high_fire.actions import with_named_tables

        plan = with_named_tables(load_game(config["GAME_PATH"]), config["GAME_PATH"], config.get("HIGH_FIRE_TABLES"))
        return game_to_dict(plan)
    sample_game = SAMPLE_SEQUENCE / "game.json"
    if source is not None and source.get("kind") == "sample" and sample_game.exists():
        return game_to_dict(load_game(sample_game))
    w = setup.table.width_mm if setup else DEFAULT_TABLE_MM
    d = setup.table.depth_mm if setup else DEFAULT_TABLE_MM
    return {"ruleset": DEFAULT_RULESET, "table": {"width_mm": w, "depth_mm": d}, "units": [], "models": []}

