"""AT-43 actions added for issue 13: firing at a unit engaged in melee.

Source: ``seeds/at-43-tirs.txt``, 1/ Choix de la cible: when the unit aimed at is engaged,
the whole melee is the target; for that shot every engaged unit counts as one "unit" (its
fire zone, the impacts shared among its combatants, friend or foe), while the range is
still taken to the leader of the unit actually aimed at.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Mapping

from rules.dice import Dice
from rules.errors import IllegalActionError
from rules.explain import Step
from rules.measure import CONTACT_TOLERANCE_MM, model_distance_mm
from rules.plan import Model, TablePlan
from rules.resolution import Action, Resolution
from rules.rulesets.at43.actions import shoot
from rules.rulesets.at43.params import PARAMS
from rules.rulesets.kit import req_list, req_str
from rules.rulesets.params import Param

SRC_MELEE = "AT-43, 1/ Choix de la cible (unité engagée)"


def engaged_with(plan: TablePlan, unit_id: str) -> list[str]:
    """Units in the same melee as ``unit_id``: linked by bases in contact, directly or through others.

    The shooting chapter refers to the activation phase for what "engaged" means; base
    contact between enemies is taken here (the players may name the melee instead).
    """
    side = {u.unit_id: u.side for u in plan.units}
    group, todo = {unit_id}, [unit_id]
    while todo:
        u = todo.pop()
        for m in plan.models_of(u):
            for o in plan.models:
                if (o.unit_id not in group and side[o.unit_id] != side[u]
                        and model_distance_mm(m, o, how="edge") <= CONTACT_TOLERANCE_MM):
                    group.add(o.unit_id)
                    todo.append(o.unit_id)
    return [u.unit_id for u in plan.units if u.unit_id in group and u.unit_id != unit_id]


def shoot_melee(plan: TablePlan, request: Mapping[str, Any], dice: Dice | None) -> Resolution:
    """Fire at an engaged unit: the whole melee is the target, range to the aimed unit's leader (Choix de la cible).

    Request: as ``shoot`` (``firing``, ``target``, ``weapon``...), and ``melee``: the other
    units in the melee (default: those in base contact with the target, step by step).
    """
    firing, target = req_str(request, "firing"), req_str(request, "target")
    melee = req_list(request, "melee") or engaged_with(plan, target)
    for u in melee:
        plan.unit(u)
    if not melee:
        raise IllegalActionError(f"{target} is not engaged (no enemy base in contact): use the shoot action",
                                 msg_id="at43.melee_not_engaged", params={"target": target})
    if firing in melee or firing == target:
        raise IllegalActionError(f"{firing} is in the melee it would fire at", msg_id="at43.melee_own",
                                 params={"unit": firing})
    moved: dict[str, Model] = {m.model_id: m for m in plan.models if m.unit_id in melee}
    units = {u.unit_id: u for u in plan.units}
    view_models = tuple(dataclasses.replace(m, unit_id=target, profile=m.profile or units[m.unit_id].profile)
                        if m.model_id in moved else m for m in plan.models)
    view = dataclasses.replace(plan, models=view_models)
    inner = {k: v for k, v in request.items() if k != "melee"}
    res = shoot(view, inner, dice)
    step = Step("engaged", f"{target} is engaged with {', '.join(melee)}: the whole melee is the target, as one unit "
                f"({len(moved)} more combatant(s), friend or foe); range still to {target}'s leader", SRC_MELEE,
                msg="at43.melee", params={"target": target, "units": list(melee), "n": len(moved)})
    after = res.plan_after
    if after is not None:
        back = tuple(dataclasses.replace(m, unit_id=moved[m.model_id].unit_id, profile=moved[m.model_id].profile)
                     if m.model_id in moved else m for m in after.models)
        after = dataclasses.replace(after, models=back)
    return dataclasses.replace(res, action="shoot_melee", steps=(step, *res.steps), plan_after=after)


MORE_ACTIONS: dict[str, Action] = {"shoot_melee": shoot_melee}
MORE_PARAMS: Mapping[str, tuple[Param, ...]] = {
    "shoot_melee": (*(p for p in PARAMS["shoot"] if p.name not in ("alert", "target_moved", "vehicle")),
                    Param("melee", "units", required=False,
                          help="the other units in the melee (default: those in base contact)")),
}
