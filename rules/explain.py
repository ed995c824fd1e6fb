"""Explanations: every answer and resolution says which rules it applied, with sources.

A step carries the core's English sentence (``text``) and, for the players' languages, a
message id with its parameters (``msg``, ``params``): the edges (the web server, the CLI)
render it in French or English from the catalogues of ``tabletracker/locale``. A parameter
may itself be a message (:func:`msg`), rendered in the same language.

Examples
--------
>>> s = Step("range band", "-1: target 9.5 UD away, band 8-12 UD", "Feu à Volonté, Tir", value=-1,
...          msg="fav.range_band", params={"distance": 9.5, "band": "8-12"})
>>> s.to_json()["source"], s.to_json()["msg"], s.to_json()["params"]["distance"]
('Feu à Volonté, Tir', 'fav.range_band', 9.5)
>>> msg("cover.why", piece="wall-1")["params"]["piece"]
'wall-1'

A step that applies one of the program's own rule choices names its entry of the user docs
(``doc``), which the JSON carries and the web page links to:

>>> Step("measuring", "distances are taken base edge to base edge", "rule choice 1",
...      doc="rule-choices.md#firefight-1").to_json()["doc"]
'rule-choices.md#firefight-1'
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping

from rules.frozen import EMPTY, freeze, thaw


def msg(msg_id: str, **params: Any) -> Mapping[str, Any]:
    """Return a message as a parameter of another (``{"msg": id, "params": {...}}``, frozen)."""
    return freeze({"msg": msg_id, "params": params})  # type: ignore[no-any-return]


@dataclass(frozen=True)
class Step:
    """One rule applied: what it is, what it gave here, where it comes from.

    ``source`` names the rule set and section ("AT-43, Zone de tir"); ``option``
    names the program's choice that changed the answer, when one did; ``msg`` and
    ``params`` say the same as ``text`` as a message id the edges translate; ``doc`` is the
    entry of the user docs (``rule-choices.md#<rule set>-<n>``) of the rule choice the
    step applies, when it applies one.
    """

    rule: str
    text: str
    source: str
    value: Any = None
    option: str | None = None
    msg: str | None = None
    params: Mapping[str, Any] = field(default=EMPTY)
    doc: str | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "params", freeze(self.params))

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"rule": self.rule, "text": self.text, "source": self.source}
        if self.value is not None:
            out["value"] = self.value
        if self.option is not None:
            out["option"] = self.option
        if self.msg is not None:
            out["msg"] = self.msg
            out["params"] = thaw(self.params)
        if self.doc is not None:
            out["doc"] = self.doc
        return out


def explanation_json(steps: tuple[Step, ...] | list[Step]) -> list[dict[str, Any]]:
    """Return the JSON list of ``steps``."""
    return [s.to_json() for s in steps]
