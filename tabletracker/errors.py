"""The project's one error root: every error a user can cause is a :class:`TabletrackerError`.

Each package has its own root under it (``calibration.errors.CalibrationPackageError``,
``tracker.errors.TrackerError``, ``rules.errors.RulesError``, ``server.errors.ServerError``),
and its specific errors under that. The edges (the CLI, the HTTP layer, the frame loop)
catch this root only and turn it into a clear message; anything else is a bug, logged with
its traceback (a 500 on the API).

It subclasses ``ValueError`` so code written against the packages' older ``ValueError``
contract keeps working. This module imports nothing, so every package may import it.

Examples
--------
>>> from rules.errors import IllegalActionError, RulesError
>>> issubclass(IllegalActionError, RulesError) and issubclass(RulesError, TabletrackerError)
True
"""

from __future__ import annotations


class TabletrackerError(ValueError):
    """Something the user gave or did is wrong; the message says what and how to fix it."""


class UsageError(TabletrackerError):
    """A command-line argument is malformed or missing."""
