"""Root of the tracker package's errors (under the project root)."""

from tabletracker.errors import TabletrackerError


class TrackerError(TabletrackerError):
    """Root of the tracker's errors: a frame source that cannot be opened, malformed detections."""


class DetectionsError(TrackerError, ValueError):
    """Detections built from arrays of the wrong shape or type (also a ``ValueError``, as before)."""
