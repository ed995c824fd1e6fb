"""Errors of the calibration package: each says what is wrong and how to fix it."""

from tabletracker.errors import TabletrackerError


class CalibrationPackageError(TabletrackerError):
    """Root of the calibration package's errors (under the project root)."""


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
