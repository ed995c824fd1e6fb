"""Units of the five rule sets: millimetres inside, conversions that round-trip at the edges."""

from __future__ import annotations

from contextlib import nullcontext

import pytest
from hypothesis import given
from hypothesis import strategies as st

from calibration.units import (DEFAULT_UD_MM, MM_PER_INCH, UD_MM_BY_FIGURE_SCALE, UNITS, cm, find_unit, inches,
                               pas, to_unit, ud, length_unit)

lengths = st.floats(min_value=-1e5, max_value=1e5, allow_nan=False, allow_infinity=False)


@pytest.mark.parametrize(
    ("value", "convert", "expected_mm"),
    [
        (1, inches, 25.4),
        (12, inches, 304.8),
        (48, inches, 1219.2),  # Firefight's 4' table (CONVENTIONS.md)
        (0, inches, 0.0),
        (1, cm, 10.0),
        (4, pas, 100.0),  # Star Wars: "4 pas, soit 10 cm"
        (1, ud, 40.0),  # Feu à Volonté, 25-28 mm figures by default
    ],
)
def test_edge_units_to_mm(value: float, convert, expected_mm: float) -> None:
    assert convert(value) == pytest.approx(expected_mm, abs=1e-9)


@pytest.mark.parametrize(
    ("scale", "expected_mm"), [("10mm", 10.0), ("15-20mm", 20.0), ("28mm", 40.0)],
)
def test_ud_by_figure_scale(scale: str, expected_mm: float) -> None:
    assert ud(3, ud_mm=UD_MM_BY_FIGURE_SCALE[scale]) == pytest.approx(3 * expected_mm)
    assert length_unit("ud", ud_mm=UD_MM_BY_FIGURE_SCALE[scale]).mm == expected_mm


@given(lengths)
def test_inches_to_mm_to_inches_round_trips(value_in: float) -> None:
    assert to_unit(inches(value_in), "in") == pytest.approx(value_in, rel=1e-12, abs=1e-9)


@pytest.mark.parametrize("name", sorted(UNITS))
@given(value_mm=lengths)
def test_every_unit_round_trips_mm(name: str, value_mm: float) -> None:
    unit = find_unit(name)
    assert unit.to_mm(unit.from_mm(value_mm)) == pytest.approx(value_mm, rel=1e-12, abs=1e-9)
    assert unit.from_mm(unit.to_mm(value_mm)) == pytest.approx(value_mm, rel=1e-12, abs=1e-9)


@pytest.mark.parametrize(
    ("value_mm", "name", "expected", "exception"),
    [
        (25.4, "in", 1.0, nullcontext()),
        (1219.2, "in", 48.0, nullcontext()),
        (100.0, "cm", 10.0, nullcontext()),
        (100.0, "pas", 4.0, nullcontext()),
        (80.0, "ud", 2.0, nullcontext()),
        (7.0, "mm", 7.0, nullcontext()),
        (0.0, "in", 0.0, nullcontext()),
        (25.4, "inch", None, pytest.raises(ValueError, match=r"unknown unit 'inch'; expected one of \['cm', 'in', 'mm', 'pas', 'ud'\]")),
        (25.4, "", None, pytest.raises(ValueError, match="unknown unit ''")),
    ],
)
def test_to_unit(value_mm: float, name: str, expected: float | None, exception) -> None:
    with exception:
        assert to_unit(value_mm, name) == pytest.approx(expected)


@pytest.mark.parametrize(
    ("key", "kwargs", "expected_mm", "symbol", "exception"),
    [
        ("in", {}, MM_PER_INCH, '"', nullcontext()),
        ("ud", {}, DEFAULT_UD_MM, "UD", nullcontext()),
        ("ud", {"ud_mm": 20.0}, 20.0, "UD", nullcontext()),
        ("cm", {}, 10.0, "cm", nullcontext()),
        ("pas", {}, 25.0, "pas", nullcontext()),
        ("furlong", {}, None, None, pytest.raises(ValueError, match=r"unknown unit 'furlong'; expected one of \['cm', 'in', 'mm', 'pas', 'ud'\]")),
        ("ud", {"ud_mm": 0.0}, None, None, pytest.raises(ValueError, match=r"ud_mm must be greater than 0 \(10, 20 or 40 by figure scale\), got 0")),
        ("ud", {"ud_mm": -40.0}, None, None, pytest.raises(ValueError, match="ud_mm must be greater than 0")),
    ],
)
def test_length_unit(key: str, kwargs: dict, expected_mm, symbol, exception) -> None:
    with exception:
        unit = length_unit(key, **kwargs)
        assert (unit.mm, unit.symbol) == (expected_mm, symbol)
        assert unit.to_mm(3) == pytest.approx(3 * expected_mm)
