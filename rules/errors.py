"""Errors of the rules core, after python-chess's invalid / illegal split, under one package root."""

from tabletracker.errors import TabletrackerError


class RulesError(TabletrackerError):
    """Root of the rules core's errors (under the project root :class:`TabletrackerError`)."""


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
