"""``tabletracker resolve``: odds without dice, results with dice or a seed, the game written, clean errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rules.plan import load_game
from tabletracker.cli import main

DATA = Path(__file__).resolve().parent / "data"
FAV = str(DATA / "fav-duel.json")
AT43 = str(DATA / "at43-sierra-vs-golems.json")


def test_odds_without_dice(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["resolve", FAV, "shoot", "us-2", "para-4"]) == 0
    out = capsys.readouterr().out
    assert "-1: target 10.8 UD away, band 8-12 UD" in out
    assert "odds of shot:" in out and "(1/36)" in out  # out of ammunition on a double 1 with 2d6
    assert "result:" not in out


def test_players_dice_give_the_result_and_the_game(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out_file = tmp_path / "after.json"
    assert main(["resolve", FAV, "shoot", "us-2", "para-4", "--dice", "6,6,1,6,6", "--out", str(out_file)]) == 0
    assert "written to" in capsys.readouterr().out
    after = load_game(out_file)
    assert all(m.model_id != "para-4" for m in after.models)


def test_json_with_seed_holds_dice_result_and_game(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["resolve", AT43, "shoot", "sierra-alpha", "golems-256", "--weapon", "laser rifle",
                 "--seed", "7", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["needed"] == {"to hit": "4+", "damage (storm golem)": "4+"}
    assert len(doc["dice"]) >= 6 and "removed" in doc["result"]
    assert doc["game"]["ruleset"] == "at-43"
    removed = set(doc["result"]["removed"])
    assert removed.isdisjoint(m["id"] for m in doc["game"]["models"])
    assert main(["resolve", AT43, "shoot", "sierra-alpha", "golems-256", "--weapon", "laser rifle",
                 "--seed", "7", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["dice"] == doc["dice"]


def test_key_value_arguments_and_action_list(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["resolve", FAV, "shoot", "us-2", "para-4", "moved=yes", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert any("moved before shooting" in s["text"] for s in doc["explanation"])
    assert main(["resolve", FAV]) == 0
    assert "feu-a-volonte actions: activate, disengage, end-turn, initiative, melee" in capsys.readouterr().out


@pytest.mark.parametrize(("argv", "message"), [
    (["shoot", "us-2", "nobody"], "no model 'nobody'"),
    (["dance", "us-2"], "has no action 'dance'; actions are:"),
    (["shoot", "us-2", "para-4", "para-3"], "shoot takes FIRING TARGET"),
    (["shoot", "us-2", "para-4", "--dice", "3,x"], "--dice must be whole numbers"),
    (["shoot", "us-2", "para-4", "--dice", "3,5"], "not enough dice typed in"),
    (["shoot", "us-2", "para-4", "--dice", "7,5,1,1,1"], "typed as 7"),
    (["shoot", "us-2", "para-4", "--out", "x.json"], "--out writes the game after the result"),
    (["shoot", "us-2", "para-4", "--roster", "/nonexistent.json"], "cannot read the roster file"),
])
def test_errors_are_one_line_exit_2(argv: list[str], message: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["resolve", FAV, *argv]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


def test_bad_game_file_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text("{}", encoding="utf-8")
    assert main(["resolve", str(bad), "shoot", "a", "b"]) == 2
    assert "ruleset is missing" in capsys.readouterr().err


def test_roster_merged_into_a_positions_only_game(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    game = {"ruleset": "at-43", "table": {"width_mm": 1200, "depth_mm": 1200}, "units": [], "models": []}
    path = tmp_path / "empty.json"
    path.write_text(json.dumps(game), encoding="utf-8")
    rosters = Path(__file__).resolve().parents[2] / "rules" / "data" / "rosters"
    assert main(["resolve", str(path), "activate", "sierra-alpha", "--roster", str(rosters / "at-43-una-sierra.json"),
                 "--roster", str(rosters / "at-43-therian-golems.json")]) == 0
    assert "sierra-alpha is activated" in capsys.readouterr().out


def test_registry_lists_the_actions_of_each_rule_set() -> None:
    from rules.errors import InvalidActionError
    from rules.resolve import actions_of

    assert actions_of("at-43")["shoot"].__module__ == "rules.rulesets.at43.actions"
    with pytest.raises(InvalidActionError, match="unknown rule set 'chess'; rule sets are: high-fire"):
        actions_of("chess")
