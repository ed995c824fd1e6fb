"""The page: one HTML document, plain JavaScript and CSS served by Flask (no build step, no CDN).

Also the description of each action's arguments the page builds its forms from
(:func:`action_forms`). Until the rules core describes its actions itself, this holds
what the page knows of the requests it sends; the page's form renderer (``forms.js``)
takes any description of that shape.
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint, current_app, render_template

from rules.plan import TablePlan

bp = Blueprint("pages", __name__)


@bp.get("/")
def index() -> Any:
    return render_template("index.html", default_lang=current_app.config["DEFAULT_LANG"],
                           lan=bool(current_app.config.get("LAN")))


# An argument: {"name", "kind": unit | model | figure | weapon | number | choice, "label" (a page
# word id), "required", "values" (legal values, when known), "enemy_of" (an argument naming
# the acting unit or model: only the other sides' are legal), "of" (weapon: the argument
# naming whose weapons), "min"/"max" (number), "default"}.
_UNIT_SHOT = [
    {"name": "firing", "kind": "unit", "label": "label.firing_unit", "required": True},
    {"name": "target", "kind": "unit", "label": "label.target_unit", "required": True, "enemy_of": "firing"},
    {"name": "weapon", "kind": "weapon", "label": "label.weapon", "required": False, "of": "firing"},
]
_KNOWN: dict[tuple[str, str], list[dict[str, Any]]] = {
    ("at-43", "shoot"): _UNIT_SHOT,
    ("firefight", "shoot"): _UNIT_SHOT,
    ("firefight", "melee"): [
        {"name": "attacker", "kind": "unit", "label": "label.attacker", "required": True},
        {"name": "defender", "kind": "unit", "label": "label.defender", "required": True, "enemy_of": "attacker"},
        {"name": "charging", "kind": "choice", "label": "label.charging", "required": False,
         "values": [True, False], "default": True},
    ],
    ("firefight", "morale"): [{"name": "unit", "kind": "unit", "label": "label.unit", "required": True}],
    ("star-wars", "shoot"): [
        {"name": "shooter", "kind": "model", "label": "label.shooter", "required": True},
        {"name": "target", "kind": "model", "label": "label.target_model", "required": True, "enemy_of": "shooter"},
        {"name": "weapon", "kind": "weapon", "label": "label.weapon", "required": False, "of": "shooter"},
        {"name": "shots", "kind": "number", "label": "label.shots", "required": False, "min": 1, "max": 20},
    ],
}


def action_forms(plan: TablePlan, actions: list[str]) -> dict[str, dict[str, Any]]:
    """Return, for each action of the plan's rule set, its arguments as the page's form renders them.

    ``described`` is ``False`` for an action whose arguments the server does not know yet:
    its form offers the usual acting unit and target, which the rules core may refuse.

    >>> from rules.plan import parse_game
    >>> plan = parse_game({"ruleset": "at-43", "table": {"width_mm": 600, "depth_mm": 600},
    ...     "units": [{"id": "a", "side": "A"}, {"id": "b", "side": "B"}]})
    >>> form = action_forms(plan, ["shoot"])["shoot"]
    >>> form["described"], [a["name"] for a in form["args"]], form["args"][0]["values"]
    (True, ['firing', 'target', 'weapon'], ['a', 'b'])
    """
    units = [u.unit_id for u in plan.units]
    models = [m.model_id for m in plan.models if m.on_table]
    out: dict[str, dict[str, Any]] = {}
    for action in actions:
        known = _KNOWN.get((plan.ruleset, action))
        args = [dict(a) for a in (known or [
            {"name": "unit", "kind": "unit", "label": "label.unit", "required": True},
            {"name": "target", "kind": "unit", "label": "label.target_unit", "required": False, "enemy_of": "unit"}])]
        for a in args:
            if a["kind"] == "unit":
                a["values"] = units
            elif a["kind"] == "model":
                a["values"] = models
        out[action] = {"action": action, "label": f"action_name.{action}", "described": known is not None,
                       "args": args}
    return out
