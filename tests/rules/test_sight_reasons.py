"""A sight answer's reasons (its ``blockers`` and ``cover``) reach the page in French and English.

Each reason keeps its English words (``reason``) and carries its message (``reason_msg``), which
:func:`tabletracker.i18n.localize` words in both languages: a wall that blocks, crates that
hide, a High Fire dense wood seen through, and one too deep to see through.
"""

from __future__ import annotations

from typing import Any

import pytest

from rules.rulesets import find_ruleset
from rules.visibility import line_of_sight
from tabletracker.i18n import localize
from tests.rules.test_visibility import box, game


def _entries(ruleset: str, piece: dict[str, Any]) -> dict[str, list[dict[str, Any]]]:
    plan = game(ruleset, [("a", "A", 100, 100), ("b", "B", 500, 100)], [piece])
    answer = localize(line_of_sight(plan, "a", "b", ruleset=find_ruleset(plan.ruleset)).to_json())
    return {"blockers": answer["blockers"], "cover": answer["cover"]}


@pytest.mark.parametrize("ruleset,piece,where,msg_id,fr", [
    ("at-43", box("c", "container", 290, 100.0, 310, 200), "blockers", "sight.reason.blocks", "lignes de vue bloquées"),
    ("at-43", box("w", "crates", 290, 50, 310, 150), "cover", "sight.reason.cover", "(cache 21/21 lignes de vue)"),
    ("high-fire", box("d", "dense-partial", 290, 0, 320, 200), "cover", "sight.reason.depth", "la vue le traverse"),
    ("high-fire", box("d", "dense-partial", 200, 0, 400, 200), "blockers", "sight.reason.too_deep",
     "trop de profondeur pour voir au travers"),
])
def test_each_reason_carries_its_message(ruleset: str, piece: dict[str, Any], where: str, msg_id: str,
                                         fr: str) -> None:
    entries = _entries(ruleset, piece)[where]
    entry = next(e for e in entries if e["reason_msg"]["msg"] == msg_id)
    assert entry["id"] == piece["id"] and isinstance(entry["reason"], str)
    texts = entry["reason_msg"]["texts"]
    assert fr in texts["fr"], texts
    assert texts["en"] == entry["reason"], texts  # the English words are the core's own
