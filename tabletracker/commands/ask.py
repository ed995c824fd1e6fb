"""``tabletracker ask GAME.json QUESTION ARGS... [--json] [--option key=value]``.

Answers one geometric question about a game file with :func:`rules.questions.ask`,
the function the HTTP API and the web page use too. Prints a readable summary, or
the whole answer as JSON with ``--json``. Bad input (unknown ids, a question the
rule set does not have, a malformed game file) is a ``ValueError`` the CLI prints
as one line with exit code 2.
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from tabletracker.errors import UsageError
from tabletracker.i18n import LANGS, explanation_lines, localize, render, said, user_language, worded


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("game", help="the game file (JSON, see docs/game-file.md), or a bundled game's name: "
                        "at-43, feu-a-volonte, firefight, high-fire, star-wars, demo")
    parser.add_argument("question", nargs="?", default=None,
                        help="distance, los, cohesion, firezone, cover, template, range, aura, objectives... "
                             "(leave out to list the questions of the game's rule set)")
    parser.add_argument("args", nargs=argparse.REMAINDER,
                        help="the question's arguments (ids, numbers, --flags); a length is in the rule set's "
                             "unit unless it says its own (3in, 7.5cm, 76mm, 4UD, 6pas; positions X_MM Y_MM "
                             "are in mm unless they say theirs; see docs/units.md); also --json and "
                             "--option key=value (repeatable) to change a rule-set option")
    parser.add_argument("--json", dest="as_json", action="store_true", help="print the answer as JSON")
    parser.add_argument("--option", action="append", default=[], metavar="KEY=VALUE",
                        help="a rule-set option (see docs/rule-choices.md), e.g. measure=centre")


def _split(args: argparse.Namespace) -> tuple[list[str], bool, dict[str, str]]:
    rest: list[str] = []
    as_json = bool(args.as_json)
    raw_options = list(args.option)
    items = list(args.args)
    i = 0
    while i < len(items):
        tok = items[i]
        if tok == "--json":
            as_json = True
        elif tok == "--option" or tok.startswith("--option="):
            if tok == "--option":
                i += 1
                if i >= len(items):
                    raise worded(UsageError, "cli.option_needs_value")
                raw_options.append(items[i])
            else:
                raw_options.append(tok.split("=", 1)[1])
        else:
            rest.append(tok)
        i += 1
    options: dict[str, str] = {}
    for raw in raw_options:
        key, eq, value = raw.partition("=")
        if not eq or not key:
            raise worded(UsageError, "cli.option_malformed", value=repr(raw))
        options[key.strip()] = value.strip()
    return rest, as_json, options


def _summary(answer: dict[str, Any], lang: str | None = None) -> str:
    lang = lang or user_language()
    summary = answer.get("answer", "")
    if lang != "en":  # the rules core's summary is English: its words in the reader's language, when it has them
        summary = (answer.get("answer_words") or {}).get("texts", {}).get(lang)
    # without them the explanation below says the answer in the reader's language, step by step
    head = f"{answer['question']} ({answer['ruleset']})" + (f": {summary}" if summary else "")
    return "\n".join([head, *explanation_lines(answer.get("explanation"), lang)])


def question_help(ruleset: str, question: dict[str, str], lang: str) -> str:
    """Return a question's help (its usage line and what it answers) in ``lang``.

    The catalogues hold it by rule set (``question.<ruleset>.<question>``) or for every rule set
    (``question.<question>``); a help the rules core has since reworded is said as the core says it.

    >>> question_help("firefight", {"question": "los", "help": "los A B: sight between two models, or between "
    ...                                                             "two units."}, "fr")
    'los A B : la vue entre deux figurines, ou entre deux unités.'
    """
    for msg_id in (f"question.{ruleset}.{question['question']}", f"question.{question['question']}"):
        if render(msg_id, {}, "en") == question["help"]:
            return render(msg_id, {}, lang) or question["help"]
    return question["help"]


def lengths_for_core(ruleset: str, question: str, rest: list[str], options: dict[str, str],
                     menu: list[dict[str, str]]) -> list[str]:
    """Return the question's arguments with every length typed with a unit converted.

    The question's usage line (from the rule set's menu) says which arguments are lengths
    and in which unit the rules core reads them; see :mod:`tabletracker.lengths`.
    """
    from calibration.units import DEFAULT_UD_MM
    from rules.rulesets import find_ruleset
    from tabletracker.lengths import convert_length_args

    usage = next((q["help"] for q in menu if q["question"] == question), None)
    if usage is None:
        return rest  # the rules core names the questions there are
    try:
        ud_mm = float(options.get("ud_mm", DEFAULT_UD_MM))
    except ValueError:
        ud_mm = DEFAULT_UD_MM  # the rules core refuses the bad option with its own message
    if not ud_mm > 0:
        ud_mm = DEFAULT_UD_MM
    return convert_length_args(usage, rest, find_ruleset(ruleset).unit({"ud_mm": ud_mm}), ud_mm=ud_mm)


def run(args: argparse.Namespace) -> int:
    from rules.plan import load_game
    from rules.questions import ask, describe
    from tabletracker.samples import game_file

    rest, as_json, options = _split(args)
    plan = load_game(game_file(args.game))
    if args.question is None:
        menu = describe(plan)
        if as_json:
            worded_menu = [{**q, "texts": {lang: question_help(plan.ruleset, q, lang) for lang in LANGS}} for q in menu]
            print(json.dumps({"ruleset": plan.ruleset, "questions": worded_menu}, ensure_ascii=False))
        else:
            print(said("cli.questions", ruleset=plan.ruleset, questions=", ".join(q["question"] for q in menu)))
            for q in menu:
                print(f"  {question_help(plan.ruleset, q, user_language())}")
        return 0
    rest = lengths_for_core(plan.ruleset, args.question, rest, options, describe(plan))
    answer = localize(ask(plan, args.question, rest, options))
    if as_json:
        print(json.dumps(answer, indent=2, ensure_ascii=False))
    else:
        print(_summary(answer))
    return 0
