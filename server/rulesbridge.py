"""The web page's door to the rules packages: questions, resolutions, rosters.

Thin on purpose: the page gets exactly the answers ``tabletracker ask`` and
``tabletracker resolve`` give, through the same functions. Packages are imported on
first use so the server starts even while one of them is broken, and says which.
"""

from __future__ import annotations

import importlib
import json
import logging
from types import ModuleType
from typing import Any, Mapping, Sequence

from rules.dice import Dice
from rules.errors import RosterError
from rules.plan import TablePlan
from server.errors import ApiError, with_fr

log = logging.getLogger(__name__)

MAX_DICE = 200
MAX_SEED = 2**63 - 1


def _module(name: str) -> ModuleType:
    try:
        return importlib.import_module(name)
    except ImportError as exc:
        raise ApiError(503, "unavailable", f"{name} cannot be loaded ({exc}); "
                       "this part of the rules is not installed",
                       fr=f"{name} ne peut pas être chargé ({exc}) ; "
                          "cette partie des règles n'est pas installée") from None


def ask(plan: TablePlan, question: str, args: Sequence[str], options: Mapping[str, Any]) -> dict[str, Any]:
    """Answer a geometric question (``rules.questions.ask``); domain errors propagate."""
    return _module("rules.questions").ask(plan, question, list(args), dict(options))


def questions_of(plan: TablePlan) -> list[str]:
    """Return the questions the plan's rule set answers (for the page's menus)."""
    return list(_module("rules.questions").questions(plan))


def actions_of(ruleset: str) -> list[str]:
    """Return the action names of ``ruleset`` (shoot, melee, morale...)."""
    return sorted(_module("rules.resolve").actions_of(ruleset))


def describe_actions(plan: TablePlan) -> list[dict[str, Any]]:
    """Return the plan's actions with their typed arguments and legal values (``rules.resolve.describe_actions``)."""
    return list(_module("rules.resolve").describe_actions(plan))


def dice_from(body: Mapping[str, Any]) -> Dice | None:
    """Return the dice a request asks for: ``dice`` (typed in), ``seed`` (rolled), or neither."""
    dice, seed = body.get("dice"), body.get("seed")
    if dice is not None and seed is not None:
        raise ApiError(400, "bad_request", "give either dice (the players' own, typed in) or seed "
                       "(rolled by the program), not both",
                       fr="donnez soit dice (les dés des joueurs, tapés), soit seed (jet du programme), pas les deux")
    if dice is not None:
        if not isinstance(dice, list) or not dice or len(dice) > MAX_DICE:
            raise ApiError(400, "bad_request", f"dice must be a list of 1 to {MAX_DICE} whole numbers, "
                           f"e.g. [3, 5, 6]; got {json.dumps(dice)[:80]}",
                           fr=f"dice doit être une liste de 1 à {MAX_DICE} nombres entiers, par ex. [3, 5, 6] ; "
                              f"reçu : {json.dumps(dice)[:80]}")
        for i, v in enumerate(dice):
            if isinstance(v, bool) or not isinstance(v, int) or not 1 <= v <= 100:
                raise ApiError(400, "bad_request",
                               f"dice[{i}] must be a whole number from 1 to 100, got {str(v)[:20]!r}",
                               fr=f"dice[{i}] doit être un nombre entier de 1 à 100, reçu : {str(v)[:20]!r}")
        return Dice.given(dice)
    if seed is not None:
        if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed <= MAX_SEED:
            raise ApiError(400, "bad_request",
                           f"seed must be a whole number from 0 to {MAX_SEED}, got {str(seed)[:30]!r}",
                           fr=f"seed doit être un nombre entier de 0 à {MAX_SEED}, reçu : {str(seed)[:30]!r}")
        return Dice.seeded(seed)
    return None


def resolve(plan: TablePlan, action: str, request: Mapping[str, Any], dice: Dice | None, *,
            budget_s: float = 0.6) -> Any:
    """Resolve an action (``rules.resolve.resolve``) within the odds time budget (``rules.budget``).

    Exact odds when they take at most 0.6 s, else a stated Monte-Carlo estimate;
    returns the :class:`Resolution` (its JSON says ``odds_method``).
    """
    one = _module("rules.resolve")
    budget = _module("rules.budget")
    return budget.resolve_within(lambda d: one.resolve(plan, action, request, d), budget.fresh_dice(dice),
                                 budget_s=budget_s)


def parse_roster_text(text: str, filename: str) -> Any:
    """Parse an uploaded roster (JSON or YAML, told by the file name) into a ``Roster``."""
    if not filename.lower().endswith((".json", ".yaml", ".yml")):
        raise with_fr(RosterError(f"{filename}: a roster is a .json, .yaml or .yml file"),
                      f"{filename} : une liste d'armée est un fichier .json, .yaml ou .yml")
    roster = _module("rules.roster")
    data = roster.roster_data_from_text(text, source=filename)
    return roster.parse_roster(data, source=filename)


def merge_rosters(plan: TablePlan, rosters: Sequence[Any]) -> TablePlan:
    """Return ``plan`` with ``rosters`` merged in (``rules.roster.merge_rosters``)."""
    return _module("rules.roster").merge_rosters(plan, list(rosters))


def ruleset_of(name: str) -> Any:
    """Return the :class:`rules.rulesets.RuleSet` called ``name``."""
    return _module("rules.rulesets").find_ruleset(name)


def terrain_kinds(ruleset: str) -> list[dict[str, Any]]:
    """Return the terrain kinds of ``ruleset``: name, allowed shapes, effects, description."""
    rs = ruleset_of(ruleset)
    return [{"kind": name, "shapes": list(k.shapes), "sight": k.sight, "movement": k.movement,
             "cover": k.cover, "text": k.text} for name, k in rs.terrain_kinds.items()]


def length_unit(plan: TablePlan) -> Any:
    """Return the plan's unit of length (Feu à Volonté's UD from the game's options)."""
    rs = ruleset_of(plan.ruleset)
    try:
        options = rs.resolve_options(plan)
    except ValueError:
        options = None
    return rs.unit(options)


def deployment_zones(plan: TablePlan) -> list[dict[str, Any]]:
    """Return each side's deployment zone as a polygon (``[]`` when the rule set has none)."""
    rs = ruleset_of(plan.ruleset)
    unit = length_unit(plan)
    out = []
    for z in rs.deployment_zones(plan, rs.resolve_options(plan)):
        out.append({"side": z.side, "edge": z.edge, "depth": round(unit.from_mm(z.depth_mm), 3), "unit": unit.symbol,
                    "points_mm": [[round(x, 2), round(y, 2)] for x, y in list(z.zone.exterior.coords)[:-1]]})
    return out
