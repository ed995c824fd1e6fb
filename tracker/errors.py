"""Root of the tracker package's errors (under the project root)."""

from tabletracker.errors import TabletrackerError


class TrackerError(TabletrackerError):
    """Root of the tracker's errors: a frame source that cannot be opened, malformed detections."""
