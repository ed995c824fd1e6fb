"""The setup file (CONVENTIONS.md): valid files load into frozen objects, bad ones name file and field."""

from __future__ import annotations

import dataclasses
import json
from contextlib import nullcontext
from pathlib import Path
from typing import Any

import pytest

from calibration.errors import SetupFileError
from calibration.setup import (
    BARE_BASE_DIAMETERS_MM, DEFAULT_SIDES, MarkerOverride, Setup, load_setup, parse_setup, setup_to_dict,
)

CONVENTIONS_EXAMPLE = {
    "table": {"width_mm": 1200, "depth_mm": 1200},
    "markers": {"dictionary": "DICT_4X4_250", "corner_size_mm": 60,
                "base_size_mm": 12, "base_height_mm": 3.0, "base_offset_mm": 0.0,
                "per_marker": {"17": {"offset_mm": 7.5, "base_mm": 25}}},
    "camera": {"matrix": [[1400, 0, 960], [0, 1400, 540], [0, 0, 1]],
               "distortion": [0.0, 0.0, 0.0, 0.0, 0.0]},
}
TABLE = {"width_mm": 600, "depth_mm": 900}


def with_(**parts: Any) -> dict[str, Any]:
    """A minimal valid setup with some top-level parts replaced."""
    return {"table": dict(TABLE), **parts}


def test_conventions_example_loads() -> None:
    setup = parse_setup(CONVENTIONS_EXAMPLE, source="setup.json")
    assert (setup.table.width_mm, setup.table.depth_mm) == (1200.0, 1200.0)
    assert setup.markers.for_marker(17) == MarkerOverride(offset_mm=7.5, base_mm=25.0)
    assert setup.markers.for_marker(18) == MarkerOverride(offset_mm=0.0)
    assert setup.camera is not None and setup.camera.matrix[0] == (1400.0, 0.0, 960.0)
    assert setup.bases.sides == DEFAULT_SIDES and setup.bases.diameters_mm == BARE_BASE_DIAMETERS_MM


def test_only_the_table_size_is_required() -> None:
    setup = parse_setup({"table": TABLE})
    assert setup == Setup(setup.table)
    assert setup.markers.dictionary == "DICT_4X4_250"
    assert (setup.markers.corner_size_mm, setup.markers.base_size_mm) == (60.0, 12.0)
    assert setup.camera is None


@pytest.mark.parametrize(
    ("marker_id", "expected_mm"),
    [(0, 60.0), (3, 60.0), (4, 12.0), (17, 16.0), (18, 12.0)],
)
def test_size_for_corner_base_and_overridden_markers(marker_id: int, expected_mm: float) -> None:
    setup = parse_setup(with_(markers={"per_marker": {"17": {"size_mm": 16}}}))
    assert setup.markers.size_for(marker_id) == expected_mm


def test_per_marker_offset_defaults_to_the_base_offset() -> None:
    setup = parse_setup(with_(markers={"base_offset_mm": 4.0, "per_marker": {"20": {"base_mm": 32}}}))
    assert setup.markers.for_marker(20) == MarkerOverride(offset_mm=4.0, base_mm=32.0)
    assert setup.markers.for_marker(21).offset_mm == 4.0


def test_setup_is_immutable() -> None:
    setup = parse_setup(CONVENTIONS_EXAMPLE)
    with pytest.raises(dataclasses.FrozenInstanceError):
        setup.table.width_mm = 10.0  # type: ignore[misc]
    with pytest.raises(TypeError):
        setup.markers.per_marker[99] = MarkerOverride(0.0)  # type: ignore[index]
    with pytest.raises(TypeError):
        setup.bases.sides["green"] = "#00ff00"  # type: ignore[index]


@pytest.mark.parametrize(
    "document",
    [
        CONVENTIONS_EXAMPLE,
        with_(),
        with_(bases={"sides": {"orks": "#00aa00", "elves": "#FFFFFF"}, "diameters_mm": [25, 32.5]},
              markers={"per_marker": {"249": {"offset_mm": -3, "size_mm": 10}}}),
    ],
    ids=["conventions", "minimal", "sides-and-overrides"],
)
def test_setup_round_trips_through_its_json(document: dict[str, Any]) -> None:
    setup = parse_setup(document)
    again = parse_setup(json.loads(json.dumps(setup_to_dict(setup))))
    assert again == setup
    assert setup_to_dict(again) == setup_to_dict(setup)


@pytest.mark.parametrize(
    ("document", "exception"),
    [
        # unknown keys, at every level
        (with_(tabel={}), pytest.raises(SetupFileError, match=r"^s\.json: the top level has unknown key\(s\) 'tabel'; allowed keys are table, markers, camera, bases$")),
        ({"table": {**TABLE, "height_mm": 5}}, pytest.raises(SetupFileError, match=r"s\.json: table has unknown key\(s\) 'height_mm'")),
        (with_(markers={"size_mm": 12}), pytest.raises(SetupFileError, match=r"s\.json: markers has unknown key\(s\) 'size_mm'")),
        (with_(markers={"per_marker": {"17": {"offset": 2}}}), pytest.raises(SetupFileError, match=r"markers\.per_marker\.17 has unknown key\(s\) 'offset'")),
        (with_(camera={"matrix": [[1, 0, 0], [0, 1, 0], [0, 0, 1]], "dist": []}), pytest.raises(SetupFileError, match=r"camera has unknown key\(s\) 'dist'")),
        (with_(bases={"colours": {}}), pytest.raises(SetupFileError, match=r"bases has unknown key\(s\) 'colours'")),
        # missing or bad table size
        ({}, pytest.raises(SetupFileError, match=r"s\.json: table is missing \(an object is required\)")),
        ({"table": {"width_mm": 600}}, pytest.raises(SetupFileError, match=r"s\.json: table\.depth_mm is missing \(a number is required\)")),
        ({"table": {"depth_mm": 600}}, pytest.raises(SetupFileError, match=r"table\.width_mm is missing")),
        ({"table": {"width_mm": "600", "depth_mm": 600}}, pytest.raises(SetupFileError, match=r"table\.width_mm must be a number, got a string '600'")),
        ({"table": {"width_mm": True, "depth_mm": 600}}, pytest.raises(SetupFileError, match=r"table\.width_mm must be a number, got a boolean True")),
        ({"table": {"width_mm": 0, "depth_mm": 600}}, pytest.raises(SetupFileError, match=r"table\.width_mm must be greater than 0, got 0")),
        ({"table": {"width_mm": 600, "depth_mm": -1}}, pytest.raises(SetupFileError, match=r"table\.depth_mm must be greater than 0")),
        ({"table": [600, 600]}, pytest.raises(SetupFileError, match=r"s\.json: table must be a JSON object, got an array")),
        ([], pytest.raises(SetupFileError, match=r"s\.json: the top level must be a JSON object, got an array")),
        # wrong types
        (with_(markers={"base_size_mm": "12"}), pytest.raises(SetupFileError, match=r"markers\.base_size_mm must be a number, got a string")),
        (with_(markers={"corner_size_mm": -60}), pytest.raises(SetupFileError, match=r"markers\.corner_size_mm must be greater than 0")),
        (with_(markers={"base_height_mm": -3}), pytest.raises(SetupFileError, match=r"markers\.base_height_mm must be 0 or more \(mm above the table\), got -3")),
        (with_(markers={"base_height_mm": 0}), nullcontext()),
        (with_(markers=[]), pytest.raises(SetupFileError, match=r"markers must be a JSON object, got an array")),
        # per_marker ids and values
        (with_(markers={"per_marker": {"3": {"offset_mm": 1}}}), pytest.raises(SetupFileError, match=r"markers\.per_marker\.3 must be a base marker id \(an integer from 4\), got '3'")),
        (with_(markers={"per_marker": {"abc": {}}}), pytest.raises(SetupFileError, match=r"markers\.per_marker\.abc must be a base marker id")),
        (with_(markers={"per_marker": {"-5": {}}}), pytest.raises(SetupFileError, match=r"must be a base marker id")),
        (with_(markers={"per_marker": {"1000": {}}}), pytest.raises(SetupFileError, match=r"must be a base marker id")),
        (with_(markers={"per_marker": {"4": {}}}), nullcontext()),
        (with_(markers={"per_marker": {"17": 7.5}}), pytest.raises(SetupFileError, match=r"markers\.per_marker\.17 must be a JSON object, got a number")),
        (with_(markers={"per_marker": {"17": {"base_mm": 0}}}), pytest.raises(SetupFileError, match=r"markers\.per_marker\.17\.base_mm must be greater than 0")),
        (with_(markers={"per_marker": {"17": {"size_mm": "big"}}}), pytest.raises(SetupFileError, match=r"per_marker\.17\.size_mm must be a number")),
        # dictionary
        (with_(markers={"dictionary": "DICT_4X4_251"}), pytest.raises(SetupFileError, match=r"markers\.dictionary must be one of DICT_4X4_50, .*DICT_APRILTAG_36h11; got 'DICT_4X4_251'")),
        (with_(markers={"dictionary": "dict_4x4_250"}), pytest.raises(SetupFileError, match=r"markers\.dictionary must be one of")),
        (with_(markers={"dictionary": ""}), pytest.raises(SetupFileError, match=r"markers\.dictionary must be a non-empty string")),
        (with_(markers={"dictionary": "DICT_6X6_1000"}), nullcontext()),
        # side colours
        (with_(bases={"sides": {"red": "red"}}), pytest.raises(SetupFileError, match=r"bases\.sides\.red must be a colour like '#c0392b', got 'red'")),
        (with_(bases={"sides": {"red": "#abc"}}), pytest.raises(SetupFileError, match=r"bases\.sides\.red must be a colour")),
        (with_(bases={"sides": {"red": "#12345g"}}), pytest.raises(SetupFileError, match=r"bases\.sides\.red must be a colour")),
        (with_(bases={"sides": {"red": 0xC0392B}}), pytest.raises(SetupFileError, match=r"bases\.sides\.red must be a non-empty string")),
        (with_(bases={"sides": {}}), pytest.raises(SetupFileError, match=r"bases\.sides must name at least one side")),
        (with_(bases={"sides": {"red": "#C0392B"}}), nullcontext()),
        # bare-base diameters
        (with_(bases={"diameters_mm": []}), pytest.raises(SetupFileError, match=r"bases\.diameters_mm must list at least one diameter")),
        (with_(bases={"diameters_mm": [25, 0]}), pytest.raises(SetupFileError, match=r"bases\.diameters_mm\[1\] must be greater than 0, got 0")),
        (with_(bases={"diameters_mm": [25, "32"]}), pytest.raises(SetupFileError, match=r"bases\.diameters_mm\[1\] must be a finite number")),
        # camera
        (with_(camera={"matrix": [[1, 0], [0, 1]]}), pytest.raises(SetupFileError, match=r"camera\.matrix must be a 3x3 array of numbers")),
        (with_(camera={"matrix": [[1, 0, 0], [0, 1, 0], [0, 0, "1"]]}), pytest.raises(SetupFileError, match=r"s\.json: camera\.matrix\[2\]\[2\] must be a finite number, got '1'$")),
        (with_(camera={"matrix": [[1, 0, 0], [0, True, 0], [0, 0, 1]]}), pytest.raises(SetupFileError, match=r"camera\.matrix\[1\]\[1\] must be a finite number, got True")),
        (with_(camera={"distortion": [0, 0, 0, 0, 0]}), pytest.raises(SetupFileError, match=r"camera\.matrix is missing")),
        (with_(camera={"matrix": [[1, 0, 0], [0, 1, 0], [0, 0, 1]], "distortion": [0, 0, 0]}), pytest.raises(SetupFileError, match=r"camera\.distortion must have 4, 5, 8, 12 or 14 coefficients")),
        (with_(camera={"matrix": [[1, 0, 0], [0, 1, 0], [0, 0, 1]], "distortion": [0, 0, 0, 0]}), nullcontext()),
    ],
)
def test_bad_setup_documents_name_the_file_and_field(document: Any, exception) -> None:
    with exception:
        assert isinstance(parse_setup(document, source="s.json"), Setup)


def test_load_setup_reads_a_file(tmp_path: Path) -> None:
    path = tmp_path / "setup.json"
    path.write_text(json.dumps(CONVENTIONS_EXAMPLE), encoding="utf-8")
    assert load_setup(path) == parse_setup(CONVENTIONS_EXAMPLE)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (None, r"setup\.json: cannot read the setup file \(No such file or directory\)"),
        ('{"table": {"width_mm": 600,}}', r"setup\.json: not valid JSON \(line 1, column 28: "),
        ('{"table": {"width_mm": 600}}', r"setup\.json: table\.depth_mm is missing"),
        ("[1]", r"setup\.json: the top level must be a JSON object"),
    ],
)
def test_load_setup_errors_name_the_file(tmp_path: Path, text: str | None, message: str) -> None:
    path = tmp_path / "setup.json"
    if text is not None:
        path.write_text(text, encoding="utf-8")
    with pytest.raises(SetupFileError, match=message) as info:
        load_setup(path)
    assert str(path) in str(info.value)
