"""Grimdark Future Firefight actions added for issue 13: the push roll.

Source: ``seeds/grimdark-future-firefight-fr.txt``, Mouvements spéciaux (Pousser, Chuter).
"""

from __future__ import annotations

import dataclasses
import math
from fractions import Fraction
from typing import Any, Mapping

from calibration.units import inches
from rules.dice import Dice, Distribution
from rules.errors import IllegalActionError, InvalidActionError
from rules.explain import Step
from rules.heights import ground_mm
from rules.plan import TablePlan
from rules.resolution import Action, Resolution
from rules.rulesets.firefight.actions import RULESET, SHAKEN, _src
from rules.rulesets.firefight.results import PushResult
from rules.rulesets.kit import req_str
from rules.rulesets.params import Param

PUSH_ROLL = 4  # Pousser: 4+ on one D6
PUSH_MM = inches(2)
FALL_FROM_MM = inches(2)  # Chuter: from 2" up


def _number(request: Mapping[str, Any], key: str) -> float | None:
    raw = request.get(key)
    if raw is None:
        return None
    try:
        v = float(raw)
    except (TypeError, ValueError):
        raise InvalidActionError(f"push: {key} must be a number of mm, got {raw!r}",
                                 msg_id="firefight.push.bad_number", params={"key": key, "value": str(raw)}) from None
    if not math.isfinite(v):
        raise InvalidActionError(f"push: {key} must be a finite number, got {raw!r}",
                                 msg_id="firefight.push.bad_number", params={"key": key, "value": str(raw)})
    return v


def push(plan: TablePlan, request: Mapping[str, Any], dice: Dice | None) -> Resolution:
    """The attacker tries to push a model just Shaken: on 4+ on a D6 it moves it up to 2" (Pousser).

    Request: ``model`` (the Shaken figure), optionally ``x_mm``/``y_mm`` (where it is pushed,
    within 2" of where it stands) and ``to_elevation_mm`` (the ground it lands on, when pushed
    off a height: a drop of 2" or more is a fall, Chuter, resolved by the ``fall`` action).
    """
    m = plan.model(req_str(request, "model"))
    if not m.has_status(SHAKEN):
        raise IllegalActionError(f"{m.model_id} is not Shaken: only a Shaken model may be pushed "
                                 f"({_src('Mouvements spéciaux, Pousser')})",
                                 msg_id="firefight.push.not_shaken", params={"model": m.model_id})
    x, y, to_elev = _number(request, "x_mm"), _number(request, "y_mm"), _number(request, "to_elevation_mm")
    if (x is None) != (y is None):
        raise InvalidActionError("push: give both x_mm and y_mm (where the model is pushed) or neither",
                                 msg_id="firefight.push.both_coordinates")
    steps = [Step("push", f"{m.model_id} is Shaken: the attacker may push it up to 2\" on {PUSH_ROLL}+ on a D6",
                  _src("Mouvements spéciaux, Pousser"),
                  msg="firefight.push.rule", params={"model": m.model_id, "need": PUSH_ROLL})]
    dest = (x, y) if x is not None and y is not None else None
    if dest is not None:
        moved = math.dist(m.position_mm, dest)
        if moved > PUSH_MM + 1e-6:
            raise IllegalActionError(f"a push moves a model 2\" at most; ({x:g}, {y:g}) is {moved / 25.4:.2f}\" away",
                                     msg_id="firefight.push.too_far", params={"distance": round(moved / 25.4, 2)})
    drop = ground_mm(m) - to_elev if to_elev is not None else 0.0
    if drop >= FALL_FROM_MM - 1e-9:
        ap = int(drop // inches(3))
        steps.append(Step("fall", f"pushed off {drop / 25.4:.2f}\" up: if the push succeeds it falls, a hit with "
                          f"AP({ap}) (resolve with the fall action)", _src("Mouvements spéciaux, Chuter"), value=ap,
                          msg="firefight.push.fall", params={"drop": round(drop / 25.4, 2), "ap": ap}))
    p = Fraction(7 - PUSH_ROLL, 6)
    odds = {"push": Distribution.from_pairs((("pushed", p), ("not pushed", 1 - p)))}
    needed = {"push": f"{PUSH_ROLL}+"}
    if dice is None:
        return Resolution(RULESET, "push", tuple(steps), needed, odds)
    f = dice.roll(6)
    ok = f >= PUSH_ROLL
    steps.append(Step("D6", f"{f}: {'pushed' if ok else 'not pushed'}", _src("Mouvements spéciaux, Pousser"),
                      msg="firefight.push.pushed" if ok else "firefight.push.not_pushed", params={"face": f}))
    after = plan
    if ok and (dest is not None or to_elev is not None):
        new = m.placed_at(dest) if dest is not None else m
        if to_elev is not None:
            new = dataclasses.replace(new, elevation_mm=to_elev or None)
        after = plan.with_model(new)
    fall_in = round(drop / 25.4, 3) if ok and drop >= FALL_FROM_MM else 0
    result = PushResult(m.model_id, ok, fall_in)
    return Resolution(RULESET, "push", tuple(steps), needed, odds, tuple(dice.rolled), result, after)


MORE_ACTIONS: dict[str, Action] = {"push": push}
MORE_PARAMS: Mapping[str, tuple[Param, ...]] = {
    "push": (Param("model", "model", help="the model just Shaken"),
             Param("to", "point", required=False, help="where it is pushed (2\" at most)"),
             Param("to_elevation_mm", "number", required=False,
                   help="the ground it lands on, when pushed off a height")),
}
