"""The rule-set registry: metadata, terrain kinds, options, plan checks, sample games."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rules.errors import GameFileError, InvalidActionError
from rules.plan import load_game, parse_game
from rules.rulesets import RULESET_IDS, RULESETS, find_ruleset
from rules.terrain import MOVEMENT_EFFECTS, SIGHT_EFFECTS

GAMES = Path(__file__).resolve().parents[2] / "rules" / "data" / "games"


def test_registry_order_and_names() -> None:
    assert tuple(rs.name for rs in RULESETS) == RULESET_IDS
    for rs in RULESETS:
        assert rs.title and rs.unit_key and rs.terrain_kinds and rs.question_names
        assert find_ruleset(rs.title) is rs
        for alias in rs.aliases:
            assert find_ruleset(alias) is rs


@pytest.mark.parametrize("name, expected", [("AT 43", "at-43"), ("Feu à Volonté", "feu-a-volonte"),
                                            ("GFF", "firefight"), ("hf", "high-fire"), ("Star Wars", "star-wars")])
def test_find_by_alias(name: str, expected: str) -> None:
    assert find_ruleset(name).name == expected


def test_unknown_ruleset_lists_the_known_ones() -> None:
    with pytest.raises(InvalidActionError, match="rule sets are: high-fire, firefight"):
        find_ruleset("warhammer")


@pytest.mark.parametrize("rs", RULESETS, ids=lambda r: r.name)
def test_terrain_kinds_are_complete(rs: object) -> None:
    for kind in rs.terrain_kinds.values():  # type: ignore[attr-defined]
        assert kind.sight in SIGHT_EFFECTS and kind.movement in MOVEMENT_EFFECTS
        assert kind.shapes and set(kind.shapes) <= {"area", "line"}
        assert kind.source.startswith(rs.title.split()[0])  # type: ignore[attr-defined]


def test_feu_a_volonte_terrain_table_from_the_seed() -> None:
    kinds = find_ruleset("feu-a-volonte").terrain_kinds
    table = {"road": ("road", "clear"), "plain": ("open", "clear"), "path": ("difficult", "clear"),
             "rough": ("difficult", "blocks"), "tree-line": ("difficult", "blocks"), "forest": ("impassable", "blocks"),
             "river": ("impassable", "clear"), "water": ("impassable", "clear"), "building": ("impassable", "blocks")}
    for kind, (movement, sight) in table.items():
        assert (kinds[kind].movement, kinds[kind].sight) == (movement, sight), kind


def test_options_defaults_overrides_and_errors() -> None:
    fav = find_ruleset("feu-a-volonte")
    assert fav.defaults() == {"measure": "centre", "ud_mm": 40.0, "band_boundary": "nearer", "hit_location_die": "d4"}
    opts = fav.resolve_options(None, {"ud_mm": "20"})
    assert opts["ud_mm"] == 20.0 and fav.unit(opts).mm == 20.0
    with pytest.raises(InvalidActionError, match="its options are: measure, ud_mm, band_boundary, hit_location_die"):
        fav.resolve_options(None, {"speed": 3})
    with pytest.raises(InvalidActionError, match="positive number"):
        fav.resolve_options(None, {"ud_mm": "-1"})
    with pytest.raises(InvalidActionError, match="must be one of nearer, farther"):
        fav.resolve_options(None, {"band_boundary": "middle"})
    assert fav.fmt(100.0) == "2.50 UD" and find_ruleset("firefight").fmt(25.4) == '1.00"'
    plan = parse_game({"ruleset": "feu-a-volonte", "table": {"width_mm": 900, "depth_mm": 900},
                       "options": {"ud_mm": 20, "house_rule": "x"}})
    assert fav.resolve_options(plan)["house_rule"] == "x"  # another part of the rules core reads it
    with pytest.raises(InvalidActionError, match="option ud_mm must be a number"):
        fav.resolve_options(parse_game({**{"ruleset": "feu-a-volonte", "table": {"width_mm": 9, "depth_mm": 9}},
                                        "options": {"ud_mm": "big"}}))


def test_check_plan_refuses_unknown_kinds_and_wrong_shapes() -> None:
    doc = {"ruleset": "firefight", "table": {"width_mm": 600, "depth_mm": 600}, "units": [], "models": [],
           "terrain": [{"id": "t", "kind": "hedge", "shape": "line", "points_mm": [[0, 0], [10, 0]]}]}
    with pytest.raises(GameFileError, match="kind 'hedge', which Grimdark Future Firefight does not know"):
        find_ruleset("firefight").check_plan(parse_game(doc))
    doc["terrain"] = [{"id": "t", "kind": "building", "shape": "line", "points_mm": [[0, 0], [10, 0]]}]
    with pytest.raises(GameFileError, match="a building must be an area, got a line"):
        find_ruleset("firefight").check_plan(parse_game(doc))
    with pytest.raises(GameFileError, match="not 'at-43'"):
        find_ruleset("at-43").check_plan(parse_game(doc))


@pytest.mark.parametrize("path", sorted(GAMES.glob("*.json")), ids=lambda p: p.name)
def test_sample_games_are_valid_and_complete(path: Path) -> None:
    plan = load_game(path)
    find_ruleset(plan.ruleset).check_plan(plan)
    assert len({u.side for u in plan.units}) == 2
    assert len(plan.units) >= 4 and plan.terrain and plan.objectives
    assert json.loads(path.read_text(encoding="utf-8"))["ruleset"] == plan.ruleset


def test_one_sample_game_per_rule_set() -> None:
    names = {load_game(p).ruleset for p in GAMES.glob("*.json")}
    assert names == set(RULESET_IDS)
