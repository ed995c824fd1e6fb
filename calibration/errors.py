"""Errors of the calibration package: each says what is wrong and how to fix it."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

from tabletracker.errors import TabletrackerError


class CalibrationPackageError(TabletrackerError):
    """Root of the calibration package's errors (under the project root).

    Like the rules core's errors, one may carry a message id and its parameters (``msg_id``,
    ``params``): the edges word it in the user's language from the catalogues, the English
    message staying the fallback.
    """

    def __init__(self, *args: object, msg_id: str | None = None, params: Mapping[str, Any] | None = None) -> None:
        super().__init__(*args)
        self.msg_id = msg_id
        self.params: Mapping[str, Any] = MappingProxyType(dict(params or {}))


class CalibrationError(CalibrationPackageError):
    """The table or camera cannot be calibrated from what was given."""


class SetupFileError(CalibrationPackageError):
    """A setup file is malformed; the message names the file and the field."""


class UnitError(CalibrationPackageError, ValueError):
    """A unit of length that does not exist, or a Feu à Volonté UD that is not a positive length.

    Also a ``ValueError``, as it was before the package had its own errors.
    """


class ShapeError(CalibrationPackageError, ValueError):
    """Points or marker corners handed to the calibration in the wrong shape (also a ``ValueError``)."""
