"""High Fire actions added for issue 13: the Quality roll with a difficulty, victory.

Sources: ``seeds/high-fire-v0.5.1.md``, UNITABLE (Jet de Qualité, Jet de Commandement).
The UNITABLE rows come from the players' tables file (the shipped one is empty): an
action that needs a missing row says which row to add, never guesses.
"""

from __future__ import annotations

from typing import Any, Mapping

from rules.dice import Dice
from rules.errors import IllegalActionError, InvalidActionError
from rules.explain import Step
from rules.plan import TablePlan
from rules.resolution import Action, Resolution
from rules.rulesets.high_fire.actions import OUT, RULESET, _alive, _letter_dist, _profile, _src, tables_for
from rules.rulesets.high_fire.results import QualityRoll
from rules.rulesets.kit import req_int, req_list, req_str
from rules.rulesets.params import Param


def quality(plan: TablePlan, request: Mapping[str, Any], dice: Dice | None) -> Resolution:
    """A Quality roll: effect value = QL minus the difficulty, one D10 on the UNITABLE (UNITABLE, Jet de Qualité).

    Request: ``model`` (the figure rolling) or ``unit`` (a command unit: its highest-ranked
    officer rolls, Jet de Commandement), ``difficulty`` (0 or more, default 0), ``success``
    (the letters that pass, e.g. ``A,B``; without it the odds of each letter are given).
    """
    model_id = req_str(request, "model", default=None)
    unit_id = req_str(request, "unit", default=None)
    if (model_id is None) == (unit_id is None):
        raise InvalidActionError("quality: name the figure rolling (model) or a command unit (unit), one of them",
                                 msg_id="high_fire.quality_who")
    difficulty = req_int(request, "difficulty", 0, minimum=0)
    success = [s.strip().upper() for s in req_list(request, "success")]
    tables = tables_for(plan)
    steps: list[Step] = []
    if unit_id is not None:
        officers = [m for m in _alive(plan, unit_id) if "rank" in _profile(plan, m)]
        if not officers:
            raise IllegalActionError(f"{unit_id} has no officer left (a profile with a rank) to make the Commandement "
                                     f"roll ({_src('Unitable, Jet de Commandement')})", msg_id="high_fire.no_officer",
                                     params={"unit": unit_id})
        roller = max(officers, key=lambda m: _profile(plan, m)["rank"])
        steps.append(Step("Jet de Commandement", f"{unit_id}: the highest-ranked officer {roller.model_id} rolls with "
                          "his QL", _src("Unitable, Jet de Commandement"), msg="high_fire.commandement_roller",
                          params={"unit": unit_id, "model": roller.model_id}))
    else:
        roller = plan.model(model_id)
        if roller.has_status(OUT):
            raise IllegalActionError(f"{roller.model_id} is out of action: it makes no roll",
                                     msg_id="high_fire.out_of_action", params={"model": roller.model_id})
    ql = int(_profile(plan, roller)["QL"])
    value = ql - difficulty
    steps.append(Step("Jet de Qualité", f"{roller.model_id}: QL {ql} - difficulty {difficulty} = effect value {value}",
                      _src("Unitable, Jet de Qualité"), value=value, msg="high_fire.quality",
                      params={"model": roller.model_id, "ql": ql, "difficulty": difficulty, "value": value}))
    letters = _letter_dist(tables, value)  # names the missing UNITABLE row when the tables lack it
    for s in success:
        if s not in tables.data.get("letter_order", []):
            raise InvalidActionError(f"quality: {s!r} is not a letter of the tables "
                                     f"({', '.join(tables.data.get('letter_order', [])) or 'none yet'})",
                                 msg_id="high_fire.not_a_letter", params={"letter": s})
    odds = {"letter": letters}
    if success:
        odds["outcome"] = letters.map(lambda x: "passed" if x in success else "failed")
        steps.append(Step("success", f"passes on {', '.join(success)}", _src("Unitable"), msg="high_fire.passes_on",
                          params={"letters": success}))
    if dice is None:
        return Resolution(RULESET, "quality", tuple(steps), {}, odds)
    f = dice.roll(10)
    letter = tables.letter(value, f)
    passed = letter in success if success else None
    result = QualityRoll(roller.model_id, value, letter, passed)
    text = f"D10 {f} -> {letter}"
    msg_id = "high_fire.quality_d10"
    if passed is not None:
        text += ": " + ("passed" if passed else "failed")
        msg_id = "high_fire.quality_passed" if passed else "high_fire.quality_failed"
    steps.append(Step("D10", text, _src("Unitable"), msg=msg_id, params={"face": f, "letter": letter}))
    return Resolution(RULESET, "quality", tuple(steps), {}, odds, tuple(dice.rolled), result.to_json(), plan)


MORE_ACTIONS: dict[str, Action] = {"quality": quality}
MORE_PARAMS: Mapping[str, tuple[Param, ...]] = {
    "quality": (Param("model", "model", required=False, help="the figure making the Quality roll"),
                Param("unit", "unit", required=False, help="a command unit: its best officer rolls (Commandement)"),
                Param("difficulty", "integer", required=False, minimum=0, help="subtracted from the QL"),
                Param("success", "table", required=False, help="the letters that pass, e.g. A,B")),
}
