"""Roster files: the common structure, the rule sets' refusals, merging into a game."""

from __future__ import annotations

import copy
import json
from contextlib import nullcontext
from pathlib import Path
from typing import Any

import pytest

from rules.errors import RosterError
from rules.plan import Model, Table, TablePlan
from rules.roster import load_roster, merge_rosters, parse_roster

ROSTERS = Path(__file__).resolve().parents[2] / "rules" / "data" / "rosters"


def una() -> dict[str, Any]:
    return json.loads((ROSTERS / "at-43-una-sierra.json").read_text(encoding="utf-8"))


def test_bundled_at43_rosters_load() -> None:
    sierra = load_roster(ROSTERS / "at-43-una-sierra.json")
    golems = load_roster(ROSTERS / "at-43-therian-golems.json")
    assert [u.unit_id for u in sierra.units] == ["sierra-alpha", "sierra-bravo"]
    assert sierra.weapons["laser rifle"]["precision"] == 5
    assert len(golems.units[0].models) == 9
    assert golems.profiles["storm golem"]["protection"] == 6


def test_yaml_roster_loads(tmp_path: Path) -> None:
    yaml = pytest.importorskip("yaml")
    path = tmp_path / "una.yaml"
    path.write_text(yaml.safe_dump(una()), encoding="utf-8")
    assert load_roster(path).side == "UNA"


def test_bad_json_names_the_file(tmp_path: Path) -> None:
    path = tmp_path / "broken.json"
    path.write_text("{", encoding="utf-8")
    with pytest.raises(RosterError, match="broken.json: not valid JSON"):
        load_roster(path)


def test_missing_file_is_a_clean_error(tmp_path: Path) -> None:
    with pytest.raises(RosterError, match="cannot read the roster file"):
        load_roster(tmp_path / "nope.json")


def _edit(path: str, value: Any) -> dict[str, Any]:
    doc = una()
    target: Any = doc
    keys = path.split("/")
    for k in keys[:-1]:
        target = target[int(k)] if isinstance(target, list) else target[k]
    last = keys[-1]
    if value is KeyError:
        del target[last]
    elif isinstance(target, list):
        target[int(last)] = value
    else:
        target[last] = value
    return doc


@pytest.mark.parametrize(("doc", "expect"), [
    (una(), nullcontext()),
    (_edit("units/0/models/1/weapons", ["plasma cannon"]),
     pytest.raises(RosterError, match="sa-2.*unknown weapon 'plasma cannon'")),
    (_edit("units/0/rules", ["stealth"]), pytest.raises(RosterError, match="unknown rule 'stealth'")),
    (_edit("units/0/models/1/marker_id", 10),
     pytest.raises(RosterError, match="marker id 10 is given to both 'sa-1' and 'sa-2'")),
    (_edit("units/0/models/1/marker_id", 2), pytest.raises(RosterError, match="marker_id must be between 4")),
    (_edit("units/1/models/1/id", "sa-1"), pytest.raises(RosterError, match="model id 'sa-1' is used twice")),
    (_edit("units/0/leader", "sb-1"), pytest.raises(RosterError, match="'sb-1' is not a model of unit")),
    (_edit("units/0/leader", KeyError), pytest.raises(RosterError, match="has no leader")),
    (_edit("units/0/profile", "marine"), pytest.raises(RosterError, match="profile 'marine'.*does not define")),
    (_edit("units/0/models/0/base_mm", -3), pytest.raises(RosterError, match="base_mm must be greater than 0")),
    (_edit("units/0/colour", "red"), pytest.raises(RosterError, match=r"unknown key\(s\) 'colour'")),
    (_edit("ruleset", "risk"), pytest.raises(RosterError, match="ruleset must be one of")),
    (_edit("profiles/steel trooper/protection", "high"),
     pytest.raises(RosterError, match="protection must be an integer")),
    (_edit("profiles/steel trooper/category", "cavalry"),
     pytest.raises(RosterError, match="category must be one of infantry, vehicle")),
    (_edit("weapons/laser rifle/rate", KeyError), pytest.raises(RosterError, match="lacks 'rate'")),
    (_edit("weapons/grenade launcher/area_cm", 0), pytest.raises(RosterError, match="area_cm must be greater")),
    (_edit("units/0/models/2/weapons", []), pytest.raises(RosterError, match="'sa-3'.*carries no weapon")),
    (_edit("units", []), pytest.raises(RosterError, match="at least one unit")),
])
def test_at43_roster_refusals(doc: dict[str, Any], expect: Any) -> None:
    with expect:
        parse_roster(copy.deepcopy(doc), source="una.json")


def test_error_names_the_file_and_field() -> None:
    with pytest.raises(RosterError, match=r"^una\.json: units\[0\]\.models\[0\]\.base_mm"):
        parse_roster(_edit("units/0/models/0/base_mm", "big"), source="una.json")


def _plan(*models: Model) -> TablePlan:
    return TablePlan(ruleset="at-43", table=Table(1200.0, 1200.0), models=models)


def test_merge_takes_positions_from_the_tracker_by_marker_id() -> None:
    seen = Model("marker-12", "tracked", (300.0, 400.0), 25.0, marker_id=12, facing_deg=90.0)
    sierra = load_roster(ROSTERS / "at-43-una-sierra.json")
    golems = load_roster(ROSTERS / "at-43-therian-golems.json")
    merged = merge_rosters(_plan(seen), [sierra, golems])
    sa3 = merged.model("sa-3")
    assert sa3.position_mm == (300.0, 400.0) and sa3.facing_deg == 90.0 and sa3.unit_id == "sierra-alpha"
    assert merged.model("sa-1").position_mm == (0.0, 0.0)
    assert not any(m.model_id == "marker-12" for m in merged.models)
    assert merged.unit("golems-256").side == "Therians"
    assert merged.leader_of("sierra-alpha").model_id == "sa-1"
    assert merged.weapons["nanoblaster"]["rerolls"] == 1
    assert merged.profiles["steel trooper"]["protection"] == 5
    assert len(merged.models) == 10 + 13


def test_merge_refuses_clashes() -> None:
    sierra = load_roster(ROSTERS / "at-43-una-sierra.json")
    with pytest.raises(RosterError, match="is also used by"):
        merge_rosters(_plan(), [sierra, sierra])
    other = parse_roster({**_edit("weapons/laser rifle/precision", 6),
                          "units": [{"id": "x", "leader": "x1", "profile": "steel trooper",
                                     "models": [{"id": "x1", "base_mm": 25, "weapons": ["laser rifle"]}]}]},
                         source="other.json")
    with pytest.raises(RosterError, match="weapons.laser rifle differs"):
        merge_rosters(_plan(), [sierra, other])
    with pytest.raises(RosterError, match="is a at-43 roster but the game is firefight"):
        merge_rosters(TablePlan(ruleset="firefight", table=Table(1.0, 1.0)), [sierra])


def test_merge_refuses_a_marker_id_used_by_two_rosters() -> None:
    sierra = load_roster(ROSTERS / "at-43-una-sierra.json")
    clash = parse_roster({**una(), "side": "Other", "units": [
        {"id": "x", "leader": "x1", "profile": "steel trooper",
         "models": [{"id": "x1", "marker_id": 10, "base_mm": 25, "weapons": ["laser rifle"]}]}]}, source="other.json")
    with pytest.raises(RosterError, match="marker id 10 of model 'x1' is also used by model 'sa-1'"):
        merge_rosters(_plan(), [sierra, clash])
