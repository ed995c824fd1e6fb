"""Where the bundled demo and sample games are, and where the user's own files go.

An installed tabletracker never writes into its install folder. What it makes (the game
database, re-rendered samples, the demo sequence copied from a checkout) goes into the
user's data folder, :func:`data_dir`:

- ``$TABLETRACKER_DATA`` when set;
- else ``%LOCALAPPDATA%\\tabletracker`` on Windows, ``~/Library/Application Support/tabletracker``
  on macOS, ``$XDG_DATA_HOME/tabletracker`` (``~/.local/share/tabletracker``) elsewhere.

The demo that ``tabletracker serve`` plays with no camera is the rendered sample sequence
without its deliberately broken frames (those belong to the tracker's tests): a wheel
carries it as ``tabletracker/demo/`` (see ``setup.py``); a checkout makes it once in the
data folder from ``sample_images/sequence``. The bundled games are the sample games
of the five rule sets, named by their rule set: ``at-43``, ``feu-a-volonte``,
``firefight``, ``high-fire``, ``star-wars`` (see ``docs/game-file.md``).
"""

from __future__ import annotations

import logging
import os
import shutil
import sys
from pathlib import Path

from tabletracker.errors import TabletrackerError
from tabletracker.i18n import worded

log = logging.getLogger(__name__)

PACKAGE_DIR = Path(__file__).resolve().parent
REPO_ROOT = PACKAGE_DIR.parent
PACKAGED_DEMO = PACKAGE_DIR / "demo"
CHECKOUT_SEQUENCE = REPO_ROOT / "sample_images" / "sequence"
GAMES_DIR = REPO_ROOT / "rules" / "data" / "games"
ROSTERS_DIR = REPO_ROOT / "rules" / "data" / "rosters"
GAME_SUFFIX = "-sample.json"
DEMO_FILES = ("setup.json", "game.json")
_JPEG_START, _JPEG_END = b"\xff\xd8", b"\xff\xd9"


class SampleError(TabletrackerError):
    """A bundled sample or game that is not there, with what is there instead."""


def is_checkout() -> bool:
    """Tell whether the code runs from a source checkout (editable install), not an installed wheel."""
    return (REPO_ROOT / "pyproject.toml").is_file() and (REPO_ROOT / "sample_images").is_dir()


def data_dir() -> Path:
    """Return the user's tabletracker data folder (not created here)."""
    override = os.environ.get("TABLETRACKER_DATA")
    if override:
        return Path(override).expanduser()
    if sys.platform == "win32":
        base = Path(os.environ.get("LOCALAPPDATA") or Path.home() / "AppData" / "Local")
    elif sys.platform == "darwin":
        base = Path.home() / "Library" / "Application Support"
    else:
        base = Path(os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share")
    return base / "tabletracker"


def is_clean_frame(path: Path) -> bool:
    """Tell whether ``path`` is a whole JPEG frame (starts and ends with the JPEG markers).

    The sample sequence holds an empty ``frame_0031.jpg`` on purpose, for the tracker's
    tests; the demo leaves such frames out.
    """
    try:
        size = path.stat().st_size
        if size < 4:
            return False
        with path.open("rb") as f:
            head = f.read(2)
            f.seek(-2, os.SEEK_END)
            return head == _JPEG_START and f.read(2) == _JPEG_END
    except OSError:
        return False


def demo_frames(folder: Path) -> list[Path]:
    """Return the clean frames of a sequence folder, in name order."""
    return [p for p in sorted(folder.glob("frame_*.jpg")) if is_clean_frame(p)]


def _complete(folder: Path) -> bool:
    return all((folder / name).is_file() for name in DEMO_FILES) and bool(demo_frames(folder))


def copy_demo(source: Path, target: Path) -> Path:
    """Copy the clean frames of ``source`` with its setup and game into ``target``.

    Frames are hard-linked when the two folders share a disk, copied otherwise. A frame
    that is not a whole JPEG is left out, so the demo loops without an error frame.
    """
    target.mkdir(parents=True, exist_ok=True)
    for stale in target.glob("frame_*.jpg"):
        stale.unlink()
    for name in DEMO_FILES:
        shutil.copyfile(source / name, target / name)
    for frame in demo_frames(source):
        dest = target / frame.name
        try:
            os.link(frame, dest)
        except OSError:
            shutil.copyfile(frame, dest)
    return target


def demo_sequence() -> Path:
    """Return the folder of the demo sequence (clean frames, ``setup.json``, ``game.json``).

    Raises
    ------
    SampleError
        Neither the installed package nor a checkout holds the sample sequence.
    """
    if _complete(PACKAGED_DEMO):
        return PACKAGED_DEMO
    rendered = data_dir() / "sample_images" / "sequence"
    sources = [p for p in (CHECKOUT_SEQUENCE, rendered) if _complete(p)]
    if not sources:
        raise worded(SampleError, "cli.demo_missing", path=data_dir() / "sample_images")
    source = sources[0]
    target = data_dir() / "demo"
    wanted = {p.name for p in demo_frames(source)}
    have = {p.name for p in target.glob("frame_*.jpg")} if target.is_dir() else set()
    fresh = all((target / n).is_file() and (target / n).stat().st_mtime >= (source / n).stat().st_mtime
                for n in DEMO_FILES)
    if wanted != have or not fresh:
        log.info("copying the demo sequence from %s to %s", source, target)
        try:
            copy_demo(source, target)
        except OSError as exc:  # a read-only data folder: play the sequence where it is
            log.warning("cannot copy the demo into %s (%s); playing %s as it is", target, exc, source)
            return source
    return target


def bundled_games() -> dict[str, Path]:
    """Return {name: path} of the bundled sample games, one per rule set.

    >>> sorted(bundled_games())
    ['at-43', 'feu-a-volonte', 'firefight', 'high-fire', 'star-wars']
    """
    return {p.name[: -len(GAME_SUFFIX)]: p for p in sorted(GAMES_DIR.glob("*" + GAME_SUFFIX))}


def game_file(name_or_path: str) -> Path:
    """Return the game file named by a path, or by a bundled game's name (``at-43``).

    >>> game_file("at-43").name
    'at-43-sample.json'
    """
    path = Path(name_or_path).expanduser()
    if path.is_file():
        return path
    games = bundled_games()
    key = name_or_path.strip().lower()
    for candidate in (key, key.removesuffix("-sample"), key.removesuffix(".json").removesuffix("-sample")):
        if candidate in games:
            return games[candidate]
    if key in ("demo", "sequence", "sample"):
        return demo_sequence() / "game.json"
    raise worded(SampleError, "cli.no_such_game", name=name_or_path, games=", ".join(games))


def roster_file(name_or_path: str) -> Path:
    """Return the roster file named by a path, or by a bundled roster's name (``firefight-brood``)."""
    path = Path(name_or_path).expanduser()
    if path.is_file():
        return path
    rosters = {p.stem: p for p in sorted(ROSTERS_DIR.glob("*.json"))}
    key = name_or_path.strip().lower().removesuffix(".json")
    if key in rosters:
        return rosters[key]
    raise worded(SampleError, "cli.no_such_roster", name=name_or_path, rosters=", ".join(rosters))


def bundled_frame() -> Path:
    """Return one clean frame of the demo sequence (for ``locate --sample``)."""
    return demo_frames(demo_sequence())[0]


def samples_out_default() -> Path:
    """Return where ``render-samples`` writes by default: the checkout's ``sample_images``, else the data folder."""
    if is_checkout() and os.access(REPO_ROOT, os.W_OK):
        return REPO_ROOT / "sample_images"
    return data_dir() / "sample_images"
