"""The incremental bare-base search: regions of the plan instead of the whole table.

After its first whole-table search the tracker fits each known base again in a small
region around it, and looks for new bases one tile of the table at a time: no frame
warps the whole table, a new base is still reported (once the sweep reaches it), a
lifted base is reported hidden, and the bases found in regions are those the whole-table
search finds.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import tracker.pipeline as pipeline
from calibration.setup import parse_setup
from tests.tracker.test_pipeline import PX_PER_MM, SETUP, draw
from tracker.bases import PlanView, find_bases, find_bases_in
from tracker.markers import ScaledPlane
from tracker.pipeline import Tracker, sweep_tiles
from tracker.sources import Frame

MODELS = {17: (80.0, 90.0, 30.0), 18: (200.0, 100.0, 200.0)}
# (none on a corner marker: the 60 mm corner squares are no place for a base)
BASES = [(60.0, 230.0, 25.0, "blue"), (150.0, 170.0, 32.0, "red"), (250.0, 75.0, 20.0, "red")]


def _key(found) -> list[tuple[float, float, float, str]]:  # type: ignore[no-untyped-def]
    return sorted((round(b.x_mm, 1), round(b.y_mm, 1), b.diameter_mm, b.side) for b in found)


def test_regions_find_what_the_whole_plan_finds() -> None:
    img = draw(MODELS, BASES)
    view = PlanView(ScaledPlane(PX_PER_MM), SETUP, px_per_mm=PX_PER_MM)
    whole = find_bases(img, view, SETUP)
    assert len(whole) == 3                                   # the drawn models have no rim
    for tile_mm in (75.0, 100.0, 150.0):
        tiles = sweep_tiles(300.0, 300.0, tile_mm)
        assert _key(find_bases_in(img, view, SETUP, tiles)) == _key(whole)
    # a region finds only the bases centred in it
    (b,) = find_bases_in(img, view, SETUP, [(140.0, 160.0, 160.0, 180.0)])
    assert (b.diameter_mm, b.side) == (32.0, "red") and math.hypot(b.x_mm - 150, b.y_mm - 170) < 0.5
    assert find_bases_in(img, view, SETUP, [(0.0, 260.0, 40.0, 300.0)]) == ()
    # a known base is not fitted again; a new one touching it is
    assert find_bases_in(img, view, SETUP, [(100.0, 120.0, 200.0, 220.0)], known_mm=[(150.0, 170.0, 32.0)]) == ()
    touching = draw(MODELS, BASES + [(150.0, 200.0, 25.0, "blue")])
    (new,) = find_bases_in(touching, view, SETUP, [(100.0, 120.0, 200.0, 220.0)], known_mm=[(150.0, 170.0, 32.0)])
    assert (new.side, new.diameter_mm) == ("blue", 25.0) and math.hypot(new.x_mm - 150, new.y_mm - 200) < 0.5


def test_sweep_tiles_cover_the_table_once() -> None:
    tiles = sweep_tiles(1200.0, 800.0, 205.0)
    assert len(tiles) == 6 * 4
    assert sum((x1 - x0) * (y1 - y0) for x0, y0, x1, y1 in tiles) == pytest.approx(1200.0 * 800.0)
    assert max(x1 for _, _, x1, _ in tiles) == 1200.0 and max(y1 for _, _, _, y1 in tiles) == 800.0


@pytest.fixture()
def searches(monkeypatch: pytest.MonkeyPatch) -> list[object]:
    """Record every bare-base search the tracker makes: None for the whole table, else the regions."""
    calls: list[object] = []
    whole, regional = pipeline.find_bases, pipeline.find_bases_in

    def spy_whole(*args, **kwargs):  # type: ignore[no-untyped-def]
        calls.append(None)
        return whole(*args, **kwargs)

    def spy_regional(image, view, setup, regions, **kwargs):  # type: ignore[no-untyped-def]
        calls.append(list(regions))
        return regional(image, view, setup, regions, **kwargs)

    monkeypatch.setattr(pipeline, "find_bases", spy_whole)
    monkeypatch.setattr(pipeline, "find_bases_in", spy_regional)
    return calls


def test_tracker_searches_the_whole_table_once_then_regions(searches: list[object]) -> None:
    """30 frames per second: bases fitted again around themselves, a new one found by the sweep,
    a lifted one hidden, and never the whole table again (nor most of it in one frame)."""
    tracker = Tracker(SETUP, ScaledPlane(PX_PER_MM), base_sweep_px_per_s=60_000.0)   # 300 x 300 mm in 6 s
    fps = 30.0
    events: list[dict] = []
    frames = [draw(MODELS, BASES, noise_seed=k) for k in range(3)]
    with_new = [draw(MODELS, BASES + [(240.0, 250.0, 40.0, "blue")], noise_seed=k) for k in range(3)]
    lifted = [draw(MODELS, BASES[1:] + [(240.0, 250.0, 40.0, "blue")], noise_seed=k) for k in range(3)]
    n = 0
    for images, seconds in ((frames, 1.5), (with_new, 6.5), (lifted, 1.5)):
        for k in range(int(seconds * fps)):
            events += [dict(e, frame=n) for e in tracker.process(Frame(n, n / fps, images[k % 3]))]
            n += 1
    appeared = [e for e in events if e["type"] == "base_appeared"]
    assert [(e["side"], e["diameter_mm"]) for e in appeared[:3]] == [("red", 20.0), ("red", 32.0), ("blue", 25.0)]
    assert all(e["frame"] == 0 for e in appeared[:3])
    assert len(appeared) == 4
    new = appeared[3]
    assert (new["side"], new["diameter_mm"]) == ("blue", 40.0)
    assert (new["x_mm"], new["y_mm"]) == pytest.approx((240.0, 250.0), abs=1.0)
    assert 45 <= new["frame"] <= 45 + 6 * fps + 1           # found by the sweep within its period
    hidden = [e for e in events if e["type"] == "base_hidden"]
    assert [e["track_id"] for e in hidden] == ["base-3"]    # the blue one at (60, 230), lifted
    assert 240 <= hidden[0]["frame"] <= 240 + fps + 1       # at its next fit, within the interval
    assert not [e for e in events if e["type"] in ("base_moved", "hidden", "marker_rejected")]
    # the whole table once, on the first frame; afterwards regions only, each frame a small part
    assert searches[0] is None and all(s is not None for s in searches[1:])
    area = [sum((x1 - x0) * (y1 - y0) for x0, y0, x1, y1 in s) for s in searches[1:]]
    # (a base whose place shows no change is not fitted again: mostly the sweep's tiles)
    assert len(searches) > 10 and max(area) <= 300 * 300 / 4 + 2 * 24 * 24       # a tile, two fits
    assert {b.track_id for b in tracker.state.bases if b.seen} == {"base-1", "base-2", "base-4"}


def test_request_full_scan_searches_the_whole_table_again(searches: list[object]) -> None:
    tracker = Tracker(SETUP, ScaledPlane(PX_PER_MM))
    img = draw(MODELS, BASES)
    for n in range(3):
        tracker.process(Frame(n, n / 30.0, img))
    tracker.request_full_scan()
    tracker.process(Frame(3, 0.1, img))
    assert [s is None for s in searches] == [True] + [False] * (len(searches) - 2) + [True]


def test_zero_interval_searches_the_whole_table_every_frame(searches: list[object]) -> None:
    tracker = Tracker(SETUP, ScaledPlane(PX_PER_MM), base_scan_interval_s=0.0)
    img = draw(MODELS, BASES)
    for n in range(4):
        tracker.process(Frame(n, n / 30.0, img))
    assert searches == [None] * 4
    np.testing.assert_equal(len(tracker.state.bases), 3)


def test_setup_for_bigger_tables_keeps_tiles_small() -> None:
    setup = parse_setup({"table": {"width_mm": 1200, "depth_mm": 1200}})
    tracker = Tracker(setup, ScaledPlane(1.5))
    tiles = tracker._tiles
    assert len(tiles) >= 16
    assert all((x1 - x0) * 1.5 <= pipeline.BASE_TILE_PX for x0, _, x1, _ in tiles)


def test_fits_go_on_when_the_source_clock_starts_again(searches: list[object]) -> None:
    """A reopened source may count its timestamps from zero: the bases are still fitted again."""
    tracker = Tracker(SETUP, ScaledPlane(PX_PER_MM), base_sweep_px_per_s=1.0)      # no sweep tiles
    img = draw(MODELS, BASES)
    for n in range(60):
        tracker.process(Frame(n, 100.0 + n / 30.0, img))
    fitted = [len(s) for s in searches[1:] if s]
    for n in range(60, 120):
        tracker.process(Frame(n, (n - 60) / 30.0, img))
    assert sum(len(s) for s in searches[1:] if s) >= 2 * sum(fitted) - 3
    assert sum(fitted) >= 3                                   # each base once per second


def test_full_marker_scan_keeps_followed_markers_and_frees_its_frame(searches: list[object],
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """A full scan that misses a followed marker does not lose it; no base work on its frame."""
    from tracker.detections import Detections
    from tracker.markers import MarkerDetector

    tracker = Tracker(SETUP, ScaledPlane(PX_PER_MM), full_scan_every=5, base_sweep_px_per_s=200_000.0)
    img = draw(MODELS, BASES)
    events = tracker.process(Frame(0, 0.0, img))
    assert sorted(e["marker_id"] for e in events if e["type"] == "appeared") == [17, 18]
    monkeypatch.setattr(MarkerDetector, "detect", lambda self, gray, **kw: Detections.empty())  # scans find nothing
    work_frames = []
    for n in range(1, 40):
        before = len(searches)
        events += tracker.process(Frame(n, n / 30.0, draw(MODELS, BASES, noise_seed=n % 3)))
        if len(searches) > before:
            work_frames.append(n)
    assert not [e for e in events if e["type"] in ("hidden", "base_hidden")]
    assert all(m.seen for m in tracker.state.models)
    full_frames = set(range(5, 40, 5))
    assert work_frames and not full_frames & set(work_frames)


def test_a_base_whose_place_did_not_change_is_not_fitted_again(searches: list[object]) -> None:
    """A still base is fitted again only once its place changed (a hand over it, it was slid) or
    BASE_UNCHANGED_MAX_S went by: the fits of still bases are most of a quiet table's base work."""
    tracker = Tracker(SETUP, ScaledPlane(PX_PER_MM), base_sweep_px_per_s=1.0)      # fits only, no sweep
    fps = 10.0
    frames = [draw(MODELS, BASES, noise_seed=k) for k in range(3)]
    slid = [draw(MODELS, [BASES[0], (156.0, 170.0, 32.0, "red"), BASES[2]], noise_seed=k) for k in range(3)]
    events: list[dict] = []
    n = 0
    for images, seconds in ((frames, 3.0), (slid, 2.0)):
        for k in range(int(seconds * fps)):
            events += tracker.process(Frame(n, n / fps, images[k % 3]))
            n += 1
    fits = [r for s in searches[1:] for r in s]  # type: ignore[union-attr]
    # each base fitted once after the whole-table search (its place kept), then not while still
    # (5 s < BASE_UNCHANGED_MAX_S after the first fits); the slid one fitted again at its turns, seen there
    still_fits = [r for r in fits if abs((r[0] + r[2]) / 2 - 150.0) > 20.0]
    assert len(still_fits) == 2, fits
    assert pipeline.BASE_UNCHANGED_MAX_S >= 5.0
    moved = [r for r in fits if abs((r[0] + r[2]) / 2 - 150.0) <= 20.0]
    assert len(moved) >= 2
    red = [b for b in tracker.state.bases if b.diameter_mm == 32.0]
    assert len(red) == 1 and red[0].seen and red[0].x_mm == pytest.approx(156.0, abs=1.0)
    assert not [e for e in events if e["type"] in ("base_hidden", "hidden")]


def test_a_known_base_whose_rim_spreads_past_its_outline_is_not_fitted_again(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """A sweep tile leaves a known base's piece alone when only a few pixels of it lie beyond the
    known outline (a blurred rim, a figure's paint): no circle is fitted to it. A new base of the
    same colour touching the known one is fitted, and found."""
    import tracker.bases as bases

    fitted: list[float] = []          # how far from the known base each piece fitted lies
    circles_in = bases._circles_in

    def counting(pts, *args, **kwargs):  # type: ignore[no-untyped-def]
        fitted.append(float(np.hypot(*(pts.mean(axis=0) - (150.0, 170.0)))))
        return circles_in(pts, *args, **kwargs)

    monkeypatch.setattr(bases, "_circles_in", counting)
    view = PlanView(ScaledPlane(PX_PER_MM), SETUP, px_per_mm=PX_PER_MM)
    region, known = [(100.0, 120.0, 200.0, 220.0)], [(150.0, 170.0, 32.0)]
    img = draw(MODELS, BASES)
    y = int((170 + 16 + 4) * PX_PER_MM)
    img[y, 299:301] = (43, 57, 192)              # two pixels of the rim's colour 4 mm past it
    assert find_bases_in(img, view, SETUP, region, known_mm=known) == ()
    assert fitted and min(fitted) > 50.0             # (a piece of another colour's farther away)
    touching = draw(MODELS, BASES + [(150.0, 196.0, 20.0, "red")])
    # (the piece holds both rims: the known base's circle is fitted again with the new one)
    (new,) = [b for b in find_bases_in(touching, view, SETUP, region, known_mm=known) if b.diameter_mm == 20.0]
    assert new.side == "red" and math.hypot(new.x_mm - 150, new.y_mm - 196) < 0.5
    assert min(fitted) < 50.0
