"""Regenerate ``sample_images/``: the sample scenes, the tracker sequence, ChArUco photos.

Everything is deterministic (fixed seeds), so a regeneration reproduces the committed
files (same geometry and truth; JPEG bytes may differ across OpenCV builds).
"""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Callable

from synth.catalog import SCENES, build_scene
from synth.render import render_scene
from synth.samples import write_sample

log = logging.getLogger(__name__)

INDEX_NAME = "index.json"
GROUPS = ("sequence", "charuco")


def render_named(name: str, out_dir: Path) -> Path:
    """Render the catalog scene ``name`` into ``out_dir/<name>.jpg`` + ``.json``; return the JPEG."""
    spec = build_scene(name)
    image, truth = render_scene(spec)
    jpg, _ = write_sample(out_dir / name, image, truth)
    log.info("wrote %s", jpg)
    return jpg


def write_index(out_dir: Path) -> Path:
    """Write ``index.json`` listing every scene (and group) with a one-line description."""
    entries = [{"name": r.name, "image": f"{r.name}.jpg", "truth": f"{r.name}.json",
                "table_mm": list(r.table), "image_size": list(r.image_size),
                "description": r.description} for r in SCENES.values()]
    groups = {}
    for g in GROUPS:
        groups[g] = _group_description(g)
    path = out_dir / INDEX_NAME
    path.write_text(json.dumps({"scenes": entries, "groups": groups}, indent=1) + "\n", encoding="utf-8")
    return path


def _group_description(name: str) -> str:
    if name == "sequence":
        return ("sequence/: tracker test frames over a 60x60 cm table (models moved one at a time, a hand "
                "passing, a dropped frame and an empty file); truth.json lists the events, game.json and "
                "setup.json go with it")
    return "charuco/: photos of the kit's ChArUco board under one camera; truth.json holds its intrinsics"


def generate(out_dir: Path, only: str | None = None,
             progress: Callable[[str], None] | None = None) -> list[str]:
    """Render everything (or only the scene or group ``only``) into ``out_dir``; return what was made."""
    out_dir.mkdir(parents=True, exist_ok=True)
    valid = list(SCENES) + list(GROUPS)
    if only is not None and only not in valid:
        raise ValueError(f"unknown sample {only!r}; choose one of: {', '.join(valid)}")
    done = []
    for name in SCENES:
        if only in (None, name):
            render_named(name, out_dir)
            done.append(name)
            if progress:
                progress(name)
    if only in (None, "sequence"):
        from synth.sequence import write_sequence
        write_sequence(out_dir / "sequence")
        done.append("sequence")
        if progress:
            progress("sequence")
    if only in (None, "charuco"):
        from synth.charuco import write_charuco_set
        write_charuco_set(out_dir / "charuco")
        done.append("charuco")
        if progress:
            progress("charuco")
    write_index(out_dir)
    return done
