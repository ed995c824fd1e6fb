"""AT-43 (shooting chapter): cm, range bands of 10 cm, fire zone, cover zone, template.

Sources are the sections of ``seeds/at-43-tirs.txt``: Organes de visée (range
bands), 2/ Détermination de la zone de feu, 3/ Test de tir (qui peut tirer,
difficulté), Tir direct : qui est touché ?, Tir indirect : qui est touché,
Couvert, 4/ Dégâts et retrait des pertes.
"""

from __future__ import annotations

from types import MappingProxyType

from rules.rulesets.base import Option, RuleSet, register
from rules.terrain import TerrainKind

SRC = "AT-43, Couvert"

TERRAIN_KINDS = MappingProxyType({k.kind: k for k in (
    TerrainKind("low-wall", "cover", "open", True, ("line", "area"), "low wall: gives cover", SRC),
    TerrainKind("barricade", "cover", "open", True, ("line", "area"), "barricade: gives cover", SRC),
    TerrainKind("crates", "cover", "difficult", True, ("area",), "crates: gives cover", SRC),
    TerrainKind("ruins", "cover", "difficult", True, ("area",), "ruins: gives cover", SRC),
    TerrainKind("crater", "cover", "difficult", True, ("area",), "crater: gives cover", SRC),
    TerrainKind("container", "blocks", "impassable", True, ("area",), "container: hides what is behind it", SRC),
    TerrainKind("building", "blocks", "impassable", True, ("area",), "building: hides what is behind it", SRC),
    TerrainKind("open", "clear", "open", False, ("area",), "open ground", SRC),
)})


@register
class AT43(RuleSet):
    """AT-43, shooting."""

    name = "at-43"
    title = "AT-43"
    aliases = ("at43",)
    unit_key = "cm"
    terrain_kinds = TERRAIN_KINDS
    option_specs = (
        Option("measure", "edge", "choice", "where distances (and the leader-to-leader range) are measured",
               "RULES-NOTES choice 1", ("edge", "centre")),
        Option("fire_zone", "hull", "choice", "fire zone of a ragged formation: convex hull of both units' bases",
               "RULES-NOTES choice 6", ("hull",)),
    )
    question_names = ("distance", "los", "template", "objectives", "terrain", "range", "firezone",
                      "shooters", "cover", "casualties", "indirect")
