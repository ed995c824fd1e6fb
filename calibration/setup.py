"""The setup file (docs/setup-file.md): table size, markers, camera, bare-base sides.

Loaded into a frozen, validated :class:`Setup`. Unknown keys are errors naming the
file and field. Standard library only.

Examples
--------
>>> s = parse_setup({"table": {"width_mm": 600, "depth_mm": 600}})
>>> s.markers.base_size_mm, s.markers.base_height_mm
(12.0, 3.0)
>>> s.markers.for_marker(17).offset_mm
0.0
>>> parse_setup({"table": {"width_mm": 600}}, source="my.json")
Traceback (most recent call last):
...
calibration.errors.SetupFileError: my.json: table.depth_mm is missing (a number is required)
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any, Mapping

from calibration.errors import SetupFileError
from calibration.fields import Reader, read_json_file

ARUCO_DICTIONARIES = tuple(
    f"DICT_{bits}X{bits}_{n}" for bits in (4, 5, 6, 7) for n in (50, 100, 250, 1000)
) + ("DICT_ARUCO_ORIGINAL", "DICT_APRILTAG_16h5", "DICT_APRILTAG_25h9",
     "DICT_APRILTAG_36h10", "DICT_APRILTAG_36h11")
CORNER_IDS = (0, 1, 2, 3)
FIRST_MODEL_ID = 4
DEFAULT_SIDES = MappingProxyType({"red": "#c0392b", "blue": "#2e6fd8"})
BARE_BASE_DIAMETERS_MM = (20.0, 25.0, 32.0, 40.0, 50.0)
_COLOUR = re.compile(r"^#[0-9a-fA-F]{6}$")


@dataclass(frozen=True)
class TableSize:
    """The play area, in mm: x along ``width_mm``, y along ``depth_mm``."""

    width_mm: float
    depth_mm: float


@dataclass(frozen=True)
class MarkerOverride:
    """Per-marker settings: offset from base centre along the facing, base diameter, size."""

    offset_mm: float
    base_mm: float | None = None
    size_mm: float | None = None


@dataclass(frozen=True)
class MarkerSettings:
    """Fiducial marker settings shared by corner and base markers."""

    dictionary: str = "DICT_4X4_250"
    corner_size_mm: float = 60.0
    base_size_mm: float = 12.0
    base_height_mm: float = 3.0
    base_offset_mm: float = 0.0
    per_marker: Mapping[int, MarkerOverride] = field(default_factory=lambda: MappingProxyType({}))

    def for_marker(self, marker_id: int) -> MarkerOverride:
        """Return the settings for base marker ``marker_id`` (defaults unless overridden)."""
        found = self.per_marker.get(marker_id)
        if found is not None:
            return found
        return MarkerOverride(offset_mm=self.base_offset_mm)

    def size_for(self, marker_id: int) -> float:
        """Return the printed size of marker ``marker_id`` in mm."""
        if marker_id in CORNER_IDS:
            return self.corner_size_mm
        override = self.per_marker.get(marker_id)
        if override is not None and override.size_mm is not None:
            return override.size_mm
        return self.base_size_mm


@dataclass(frozen=True)
class CameraSettings:
    """Camera intrinsics as written in a setup file (3x3 matrix, distortion coefficients)."""

    matrix: tuple[tuple[float, float, float], ...]
    distortion: tuple[float, ...] = (0.0, 0.0, 0.0, 0.0, 0.0)


@dataclass(frozen=True)
class BaseSettings:
    """Bare-base detection: side names with their rim colours (``#rrggbb``), diameters."""

    sides: Mapping[str, str] = field(default_factory=lambda: DEFAULT_SIDES)
    diameters_mm: tuple[float, ...] = BARE_BASE_DIAMETERS_MM


@dataclass(frozen=True)
class Setup:
    """A validated setup file."""

    table: TableSize
    markers: MarkerSettings = field(default_factory=MarkerSettings)
    camera: CameraSettings | None = None
    bases: BaseSettings = field(default_factory=BaseSettings)


def parse_setup(data: Any, *, source: str = "setup file") -> Setup:
    """Validate a parsed setup document and return a :class:`Setup`."""
    top = Reader(data, source=source, error=SetupFileError)
    top.only(("table", "markers", "camera", "bases"))
    table = top.child("table")
    table.only(("width_mm", "depth_mm"))
    size = TableSize(table.number("width_mm", positive=True), table.number("depth_mm", positive=True))
    markers = _parse_markers(top.child("markers", None))
    camera = _parse_camera(top.child("camera", None))
    bases = _parse_bases(top.child("bases", None))
    return Setup(size, markers, camera, bases)


def _parse_markers(r: Reader | None) -> MarkerSettings:
    if r is None:
        return MarkerSettings()
    r.only(("dictionary", "corner_size_mm", "base_size_mm", "base_height_mm",
            "base_offset_mm", "per_marker"))
    d = MarkerSettings()
    offset = r.number("base_offset_mm", d.base_offset_mm)
    per_marker: dict[int, MarkerOverride] = {}
    overrides = r.child("per_marker", None)
    if overrides is not None:
        for key in overrides.data:
            if not key.isdigit() or not FIRST_MODEL_ID <= int(key) <= 999:
                overrides.fail(f"must be a base marker id (an integer from {FIRST_MODEL_ID}), got {key!r}", key,
                               "base_marker_id", {"first": FIRST_MODEL_ID, "value": repr(key)})
            one = overrides.child(key)
            one.only(("offset_mm", "base_mm", "size_mm"))
            per_marker[int(key)] = MarkerOverride(
                offset_mm=one.number("offset_mm", offset),
                base_mm=one.number("base_mm", None, positive=True),
                size_mm=one.number("size_mm", None, positive=True),
            )
    base_height = r.number("base_height_mm", d.base_height_mm)
    if base_height < 0:
        r.fail(f"must be 0 or more (mm above the table), got {base_height:g}", "base_height_mm")
    return MarkerSettings(
        dictionary=r.string("dictionary", d.dictionary, choices=ARUCO_DICTIONARIES),
        corner_size_mm=r.number("corner_size_mm", d.corner_size_mm, positive=True),
        base_size_mm=r.number("base_size_mm", d.base_size_mm, positive=True),
        base_height_mm=base_height,
        base_offset_mm=offset,
        per_marker=MappingProxyType(per_marker),
    )


def _parse_camera(r: Reader | None) -> CameraSettings | None:
    if r is None:
        return None
    r.only(("matrix", "distortion"))
    rows = r.array("matrix")
    if len(rows) != 3 or not all(isinstance(row, list) and len(row) == 3 for row in rows):
        r.fail("must be a 3x3 array of numbers", "matrix")
    for i, row in enumerate(rows):
        for j, value in enumerate(row):
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
                r.fail(f"[{i}][{j}] must be a finite number, got {value!r}", "matrix")
    matrix = tuple((float(row[0]), float(row[1]), float(row[2])) for row in rows)
    distortion = r.numbers("distortion", (0.0, 0.0, 0.0, 0.0, 0.0))
    if len(distortion) not in (4, 5, 8, 12, 14):
        r.fail(f"must have 4, 5, 8, 12 or 14 coefficients (OpenCV's order), got {len(distortion)}", "distortion")
    return CameraSettings(matrix, tuple(distortion))


def _parse_bases(r: Reader | None) -> BaseSettings:
    if r is None:
        return BaseSettings()
    r.only(("sides", "diameters_mm"))
    sides = dict(DEFAULT_SIDES)
    given = r.child("sides", None)
    if given is not None:
        sides = {}
        for name in given.data:
            colour = given.string(name)
            if not _COLOUR.match(colour):
                given.fail(f"must be a colour like '#c0392b', got {colour!r}", name)
            sides[name] = colour
        if len(sides) < 1:
            given.fail("must name at least one side and its rim colour")
    diameters = r.numbers("diameters_mm", BARE_BASE_DIAMETERS_MM)
    if not diameters:
        r.fail("must list at least one diameter (mm), e.g. [25, 32]", "diameters_mm")
    for i, diameter in enumerate(diameters):
        if diameter <= 0:
            r.fail(f"[{i}] must be greater than 0, got {diameter:g}", "diameters_mm")
    return BaseSettings(MappingProxyType(sides), tuple(diameters))


def load_setup(path: str | Path) -> Setup:
    """Read and validate a setup file; errors name the file and the field."""
    path = Path(path)
    data = read_json_file(path, what="setup file", error=SetupFileError)
    return parse_setup(data, source=str(path))


def setup_to_dict(setup: Setup) -> dict[str, Any]:
    """Return the JSON document of ``setup`` (the inverse of :func:`parse_setup`)."""
    m = setup.markers
    out: dict[str, Any] = {
        "table": {"width_mm": setup.table.width_mm, "depth_mm": setup.table.depth_mm},
        "markers": {
            "dictionary": m.dictionary, "corner_size_mm": m.corner_size_mm,
            "base_size_mm": m.base_size_mm, "base_height_mm": m.base_height_mm,
            "base_offset_mm": m.base_offset_mm,
            "per_marker": {
                str(k): {key: val for key, val in (("offset_mm", v.offset_mm), ("base_mm", v.base_mm),
                                                   ("size_mm", v.size_mm)) if val is not None}
                for k, v in m.per_marker.items()
            },
        },
        "bases": {"sides": dict(setup.bases.sides), "diameters_mm": list(setup.bases.diameters_mm)},
    }
    if setup.camera is not None:
        out["camera"] = {"matrix": [list(r) for r in setup.camera.matrix],
                         "distortion": list(setup.camera.distortion)}
    return out
