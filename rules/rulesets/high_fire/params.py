"""The arguments of High Fire's actions (see :mod:`rules.rulesets.params`)."""

from __future__ import annotations

from types import MappingProxyType

from rules.rulesets.high_fire.actions import ACTIONS_IN
from rules.rulesets.params import Param

PARAMS = MappingProxyType({
    "start_turn": (Param("allocation", "table", required=False,
                         help="activation points split per side: {side: {action1, reaction, action2}}"),),
    "initiative": (Param("winner_goes", "choice", required=False, choices=("first", "second"),
                         help="whether the initiative winner plays first (default) or second"),),
    "activate": (Param("unit", "unit", help="the unit activated"),
                 Param("action", "choice", choices=tuple(ACTIONS_IN), help="its infantry action"),
                 Param("transfer_from", "unit", required=False, help="the unit whose command passes to it")),
    "end_phase": (),
    "shoot": (Param("firing", "unit", help="the firing unit"),
              Param("target", "unit", help="the target unit", enemy_of="firing"),
              Param("weapon", "weapon", required=False, of="firing"),
              Param("aimed", "bool", required=False, help="aimed fire (default: the unit's action was aimed)"),
              Param("modifiers", "table", required=False, help="modifier names from the players' tables"),
              Param("allocation", "models", required=False, help="the order hits are allocated in")),
    "engage": (Param("attacker", "unit"), Param("defender", "unit", enemy_of="attacker")),
    "observe": (Param("observer", "unit"), Param("target", "unit", enemy_of="observer")),
    "assault": (Param("attacker", "unit"), Param("defender", "unit", enemy_of="attacker"),
                Param("allocation", "models", required=False, help="the order hits are allocated in")),
    "motivation": (Param("unit", "unit", required=False, help="the unit tested (default: every unit due)"),),
})
