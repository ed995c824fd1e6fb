"""Dice: a seedable roller and exact probability distributions (never sampling).

Distributions are mappings from outcome to :class:`fractions.Fraction`, built by
enumeration or convolution. Rolling takes an injected ``random.Random`` or the
players' own dice, typed in, in order.

Examples
--------
>>> success_chance(5)
Fraction(1, 3)
>>> with_reroll(success_chance(5))
Fraction(5, 9)
>>> binomial(2, Fraction(1, 2)).probs[1]
Fraction(1, 2)
>>> die(6).convolve(die(6)).probs[7]
Fraction(1, 6)
>>> dice = Dice.given([3, 5])
>>> dice.roll(6), dice.roll(6)
(3, 5)
>>> dice.roll(6)
Traceback (most recent call last):
...
rules.dice.NotEnoughDiceError: not enough dice typed in: 2 given, a third d6 is needed
>>> keep_best(3).probs[12]
Fraction(2, 27)
"""

from __future__ import annotations

import contextvars
import itertools
import math
import random
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from types import MappingProxyType
from typing import Any, Hashable, cast

from rules.errors import InvalidActionError


class NotEnoughDiceError(InvalidActionError):
    """The players typed in fewer dice than the resolution needs; ``sides`` of the next die."""

    def __init__(self, message: str, *, sides: int, index: int) -> None:
        super().__init__(message, msg_id="dice.not_enough",
                         params={"given": index, "nth": index + 1, "sides": sides,
                                 "ordinal": _ORDINALS[index] if index < len(_ORDINALS) else f"{index + 1}th"})
        self.sides = sides
        self.index = index


# Set by :mod:`rules.budget` around one resolution: a deadline for the exact odds, or a
# sampling mode for a Monte-Carlo estimate: bind and convolve (where the outcomes multiply)
# draw one random outcome of their operands, each use an independent draw, instead of
# enumerating every pair; map stays exact (its cost does not grow).
GUARD: contextvars.ContextVar[Any] = contextvars.ContextVar("rules_dice_guard", default=None)

_ORDINALS = ("first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth")


@dataclass(frozen=True)
class Distribution:
    """An exact probability distribution over hashable outcomes."""

    probs: Mapping[Hashable, Fraction]

    def __post_init__(self) -> None:
        total = sum(self.probs.values(), Fraction(0))
        if total != 1:
            raise ValueError(f"probabilities must add up to 1, got {total}")
        guard = GUARD.get()
        if guard is not None:
            guard.tick()
        object.__setattr__(self, "probs", MappingProxyType(dict(self.probs)))

    @classmethod
    def certain(cls, outcome: Hashable) -> "Distribution":
        """Return the distribution that always gives ``outcome``."""
        return cls({outcome: Fraction(1)})

    @classmethod
    def from_pairs(cls, pairs: Iterable[tuple[Hashable, Fraction]]) -> "Distribution":
        """Build a distribution, adding up the probabilities of equal outcomes."""
        acc: dict[Hashable, Fraction] = {}
        guard = GUARD.get()
        for i, (outcome, p) in enumerate(pairs):
            if guard is not None and not i & 1023:
                guard.tick()
            if p:
                acc[outcome] = acc.get(outcome, Fraction(0)) + p
        return cls(acc)

    def map(self, f: Callable[[Any], Hashable]) -> "Distribution":
        """Return the distribution of ``f(outcome)``."""
        return Distribution.from_pairs((f(o), p) for o, p in self.probs.items())

    def bind(self, f: Callable[[Any], "Distribution"]) -> "Distribution":
        """Return the distribution of a second stage chosen by the first outcome."""
        guard = GUARD.get()
        if guard is not None and guard.sampling:
            return Distribution.certain(guard.pick(f(guard.pick(self.probs)).probs))
        return Distribution.from_pairs(
            (o2, p * p2) for o, p in self.probs.items() for o2, p2 in f(o).probs.items()
        )

    def convolve(self, other: "Distribution",
                 combine: Callable[[Any, Any], Hashable] = lambda a, b: a + b) -> "Distribution":
        """Return the distribution of ``combine(a, b)`` for independent ``a`` and ``b``."""
        guard = GUARD.get()
        if guard is not None and guard.sampling:  # each operand drawn on its own: independent draws
            return Distribution.certain(combine(guard.pick(self.probs), guard.pick(other.probs)))
        return Distribution.from_pairs(
            (combine(a, b), pa * pb) for a, pa in self.probs.items() for b, pb in other.probs.items()
        )

    def chance(self, predicate: Callable[[Any], bool]) -> Fraction:
        """Return the probability that ``predicate(outcome)`` holds."""
        return sum((p for o, p in self.probs.items() if predicate(o)), Fraction(0))

    def mean(self) -> Fraction:
        """Return the expected value of numeric outcomes."""
        return sum((Fraction(cast(Any, o)) * p for o, p in self.probs.items()), Fraction(0))

    def to_json(self) -> list[dict[str, Any]]:
        """Return ``[{"outcome", "probability" (float), "fraction" ("a/b")}]`` sorted by outcome."""
        def key(item: tuple[Hashable, Fraction]) -> Any:
            return (str(type(item[0])), item[0]) if not isinstance(item[0], tuple) else ("t", str(item[0]))
        try:
            items = sorted(self.probs.items(), key=key)
        except TypeError:
            items = sorted(self.probs.items(), key=lambda kv: str(kv[0]))
        return [{"outcome": list(o) if isinstance(o, tuple) else o, "probability": float(p),
                 "fraction": f"{p.numerator}/{p.denominator}"} for o, p in items]


def die(sides: int = 6) -> Distribution:
    """Return the uniform distribution of one die with ``sides`` faces."""
    return Distribution({face: Fraction(1, sides) for face in range(1, sides + 1)})


def sum_of(count: int, sides: int = 6) -> Distribution:
    """Return the distribution of the sum of ``count`` dice."""
    dist = Distribution.certain(0)
    for _ in range(count):
        dist = dist.convolve(die(sides))
    return dist


def enumerate_rolls(count: int, sides: int = 6) -> Iterable[tuple[int, ...]]:
    """Yield every ordered roll of ``count`` dice (each equally likely)."""
    return itertools.product(range(1, sides + 1), repeat=count)


def success_chance(target: int | None, *, sides: int = 6, natural_one_fails: bool = True,
                   natural_max_succeeds: bool = True) -> Fraction:
    """Return the chance that one die meets ``target`` or more.

    ``None`` means the roll cannot succeed. A natural 1 always fails and a natural
    ``sides`` always succeeds unless told otherwise.
    """
    if target is None:
        return Fraction(0)
    faces = [f for f in range(1, sides + 1)
             if (f >= target or (natural_max_succeeds and f == sides))
             and not (natural_one_fails and f == 1)]
    return Fraction(len(faces), sides)


def with_reroll(p: Fraction) -> Fraction:
    """Return the chance of success when a failed die is re-rolled once."""
    return p + (1 - p) * p


def binomial(n: int, p: Fraction) -> Distribution:
    """Return the exact distribution of successes among ``n`` independent dice.

    Exact odds use the closed form C(n, k) p^k (1-p)^(n-k), k from n down to 0 (the
    outcomes in the order n convolutions of one die gave them; a salvo asks it for every
    number of hits, so this is most of an AT-43 salvo's cost); a Monte-Carlo draw
    convolves die by die as before (the same draws for the same seed).

    >>> binomial(3, Fraction(1, 2)).probs[2], list(binomial(2, Fraction(1, 3)).probs)
    (Fraction(3, 8), [2, 1, 0])
    >>> all(binomial(n, p) == _binomial_convolved(n, p) for n in range(12)
    ...     for p in (Fraction(0), Fraction(1, 6), Fraction(1, 2), Fraction(5, 6), Fraction(1)))
    True
    """
    guard = GUARD.get()
    if guard is not None and guard.sampling:
        return _binomial_convolved(n, p)
    q = 1 - p
    probs: dict[Hashable, Fraction] = {}
    for k in range(n, -1, -1):
        if guard is not None:  # a budget can stop a huge pool between two terms
            guard.tick()
        if (p or k == 0) and (q or k == n):
            probs[k] = math.comb(n, k) * p ** k * q ** (n - k)
    return Distribution(probs)


def _binomial_convolved(n: int, p: Fraction) -> Distribution:
    dist = Distribution.certain(0)
    one = Distribution.from_pairs(((1, p), (0, 1 - p)))
    for _ in range(n):
        dist = dist.convolve(one)
    return dist


@dataclass
class Dice:
    """Where dice come from: an injected ``random.Random`` or the players' typed-in dice.

    The only mutable object of the rules core: it is consumed by one resolution.
    ``rolled`` records every die taken, in order, for the explanation.
    """

    rng: random.Random | None = None
    typed: tuple[int, ...] | None = None
    rolled: list[tuple[int, int]] = field(default_factory=list)  # (sides, value)

    @classmethod
    def seeded(cls, seed: int) -> "Dice":
        """Return dice rolled by ``random.Random(seed)``."""
        return cls(rng=random.Random(seed))

    @classmethod
    def given(cls, values: Iterable[int]) -> "Dice":
        """Return dice that hand out the players' own ``values`` in order."""
        return cls(typed=tuple(int(v) for v in values))

    def roll(self, sides: int = 6) -> int:
        """Take the next die with ``sides`` faces."""
        index = len(self.rolled)
        if self.typed is not None:
            if index >= len(self.typed):
                nth = _ORDINALS[index] if index < len(_ORDINALS) else f"{index + 1}th"
                raise NotEnoughDiceError(
                    f"not enough dice typed in: {len(self.typed)} given, a {nth} d{sides} is needed",
                    sides=sides, index=index,
                )
            value = self.typed[index]
            if not 1 <= value <= sides:
                raise InvalidActionError(
                    f"die number {index + 1} was typed as {value}, but a d{sides} shows 1 to {sides}",
                    msg_id="dice.bad_face", params={"index": index + 1, "value": value, "sides": sides})
        elif self.rng is not None:
            value = self.rng.randint(1, sides)
        else:
            raise InvalidActionError("no dice: give the players' dice or a seed to roll them", msg_id="dice.none")
        self.rolled.append((sides, value))
        return value

    def roll_many(self, count: int, sides: int = 6) -> tuple[int, ...]:
        """Take ``count`` dice with ``sides`` faces."""
        return tuple(self.roll(sides) for _ in range(count))

    def roll_keep(self, count: int, keep: int = 2, sides: int = 6) -> tuple[tuple[int, ...], tuple[int, ...]]:
        """Take ``count`` dice and return ``(all of them in order, the ``keep`` highest)``.

        Feu à Volonté, Les jets de dé: roll Xd6, keep two.

        >>> Dice.given([5, 2, 1]).roll_keep(3)
        ((5, 2, 1), (5, 2))
        """
        rolled = self.roll_many(count, sides)
        return rolled, tuple(sorted(rolled, reverse=True)[:keep])

    def unused(self) -> tuple[int, ...]:
        """Return the typed-in dice not taken (a sign the players typed too many)."""
        if self.typed is None:
            return ()
        return self.typed[len(self.rolled):]


# -- tables and thresholds --------------------------------------------------------------------

AUTO_SUCCESS = "auto"
"""What a table of needed rolls gives when no die is needed: the test succeeds (AT-43)."""


def needed_text(needed: int | None | str) -> str:
    """Return how a player reads a needed roll: ``"5+"``, ``"6"``, ``"automatic failure"``...

    >>> needed_text(5), needed_text(6), needed_text(None), needed_text("auto")
    ('5+', '6', 'automatic failure', 'automatic success')
    """
    if needed is None:
        return "automatic failure"
    if needed == AUTO_SUCCESS:
        return "automatic success"
    return "6" if needed == 6 else f"{needed}+"


def with_rerolls(p: Fraction, rerolls: int) -> Fraction:
    """Return the chance of success when a failed die is re-rolled up to ``rerolls`` times.

    >>> with_rerolls(Fraction(1, 3), 1) == with_reroll(Fraction(1, 3))
    True
    >>> with_rerolls(Fraction(1, 2), 0)
    Fraction(1, 2)
    """
    if rerolls < 0:
        raise ValueError(f"rerolls must be 0 or more, got {rerolls}")
    return 1 - (1 - p) ** (rerolls + 1)


def table_distribution(table: Mapping[int, Hashable], sides: int) -> Distribution:
    """Return the distribution of the entry read on a ``sides``-faced die table.

    ``table`` maps every face 1..sides to its result (a d4 hit location, a d8
    weather, the d6 activation tables...). A face missing from the table is an error.

    >>> table_distribution({1: "legs", 2: "arm", 3: "chest", 4: "head"}, 4).probs["head"]
    Fraction(1, 4)
    """
    missing = [f for f in range(1, sides + 1) if f not in table]
    if missing:
        raise ValueError(f"the d{sides} table has no entry for face(s) {missing}")
    return Distribution.from_pairs((table[f], Fraction(1, sides)) for f in range(1, sides + 1))


def expand_ranges(ranges: Mapping[tuple[int, int], Hashable]) -> dict[int, Hashable]:
    """Return a face -> result table from ``{(low, high): result}`` bands (both ends included).

    >>> expand_ranges({(1, 2): 2, (3, 4): 3, (5, 6): 4})[4]
    3
    """
    out: dict[int, Hashable] = {}
    for (low, high), result in ranges.items():
        for face in range(low, high + 1):
            out[face] = result
    return out


# -- several dice: sorted multisets with their weights ------------------------------------------


def multisets(count: int, sides: int = 6) -> Iterable[tuple[tuple[int, ...], Fraction]]:
    """Yield each unordered roll of ``count`` dice (sorted high to low) with its probability.

    Enumerating multisets with multinomial weights is exact and much faster than
    the ``sides ** count`` ordered rolls.

    >>> sum(p for _, p in multisets(3)) == 1
    True
    """
    guard = GUARD.get()
    if guard is not None and guard.sampling:
        yield tuple(sorted(guard.rolls(count, sides), reverse=True)), Fraction(1)
        return
    total = sides ** count
    for i, combo in enumerate(itertools.combinations_with_replacement(range(sides, 0, -1), count)):
        if guard is not None and not i & 1023:
            guard.tick()
        ways = math.factorial(count)
        for face in set(combo):
            ways //= math.factorial(combo.count(face))
        yield combo, Fraction(ways, total)


def roll_distribution(count: int, f: Callable[[tuple[int, ...]], Hashable], sides: int = 6) -> Distribution:
    """Return the distribution of ``f(dice sorted high to low)`` over all rolls of ``count`` dice."""
    return Distribution.from_pairs((f(combo), p) for combo, p in multisets(count, sides))


def keep_best(count: int, keep: int = 2, sides: int = 6) -> Distribution:
    """Return the distribution of the sum of the ``keep`` highest of ``count`` dice.

    Feu à Volonté, Les jets de dé: roll the quality's Xd6 and keep two. With fewer
    dice than ``keep`` all are kept.

    >>> keep_best(2) == sum_of(2)
    True
    >>> keep_best(3).probs[2]
    Fraction(1, 216)
    """
    if count < 1:
        raise ValueError(f"at least one die must be rolled, got {count}")
    return roll_distribution(count, lambda combo: sum(combo[:keep]), sides)


def opposed(attack: Distribution, defence: Distribution) -> Distribution:
    """Return the distribution of ``"attacker"``, ``"defender"`` or ``"tie"`` (higher total wins).

    >>> opposed(die(6), die(6)).probs["tie"]
    Fraction(1, 6)
    """
    def winner(a: Any, d: Any) -> str:
        return "attacker" if a > d else "defender" if d > a else "tie"

    return attack.convolve(defence, winner)


def difference(attack: Distribution, defence: Distribution) -> Distribution:
    """Return the distribution of ``attack - defence`` for independent totals."""
    return attack.convolve(defence, lambda a, d: a - d)


def d10() -> Distribution:
    """Return the uniform D10 (High Fire's UNITABLE die)."""
    return die(10)
