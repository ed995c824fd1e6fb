"""The arguments of Star Wars Grandes escarmouches' actions (see :mod:`rules.rulesets.params`)."""

from __future__ import annotations

from types import MappingProxyType

from rules.rulesets.params import Param
from rules.rulesets.star_wars.actions import POWERS

PARAMS = MappingProxyType({
    "start_turn": (),
    "hero_phase": (Param("hero", "model"), Param("with", "models", required=False, help="figures activated with it")),
    "troops_phase": (Param("side", "side"),),
    "end_turn": (),
    "shoot": (Param("shooter", "model"), Param("target", "model", enemy_of="shooter"),
              Param("weapon", "weapon", required=False, of="shooter"),
              Param("shots", "integer", required=False, minimum=1), Param("concentrated", "bool", required=False)),
    "melee": (Param("attacker", "model"), Param("defender", "model", enemy_of="attacker"),
              Param("attacks", "integer", required=False, minimum=1)),
    "force": (Param("user", "model"), Param("power", "choice", choices=tuple(POWERS)),
              Param("target", "model", required=False), Param("concentrated", "bool", required=False)),
    "medic": (Param("medic", "model"), Param("target", "model"), Param("concentrated", "bool", required=False)),
    "stand_up": (Param("model", "model"),),
    "thrown": (Param("model", "model"), Param("into", "model", required=False)),
})
