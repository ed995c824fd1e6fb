"""Feu à Volonté v1.6: UD by figure scale, centre to centre, model by model.

Sources are the sections of ``seeds/feu-a-volonte-v1.6.txt``: Mesurer les
distances, Arc frontal, Les Mouvements, Se dissimuler, Les Combats à distance,
Bonus/malus de situation, Compétences (auras), Radio, Arme à aire d'effet,
Cadence de tir, Groupe d'appui, Le Terrain.
"""

from __future__ import annotations

from types import MappingProxyType

from calibration.units import DEFAULT_UD_MM
from rules.rulesets.base import Option, RuleSet, register
from rules.terrain import TerrainKind

SRC = "Feu à Volonté, Le Terrain (tableau des éléments de décor)"
SRC_MOVE = "Feu à Volonté, Les Mouvements"

TERRAIN_KINDS = MappingProxyType({k.kind: k for k in (
    TerrainKind("road", "clear", "road", False, ("area", "line"), "road: open, 4 UD + 1d6 UD for 1 PA", SRC),
    TerrainKind("plain", "clear", "open", False, ("area",), "plain: open, sight clear", SRC),
    TerrainKind("path", "clear", "difficult", False, ("area", "line"), "path or field: difficult, sight clear", SRC),
    TerrainKind("rough", "blocks", "difficult", True, ("area",), "rough ground or ditches: difficult, sight blocked", SRC),
    TerrainKind("tree-line", "blocks", "difficult", True, ("area", "line"), "single line of trees: difficult, sight blocked", SRC),
    TerrainKind("forest", "blocks", "impassable", True, ("area",), "forest: impassable, sight blocked", SRC),
    TerrainKind("river", "clear", "impassable", False, ("area", "line"), "river: impassable, sight clear", SRC),
    TerrainKind("water", "clear", "impassable", False, ("area",), "stretch of water: impassable, sight clear", SRC),
    TerrainKind("building", "blocks", "impassable", True, ("area",), "building: impassable, sight blocked", SRC),
    # Les Mouvements: "Les bois, les marais, les bâtiments sont considérés comme des terrains difficiles."
    TerrainKind("wood", "blocks", "difficult", True, ("area",), "wood: difficult, sight blocked", SRC_MOVE),
    TerrainKind("marsh", "clear", "difficult", False, ("area",), "marsh: difficult, sight clear", SRC_MOVE),
    # Obstacle linéaire: hedge, fence, low wall, barricade; -1 UD to cross, cover to a target behind it.
    TerrainKind("hedge", "cover", "linear", True, ("line",), "hedge: linear obstacle, -1 UD, cover", SRC_MOVE),
    TerrainKind("fence", "cover", "linear", True, ("line",), "fence: linear obstacle, -1 UD, cover", SRC_MOVE),
    TerrainKind("low-wall", "cover", "linear", True, ("line",), "low wall: linear obstacle, -1 UD, cover", SRC_MOVE),
    TerrainKind("barricade", "cover", "linear", True, ("line",), "barricade: linear obstacle, -1 UD, cover", SRC_MOVE),
)})


@register
class FeuAVolonte(RuleSet):
    """Feu à Volonté v1.6."""

    name = "feu-a-volonte"
    title = "Feu à Volonté"
    aliases = ("fav", "feu a volonte", "feu-à-volonté")
    unit_key = "ud"
    terrain_kinds = TERRAIN_KINDS
    option_specs = (
        Option("measure", "centre", "choice",
               "where distances are measured (the text says centre to centre)", "RULES-NOTES choice 1",
               ("centre", "edge")),
        Option("ud_mm", DEFAULT_UD_MM, "number", "one UD in mm: 10 (10 mm figures), 20 (15-20 mm), 40 (28 mm)",
               "Feu à Volonté, Mesurer les distances"),
        Option("band_boundary", "nearer", "choice",
               "a range of exactly 4, 8 or 12 UD belongs to the nearer band, or to the farther one",
               "RULES-NOTES choice 4", ("nearer", "farther")),
    )
    question_names = ("distance", "los", "cohesion", "template", "objectives", "terrain",
                      "range", "cover", "arc", "shooters", "aura", "radio", "spot", "hide",
                      "grenade", "split", "move")
