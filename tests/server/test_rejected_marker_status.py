"""A marker the tracker rejects (an unknown id, a marker seen twice...) reaches the page's status
line in French and English, for a while, and only when nothing more pressing is to be said."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from server.tracking import REJECTION_SHOWN_S, TrackerStep
from tracker.sources import Frame

UNKNOWN = {"type": "marker_rejected", "marker_id": 57, "center_px": [10.0, 20.0],
           "reason": "unknown marker: id 57 is not one of the setup's markers",
           "msg": "track.rejected.unknown_id", "params": {"id": 57}}


@dataclass
class State:
    calibrated: bool = True
    warnings: tuple[str, ...] = ()
    corners_hidden: tuple[int, ...] = ()
    models: tuple[Any, ...] = ()
    bases: tuple[Any, ...] = ()


@dataclass
class Scripted:
    """A tracker giving, frame after frame, the events and states of its script."""

    script: list[tuple[list[dict[str, Any]], State]]
    calibration: Any = None
    state: State = field(default_factory=State)

    def process(self, frame: Frame) -> list[dict[str, Any]]:
        events, self.state = self.script.pop(0)
        return events


def _run(script: list[tuple[list[dict[str, Any]], State]], times: list[float]) -> list[tuple[str, dict[str, str]]]:
    clock = iter([t for t in times for _ in ("captured", "processed")])
    frames = iter([Frame(i, float(t), None) for i, t in enumerate(times)])
    step = TrackerStep(frames, Scripted(list(script)), (600.0, 600.0), clock=lambda: next(clock))
    out = []
    for _ in times:
        snap = step.step()
        assert snap is not None
        out.append((snap.status, snap.texts))
    return out


def test_an_unknown_marker_is_said_on_the_status_line_in_both_languages_for_a_while() -> None:
    ok = State()
    times = [0.0, 1.0, REJECTION_SHOWN_S - 1.0, REJECTION_SHOWN_S + 1.0]
    said = _run([([UNKNOWN], ok), ([], ok), ([], ok), ([], ok)], times)
    assert [s for s, _ in said] == ["marker_rejected", "marker_rejected", "marker_rejected", "ok"]
    words = said[0][1]
    assert words["fr"].startswith("marqueur inconnu n° 57 : aucune figurine ne le porte")
    assert words["en"].startswith("unknown marker no. 57: no model carries it")
    assert said[3][1] == {}


def test_a_rejected_marker_does_not_drown_a_more_pressing_status() -> None:
    ok, hidden = State(), State(corners_hidden=(0,))
    lost = {"type": "camera_lost", "message": "the camera stopped"}
    said = _run([([UNKNOWN], hidden), ([UNKNOWN, lost], ok), ([UNKNOWN], State(calibrated=False))],
                [0.0, 0.5, 1.0])
    assert [s for s, _ in said] == ["corners_hidden", "camera_lost", "not_calibrated"]


def test_a_rejection_without_a_message_id_gets_the_generic_words() -> None:
    bare = {k: v for k, v in UNKNOWN.items() if k not in ("msg", "params")}
    said = _run([([bare], State())], [0.0])
    assert said[0][0] == "marker_rejected"
    assert said[0][1]["fr"] == "un marqueur vu ne peut pas être une figurine : il n'est pas suivi."
