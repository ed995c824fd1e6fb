"""``locate`` finds today what it found before its speed work: every sample scene, compared with
the models, bare bases, rejections and warnings stored in ``data/locate_expected.json``.

The stored answers were written by the code before the locate path was made faster (a
restricted marker search, other labelling, work overlapped); a change that alters what is
found, or moves it, fails here. Run this file as a script to write them again (only after a
change meant to alter the results): ``python -m tests.tracker.test_locate_expected``.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest

from tests.tracker.support import SAMPLES, located

EXPECTED = Path(__file__).with_name("data") / "locate_expected.json"
SCENES = [s["name"] for s in json.loads((SAMPLES / "index.json").read_text())["scenes"]]
#: Numbers are stored rounded as ``locate --json`` prints them (0.01 mm, 0.1 px, 0.001 confidence):
#: one rounding step apart at most.
STEP = {"marker_side_px": 0.1, "arc_deg": 0.1, "center_px": 0.1, "confidence": 0.001}


def _answer(name: str) -> dict[str, Any]:
    found, _, _ = located(name)
    return found.to_dict()


def _same(got: list[dict[str, Any]], want: list[dict[str, Any]]) -> None:
    assert len(got) == len(want), (got, want)
    for g, w in zip(got, want):
        assert set(g) == set(w), (g, w)
        for key, value in w.items():
            tol = 1.1 * STEP.get(key, 0.01)
            if isinstance(value, float):
                assert math.isclose(g[key], value, abs_tol=tol), (key, g, w)
            elif isinstance(value, list):
                assert len(g[key]) == len(value) and all(math.isclose(a, b, abs_tol=tol)
                                                         for a, b in zip(g[key], value)), (key, g, w)
            else:
                assert g[key] == value, (key, g, w)


@pytest.mark.parametrize("name", SCENES)
def test_locate_finds_what_it_found_before(name: str) -> None:
    want = json.loads(EXPECTED.read_text())[name]
    got = _answer(name)
    for part in ("models", "bases", "rejected"):
        _same(got[part], want[part])
    assert got["warnings"] == want["warnings"]


if __name__ == "__main__":
    EXPECTED.write_text(json.dumps({name: _answer(name) for name in SCENES}, indent=1) + "\n")
