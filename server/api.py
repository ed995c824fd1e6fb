"""The HTTP API the page uses (``/api/...``): JSON in, JSON out, 4xx JSON on bad input.

Reading: ``GET /api/state``, ``/api/log``, ``/api/stream`` (Server-Sent Events),
``/api/frame/<camera|plan>.jpg``, ``/api/projection``, ``/api/game/export``,
``/api/zones`` (deployment zones).
Questions and actions: ``POST /api/ask`` (``rules.questions.ask``), ``/api/bands`` (a
weapon's range bands around a model), ``/api/resolve`` (odds, or a roll when dice or a
seed are given; nothing changes), ``/api/resolve/apply`` (the same with the dice shown,
applied as one step). Changes (each one step of the log): ``/api/undo``,
``/api/game/import``, ``/api/setup/ruleset``, ``/api/setup/table``, ``/api/setup/rosters``,
``/api/setup/assign``, ``/api/terrain``, ``/api/objectives``, ``/api/models/<id>/move``,
``/api/models/<id>/elevation``.
"""

from __future__ import annotations

import functools
import json
import logging
import math
from typing import Any, Callable

from flask import Blueprint, Response, current_app, jsonify, request

from rules.plan import TERRAIN_SHAPES, game_to_dict
from rules.rulesets import RULESET_IDS
from server import edits, pages, rulesbridge, shotpreview
from server.bands import range_bands
from server.broadcast import stream
from server.errors import ApiError, from_domain
from server.live import lower_thread_priority
from server.overlay import Overlay
from server.validate import (
    MAX_ID_LENGTH,
    RequestError,
    identifier,
    json_body,
    plain_object,
    points,
    refuse,
    string_list,
)
from tabletracker.errors import TabletrackerError
from tabletracker.i18n import localize

log = logging.getLogger(__name__)

MAX_LOG_ROWS = 1000
MAX_ROSTERS = 8
MAX_TABLE_MM = 10_000.0
_SHAPES_FR = {"area": "zone", "line": "ligne"}

bp = Blueprint("api", __name__, url_prefix="/api")


def overlay() -> Overlay:
    return current_app.extensions["tabletracker"]


def atomic(view: Callable[..., Any]) -> Callable[..., Any]:
    """Run a change's read-modify-write under the overlay's lock, so a move the tracker
    records meanwhile is never overwritten by a change made from an older game."""

    @functools.wraps(view)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        with overlay().editing():
            return view(*args, **kwargs)

    return wrapper


@bp.errorhandler(TabletrackerError)
def _domain_error(exc: TabletrackerError) -> Any:
    err = from_domain(exc)
    return jsonify(err.to_json()), err.status


# -- reading --------------------------------------------------------------------------------
@bp.get("/state")
def state() -> Any:
    return jsonify(state_view())


def state_view() -> dict[str, Any]:
    """Return what the page needs to draw the table and offer its tools (``GET /api/state``).

    The page's HTML carries it too (read at once, no second request before the first paint).
    """
    ov = overlay()
    plan = ov.plan()
    return {
        "game": ov.game_view(),
        "live": ov.live_view(),
        "server": {
            "default_lang": current_app.config["DEFAULT_LANG"],
            "lan": bool(current_app.config.get("LAN")),
            # the link to give phones at the table (only ever shown to a client holding the token)
            "access_link": current_app.config.get("ACCESS_LINK") if current_app.config.get("ACCESS_TOKEN") else None,
            "source": ov.source_label,
            "live": ov.loop is not None,
            "rulesets": list(RULESET_IDS),
            "terrain_shapes": list(TERRAIN_SHAPES),
        },
        "actions": _safe(lambda: rulesbridge.actions_of(plan.ruleset), []),
        "action_forms": _safe(lambda: pages.action_forms(plan), {}),
        "questions": _safe(lambda: rulesbridge.questions_of(plan), []),
        "terrain_kinds": _safe(lambda: rulesbridge.terrain_kinds(plan.ruleset), []),
    }


def _safe(fn: Any, default: Any) -> Any:
    try:
        return fn()
    except (ApiError, TabletrackerError) as exc:
        log.warning("state: %s", exc)
        return default


@bp.get("/log")
def game_log() -> Any:
    limit = request.args.get("limit", "200")
    if not limit.isdigit() or not 1 <= int(limit) <= MAX_LOG_ROWS:
        raise ApiError(400, "bad_request", f"limit must be a whole number from 1 to {MAX_LOG_ROWS}, got {limit[:20]!r}",
                       fr=f"limit doit être un nombre entier de 1 à {MAX_LOG_ROWS}, reçu : {limit[:20]!r}")
    return jsonify({"events": [e.to_json() for e in overlay().store.events(limit=int(limit))]})


@bp.get("/stream")
def events_stream() -> Response:
    ov = overlay()
    cap = int(current_app.config.get("MAX_SSE_CLIENTS") or 32)
    if ov.broadcaster.client_count >= cap:
        raise ApiError(503, "too_many_watchers", f"{cap} pages already follow the live table; close one "
                       "(another tab or phone) and reload", fr=f"{cap} pages suivent déjà la table en direct ; "
                       "fermez-en une (autre onglet ou téléphone) puis rechargez")
    client = ov.broadcaster.subscribe()
    lower_thread_priority()
    return Response(stream(ov.broadcaster, client, ov.stopping), mimetype="text/event-stream",
                    headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"})


@bp.get("/frame/<view>.jpg")
def frame(view: str) -> Any:
    if view not in ("camera", "plan"):
        raise ApiError(404, "not_found", f"unknown view {view[:20]!r}; views are camera, plan",
                       fr=f"vue inconnue {view[:20]!r} ; les vues sont camera, plan")
    lower_thread_priority()  # encoding for a watcher must not take the tracker's CPU
    got = overlay().images.jpeg(view)
    if got is None:
        raise ApiError(404, "no_frame", "no frame yet (the camera has not delivered one, "
                       "or the table's corner markers were not found)",
                       fr="pas encore d'image (la caméra n'en a pas donné, ou les marqueurs des coins de la table "
                          "n'ont pas été trouvés)")
    seq, data = got
    return Response(data, mimetype="image/jpeg", headers={"Cache-Control": "no-store", "X-Frame-Seq": str(seq)})


@bp.get("/projection")
def projection() -> Any:
    grid = overlay().images.projection_grid()
    if grid is None:
        raise ApiError(404, "no_calibration", "no calibrated frame yet: the four corner markers must be seen",
                       fr="pas encore d'image calibrée : les quatre marqueurs des coins doivent être vus")
    return jsonify(grid)


@bp.get("/game/export")
def export_game() -> Response:
    text = json.dumps(game_to_dict(overlay().plan()), indent=2, ensure_ascii=False) + "\n"
    return Response(text, mimetype="application/json",
                    headers={"Content-Disposition": 'attachment; filename="game.json"'})


# -- questions and actions -----------------------------------------------------------------------
@bp.post("/ask")
def ask() -> Any:
    r = json_body(request)
    r.only(("question", "args", "options"))
    question = identifier(r, "question")
    args = string_list(r, "args")
    options = plain_object(r, "options")
    answer = rulesbridge.ask(overlay().plan(), question, args, options)
    return jsonify(localize(answer))


def _resolution_request() -> tuple[str, dict[str, Any], Any, dict[str, Any]]:
    r = json_body(request)
    r.only(("action", "request", "dice", "seed"))
    action = identifier(r, "action")
    req = plain_object(r, "request")
    dice = rulesbridge.dice_from(r.data)
    return action, req, dice, dict(r.data)


@bp.get("/actions")
def actions() -> Any:
    return jsonify({"actions": rulesbridge.describe_actions(overlay().plan())})


def _budget() -> float:
    return float(current_app.config.get("RESOLVE_BUDGET_S") or 0.6)


@bp.get("/shot-preview")
def shot_preview() -> Any:
    """Every enemy unit of ``?unit=ID``: not visible, refused (out of range...), in cover or clear, with odds."""
    unit = request.args.get("unit", "")
    if not unit:
        raise ApiError(400, "bad_request", "say which unit is about to shoot: /api/shot-preview?unit=ID",
                       fr="dites quelle unité va tirer : /api/shot-preview?unit=ID")
    return jsonify(localize(shotpreview.shot_preview(overlay().plan(), unit)))


@bp.post("/resolve")
def resolve() -> Any:
    action, req, dice, _ = _resolution_request()
    lower_thread_priority()  # odds can take their whole budget: the tracker's thread goes first
    resolution = rulesbridge.resolve(overlay().plan(), action, req, dice, budget_s=_budget())
    out = resolution.to_json()
    out["casualty_chance"] = shotpreview.casualty_chance(out["odds"])  # the headline's figure, as the preview's
    return jsonify(localize(out))


@bp.post("/resolve/apply")
def resolve_apply() -> Any:
    """Resolve with the dice shown and apply the result as one step.

    The resolution (exact odds can take a second) is computed outside the overlay's
    lock, so the live feed, the state and every edit go on meanwhile; the change is
    recorded only when the game is still the one resolved on (else resolved again).
    """
    action, req, dice, body = _resolution_request()
    if body.get("dice") is None:
        raise ApiError(400, "bad_request", "apply needs the dice of the roll being applied "
                       "(the list shown by the roll, or the players' own dice)",
                       fr="appliquer demande les dés du jet appliqué (la liste montrée par le jet, "
                          "ou les dés des joueurs)")
    ov = overlay()
    lower_thread_priority()  # odds can take their whole budget: the tracker's thread goes first
    for _ in range(3):
        with ov.editing():
            plan, based_on = ov.plan(), ov.store.current().event_id
        resolution = rulesbridge.resolve(plan, action, req, dice, budget_s=_budget())
        if resolution.plan_after is None:
            raise ApiError(409, "nothing_to_apply", "this resolution gives no game state to apply",
                           fr="cette résolution ne donne aucun état de partie à appliquer")
        out = resolution.to_json()
        summary = ", ".join(str(v) for v in req.values() if isinstance(v, (str, int, float)))
        with ov.editing():
            if ov.store.current().event_id != based_on:
                continue  # the tracker or another player changed the game meanwhile: resolve again
            changes = edits.what_changed(plan, resolution.plan_after)
            event = ov.change("resolution", resolution.plan_after, {
                "action": action, "request": req, "summary": summary, "dice": [v for _, v in resolution.dice],
                "result": out.get("result"), "needed": out.get("needed"), "changes": changes,
                "names": edits.names_of(plan, req)})
        return jsonify({"event": event.to_json(), "resolution": localize(out)})
    raise ApiError(409, "game_changed", "the game kept changing while this action was resolved; apply it again",
                   fr="la partie a changé pendant la résolution de cette action ; appliquez-la de nouveau")


@bp.post("/undo")
@atomic
def undo() -> Any:
    """Undo the player's last action, or (``{"event": id}``) every action back to that log entry.

    Camera sightings are not steps of their own: what the camera sees now is put back
    after the undo (the camera corrects itself).
    """
    event_id = None
    if request.content_length:
        r = json_body(request)
        r.only(("event",))
        event_id = r.integer("event", None)
    ov = overlay()
    try:
        event = ov.undo(event_id)
    except LookupError as exc:  # the store's game or snapshot is gone: said in both languages
        raise ApiError(409, "nothing_to_undo", str(exc), fr=f"rien à annuler ({exc})") from None
    except TabletrackerError as exc:
        raise ApiError(409, "nothing_to_undo", str(exc), fr=getattr(exc, "message_fr", None)
                       or "rien à annuler") from None
    return jsonify({"event": event.to_json(), "game": ov.game_view()})


# -- set-up -------------------------------------------------------------------------------
def _changed(event: Any) -> Any:
    return jsonify({"event": event.to_json(), "game": overlay().game_view()})


@bp.post("/game/import")
@atomic
def import_game() -> Any:
    r = json_body(request)
    r.only(("game", "filename"))
    if not r.has("game"):
        refuse(r, "game", "is missing (the game file's JSON object)", "manque (l'objet JSON du fichier de partie)")
    r.child("game")  # must be an object
    filename = r.string("filename", "imported game")[:MAX_ID_LENGTH]
    event = overlay().replace_game(r.data["game"], payload={"filename": filename})
    return _changed(event)


@bp.post("/setup/ruleset/proposal")
def propose_ruleset() -> Any:
    """What switching to another rule set does to the terrain: each piece's kind there (proposed).

    Returns ``{"ruleset", "pieces": [{"terrain", "name", "kind", "shape", "proposed", "same",
    "choices"}]}``; nothing changes until ``POST /api/setup/ruleset`` with the mapping.
    """
    r = json_body(request)
    r.only(("ruleset",))
    ruleset = r.string("ruleset", choices=RULESET_IDS)
    kinds = rulesbridge.terrain_kinds(ruleset)
    return jsonify({"ruleset": ruleset, "pieces": edits.propose_kinds(overlay().plan(), kinds)})


@bp.post("/setup/ruleset")
@atomic
def set_ruleset() -> Any:
    """Switch rule set; ``mapping`` ({terrain id: kind}) retypes terrain pieces in the same step."""
    r = json_body(request)
    r.only(("ruleset", "mapping"))
    ruleset = r.string("ruleset", choices=RULESET_IDS)
    mapping = plain_object(r, "mapping") if r.has("mapping") else {}
    ov = overlay()
    plan = ov.plan()
    kinds = {k["kind"]: k for k in rulesbridge.terrain_kinds(ruleset)}
    for terrain_id, kind in mapping.items():
        piece = next((t for t in plan.terrain if t.terrain_id == terrain_id), None)
        if piece is None:
            raise ApiError(400, "unknown_terrain", f"there is no terrain piece {terrain_id[:40]!r}",
                           fr=f"il n'y a pas de décor {terrain_id[:40]!r}", params={"terrain": terrain_id[:40]})
        if not isinstance(kind, str) or kind not in kinds or piece.shape not in kinds[kind]["shapes"]:
            raise ApiError(400, "terrain_kind_refused", f"{ruleset} has no terrain kind {str(kind)[:40]!r} "
                           f"drawn as {piece.shape} for {terrain_id}",
                           fr=f"{ruleset} n'a pas de type de décor {str(kind)[:40]!r} dessiné en "
                              f"{_SHAPES_FR.get(piece.shape, piece.shape)} pour {terrain_id}", params={
                               "terrain": terrain_id, "kind": str(kind)[:40], "ruleset": ruleset},
                           proposal=edits.propose_kinds(plan, list(kinds.values())))
    before = plan.ruleset
    new = edits.set_ruleset(edits.retype_terrain(plan, mapping), ruleset)
    try:
        rulesbridge.ruleset_of(ruleset).check_plan(new)  # every terrain kind must exist in the new rule set
    except TabletrackerError as exc:
        raise ApiError(400, "terrain_kind", f"{exc}; confirm a terrain kind of {ruleset} for each piece",
                       fr=f"{getattr(exc, 'message_fr', None) or exc} ; confirmez un type de décor de {ruleset} "
                          "pour chaque décor", params={"ruleset": ruleset},
                       proposal=edits.propose_kinds(plan, list(kinds.values()))) from None
    changed = {k: v for k, v in mapping.items()
               if next(t for t in plan.terrain if t.terrain_id == k).kind != v}
    return _changed(ov.change("setup.ruleset", new, {"ruleset": ruleset, "from": before, "mapping": changed}))


@bp.post("/setup/table")
@atomic
def set_table() -> Any:
    r = json_body(request)
    r.only(("width_mm", "depth_mm"))
    w, d = r.number("width_mm", positive=True), r.number("depth_mm", positive=True)
    for key, value in (("width_mm", w), ("depth_mm", d)):
        if value > MAX_TABLE_MM:
            refuse(r, key, f"must be at most {MAX_TABLE_MM:g} mm, got {value:g}",
                   f"doit valoir au plus {MAX_TABLE_MM:g} mm, reçu : {value:g}")
    ov = overlay()
    return _changed(ov.change("setup.table", edits.set_table(ov.plan(), w, d), {"width_mm": w, "depth_mm": d}))


@bp.post("/setup/rosters")
@atomic
def load_rosters() -> Any:
    r = json_body(request)
    r.only(("rosters",))
    items = r.children("rosters")
    if not 1 <= len(items) <= MAX_ROSTERS:
        refuse(r, "rosters", f"must hold from 1 to {MAX_ROSTERS} rosters, got {len(items)}",
               f"doit contenir de 1 à {MAX_ROSTERS} listes d'armée, reçu : {len(items)}")
    rosters = []
    for item in items:
        item.only(("filename", "text"))
        filename = item.string("filename")[:MAX_ID_LENGTH]
        rosters.append(rulesbridge.parse_roster_text(item.string("text"), filename))
    ov = overlay()
    plan = ov.place_seen(rulesbridge.merge_rosters(ov.plan(), rosters))
    names = [getattr(x, "source", "") for x in rosters]
    return _changed(ov.change("roster", plan, {"rosters": names,
                                                "sides": [getattr(x, "side", "") for x in rosters]}))


@bp.post("/setup/assign")
@atomic
def assign() -> Any:
    r = json_body(request)
    r.only(("model", "marker_id", "base_id"))
    model_id = identifier(r, "model")
    ov = overlay()
    plan = ov.plan()
    model_of(plan, model_id)
    if r.has("base_id"):
        base_id = identifier(r, "base_id")
        seen = ov.base_sighting(base_id)
        if seen is None:
            raise ApiError(400, "unknown_base", f"the tracker follows no bare base {base_id!r} now",
                           fr=f"le suivi ne voit pas de socle nu {base_id!r} en ce moment")
        new = edits.assign_base(plan, model_id, base_id, (seen["x_mm"], seen["y_mm"]))
        return _changed(ov.change("assign", new, {"model": model_id, "base_id": base_id}))
    if not r.has("marker_id"):
        refuse(r, "marker_id", "is missing: give marker_id (a number, or null to unassign) or base_id",
               "manque : donnez marker_id (un nombre, ou null pour retirer l'attribution) ou base_id")
    marker_id = r.integer("marker_id", None)
    if marker_id is not None and not 4 <= marker_id <= 999:
        refuse(r, "marker_id", f"must be a base marker id from 4 (ids 0-3 are the table corners), got {marker_id}",
               f"doit être un numéro de marqueur de socle à partir de 4 (0 à 3 sont les coins de la table), "
               f"reçu : {marker_id}")
    seen = ov.sighting(marker_id) if marker_id is not None else None
    pos = (seen["x_mm"], seen["y_mm"]) if seen else None
    new = edits.assign_marker(plan, model_id, marker_id, pos, seen.get("facing_deg") if seen else None)
    return _changed(ov.change("assign", new, {"model": model_id, "marker_id": marker_id}))


@bp.post("/terrain")
@atomic
def add_terrain() -> Any:
    r = json_body(request)
    r.only(("kind", "shape", "points_mm", "height_mm", "name"))
    shape = r.string("shape", choices=TERRAIN_SHAPES)
    kind = identifier(r, "kind")
    pts = points(r, "points_mm", minimum=3 if shape == "area" else 2)
    height = r.number("height_mm", None)
    if height is not None and not 0 <= height <= 2000:
        refuse(r, "height_mm", f"must be from 0 to 2000 mm, got {height:g}",
               f"doit aller de 0 à 2000 mm, reçu : {height:g}")
    name = r.string("name", None)
    ov = overlay()
    plan = ov.plan()
    _check_on_table(plan, pts, r)
    kinds = {k["kind"]: k for k in rulesbridge.terrain_kinds(plan.ruleset)}
    if kind not in kinds:
        raise ApiError(400, "unknown_kind", f"{plan.ruleset} has no terrain kind {kind!r}; "
                       f"kinds are: {', '.join(kinds)}",
                       fr=f"{plan.ruleset} n'a pas de type de décor {kind!r} ; ses types : {', '.join(kinds)}",
                       params={"ruleset": plan.ruleset, "kinds": list(kinds)})
    if shape not in kinds[kind]["shapes"]:
        raise ApiError(400, "wrong_shape", f"in {plan.ruleset} a {kind} is drawn as "
                       f"{' or '.join(kinds[kind]['shapes'])}, not as {shape}",
                       fr=f"dans {plan.ruleset}, un décor {kind} se dessine en "
                          f"{' ou '.join(_SHAPES_FR.get(x, x) for x in kinds[kind]['shapes'])}, "
                          f"pas en {_SHAPES_FR.get(shape, shape)}",
                       params={"ruleset": plan.ruleset, "kind": kind, "shapes": list(kinds[kind]["shapes"])})
    new = edits.add_terrain(plan, kind=kind, shape=shape, points_mm=pts, height_mm=height,
                            name=name[:MAX_ID_LENGTH] if name else None)
    added = new.terrain[-1]
    return _changed(ov.change("terrain.add", new, {"terrain": added.terrain_id, "kind": kind, "shape": shape}))


@bp.delete("/terrain/<terrain_id>")
@atomic
def remove_terrain(terrain_id: str) -> Any:
    ov = overlay()
    plan = ov.plan()
    if not any(t.terrain_id == terrain_id for t in plan.terrain):
        raise ApiError(400, "unknown_terrain", f"no terrain {terrain_id[:40]!r} in this game; terrain is: "
                       f"{', '.join(t.terrain_id for t in plan.terrain) or '(none)'}",
                       fr=f"pas de décor {terrain_id[:40]!r} dans cette partie ; décors : "
                          f"{', '.join(t.terrain_id for t in plan.terrain) or '(aucun)'}",
                       params={"terrain": terrain_id[:40]})
    new = edits.remove_terrain(plan, terrain_id)
    return _changed(ov.change("terrain.remove", new, {"terrain": terrain_id}))


@bp.post("/objectives")
@atomic
def add_objective() -> Any:
    r = json_body(request)
    r.only(("x_mm", "y_mm", "name"))
    pos = (r.number("x_mm"), r.number("y_mm"))
    ov = overlay()
    plan = ov.plan()
    _check_on_table(plan, [pos], r)
    name = r.string("name", None)
    new = edits.add_objective(plan, pos, name[:MAX_ID_LENGTH] if name else None)
    return _changed(ov.change("objective.add", new, {"objective": new.objectives[-1].objective_id}))


@bp.delete("/objectives/<objective_id>")
@atomic
def remove_objective(objective_id: str) -> Any:
    ov = overlay()
    plan = ov.plan()
    if not any(o.objective_id == objective_id for o in plan.objectives):
        raise ApiError(400, "unknown_objective", f"no objective {objective_id[:40]!r}; objectives are: "
                       f"{', '.join(o.objective_id for o in plan.objectives) or '(none)'}",
                       fr=f"pas d'objectif {objective_id[:40]!r} ; objectifs : "
                          f"{', '.join(o.objective_id for o in plan.objectives) or '(aucun)'}")
    new = edits.remove_objective(plan, objective_id)
    return _changed(ov.change("objective.remove", new, {"objective": objective_id}))


@bp.post("/models/<model_id>/elevation")
@atomic
def set_elevation(model_id: str) -> Any:
    """Set the height of the ground a model stands on (a building's floor, a hill), mm; 0 = the table."""
    r = json_body(request)
    r.only(("elevation_mm",))
    value = r.number("elevation_mm")
    if not -1000.0 <= value <= 2000.0:
        refuse(r, "elevation_mm", f"must be between -1000 and 2000 mm above the table top, got {value:g}",
               f"doit être entre -1000 et 2000 mm au-dessus de la table, reçu : {value:g}")
    ov = overlay()
    plan = ov.plan()
    model = model_of(plan, model_id)
    new = edits.set_elevation(plan, model_id, value)
    return _changed(ov.change("elevation", new, {"model": model.name or model_id, "elevation_mm": round(value, 1)}))


@bp.post("/models/<model_id>/move")
@atomic
def move_model(model_id: str) -> Any:
    """Move a model by hand (a bare base the camera cannot follow, or a correction)."""
    r = json_body(request)
    r.only(("x_mm", "y_mm", "facing_deg"))
    to = (r.number("x_mm"), r.number("y_mm"))
    facing = r.number("facing_deg", None)
    ov = overlay()
    plan = ov.plan()
    model = model_of(plan, model_id)
    _check_on_table(plan, [to], r)
    new = edits.move_model(plan, model_id, to, facing)
    if not model.on_table:  # a roster figure put on the table: it comes from nowhere, no move length
        return _changed(ov.change("place", new, {
            "model": model_id, "name": model.name, "marker_id": model.marker_id,
            "to_mm": [round(to[0], 2), round(to[1], 2)], "by_hand": True}))
    unit = rulesbridge.length_unit(plan)
    dist = math.dist(model.position_mm, to)
    return _changed(ov.change("move", new, {
        "model": model_id, "name": model.name, "marker_id": model.marker_id,
        "from_mm": [round(model.x_mm, 2), round(model.y_mm, 2)], "to_mm": [round(to[0], 2), round(to[1], 2)],
        "distance_mm": round(dist, 2), "distance": round(unit.from_mm(dist), 2), "unit": unit.symbol,
        "by_hand": True}))


def model_of(plan: Any, model_id: str) -> Any:
    """Return the plan's model ``model_id``; one gone meanwhile (a shot, an undo) is refused in both languages."""
    if not any(m.model_id == model_id for m in plan.models):
        ids = ", ".join(m.model_id for m in plan.models) or "(none)"
        raise ApiError(400, "unknown_model", f"no model {model_id[:40]!r} in this game; models are: {ids}",
                       fr=f"pas de figurine {model_id[:40]!r} dans cette partie ; figurines : {ids}",
                       params={"model": model_id[:40]})
    return plan.model(model_id)


def _check_on_table(plan: Any, pts: list[tuple[float, float]], r: Any) -> None:
    w, d = plan.table.width_mm, plan.table.depth_mm
    for x, y in pts:
        if not (0 <= x <= w and 0 <= y <= d):
            raise RequestError(f"request: point ({x:g}, {y:g}) mm is off the table (0-{w:g} x 0-{d:g} mm)",
                               fr=f"requête : le point ({x:g} ; {y:g}) mm est hors de la table "
                                  f"(0-{w:g} x 0-{d:g} mm)")


@bp.post("/bands")
def bands() -> Any:
    """Range bands of a weapon around a model, as rings (see :mod:`server.bands`)."""
    r = json_body(request)
    r.only(("model", "weapon_range"))
    model_id = identifier(r, "model")
    weapon_range = r.number("weapon_range", None)
    if weapon_range is not None and not 0 < weapon_range <= 1000:
        refuse(r, "weapon_range", f"must be above 0 and at most 1000 (in the rule set's unit), got {weapon_range:g}",
               f"doit être plus grand que 0 et au plus 1000 (dans l'unité de la règle), reçu : {weapon_range:g}")
    plan = overlay().plan()
    model_of(plan, model_id)
    return jsonify(range_bands(plan, model_id, weapon_range))


@bp.get("/zones")
def zones() -> Any:
    """Deployment zones of the game's rule set, as polygons (none when it has no such rule)."""
    return jsonify({"deployment": rulesbridge.deployment_zones(overlay().plan())})
