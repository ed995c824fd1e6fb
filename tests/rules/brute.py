"""Brute force: run a resolution on every possible sequence of dice, each with its exact probability.

The resolution asks for dice one by one; when the typed dice run out it raises
``NotEnoughDiceError`` naming the next die's sides, and the enumeration branches
on each face. The leaves are all the complete dice sequences; their probabilities
(product of 1/sides) add up to 1. Comparing the resolutions' analytic odds with this
checks them against the rules as the code plays them, die by die.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any, Callable, Hashable

from rules.dice import Dice, Distribution, NotEnoughDiceError


def brute_force(run: Callable[[Dice], Any], key: Callable[[Any], Hashable], *,
                limit: int = 60_000) -> Distribution:
    """Return the distribution of ``key(run(dice))`` over every dice sequence ``run`` can take."""
    acc: dict[Hashable, Fraction] = {}
    stack: list[tuple[int, ...]] = [()]
    leaves = 0
    while stack:
        prefix = stack.pop()
        dice = Dice.given(prefix)
        try:
            out = run(dice)
        except NotEnoughDiceError as exc:
            stack.extend(prefix + (face,) for face in range(1, exc.sides + 1))
            continue
        leaves += 1
        if leaves > limit:
            raise AssertionError(f"more than {limit} dice sequences: make the test situation smaller")
        p = Fraction(1)
        for sides, _ in dice.rolled:
            p /= sides
        k = key(out)
        acc[k] = acc.get(k, Fraction(0)) + p
    return Distribution(acc)
