"""Grimdark Future Firefight: the dice of an attack, exact odds and rolls.

Used by :mod:`rules.rulesets.firefight.actions`.

Pure functions of frozen inputs: how one die hits (Test de Qualité; natural 1 and 6;
Fatigue; Relentless, Surge, Furious, Rending), how a defence die blocks (AP, cover,
Bane), the wounds of a batch of attacks (Regeneration, Deadly, Blast and its even
spread), how wounds fall on a unit (Effets des blessures, Groupes et blessures,
Tough, Fear) and the wound-effects roll. :func:`outcome_odds` gives the exact
distributions (enumeration and convolution); :func:`roll_outcome` rolls the same
attack with dice, in the order the players roll them.

Examples
--------
>>> hit_face(6, HitSpec(quality=4, extra_on_six=1))
(2, 0)
>>> hit_face(3, HitSpec(quality=4, modifier=1))
(1, 0)
>>> hit_face(5, HitSpec(quality=4, six_only=True))
(0, 0)
>>> defence_fail_chance(defense=4, ap=1)
Fraction(2, 3)
"""

from __future__ import annotations

import dataclasses
import functools
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from rules.dice import Dice, Distribution, die
from rules.explain import Step, msg

SRC = "Grimdark Future Firefight"


def _src(section: str) -> str:
    return f"{SRC}, {section}"

# =============================================================================== dice maths

@dataclass(frozen=True)
class HitSpec:
    """How one attack die hits (Principes généraux, Tir, special rules).

    ``quality`` the roll needed before modifiers; ``modifier`` added to the die;
    ``six_only`` (Fatigue: only unmodified 6 hit); ``extra_on_six`` extra hits on an
    unmodified 6 (Relentless, Surge, Furious); ``rending`` (an unmodified 6 gives AP(4)).
    """

    quality: int
    modifier: int = 0
    six_only: bool = False
    extra_on_six: int = 0
    rending: bool = False


def hit_face(face: int, spec: HitSpec) -> tuple[int, int]:
    """Return ``(hits, rending hits)`` one die face gives (natural 6 hits, natural 1 misses)."""
    if face == 6:
        return (spec.extra_on_six, 1) if spec.rending else (1 + spec.extra_on_six, 0)
    if face == 1 or spec.six_only:
        return (0, 0)
    return (1, 0) if face + spec.modifier >= spec.quality else (0, 0)


def defence_blocks(face: int, defense: int, modifier: int) -> bool:
    """Return whether a defence die blocks (natural 6 blocks, natural 1 fails)."""
    if face == 6:
        return True
    if face == 1:
        return False
    return face + modifier >= defense


def defence_fail_chance(defense: int, ap: int = 0, cover: int = 0, bane: bool = False) -> Fraction:
    """Return the chance a hit becomes a wound (AP lowers, cover raises the die; Bane re-rolls 6s)."""
    mod = cover - ap
    block = Fraction(sum(1 for f in range(1, 6) if defence_blocks(f, defense, mod)), 6)
    six = Fraction(1, 6)
    block_total = block + (six * (block + six) if bane else six)
    return 1 - block_total


def _add(a: tuple[Any, ...], b: tuple[Any, ...]) -> tuple[Any, ...]:
    return tuple(x + y for x, y in zip(a, b))


def _binomial_tuple(n: int, p: Fraction) -> Distribution:
    dist = Distribution.certain(0)
    one = Distribution.from_pairs(((1, p), (0, 1 - p)))
    for _ in range(n):
        dist = dist.convolve(one)
    return dist


@dataclass(frozen=True)
class Batch:
    """Attacks of one weapon under one set of conditions, against one unit."""

    weapon: str
    firers: tuple[str, ...]
    dice: int
    hit: HitSpec
    ap: int
    blast: int = 1
    deadly: int = 1
    bane: bool = False
    ignores_regeneration: bool = False
    impact: bool = False
    ignores_cover: bool = False
    share: tuple[int, int] = (1, 0)  # (units sharing the hits, this unit's place): Blast spreads hits evenly

    def hits_dist(self) -> Distribution:
        return _hits_dist(self)


@functools.lru_cache(maxsize=1024)
def _hits_dist(batch: Batch) -> Distribution:
    one = die(6).map(lambda f: hit_face(f, batch.hit))
    dist = Distribution.certain((0, 0))
    for _ in range(batch.dice):
        dist = dist.convolve(one, _add)
    return dist.map(lambda h: (split_share(h[0] * batch.blast, batch.share),
                               split_share(h[1] * batch.blast, batch.share)))


def split_share(hits: int, share: tuple[int, int]) -> int:
    """Return one unit's share of ``hits`` spread evenly over ``share[0]`` units (Blast).

    The first places take the rest.

    >>> [split_share(7, (3, i)) for i in range(3)]
    [3, 2, 2]
    """
    n, i = share
    if n == 0:
        return 0
    return hits // n + (1 if i < hits % n else 0)


@dataclass(frozen=True)
class Defence:
    """The target unit's defence: value, cover bonus, Regeneration."""

    defense: int
    cover: int
    regeneration: bool


@functools.lru_cache(maxsize=4096)
def wounds_dist(batch: Batch, d: Defence) -> Distribution:
    """Return the distribution of ``(deadly packets, plain wounds)`` one batch inflicts."""
    cover = 0 if batch.ignores_cover else d.cover
    pf = defence_fail_chance(d.defense, batch.ap, cover, batch.bane)
    pr = defence_fail_chance(d.defense, 4, cover, batch.bane)
    keep = Fraction(2, 3) if d.regeneration and not batch.ignores_regeneration else Fraction(1)

    def after(h: tuple[int, int]) -> Distribution:
        w = _binomial_tuple(h[0], pf * keep).convolve(_binomial_tuple(h[1], pr * keep))
        if batch.deadly > 1:
            return w.map(lambda n: ((batch.deadly,) * n, 0))
        return w.map(lambda n: ((), n))

    return batch.hits_dist().bind(after)


def _merge_wounds(a: tuple[Any, ...], b: tuple[Any, ...]) -> tuple[Any, ...]:
    return (tuple(sorted(a[0] + b[0], reverse=True)), a[1] + b[1])


# =============================================================================== wounds

@dataclass(frozen=True)
class Body:
    """A model's wound track: id, wound markers, Tough value (1 without Tough), shaken."""

    model_id: str
    wounds: int
    tough: int
    shaken: bool


def allocate(bodies: tuple[Body, ...], packets: tuple[int, ...],
             plain: int) -> tuple[tuple[Body, ...], tuple[str, ...], int]:
    """Spread wounds over a unit (Effets des blessures, Groupes et blessures; Deadly; Tough).

    ``bodies`` are in the defender's removal order. Returns the bodies left, the ids
    removed, and the wounds the last model took (it then rolls on the wound effects).
    """
    alive = list(bodies)
    removed: list[str] = []
    last_hit = 0

    def take(n: int) -> None:
        nonlocal last_hit
        b = alive[0]
        if len(alive) == 1:
            alive[0] = dataclasses.replace(b, wounds=b.wounds + n)
            last_hit += n
            return
        b = dataclasses.replace(b, wounds=b.wounds + n)
        if b.wounds >= b.tough:
            alive.pop(0)
            removed.append(b.model_id)
        else:
            alive[0] = b

    for x in packets:  # Deadly wounds first, one model each, no carry-over
        take(x)
    for _ in range(plain):
        take(1)
    return tuple(alive), tuple(removed), last_hit


def wound_roll_needed(body: Body, fear: int = 0) -> int | None:
    """Return the d6 needed for Hors de combat, or ``None`` when no roll is made yet (Tough)."""
    if body.wounds + fear < body.tough:  # Fear counts as wounds inflicted when checking wound effects
        return None
    bonus = body.wounds + (1 if body.shaken else 0) + fear
    return 5 + body.tough - bonus


def effect_of(face: int, needed: int) -> str:
    """Return ``"out"`` when ``face`` meets ``needed``, else ``"shaken"``."""
    return "out" if face >= needed else "shaken"



@functools.lru_cache(maxsize=4096)
def outcome_odds(batches: tuple[Batch, ...], defence: Defence, bodies: tuple[Body, ...],
                 fear: int) -> tuple[Distribution, Distribution]:
    """Return the exact distributions of wounds and of ``(models removed, last model effect)``.

    A pure function of frozen inputs, cached: the same attack asked again (a player
    checking, the enumeration tests) is not recomputed.
    """
    wdist = Distribution.certain(((), 0))
    for b in batches:
        wdist = wdist.convolve(wounds_dist(b, defence), _merge_wounds)

    return wdist.map(lambda w: sum(w[0]) + w[1]), wdist.bind(lambda w: _final_outcome(bodies, w, fear))


def _final_outcome(bodies: tuple[Body, ...], w: tuple[Any, ...], fear: int) -> Distribution:
    """Spread wounds ``(deadly packets, plain)`` and roll the wound effects: ``(models removed, effect)``."""
    alive, removed, last_hit = allocate(bodies, w[0], w[1])
    need = wound_roll_needed(alive[0], fear) if alive and last_hit else None
    if need is None:
        return Distribution.certain((len(removed), "none"))
    return die(6).map(lambda f: (len(removed) + (1 if effect_of(f, need) == "out" else 0), effect_of(f, need)))


def _hit_details(rending: int, blast: int) -> Any:
    """What follows a to-hit roll's count, as a message parameter: the Rending hits and the Blast multiplier."""
    which = ("_rending" if rending else "") + ("_blast" if blast > 1 else "")
    return msg(f"firefight.roll.details{which}", count=rending, mult=blast) if which else ""


def roll_hits(dice: Dice, batches: tuple[Batch, ...]) -> tuple[list[tuple[int, int]], list[Step]]:
    """Roll every to-hit die; return ``(hits, rending hits)`` per batch after Blast, before any share."""
    steps: list[Step] = []
    hits: list[tuple[int, int]] = []
    for b in batches:
        faces = dice.roll_many(b.dice)
        h = [hit_face(f, b.hit) for f in faces]
        n = (sum(x[0] for x in h) * b.blast, sum(x[1] for x in h) * b.blast)
        hits.append(n)
        if faces:
            steps.append(Step("to hit", f"{b.weapon}: dice {list(faces)} -> {n[0] + n[1]} hit(s)"
                              + (f" ({n[1]} with AP(4))" if n[1] else "")
                              + (f" after Blast x{b.blast}" if b.blast > 1 else ""),
                              _src("Tir"),
                              msg="firefight.roll.hits",
                              params={"weapon": b.weapon, "faces": list(faces), "hits": n[0] + n[1],
                                      "details": _hit_details(n[1], b.blast)}))
    return hits, steps


def _roll_batches(dice: Dice, batches: list[Batch], defence: Defence,
                  rolled_hits: list[tuple[int, int]]) -> tuple[list[tuple[Any, ...]], list[Step], tuple[Any, ...]]:
    """Roll defences then Regeneration for this unit's share of the hits; return hits, steps, wounds."""
    steps: list[Step] = []
    hits = [(split_share(h, b.share), split_share(r, b.share)) for b, (h, r) in zip(batches, rolled_hits)]
    packets: tuple[int, ...] = ()
    plain = 0
    for b, (h, r) in zip(batches, hits):
        cover = 0 if b.ignores_cover else defence.cover
        wounds = 0
        faces_all = []
        for ap, count in ((b.ap, h), (4, r)):
            for _ in range(count):
                f = dice.roll(6)
                faces_all.append(f)
                if b.bane and f == 6:
                    f = dice.roll(6)
                    faces_all.append(f)
                if not defence_blocks(f, defence.defense, cover - ap):
                    wounds += 1
        if faces_all:
            steps.append(Step("defence", f"{b.weapon}: {h + r} hit(s), defence dice {faces_all} -> {wounds} wound(s)",
                              _src("Tir"),
                              msg="firefight.roll.defence",
                              params={"weapon": b.weapon, "hits": h + r, "faces": faces_all, "wounds": wounds}))
        if wounds and defence.regeneration and not b.ignores_regeneration:
            rf = dice.roll_many(wounds)
            saved = sum(1 for f in rf if f >= 5)
            wounds -= saved
            steps.append(Step("Regeneration", f"dice {list(rf)}: {saved} wound(s) ignored", _src("Regeneration"),
                              msg="firefight.roll.regeneration", params={"faces": list(rf), "saved": saved}))
        if b.deadly > 1:
            packets += (b.deadly,) * wounds
        else:
            plain += wounds
    return hits, steps, (tuple(sorted(packets, reverse=True)), plain)


@dataclass(frozen=True)
class Rolled:
    """What the dice did to one unit: hits, wounds, the bodies left, the models removed, the effect."""

    hits: int
    wounds: tuple[Any, ...]
    alive: tuple[Body, ...]
    removed: tuple[str, ...]
    effect: str
    steps: tuple[Step, ...]


def roll_outcome(dice: Dice, batches: tuple[Batch, ...], defence: Defence, bodies: tuple[Body, ...],
                 fear: int = 0, hits: list[tuple[int, int]] | None = None) -> Rolled:
    """Roll one attack on one unit: hits, defences, Regeneration, wounds spread, the wound-effects die.

    The dice counterpart of :func:`outcome_odds` (same inputs, one outcome). ``hits``
    (from :func:`roll_hits`) when the to-hit dice are already rolled (Blast shares).
    """
    steps: list[Step] = []
    if hits is None:
        hits, hsteps = roll_hits(dice, batches)
        steps += hsteps
    hit_counts, rsteps, wounds = _roll_batches(dice, list(batches), defence, hits)
    steps += rsteps
    alive, removed, last_hit = allocate(bodies, wounds[0], wounds[1])
    effect = "none"
    if removed:
        steps.append(Step("casualties",
                          f"removed {', '.join(removed)} (one model per wound while more than one remains)",
                          _src("Effets des blessures, Groupes et blessures"),
                          msg="firefight.roll.removed", params={"models": list(removed)}))
    if alive and last_hit:
        last = alive[0]
        need = wound_roll_needed(last, fear)
        if need is None:
            steps.append(Step("Tough",
                              f"{last.model_id} has {last.wounds} wound(s), fewer than Tough({last.tough}): "
                              "no roll yet", _src("Tough"),
                              msg="firefight.roll.tough",
                              params={"model": last.model_id, "wounds": last.wounds, "tough": last.tough}))
        else:
            f = dice.roll(6)
            effect = effect_of(f, need)
            steps.append(Step("wound effects", f"d6 {f} + {last.wounds} wound marker(s)"
                              + (" +1 shaken" if last.shaken else "")
                              + (f" +{fear} Fear" if fear else "")
                              + f": Hors de combat on {5 + last.tough}+ -> {effect}",
                              _src("Effets des blessures") + (", Tough" if last.tough > 1 else ""), value=f,
                              msg="firefight.wounds.effect_bonus" if last.shaken or fear else "firefight.wounds.effect",
                              params={"face": f, "wounds": last.wounds, "bonus": int(last.shaken) + fear, "need": 5
                                      + last.tough, "effect": msg(f"firefight.effect.{effect}")}))
            if effect == "out":
                removed = removed + (last.model_id,)
                alive = ()
            else:
                alive = (dataclasses.replace(last, shaken=True),)
                steps.append(Step("push",
                                  "the attacker may try to push the shaken model: 4+ on a D6 moves it up to 2\"",
                                  _src("Mouvements spéciaux, Pousser"),
                                  msg="firefight.roll.push"))
    return Rolled(sum(a + b for a, b in hit_counts), wounds, alive, removed, effect, tuple(steps))



@functools.lru_cache(maxsize=4096)
def survivors_odds(batches: tuple[Batch, ...], defence: Defence, bodies: tuple[Body, ...],
                   fear: int) -> Distribution:
    """Return the exact distribution of the wound tracks left (alive bodies) after an attack."""
    wdist = Distribution.certain(((), 0))
    for b in batches:
        wdist = wdist.convolve(wounds_dist(b, defence), _merge_wounds)

    def final(w: tuple[Any, ...]) -> Distribution:
        alive, _, last_hit = allocate(bodies, w[0], w[1])
        need = wound_roll_needed(alive[0], fear) if alive and last_hit else None
        if need is None:
            return Distribution.certain(alive)
        return die(6).map(lambda f: () if effect_of(f, need) == "out"
                          else (dataclasses.replace(alive[0], shaken=True),))

    return wdist.bind(final)
