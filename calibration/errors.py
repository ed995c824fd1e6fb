"""Errors of the calibration package: each says what is wrong and how to fix it."""


class CalibrationError(ValueError):
    """The table or camera cannot be calibrated from what was given."""


class SetupFileError(ValueError):
    """A setup file is malformed; the message names the file and the field."""
