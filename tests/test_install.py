"""What an installed tabletracker relies on: the demo without broken frames, the bundled games
by name, the user's data folder (never the install folder), and the declared version floors.
The wheel itself is built, installed outside the checkout and run by CI (scripts/ci_installed.sh)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tabletracker import samples

ROOT = Path(__file__).resolve().parents[1]
SEQUENCE = ROOT / "sample_images" / "sequence"


@pytest.fixture
def data(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("TABLETRACKER_DATA", str(tmp_path / "data"))
    return tmp_path / "data"


def test_the_data_folder_follows_the_environment(data: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert samples.data_dir() == data
    monkeypatch.delenv("TABLETRACKER_DATA")
    monkeypatch.setenv("XDG_DATA_HOME", "/somewhere")
    if sys.platform.startswith("linux"):
        assert samples.data_dir() == Path("/somewhere/tabletracker")


def test_the_demo_leaves_out_the_broken_test_frames(data: Path) -> None:
    assert (SEQUENCE / "frame_0031.jpg").stat().st_size == 0   # the tracker's tests need it there
    demo = samples.demo_sequence()
    assert demo == data / "demo"
    frames = [p.name for p in samples.demo_frames(demo)]
    assert "frame_0031.jpg" not in frames and len(frames) == len(list(SEQUENCE.glob("frame_*.jpg"))) - 1
    assert (demo / "setup.json").is_file() and (demo / "game.json").is_file()
    assert all(samples.is_clean_frame(demo / f) for f in frames)
    again = samples.demo_sequence()   # made once, reused
    assert again == demo and [p.name for p in samples.demo_frames(again)] == frames


def test_a_truncated_frame_is_not_clean(tmp_path: Path) -> None:
    whole = (SEQUENCE / "frame_0000.jpg").read_bytes()
    cut = tmp_path / "frame_0001.jpg"
    cut.write_bytes(whole[: len(whole) // 2])
    assert samples.is_clean_frame(SEQUENCE / "frame_0000.jpg") and not samples.is_clean_frame(cut)


def test_the_installed_demo_is_preferred(data: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    packaged = samples.copy_demo(SEQUENCE, tmp_path / "pkg" / "demo")
    monkeypatch.setattr(samples, "PACKAGED_DEMO", packaged)
    assert samples.demo_sequence() == packaged and not (data / "demo").exists()


def test_no_demo_anywhere_says_how_to_make_one(data: Path, monkeypatch: pytest.MonkeyPatch,
                                               tmp_path: Path) -> None:
    monkeypatch.setattr(samples, "CHECKOUT_SEQUENCE", tmp_path / "none")
    monkeypatch.setattr(samples, "PACKAGED_DEMO", tmp_path / "none")
    with pytest.raises(samples.SampleError, match="render-samples --only sequence"):
        samples.demo_sequence()


@pytest.mark.parametrize("name, file", [
    ("at-43", "at-43-sample.json"), ("AT-43", "at-43-sample.json"), ("star-wars-sample", "star-wars-sample.json"),
    ("feu-a-volonte", "feu-a-volonte-sample.json"), ("high-fire", "high-fire-sample.json"),
    ("firefight.json", "firefight-sample.json"),
])
def test_bundled_games_by_name(name: str, file: str) -> None:
    assert samples.game_file(name).name == file


def test_a_file_of_that_name_wins_over_a_bundled_game(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "at-43").write_text("{}")
    assert samples.game_file("at-43") == Path("at-43")


def test_bundled_rosters_by_name() -> None:
    assert samples.roster_file("firefight-brood").name == "firefight-brood.json"
    with pytest.raises(samples.SampleError, match="bundled rosters: at-43-therian-golems"):
        samples.roster_file("nobody")


def test_render_samples_never_writes_into_an_install(data: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert samples.samples_out_default() == ROOT / "sample_images"   # a checkout renders into itself
    monkeypatch.setattr(samples, "is_checkout", lambda: False)
    assert samples.samples_out_default() == data / "sample_images"


def test_the_floors_are_pinned_for_the_minimum_versions_run() -> None:
    done = subprocess.run([sys.executable, str(ROOT / "scripts" / "min_constraints.py")],
                          capture_output=True, text=True, timeout=60, check=True)
    pins = dict(line.split("==") for line in done.stdout.split())
    assert pins["opencv-python-headless"].startswith("5.") and pins["numpy"].startswith("2.")
    assert set(pins) >= {"shapely", "flask", "pyyaml", "pytest"}


def test_ci_runs_the_install_checks() -> None:
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert "bash test.sh" in ci and "scripts/ci_installed.sh" in ci and "scripts/ci_min_versions.sh" in ci


def test_a_read_only_data_folder_still_plays_the_demo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("")
    monkeypatch.setenv("TABLETRACKER_DATA", str(blocker / "data"))   # under a file: cannot be made
    assert samples.demo_sequence() == SEQUENCE
