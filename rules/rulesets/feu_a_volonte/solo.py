"""Feu à Volonté solo play: non-player characters (Jouer en solitaire, Personnages non-joueurs).

From ``seeds/feu-a-volonte-v1.6.txt``: after the player's figures, each NPC group is
activated. A group within 2 UD of one of the player's figures charges it; otherwise it
moves its 4 UD in the direction a d6 gives on the book's direction template, then fires
at one of the player's figures it has a line of sight on. NPCs have quality 2d6, cran -1,
move 4 UD, carry what they show, and leave the game when they lose a fight by even one
point. Optional "survival game" rule: at the end of each turn, 1d4 new NPCs per entry
point (1 to 4 figures).

The direction template and the entry-point sketch are drawings the text does not carry:
the die is rolled and its face given; the players read the drawing.
"""

from __future__ import annotations

from typing import Any, Mapping

from rules.dice import Dice, Distribution, die, sum_of
from rules.errors import IllegalActionError
from rules.explain import Step, msg
from rules.measure import model_distance_mm
from rules.plan import TablePlan
from rules.resolution import Action, Resolution
from rules.rulesets.feu_a_volonte.actions import RULESET, _ud_mm
from rules.rulesets.feu_a_volonte.results import NpcResult, ReinforcementsResult
from rules.rulesets.feu_a_volonte.words import id_list
from rules.rulesets.kit import req_int, req_str
from rules.rulesets.params import Param

SRC_SOLO = "Feu à Volonté, Jouer en solitaire"
CHARGE_UD = 2.0
NPC_MOVE_UD = 4.0


def npc_activate(plan: TablePlan, request: Mapping[str, Any], dice: Dice | None) -> Resolution:
    """Activate an NPC group: charge within 2 UD, else move 4 UD by a d6 direction and fire (Jouer en solitaire).

    Request: ``group`` (the NPC unit).
    """
    from rules.rulesets import find_ruleset
    from rules.visibility import line_of_sight

    gid = req_str(request, "group")
    group = plan.models_of(gid)
    if not group:
        raise IllegalActionError(f"NPC group {gid!r} has no figure on the table", msg_id="fav.npc.no_figure",
                                 params={"group": gid})
    side = plan.unit(gid).side
    players = [m for m in plan.models if plan.unit(m.unit_id).side != side]
    if not players:
        raise IllegalActionError("no figure of the player on the table", msg_id="fav.npc.no_player")
    ud = _ud_mm(plan)
    pairs = sorted((model_distance_mm(n, p, how="centre"), n.model_id, p.model_id) for n in group for p in players)
    d, npc, target = pairs[0]
    steps = [Step("NPC", f"nearest: {npc} is {d / ud:.2f} UD from {target} (centre to centre)", SRC_SOLO,
                  value=round(d / ud, 3), msg="fav.npc.nearest",
                  params={"npc": npc, "distance": round(d / ud, 2), "target": target})]
    if d <= CHARGE_UD * ud + 1e-9:
        steps.append(Step("charge", f"within {CHARGE_UD:g} UD: the group charges {target} (resolve the melee)",
                          SRC_SOLO, msg="fav.npc.charge", params={"reach": CHARGE_UD, "target": target}))
        result = NpcResult(gid, "charge", target=target).to_json()
        return Resolution(RULESET, "npc_activate", tuple(steps), {}, {"action": Distribution.certain("charge")}, (),
                          result, plan)
    rs = find_ruleset(RULESET)
    seen = sorted({p.model_id for n in group for p in players
                   if line_of_sight(plan, n.model_id, p.model_id, ruleset=rs).visible})
    steps.append(Step("move", f"no figure within {CHARGE_UD:g} UD: the group moves {NPC_MOVE_UD:g} UD in the direction "
                      "the d6 gives on the book's direction template", SRC_SOLO, value=NPC_MOVE_UD,
                      msg="fav.npc.move", params={"reach": CHARGE_UD, "move": NPC_MOVE_UD}))
    steps.append(Step("fire", "after the move it fires at a figure it sees (shoot action); from where it stands now it "
                      f"sees: {', '.join(seen) or 'none'}", SRC_SOLO, msg="fav.npc.fire",
                      params={"seen": id_list(seen)}))
    odds = {"direction (d6 face)": die(6)}
    if dice is None:
        return Resolution(RULESET, "npc_activate", tuple(steps), {}, odds)
    face = dice.roll(6)
    steps.append(Step("direction", f"d6 = {face}: read direction {face} on the template", SRC_SOLO, value=face,
                      msg="fav.npc.direction", params={"face": face}))
    result = NpcResult(gid, "move", direction=face, move_ud=NPC_MOVE_UD, sees_now=tuple(seen)).to_json()
    return Resolution(RULESET, "npc_activate", tuple(steps), {}, odds, tuple(dice.rolled), result, plan)


def npc_reinforcements(plan: TablePlan, request: Mapping[str, Any], dice: Dice | None) -> Resolution:
    """Survival game: at the end of a turn, 1d4 new NPCs at each entry point (Règles optionnelles « survivalgame »).

    Request: ``entry_points`` (default 3).
    """
    n = req_int(request, "entry_points", 3, minimum=1)
    steps = [Step("reinforcements", f"{n} entry point(s): 1d4 NPC figures at each (1 to 4)", SRC_SOLO, value=n,
                  msg="fav.npc.reinforcements", params={"n": n})]
    odds = {"new NPCs": sum_of(n, 4)}
    if dice is None:
        return Resolution(RULESET, "npc_reinforcements", tuple(steps), {}, odds)
    faces = [dice.roll(4) for _ in range(n)]
    steps.append(Step("d4", ", ".join(f"entry {i + 1}: {f}" for i, f in enumerate(faces)), SRC_SOLO,
                      msg="fav.npc.arrivals",
                      params={"entries": [msg("fav.npc.entry", n=i + 1, d4=f) for i, f in enumerate(faces)]}))
    result = ReinforcementsResult(tuple(faces), sum(faces)).to_json()
    return Resolution(RULESET, "npc_reinforcements", tuple(steps), {}, odds, tuple(dice.rolled), result, plan)


SOLO_ACTIONS: dict[str, Action] = {"npc_activate": npc_activate, "npc_reinforcements": npc_reinforcements}
SOLO_PARAMS: Mapping[str, tuple[Param, ...]] = {
    "npc_activate": (Param("group", "unit", help="the NPC group activated"),),
    "npc_reinforcements": (Param("entry_points", "integer", required=False, minimum=1, help="default 3"),),
}
