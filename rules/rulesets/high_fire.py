"""High Fire (initiation rules v0.5.1): inches, unit sight, 1" cohesion, area depth.

Sources are the sections of ``seeds/high-fire-v0.5.1.md``: UNITES (cohesion),
TERRAINS / DEPLACEMENT / LIGNE DE VUE, COMBAT A DISTANCE (ligne de mire,
modificateurs) and the table of infantry actions.
"""

from __future__ import annotations

from types import MappingProxyType
from typing import Any, ClassVar, Mapping

from calibration.units import inches
from rules.plan import TablePlan
from rules.rulesets.base import Option, RuleSet, register
from rules.terrain import TerrainKind

SRC_TERRAIN = "High Fire, Terrains"
SRC_SIGHT = "High Fire, Ligne de vue"


def _k(kind: str, sight: str, cover: bool, shapes: tuple[str, ...], text: str) -> TerrainKind:
    # Any zone or obstacle is difficult terrain (Terrains: "on parle de terrain difficile").
    return TerrainKind(kind, sight, "difficult", cover, shapes, text, SRC_TERRAIN)


TERRAIN_KINDS = MappingProxyType({k.kind: k for k in (
    _k("sparse-partial", "sparse", True, ("area",), "sparse area, partial cover: sight blocked by 4\" of it"),
    _k("sparse-solid", "sparse", True, ("area",), "sparse area, solid cover: sight blocked by 4\" of it"),
    _k("dense-partial", "dense", True, ("area",), "dense area, partial cover: sight blocked by 2\" of it"),
    _k("dense-solid", "dense", True, ("area",), "dense area, solid cover: sight blocked by 2\" of it"),
    _k("partial-obstacle", "cover", True, ("area", "line"),
       "partial obstacle (scattered bush, fence, crate, low wall): does not block sight"),
    _k("solid-obstacle", "blocks", True, ("area", "line"),
       "solid obstacle (tree, thicket, wall, rock): blocks sight"),
    _k("blocking", "blocks", True, ("area", "line"),
       "a piece the players agree hides everything behind it (a building, a big vehicle)"),
)})

#: Movement of each infantry action, inches (High Fire, Actions de l'infanterie).
ACTIONS_IN: Mapping[str, float] = MappingProxyType({
    "careful": 3.0, "tactical": 4.0, "fast": 8.0, "jump": 8.0, "aimed": 1.0,
    "assault": 4.0, "observe": 1.0, "quick-op": 4.0, "long-op": 1.0,
})
ACTION_NAMES_FR: Mapping[str, str] = MappingProxyType({
    "careful": "Progression prudente", "tactical": "Progression tactique", "fast": "Progression rapide",
    "jump": "Progression par saut", "aimed": "Tir appuyé", "assault": "Assaut", "observe": "Observation",
    "quick-op": "Opération rapide", "long-op": "Opération longue",
})


@register
class HighFire(RuleSet):
    """High Fire v0.5.1."""

    name = "high-fire"
    title = "High Fire"
    aliases = ("highfire", "hf")
    unit_key = "in"
    terrain_kinds = TERRAIN_KINDS
    models_block_sight = "infantry-units"
    option_specs = (
        Option("measure", "edge", "choice", "where distances are measured", "RULES-NOTES choice 1",
               ("edge", "centre")),
        Option("cohesion", "chain", "choice",
               "cohesion as one connected chain, or each model near any other", "RULES-NOTES choice 2",
               ("chain", "nearest")),
        Option("sight_depth", "proportional", "choice",
               "depths of several area pieces add up in proportion, or each piece on its own",
               "RULES-NOTES choice 3", ("proportional", "separate")),
    )
    question_names = ("distance", "los", "cohesion", "template", "objectives", "terrain",
                      "range", "cover", "proximity", "move")
    SPARSE_BLOCK_MM: ClassVar[float] = inches(4)
    DENSE_BLOCK_MM: ClassVar[float] = inches(2)
    COHESION_MM: ClassVar[float] = inches(1)
    ENEMY_GAP_MM: ClassVar[float] = inches(1)

    def cohesion_rule(self, options: Mapping[str, Any]) -> tuple[float, float | None, str] | None:
        return (self.COHESION_MM, None, "High Fire, Unités")

    def cohesion_exempt(self, plan: TablePlan, model_id: str) -> bool:
        # "les spécialistes ne sont pas assujettis à la règle de cohésion" (High Fire, Unités).
        m = plan.model(model_id)
        return m.role == "specialist" or m.has_status("specialist")
