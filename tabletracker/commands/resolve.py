"""``tabletracker resolve GAME.json ACTION ARGS... [--weapon NAME] [--dice 3,5,6 | --seed N] [--json]
[--out NEW.json]``.

Resolves one action of the game's rule set with :func:`rules.resolve.resolve`, the
function the web page uses too. The action's main arguments come in order
(``shoot FIRING TARGET``, ``melee ATTACKER DEFENDER``, ``morale UNIT``,
``activate UNIT``...); any other argument is ``key=value`` (``cover=yes``,
``shooters=us-1,us-3``, ``shots=2``). ``--roster FILE`` (repeatable) merges roster
files into the game first, for a game file that holds only positions.

Without dice it prints the explanation and the exact odds; with the players' dice
(``--dice 3,5,6``, in the order rolled) or ``--seed N`` it also prints the dice,
the result and, with ``--out``, writes the game after it (``--json`` puts the game
in the JSON answer). Bad input is a ``ValueError`` printed as one line (exit 2).
"""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path
from typing import Any, Sequence

from calibration.units import DEFAULT_UD_MM
from tabletracker.errors import TabletrackerError, UsageError
from tabletracker.i18n import (
    explanation_lines,
    localize,
    message_of,
    message_text,
    number,
    outcome_word,
    page_words,
    render,
    rule_word,
    said,
    user_language,
    worded,
)

MAX_DICE = 200  # the dice of one action, as the web page allows


# The main arguments of each action, in the order they are typed. A combat module may
# give its own as ``ARGUMENTS``; any other argument is typed key=value.
DEFAULT_ARGUMENTS: dict[str, tuple[str, ...]] = {
    "shoot": ("firing", "target"), "melee": ("attacker", "defender"), "charge": ("attacker", "defender"),
    "morale": ("unit",), "activate": ("unit", "action"), "spot": ("spotter", "target"),
    "reload": ("unit",), "recruit": ("side",), "deploy": ("unit",), "cast": ("caster", "target"),
    "jump": ("model",), "end-turn": (), "end_round": (), "lead": ("unit", "model"),
    "throw": ("thrower", "target"), "pay": ("unit", "action"), "weather": (), "initiative": (),
    "disengage": ("unit",), "artillery": ("observer", "target"),
}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("game", help="the game file (JSON, see docs/game-file.md), or a bundled game's name: "
                        "at-43, feu-a-volonte, firefight, high-fire, star-wars, demo")
    parser.add_argument("action", nargs="?", default=None,
                        help="shoot, melee, morale, activate... (leave out to list the rule set's actions)")
    parser.add_argument("args", nargs="*", default=[],
                        help="the action's arguments: ids in order (shoot FIRING TARGET), then key=value")
    parser.add_argument("--weapon", help="the weapon of this shot or salvo")
    dice = parser.add_mutually_exclusive_group()
    dice.add_argument("--dice", help="the players' dice in the order rolled, e.g. 3,5,6 (or \"3 5 6\")")
    dice.add_argument("--seed", type=int, help="roll the dice with this seed (reproducible)")
    parser.add_argument("--roster", action="append", default=[], metavar="FILE",
                        help="merge this roster file (JSON or YAML, see docs/roster.md) or bundled roster "
                        "(e.g. firefight-brood) into the game first; repeatable")
    parser.add_argument("--json", dest="as_json", action="store_true", help="print the resolution as JSON")
    parser.add_argument("--out", help="write the game after the result to this file (needs --dice or --seed)")
    parser.add_argument("--high-fire-tables", metavar="FILE",
                        help="High Fire: the players' tables file (UNITABLE, results, modifiers, weapons); a path "
                             "named in the game's options.high_fire_tables is read too, relative to the game file")


def parse_dice(text: str) -> list[int]:
    """Return the dice typed as ``"3,5,6"`` or ``"3 5 6"``.

    >>> parse_dice("3, 5 6")
    [3, 5, 6]
    """
    tokens = [t for t in re.split(r"[,\s;]+", text.strip()) if t]
    if not tokens:
        raise worded(UsageError, "cli.dice_empty")
    if len(tokens) > MAX_DICE:
        raise worded(UsageError, "cli.dice_too_many", count=str(len(tokens)), limit=str(MAX_DICE))
    out = []
    for t in tokens:
        if not re.fullmatch(r"\d{1,3}", t):
            shown = text if len(text) <= 40 else text[:37] + "..."
            raise worded(UsageError, "cli.dice_not_numbers", value=repr(t[:12]), text=repr(shown))
        out.append(int(t))
    return out


def build_request(action: str, args: Sequence[str], names: Sequence[str], weapon: str | None) -> dict[str, Any]:
    """Return the request of ``action`` from the typed arguments.

    >>> build_request("shoot", ["a", "b", "cover=yes"], ("firing", "target"), "rifle")
    {'firing': 'a', 'target': 'b', 'cover': 'yes', 'weapon': 'rifle'}
    """
    request: dict[str, Any] = {}
    plain = [a for a in args if "=" not in a]
    if len(plain) > len(names):
        raise worded(UsageError, "cli.too_many_plain", action=action, expected=placeholders(names),
                     count=str(len(plain)),
                     args=" ".join(plain))
    request.update(zip(names, plain))
    for a in args:
        if "=" in a:
            key, _, value = a.partition("=")
            if not key:
                raise worded(UsageError, "cli.key_value", value=repr(a))
            request[key.strip()] = value.strip()
    if weapon is not None:
        request["weapon"] = weapon
    return request


def placeholders(names: Sequence[str]) -> dict[str, Any]:
    """Return an action's main arguments as placeholders (``FIRING TARGET``), a message said in each language.

    >>> from tabletracker.i18n import render
    >>> render("cli.too_many_plain", {"action": "shoot", "expected": placeholders(("firing", "target")),
    ...                               "count": "3", "args": "a b c"}, "fr").split(" ;")[0]
    'shoot attend : TIREUR CIBLE'
    """
    if not names:
        return {"msg": "cli.no_plain_arguments"}
    said: dict[str, Any] = {"msg": f"cli.metavar.{names[-1].upper()}", "text": names[-1].upper()}
    for name in reversed(names[:-1]):
        first = {"msg": f"cli.metavar.{name.upper()}", "text": name.upper()}
        said = {"msg": "cli.metavar.then", "params": {"first": first, "rest": said}}
    return said


def _fraction(entry: dict[str, Any], lang: str) -> str:
    return f"{number(entry['probability'] * 100, 2, lang=lang):>6} %  ({entry['fraction']})"


def summary(out: dict[str, Any], lang: str | None = None) -> str:
    """Return the readable text of a resolution's JSON (its steps in ``lang``, by default the user's)."""
    lang = lang or user_language()
    lines = [f"{out['action']} ({out['ruleset']})", *explanation_lines(out.get("explanation"), lang)]
    for name, needed in out.get("needed", {}).items():  # a roll ("3+"), or a sentence with its message id
        lines.append(_said("cli.resolve.needed", lang, name=rule_word(name, lang),
                           needed=message_text(message_of(needed), lang)))
    for name, dist in out.get("odds", {}).items():
        lines.append(_said("cli.resolve.odds", lang, name=rule_word(name, lang)))
        for entry in dist:
            lines.append(f"    {outcome_word(entry['outcome'], lang):>24}: {_fraction(entry, lang)}")
    if "dice" in out:
        rolled = ", ".join(f"d{d['sides']}={d['value']}" for d in out["dice"]) or _said("cli.resolve.no_dice", lang)
        lines.append(_said("cli.resolve.dice", lang, dice=rolled))
    worded_result = result_words(out.get("result"), lang)
    if worded_result:  # the result's every number stays in the JSON answer (--json)
        lines.append(_said("cli.resolve.result", lang, result=worded_result))
    return "\n".join(lines)


def result_words(result: Any, lang: str) -> str:
    """Return a rolled result in words, as the web page's headline says it: hits, models removed, the effect or
    outcome, a unit that holds or falls back, a model wounded or killed (``""`` when it says none of these).

    >>> result_words({"hits": 1, "removed": [], "effect": "pinned"}, "fr")
    '1 touche(s) ; aucune perte ; cloué au sol'
    >>> result_words({"outcome": "attacker wins", "wounded": "us-1", "location": "buste"}, "en")
    'attacker wins; us-1 wounded (buste)'
    """
    if not isinstance(result, dict):
        return ""
    words = page_words(lang)

    def page(key: str, **params: Any) -> str:
        return (words.get(key) or page_words("en").get(key) or key).format(**params)

    bits = []
    if isinstance(result.get("hits"), int) and not isinstance(result["hits"], bool):
        bits.append(page("headline.hits", n=result["hits"]))
    if isinstance(result.get("removed"), list):
        removed = ", ".join(str(r) for r in result["removed"])
        bits.append(page("headline.removed", who=removed) if removed else page("headline.no_casualty"))
    for key in ("effect", "outcome"):
        if isinstance(result.get(key), str) and result[key] != "none":
            bits.append(outcome_word(result[key], lang))
    if isinstance(result.get("holds"), bool):
        bits.append(outcome_word("holds" if result["holds"] else "falls back", lang))
    for key in ("wounded", "killed"):
        if isinstance(result.get(key), str):
            where = f" ({result['location']})" if key == "wounded" and result.get("location") else ""
            bits.append(f"{result[key]} {outcome_word(key, lang)}{where}")
    return page("list_sep").join(bits)


def _said(msg_id: str, lang: str, **params: Any) -> str:
    return render(msg_id, params, lang) or render(msg_id, params, "en") or msg_id


def carried_weapons(plan: Any, ident: str) -> list[str]:
    """Return the weapons the models of unit (or model) ``ident`` carry, in order, once each."""
    models = [m for m in plan.models if ident in (m.unit_id, m.model_id)]
    seen: dict[str, None] = {}
    for m in models:
        for w in m.weapons or ():
            seen.setdefault(w, None)
    return list(seen)


def with_weapons_listed(exc: TabletrackerError, plan: Any, request: dict[str, Any]) -> UsageError | None:
    """Return ``exc`` with the firing unit's weapons added when ``--weapon`` names none of them, else ``None``."""
    message = str(exc)
    weapon = request.get("weapon")
    first = next((v for k, v in request.items() if k != "weapon" and isinstance(v, str)), None)
    if not weapon or first is None or "weapons are" in message:
        return None
    carried = carried_weapons(plan, first)
    if not carried or weapon.strip().lower() in (w.lower() for w in carried):
        return None
    msg_id = getattr(exc, "msg_id", None)  # the refusal in the user's language, when the core words it
    plain = message.rstrip("; .") + "."
    said: Any = {"msg": msg_id, "params": dict(getattr(exc, "params", {})), "text": plain} if msg_id else plain
    return worded(UsageError, "cli.weapons_carried", message=said, who=first, weapons=", ".join(carried))


def run(args: argparse.Namespace) -> int:
    from calibration.limits import check_tree
    from rules.dice import Dice
    from rules.plan import dump_game, load_game
    from rules.resolve import resolve
    from rules.roster import load_roster, merge_rosters
    from rules.rulesets import find_ruleset
    from tabletracker.samples import game_file, roster_file

    game_path = game_file(args.game)
    plan = load_game(game_path)
    plan = _high_fire_tables(plan, args, game_path)
    if args.roster:
        plan = merge_rosters(plan, [load_roster(roster_file(path)) for path in args.roster])
    rs = find_ruleset(plan.ruleset)
    actions = rs.actions
    if args.action is None:
        print(said("cli.actions", ruleset=plan.ruleset, actions=", ".join(sorted(actions))))
        return 0
    if args.action not in actions:
        raise worded(UsageError, "cli.unknown_action", ruleset=plan.ruleset, action=repr(args.action),
                     actions=", ".join(sorted(actions)))
    if args.out and args.dice is None and args.seed is None:
        raise worded(UsageError, "cli.out_needs_dice")
    names = rs.action_arguments.get(args.action) or DEFAULT_ARGUMENTS.get(args.action, ())
    request = build_request(args.action, args.args, names, args.weapon)
    from tabletracker.lengths import convert_length_request  # distance_in=15cm, move_pas=1m... (docs/units.md)

    request = convert_length_request(request, ud_mm=float((plan.options or {}).get("ud_mm", DEFAULT_UD_MM)))
    check_tree(request, source="the action's arguments", error=UsageError)  # counts of dice, lengths
    dice = None
    if args.dice is not None:
        dice = Dice.given(parse_dice(args.dice))
    elif args.seed is not None:
        dice = Dice.seeded(args.seed)
    from rules.budget import fresh_dice, resolve_within  # exact odds within a time budget, else an estimate

    try:
        resolution = resolve_within(lambda d: resolve(plan, args.action, request, d), fresh_dice(dice))
    except TabletrackerError as exc:
        listed = with_weapons_listed(exc, plan, request)
        if listed is None:
            raise
        raise listed from None
    out = localize(resolution.to_json())
    if args.out and resolution.plan_after is not None:
        Path(args.out).write_text(dump_game(resolution.plan_after), encoding="utf-8")
    if args.as_json:
        print(json.dumps(out, ensure_ascii=False, indent=2))
    else:
        text = summary(out)
        if args.out and resolution.plan_after is not None:
            text += "\n" + said("cli.resolve.written", path=args.out)
        print(text)
    return 0


def _high_fire_tables(plan: Any, args: argparse.Namespace, game_path: str | Path) -> Any:
    """Load High Fire's tables file at the edge: the rules core reads no path from the game."""
    from rules.rulesets.high_fire.actions import with_named_tables

    return with_named_tables(plan, game_path, args.high_fire_tables)
