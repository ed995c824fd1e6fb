"""Errors of the rules core, after python-chess's invalid / illegal split."""


class GameFileError(ValueError):
    """A game file (or an edit of one) is malformed; names the file and the field."""


class RosterError(ValueError):
    """A roster is refused: unknown weapon or rule, reused marker id, a broken limit."""


class InvalidActionError(ValueError):
    """A question or action is malformed: unknown id, wrong arguments, unknown question."""


class IllegalActionError(ValueError):
    """A well-formed action the rules do not allow now (out of range, no sight, ...)."""


class MissingTableError(ValueError):
    """A rule needs a table the players must fill in from their booklet (High Fire)."""
