"""Units of length used by the five rule sets, converted to millimetres at the edges.

Every length inside tabletracker is a float in millimetres (docs/units.md). The
rule sets' own units exist only here, in rule transcriptions (``inches(12)``) and
in the user interface.

Examples
--------
>>> inches(1)
25.4
>>> round(to_unit(inches(12), "in"), 9)
12.0
>>> length_unit("pas").mm
25.0
>>> to_unit(100.0, "cm")
10.0
"""

from __future__ import annotations

from dataclasses import dataclass

from calibration.errors import UnitError

MM_PER_INCH = 25.4  # High Fire's "about 2.5 cm" is taken as 25.4 mm (docs/rule-choices.md#high-fire-4).
MM_PER_CM = 10.0
MM_PER_PAS = 25.0  # Star Wars Grandes escarmouches: "4 pas, soit 10 cm".
DEFAULT_UD_MM = 40.0  # Feu à Volonté, 25-28 mm figures (docs/rule-choices.md#feu-a-volonte-2).
UD_MM_BY_FIGURE_SCALE = {"10mm": 10.0, "15-20mm": 20.0, "28mm": 40.0}


@dataclass(frozen=True)
class LengthUnit:
    """A named unit of length: ``symbol`` as shown to players, ``mm`` its size."""

    name: str
    symbol: str
    mm: float

    def to_mm(self, value: float) -> float:
        """Convert ``value`` in this unit to millimetres."""
        return value * self.mm

    def from_mm(self, value_mm: float) -> float:
        """Convert millimetres to this unit."""
        return value_mm / self.mm


UNITS: dict[str, LengthUnit] = {
    "mm": LengthUnit("millimetre", "mm", 1.0),
    "cm": LengthUnit("centimetre", "cm", MM_PER_CM),
    "in": LengthUnit("inch", '"', MM_PER_INCH),
    "pas": LengthUnit("pas", "pas", MM_PER_PAS),
    "ud": LengthUnit("UD", "UD", DEFAULT_UD_MM),
}

def inches(value: float) -> float:
    """Return ``value`` inches in millimetres."""
    return value * MM_PER_INCH


def cm(value: float) -> float:
    """Return ``value`` centimetres in millimetres."""
    return value * MM_PER_CM


def pas(value: float) -> float:
    """Return ``value`` Star Wars "pas" in millimetres."""
    return value * MM_PER_PAS


def ud(value: float, *, ud_mm: float = DEFAULT_UD_MM) -> float:
    """Return ``value`` Feu à Volonté UD in millimetres (``ud_mm`` by figure scale)."""
    return value * ud_mm


def find_unit(name: str) -> LengthUnit:
    """Return the unit called ``name`` (``mm``, ``cm``, ``in``, ``pas``, ``ud``)."""
    try:
        return UNITS[name]
    except KeyError:
        raise UnitError(f"unknown unit {name!r}; expected one of {sorted(UNITS)}") from None


def to_unit(value_mm: float, name: str) -> float:
    """Convert millimetres to the unit called ``name``."""
    return find_unit(name).from_mm(value_mm)


def length_unit(key: str, *, ud_mm: float = DEFAULT_UD_MM) -> LengthUnit:
    """Return the unit called ``key``, with Feu à Volonté's UD set by figure scale (``ud_mm``).

    Which rule set measures in which unit is the rule set's own ``unit_key``
    (``rules.rulesets``); calibration knows units, not rule sets.
    """
    if key == "ud":
        if not ud_mm > 0:  # also refuses NaN: a UD of zero would divide by zero in from_mm
            raise UnitError(f"ud_mm must be greater than 0 (10, 20 or 40 by figure scale), got {ud_mm:g}")
        return LengthUnit("UD", "UD", ud_mm)
    return find_unit(key)
