"""Exact odds within a time budget, else a stated Monte-Carlo estimate with its error bar.

The rules core gives exact odds by enumeration and convolution, whose cost grows fast
with the dice pool (a Firefight salvo of 100 attacks on a mixed unit takes seconds).
:func:`resolve_within` runs one resolution with a deadline on the exact computation
(checked where distributions are built, :data:`rules.dice.GUARD`); past it, the same
resolution is run again many times in a sampling mode where combining two
distributions (``convolve``, ``bind``) draws one random outcome of each (every use an
independent draw, as the dice are) instead of enumerating every pair, and the odds
become the observed frequencies, each with its 95 %
error bar (1.96 standard errors) -- an estimate, said as such in the explanation and
in ``odds_method``.

Examples
--------
>>> from rules.dice import binomial, success_chance
>>> from rules.resolution import Resolution
>>> def slow(_dice):
...     return Resolution("firefight", "demo", (), odds={"hits": binomial(60, success_chance(4))})
>>> exact = resolve_within(slow, lambda: None, budget_s=30.0)
>>> exact.odds_method["kind"]
'exact'
>>> est = resolve_within(slow, lambda: None, budget_s=0.0, samples=400, sample_budget_s=5.0)
>>> est.odds_method["kind"], est.odds_method["samples"]
('monte-carlo', 400)
>>> 27 <= float(est.odds["hits"].mean()) <= 33
True
"""

from __future__ import annotations

import dataclasses
import functools
import math
import random
import sys
import time
from collections import Counter
from fractions import Fraction
from typing import Any, Callable, Hashable, Mapping

from rules.dice import GUARD, Dice, Distribution
from rules.errors import InvalidActionError
from rules.explain import Step
from rules.resolution import Resolution

EXACT_BUDGET_S = 0.6
SAMPLE_BUDGET_S = 0.4
MAX_SAMPLES = 4000
MIN_SAMPLES = 20
PAUSE_EVERY_S, PAUSE_S = 0.010, 0.002  # the odds take at most 5/6 of the interpreter while the live loop runs
SOURCE = "tabletracker: odds too long to compute exactly in time"


class OddsTooSlowError(Exception):
    """The exact odds would take longer than the budget (internal: caught by :func:`resolve_within`)."""


class _Guard:
    """What :data:`rules.dice.GUARD` holds: a deadline, or a random source for sampling."""

    def __init__(self, deadline: float | None = None, rng: random.Random | None = None,
                 cpu_deadline: float | None = None) -> None:
        self.deadline = deadline
        self.cpu_deadline = cpu_deadline
        self.rng = rng
        self.sampling = rng is not None
        self.ticks = 0
        self.last_pause = time.monotonic()

    def tick(self) -> None:
        self.ticks += 1
        now = time.monotonic()
        if not self.ticks & 15 and now - self.last_pause > PAUSE_EVERY_S:
            # give the interpreter to the live loop's thread for a moment: it must not wait on odds
            time.sleep(PAUSE_S)
            self.last_pause = time.monotonic()
        if self.deadline is not None and now > self.deadline:
            raise OddsTooSlowError()
        if self.cpu_deadline is not None and time.thread_time() > self.cpu_deadline:
            raise OddsTooSlowError()

    def pick(self, probs: Mapping[Hashable, Fraction]) -> Hashable:
        """Draw one outcome of ``probs`` (sampling mode)."""
        self.tick()
        assert self.rng is not None
        if len(probs) == 1:
            return next(iter(probs))
        x = Fraction(self.rng.random())
        acc = Fraction(0)
        last: Hashable = None
        for last, p in probs.items():  # noqa: B007  (the outcome where the running sum passes x)
            acc += p
            if x < acc:
                return last
        return last  # rounding: the sum fell short of 1 by a hair

    def rolls(self, count: int, sides: int) -> list[int]:
        assert self.rng is not None
        return [self.rng.randint(1, sides) for _ in range(count)]


@dataclasses.dataclass(frozen=True)
class BudgetedResolution(Resolution):
    """A :class:`Resolution` that says how its odds were found (``odds_method``)."""

    odds_method: Mapping[str, Any] = dataclasses.field(default_factory=lambda: {"kind": "exact"})

    def to_json(self) -> dict[str, Any]:
        out = super().to_json()
        out["odds_method"] = dict(self.odds_method)
        return out


def _with_method(res: Resolution, method: Mapping[str, Any], **changes: Any) -> BudgetedResolution:
    fields = {f.name: getattr(res, f.name) for f in dataclasses.fields(Resolution)}
    fields.update(changes)
    return BudgetedResolution(**fields, odds_method=dict(method))


_PATCHED: dict[int, Callable[..., Any]] = {}


def _bypass_caches_when_sampling() -> None:
    """Make the rules core's memoised functions skip their cache while sampling.

    A sampled distribution must neither be cached (an exact answer elsewhere would
    return it) nor reused (the samples would not be independent). The functions keep
    their cache for exact odds; each ``rules.*`` module's name is pointed at a thin
    wrapper that calls the uncached function when :data:`rules.dice.GUARD` samples.
    """
    for name, module in list(sys.modules.items()):
        if not name.startswith("rules.") or module is None:
            continue
        for attr, obj in list(vars(module).items()):
            if not (callable(obj) and hasattr(obj, "cache_info") and hasattr(obj, "__wrapped__")):
                continue
            if getattr(obj, "_budget_wrapper", False):
                continue
            wrapper = _PATCHED.get(id(obj))
            if wrapper is None:
                wrapper = _PATCHED[id(obj)] = _sampling_bypass(obj)
            setattr(module, attr, wrapper)


def _sampling_bypass(cached: Any) -> Callable[..., Any]:
    plain = cached.__wrapped__

    @functools.wraps(plain)
    def call(*args: Any, **kwargs: Any) -> Any:
        guard = GUARD.get()
        if guard is not None and guard.sampling:
            return plain(*args, **kwargs)
        return cached(*args, **kwargs)

    call._budget_wrapper = True  # type: ignore[attr-defined]
    call.cache_info = cached.cache_info  # type: ignore[attr-defined]
    call.cache_clear = cached.cache_clear  # type: ignore[attr-defined]
    call.__wrapped__ = plain
    return call


def _too_large(seconds: float) -> InvalidActionError:
    error = InvalidActionError(
        f"this action rolls too many dice to resolve, even as an estimate, within {seconds:.1f} s; "
        "split it into smaller actions (fewer firers or attacks)", msg_id="odds.too_large",
        params={"seconds": round(seconds, 1)})
    error.message_fr = (f"cette action lance trop de dés pour être résolue, même par estimation, "
                        f"en {seconds:.1f} s ; découpez-la en actions plus petites (moins de tireurs ou d'attaques)")
    return error


def fresh_dice(dice: Dice | None) -> Callable[[], Dice | None]:
    """Return a maker of copies of ``dice`` as they are now (typed-in values, or the seeded generator's state)."""
    if dice is None:
        return lambda: None
    typed = dice.typed
    state = dice.rng.getstate() if dice.rng is not None else None

    def make() -> Dice:
        if state is None:
            return Dice(typed=typed)
        rng = random.Random()
        rng.setstate(state)
        return Dice(rng=rng)

    return make


def resolve_within(run: Callable[[Dice | None], Resolution], make_dice: Callable[[], Dice | None], *,
                   budget_s: float = EXACT_BUDGET_S, sample_budget_s: float = SAMPLE_BUDGET_S,
                   samples: int = MAX_SAMPLES, seed: int = 12) -> BudgetedResolution:
    """Run ``run(dice)`` with exact odds if they take at most ``budget_s``, else estimate them.

    ``make_dice`` returns fresh dice for each attempt (typed-in dice or a seed are
    consumed by a resolution); the result with those dice is the same either way.
    The estimate draws up to ``samples`` simulated rolls within ``sample_budget_s``
    (at least :data:`MIN_SAMPLES`).
    """
    # The exact odds get budget_s of this thread's CPU time (the same answer on a busy machine),
    # and at most twice that on the clock (a busy machine cannot stretch a request past it).
    token = GUARD.set(_Guard(deadline=time.monotonic() + 2 * budget_s, cpu_deadline=time.thread_time() + budget_s))
    try:
        return _with_method(run(make_dice()), {"kind": "exact"})
    except OddsTooSlowError:
        pass
    finally:
        GUARD.reset(token)
    _bypass_caches_when_sampling()
    rng = random.Random(seed)
    counts: dict[str, Counter[Hashable]] = {}
    n = 0
    first: Resolution | None = None
    stop = time.monotonic() + sample_budget_s
    hard_stop = stop + sample_budget_s / 2  # past the budget only to reach a minimum of samples
    while n < samples:
        now = time.monotonic()
        if (now >= stop and n >= MIN_SAMPLES) or (now >= hard_stop and n >= 5):
            break
        token = GUARD.set(_Guard(deadline=hard_stop + sample_budget_s / 2, rng=random.Random(rng.getrandbits(64))))
        try:
            sample = run(None)
        except OddsTooSlowError:
            if n < 5:
                raise _too_large(budget_s + 2 * sample_budget_s) from None
            break
        finally:
            GUARD.reset(token)
        first = first or sample
        draw = _Guard(rng=random.Random(rng.getrandbits(64)))
        for name, dist in sample.odds.items():  # one outcome of each named distribution
            counts.setdefault(name, Counter())[draw.pick(dist.probs)] += 1
        n += 1
    dice = make_dice()
    if dice is None and first is not None:
        final = first  # odds only: the explanation and the needed rolls do not depend on the draws
    else:
        token = GUARD.set(_Guard(deadline=time.monotonic() + sample_budget_s, rng=random.Random(seed)))
        try:
            final = run(dice)  # the explanation, the needed rolls and the result with the real dice
        except OddsTooSlowError:
            raise _too_large(budget_s + 2 * sample_budget_s) from None
        finally:
            GUARD.reset(token)
    odds = {name: Distribution({o: Fraction(c, n) for o, c in counter.items()}) for name, counter in counts.items()}
    error_95 = 1.96 * math.sqrt(0.25 / n)  # the widest 95 % interval (at a probability of 1/2)
    step = Step("odds", f"Monte-Carlo estimate from {n} simulated rolls: the exact odds would take more than "
                        f"{budget_s:g} s; each probability is within ±{error_95 * 100:.1f} points (95 %)", SOURCE,
                value=n, msg="odds.monte_carlo",
                params={"samples": n, "budget": budget_s, "error": round(error_95 * 100, 1)})
    method = {"kind": "monte-carlo", "samples": n, "error_95": round(error_95, 4), "exact_budget_s": budget_s}
    return _with_method(final, method, odds=odds, steps=tuple(final.steps) + (step,))
