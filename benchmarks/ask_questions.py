"""Benchmark ``ask``'s other questions: the cost of one call on the 100-model tables.

Run: ``.venv/bin/python benchmarks/ask_questions.py`` (one core). Prints the median wall-clock
and CPU time of ``ask`` for the questions the geometry benchmark does not time (``los`` and
``cover`` are there): template, cohesion, charge reach, the AT-43 fire zone, distance,
terrain and objectives, on ``benchmarks.geometry``'s heights tables. Answers remembered
between calls (the fire zone's hull) count as remembered: the page asks again of an
unchanged table. Compare old and new code in alternation, CPU column, over several runs.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.geometry import heights_table, timed  # noqa: E402
from rules.questions import ask  # noqa: E402

QUESTIONS = (  # rule set, question, arguments (u0 and u1 are units of five; m0 and m7 models)
    ("firefight", "template", ["600", "600", "80"]),
    ("at-43", "template", ["600", "600", "80"]),
    ("firefight", "cohesion", ["u0"]),
    ("high-fire", "cohesion", ["u0"]),
    ("feu-a-volonte", "cohesion", ["u0"]),
    ("firefight", "charge", ["u0", "u1"]),
    ("at-43", "firezone", ["u0", "u1"]),
    ("firefight", "distance", ["m0", "m7"]),
    ("firefight", "terrain", ["m0"]),
    ("at-43", "objectives", []),
)


def main(repeat: int = 60) -> None:
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"ask benchmark: medians in ms, wall clock / CPU time of this process (machine load average {load:.1f})")
    plans = {ruleset: heights_table(ruleset) for ruleset, _, _ in QUESTIONS}
    for ruleset, question, args in QUESTIONS:
        wall, cpu = timed(lambda plan=plans[ruleset], q=question, a=args: ask(plan, q, a), repeat)
        print(f"  ask {question:10s} {' '.join(args):12s} on the 100-model table, {ruleset:13s}: "
              f"{wall:6.3f} / {cpu:6.3f}")


if __name__ == "__main__":
    main()
