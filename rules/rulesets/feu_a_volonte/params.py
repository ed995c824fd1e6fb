"""The arguments of Feu à Volonté's actions (see :mod:`rules.rulesets.params`)."""

from __future__ import annotations

from types import MappingProxyType

from rules.rulesets.feu_a_volonte.recruitment import ACTION_COSTS
from rules.rulesets.params import Param

_LUCK = (Param("chance", "bool", required=False, help="spend a luck point"),
         Param("reserve", "integer", required=False, minimum=0, help="reserve dice added"))
PARAMS = MappingProxyType({
    "weather": (),
    "initiative": (),
    "disengage": (Param("unit", "figure"),),
    "throw": (Param("thrower", "figure"), Param("weapon", "weapon", required=False, of="thrower"),
              Param("target", "figure", required=False, help="a figure aimed at, or a point"),
              Param("point", "point", required=False, help="x_mm, y_mm aimed at")),
    "pay": (Param("unit", "figure"), Param("action", "choice", choices=tuple(ACTION_COSTS))),
    "shoot": (Param("firing", "figure"), Param("target", "figure", enemy_of="firing"),
              Param("weapon", "weapon", required=False, of="firing"),
              Param("shots", "integer", required=False, minimum=1), Param("targets", "models", required=False),
              Param("shooters", "models", required=False), Param("moved", "bool", required=False),
              Param("cover", "bool", required=False), Param("near_terrain", "bool", required=False), *_LUCK),
    "melee": (Param("attacker", "figure"), Param("defender", "figure", enemy_of="attacker"),
              Param("charge", "bool", required=False),
              Param("outnumber", "integer", required=False, minimum=0)),
    "spot": (Param("spotter", "figure"), Param("target", "figure", enemy_of="spotter"), *_LUCK),
    "morale": (Param("unit", "figure"), *_LUCK),
    "activate": (Param("unit", "figure"), Param("figures", "models", required=False),
                 Param("group", "bool", required=False), Param("rest", "bool", required=False)),
    "reload": (Param("unit", "figure"),),
    "end-turn": (),
    "recruit": (Param("side", "side"),),
})
