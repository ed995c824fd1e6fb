"""``ask``: the one entry point for geometric questions (CLI, HTTP API and web page).

``ask(plan, question, args, options)`` validates the game for its rule set, merges
the options (defaults < game file < ``options``), runs the question and returns a
JSON-ready dict with ``question``, ``ruleset``, the answer's fields, a one-line
``answer`` and the ``explanation`` (rules applied, with sources).

Questions every rule set has: ``distance A B``, ``los A B``, ``template X_MM Y_MM
RADIUS_MM``, ``objectives``, ``terrain [MODEL]``, ``range ...``, ``cover ...``; the
others depend on the rule set (``questions(plan)`` lists them).

Examples
--------
>>> from rules.plan import parse_game
>>> plan = parse_game({"ruleset": "firefight", "table": {"width_mm": 1219.2, "depth_mm": 1219.2},
...     "units": [{"id": "u", "side": "A"}, {"id": "v", "side": "B"}],
...     "models": [{"id": "a", "unit": "u", "x_mm": 100, "y_mm": 100, "base_mm": 25.4},
...                {"id": "b", "unit": "v", "x_mm": 354, "y_mm": 100, "base_mm": 25.4}]})
>>> ask(plan, "distance", ["a", "b"])["answer"]
'a to b: 9.00" base edge to base edge'
>>> ask(plan, "firezone", ["u", "v"])  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
rules.errors.InvalidActionError: Grimdark Future Firefight has no question 'firezone'; its questions are: distance, ...
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from rules.errors import InvalidActionError
from rules.explain import explanation_json
from rules.frozen import thaw
from rules.ontable import placed_only
from rules.plan import TablePlan
from rules.rulesets import RuleSet, find_ruleset
from rules.rulesets.answers import answer_parts
from rules.rulesets.common import COMMON_QUESTIONS, Args, handler
from tabletracker.words import Said


@placed_only
def ask(plan: TablePlan, question: str, args: Sequence[str] = (), options: Mapping[str, Any] | None = None
        ) -> dict[str, Any]:
    """Answer one geometric question about ``plan``.

    Parameters
    ----------
    plan : TablePlan
    question : str
        A question name (``"distance"``, ``"los"``, ``"firezone"``...).
    args : sequence of str
        Its arguments as on the command line (ids, numbers, ``--flag value``).
    options : mapping, optional
        Rule-set options overriding the game file's (``{"measure": "centre"}``).

    Returns
    -------
    dict
        JSON-ready: ``question``, ``ruleset``, ``args``, ``answer`` (one line), the
        answer's fields and ``explanation`` (a list of steps with sources).

    Raises
    ------
    InvalidActionError
        Unknown ids, a question the rule set does not have (its questions are
        listed), bad arguments or options.
    GameFileError
        A terrain kind the rule set does not know.
    """
    rs = find_ruleset(plan.ruleset)
    rs.check_plan(plan)
    opts = rs.resolve_options(plan, options)
    name = question.strip().lower()
    if name not in rs.question_names:  # the names of rs.ask_handlers(), without making every handler
        known = list(dict.fromkeys(rs.question_names))
        raise InvalidActionError(f"{rs.title} has no question {question!r}; its questions are: "
                                 f"{', '.join(known)}", msg_id="ask.unknown_question",
                                 params={"ruleset": rs.title, "question": question, "known": known})
    answer = handler(rs, name)(plan, Args(name, list(args)), opts)
    if isinstance(answer, dict):  # every question has a typed answer record: a dict is a programming error
        raise TypeError(f"{rs.name} question {name!r} answered a plain dict; a question's handler returns a typed "
                        "answer record with to_json() and steps (rules.rulesets.answers)")
    out, steps = answer_parts(answer)
    result: dict[str, Any] = {"question": name, "ruleset": rs.name, "args": list(args)}
    result.update(out)
    summary = out.get("answer")
    if isinstance(summary, Said):  # the summary as a message too: the edges word it in the reader's language
        result["answer_words"] = {"msg": summary.msg_id, "params": thaw(summary.params)}
    data = {s.name for s in rs.option_specs if s.kind == "data"}
    result["options"] = {k: ("(loaded)" if (k in data or isinstance(v, Mapping)) and v else thaw(v))
                         for k, v in opts.items()}  # a table of data (High Fire's tables) is not repeated
    result["explanation"] = explanation_json(tuple(steps))
    return result


def questions(plan_or_ruleset: "TablePlan | str") -> tuple[str, ...]:
    """Return the questions a game's (or a named) rule set answers."""
    name = plan_or_ruleset if isinstance(plan_or_ruleset, str) else plan_or_ruleset.ruleset
    return tuple(find_ruleset(name).ask_handlers())


def describe(plan_or_ruleset: "TablePlan | str") -> list[dict[str, str]]:
    """Return each question of a rule set with its usage line, for menus and help.

    >>> describe("at-43")[3]["question"], describe("at-43")[3]["help"].split(":")[0]
    ('objectives', 'objectives')
    """
    rs: RuleSet = find_ruleset(plan_or_ruleset if isinstance(plan_or_ruleset, str) else plan_or_ruleset.ruleset)
    out = []
    for name in rs.question_names:
        method = getattr(rs, "ask_" + name.replace("-", "_"), None) or COMMON_QUESTIONS.get(name)
        doc = (method.__doc__ or name).strip().splitlines()[0] if method is not None else name
        out.append({"question": name, "help": doc})
    return out


