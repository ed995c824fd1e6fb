"""The five rule sets: the one registry, ``RULESETS``, and ``find_ruleset(name)``.

Everything about a rule set lives in its package ``rules/rulesets/<name>/``: the class
(metadata, terrain kinds, options, questions, typed hooks), its actions and roster
checks (``actions.py``), its dice and tables. The ids (``RULESET_IDS``) and units
(``RuleSet.unit_key``) are read from this tuple; nothing else lists the rule sets.

Examples
--------
>>> [rs.name for rs in RULESETS]
['high-fire', 'firefight', 'feu-a-volonte', 'at-43', 'star-wars']
>>> find_ruleset("Feu a Volonte").unit_key
'ud'
>>> find_ruleset("chess")  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
rules.errors.InvalidActionError: unknown rule set 'chess'; rule sets are: high-fire, firefight, ..., star-wars
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from rules.errors import InvalidActionError
from rules.rulesets.at43 import AT_43
from rules.rulesets.base import Option, RuleSet
from rules.rulesets.feu_a_volonte import FEU_A_VOLONTE
from rules.rulesets.firefight import FIREFIGHT
from rules.rulesets.high_fire import HIGH_FIRE
from rules.rulesets.star_wars import STAR_WARS

RULESETS: tuple[RuleSet, ...] = (HIGH_FIRE, FIREFIGHT, FEU_A_VOLONTE, AT_43, STAR_WARS)
RULESET_IDS: tuple[str, ...] = tuple(rs.name for rs in RULESETS)


def _norm(text: str) -> str:
    return "".join(ch for ch in text.lower() if ch.isalnum())


_BY_KEY: Mapping[str, RuleSet] = MappingProxyType({
    key: rs for rs in RULESETS for key in (_norm(rs.name), _norm(rs.title), *(_norm(a) for a in rs.aliases))})


def find_ruleset(name: str) -> RuleSet:
    """Return the rule set called ``name`` or one of its aliases (case, spaces and dashes ignored)."""
    try:
        return _BY_KEY[_norm(name)]
    except KeyError:
        raise InvalidActionError(
            f"unknown rule set {name!r}; rule sets are: {', '.join(RULESET_IDS)}",
            msg_id="ruleset.unknown", params={"name": name, "known": list(RULESET_IDS)}) from None


__all__ = ["Option", "RuleSet", "RULESETS", "RULESET_IDS", "find_ruleset"]
