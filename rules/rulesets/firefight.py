"""Grimdark Future Firefight (One Page Rules, French translation): inches, base edge to edge.

Sources are the sections of ``seeds/grimdark-future-firefight-fr.txt``:
Préparation (mission, déploiement), Mouvement, Mêlée, Terrain, the special rules
(Ambush, Blast, Caster, Hero, Relentless, Scout, Stealth, Fast, Slow, Strider,
Flying) and Mouvements spéciaux (Sauter, Chuter).
"""

from __future__ import annotations

from types import MappingProxyType
from typing import Any, ClassVar, Mapping

from calibration.units import inches
from rules.rulesets.base import Option, RuleSet, register
from rules.terrain import TerrainKind

SRC = "Grimdark Future Firefight, Terrain"

TERRAIN_KINDS = MappingProxyType({k.kind: k for k in (
    TerrainKind("forest", "cover", "difficult", True, ("area",), "forest: cover and difficult", SRC),
    TerrainKind("ruins", "cover", "difficult", True, ("area",), "ruins: cover and difficult", SRC),
    TerrainKind("crater", "cover", "difficult", True, ("area",), "crater: cover and difficult", SRC),
    TerrainKind("barricade", "cover", "open", True, ("line", "area"), "barricade: cover", SRC),
    TerrainKind("wall", "blocks", "impassable", True, ("line", "area"), "high wall: blocks sight", SRC),
    TerrainKind("building", "blocks", "impassable", True, ("area",), "building: blocks sight", SRC),
    TerrainKind("rough", "clear", "difficult", False, ("area",), "rough ground: difficult", SRC),
    TerrainKind("water", "clear", "difficult", False, ("area",), "shallow water: difficult", SRC),
    TerrainKind("minefield", "clear", "dangerous", False, ("area",), "minefield: dangerous", SRC),
    TerrainKind("open", "clear", "open", False, ("area",), "open ground", SRC),
)})


@register
class Firefight(RuleSet):
    """Grimdark Future Firefight."""

    name = "firefight"
    title = "Grimdark Future Firefight"
    aliases = ("gff", "grimdark", "grimdark-future-firefight", "opr-firefight")
    unit_key = "in"
    terrain_kinds = TERRAIN_KINDS
    option_specs = (
        Option("measure", "edge", "choice", "where distances are measured", "RULES-NOTES choice 1",
               ("edge", "centre")),
        Option("cohesion", "chain", "choice",
               "coherency as one connected chain, or each model near any other", "RULES-NOTES choice 2",
               ("chain", "nearest")),
        Option("deployment_edges", "first=top,second=bottom", "text",
               "each side's table edge, by side name or first/second in unit order "
               "(edges: top y=0, bottom, left x=0, right)", "Firefight, Déploiement"),
    )
    question_names = ("distance", "los", "cohesion", "template", "objectives", "terrain",
                      "range", "cover", "aura", "charge", "melee", "blast", "deployment", "ambush",
                      "scout", "move", "jump")
    COHESION_MM: ClassVar[float] = inches(1)
    ALL_WITHIN_MM: ClassVar[float] = inches(9)

    def cohesion_rule(self, options: Mapping[str, Any]) -> tuple[float, float | None, str] | None:
        return (self.COHESION_MM, self.ALL_WITHIN_MM, "Grimdark Future Firefight, Mouvement")
