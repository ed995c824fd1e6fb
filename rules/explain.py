"""Explanations: every answer and resolution says which rules it applied, with sources.

Examples
--------
>>> s = Step("range band", "-1: target 9.5 UD away, band 8-12 UD", "Feu à Volonté, Tir", value=-1)
>>> s.to_json()["source"]
'Feu à Volonté, Tir'
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Step:
    """One rule applied: what it is, what it gave here, where it comes from.

    ``source`` names the rule set and section ("AT-43, Zone de tir"); ``option``
    names the RULES-NOTES choice that changed the answer, when one did.
    """

    rule: str
    text: str
    source: str
    value: Any = None
    option: str | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"rule": self.rule, "text": self.text, "source": self.source}
        if self.value is not None:
            out["value"] = self.value
        if self.option is not None:
            out["option"] = self.option
        return out


def explanation_json(steps: tuple[Step, ...] | list[Step]) -> list[dict[str, Any]]:
    """Return the JSON list of ``steps``."""
    return [s.to_json() for s in steps]
