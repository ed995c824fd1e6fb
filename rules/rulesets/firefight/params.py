"""The arguments of Grimdark Future Firefight's actions (see :mod:`rules.rulesets.params`)."""

from __future__ import annotations

from types import MappingProxyType

from rules.rulesets.firefight.actions import MOVES_IN
from rules.rulesets.params import Param

EDGES = ("top", "bottom", "left", "right")
PARAMS = MappingProxyType({
    "activate": (Param("unit", "unit"), Param("action", "choice", choices=tuple(MOVES_IN)),
                 Param("target", "unit", required=False, help="the unit charged (charge)")),
    "shoot": (Param("firing", "unit"), Param("target", "unit", enemy_of="firing"),
              Param("weapon", "weapon", required=False, of="firing"),
              Param("moved", "bool", required=False, help="the unit moved before shooting"),
              Param("blast_order", "models", required=False), Param("casualty_order", "models", required=False)),
    "melee": (Param("attacker", "unit"), Param("defender", "unit", enemy_of="attacker"),
              Param("charging", "bool", required=False, help="the attacker charged (default yes)"),
              Param("strike_back", "bool", required=False, help="the defender strikes back (default yes)"),
              Param("casualty_order", "models", required=False)),
    "morale": (Param("unit", "unit"),),
    "end_round": (),
    "deploy": (Param("unit", "unit"), Param("mode", "choice", required=False, choices=("normal", "ambush", "scout")),
               Param("edge", "choice", required=False, choices=EDGES)),
    "cast": (Param("caster", "unit"), Param("cost", "integer", minimum=1, help="the spell's cost in tokens"),
             Param("helpers", "table", required=False, help="helping casters: {unit: tokens} or unit:tokens,...")),
    "jump": (Param("model", "model"), Param("distance_in", "number", required=False, minimum=0)),
    "dangerous": (Param("unit", "unit"), Param("models", "models", required=False),
                  Param("casualty_order", "models", required=False)),
    "fall": (Param("model", "model"), Param("height_in", "number", required=False, minimum=0)),
})
