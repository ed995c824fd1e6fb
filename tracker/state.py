"""The tracker's published state: an immutable snapshot of every model and bare base.

The web server reads :class:`TrackState` from another thread; it is never mutated, each
frame produces a new one.

Examples
--------
>>> s = TrackState.empty()
>>> s.models, s.bases, s.model(17) is None
((), (), True)
>>> m = ModelTrack(17, 100.0, 200.0, 90.0, seen=False, last_seen_s=1.5, unseen_since_s=2.0)
>>> TrackState(3, 2.0, (m,), ()).model(17).to_dict()["seen"]
False
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class ModelTrack:
    """A model known by its marker id: last reported base centre and facing, table mm.

    ``seen`` is False while the marker is not visible (hidden by a hand, lifted); the
    position is then the last one measured, ``unseen_since_s`` when it vanished.
    """

    marker_id: int
    x_mm: float
    y_mm: float
    facing_deg: float
    seen: bool
    last_seen_s: float
    unseen_since_s: float | None = None

    def to_dict(self) -> dict[str, Any]:
        """Return the JSON form."""
        return {"marker_id": self.marker_id, "x_mm": round(self.x_mm, 2), "y_mm": round(self.y_mm, 2),
                "facing_deg": round(self.facing_deg, 2), "seen": self.seen,
                "last_seen_s": round(self.last_seen_s, 3),
                "unseen_since_s": None if self.unseen_since_s is None else round(self.unseen_since_s, 3)}


@dataclass(frozen=True)
class BaseTrack:
    """A bare base (no marker) followed by continuity: ``track_id`` is ``base-<n>``."""

    track_id: str
    x_mm: float
    y_mm: float
    diameter_mm: float
    side: str
    seen: bool
    last_seen_s: float
    unseen_since_s: float | None = None

    def to_dict(self) -> dict[str, Any]:
        """Return the JSON form."""
        return {"track_id": self.track_id, "x_mm": round(self.x_mm, 2), "y_mm": round(self.y_mm, 2),
                "diameter_mm": self.diameter_mm, "side": self.side, "seen": self.seen,
                "last_seen_s": round(self.last_seen_s, 3),
                "unseen_since_s": None if self.unseen_since_s is None else round(self.unseen_since_s, 3)}


@dataclass(frozen=True)
class TrackState:
    """Everything the tracker knows after one frame."""

    frame_index: int
    timestamp_s: float
    models: tuple[ModelTrack, ...]
    bases: tuple[BaseTrack, ...]
    calibrated: bool = True
    warnings: tuple[str, ...] = ()
    #: Corner markers hidden at the last check: the last good calibration is kept meanwhile.
    corners_hidden: tuple[int, ...] = ()

    @classmethod
    def empty(cls) -> TrackState:
        """Return the state before the first frame."""
        return cls(-1, 0.0, (), (), calibrated=False)

    def model(self, marker_id: int) -> ModelTrack | None:
        """Return the track of ``marker_id``, or None when it was never seen."""
        for m in self.models:
            if m.marker_id == marker_id:
                return m
        return None

    def to_dict(self) -> dict[str, Any]:
        """Return the JSON form."""
        return {"frame": self.frame_index, "timestamp_s": round(self.timestamp_s, 3),
                "calibrated": self.calibrated, "warnings": list(self.warnings),
                "corners_hidden": list(self.corners_hidden), "calibration_kept": bool(self.corners_hidden),
                "models": [m.to_dict() for m in self.models], "bases": [b.to_dict() for b in self.bases]}
