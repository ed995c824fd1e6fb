"""The odds time budget (issue 12): the Monte-Carlo estimate agrees with the exact odds within its stated error bar."""

from __future__ import annotations

import pytest

from rules.budget import resolve_within
from rules.resolve import resolve
from rules.dice import Dice
from rules.plan import parse_game
from tests.server.test_security import _firefight_salvo


@pytest.mark.parametrize("attacks", [4])
def test_estimate_agrees_with_the_exact_odds_within_its_error_bar(attacks: int) -> None:
    # Grimdark Future Firefight, Tir: three firers shoot a unit of a Tough(3) brute and a trooper.
    plan = parse_game(_firefight_salvo(attacks))
    req = {"firing": "a", "target": "b"}
    exact = resolve_within(lambda d: resolve(plan, "shoot", req, d), lambda: None, budget_s=60.0)
    estimate = resolve_within(lambda d: resolve(plan, "shoot", req, d), lambda: None, budget_s=0.0,
                              samples=300, sample_budget_s=600.0, seed=7)
    assert exact.odds_method["kind"] == "exact"
    assert estimate.odds_method["kind"] == "monte-carlo" and estimate.odds_method["samples"] == 300
    bound = estimate.odds_method["error_95"]
    assert set(estimate.odds) == set(exact.odds)
    for name, dist in exact.odds.items():
        est = estimate.odds[name].probs
        worst = max(abs(float(p) - float(est.get(k, 0))) for k, p in dist.probs.items())
        assert worst <= 1.5 * bound, (name, worst, bound)  # the bound is per probability: the worst of many may pass it
    # the explanation keeps the rule steps and says it is an estimate
    assert [s.rule for s in estimate.steps[:-1]] == [s.rule for s in exact.steps]
    assert "Monte-Carlo estimate from 300 simulated rolls" in estimate.steps[-1].text


def test_dice_decide_the_result_whichever_way_the_odds_were_found() -> None:
    plan = parse_game(_firefight_salvo(4))
    req = {"firing": "a", "target": "b"}
    dice = [5, 2, 6, 1, 4, 3] * 3  # 12 to hit, then one defence die per hit
    exact = resolve_within(lambda d: resolve(plan, "shoot", req, d), lambda: Dice.given(dice), budget_s=60.0)
    estimate = resolve_within(lambda d: resolve(plan, "shoot", req, d), lambda: Dice.given(dice), budget_s=0.0,
                              samples=20)
    assert estimate.odds_method["kind"] == "monte-carlo"
    assert estimate.result == exact.result and estimate.dice == exact.dice
    assert estimate.plan_after == exact.plan_after


def test_sampling_leaves_no_trace_in_the_exact_caches() -> None:
    plan = parse_game(_firefight_salvo(3))
    req = {"firing": "a", "target": "b"}
    first = resolve(plan, "shoot", req, None).odds
    resolve_within(lambda d: resolve(plan, "shoot", req, d), lambda: None, budget_s=0.0, samples=30)
    assert resolve(plan, "shoot", req, None).odds == first
