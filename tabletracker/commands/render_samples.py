"""``tabletracker render-samples``: re-render the bundled sample images, sequence and ChArUco photos."""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from tabletracker.errors import UsageError

HELP = "re-render the bundled sample images and sequence"
DEFAULT_OUT = Path(__file__).resolve().parents[2] / "sample_images"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT,
                        help=f"output folder (default: the repository's sample_images, {DEFAULT_OUT})")
    parser.add_argument("--only", metavar="NAME", default=None,
                        help="render only this scene, or 'sequence' or 'charuco' (default: everything)")


def run(args: argparse.Namespace) -> int:
    from synth.generate import generate

    out: Path = args.out
    if out.exists() and not out.is_dir():
        raise UsageError(f"--out {out} is a file; give a folder to write the samples into")
    start = time.monotonic()

    def progress(name: str) -> None:
        print(f"rendered {name} ({time.monotonic() - start:.1f} s)", flush=True)

    done = generate(out, args.only, progress)
    print(f"{len(done)} item(s) written to {out} in {time.monotonic() - start:.1f} s")
    return 0
