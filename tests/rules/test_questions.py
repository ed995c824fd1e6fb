"""``ask`` and ``tabletracker ask``: every question of every rule set on its sample game, errors, the CLI."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from rules.errors import GameFileError, InvalidActionError
from rules.plan import load_game
from rules.questions import ask, questions
from rules.rulesets import RULESETS, find_ruleset
from rules.rulesets.common import Args, kind_of_id
from tabletracker.cli import main

GAMES = Path(__file__).resolve().parents[2] / "rules" / "data" / "games"
SAMPLE = {rs.name: GAMES / f"{rs.name}-sample.json" for rs in RULESETS}

# One example of every question on the sample game of its rule set (the web page's and API's menu).
EXAMPLES: dict[str, dict[str, list[str]]] = {
    "high-fire": {"distance": ["al-1", "rd-1"], "los": ["alpha", "red-1"], "cohesion": ["red-2"],
                  "template": ["300", "300", "50"], "objectives": [], "terrain": ["al-1"],
                  "range": ["alpha", "red-1", "--weapon-range", "24"], "cover": ["alpha", "red-1"],
                  "proximity": ["alpha"], "move": ["al-1", "100", "150", "--action", "careful"]},
    "firefight": {"distance": ["squad-a", "squad-b"], "los": ["a1", "b1"], "cohesion": ["squad-b"],
                  "template": ["400", "900", "76.2"], "objectives": [], "terrain": [],
                  "range": ["squad-a", "squad-b", "--weapon-range", "30"], "cover": ["squad-a", "squad-b"],
                  "aura": ["hero-a"], "charge": ["squad-a", "squad-b"], "melee": ["squad-a", "squad-b"],
                  "blast": ["squad-a", "squad-b", "--x", "3"], "deployment": [], "ambush": ["bikers-b"],
                  "scout": ["snipers-a"], "move": ["a1", "300", "250"], "jump": ["4"]},
    "feu-a-volonte": {"distance": ["para-leader", "us-leader"], "los": ["para-2", "us-3"], "cohesion": ["para-1"],
                      "template": ["450", "430", "120"], "objectives": [], "terrain": ["us-1"],
                      "range": ["para-2", "us-3"], "cover": ["para-2", "us-3"], "arc": ["para-2", "us-2"],
                      "shooters": ["us-3", "para-1", "para-2"], "aura": ["para-leader"], "radio": [],
                      "spot": ["us-1"], "hide": ["us-1"], "grenade": ["para-3", "420", "250"],
                      "split": ["us-1", "us-3"], "move": ["para-1", "120", "300"]},
    "at-43": {"distance": ["sa-leader", "g264-3"], "los": ["sierra-alpha", "golems-272"], "template": ["600", "820", "60"],
              "objectives": [], "terrain": [], "range": ["sierra-alpha", "golems-264"],
              "firezone": ["sierra-alpha", "golems-264"], "shooters": ["sierra-alpha", "golems-272"],
              "cover": ["sierra-alpha", "golems-264"], "casualties": ["sierra-alpha", "golems-256"],
              "indirect": ["sierra-bravo", "g264-3", "--area", "3", "--successes", "2", "--failures", "0"]},
    "star-wars": {"distance": ["st-1", "rb-1"], "los": ["st-1", "rb-1"], "template": ["400", "760", "50"],
                  "objectives": [], "terrain": [], "range": ["st-1", "rb-1"], "cover": ["st-3", "rb-3"],
                  "aura": ["officer-1"], "activation": ["officer-1"], "zone": ["400", "760", "--radius", "2"],
                  "force": ["repulsion", "inquisitor"], "move": ["st-1", "240", "330"]},
}


def test_every_question_has_an_example() -> None:
    for rs in RULESETS:
        assert set(EXAMPLES[rs.name]) == set(rs.question_names), rs.name


@pytest.mark.parametrize("ruleset, question", [(r, q) for r, qs in EXAMPLES.items() for q in qs])
def test_every_question_answers_on_the_sample_game(ruleset: str, question: str) -> None:
    plan = load_game(SAMPLE[ruleset])
    out = ask(plan, question, EXAMPLES[ruleset][question])
    assert out["question"] == question and out["ruleset"] == ruleset
    assert isinstance(out["answer"], str) and out["answer"]
    assert out["explanation"] and all(step["source"] for step in out["explanation"])
    json.dumps(out)


def test_questions_lists_the_rule_set_questions() -> None:
    assert questions("star-wars") == find_ruleset("star-wars").question_names
    assert "firezone" in questions(load_game(SAMPLE["at-43"]))


@pytest.mark.parametrize("question, args, message", [
    ("distance", ["a1"], "distance: missing B; usage: distance A B"),
    ("distance", ["a1", "b1", "c1"], "too many arguments"),
    ("distance", ["a1", "nobody"], "'nobody' is not a model, unit, terrain piece"),
    ("distance", ["obj-1", "forest-1"], "measure from a model or a unit"),
    ("distance", ["a1", "b1", "--how", "diagonal"], "--how must be edge or centre"),
    ("los", ["a1", "squad-b"], "name two models or two units"),
    ("template", ["x", "1", "2"], "X_MM must be a number"),
    ("template", ["1", "2", "-5"], "RADIUS_MM must be a number of at least 0"),
    ("blast", ["squad-a", "squad-b", "--x", "two"], "--x must be a whole number"),
    ("range", ["squad-a", "squad-b", "--weapon-range"], "--weapon-range needs a value"),
    ("teleport", [], "has no question 'teleport'; its questions are: distance, los"),
])
def test_bad_questions_are_refused_clearly(question: str, args: list[str], message: str) -> None:
    plan = load_game(SAMPLE["firefight"])
    with pytest.raises(InvalidActionError, match=message):
        ask(plan, question, args)


def test_distance_answers_in_both_measures_and_both_units() -> None:
    out = ask(load_game(SAMPLE["firefight"]), "distance", ["a1", "b1"])
    assert out["distance"]["unit"] == '"' and out["how"] == "edge"
    assert out["centre_to_centre"]["mm"] > out["edge_to_edge"]["mm"] == out["distance"]["mm"]
    centre = ask(load_game(SAMPLE["firefight"]), "distance", ["a1", "b1"], {"measure": "centre"})
    assert centre["distance"] == out["centre_to_centre"] and centre["options"]["measure"] == "centre"
    assert {"rule": "measuring"}.items() <= centre["explanation"][0].items()
    assert centre["explanation"][0]["option"] == "measure=centre"


def test_distance_to_terrain_objective_and_edge() -> None:
    plan = load_game(SAMPLE["firefight"])
    assert ask(plan, "distance", ["squad-a", "obj-1"])["from_model"] in {m.model_id for m in plan.models_of("squad-a")}
    assert ask(plan, "distance", ["building-1", "a1"])["distance"]["mm"] >= 0
    assert ask(plan, "distance", ["a1", "edge"])["edge"] == "top"


def test_kind_of_id() -> None:
    plan = load_game(SAMPLE["firefight"])
    assert [kind_of_id(plan, i) for i in ("a1", "squad-a", "forest-1", "obj-1", "left")] == \
        ["model", "unit", "terrain", "objective", "edge"]


def test_args_parser() -> None:
    v = Args("q", ["a", "--n", "2.5", "--flag", "--t=x", "b", "c"]).parse(
        ("A",), optional=("B",), flags={"n": "number", "flag": "bool", "t": "text"}, rest="R")
    assert (v["A"], v["B"], v["R"], v["n"], v["flag"], v["t"]) == ("a", "b", ["c"], 2.5, True, "x")


def test_a_game_with_an_unknown_terrain_kind_is_refused(tmp_path: Path) -> None:
    doc = json.loads(SAMPLE["star-wars"].read_text(encoding="utf-8"))
    doc["terrain"][0]["kind"] = "lava"
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(doc), encoding="utf-8")
    with pytest.raises(GameFileError, match="kind 'lava'"):
        ask(load_game(bad), "distance", ["st-1", "rb-1"])


# -- the command line ----------------------------------------------------------------------------------

def run(capsys: Any, *argv: str) -> tuple[int, str, str]:
    code = main(["ask", *argv])
    out = capsys.readouterr()
    return code, out.out, out.err


def test_cli_readable_answer(capsys: Any) -> None:
    code, out, err = run(capsys, str(SAMPLE["at-43"]), "firezone", "sierra-alpha", "golems-264")
    assert code == 0 and not err
    assert out.startswith("firezone (at-43): 7 model(s) in the fire zone take impacts first: g256-3")
    assert "(AT-43, 2/ Détermination de la zone de feu)" in out


def test_cli_json_and_options(capsys: Any) -> None:
    code, out, _ = run(capsys, str(SAMPLE["feu-a-volonte"]), "distance", "para-leader", "us-leader", "--json",
                       "--option", "ud_mm=20")
    data = json.loads(out)
    assert code == 0 and data["distance"]["value"] == pytest.approx(34.0, abs=0.01) and data["options"]["ud_mm"] == 20.0
    code, out, _ = run(capsys, "--json", str(SAMPLE["feu-a-volonte"]), "range", "para-2", "us-3")
    assert json.loads(out)["band"] == "4-8 UD"


def test_cli_lists_questions(capsys: Any) -> None:
    code, out, _ = run(capsys, str(SAMPLE["star-wars"]))
    assert code == 0 and out.startswith("star-wars questions: distance, los")


@pytest.mark.parametrize("argv, message", [
    (["{game}", "firezone", "squad-a", "squad-b"], "has no question 'firezone'; its questions are"),
    (["{game}", "distance", "a1", "zz"], "'zz' is not a model"),
    (["{game}", "distance", "a1", "b1", "--option", "measure"], "--option must be KEY=VALUE"),
    (["{game}", "distance", "a1", "b1", "--option", "colour=red"], "has no option 'colour'"),
    (["missing.json", "distance", "a", "b"], "cannot read the game file"),
])
def test_cli_errors_exit_2_with_one_line(capsys: Any, argv: list[str], message: str) -> None:
    argv = [a.replace("{game}", str(SAMPLE["firefight"])) for a in argv]
    code, out, err = run(capsys, *argv)
    assert code == 2 and not out
    assert message in err and err.count("\n") == 1 and "Traceback" not in err


def test_cli_malformed_game_file(capsys: Any, tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text('{"ruleset": "at-43", "table": {"width_mm": 10}}', encoding="utf-8")
    code, _, err = run(capsys, str(bad), "distance", "a", "b")
    assert code == 2 and "table.depth_mm is missing" in err


def test_describe_gives_a_usage_line_per_question(capsys: Any) -> None:
    from rules.questions import describe
    menu = describe("firefight")
    assert [q["question"] for q in menu] == list(find_ruleset("firefight").question_names)
    assert all(q["help"].startswith(q["question"]) for q in menu)
    code, out, _ = run(capsys, str(SAMPLE["firefight"]), "--json")
    assert code == 0 and json.loads(out)["questions"][0]["question"] == "distance"


def test_at43_range_explains_there_is_no_weapon_range() -> None:
    with pytest.raises(InvalidActionError, match="AT-43 weapons have no range"):
        ask(load_game(SAMPLE["at-43"]), "range", ["sierra-alpha", "golems-264", "--weapon-range", "30"])
