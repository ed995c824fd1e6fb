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

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any


class TabletrackerError(ValueError):
    """Something the user gave or did is wrong; the message says what and how to fix it.

    It may carry a message id and its parameters (``msg_id``, ``params``): the edges word it in
    the user's language from the catalogues (``tabletracker.i18n``), the English message staying
    the fallback.

    >>> e = UsageError("--fps must be above 0, got -1", msg_id="cli.fps_range", params={"value": -1})
    >>> e.msg_id, dict(e.params), str(e)
    ('cli.fps_range', {'value': -1}, '--fps must be above 0, got -1')
    """

    message_fr: str | None = None
    """The same message in French, where the code that raised it words one (the edges pick the user's)."""

    def __init__(self, *args: object, msg_id: str | None = None, params: Mapping[str, Any] | None = None) -> None:
        super().__init__(*args)
        self.msg_id = msg_id
        self.params: Mapping[str, Any] = MappingProxyType(dict(params or {}))


class UsageError(TabletrackerError):
    """A command-line argument is malformed or missing."""
