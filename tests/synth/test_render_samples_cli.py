"""``tabletracker render-samples`` refuses bad input with one clear line."""

from __future__ import annotations

from pathlib import Path

import pytest

from tabletracker.cli import main


def test_unknown_name_is_a_clean_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["render-samples", "--out", str(tmp_path), "--only", "nope"]) == 2
    err = capsys.readouterr().err
    assert "unknown sample 'nope'" in err and "hf600_1080p_top" in err and "sequence" in err
    assert "Traceback" not in err


def test_out_must_be_a_folder(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    target = tmp_path / "file.txt"
    target.write_text("x")
    assert main(["render-samples", "--out", str(target), "--only", "charuco"]) == 2
    assert "is a file" in capsys.readouterr().err
