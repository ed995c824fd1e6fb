"""Dice: every exact distribution against brute-force enumeration of the dice."""

from __future__ import annotations

import itertools
from collections import Counter
from fractions import Fraction

import pytest

from rules.dice import (AUTO_SUCCESS, Dice, Distribution, NotEnoughDiceError, binomial, d10, die, difference,
                        expand_ranges, keep_best, multisets, needed_text, opposed, roll_distribution,
                        success_chance, table_distribution, with_reroll, with_rerolls)
from rules.errors import InvalidActionError
from rules.rulesets.at43.dice import at43_roll_needed, at43_success_chance
from tests.rules.brute import brute_force


def enumerate_ordered(count: int, sides: int, f) -> Distribution:  # type: ignore[no-untyped-def]
    total = sides ** count
    c = Counter(f(roll) for roll in itertools.product(range(1, sides + 1), repeat=count))
    return Distribution({k: Fraction(v, total) for k, v in c.items()})


@pytest.mark.parametrize("count", [1, 2, 3, 4, 5])
def test_keep_best_two_matches_enumeration(count: int) -> None:
    expected = enumerate_ordered(count, 6, lambda r: sum(sorted(r, reverse=True)[:2]))
    assert keep_best(count) == expected


def test_multisets_weights_match_ordered_rolls() -> None:
    got = Counter()
    for combo, p in multisets(4):
        got[combo] += p
    assert sum(got.values()) == 1
    expected = enumerate_ordered(4, 6, lambda r: tuple(sorted(r, reverse=True)))
    assert Distribution(dict(got)) == expected


def test_roll_distribution_of_double_ones() -> None:
    expected = enumerate_ordered(3, 6, lambda r: r.count(1) >= 2)
    assert roll_distribution(3, lambda c: c.count(1) >= 2) == expected


def test_opposed_and_difference_match_enumeration() -> None:
    att, dfn = keep_best(3), keep_best(2)

    def outcome(r: tuple[int, ...]) -> str:
        a, d = sum(sorted(r[:3], reverse=True)[:2]), r[3] + r[4]
        return "attacker" if a > d else "defender" if d > a else "tie"

    assert opposed(att, dfn) == enumerate_ordered(5, 6, outcome)
    assert difference(die(6), die(6)) == enumerate_ordered(2, 6, lambda r: r[0] - r[1])


# AT-43 universal resolution table (RULES-NOTES): every row, both automatic results.
@pytest.mark.parametrize(("diff", "needed", "chance"), [
    (-9, None, Fraction(0)), (-6, None, Fraction(0)), (-5, 6, Fraction(1, 6)), (-4, 6, Fraction(1, 6)),
    (-3, 5, Fraction(1, 3)), (-2, 5, Fraction(1, 3)), (-1, 4, Fraction(1, 2)), (0, 4, Fraction(1, 2)),
    (1, 4, Fraction(1, 2)), (2, 3, Fraction(2, 3)), (3, 3, Fraction(2, 3)), (4, 2, Fraction(5, 6)),
    (5, 2, Fraction(5, 6)), (6, AUTO_SUCCESS, Fraction(1)), (12, AUTO_SUCCESS, Fraction(1)),
])
def test_at43_universal_table(diff: int, needed: object, chance: Fraction) -> None:
    assert at43_roll_needed(diff) == needed
    assert at43_success_chance(diff) == chance


def test_seed_differences() -> None:
    # AT-43, Tirs: nanoblasters précision 3 at portée 5 -> -2 -> 5+; laser rifles 5 - 4 = +1 -> 4+,
    # damage 5 against protection 6 -> -1 -> 4+.
    assert needed_text(at43_roll_needed(3 - 5)) == "5+"
    assert needed_text(at43_roll_needed(5 - 4)) == "4+"
    assert needed_text(at43_roll_needed(5 - 6)) == "4+"


@pytest.mark.parametrize("rerolls", [0, 1, 2])
@pytest.mark.parametrize("target", [2, 4, 5, 6])
def test_rerolls_of_failures_match_brute_force(target: int, rerolls: int) -> None:
    def run(dice: Dice) -> bool:
        for _ in range(rerolls + 1):
            if dice.roll(6) >= target:
                return True
        return False

    got = brute_force(run, lambda ok: ok)
    assert got.probs.get(True, Fraction(0)) == with_rerolls(success_chance(target), rerolls)
    if rerolls == 1:
        assert with_rerolls(success_chance(target), 1) == with_reroll(success_chance(target))


def test_binomial_matches_enumeration() -> None:
    p = success_chance(5)
    assert binomial(3, p) == enumerate_ordered(3, 6, lambda r: sum(1 for v in r if v >= 5))


def test_tables_d4_d8_d10() -> None:
    location = table_distribution({1: "jambe", 2: "bras", 3: "buste", 4: "tête"}, 4)
    assert location.probs["tête"] == Fraction(1, 4)
    weather = table_distribution(expand_ranges({(1, 2): "vent", (3, 4): "brouillard", (5, 6): "pluie",
                                                (7, 8): "beau temps"}), 8)
    assert weather.probs["pluie"] == Fraction(1, 4)
    assert d10().probs[10] == Fraction(1, 10) and len(d10().probs) == 10
    with pytest.raises(ValueError, match="no entry for face"):
        table_distribution({1: "a"}, 4)


def test_dice_given_seeded_and_errors() -> None:
    dice = Dice.given([3, 8])
    assert dice.roll(6) == 3 and dice.roll(8) == 8
    with pytest.raises(NotEnoughDiceError) as err:
        dice.roll(4)
    assert err.value.sides == 4 and isinstance(err.value, InvalidActionError)
    with pytest.raises(InvalidActionError, match="typed as 7, but a d6 shows 1 to 6"):
        Dice.given([7]).roll(6)
    a, b = Dice.seeded(5), Dice.seeded(5)
    assert a.roll_many(10) == b.roll_many(10)
    assert all(1 <= v <= 6 for v in Dice.seeded(1).roll_many(50))
    assert Dice.given([1, 6, 4]).roll_keep(3) == ((1, 6, 4), (6, 4))
    with pytest.raises(InvalidActionError, match="no dice"):
        Dice().roll(6)


def test_brute_force_helper_adds_up() -> None:
    got = brute_force(lambda d: d.roll(6) + d.roll(6), lambda s: s)
    assert got == die(6).convolve(die(6))
