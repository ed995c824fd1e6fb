"""AT-43 shooting (rulebook chapter "Tirs"): salvoes weapon by weapon, on the universal table.

PLACEHOLDER_DOC
"""

from __future__ import annotations

from typing import Any, Mapping

from rules.combat.base import Action
from rules.roster import Roster, require_known_rules, require_known_weapons, require_stats

RULESET = "at-43"
CATEGORIES = ("infantry", "vehicle")
KNOWN_RULES: tuple[str, ...] = ()  # the shooting chapter defines no unit special rules
PROFILE_STATS = (("category", str), ("size", int), ("protection", int))
WEAPON_STATS = (("rate", int), ("rerolls", int), ("penetration", int), ("damage", int))


def validate_roster(roster: Roster) -> None:
    """Refuse an AT-43 roster with unknown weapons or rules, or stats the shooting rules need missing.

    A profile needs ``category`` (infantry or vehicle), ``size`` (Taille),
    ``protection`` and optionally ``structure`` (points, default 1). A weapon needs
    ``precision`` (or ``locked_roll``, the fixed roll of a locked weapon), ``rate``
    (Cadence), ``rerolls`` (Relances), ``penetration`` and ``damage`` (Dommages),
    and ``area_cm`` (Aire d'effet) when it fires indirectly. Every model needs a
    weapon and every unit a leader (ranges are measured leader to leader).
    """
    require_known_weapons(roster)
    require_known_rules(roster, KNOWN_RULES)
    for name, stats in roster.profiles.items():
        require_stats(roster, "profiles", name, stats, PROFILE_STATS)
        if stats["category"] not in CATEGORIES:
            roster.fail(f"profiles.{name}.category must be one of {', '.join(CATEGORIES)}, "
                        f"got {stats['category']!r}")
        structure = stats.get("structure", 1)
        if isinstance(structure, bool) or not isinstance(structure, int) or structure < 1:
            roster.fail(f"profiles.{name}.structure must be a whole number of at least 1, got {structure!r}")
    for name, stats in roster.weapons.items():
        require_stats(roster, "weapons", name, stats, WEAPON_STATS)
        if "precision" not in stats and "locked_roll" not in stats:
            roster.fail(f"weapons.{name} needs 'precision' (or 'locked_roll' for a locked weapon)")
        for key in ("precision", "locked_roll"):
            if key in stats:
                require_stats(roster, "weapons", name, stats, ((key, int),))
        if "locked_roll" in stats and not 2 <= stats["locked_roll"] <= 6:
            roster.fail(f"weapons.{name}.locked_roll must be 2 to 6, got {stats['locked_roll']!r}")
        if stats["rate"] < 1 or stats["rerolls"] < 0 or stats["damage"] < 1:
            roster.fail(f"weapons.{name}: rate and damage must be at least 1 and rerolls at least 0")
        if "area_cm" in stats:
            require_stats(roster, "weapons", name, stats, (("area_cm", (int, float)),))
            if stats["area_cm"] <= 0:
                roster.fail(f"weapons.{name}.area_cm must be greater than 0, got {stats['area_cm']!r}")
    for unit, model in roster.all_models():
        if roster.profile_of(unit, model) is None:
            roster.fail(f"model {model.model_id!r} of unit {unit.unit_id!r} has no profile "
                        f"(give the model or its unit one)")
        if not model.weapons:
            roster.fail(f"model {model.model_id!r} of unit {unit.unit_id!r} carries no weapon")
    for unit in roster.units:
        if unit.leader is None:
            roster.fail(f"unit {unit.unit_id!r} has no leader; AT-43 measures ranges from the leader")


ACTIONS: dict[str, Action] = {}
