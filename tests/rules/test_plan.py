"""The game file: loads into an immutable plan, round-trips unchanged, refuses bad input."""

from __future__ import annotations

import copy
import dataclasses
import json
from contextlib import nullcontext
from pathlib import Path

import pytest

from rules.errors import GameFileError, InvalidActionError
from rules.plan import Model, dump_game, game_to_dict, load_game, parse_game

CONVENTIONS_EXAMPLE = {
    "ruleset": "firefight",
    "table": {"width_mm": 1219.2, "depth_mm": 1219.2},
    "units": [{"id": "sierra-alpha", "side": "A", "name": "Sierra Alpha", "leader": "m1"}],
    "models": [{"id": "m1", "unit": "sierra-alpha", "marker_id": 12, "x_mm": 100.0,
                "y_mm": 200.0, "base_mm": 25, "facing_deg": 90, "height_mm": 30,
                "profile": "steel trooper", "status": []}],
    "terrain": [{"id": "wood-1", "kind": "forest", "shape": "area",
                 "points_mm": [[300, 300], [450, 300], [450, 400], [300, 400]],
                 "height_mm": 80}],
    "objectives": [{"id": "obj-1", "x_mm": 600, "y_mm": 600}],
}


def test_conventions_example_round_trips_unchanged() -> None:
    plan = parse_game(CONVENTIONS_EXAMPLE)
    assert game_to_dict(plan) == CONVENTIONS_EXAMPLE
    assert json.loads(dump_game(plan)) == CONVENTIONS_EXAMPLE


def test_rich_game_round_trips_unchanged() -> None:
    doc = copy.deepcopy(CONVENTIONS_EXAMPLE)
    doc["name"] = "Partie du dimanche"
    doc["units"][0].update(profile="steel troopers", kind="infantry", rules=["Hero"],
                           extra={"shaken": True})
    doc["models"][0].update(role="leader", weapons=["laser rifle"], extra={"wounds": 1},
                            status=["prone"], name="Struber")
    doc["terrain"].append({"id": "wall-1", "kind": "wall", "shape": "line",
                           "points_mm": [[10, 10], [60, 10], [60, 80]], "name": "mur"})
    doc["profiles"] = {"steel trooper": {"quality": 4, "defense": 4}}
    doc["weapons"] = {"laser rifle": {"range_in": 24, "attacks": 1}}
    doc["options"] = {"measure": "edge"}
    doc["state"] = {"round": 2, "activated": ["sierra-alpha"]}
    assert game_to_dict(parse_game(doc)) == doc


def test_plan_is_immutable_and_changes_make_new_plans() -> None:
    plan = parse_game(CONVENTIONS_EXAMPLE)
    with pytest.raises(dataclasses.FrozenInstanceError):
        plan.ruleset = "at-43"  # type: ignore[misc]
    rich = parse_game({**CONVENTIONS_EXAMPLE, "state": {"round": 1, "activated": ["u"]}})
    assert rich.state is not None
    with pytest.raises(TypeError):
        rich.state["round"] = 3  # type: ignore[index]
    assert rich.state["activated"] == ("u",)
    moved = plan.with_model(dataclasses.replace(plan.model("m1"), position_mm=(150.0, 200.0)))
    assert moved.model("m1").position_mm == (150.0, 200.0)
    assert plan.model("m1").position_mm == (100.0, 200.0)
    after = plan.without_model("m1")
    assert after.models == () and after.unit("sierra-alpha").leader is None
    assert parse_game(game_to_dict(after)) == after  # still a valid game file
    state = plan.with_state({"round": 3}).state
    assert state is not None and state["round"] == 3
    with pytest.raises(TypeError):
        state["round"] = 4  # type: ignore[index]


def test_look_ups() -> None:
    plan = parse_game(CONVENTIONS_EXAMPLE)
    assert plan.side_of("m1") == "A"
    assert plan.leader_of("sierra-alpha") == plan.model("m1")
    assert plan.model_by_marker(12) == plan.model("m1")
    assert plan.model_by_marker(13) is None
    assert plan.models_of("sierra-alpha") == (plan.model("m1"),)
    assert isinstance(plan.model("m1"), Model)
    with pytest.raises(InvalidActionError, match="no unit 'nope'.*sierra-alpha"):
        plan.unit("nope")
    with pytest.raises(InvalidActionError, match="no terrain 'x'.*wood-1"):
        plan.terrain_piece("x")


def _edit(path: str, value: object) -> dict:
    doc = copy.deepcopy(CONVENTIONS_EXAMPLE)
    *parents, last = path.split("/")
    node: object = doc
    for key in parents:
        node = node[int(key)] if isinstance(node, list) else node[key]  # type: ignore[index]
    if value is KeyError:
        del node[last]  # type: ignore[union-attr]
    else:
        node[int(last) if isinstance(node, list) else last] = value  # type: ignore[index]
    return doc


@pytest.mark.parametrize(
    ("path", "value", "expected"),
    [
        ("ruleset", "chess", pytest.raises(GameFileError, match="ruleset must be one of high-fire")),
        ("table/depth_mm", KeyError, pytest.raises(GameFileError, match=r"table\.depth_mm is missing")),
        ("table/width_mm", "120cm", pytest.raises(GameFileError, match=r"table\.width_mm must be a number, got a string")),
        ("table/width_mm", -5, pytest.raises(GameFileError, match="greater than 0")),
        ("colour", "red", pytest.raises(GameFileError, match="unknown key.*'colour'")),
        ("models/0/x_mm", None, pytest.raises(GameFileError, match=r"models\[0\]\.x_mm must be a number, got null")),
        ("models/0/unit", "ghost", pytest.raises(GameFileError, match="unit 'ghost' is not a unit")),
        ("models/0/marker_id", 2, pytest.raises(GameFileError, match="ids 0-3 are the table corners")),
        ("models/0/facing_deg", 360, pytest.raises(GameFileError, match=r"\[0, 360\)")),
        ("models/0/speed", 6, pytest.raises(GameFileError, match=r"models\[0\] has unknown key.*'speed'")),
        ("units/0/leader", "m9", pytest.raises(GameFileError, match="leader 'm9' is not a model")),
        ("terrain/0/shape", "blob", pytest.raises(GameFileError, match="shape must be one of area, line")),
        ("terrain/0/points_mm", [[0, 0], [1, 1]], pytest.raises(GameFileError, match="at least 3 points")),
        ("terrain/0/points_mm", [[0, 0], [1, 1], [2]], pytest.raises(GameFileError, match=r"points_mm\[2\]")),
        ("objectives/0/y_mm", KeyError, pytest.raises(GameFileError, match=r"objectives\[0\]\.y_mm is missing")),
        ("models/0/height_mm", 12.5, nullcontext()),
    ],
)
def test_bad_game_files_name_the_field(path: str, value: object, expected) -> None:
    with expected:
        parse_game(_edit(path, value), source="partie.json")


def test_duplicate_ids_and_markers_are_refused() -> None:
    doc = copy.deepcopy(CONVENTIONS_EXAMPLE)
    doc["models"].append(dict(doc["models"][0]))
    with pytest.raises(GameFileError, match=r"models\[1\]\.id 'm1' is used twice"):
        parse_game(doc)
    doc["models"][1]["id"] = "m2"
    with pytest.raises(GameFileError, match="marker_id 12 is already carried by model 'm1'"):
        parse_game(doc)


def test_load_game_errors_name_the_file(tmp_path: Path) -> None:
    with pytest.raises(GameFileError, match="missing.json: cannot read"):
        load_game(tmp_path / "missing.json")
    bad = tmp_path / "bad.json"
    bad.write_text("{\"ruleset\": ", encoding="utf-8")
    with pytest.raises(GameFileError, match=r"bad.json: not valid JSON \(line 1"):
        load_game(bad)
    good = tmp_path / "good.json"
    good.write_text(json.dumps(CONVENTIONS_EXAMPLE), encoding="utf-8")
    assert game_to_dict(load_game(good)) == CONVENTIONS_EXAMPLE


def test_records_freeze_what_they_are_given_and_plans_hash() -> None:
    from rules.plan import Objective, Table, TablePlan, Terrain, Unit

    status, extra, rules_ = ["prone"], {"wounds": ["bras"]}, ["Stealth"]
    m = Model("m", "u", [10, 20], 25.0, status=status, weapons=["rifle"], extra=extra)  # type: ignore[arg-type]
    u = Unit("u", "A", rules=rules_, extra={"attitude": "a-couvert"})  # type: ignore[arg-type]
    t = Terrain("t", "forest", "area", [[0, 0], [10, 0], [10, 10]])  # type: ignore[arg-type]
    o = Objective("o", [5, 5], extra={"points": 2})  # type: ignore[arg-type]
    plan = TablePlan("firefight", Table(600.0, 600.0), units=[u], models=[m], terrain=[t], objectives=[o],  # type: ignore[arg-type]
                     options={"measure": "edge"}, state={"round": 1, "activated": ["u"]})
    status.append("shaken")
    extra["wounds"].append("tête")
    rules_.append("Fast")
    assert plan.model("m").status == ("prone",) and plan.model("m").extra["wounds"] == ("bras",)
    assert plan.unit("u").rules == ("Stealth",) and plan.model("m").position_mm == (10.0, 20.0)
    assert plan.terrain[0].points_mm == ((0.0, 0.0), (10.0, 0.0), (10.0, 10.0))
    with pytest.raises(TypeError):
        plan.state["round"] = 2  # type: ignore[index]
    same = TablePlan("firefight", Table(600.0, 600.0), units=(u,), models=(m,), terrain=(t,), objectives=(o,),
                     options={"measure": "edge"}, state={"round": 1, "activated": ["u"]})
    assert hash(plan) == hash(same) and plan == same and {plan: 1}[same] == 1
    assert hash(plan.with_state({"round": 2})) != hash(plan)
