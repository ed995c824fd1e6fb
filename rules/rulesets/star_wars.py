"""Star Wars Grandes escarmouches (Newlight): pas of 25 mm, figure by figure.

Sources are the sections of ``seeds/star-wars-grandes-escarmouches.txt``: Règles
de Tir (portée, longue portée, cible cachée, tir à travers une figurine, Zone X),
Phases d'activation (bulles de commandement), Utilisation de la Force (pouvoirs),
Activation d'une figurine (mouvement) and Règles additionnelles (terrain difficile).
"""

from __future__ import annotations

from types import MappingProxyType

from rules.rulesets.base import Option, RuleSet, register
from rules.terrain import TerrainKind

SRC = "Star Wars Grandes escarmouches, Règles de Tir"
SRC_MOVE = "Star Wars Grandes escarmouches, Règles additionnelles (terrain difficile)"

TERRAIN_KINDS = MappingProxyType({k.kind: k for k in (
    TerrainKind("crates", "cover", "difficult", True, ("area",), "crates: an obstacle that can hide a target", SRC),
    TerrainKind("rocks", "cover", "difficult", True, ("area",), "rocks: an obstacle that can hide a target", SRC),
    TerrainKind("low-wall", "cover", "difficult", True, ("line",),
                "low wall (under 1 pas): hides a target behind it, difficult to cross", SRC_MOVE),
    TerrainKind("ladder", "clear", "difficult", False, ("line",), "ladder: difficult to climb", SRC_MOVE),
    TerrainKind("rubble", "clear", "difficult", False, ("area",), "rubble: difficult", SRC_MOVE),
    TerrainKind("wall", "blocks", "impassable", True, ("line", "area"), "wall: blocks sight", SRC),
    TerrainKind("building", "blocks", "impassable", True, ("area",), "building: blocks sight", SRC),
    TerrainKind("open", "clear", "open", False, ("area",), "open ground", SRC),
)})


@register
class StarWars(RuleSet):
    """Star Wars Grandes escarmouches."""

    name = "star-wars"
    title = "Star Wars Grandes escarmouches"
    aliases = ("starwars", "sw", "grandes escarmouches")
    unit_key = "pas"
    terrain_kinds = TERRAIN_KINDS
    models_block_sight = "models"
    option_specs = (
        Option("measure", "edge", "choice", "where distances are measured", "RULES-NOTES choice 1",
               ("edge", "centre")),
        Option("zone_measure", "edge", "choice",
               "Zone X measured from the point of impact to the base edge (or to the base centre)",
               "RULES-NOTES choice 8", ("edge", "centre")),
        Option("hidden_threshold", 0.5, "number",
               "fraction of the target's base an obstacle must hide for the +1 (more than this)",
               "RULES-NOTES choice 8"),
    )
    question_names = ("distance", "los", "template", "objectives", "terrain", "range", "cover",
                      "aura", "activation", "zone", "force", "move")
