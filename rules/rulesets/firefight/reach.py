"""Firefight melee reach: 2" horizontally AND 4" vertically (Grimdark Future Firefight, Mêlée).

The horizontal distance is measured on the plan as every distance (base edge to base
edge by default); the vertical one is the difference between the grounds the two bases
stand on (``elevation_mm``, :mod:`rules.heights`), 0 when neither is given: today's answer.
"""

from __future__ import annotations

from calibration.units import inches
from rules.heights import vertical_gap_mm
from rules.measure import model_distance_mm
from rules.plan import Model

REACH_FLAT_MM = inches(2)
REACH_UP_MM = inches(4)


def in_melee_reach(m: Model, enemy: Model, *, how: str = "edge") -> bool:
    """Whether ``m`` reaches ``enemy`` in melee: within 2" on the plan and 4" in height."""
    return (model_distance_mm(m, enemy, how=how) <= REACH_FLAT_MM + 1e-6
            and vertical_gap_mm(m, enemy) <= REACH_UP_MM + 1e-6)


def out_of_reach_above(m: Model, enemy: Model, *, how: str = "edge") -> bool:
    """Within 2" on the plan but more than 4" above or below: height alone keeps them apart."""
    return (model_distance_mm(m, enemy, how=how) <= REACH_FLAT_MM + 1e-6
            and vertical_gap_mm(m, enemy) > REACH_UP_MM + 1e-6)
