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
