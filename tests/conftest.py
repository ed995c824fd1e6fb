"""Shared fixtures: paths to the repository's data."""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile
from pathlib import Path

import pytest
from hypothesis import settings

ROOT = Path(__file__).resolve().parents[1]

# What the program writes to the user's data folder (the demo copy, an installed serve's
# database) goes to a scratch folder during the tests, never into the tester's home.
if "TABLETRACKER_DATA" not in os.environ:
    _DATA = tempfile.mkdtemp(prefix="tabletracker-test-data-")
    os.environ["TABLETRACKER_DATA"] = _DATA
    atexit.register(shutil.rmtree, _DATA, ignore_errors=True)

# Property tests check answers, not speed: no per-example deadline (hypothesis's default 200 ms fails
# on a loaded 2-core CI machine); speed lives in benchmarks/.
settings.register_profile("tabletracker", deadline=None)
settings.load_profile("tabletracker")


@pytest.fixture
def repo_root() -> Path:
    return ROOT


@pytest.fixture
def sample_images_dir() -> Path:
    return ROOT / "sample_images"
