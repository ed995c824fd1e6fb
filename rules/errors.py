"""Errors of the rules core, after python-chess's invalid / illegal split, under one package root.

An error may also carry a message id and its parameters (``msg_id``, ``params``): the edges
render it from the French and English catalogues (``tabletracker/locale``), the English
sentence given here being the fallback.

>>> e = IllegalActionError("out of range", msg_id="shot.out_of_range", params={"target": "b1"})
>>> str(e), e.msg_id, dict(e.params)
('out of range', 'shot.out_of_range', {'target': 'b1'})
>>> InvalidActionError("bad").msg_id is None
True
"""

from types import MappingProxyType
from typing import Any, Mapping

from tabletracker.errors import TabletrackerError


class RulesError(TabletrackerError):
    """Root of the rules core's errors (under the project root :class:`TabletrackerError`)."""

    def __init__(self, *args: object, msg_id: str | None = None, params: Mapping[str, Any] | None = None) -> None:
        super().__init__(*args)
        self.msg_id = msg_id
        self.params: Mapping[str, Any] = MappingProxyType(dict(params or {}))


class GameFileError(RulesError):
    """A game file (or an edit of one) is malformed; names the file and the field."""


class RosterError(RulesError):
    """A roster is refused: unknown weapon or rule, reused marker id, a broken limit."""


class InvalidActionError(RulesError):
    """A question or action is malformed: unknown id, wrong arguments, unknown question."""


class IllegalActionError(RulesError):
    """A well-formed action the rules do not allow now (out of range, no sight, ...)."""


class MissingTableError(RulesError):
    """A rule needs a table the players must fill in from their booklet (High Fire)."""
