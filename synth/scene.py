"""What a synthetic table image shows: a frozen, validated scene description.

Everything is in table millimetres (CONVENTIONS.md). A :class:`SceneSpec` is the
single input of :func:`synth.render.render_scene`; the same spec and seed always give
the same image.

Examples
--------
>>> from synth.camera import look_at_camera
>>> spec = SceneSpec(setup=make_setup(600, 600), camera=look_at_camera(600, 600),
...                  models=(ModelSpec(17, 300, 300, base_mm=25, facing_deg=90),))
>>> spec.table_w_mm, len(spec.models)
(600.0, 1)
>>> ModelSpec(2, 300, 300)
Traceback (most recent call last):
...
ValueError: ModelSpec.marker_id must be a base marker id (>= 4), got 2
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from types import MappingProxyType

from calibration.setup import (
    BaseSettings,
    MarkerOverride,
    MarkerSettings,
    Setup,
    TableSize,
    parse_setup,
    setup_to_dict,
)
from synth.camera import CameraModel

Colour = tuple[int, int, int]  # BGR, 0-255


def hex_to_bgr(colour: str) -> Colour:
    """Return the BGR tuple of ``'#rrggbb'``.

    >>> hex_to_bgr('#c0392b')
    (43, 57, 192)
    """
    if len(colour) != 7 or not colour.startswith("#"):
        raise ValueError(f"colour must look like '#c0392b', got {colour!r}")
    r, g, b = (int(colour[i:i + 2], 16) for i in (1, 3, 5))
    return (b, g, r)


#: Base tops: flat plastic of ``top_colour``; flock (a grainy texture around
#: ``top_colour``); a white disc with the marker printed straight on it (no paper margin).
BASE_TOPS = ("plastic", "flock", "whitedisc")


@dataclass(frozen=True)
class ModelSpec:
    """A model on a round base with a printed marker on top.

    The marker centre sits ``offset_mm`` from the base centre along ``facing_deg``; the
    marker's top edge points along the facing. A figure (a capsule of
    ``figure_radius_mm``, up to ``figure_height_mm`` above the table) stands at the back
    of the base (its axis ``figure_back_mm`` behind the centre; default just inside the
    rim), and may hide part of the marker; ``figure_height_mm = 0`` means a flat token.
    ``top`` is the base's top surface (:data:`BASE_TOPS`).
    """

    marker_id: int
    x_mm: float
    y_mm: float
    base_mm: float = 25.0
    facing_deg: float = 0.0
    offset_mm: float = 0.0
    side: str = "red"
    figure_height_mm: float = 30.0
    figure_colour: Colour = (60, 70, 90)
    figure_radius_mm: float | None = None
    top: str = "plastic"
    top_colour: Colour = (55, 60, 58)
    figure_back_mm: float | None = None

    def __post_init__(self) -> None:
        if self.top not in BASE_TOPS:
            raise ValueError(f"ModelSpec.top must be one of {', '.join(BASE_TOPS)}, got {self.top!r}")
        if self.marker_id < 4:
            raise ValueError(f"ModelSpec.marker_id must be a base marker id (>= 4), got {self.marker_id}")
        if self.base_mm <= 0:
            raise ValueError(f"ModelSpec.base_mm must be positive, got {self.base_mm}")
        if self.figure_height_mm < 0:
            raise ValueError(f"ModelSpec.figure_height_mm must be >= 0, got {self.figure_height_mm}")
        object.__setattr__(self, "facing_deg", float(self.facing_deg) % 360.0)

    @property
    def facing_unit(self) -> tuple[float, float]:
        """Unit vector of the facing in the table frame."""
        a = math.radians(self.facing_deg)
        return (math.cos(a), math.sin(a))

    @property
    def marker_center_mm(self) -> tuple[float, float]:
        """Where the marker's centre lies, table mm."""
        fx, fy = self.facing_unit
        return (self.x_mm + self.offset_mm * fx, self.y_mm + self.offset_mm * fy)


@dataclass(frozen=True)
class BareBaseSpec:
    """A round base without marker; its rim colour tells the side. A figure may stand on it."""

    x_mm: float
    y_mm: float
    diameter_mm: float = 25.0
    side: str = "blue"
    figure_height_mm: float = 30.0
    figure_colour: Colour = (70, 80, 70)
    facing_deg: float = 0.0
    top: str = "plastic"
    top_colour: Colour = (55, 60, 58)

    def __post_init__(self) -> None:
        if self.top not in BASE_TOPS:
            raise ValueError(f"BareBaseSpec.top must be one of {', '.join(BASE_TOPS)}, got {self.top!r}")
        if self.diameter_mm <= 0:
            raise ValueError(f"BareBaseSpec.diameter_mm must be positive, got {self.diameter_mm}")


@dataclass(frozen=True)
class TerrainBlock:
    """A terrain piece rendered as a polygon extruded up to ``height_mm`` (0 = flat area)."""

    terrain_id: str
    kind: str
    points_mm: tuple[tuple[float, float], ...]
    height_mm: float = 50.0
    colour: Colour = (90, 110, 120)

    def __post_init__(self) -> None:
        pts = tuple((float(x), float(y)) for x, y in self.points_mm)
        if len(pts) < 3:
            raise ValueError(f"TerrainBlock {self.terrain_id!r} needs at least 3 points, got {len(pts)}")
        if self.height_mm < 0:
            raise ValueError(f"TerrainBlock {self.terrain_id!r}: height_mm must be >= 0, got {self.height_mm}")
        object.__setattr__(self, "points_mm", pts)


@dataclass(frozen=True)
class HandSpec:
    """A hand held over the table: palm centred at (x, y), ``height_mm`` up, arm from ``from_deg``.

    The arm runs from the palm toward the direction ``from_deg`` (table frame angle)
    and slightly upward, out of the picture.
    """

    x_mm: float
    y_mm: float
    height_mm: float = 150.0
    from_deg: float = 90.0
    palm_mm: float = 90.0
    colour: Colour = (120, 150, 205)


@dataclass(frozen=True)
class SceneSpec:
    """A complete synthetic scene: setup, camera, contents and image degradations.

    ``noise_sigma`` (grey levels) and ``blur_sigma`` (pixels) act on the final image;
    ``jpeg_quality`` is what :func:`synth.samples.write_sample` encodes with;
    ``supersample`` is the anti-aliasing factor (None: 3 up to 1080p, 2 above).
    ``seed`` fixes the mat's texture, ``noise_seed`` (default ``seed``) the sensor noise,
    so the frames of a sequence share a table but not their noise. ``border_colour`` is
    the table's frame around the play area (None: wood), ``mat_patches`` the strength
    (0-1) of large green patches on the mat (painted grass on a desert mat).
    """

    setup: Setup
    camera: CameraModel
    models: tuple[ModelSpec, ...] = ()
    bases: tuple[BareBaseSpec, ...] = ()
    terrain: tuple[TerrainBlock, ...] = ()
    hands: tuple[HandSpec, ...] = ()
    noise_sigma: float = 2.0
    blur_sigma: float = 0.5
    jpeg_quality: int = 90
    seed: int = 0
    noise_seed: int | None = None
    supersample: int | None = None
    notes: str = ""
    corner_ids: tuple[int, ...] = (0, 1, 2, 3)
    mat_colour: Colour = (70, 105, 95)
    border_colour: Colour | None = None
    mat_patches: float = 0.0

    def __post_init__(self) -> None:
        object.__setattr__(self, "models", tuple(self.models))
        object.__setattr__(self, "bases", tuple(self.bases))
        object.__setattr__(self, "terrain", tuple(self.terrain))
        object.__setattr__(self, "hands", tuple(self.hands))
        ids = [m.marker_id for m in self.models]
        if len(set(ids)) != len(ids):
            raise ValueError(f"SceneSpec: marker ids must be unique, got {sorted(ids)}")
        for m in self.models:
            want = self.setup.markers.for_marker(m.marker_id)
            if abs(want.offset_mm - m.offset_mm) > 1e-9:
                raise ValueError(
                    f"SceneSpec: model {m.marker_id} has offset_mm {m.offset_mm} but the setup says "
                    f"{want.offset_mm}; build the setup with make_setup(..., models=...)")
            if m.side not in self.setup.bases.sides:
                raise ValueError(f"SceneSpec: model {m.marker_id} side {m.side!r} is not in the setup's "
                                 f"sides {sorted(self.setup.bases.sides)}")
        for b in self.bases:
            if b.side not in self.setup.bases.sides:
                raise ValueError(f"SceneSpec: bare base side {b.side!r} is not in the setup's sides "
                                 f"{sorted(self.setup.bases.sides)}")
        if not 1 <= self.jpeg_quality <= 100:
            raise ValueError(f"SceneSpec.jpeg_quality must be in 1..100, got {self.jpeg_quality}")
        if self.noise_sigma < 0 or self.blur_sigma < 0:
            raise ValueError("SceneSpec: noise_sigma and blur_sigma must be >= 0")
        if self.supersample is not None and not 1 <= self.supersample <= 4:
            raise ValueError(f"SceneSpec.supersample must be 1..4 or None, got {self.supersample}")

    @property
    def table_w_mm(self) -> float:
        return float(self.setup.table.width_mm)

    @property
    def table_d_mm(self) -> float:
        return float(self.setup.table.depth_mm)

    @property
    def samples_per_pixel(self) -> int:
        """The supersampling factor actually used."""
        if self.supersample is not None:
            return self.supersample
        w, h = self.camera.image_size
        return 3 if w * h <= 1920 * 1080 else 2


def make_setup(
    width_mm: float,
    depth_mm: float,
    *,
    models: Sequence[ModelSpec] = (),
    base_height_mm: float = 3.0,
    base_size_mm: float = 12.0,
    corner_size_mm: float = 60.0,
    dictionary: str = "DICT_4X4_250",
    sides: Mapping[str, str] | None = None,
) -> Setup:
    """Build a valid :class:`Setup` whose ``per_marker`` records each model's offset and base.

    The result round-trips through ``setup_to_dict`` / ``parse_setup``.

    >>> s = make_setup(600, 600, models=[ModelSpec(9, 1, 1, base_mm=32, offset_mm=7)])
    >>> s.markers.for_marker(9)
    MarkerOverride(offset_mm=7.0, base_mm=32.0, size_mm=None)
    """
    per_marker = {m.marker_id: MarkerOverride(offset_mm=float(m.offset_mm), base_mm=float(m.base_mm))
                  for m in models}
    markers = MarkerSettings(dictionary=dictionary, corner_size_mm=float(corner_size_mm),
                             base_size_mm=float(base_size_mm), base_height_mm=float(base_height_mm),
                             base_offset_mm=0.0, per_marker=_frozen(per_marker))
    bases = BaseSettings() if sides is None else BaseSettings(sides=_frozen(dict(sides)))
    setup = Setup(TableSize(float(width_mm), float(depth_mm)), markers, None, bases)
    return parse_setup(setup_to_dict(setup), source="synthetic setup")


def _frozen(d: dict[Any, Any]) -> Mapping[Any, Any]:
    return MappingProxyType(d)


FIGURE_COLOURS: tuple[Colour, ...] = (
    (60, 70, 90), (40, 90, 140), (110, 110, 110), (30, 60, 60), (90, 60, 40), (70, 120, 160),
)
"""A few miniature paint schemes (BGR) the sample scenes cycle through."""

