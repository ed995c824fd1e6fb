"""Marker mode: base centres and facings against the sample images' ground truth, rejections."""

from __future__ import annotations

import math
from contextlib import nullcontext

import numpy as np
import pytest

from calibration.setup import parse_setup
from tests.tracker.support import located, sample
from tracker.detections import Detections
from tracker.markers import (
    MARKER_SIZE_TOLERANCE,
    ScaledPlane,
    facing_from_corners,
    locate_models,
    square_corners_mm,
)

MARKER_SAMPLES = ("hf600_1080p_top", "hf600_1080p_tilt30")
CENTRE_TOLERANCE_MM = 1.0
FACING_TOLERANCE_DEG = 2.0


def _angle(a: float, b: float) -> float:
    return abs((a - b + 180.0) % 360.0 - 180.0)


@pytest.mark.parametrize("name", MARKER_SAMPLES)
def test_base_centres_and_facings_match_truth(name: str) -> None:
    found, _, _ = located(name)
    _, truth = sample(name)
    want = {m["marker_id"]: m for m in truth["models"]}
    assert found.models, "no model found"
    for m in found.models:
        assert m.marker_id in want, f"false id {m.marker_id}"
        t = want[m.marker_id]
        err = math.hypot(m.x_mm - t["x_mm"], m.y_mm - t["y_mm"])
        assert err <= CENTRE_TOLERANCE_MM, f"marker {m.marker_id}: base centre off by {err:.2f} mm"
        assert _angle(m.facing_deg, t["facing_deg"]) <= FACING_TOLERANCE_DEG, m.marker_id


@pytest.mark.parametrize("name", MARKER_SAMPLES)
def test_visible_markers_are_found(name: str) -> None:
    found, _, _ = located(name)
    _, truth = sample(name)
    visible = {m["marker_id"] for m in truth["models"] if m["marker_visible_fraction"] >= 0.9}
    got = {m.marker_id for m in found.models}
    assert len(visible & got) >= 0.9 * len(visible), sorted(visible - got)
    assert not found.rejected


def test_height_and_offset_are_corrected() -> None:
    """The same marker read without height and offset corrections lands off the truth."""
    found, cal, setup = located("hf600_1080p_tilt30")
    _, truth = sample("hf600_1080p_tilt30")
    want = {m["marker_id"]: m for m in truth["models"]}
    worse = 0
    for m in found.models:
        t = want[m.marker_id]
        naive = cal.to_table_mm(np.array([m.center_px]), height_mm=0.0)[0]
        if math.hypot(naive[0] - t["x_mm"], naive[1] - t["y_mm"]) > 2.0:
            worse += 1
    assert worse >= len(found.models) // 2


# ----------------------------------------------------------------------------- conventions


@pytest.mark.parametrize("facing", [0.0, 30.0, 90.0, 181.5, 270.0, 359.0])
def test_facing_round_trip(facing: float) -> None:
    corners = square_corners_mm((100.0, 50.0), 12.0, facing_deg=facing)
    got = float(facing_from_corners(corners[None])[0])
    assert _angle(got, facing) < 1e-9


def test_corner_marker_layout_faces_the_y0_edge() -> None:
    """CONVENTIONS: a corner marker's top edge faces y = 0, i.e. it 'faces' 270 deg."""
    c = np.array([[[0, 0], [60, 0], [60, 60], [0, 60]]], float)
    assert facing_from_corners(c)[0] == pytest.approx(270.0)


def test_base_centre_is_behind_the_marker_along_the_facing() -> None:
    setup = parse_setup({"table": {"width_mm": 600, "depth_mm": 600},
                         "markers": {"per_marker": {"20": {"offset_mm": 7.5}}}})
    corners = square_corners_mm((200.0, 300.0), 12.0, facing_deg=90.0) * 2.0
    fixes = locate_models(Detections.from_corners(corners[None], np.array([20])), ScaledPlane(2.0), setup)
    m = fixes.models[0]
    assert (m.x_mm, m.y_mm, m.facing_deg) == pytest.approx((200.0, 292.5, 90.0))


# ------------------------------------------------------------------------------- rejections

SETUP = parse_setup({"table": {"width_mm": 600, "depth_mm": 600},
                     "markers": {"per_marker": {"30": {"offset_mm": 0.0, "size_mm": 16}, "17": {}, "18": {}}}})
PX_PER_MM = 2.0


def _det(*markers: tuple[int, float, float, float]) -> Detections:
    corners = [square_corners_mm((x, y), side, facing_deg=0.0) * PX_PER_MM for _, x, y, side in markers]
    return Detections.from_corners(np.array(corners), np.array([m[0] for m in markers]))


@pytest.mark.parametrize(
    ("markers", "kept", "rejected", "reason"),
    [
        pytest.param([(17, 100, 100, 12)], [17], [], None, id="plain"),
        pytest.param([(17, 100, 100, 12 * (1 + MARKER_SIZE_TOLERANCE * 0.9))], [17], [], None, id="size-within"),
        pytest.param([(17, 100, 100, 16)], [], [17], "measures 16.0 mm", id="too-big"),
        pytest.param([(17, 100, 100, 8)], [], [17], "measures 8.0 mm", id="too-small"),
        pytest.param([(30, 100, 100, 16)], [30], [], None, id="per-marker-size"),
        pytest.param([(30, 100, 100, 12)], [], [30], "setup says 16 mm", id="per-marker-wrong"),
        pytest.param([(17, -5, 100, 12)], [], [17], "outside the 600 x 600 mm table", id="outside-x"),
        pytest.param([(17, 100, 640, 12)], [], [17], "outside", id="outside-y"),
        pytest.param([(17, 100, 100, 12), (17, 300, 300, 12), (18, 50, 150, 12)], [18], [17, 17],
                     "seen 2 times", id="duplicate"),
        pytest.param([(2, 30, 30, 60)], [], [], None, id="corner-marker-ignored"),
        pytest.param([(17, 570, 40, 12)], [], [17], "lies on a corner marker", id="on-a-corner-marker"),
        # the setup lists its markers: any other id is an unknown marker, never a model (issue 9)
        pytest.param([(19, 100, 100, 12), (17, 300, 300, 12)], [17], [19], "unknown marker", id="not-in-play"),
    ],
)
def test_rejections(markers: list, kept: list[int], rejected: list[int], reason: str | None) -> None:
    fixes = locate_models(_det(*markers), ScaledPlane(PX_PER_MM), SETUP)
    assert [m.marker_id for m in fixes.models] == kept
    assert [r.marker_id for r in fixes.rejected] == rejected
    for r in fixes.rejected:
        assert reason in r.reason


def test_empty_detections() -> None:
    fixes = locate_models(Detections.empty(), ScaledPlane(PX_PER_MM), SETUP)
    assert fixes.models == () and fixes.rejected == ()


@pytest.mark.parametrize(
    ("shape", "expectation"),
    [((3,), pytest.raises(ValueError, match=r"centers_px must have shape \(N, 2\), got \(3,\)")),
     ((1, 2), nullcontext())],
)
def test_detections_check_shapes(shape: tuple[int, ...], expectation) -> None:  # type: ignore[no-untyped-def]
    with expectation:
        Detections(np.zeros(shape), np.zeros(1, int), np.ones(1), np.zeros((1, 4, 2)))


def test_detections_are_read_only() -> None:
    d = _det((17, 100, 100, 12))
    with pytest.raises(ValueError):
        d.centers_px[0, 0] = 1.0
