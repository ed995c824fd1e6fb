"""Print pip constraints that pin every dependency of pyproject.toml to its declared floor.

``python scripts/min_constraints.py > min.txt`` then
``pip install -c min.txt -e ".[test]"`` installs the oldest versions the project claims to
support, so CI can check that the floors in pyproject.toml are true (see ``.ci/run``).
A requirement without a ``>=`` floor is left free.
"""

from __future__ import annotations

import re
import sys
import tomllib
from pathlib import Path

PYPROJECT = Path(__file__).resolve().parents[1] / "pyproject.toml"
_FLOOR = re.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)(?:\[[^\]]*\])?\s*([^;]*)")


def floors(pyproject: Path = PYPROJECT, extras: tuple[str, ...] = ("test",)) -> dict[str, str]:
    """Return {distribution name: floor version} for the dependencies and the given extras.

    >>> floors()["numpy"].split(".")[0]
    '2'
    """
    project = tomllib.loads(pyproject.read_text(encoding="utf-8"))["project"]
    reqs = list(project.get("dependencies", []))
    for extra in extras:
        reqs += project.get("optional-dependencies", {}).get(extra, [])
    out: dict[str, str] = {}
    for req in reqs:
        match = _FLOOR.match(req)
        if match is None:
            continue
        for spec in match.group(2).split(","):
            spec = spec.strip()
            if spec.startswith(">="):
                out[match.group(1).lower()] = spec[2:].strip()
    return out


def main() -> int:
    for name, version in sorted(floors().items()):
        print(f"{name}=={version}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
