"""The command-line entry point: lists its subcommands, refuses unknown ones cleanly."""

from __future__ import annotations

import subprocess
import sys

from tabletracker.cli import COMMANDS, main


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
                          capture_output=True, text=True, timeout=60)
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
