"""What each action takes: typed argument descriptions and the values legal in a game.

Each rule set declares, per action, a tuple of :class:`Param` (its ``params.py``). The
CLI, the HTTP API and the page read them through :func:`describe_actions` to build
their forms: a model, a unit, a side, a weapon of that unit's roster, a number, a
choice, a yes/no, a list of models. ``describe_actions`` fills in the values legal in
the current game (the figures on the table, the units with one, each unit's weapons).

Examples
--------
>>> p = Param("firing", "unit", help="the unit that fires")
>>> p.to_json()["kind"], p.required
('unit', True)
>>> Param("cover", "choice", choices=("yes", "no")).to_json()["choices"]
['yes', 'no']
>>> Param("x", "colour")  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
ValueError: Param x: kind must be one of model, figure, unit, ..., point, table; got 'colour'
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

from rules.ontable import on_table
from rules.plan import TablePlan

KINDS = ("model", "figure", "unit", "side", "weapon", "integer", "number", "choice", "bool", "models", "units",
         "point", "table")
"""``point``: x_mm and y_mm on the table; ``table``: a free JSON value the action documents."""


@dataclass(frozen=True)
class Param:
    """One argument of an action: its request key, kind, whether required, fixed choices, help.

    ``of`` names the argument whose unit (or model) carries the weapons for a ``weapon``;
    ``minimum`` bounds an ``integer`` or ``number``; ``enemy_of`` names the acting argument
    whose side's opponents alone are legal (a target, a defender).
    """

    name: str
    kind: str
    required: bool = True
    help: str = ""
    choices: tuple[str, ...] = ()
    of: str | None = None
    minimum: float | None = None
    enemy_of: str | None = None

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"Param {self.name}: kind must be one of {', '.join(KINDS)}; got {self.kind!r}")
        if self.kind == "choice" and not self.choices:
            raise ValueError(f"Param {self.name}: a choice needs its choices")
        if self.kind == "weapon" and self.of is None:
            raise ValueError(f"Param {self.name}: a weapon names the argument whose unit carries it (of=...)")

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"name": self.name, "kind": self.kind, "required": self.required}
        if self.help:
            out["help"] = self.help
        if self.choices:
            out["choices"] = list(self.choices)
        if self.of is not None:
            out["of"] = self.of
        if self.minimum is not None:
            out["minimum"] = self.minimum
        if self.enemy_of is not None:
            out["enemy_of"] = self.enemy_of
        return out


def weapons_by_carrier(plan: TablePlan) -> dict[str, list[str]]:
    """Return the weapons each unit and each model carries (from the rosters), sorted, by id."""
    out: dict[str, set[str]] = {}
    for m in plan.models:
        carried = set(m.weapons or ())
        out.setdefault(m.model_id, set()).update(carried)
        out.setdefault(m.unit_id, set()).update(carried)
    return {k: sorted(v) for k, v in out.items()}


def legal_values(plan: TablePlan, param: Param) -> Any:
    """Return the values of ``param`` legal in ``plan`` (``None`` for free numbers, yes/no, JSON).

    Models and units are those on the table (a roster figure not placed yet is left
    out, as the actions leave it out); a weapon's values are by carrier id.
    """
    view = on_table(plan)
    if param.kind in ("model", "figure", "models"):
        return [m.model_id for m in view.models]
    if param.kind in ("unit", "units"):
        placed = {m.unit_id for m in view.models}
        return [u.unit_id for u in view.units if u.unit_id in placed]
    if param.kind == "side":
        return sorted({u.side for u in view.units})
    if param.kind == "choice":
        return list(param.choices)
    if param.kind == "weapon":
        return weapons_by_carrier(view)
    return None


def describe(plan: TablePlan, actions: Mapping[str, Any], params: Mapping[str, tuple[Param, ...]]
             ) -> list[dict[str, Any]]:
    """Return each action with its arguments and their legal values in ``plan`` (JSON-ready)."""
    out = []
    for name in actions:
        args = []
        for p in params.get(name, ()):
            entry = p.to_json()
            legal = legal_values(plan, p)
            if legal is not None:
                entry["legal"] = legal
            args.append(entry)
        out.append({"action": name, "arguments": args})
    return out
