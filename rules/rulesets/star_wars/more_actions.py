"""Star Wars Grandes escarmouches movement actions added for issue 13.

Source: ``seeds/star-wars-grandes-escarmouches.txt``, Activation d'une figurine: a figure
has two actions. The first is either a move (4 pas for most figures, any path) or
concentrating; the second may be a run (half a move more, only after moving) among
others. Règles additionnelles: difficult ground costs double. The path is costed as the
``move`` question does (the same function), so the action and the question agree.
"""

from __future__ import annotations

import math
from typing import Any, Mapping

from rules.dice import Dice, Distribution
from rules.errors import IllegalActionError, InvalidActionError
from rules.explain import Step, msg
from rules.plan import TablePlan
from rules.resolution import Action, Resolution
from rules.rulesets.kit import req_str
from rules.rulesets.params import Param
from rules.rulesets.star_wars.actions import DOWN, RULESET, _src, _state, _take_action
from rules.rulesets.star_wars.answers import MoveAnswer
from rules.rulesets.star_wars.results import FigureResult, MoveResult
from rules.rulesets.star_wars.state import StarWarsState

SRC_ACT = "Activation d'une figurine"


def _point(request: Mapping[str, Any]) -> tuple[float, float]:
    try:
        x, y = float(request["x_mm"]), float(request["y_mm"])
    except (KeyError, TypeError, ValueError):
        raise InvalidActionError("give where the figure goes: x_mm and y_mm (table mm)",
                                 msg_id="star_wars.move.need_point") from None
    if not (math.isfinite(x) and math.isfinite(y)):
        raise InvalidActionError("x_mm and y_mm must be finite numbers",
                                 msg_id="star_wars.move.need_point")
    return x, y


def _problems(ans: "MoveAnswer") -> list[Any]:
    """The problems of a ``move`` answer as messages (the parameter of a refusal)."""
    return [msg(s.msg, **s.params) for s in ans.steps if s.rule == "not allowed" and s.msg]


def _first(st: StarWarsState) -> dict[str, str]:
    return dict(st.first_actions)


def _costed(plan: TablePlan, model_id: str, to: tuple[float, float], move_pas: float | None) -> "MoveAnswer":
    from rules.rulesets.common import Args
    from rules.rulesets.star_wars import STAR_WARS as rs  # below: that package imports this module
    words = [model_id, repr(to[0]), repr(to[1])] + (["--move", repr(move_pas)] if move_pas is not None else [])
    return rs.ask_move(plan, Args("move", words), rs.resolve_options(plan))


def _move_pas(request: Mapping[str, Any]) -> float | None:
    raw = request.get("move_pas")
    if raw is None:
        return None
    try:
        v = float(raw)
    except (TypeError, ValueError):
        raise InvalidActionError(f"move_pas must be a number of pas, got {raw!r}",
                                 msg_id="star_wars.move.bad_move", params={"value": str(raw)}) from None
    if not v > 0:
        raise InvalidActionError(f"move_pas must be more than 0, got {raw!r}",
                                 msg_id="star_wars.move.bad_move", params={"value": str(raw)})
    return v


def move(plan: TablePlan, request: Mapping[str, Any], dice: Dice | None) -> Resolution:
    """First action: move up to the figure's move (4 pas), difficult ground counting double (Activation d'une figurine).

    Request: ``model``, ``x_mm``/``y_mm`` (where it ends), optional ``move_pas`` (its move, default 4).
    """
    st = _state(plan)
    m = plan.model(req_str(request, "model"))
    if m.has_status(DOWN):
        raise IllegalActionError(f"{m.model_id} is knocked down: it must stand up (second action) before moving",
                                 msg_id="star_wars.move.down", params={"figure": m.model_id})
    first = _first(st)
    if m.model_id in first:
        raise IllegalActionError(f"{m.model_id} already took its first action this turn ({first[m.model_id]})",
                                 msg_id="star_wars.first_action.taken",
                                 params={"figure": m.model_id, "action": msg(f"star_wars.action.{first[m.model_id]}")})
    to = _point(request)
    ans = _costed(plan, m.model_id, to, _move_pas(request))
    steps = [Step("first action", f"{m.model_id} moves (its first action)", _src(SRC_ACT),
                  msg="star_wars.move.first", params={"figure": m.model_id}), *ans.steps]
    if not ans.allowed:
        raise IllegalActionError(f"{m.model_id} cannot move there: {'; '.join(ans.problems)}",
                                 msg_id="star_wars.move.refused", params={"figure": m.model_id, "why": _problems(ans)})
    after = st.with_(first_actions={**first, m.model_id: "move"}).on(plan.with_model(m.placed_at(to)))
    result = MoveResult(m.model_id, (round(to[0], 2), round(to[1], 2)), ans.cost.to_json())
    return Resolution(RULESET, "move", tuple(steps), {}, {"moved": Distribution.certain(True)}, (), result, after)


def run(plan: TablePlan, request: Mapping[str, Any], dice: Dice | None) -> Resolution:
    """Second action after a move: run half a move more, any path (Activation d'une figurine, Course).

    Request: ``model``, ``x_mm``/``y_mm``, optional ``move_pas`` (its move, default 4: the run is half of it).
    """
    st = _state(plan)
    m = plan.model(req_str(request, "model"))
    if _first(st).get(m.model_id) != "move":
        raise IllegalActionError(f"{m.model_id} did not move as its first action this turn: it cannot run",
                                 msg_id="star_wars.run.no_move", params={"figure": m.model_id})
    to = _point(request)
    base = _move_pas(request) or 4.0
    ans = _costed(plan, m.model_id, to, base / 2.0)
    steps = [Step("run", f"{m.model_id} moved first: it runs half its move, {base / 2:g} pas", _src(SRC_ACT),
                  msg="star_wars.run.half", params={"figure": m.model_id, "pas": base / 2}),
             *ans.steps]
    if not ans.allowed:
        raise IllegalActionError(f"{m.model_id} cannot run there: {'; '.join(ans.problems)}",
                                 msg_id="star_wars.run.refused", params={"figure": m.model_id, "why": _problems(ans)})
    after = _take_action(st, m.model_id, "run").on(plan.with_model(m.placed_at(to)))
    result = MoveResult(m.model_id, (round(to[0], 2), round(to[1], 2)), ans.cost.to_json())
    return Resolution(RULESET, "run", tuple(steps), {}, {"moved": Distribution.certain(True)}, (), result, after)


def concentrate(plan: TablePlan, request: Mapping[str, Any], dice: Dice | None) -> Resolution:
    """First action: concentrate, lowering by 1 the threshold of a shot, care or Force power that follows."""
    st = _state(plan)
    m = plan.model(req_str(request, "model"))
    first = _first(st)
    if m.model_id in first:
        raise IllegalActionError(f"{m.model_id} already took its first action this turn ({first[m.model_id]})",
                                 msg_id="star_wars.first_action.taken",
                                 params={"figure": m.model_id, "action": msg(f"star_wars.action.{first[m.model_id]}")})
    st = st.with_(first_actions={**first, m.model_id: "concentrate"})
    step = Step("first action", f"{m.model_id} concentrates: its shot, care (Médico) or Force power this turn is 1 "
                "easier (give concentrated=yes to that action)", _src(SRC_ACT),
                msg="star_wars.concentrate.done", params={"figure": m.model_id})
    return Resolution(RULESET, "concentrate", (step,), {}, {}, (), FigureResult(m.model_id), st.on(plan))


MORE_ACTIONS: dict[str, Action] = {"move": move, "run": run, "concentrate": concentrate}
_TO = Param("to", "point", help="where the figure ends its move")
_MOVE = Param("move_pas", "number", required=False, minimum=0, help="the figure's move in pas (default 4)")
MORE_PARAMS: Mapping[str, tuple[Param, ...]] = {
    "move": (Param("model", "model"), _TO, _MOVE),
    "run": (Param("model", "model"), _TO, _MOVE),
    "concentrate": (Param("model", "model"),),
}
