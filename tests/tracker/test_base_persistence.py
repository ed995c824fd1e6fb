"""Bare bases followed over frames while a hand covers part of them, and bases touching a hand.

A base the tracker follows is fitted again around where it stood; when the search does not
find it (a hand over part of its rim), it is looked for again knowing its size and place
(:func:`tracker.bases.confirm_bases`): kept while some of its ring shows, hidden once it is
lifted or wholly covered, and nothing else (a die, a paper disc of its colour) keeps it.
"""

from __future__ import annotations

import math

import cv2
import numpy as np
import pytest

from calibration.setup import parse_setup
from tests.tracker.test_pipeline import PX_PER_MM, SETUP, draw
from tracker.bases import PlanView, confirm_bases, find_bases
from tracker.markers import ScaledPlane
from tracker.pipeline import Tracker
from tracker.sources import Frame

RED = (150.0, 170.0, 32.0, "red")
BLUE = (60.0, 230.0, 25.0, "blue")
#: A hand's palm centred here covers the red base's right side: most of its rim is hidden,
#: too much for the search, not for the confirmation.
HAND_OVER_PART = (180.0, 170.0)
FPS = 30.0


def _view() -> PlanView:
    return PlanView(ScaledPlane(PX_PER_MM), SETUP, px_per_mm=PX_PER_MM)


def _die(img: np.ndarray, x_mm: float, y_mm: float, side_mm: float, bgr: tuple[int, int, int]) -> np.ndarray:
    out = img.copy()
    h = side_mm / 2 * PX_PER_MM
    c = (x_mm * PX_PER_MM, y_mm * PX_PER_MM)
    pts = np.array([[c[0] - h, c[1] - h], [c[0] + h, c[1] - h], [c[0] + h, c[1] + h], [c[0] - h, c[1] + h]])
    cv2.fillPoly(out, [np.round(pts * 16).astype(np.int32)], bgr, cv2.LINE_AA, shift=4)
    return out


def test_the_search_misses_a_base_half_under_a_hand_the_confirmation_keeps_it() -> None:
    view = _view()
    covered = draw({}, [RED, BLUE], hand=HAND_OVER_PART)
    assert [b.side for b in find_bases(covered, view, SETUP)] == ["blue"]        # the red one missed
    (again,) = confirm_bases(covered, view, SETUP, [RED])
    assert again is not None and (again.side, again.diameter_mm) == ("red", 32.0)
    assert math.hypot(again.x_mm - RED[0], again.y_mm - RED[1]) <= 1.0


def test_the_confirmation_invents_nothing() -> None:
    """Lifted, wholly under a hand, a die or a disc of its colour in its place, another size: no."""
    view = _view()
    assert confirm_bases(draw({}, [BLUE]), view, SETUP, [RED]) == [None]                  # lifted
    assert confirm_bases(draw({}, [RED, BLUE], hand=(150.0, 170.0)), view, SETUP, [RED]) == [None]
    die = _die(draw({}, [BLUE]), 150.0, 170.0, 28.0, (43, 57, 192))                       # a red die there
    assert confirm_bases(die, view, SETUP, [RED]) == [None]
    disc = draw({}, [BLUE])
    cv2.circle(disc, (300, 340), 26, (43, 57, 192), -1, cv2.LINE_AA)                     # a red paper disc
    assert confirm_bases(disc, view, SETUP, [RED]) == [None]
    assert confirm_bases(draw({}, [(158.0, 170.0, 32.0, "red"), BLUE]), view, SETUP, [RED]) == [None]  # moved
    assert confirm_bases(draw({}, [(150.0, 170.0, 20.0, "red"), BLUE]), view, SETUP, [RED]) == [None]  # smaller
    assert confirm_bases(draw({}, [RED]), view, SETUP, [(150.0, 170.0, 32.0, "blue")]) == [None]  # other side


def _run(frames: list[np.ndarray]) -> tuple[Tracker, list[dict], list[bool]]:
    """30 frames a second through a tracker on a table without any marker (bare bases only)."""
    tracker = Tracker(SETUP, ScaledPlane(PX_PER_MM), base_sweep_px_per_s=1.0)     # fits only, no sweep
    events: list[dict] = []
    red_seen = []
    for n, img in enumerate(frames):
        events += [dict(e, frame=n) for e in tracker.process(Frame(n, n / FPS, img))
                   if e["type"] != "calibration_warning"]       # (drawn frames have no corner markers)
        red_seen.append(any(b.side == "red" and b.seen for b in tracker.state.bases))
    return tracker, events, red_seen


def test_a_base_half_hidden_by_a_hand_for_seconds_is_kept() -> None:
    """A hand over most of the red base's rim for three seconds (three fits): still seen, not
    moved, no event; the blue base untouched throughout."""
    still = [draw({}, [RED, BLUE], noise_seed=k) for k in range(3)]
    covered = [draw({}, [RED, BLUE], hand=HAND_OVER_PART, noise_seed=k) for k in range(3)]
    frames = [still[k % 3] for k in range(30)] + [covered[k % 3] for k in range(90)]
    frames += [still[k % 3] for k in range(30)]
    tracker, events, red_seen = _run(frames)
    assert all(red_seen)
    assert [e["type"] for e in events] == ["base_appeared", "base_appeared"]
    red = next(b for b in tracker.state.bases if b.side == "red")
    assert math.hypot(red.x_mm - RED[0], red.y_mm - RED[1]) <= 0.5


@pytest.mark.parametrize("what", ["lifted", "a die in its place"])
def test_a_lifted_base_is_hidden_all_the_same(what: str) -> None:
    """Lifted (or lifted and a die of its colour put there): hidden at its next fits, once."""
    still = [draw({}, [RED, BLUE], noise_seed=k) for k in range(3)]
    gone = [draw({}, [BLUE], noise_seed=k) for k in range(3)]
    if what != "lifted":
        gone = [_die(g, 150.0, 170.0, 28.0, (43, 57, 192)) for g in gone]
    frames = [still[k % 3] for k in range(30)] + [gone[k % 3] for k in range(60)]
    _, events, red_seen = _run(frames)
    hidden = [e for e in events if e["type"] == "base_hidden"]
    assert len(hidden) == 1 and 30 <= hidden[0]["frame"] <= 30 + FPS + 6
    assert not red_seen[-1]
    assert not [e for e in events if e["type"] == "base_appeared" and e["frame"] > 0]


def test_a_base_missing_from_one_fit_is_not_hidden() -> None:
    """A frame where the base does not show (a hand passing over all of it) is not enough: the
    base is fitted again at the next base step and, seen there, never reported hidden."""
    still = [draw({}, [RED, BLUE], noise_seed=k) for k in range(3)]
    over = draw({}, [RED, BLUE], hand=(150.0, 170.0), noise_seed=5)
    frames = [still[k % 3] for k in range(90)]
    # (the red base's fits fall on frames 18 and 48: the second one sees the hand)
    _, events, red_seen = _run(frames[:45] + [over] * 5 + frames[50:])
    assert not [e for e in events if e["type"] == "base_hidden"]
    assert all(red_seen)


def test_bases_touching_a_hand_on_a_realistic_frame() -> None:
    """A webcam-like 1080p render (fixed seed) where a hand reaches over the table: one orange
    base lies under a finger, another touches a fingertip (its rim joins the hand's outline in
    the orange mask). Both are found, centred within 1 mm, and no base is made of the hand."""
    from calibration.table import calibrate_table
    from synth.realistic import render_realistic

    image, truth, setup_doc = render_realistic(4, "1080p", rims_first=("orange", "cyan"))
    doc = dict(setup_doc, camera={"matrix": truth["camera"]["matrix"], "distortion": truth["camera"]["distortion"]})
    setup = parse_setup(doc, source="test")
    calibration = calibrate_table(image, setup)
    found = find_bases(image, PlanView(calibration, setup), setup)
    bare = [t for t in truth["bases"] if t.get("id") is None and t.get("visibility", 1.0) >= 0.75]
    assert sum(t["side"] == "orange" for t in bare) >= 3
    for t in bare:
        err = min(math.hypot(b.x_mm - t["centre_mm"][0], b.y_mm - t["centre_mm"][1]) for b in found)
        assert err <= 1.0, t
    for b in found:      # every circle stands on a real base (a bare one or a model's)
        assert any(math.hypot(b.x_mm - t["centre_mm"][0], b.y_mm - t["centre_mm"][1]) <= t["diameter_mm"] / 2
                   for t in truth["bases"]), b
