"""Feu à Volonté climbing and jumping by height (Feu à Volonté, Les Mouvements).

* Grimper / Sauter: for 2 PA a figure climbs onto, or jumps down from, something at most
  2 UD high (the difference between the ground it stands on and where it goes).
* Higher than that it cannot climb or jump; by a ladder or a stair the height between the
  two levels is measured and counts as the distance moved (4 UD for 1 PA).
* A linear obstacle higher than the figure's shoulder cannot be crossed (the shoulder is
  taken at 0.8 of the figure's height, as the ``move`` question does); lower, it costs 1 UD.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any, Mapping

from rules.errors import InvalidActionError
from rules.explain import Step, msg
from rules.heights import ground_mm
from rules.plan import TablePlan
from rules.rulesets.feu_a_volonte.answers import ClimbAnswer
from rules.rulesets.feu_a_volonte.words import Phrase

if TYPE_CHECKING:
    from rules.rulesets.common import Args
    from rules.rulesets.feu_a_volonte import FeuAVolonte

SRC = "Feu à Volonté, Les Mouvements"
CLIMB_MAX_UD = 2.0
SHOULDER = 0.8  # share of a figure's height at its shoulder


def ask_climb(self: "FeuAVolonte", plan: TablePlan, args: "Args", opts: Mapping[str, Any]) -> ClimbAnswer:
    """climb MODEL (--to-elevation MM | --over TERRAIN) [--ladder]: climb or jump 2 UD at most (2 PA).

    With ``--ladder`` the height between the levels counts as distance moved.
    """
    v = args.parse(("MODEL",), flags={"to-elevation": "number", "over": "text", "ladder": "bool"})
    m = plan.model(v["MODEL"])
    ud = self.unit(opts).mm
    steps: list[Step] = []
    if ("to-elevation" in v) == ("over" in v):
        raise InvalidActionError(f"climb: give --to-elevation MM (the level it goes to) or --over TERRAIN (an obstacle "
                                 f"with a height); usage: {v['_usage']}", msg_id="fav.climb.how")
    if "over" in v:
        piece = next((t for t in plan.terrain if t.terrain_id == v["over"]), None)
        if piece is None:
            raise InvalidActionError(f"climb: no terrain piece {v['over']!r} in this game", msg_id="fav.climb.no_piece",
                                     params={"piece": v["over"]})
        if piece.height_mm is None:
            raise InvalidActionError(f"climb: {piece.terrain_id} has no height_mm in the game file; give its height "
                                     "(see docs/heights.md) or use --to-elevation", msg_id="fav.climb.no_height",
                                     params={"piece": piece.terrain_id})
        rise = float(piece.height_mm) - ground_mm(m)  # onto its top from where the figure stands
        what = f"{piece.terrain_id} ({piece.height_mm:g} mm high)"
        what_said = msg("fav.climb.piece", piece=piece.terrain_id, height=float(piece.height_mm))
        linear = piece.shape == "line"
    else:
        rise = float(v["to-elevation"]) - ground_mm(m)
        what = f"from {ground_mm(m):g} mm to {float(v['to-elevation']):g} mm"
        what_said = msg("fav.climb.levels", low=ground_mm(m), high=float(v["to-elevation"]))
        linear = False
    height_ud = abs(rise) / ud
    ladder = bool(v.get("ladder"))
    cross_ok: bool | None = None
    if linear and m.height_mm is not None:
        shoulder = SHOULDER * float(m.height_mm)
        cross_ok = abs(rise) <= shoulder + 1e-9
        verdict = "crossed for 1 UD of movement" if cross_ok else "it cannot be crossed"
        steps.append(Step("linear obstacle", f"{what}: {'at most' if cross_ok else 'higher than'} "
                          f"{m.model_id}'s shoulder ({shoulder:g} mm): {verdict}", SRC, value=cross_ok,
                          msg="fav.climb.linear_ok" if cross_ok else "fav.climb.linear_no",
                          params={"what": what_said, "who": m.model_id, "shoulder": round(shoulder, 1)}))
    if ladder:
        pa = max(1, math.ceil(height_ud / 4.0 - 1e-9))
        allowed, how = True, f"by a ladder or stair the {height_ud:.2f} UD between the levels count as distance"
        how_words: Any = msg("answer.fav.ladder", height=round(height_ud, 2))
        steps.append(Step("ladder", how + f" ({pa} PA of 4 UD)", SRC, value=round(height_ud, 3), msg="fav.climb.ladder",
                          params={"height": round(height_ud, 2), "pa": pa}))
        cost_pa: int | None = pa
    else:
        allowed = height_ud <= CLIMB_MAX_UD + 1e-9
        cost_pa = 2 if allowed else None
        how = ("climb" if rise >= 0 else "jump down") + f" {height_ud:.2f} UD ({abs(rise):g} mm)"
        how_words = msg("answer.fav.climb_up" if rise >= 0 else "answer.fav.jump_down", height=round(height_ud, 2),
                        mm=round(abs(rise), 1))
        steps.append(Step("climb or jump", how + (": allowed for 2 PA" if allowed else
                                                  f": more than {CLIMB_MAX_UD:g} UD, not allowed (a ladder or stair "
                                                  "would count the height as distance)"), SRC, value=allowed,
                          msg=("fav.climb.up" if rise >= 0 else "fav.climb.down") + ("_ok" if allowed else "_no"),
                          params={"height": round(height_ud, 2), "mm": round(abs(rise), 1), "max": CLIMB_MAX_UD}))
    answer = Phrase(f"{how}: " + (f"{cost_pa} PA" if allowed else "not allowed")
                    + ("" if cross_ok is None or cross_ok else "; the obstacle cannot be crossed, only climbed"),
                    "answer.fav.climb", how=how_words,
                    cost=msg("answer.fav.pa", pa=cost_pa) if allowed else msg("answer.fav.not_allowed"),
                    crossing="" if cross_ok is None or cross_ok else msg("answer.fav.only_climbed"))
    return ClimbAnswer(m.model_id, height_ud, allowed, cost_pa, cross_ok, answer, tuple(steps))
