"""AT-43's universal resolution table (moved out of the shared :mod:`rules.dice`).

Examples
--------
>>> at43_roll_needed(-2), at43_roll_needed(-6), at43_roll_needed(6)
(5, None, 'auto')
"""

from __future__ import annotations

from fractions import Fraction

from rules.dice import AUTO_SUCCESS, success_chance


def at43_roll_needed(difference: int) -> int | None | str:
    """Return the D6 roll needed on AT-43's universal resolution table.

    ``difference`` is the action value minus the difficulty (précision minus portée
    for a shot, pénétration minus protection for damage). Returns ``None`` for an
    automatic failure (-6 or less), ``"auto"`` for an automatic success (+6 or
    more, docs/rule-choices.md#at-43-3), else the face needed (6, 5, 4, 3 or 2, "or more").
    Source: AT-43 universal resolution table (docs/rule-choices.md#at-43-4: the game's,
    not printed in the chapter), which agrees with the chapter's examples (-2 gives 5+,
    +1 gives 4+).

    Examples
    --------
    >>> [at43_roll_needed(d) for d in range(-7, 8)]
    [None, None, 6, 6, 5, 5, 4, 4, 4, 3, 3, 2, 2, 'auto', 'auto']
    """
    if difference <= -6:
        return None
    if difference >= 6:
        return AUTO_SUCCESS
    return {-5: 6, -4: 6, -3: 5, -2: 5, -1: 4, 0: 4, 1: 4, 2: 3, 3: 3, 4: 2, 5: 2}[difference]


def at43_success_chance(difference: int) -> Fraction:
    """Return the chance of one AT-43 test with this difference (automatic results included).

    >>> at43_success_chance(-2), at43_success_chance(-9), at43_success_chance(7)
    (Fraction(1, 3), Fraction(0, 1), Fraction(1, 1))
    """
    needed = at43_roll_needed(difference)
    if needed is None:
        return Fraction(0)
    if needed == AUTO_SUCCESS:
        return Fraction(1)
    return success_chance(int(needed))
