"""Webcam degradations and realistic scenes (issue 9): ranges, repeatability, the readable ceiling."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from synth.realistic import CONFIGS, readable_from_true_outline, realistic_scene
from synth.webcam import PhotoSpec, apply_photo, motion_kernel, random_photo


def test_random_photos_stay_in_the_issue_ranges() -> None:
    rng = np.random.default_rng(0)
    photos = [random_photo(rng) for _ in range(200)]
    assert all(70 <= p.jpeg_quality <= 95 for p in photos)
    assert all(0.0 <= p.motion_px <= 5.0 for p in photos) and any(p.motion_px > 3.0 for p in photos)
    assert all(0.25 <= p.defocus_sigma <= 1.05 for p in photos)
    assert all(0.8 <= p.exposure <= 1.2 for p in photos) and any(abs(p.exposure - 1) > 0.15 for p in photos)
    assert all(0.8 <= g <= 1.2 for p in photos for g in p.white_balance)


def test_apply_photo_is_repeatable_and_blurs_along_the_motion() -> None:
    img = np.full((80, 80, 3), 40, np.uint8)
    img[:, 40:] = 220                                      # a vertical edge
    along = PhotoSpec(motion_px=5.0, motion_deg=90.0, noise_sigma=0.0, jpeg_quality=95)
    across = PhotoSpec(motion_px=5.0, motion_deg=0.0, noise_sigma=0.0, jpeg_quality=95)
    a, b = apply_photo(img, along), apply_photo(img, across)
    ramp = lambda im: int(np.count_nonzero((im[40, :, 1] > 60) & (im[40, :, 1] < 200)))  # noqa: E731
    assert ramp(b) > ramp(a) + 2                           # motion across the edge widens it
    noisy = PhotoSpec(noise_sigma=3.0)
    assert np.array_equal(apply_photo(img, noisy, seed=3), apply_photo(img, noisy, seed=3))
    assert not np.array_equal(apply_photo(img, noisy, seed=3), apply_photo(img, noisy, seed=4))
    assert motion_kernel(3.0, 45.0).sum() == pytest.approx(1.0)


def test_realistic_scenes_cover_the_mix() -> None:
    specs = [realistic_scene(s, res) for res in CONFIGS for s in range(6)]
    tops = {m.top for spec, _, _ in specs for m in spec.models}
    assert tops == {"plastic", "flock", "whitedisc"}
    assert max(meta["tilt_deg"] for _, _, meta in specs) > 15
    assert min(meta["k1"] for _, _, meta in specs) < -0.15
    assert {spec.camera.image_size for spec, _, _ in specs} == {(1920, 1080), (3840, 2160)}
    again = realistic_scene(3, "4K")
    assert again[0].models == specs[9][0].models and again[1] == specs[9][1]


def test_readable_ceiling() -> None:
    d = cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_250)
    img = np.full((60, 60), 200, np.uint8)
    img[20:38, 20:38] = cv2.aruco.generateImageMarker(d, 42, 18)
    outline = np.array([[19.5, 19.5], [37.5, 19.5], [37.5, 37.5], [19.5, 37.5]])
    assert readable_from_true_outline(img, outline, 42)
    assert not readable_from_true_outline(img, outline, 43)                  # another id's code
    assert not readable_from_true_outline(img, np.roll(outline, 1, axis=0), 42)   # turned
    smeared = cv2.blur(img, (9, 9))
    assert not readable_from_true_outline(smeared, outline, 42)
