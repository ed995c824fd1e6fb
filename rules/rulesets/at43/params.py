"""The arguments of AT-43's actions (see :mod:`rules.rulesets.params`)."""

from __future__ import annotations

from types import MappingProxyType

from rules.rulesets.params import Param

PARAMS = MappingProxyType({
    "shoot": (Param("firing", "unit"), Param("target", "unit", enemy_of="firing"),
              Param("weapon", "weapon", required=False, of="firing"),
              Param("vehicle", "model", required=False, help="the vehicle of the target unit aimed at"),
              Param("cover", "choice", required=False, choices=("yes", "no", "auto")),
              Param("alert", "bool", required=False), Param("no_sight", "models", required=False),
              Param("target_moved", "bool", required=False)),
    "activate": (Param("unit", "unit"),),
    "lead": (Param("unit", "unit"), Param("model", "model", help="the new leader")),
    "artillery": (Param("observer", "model"), Param("target", "unit", enemy_of="observer"),
                  Param("roll", "integer", minimum=1),
                  Param("dice", "integer", required=False, minimum=1), Param("penetration", "integer", minimum=0),
                  Param("damage", "integer", required=False, minimum=1), Param("area_cm", "number", minimum=0)),
    "end-turn": (),
})
