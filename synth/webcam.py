"""What a real webcam does to a frame: blur, noise, glare, vignetting, colour and JPEG.

:func:`apply_photo` turns a clean render (:func:`synth.render.render_scene` with its own
blur and noise set to zero) into a webcam frame, in the order a camera applies them:
light (a lamp's glare hot spot and a broad light gradient), the lens (vignetting,
defocus, motion blur along any direction), the sensor (exposure and white balance off,
noise), the camera's processing (sharpening) and JPEG. :func:`random_photo` draws the
conditions of one frame from the ranges of issue 9 (motion blur up to 5 px, defocus
sigma up to about 1 px, JPEG 70-95, exposure and white balance off by up to 15-20 %).

Examples
--------
>>> img = np.full((120, 160, 3), 128, np.uint8)
>>> out = apply_photo(img, PhotoSpec(motion_px=4.0, motion_deg=30.0, defocus_sigma=0.8, noise_sigma=2.0,
...                                  glare=0.5, vignetting=0.3, exposure=1.15, jpeg_quality=80), seed=1)
>>> out.shape, out.dtype.name
((120, 160, 3), 'uint8')
>>> bool(out[60, 80].mean() > out[0, 0].mean())       # the centre: glare, and no vignetting
True
>>> photo = random_photo(np.random.default_rng(3))
>>> 70 <= photo.jpeg_quality <= 95 and 0.0 <= photo.motion_px <= 5.0
True
"""

from __future__ import annotations

import functools
import math
from dataclasses import asdict, dataclass
from typing import Any

import cv2
import numpy as np


@dataclass(frozen=True)
class PhotoSpec:
    """The conditions of one webcam frame.

    Attributes
    ----------
    motion_px, motion_deg : float
        Length (px) and direction (deg, image x toward y) of a straight motion blur.
    defocus_sigma : float
        Gaussian defocus, px.
    noise_sigma : float
        Sensor noise, grey levels (added after exposure; a little more in the dark).
    glare : float
        Peak brightening of a lamp's hot spot (0.6 = +60 % of the way to white).
    glare_xy : (float, float)
        Its centre as fractions of the image width and height.
    glare_radius : float
        Its sigma as a fraction of the image's larger side.
    gradient, gradient_deg : float
        A broad light gradient across the frame: +-``gradient`` brightness along ``gradient_deg``.
    vignetting : float
        Brightness lost in the image corners (0.3 = 30 % darker).
    exposure : float
        Overall gain (1.2 = 20 % over-exposed).
    white_balance : (float, float, float)
        Gains on B, G, R.
    sharpen : float
        Unsharp-mask amount of the camera's processing.
    jpeg_quality : int
        JPEG quality of the saved frame.
    """

    motion_px: float = 0.0
    motion_deg: float = 0.0
    defocus_sigma: float = 0.0
    noise_sigma: float = 2.0
    glare: float = 0.0
    glare_xy: tuple[float, float] = (0.5, 0.5)
    glare_radius: float = 0.08
    gradient: float = 0.0
    gradient_deg: float = 0.0
    vignetting: float = 0.0
    exposure: float = 1.0
    white_balance: tuple[float, float, float] = (1.0, 1.0, 1.0)
    sharpen: float = 0.0
    jpeg_quality: int = 90

    def __post_init__(self) -> None:
        if not 1 <= self.jpeg_quality <= 100:
            raise ValueError(f"PhotoSpec.jpeg_quality must be in 1..100, got {self.jpeg_quality}")
        if min(self.motion_px, self.defocus_sigma, self.noise_sigma, self.glare, self.vignetting) < 0:
            raise ValueError("PhotoSpec: blur, noise, glare and vignetting must be >= 0")
        if self.exposure <= 0 or min(self.white_balance) <= 0:
            raise ValueError("PhotoSpec: exposure and white balance gains must be positive")

    def to_dict(self) -> dict[str, Any]:
        """JSON form (for the truth file)."""
        return {k: (list(v) if isinstance(v, tuple) else v) for k, v in asdict(self).items()}


def motion_kernel(length_px: float, angle_deg: float) -> np.ndarray:
    """A normalised straight-line blur kernel ``length_px`` long along ``angle_deg``.

    >>> k = motion_kernel(4.0, 0.0)
    >>> round(float(k.sum()), 6), k.shape[0] == k.shape[1]
    (1.0, True)
    """
    size = int(math.ceil(length_px)) | 1
    size = max(size + 2, 3)
    big = 8
    canvas = np.zeros((size * big, size * big), np.float32)
    c = (size * big - 1) / 2.0
    dx, dy = math.cos(math.radians(angle_deg)), math.sin(math.radians(angle_deg))
    half = length_px * big / 2.0
    p0 = (int(round(c - dx * half)), int(round(c - dy * half)))
    p1 = (int(round(c + dx * half)), int(round(c + dy * half)))
    cv2.line(canvas, p0, p1, 1.0, thickness=big, lineType=cv2.LINE_AA)
    k = cv2.resize(canvas, (size, size), interpolation=cv2.INTER_AREA)
    return k / float(k.sum())


def apply_photo(image: np.ndarray, photo: PhotoSpec, seed: int = 0) -> np.ndarray:
    """Return ``image`` (BGR uint8, a clean render) as the webcam described by ``photo`` saves it."""
    h, w = image.shape[:2]
    out = image.astype(np.float32) / 255.0
    light, spot = _light_maps(h, w, photo.gradient, photo.gradient_deg, photo.vignetting, photo.glare,
                              photo.glare_xy, photo.glare_radius)
    out *= light[..., None]
    if spot is not None:
        out = out + (1.0 - out) * spot[..., None]        # a washed-out hot spot
    if photo.defocus_sigma > 0:
        out = cv2.GaussianBlur(out, (0, 0), photo.defocus_sigma)
    if photo.motion_px > 0.5:
        out = cv2.filter2D(out, -1, motion_kernel(photo.motion_px, photo.motion_deg), borderType=cv2.BORDER_REFLECT)
    out *= photo.exposure * np.asarray(photo.white_balance, np.float32)[None, None, :]
    out = np.clip(out, 0.0, 1.0) * 255.0
    if photo.noise_sigma > 0:
        noise = np.empty(out.shape, np.float32)
        cv2.setRNGSeed(int(seed) & 0x7FFFFFFF)
        cv2.randn(noise, 0.0, 1.0)
        # shot noise: a little more in the dark and mid-tones than a flat sigma
        out += noise * photo.noise_sigma * (0.7 + 0.6 * np.sqrt(np.clip(out, 0, 255) / 255.0))
    if photo.sharpen > 0:
        soft = cv2.GaussianBlur(out, (0, 0), 1.0)
        out = out + photo.sharpen * (out - soft)
    result = np.clip(np.rint(out), 0, 255).astype(np.uint8)
    return jpeg(result, photo.jpeg_quality)


@functools.lru_cache(maxsize=2)
def _light_maps(h: int, w: int, gradient: float, gradient_deg: float, vignetting: float, glare: float,
                glare_xy: tuple[float, float], glare_radius: float) -> tuple[np.ndarray, np.ndarray | None]:
    """The light over an ``h`` x ``w`` frame (gradient and vignetting, a gain per pixel) and the
    glare's hot spot (None without glare). The frames of one video share them: they are made
    once (a 4K frame's took a third of :func:`apply_photo`)."""
    ys, xs = np.mgrid[0:h, 0:w].astype(np.float32)
    scale = float(max(w, h))
    light = np.ones((h, w), np.float32)
    if gradient:
        a = math.radians(gradient_deg)
        t = ((xs - w / 2) * math.cos(a) + (ys - h / 2) * math.sin(a)) / (scale / 2)
        light *= 1.0 + gradient * t
    if vignetting:
        r2 = ((xs - w / 2) ** 2 + (ys - h / 2) ** 2) / ((w / 2) ** 2 + (h / 2) ** 2)
        light *= 1.0 - vignetting * r2
    spot = None
    if glare:
        gx, gy = glare_xy[0] * w, glare_xy[1] * h
        s = glare_radius * scale
        spot = glare * np.exp(-((xs - gx) ** 2 + (ys - gy) ** 2) / (2 * s * s))
    light.flags.writeable = False
    if spot is not None:
        spot.flags.writeable = False
    return light, spot


def jpeg(image: np.ndarray, quality: int) -> np.ndarray:
    """``image`` after a JPEG round trip at ``quality``."""
    ok, buf = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, int(quality)])
    if not ok:
        raise ValueError("JPEG encoding failed")
    return cv2.imdecode(buf, cv2.IMREAD_COLOR)


def random_photo(rng: np.random.Generator, *, level: str = "any") -> PhotoSpec:
    """Draw one frame's conditions (issue 9's ranges); ``level`` 'easy', 'medium', 'hard' or 'any'."""
    if level == "any":
        level = str(rng.choice(["easy", "medium", "hard"]))
    k = {"easy": 0.45, "medium": 0.75, "hard": 1.0}[level]
    moving = rng.random() < 0.35 * k + 0.1
    return PhotoSpec(
        motion_px=float(rng.uniform(1.0, min(5.0, 5.0 * k + 0.5))) if moving else 0.0,
        motion_deg=float(rng.uniform(0, 180)),
        defocus_sigma=float(rng.uniform(0.25, 0.35 + 0.7 * k)),
        noise_sigma=float(rng.uniform(1.0, 1.5 + 4.0 * k)),
        glare=float(rng.uniform(0.05, 0.2 + 0.7 * k)),
        glare_xy=(float(rng.uniform(0.15, 0.85)), float(rng.uniform(0.15, 0.85))),
        glare_radius=float(rng.uniform(0.03, 0.06)),
        gradient=float(rng.uniform(0.0, 0.05 + 0.15 * k)),
        gradient_deg=float(rng.uniform(0, 360)),
        vignetting=float(rng.uniform(0.05, 0.1 + 0.35 * k)),
        exposure=float(1.0 + rng.choice([-1, 1]) * rng.uniform(0.0, 0.08 + 0.12 * k)),
        white_balance=_gains(rng.uniform(1.0 - 0.05 - 0.1 * k, 1.0 + 0.05 + 0.1 * k, 3)),
        sharpen=float(rng.choice([0.0, rng.uniform(0.3, 0.9)])),
        jpeg_quality=int(rng.integers(95 - int(25 * k), 96)),
    )


def _gains(values: np.ndarray) -> tuple[float, float, float]:
    return (float(values[0]), float(values[1]), float(values[2]))


def sequence_photos(rng: np.random.Generator, frames: int, busy: frozenset[int] | set[int] = frozenset(), *,
                    shake: float = 0.15) -> list[PhotoSpec]:
    """One webcam's conditions over ``frames`` frames of a video: what a real sequence does.

    The lens, glare, vignetting and white balance stay those of one :func:`random_photo`
    ('hard' level); JPEG quality is 70-85; the exposure drifts (auto exposure following a
    hand or a cloud) by up to 15 % and back over the sequence; frames in ``busy`` (a hand
    lifting or putting down a model) get a motion blur of 2-5 px in a random direction, and
    any other frame one with probability ``shake`` (the table bumped, the camera shaken).

    >>> ps = sequence_photos(np.random.default_rng(1), 10, {3})
    >>> len(ps), ps[3].motion_px >= 2.0, all(70 <= p.jpeg_quality <= 85 for p in ps)
    (10, True, True)
    """
    base = random_photo(rng, level="hard")
    quality = int(rng.integers(70, 86))
    drift = float(rng.uniform(0.08, 0.15)) * float(rng.choice([-1.0, 1.0]))
    phase = float(rng.uniform(0.0, 2.0 * math.pi))
    out = []
    for i in range(frames):
        moving = i in busy or rng.random() < shake
        exposure = base.exposure * (1.0 + drift * 0.5 * (1.0 - math.cos(2.0 * math.pi * i / max(frames, 1) + phase)))
        out.append(PhotoSpec(**{**asdict(base), "motion_px": float(rng.uniform(2.0, 5.0)) if moving else 0.0,
                                "motion_deg": float(rng.uniform(0.0, 180.0)), "exposure": exposure,
                                "jpeg_quality": quality}))
    return out
