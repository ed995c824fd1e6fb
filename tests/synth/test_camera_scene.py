"""Camera framing, lens round trips and scene validation."""

from __future__ import annotations

from contextlib import nullcontext

import cv2

import numpy as np
import pytest

from calibration.setup import parse_setup, setup_to_dict
from synth.camera import look_at_camera
from synth.scene import ModelSpec, SceneSpec, make_setup

WEBCAM = (-0.28, 0.09, 0.0005, -0.0004, 0.0)


@pytest.mark.parametrize(("table", "tilt", "yaw", "dist"), [
    ((600, 600), 0, 0, (0.0,) * 5),
    ((600, 600), 30, 0, WEBCAM),
    ((1200, 1800), 10, 90, (-0.04, 0.01, 0, 0, 0)),
    ((1219.2, 1219.2), 20, -15, (0.05, 0.0, 0, 0, 0)),  # pincushion
])
def test_look_at_camera_frames_the_whole_table(table: tuple[float, float], tilt: float, yaw: float,
                                               dist: tuple[float, ...]) -> None:
    w, d = table
    cam = look_at_camera(w, d, image_size=(1920, 1080), height_mm=1000, tilt_deg=tilt, yaw_deg=yaw,
                         distortion=dist, fov_margin=1.1)
    s = np.linspace(0, 1, 21)
    edge = np.concatenate([np.column_stack([s * w, 0 * s]), np.column_stack([s * w, 0 * s + d]),
                           np.column_stack([0 * s, s * d]), np.column_stack([0 * s + w, s * d])])
    px = cam.project_table(edge)
    assert px[:, 0].min() >= 960 - 960 / 1.1 - 1e-3 and px[:, 0].max() <= 960 + 960 / 1.1 + 1e-3
    assert px[:, 1].min() >= 540 - 540 / 1.1 - 1e-3 and px[:, 1].max() <= 540 + 540 / 1.1 + 1e-3
    # As large as it can be: some edge point touches the margin.
    reach = max(np.abs(px[:, 0] - 960).max() / (960 / 1.1), np.abs(px[:, 1] - 540).max() / (540 / 1.1))
    assert reach > 0.999
    height = -cam.centre_mm[2]
    assert height == pytest.approx(1000)


def test_tilted_camera_stands_back_toward_the_players_side() -> None:
    cam = look_at_camera(600, 600, height_mm=1000, tilt_deg=30)
    x, y, z = cam.centre_mm
    assert x == pytest.approx(300) and y == pytest.approx(300 + 1000 * np.tan(np.radians(30)))
    near, far = cam.project_table([[300, 590], [300, 10]])
    assert near[1] > far[1]  # the y = depth edge is at the bottom of the image


def test_normalized_rays_invert_projection_under_strong_distortion() -> None:
    cam = look_at_camera(600, 600, distortion=WEBCAM)
    pts = np.random.default_rng(1).uniform([0, 0], [1920, 1080], (2000, 2))
    rays = cam.normalized_rays(pts)
    xyz = np.column_stack([rays, np.ones(len(rays))])

    px, _ = cv2.projectPoints(xyz, np.zeros(3), np.zeros(3), cam.matrix, cam.distortion)
    assert np.abs(px.reshape(-1, 2) - pts).max() < 1e-8


@pytest.mark.parametrize(("kwargs", "expect"), [
    ({}, nullcontext()),
    ({"offset_mm": 3.0}, pytest.raises(ValueError, match="offset_mm 3.0 but the setup says 0.0")),
    ({"side": "green"}, pytest.raises(ValueError, match="side 'green' is not in the setup's sides")),
])
def test_scene_checks_models_against_the_setup(kwargs: dict, expect) -> None:
    setup = make_setup(600, 600, models=[ModelSpec(9, 100, 100)])
    with expect:
        SceneSpec(setup, look_at_camera(600, 600), models=(ModelSpec(9, 100, 100, **kwargs),))


def test_scene_rejects_duplicate_marker_ids() -> None:
    models = [ModelSpec(9, 100, 100), ModelSpec(9, 200, 200)]
    with pytest.raises(ValueError, match="unique"):
        SceneSpec(make_setup(600, 600, models=models[:1]), look_at_camera(600, 600), models=tuple(models))


def test_make_setup_round_trips_and_records_offsets() -> None:
    models = [ModelSpec(9, 1, 1, base_mm=32, offset_mm=7), ModelSpec(12, 1, 1, base_mm=25)]
    setup = make_setup(900, 900, models=models, base_size_mm=16)
    assert parse_setup(setup_to_dict(setup)) == setup
    assert setup.markers.for_marker(9).offset_mm == 7.0 and setup.markers.size_for(12) == 16.0


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"tilt_deg": 85}, "tilt_deg"), ({"height_mm": 0}, "height_mm"), ({"fov_margin": 0.9}, "fov_margin"),
    ({"distortion": (0.1, 0.0)}, "5 coefficients"),
])
def test_look_at_camera_rejects_bad_arguments(kwargs: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        look_at_camera(600, 600, **kwargs)
