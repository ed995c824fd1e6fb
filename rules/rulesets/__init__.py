"""The five rule sets: ``find_ruleset(name)`` and the ``RULESETS`` tuple.

Examples
--------
>>> [rs.name for rs in RULESETS]
['high-fire', 'firefight', 'feu-a-volonte', 'at-43', 'star-wars']
>>> find_ruleset("Feu a Volonte").unit_key
'ud'
"""

from __future__ import annotations

from rules.rulesets.base import Option, RuleSet, all_rulesets, find_ruleset

RULESETS: tuple[RuleSet, ...] = all_rulesets()

__all__ = ["Option", "RuleSet", "RULESETS", "find_ruleset"]
