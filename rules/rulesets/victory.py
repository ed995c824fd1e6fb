"""The ``victory`` question: who is winning, where a seed defines it, and where it does not.

* Grimdark Future Firefight, Mission: the game ends after four rounds; the player who
  controls the most objectives wins (objectives as seized at the end of each round, kept
  in the game state by the ``end_round`` action).
* Feu à Volonté, Fin de partie: the game ends when the scenario's objectives are reached or
  its turns played, or when a player's losses reach three quarters of his company (losses
  kept in the game state by the actions that remove figures, the turn by ``end-turn``). The
  text says when the game ends but names no winner and no score: the answer says so (the
  scenario decides) and gives the turn being played.
* High Fire v0.5.1: the mission sets the number of turns; the initiation rules define no
  victory condition.
* AT-43: the seed is the shooting chapter only; it defines no victory condition.
* Star Wars Grandes escarmouches: the seed defines no victory condition.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Mapping

from rules.explain import Step, msg
from rules.plan import TablePlan
from rules.rulesets.answers import VictoryAnswer
from tabletracker.words import Said

if TYPE_CHECKING:
    from rules.rulesets.base import RuleSet
    from rules.rulesets.common import Args

FIREFIGHT_ROUNDS = 4
NOT_DEFINED = {
    "high-fire": ("High Fire v0.5.1, Séquence de jeu", "the mission sets the number of turns; these initiation rules "
                  "define no victory condition: agree one with your opponent (a scenario)"),
    "at-43": ("AT-43, Tirs (the only chapter available)", "the shooting chapter defines no victory condition: the "
              "mission does"),
    "star-wars": ("Star Wars Grandes escarmouches", "these rules define no victory condition: agree a scenario"),
}


def _sides(plan: TablePlan) -> list[str]:
    return sorted({u.side for u in plan.units})


def _firefight(plan: TablePlan) -> VictoryAnswer:
    from rules.rulesets.firefight.state import FirefightState  # the rule set's package imports this module

    st = FirefightState.of(plan)
    rnd = st.round
    count = {s: sum(1 for v in st.objectives.values() if v == s) for s in _sides(plan)}
    best = max(count.values(), default=0)
    leaders = [s for s, n in count.items() if n == best and best > 0]
    over = st.game_over or rnd > FIREFIGHT_ROUNDS
    lead = leaders[0] if len(leaders) == 1 else None
    text = ", ".join(f"{s} {n}" for s, n in count.items())
    verdict = (f"{lead} {'wins' if over else 'leads'}" if lead else ("a draw" if over else "nobody leads"))
    steps = [Step("victory", f"the game ends after {FIREFIGHT_ROUNDS} rounds; the most objectives controlled wins. "
                  f"Round {min(rnd, FIREFIGHT_ROUNDS)}{' (over)' if over else ''}; objectives held: {text or 'none'}",
                  "Grimdark Future Firefight, Mission", value=lead,
                  msg="victory.firefight_over" if over else "victory.firefight",
                  params={"rounds": FIREFIGHT_ROUNDS, "round": min(rnd, FIREFIGHT_ROUNDS),
                          "held": [msg("victory.held", side=s, count=n) for s, n in count.items()] or "-"})]
    verdict_words = (msg("answer.victory.wins" if over else "answer.victory.leads", side=lead) if lead
                     else msg("answer.victory.draw" if over else "answer.victory.nobody_leads"))
    summary = Said(f"objectives {text or 'none'}: {verdict}", "answer.victory.firefight", verdict=verdict_words,
                   held=[msg("victory.held", side=s, count=n) for s, n in count.items()] or msg("answer.none"))
    return VictoryAnswer(True, over, summary,
                         {"objectives_held": count, "leader": lead}, tuple(steps))


def _fav(plan: TablePlan) -> VictoryAnswer:
    from rules.rulesets.feu_a_volonte.state import FavState  # the rule set's package imports this module

    state = FavState.of(plan)
    losses = dict(state.losses)
    per: dict[str, dict[str, int]] = {}
    broken = []
    for s in sorted(set(_sides(plan)) | set(losses)):
        left = sum(1 for m in plan.models if plan.unit(m.unit_id).side == s)
        lost = losses.get(s, 0)
        company = lost + left
        per[s] = {"lost": lost, "company": company}
        if company and 4 * lost >= 3 * company:
            broken.append(s)
    text = "; ".join(f"{s}: {v['lost']} of {v['company']} lost" for s, v in per.items())
    turn = state.turn or 1
    steps = [Step("victory", "the game ends when the scenario's objectives are reached or its turns played, or when a "
                  f"player's losses reach 3/4 of his company. {text}", "Feu à Volonté, Fin de partie",
                  value=broken or None, msg="victory.fav",
                  params={"losses": [msg("victory.lost", side=s, lost=v["lost"], company=v["company"])
                                     for s, v in per.items()] or "-"}),
             Step("victory", f"the rules say when the game ends, not who wins: no winner or score is defined, the "
                  f"scenario's objectives decide. Turn {turn} is being played; the scenario sets how many",
                  "Feu à Volonté, Fin de partie", value=turn, msg="victory.fav_no_winner", params={"turn": turn})]
    from rules.rulesets.common import semicolons  # common imports this module at its end

    lost_words = [msg("victory.lost", side=s, lost=v["lost"], company=v["company"]) for s, v in per.items()]
    return VictoryAnswer(True, bool(broken),
                         (Said(f"over: {', '.join(broken)} lost 3/4 of the company (the scenario names the winner)",
                               "answer.victory.fav_over", broken=list(broken))
                          if broken else Said(f"not over by losses ({text}); the scenario's objectives and turns "
                                              f"decide the rest (turn {turn})", "answer.victory.fav_not_over",
                                              losses=semicolons(lost_words) or "-", turn=turn)),
                         {"losses": per, "broken": broken, "turn": turn}, tuple(steps))


def q_victory(rs: "RuleSet", plan: TablePlan, args: "Args", opts: Mapping[str, Any]) -> VictoryAnswer:
    """victory: who is winning, as the rule set defines it (or that it does not)."""
    args.parse(())
    if rs.name == "firefight":
        return _firefight(plan)
    if rs.name == "feu-a-volonte":
        return _fav(plan)
    source, text = NOT_DEFINED[rs.name]
    return VictoryAnswer(False, None, Said(text, f"victory.none.{rs.name.replace('-', '_')}"),
                         steps=(Step("victory", text, source, msg=f"victory.none.{rs.name.replace('-', '_')}"),))
