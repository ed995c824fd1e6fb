"""Shared fixtures: paths to the repository's data."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def repo_root() -> Path:
    return ROOT


@pytest.fixture
def sample_images_dir() -> Path:
    return ROOT / "sample_images"
