"""Build hook: the wheel carries the demo sequence as ``tabletracker/demo/`` and the docs as ``tabletracker/docs/``.

Everything else is declared in pyproject.toml. The demo is the rendered sample sequence
(``sample_images/sequence``) without its deliberately broken frames, so that an
installed ``tabletracker serve`` plays it with no checkout around (see
``tabletracker/samples.py``).
"""

from __future__ import annotations

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

HERE = Path(__file__).resolve().parent
SEQUENCE = HERE / "sample_images" / "sequence"


def _whole_jpeg(path: Path) -> bool:
    data = path.read_bytes()
    return len(data) >= 4 and data[:2] == b"\xff\xd8" and data[-2:] == b"\xff\xd9"


class BuildWithDemo(build_py):
    """Copy the clean demo frames with their setup and game into the built package."""

    def run(self) -> None:
        super().run()
        if self.editable_mode or not SEQUENCE.is_dir():
            return  # an editable install reads sample_images/ from the checkout
        target = Path(self.build_lib) / "tabletracker" / "demo"
        shutil.rmtree(target, ignore_errors=True)  # no stale frame from an earlier build
        target.mkdir(parents=True)
        for name in ("setup.json", "game.json"):
            shutil.copyfile(SEQUENCE / name, target / name)
        for frame in sorted(SEQUENCE.glob("frame_*.jpg")):
            if _whole_jpeg(frame):
                shutil.copyfile(frame, target / frame.name)
        docs = Path(self.build_lib) / "tabletracker" / "docs"  # the pages the program links to (/docs/...)
        shutil.rmtree(docs, ignore_errors=True)
        docs.mkdir(parents=True)
        for page in sorted((HERE / "docs").glob("*.md")):
            shutil.copyfile(page, docs / page.name)


setup(cmdclass={"build_py": BuildWithDemo})
