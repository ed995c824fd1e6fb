"""The command-line entry point: lists its subcommands, refuses unknown ones cleanly; lengths
with units, bundled games by name, the small edges of serve and calibrate, test.sh and run.sh."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from calibration.units import UNITS
from tabletracker.cli import COMMANDS, main
from tabletracker.lengths import LengthError, convert_length_args, parse_length_mm

ROOT = Path(__file__).resolve().parents[1]


def test_help_lists_every_subcommand(capsys) -> None:
    assert main(["--help"]) == 0
    out = capsys.readouterr().out
    for name in COMMANDS:
        assert name in out


def test_unknown_command_exits_2_with_the_list(capsys) -> None:
    assert main(["frobnicate"]) == 2
    err = capsys.readouterr().err
    assert "unknown command 'frobnicate'" in err and "locate" in err


def test_console_script_runs() -> None:
    done = subprocess.run([sys.executable, "-m", "tabletracker.cli", "--help"],
                          capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 0 and "calibrate-camera" in done.stdout


def test_one_error_root_under_every_package() -> None:
    from calibration.errors import CalibrationError, CalibrationPackageError, SetupFileError
    from calibration.kit import KitError
    from rules.errors import GameFileError, IllegalActionError, InvalidActionError, MissingTableError, RosterError, RulesError
    from server.errors import ServerError
    from server.store import NothingToUndoError
    from server.validate import RequestError
    from tabletracker.errors import TabletrackerError, UsageError
    from tracker.errors import TrackerError
    from tracker.sources import SourceError

    roots = {CalibrationPackageError: (CalibrationError, SetupFileError, KitError),
             RulesError: (GameFileError, IllegalActionError, InvalidActionError, MissingTableError, RosterError),
             TrackerError: (SourceError,), ServerError: (RequestError, NothingToUndoError),
             TabletrackerError: (UsageError,)}
    for root, errors in roots.items():
        assert issubclass(root, TabletrackerError)
        assert all(issubclass(e, root) for e in errors), root
# -- lengths with units (tabletracker.lengths) -------------------------------------------------


@pytest.mark.parametrize("typed, default, mm", [
    ("3", UNITS["in"], 76.2),           # the rule set's unit when none is typed
    ("3in", UNITS["cm"], 76.2),
    ('3"', UNITS["cm"], 76.2),
    ("7.5cm", UNITS["in"], 75.0),
    ("7,5 cm", UNITS["in"], 75.0),      # a French decimal comma
    ("76mm", UNITS["in"], 76.0),
    ("4UD", UNITS["in"], 160.0),        # Feu à Volonté's UD: 40 mm by default
    ("6pas", UNITS["in"], 150.0),       # Star Wars: a pas is 25 mm
    ("2", UNITS["pas"], 50.0),
])
def test_a_length_in_each_unit(typed: str, default: object, mm: float) -> None:
    assert parse_length_mm(typed, default) == pytest.approx(mm)  # type: ignore[arg-type]


def test_a_ud_follows_the_game_figure_scale() -> None:
    assert parse_length_mm("4UD", UNITS["in"], ud_mm=20.0) == pytest.approx(80.0)


@pytest.mark.parametrize("typed, words", [
    ("3parsecs", "unknown unit 'parsecs'"),
    ("three", "is not a length"),
    ("", "is not a length"),
])
def test_a_bad_length_says_which_forms_work(typed: str, words: str) -> None:
    with pytest.raises(LengthError, match=words):
        parse_length_mm(typed, UNITS["in"])


def test_the_usage_line_says_which_arguments_are_lengths_and_in_what_unit() -> None:
    usage = "zone X_MM Y_MM --radius PAS (or zone MODEL --radius PAS): every figure closer than X pas"
    assert convert_length_args(usage, ["30cm", "300", "--radius", "10cm"], UNITS["pas"]) == \
        ["300", "300", "--radius", "4"]
    assert convert_length_args(usage, ["trooper-1", "--radius=2"], UNITS["pas"]) == ["trooper-1", "--radius=2"]
    with pytest.raises(LengthError, match="--weapon-range cannot be negative"):
        convert_length_args("range A B --weapon-range INCHES", ["a", "b", "--weapon-range", "-3"], UNITS["in"])


def _ask(capsys: pytest.CaptureFixture[str], *argv: str) -> dict:  # type: ignore[type-arg]
    assert main(["ask", *argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)  # type: ignore[no-any-return]


def test_template_radius_takes_the_rule_set_unit_or_its_own(capsys: pytest.CaptureFixture[str]) -> None:
    plain = _ask(capsys, "firefight", "template", "300", "300", "3")
    assert plain["radius"]["mm"] == pytest.approx(76.2)
    for typed in ("3in", "7.62cm", "76.2mm"):
        assert _ask(capsys, "firefight", "template", "300", "300", typed)["radius"]["mm"] == pytest.approx(76.2)
    assert _ask(capsys, "at-43", "template", "300", "300", "3")["radius"]["mm"] == pytest.approx(30.0)
    assert _ask(capsys, "star-wars", "template", "300", "300", "6pas")["radius"]["mm"] == pytest.approx(150.0)
    fav = _ask(capsys, "feu-a-volonte", "template", "300", "300", "1", "--option", "ud_mm=20")
    assert fav["radius"]["mm"] == pytest.approx(20.0)


def test_range_and_jump_take_lengths_with_units(capsys: pytest.CaptureFixture[str]) -> None:
    inches = _ask(capsys, "firefight", "range", "squad-a", "squad-b", "--weapon-range", "24")
    cm = _ask(capsys, "firefight", "range", "squad-a", "squad-b", "--weapon-range", "60.96cm")
    assert inches["answer"] == cm["answer"]
    jump = _ask(capsys, "firefight", "jump", "15.24cm")   # 6": two full 3" -> 3 dice
    same = _ask(capsys, "firefight", "jump", "6")
    assert jump["answer"] == same["answer"]


def test_a_negative_weapon_range_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["ask", "firefight", "range", "squad-a", "squad-b", "--weapon-range", "-3"]) == 2
    assert "--weapon-range cannot be negative" in capsys.readouterr().err


# -- bundled games, weapons, serve, calibrate ----------------------------------------------------

def test_an_unknown_weapon_lists_the_unit_weapons(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["resolve", "firefight", "shoot", "squad-a", "squad-b", "--weapon", "no such gun"]) == 2
    err = capsys.readouterr().err
    assert "squad-a carries: rifle, bayonet, grenade launcher" in err and len(err.strip().splitlines()) == 1


def test_a_missing_game_names_the_bundled_ones(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["ask", "no-such-game", "distance", "a", "b"]) == 2
    err = capsys.readouterr().err
    assert "cannot read the game file" in err and "at-43, feu-a-volonte, firefight, high-fire, star-wars" in err


def _serve(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "tabletracker.cli", "serve", *args], cwd=ROOT,
                          capture_output=True, text=True, timeout=120, env=env, check=False)


def test_a_failed_serve_does_not_create_the_database(tmp_path: Path) -> None:
    db = tmp_path / "new" / "game.db"
    done = _serve("--images", str(tmp_path / "nowhere"), "--db", str(db))
    assert done.returncode == 2 and "no such file or folder" in done.stderr
    assert not db.exists() and not db.parent.exists()


def test_serve_warns_when_the_game_table_is_not_the_setup_table(tmp_path: Path) -> None:
    from tabletracker.commands.serve import warn_table_mismatch

    setup = ROOT / "sample_images" / "sequence" / "setup.json"   # 600 x 600 mm
    game = ROOT / "rules" / "data" / "games" / "at-43-sample.json"
    text = warn_table_mismatch({"GAME_PATH": str(game), "SETUP_PATH": str(setup)})
    assert text is not None and "600 x 600 mm" in text
    assert warn_table_mismatch({"GAME_PATH": str(setup.parent / "game.json"), "SETUP_PATH": str(setup)}) is None


def test_calibrate_names_both_resolutions(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    camera = tmp_path / "camera.json"
    camera.write_text(json.dumps({"matrix": [[900, 0, 640], [0, 900, 360], [0, 0, 1]],
                                  "distortion": [0, 0, 0, 0, 0], "image_size": [1280, 720]}))
    image = ROOT / "sample_images" / "hf600_1080p_top.jpg"
    setup = ROOT / "sample_images" / "sequence" / "setup.json"
    assert main(["calibrate", str(image), "--setup", str(setup), "--camera", str(camera),
                 "--out", str(tmp_path / "cal.json")]) == 2
    err = capsys.readouterr().err
    assert "made at 1280x720" in err and "is 1920x1080" in err
    assert not (tmp_path / "cal.json").exists()


def test_opencv_warnings_stay_off_the_terminal() -> None:
    code = ("import os, sys; from tabletracker.cli import quiet_opencv; quiet_opencv(); "
            "import cv2; print(os.environ['OPENCV_LOG_LEVEL'], cv2.utils.logging.getLogLevel())")
    env = {k: v for k, v in os.environ.items() if k != "OPENCV_LOG_LEVEL"}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, env=env,
                          check=False)
    assert done.stdout.split() == ["ERROR", "2"]   # 2 = errors only


# -- test.sh and run.sh --------------------------------------------------------------------------

def _venv_sh(script: str, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["bash", "-c", f"source {ROOT / 'scripts' / 'venv.sh'}; {script}"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=60, check=False)


@pytest.mark.parametrize("args, skipped", [
    ('-m "not browser"', True), ('-x -q -m "not browser and not slow"', True), ('"-mnot browser"', True),
    ("", False), ("-m browser", False), ("tests/test_cli.py", False),
])
def test_test_sh_needs_chromium_only_for_browser_tests(args: str, skipped: bool, tmp_path: Path) -> None:
    done = _venv_sh(f"browser_tests_skipped {args} && echo skipped || echo needed", tmp_path)
    assert done.stdout.strip() == ("skipped" if skipped else "needed")


def test_run_sh_reuses_the_install_test_sh_made(tmp_path: Path) -> None:
    """run.sh installs without extras; a fresh install with the test extras holds all it needs."""
    (tmp_path / ".venv" / "bin").mkdir(parents=True)
    python = tmp_path / ".venv" / "bin" / "python"
    python.write_text("#!/bin/sh\necho pip-called >&2\nexit 1\n")
    python.chmod(0o755)
    (tmp_path / "pyproject.toml").write_text("")
    (tmp_path / "setup.py").write_text("")
    os.utime(tmp_path / "pyproject.toml", (1_000_000, 1_000_000))
    os.utime(tmp_path / "setup.py", (1_000_000, 1_000_000))
    (tmp_path / ".venv" / ".installed[test]").write_text("")
    done = _venv_sh('ensure_venv "" && echo reused', tmp_path)
    assert done.stdout.strip() == "reused" and "pip-called" not in done.stderr
    os.utime(tmp_path / "pyproject.toml")   # a changed pyproject.toml installs again
    done = _venv_sh('ensure_venv "" && echo reused', tmp_path)
    assert "reused" not in done.stdout


def test_resolve_takes_lengths_with_units(capsys: pytest.CaptureFixture[str]) -> None:
    """An action's length (a key ending in its unit: distance_in, move_pas...) takes a suffix too."""
    assert main(["resolve", "firefight", "jump", "a1", "distance_in=15.24cm", "--json"]) == 0
    cm = json.loads(capsys.readouterr().out)
    assert main(["resolve", "firefight", "jump", "a1", "distance_in=6", "--json"]) == 0
    inches = json.loads(capsys.readouterr().out)
    assert cm["odds"] == inches["odds"] and cm["explanation"] == inches["explanation"]
    assert main(["resolve", "firefight", "jump", "a1", "distance_in=-3cm"]) == 2
    assert "distance_in cannot be negative" in capsys.readouterr().err
