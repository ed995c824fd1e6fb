"""Small messages AT-43's steps use as parameters (a needed roll, how a distance is measured).

The edges render them in French or English (``tabletracker/locale/*.at43.po``).

>>> need_msg(5)["msg"], dict(need_msg(5)["params"]), need_msg(None)["msg"], how_msg("centre")["msg"]
('at43.need.roll', {'face': 5}, 'at43.need.fail', 'at43.how.centre')
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from rules.dice import AUTO_SUCCESS, needed_text
from rules.explain import msg
from tabletracker.words import Said


def need_msg(needed: int | None | str) -> Mapping[str, Any]:
    """The roll needed as a message: ``5+``, ``6``, automatic failure or success."""
    if needed is None:
        return msg("at43.need.fail")
    if needed == AUTO_SUCCESS:
        return msg("at43.need.auto")
    if int(needed) >= 6:
        return msg("at43.need.six")
    return msg("at43.need.roll", face=int(needed))


def need_said(needed: int | None | str) -> Said:
    """The roll needed as a resolution's ``needed`` value: ``5+`` or "automatic failure", with its message id."""
    words = need_msg(needed)
    return Said(needed_text(needed), words["msg"], **words["params"])


def how_msg(how: str) -> Mapping[str, Any]:
    """How a distance was measured: base edge to base edge, or centre to centre."""
    return msg("at43.how.edge" if how == "edge" else "at43.how.centre")


def ids_or_nobody(ids: Sequence[str]) -> Any:
    """A list of model ids as a parameter, or the message "nobody" when it is empty."""
    return list(ids) if ids else msg("at43.nobody")
