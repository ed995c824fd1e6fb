"""Every refusal of a malformed game file or roster is a message the edges say in French and English.

One malformed document per kind of mistake (the field reader's wordings, the game file's
references, the roster's structure, the shared roster checks the rule sets call, merging
rosters into a game, an unreadable file): each refusal carries a message id of the
``files`` catalogues whose French and English texts exist and take its parameters, and its
English sentence (the command line's) is the one the rules core always wrote.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any, Callable

import pytest

from rules.errors import RulesError
from rules.plan import load_game, parse_game
from rules.roster import load_roster, merge_rosters, parse_roster
from tabletracker.i18n import LANGS, LOCALE_DIR, render
from tests.rules.test_step_messages import _nested

ROOT = Path(__file__).resolve().parents[2]
ROSTERS = ROOT / "rules" / "data" / "rosters"


def _game() -> dict[str, Any]:
    return {
        "ruleset": "at-43", "table": {"width_mm": 600, "depth_mm": 400},
        "units": [{"id": "alpha", "side": "una", "leader": "a1"}, {"id": "golems", "side": "therians"}],
        "models": [{"id": "a1", "unit": "alpha", "marker_id": 4, "x_mm": 100, "y_mm": 100, "base_mm": 30},
                   {"id": "g1", "unit": "golems", "marker_id": 6, "x_mm": 400, "y_mm": 300, "base_mm": 30}],
        "terrain": [{"id": "wall-1", "kind": "wall", "shape": "line", "points_mm": [[0, 0], [50, 0]]}],
    }


def _roster(name: str = "at-43-una-sierra") -> dict[str, Any]:
    return dict(json.loads((ROSTERS / f"{name}.json").read_text(encoding="utf-8")))


def _edit(doc: dict[str, Any], change: Callable[[dict[str, Any]], Any]) -> dict[str, Any]:
    out = copy.deepcopy(doc)
    change(out)
    return out


def _set(path: tuple[Any, ...], value: Any) -> Callable[[dict[str, Any]], None]:
    def change(doc: dict[str, Any]) -> None:
        target: Any = doc
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = value
    return change


def _del(path: tuple[Any, ...]) -> Callable[[dict[str, Any]], None]:
    def change(doc: dict[str, Any]) -> None:
        target: Any = doc
        for key in path[:-1]:
            target = target[key]
        del target[path[-1]]
    return change


def _game_refusal(change: Callable[[dict[str, Any]], Any]) -> Callable[[Path], Any]:
    return lambda tmp: parse_game(_edit(_game(), change), source="imported game")


def _roster_refusal(change: Callable[[dict[str, Any]], Any], name: str = "at-43-una-sierra",
                    source: str = "una.json") -> Callable[[Path], Any]:
    return lambda tmp: parse_roster(_edit(_roster(name), change), source=source)


def _merge_refusal(*docs: tuple[str, dict[str, Any]], game: dict[str, Any] | None = None) -> Callable[[Path], Any]:
    def run(tmp: Path) -> Any:
        rosters = [parse_roster(doc, source=source) for source, doc in docs]
        return merge_rosters(parse_game(game or {**_game(), "units": [], "models": []}), rosters)
    return run


def _two_units_same_id() -> Callable[[dict[str, Any]], None]:
    def change(doc: dict[str, Any]) -> None:
        doc["units"].append(copy.deepcopy(doc["units"][0]))
        for m in doc["units"][-1]["models"]:
            m["id"] += "-bis"
            m.pop("marker_id", None)
        doc["units"][-1]["leader"] = doc["units"][-1]["models"][0]["id"]
    return change


def _write(tmp: Path, name: str, text: str) -> Path:
    path = tmp / name
    path.write_text(text, encoding="utf-8")
    return path


def _rebadge(doc: dict[str, Any]) -> None:
    """The same roster under other ids and markers, its laser rifle changed."""
    doc["weapons"]["laser rifle"]["damage"] = 2
    for unit in doc["units"]:
        unit["id"] += "-b"
        unit["leader"] = unit["leader"] + "-b"
        for m in unit["models"]:
            m["id"] += "-b"
            m.pop("marker_id", None)


SIERRA = _roster()
FIRST_UNIT = SIERRA["units"][0]["id"]
FIRST_MODEL = SIERRA["units"][0]["models"][0]["id"]
OTHER_AT43 = _roster("at-43-therian-golems")

# (the mistake, how to meet its refusal, the message id expected)
CASES: list[tuple[str, Callable[[Path], Any], str]] = [
    # the field reader (calibration/fields.py), through the game file
    ("game not an object", lambda tmp: parse_game([1], source="imported game"), "file.not_object"),
    ("game unknown key", _game_refusal(_set(("colour",), "red")), "file.unknown_keys"),
    ("table missing", _game_refusal(_del(("table",))), "file.missing"),
    ("width not a number", _game_refusal(_set(("table", "width_mm"), "wide")), "file.not_number"),
    ("a number too large", lambda tmp: _large_refusal(), "file.too_large"),
    ("width not positive", _game_refusal(_set(("table", "width_mm"), -5)), "file.not_positive"),
    ("marker not an integer", _game_refusal(_set(("models", 0, "marker_id"), 4.5)), "file.not_integer"),
    ("unit id empty", _game_refusal(_set(("units", 0, "id"), "")), "file.not_string"),
    ("unknown rule set", _game_refusal(_set(("ruleset",), "chess")), "file.not_choice"),
    ("models not an array", _game_refusal(_set(("models",), {"a1": 1})), "file.not_array"),
    ("a point of 3 numbers", _game_refusal(_set(("terrain", 0, "points_mm", 0), [0, 0, 0])), "file.count"),
    ("a point not numbers", _game_refusal(_set(("terrain", 0, "points_mm", 0), [0, "x"])), "file.item_not_number"),
    ("a status not a string", _game_refusal(_set(("models", 0, "status"), [3])), "file.item_not_string"),
    ("a flag not a boolean", lambda tmp: _boolean_refusal(), "file.not_boolean"),
    ("a number not finite", lambda tmp: _finite_refusal(), "file.not_finite"),
    # the game file's own checks (rules/plan.py)
    ("corner marker on a model", _game_refusal(_set(("models", 0, "marker_id"), 2)), "file.marker_low"),
    ("facing of 400 degrees", _game_refusal(_set(("models", 0, "facing_deg"), 400)), "file.facing_range"),
    ("a wall of one point", _game_refusal(_set(("terrain", 0, "points_mm"), [[0, 0]])), "file.few_points_line"),
    ("an area of two points", _game_refusal(_set(("terrain", 0, "shape"), "area")), "file.few_points_area"),
    ("a model id twice", _game_refusal(_set(("models", 1, "id"), "a1")), "file.id_twice"),
    ("a model of no unit", _game_refusal(_set(("models", 0, "unit"), "nobody")), "file.unknown_unit"),
    ("a marker twice", _game_refusal(_set(("models", 1, "marker_id"), 4)), "file.marker_twice"),
    ("a leader of another unit", _game_refusal(_set(("units", 0, "leader"), "g1")), "file.leader_not_member"),
    ("an unreadable game file", lambda tmp: load_game(tmp / "nowhere.json"), "file.unreadable"),
    # the roster's structure (rules/roster.py)
    ("roster without units", _roster_refusal(_set(("units",), [])), "file.no_units"),
    ("unit without models", _roster_refusal(_set(("units", 0, "models"), [])), "file.no_models"),
    ("roster side a number", _roster_refusal(_set(("side",), 3)), "file.not_string"),
    ("a weapon without a name", _roster_refusal(_set(("weapons", ""), {})), "file.bad_name"),
    ("weapon entry not an object", _roster_refusal(_set(("weapons", "laser rifle"), 5)), "file.not_object"),
    ("a weapon name not a string", _roster_refusal(_set(("units", 0, "models", 0, "weapons"), [7])),
     "file.item_not_string"),
    ("roster marker out of range", _roster_refusal(_set(("units", 0, "models", 0, "marker_id"), 300)),
     "file.marker_range"),
    ("roster leader not in the unit", _roster_refusal(_set(("units", 0, "leader"), "stranger")),
     "file.leader_not_in_unit"),
    ("a unit id twice", _roster_refusal(_two_units_same_id()), "roster.unit_twice"),
    ("a model id twice", _roster_refusal(_set(("units", 0, "models", 1, "id"), FIRST_MODEL)), "roster.model_twice"),
    ("a marker twice", _roster_refusal(_set(("units", 0, "models", 1, "marker_id"), 10)), "roster.marker_twice"),
    ("a profile not defined", _roster_refusal(_set(("units", 0, "profile"), "ghost")), "roster.undefined_profile"),
    ("an unreadable roster file", lambda tmp: load_roster(tmp / "nowhere.json"), "roster.unreadable"),
    # the shared roster checks the rule sets call (rules/roster.py, rules/rulesets/kit.py)
    ("an unknown weapon (AT-43)", _roster_refusal(_set(("units", 0, "models", 0, "weapons"), ["spoon"])),
     "roster.weapon_not_listed"),
    ("an unknown weapon (High Fire)", _roster_refusal(_set(("units", 0, "models", 0, "weapons"), ["spoon"]),
                                                      "high-fire-red", "red.json"), "roster.weapon_not_in_roster"),
    ("no weapon known at all", _roster_refusal(lambda d: (d.pop("weapons"), d["units"][0]["models"][0].update(
        weapons=["spoon"]))), "roster.weapon_not_listed"),
    ("an unknown unit rule", _roster_refusal(_set(("units", 0, "rules"), ["flying"])), "roster.unknown_rule_unit"),
    ("an unknown model rule", _roster_refusal(_set(("units", 0, "models", 0, "rules"), ["flying"])),
     "roster.unknown_rule_model"),
    ("a stat missing", _roster_refusal(_del(("weapons", "laser rifle", "rate"))), "roster.stat_missing"),
    ("a stat of the wrong type", _roster_refusal(_set(("weapons", "laser rifle", "rate"), "two")),
     "roster.stat_type"),
    ("a stat below its least (High Fire)", _roster_refusal(_set(("profiles", "milicien", "QL"), -1),
                                                           "high-fire-red", "red.json"), "roster.whole_stat"),
    ("a stat out of range (Firefight)", _roster_refusal(_set(("profiles", "trooper", "quality"), 7),
                                                        "firefight-troopers", "ff.json"), "roster.whole_stat_range"),
    ("a model without a profile (Firefight)",
     _roster_refusal(_del(("units", 0, "profile")), "firefight-troopers", "ff.json"), "roster.no_profile"),
    # merging rosters into the game (rules/roster.py)
    ("a roster of another rule set", _merge_refusal(("ff.json", _roster("firefight-troopers"))),
     "roster.other_ruleset"),
    ("a marker in two rosters", _merge_refusal(("una.json", SIERRA), ("th.json", _edit(
        OTHER_AT43, _set(("units", 0, "models", 0, "marker_id"), 10)))), "roster.marker_in_two"),
    ("a unit in two rosters", _merge_refusal(("una.json", SIERRA), ("th.json", _edit(
        OTHER_AT43, _set(("units", 0, "id"), FIRST_UNIT)))), "roster.unit_in_two"),
    ("a weapon defined twice differently", _merge_refusal(("una.json", SIERRA), ("th.json", _edit(
        SIERRA, _rebadge))), "roster.differs"),
]


def _boolean_refusal() -> Any:
    from calibration.fields import Reader
    from rules.errors import GameFileError

    return Reader({"x": 1}, source="game file", error=GameFileError).boolean("x")


def _large_refusal() -> Any:
    """(The game file's tree check refuses such numbers first, in its words; the reader's stays for other readers.)"""
    from calibration.fields import Reader
    from rules.errors import GameFileError

    return Reader({"x": 10**30}, source="game file", error=GameFileError).integer("x")


def _finite_refusal() -> Any:
    from calibration.fields import Reader
    from rules.errors import GameFileError

    return Reader({"x": float("nan")}, source="game file", error=GameFileError).number("x")


def _ids(lang: str) -> set[str]:
    text = (LOCALE_DIR / f"{lang}.files.po").read_text(encoding="utf-8")
    return {line.split('"')[1] for line in text.splitlines() if line.startswith('msgid "') and line != 'msgid ""'}


@pytest.mark.parametrize("what,run,msg_id", CASES, ids=[c[0] for c in CASES])
def test_each_malformed_document_is_refused_with_a_message(what: str, run: Callable[[Path], Any], msg_id: str,
                                                          tmp_path: Path) -> None:
    with pytest.raises(RulesError) as err:
        run(tmp_path)
    exc = err.value
    assert exc.msg_id == msg_id, f"{what}: {exc} ({exc.msg_id})"
    texts = {lang: render(msg_id, exc.params, lang) for lang in LANGS}
    assert texts["fr"] and texts["en"], f"{what}: {msg_id} lacks a text or a parameter ({dict(exc.params)})"
    assert texts["fr"] != texts["en"]
    for inner, params in _nested(dict(exc.params)):
        assert all(render(inner, params, lang) for lang in LANGS), f"{what}: {inner}"
    for text in (*texts.values(), str(exc)):
        assert "RULES-NOTES" not in text and "CONVENTIONS" not in text
    # the English catalogue says the rules core's own sentence (the command line then prints it once)
    assert texts["en"] == str(exc)


def test_every_refusal_of_the_files_catalogue_is_met_above() -> None:
    # parameters of refusals, and the sight reasons (tests/rules/test_sight_reasons.py), are not refusals
    words = {"file.source.", "file.type.", "file.kind.", "file.os.", "file.top_level", "file.none",
             "sight.reason."}
    refusals = {i for i in _ids("en") if not any(i.startswith(w) for w in words)}
    met = {c[2] for c in CASES} | {"roster.orphans"}  # orphans: a guard merge_rosters cannot meet from rosters
    assert refusals - met == set()
    assert _ids("fr") == _ids("en")


def test_the_english_sentences_stay_what_the_command_line_printed() -> None:
    with pytest.raises(RulesError) as err:
        parse_roster(_edit(SIERRA, _set(("units", 0, "models", 0, "weapons"), ["spoon"])), source="una.json")
    assert str(err.value).startswith(f"una.json: model '{FIRST_MODEL}' of unit '{FIRST_UNIT}' carries unknown "
                                     "weapon 'spoon'; known weapons are: ")
    assert (render("roster.weapon_not_listed", err.value.params, "fr") or "").startswith(
        f"una.json : la figurine « {FIRST_MODEL} » de l'unité « {FIRST_UNIT} » porte une arme inconnue")
