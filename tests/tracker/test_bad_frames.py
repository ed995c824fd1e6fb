"""Bad input in the frame loop (issue 9): a frame of another size mid-stream, hidden corners,
a setup putting corner ids in play. A clear message, the last good state kept, no traceback."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from calibration.errors import SetupFileError
from calibration.setup import parse_setup
from tests.tracker.test_pipeline import PX_PER_MM, SETUP, draw
from tracker.markers import ScaledPlane
from tracker.pipeline import FRAME_SIZE_PATIENCE, Tracker
from tracker.sources import Frame

MODELS = {17: (80.0, 90.0, 30.0), 18: (200.0, 100.0, 200.0)}


def test_a_frame_of_another_size_is_skipped_and_the_state_kept() -> None:
    tracker = Tracker(SETUP, ScaledPlane(PX_PER_MM), base_scan_interval_s=0.0)
    for i in range(3):
        tracker.process(Frame(i, i / 10, draw(MODELS, noise_seed=i)))
    before = tracker.state
    small = draw(MODELS, noise_seed=9)[:400, :500]
    events = tracker.process(Frame(3, 0.3, small))
    assert [e["type"] for e in events] == ["frame_error"]
    assert "500 x 400 px" in events[0]["message"] and "600 x 600 px" in events[0]["message"]
    assert tracker.state == before                            # nothing lost, nothing moved
    assert tracker.process(Frame(4, 0.4, small)) == []         # said once
    events = tracker.process(Frame(5, 0.5, draw(MODELS, noise_seed=5)))
    assert not any(e["type"] in ("hidden", "moved") for e in events)
    assert {m.marker_id for m in tracker.state.models if m.seen} == {17, 18}


def test_a_camera_that_changed_resolution_for_good_is_calibrated_again() -> None:
    calls = []

    def calibrate(image, setup):  # type: ignore[no-untyped-def]
        calls.append(image.shape)
        return ScaledPlane(PX_PER_MM * image.shape[1] / 600)

    tracker = Tracker(SETUP, calibrate=calibrate, base_scan_interval_s=0.0)
    tracker.process(Frame(0, 0.0, draw(MODELS)))
    small = draw(MODELS)[:400, :500]
    types = [e["type"] for i in range(FRAME_SIZE_PATIENCE) for e in tracker.process(Frame(1 + i, 0.1 * i, small))]
    assert types[0] == "frame_error" and types[-1] == "frame_size_changed"
    tracker.process(Frame(99, 9.9, small))
    assert calls[-1] == small.shape                            # calibrated on the new frames


def test_hidden_corner_markers_keep_the_calibration_and_say_so() -> None:
    tracker = Tracker(SETUP, ScaledPlane(PX_PER_MM), base_scan_interval_s=0.0)
    events = tracker.process(Frame(0, 0.0, draw(MODELS)))      # no corner marker drawn in these frames
    warning = [e for e in events if e["type"] == "calibration_warning"]
    assert warning and warning[0]["calibration_kept"] and warning[0]["corners_hidden"] == [0, 1, 2, 3]
    state = tracker.state.to_dict()
    assert state["calibration_kept"] and state["corners_hidden"] == [0, 1, 2, 3]
    assert {m["marker_id"] for m in state["models"]} == {17, 18}


def test_a_setup_putting_corner_ids_in_play_is_refused_clearly() -> None:
    with pytest.raises(SetupFileError, match="must be a base marker id"):
        parse_setup({"table": {"width_mm": 600, "depth_mm": 600},
                     "markers": {"per_marker": {"2": {"offset_mm": 1.0}, "17": {}}}})


# -- said in French and English, never a traceback -----------------------------------------

def _both(event: dict) -> dict[str, str]:
    from tabletracker.i18n import step_texts

    words = step_texts(event)
    assert words is not None and set(words) == {"fr", "en"}, event
    return words


def test_the_frame_loop_says_its_refusals_in_french_and_english() -> None:
    tracker = Tracker(SETUP, ScaledPlane(PX_PER_MM), base_scan_interval_s=0.0)
    hidden = [e for e in tracker.process(Frame(0, 0.0, draw(MODELS))) if e["type"] == "calibration_warning"]
    words = _both(hidden[0])
    assert words["en"] == hidden[0]["message"]
    assert "caché" in words["fr"] and "0, 1, 2, 3" in words["fr"]
    wrong = tracker.process(Frame(1, 0.1, draw(MODELS)[:400, :500]))[0]
    words = _both(wrong)
    assert words["en"] == wrong["message"]
    assert "500 x 400 px" in words["fr"] and "600 x 600 px" in words["fr"] and "ignorée" in words["fr"]


def _cli(args: list[str], lang: str, monkeypatch: pytest.MonkeyPatch,
         capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    from tabletracker.cli import main

    for name in ("LC_ALL", "LC_MESSAGES"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("LANG", f"{lang}_FR.UTF-8" if lang == "fr" else "en_GB.UTF-8")
    code = main(args)
    err = capsys.readouterr().err
    assert "Traceback" not in err
    return code, err


def test_a_setup_with_corner_ids_in_play_is_refused_in_the_users_language(
        tmp_path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:  # type: ignore[no-untyped-def]
    import json

    setup = tmp_path / "setup.json"
    setup.write_text(json.dumps({"table": {"width_mm": 600, "depth_mm": 600},
                                 "markers": {"per_marker": {"3": {}, "17": {}}}}))
    for command in (["locate", "demo", "--setup", str(setup)], ["track", "demo", "--setup", str(setup)]):
        code, err = _cli(command, "fr", monkeypatch, capsys)
        assert code == 2 and "markers.per_marker.3 doit être un numéro de marqueur de socle" in err
        assert "0 à 3 sont les coins de la table" in err
        code, err = _cli(command, "en", monkeypatch, capsys)
        assert code == 2 and "markers.per_marker.3 must be a base marker id (an integer from 4)" in err
        assert err.count("must be a base marker id") == 1    # the English words once, not twice


def test_a_frame_with_no_readable_corner_is_refused_in_the_users_language(
        tmp_path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:  # type: ignore[no-untyped-def]
    import json

    import cv2
    import numpy as np

    image = tmp_path / "table.png"
    cv2.imwrite(str(image), np.full((480, 640, 3), 128, np.uint8))
    setup = tmp_path / "setup.json"
    setup.write_text(json.dumps({"table": {"width_mm": 600, "depth_mm": 600}}))
    code, err = _cli(["locate", str(image), "--setup", str(setup)], "fr", monkeypatch, capsys)
    assert code == 2 and "0 des 4 marqueurs de coin trouvés (aucun marqueur ArUco vu)" in err
    assert "manquant(s) : 0, 1, 2, 3" in err
    code, err = _cli(["locate", str(image), "--setup", str(setup)], "en", monkeypatch, capsys)
    assert code == 2 and "found 0 of the 4 corner markers (no ArUco marker at all was seen)" in err
    assert err.count("found 0 of the 4") == 1            # the English words once, not twice


def test_every_calibration_message_is_in_both_languages() -> None:
    from tabletracker.i18n import LOCALE_DIR

    def ids(lang: str) -> set[str]:
        text = "".join((LOCALE_DIR / f"{lang}.{part}.po").read_text(encoding="utf-8") for part in ("table", "kit"))
        return {line.split('"')[1] for line in text.splitlines() if line.startswith('msgid "') and line != 'msgid ""'}

    used = {m for path in (Path(__file__).parents[2] / "calibration").glob("*.py")
            for m in re.findall(r'"(calibration\.[a-z_]+)"', path.read_text(encoding="utf-8"))}
    assert ids("fr") == ids("en") and used and used <= ids("en"), sorted(used - ids("en"))
