"""The program's own rule choices, cited by the page of the project's docs that lists them.

The rules core's steps cite the choices the rule texts leave open by their internal number
("choice 1" of the team's notes). Players do not have those notes: what leaves the core
names instead the entry of ``docs/rule-choices.md`` (``rule-choices.md#firefight-1``), the
page the CLI points to and the web page links to (``/docs/rule-choices#firefight-1``).

Examples
--------
>>> cite("firefight", "distances taken centre to centre RULES-NOTES choice 1")
('distances taken centre to centre rule choice 1', 'rule-choices.md#firefight-1')
>>> cite("at-43", "AT-43, tableau de résolution universel (RULES-NOTES)")
('AT-43, tableau de résolution universel (rule choice 4)', 'rule-choices.md#at-43-4')
>>> cite("star-wars", "Star Wars, Règles de Tir")
('Star Wars, Règles de Tir', None)
"""

from __future__ import annotations

import re
from types import MappingProxyType
from typing import Any, Mapping, Sequence

DOC = "rule-choices.md"

#: (rule set, the notes' choice number) -> the entry of docs/rule-choices.md.
_BY_NUMBER: Mapping[tuple[str, int], str] = MappingProxyType({
    **{(rs, 1): f"{rs}-1" for rs in ("high-fire", "firefight", "feu-a-volonte", "at-43", "star-wars")},
    ("high-fire", 2): "high-fire-2", ("firefight", 2): "firefight-2",
    ("high-fire", 3): "high-fire-3",
    ("feu-a-volonte", 4): "feu-a-volonte-3",
    ("feu-a-volonte", 5): "feu-a-volonte-4",
    ("at-43", 6): "at-43-2",
    ("at-43", 7): "at-43-3",
    ("star-wars", 8): "star-wars-3",
    ("high-fire", 9): "high-fire-4", ("firefight", 9): "firefight-4", ("star-wars", 9): "star-wars-4",
    ("feu-a-volonte", 10): "feu-a-volonte-5",
})
#: A citation without a number: the facts from outside the rule texts, per rule set.
_UNNUMBERED: Mapping[str, str] = MappingProxyType({
    "firefight": "firefight-3", "at-43": "at-43-4", "high-fire": "high-fire-5"})

_CITATION = re.compile(r"\bRULES-NOTES(?:\.md)?(?:\s+choices?\s+(\d+))?")


def _anchor(ruleset: str, number: int | None, text: str) -> str | None:
    if number is not None:
        if ruleset == "star-wars" and number == 8 and "Zone" in text:
            return "star-wars-2"
        return _BY_NUMBER.get((ruleset, number))
    if ruleset == "at-43" and re.search(r"couvert|cover", text, re.I):
        return "at-43-5"
    return _UNNUMBERED.get(ruleset)


def cite(ruleset: str, text: str) -> tuple[str, str | None]:
    """Return ``text`` with its citation of the team's notes replaced, and the docs entry it cites."""
    found = _CITATION.search(text)
    if found is None:
        return text, None
    number = int(found.group(1)) if found.group(1) else None
    anchor = _anchor(ruleset, number, text)
    label = f"rule choice {anchor.rsplit('-', 1)[1]}" if anchor else "the program's rule choice"
    new = text[:found.start()] + label + text[found.end():]
    return new, f"{DOC}#{anchor}" if anchor else None


def cite_steps(ruleset: str, steps: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Return the JSON steps with each citation of the notes turned into its docs entry (``doc``)."""
    out = []
    for step in steps:
        s = dict(step)
        doc = None
        for key in ("source", "text"):
            if isinstance(s.get(key), str):
                s[key], found = cite(ruleset, s[key])
                doc = doc or found
        if doc:
            s["doc"] = doc
        out.append(s)
    return out
