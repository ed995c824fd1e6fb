"""``tabletracker render-samples``: re-render the bundled sample images, sequence and ChArUco photos."""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from tabletracker.errors import UsageError
from tabletracker.i18n import said, worded


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from tabletracker.samples import samples_out_default

    default = samples_out_default()
    parser.add_argument("--out", type=Path, default=default,
                        help=f"output folder (default: a checkout's sample_images, else sample_images in your "
                             f"data folder, never the install folder: {default})")
    parser.add_argument("--only", metavar="NAME", default=None,
                        help="render only this scene, or 'sequence' or 'charuco' (default: everything)")


def run(args: argparse.Namespace) -> int:
    from synth.generate import GROUPS, SCENES, generate

    out: Path = args.out
    if out.exists() and not out.is_dir():
        raise worded(UsageError, "cli.out_is_file", path=out)
    if args.only is not None and args.only not in (*SCENES, *GROUPS):
        raise worded(UsageError, "cli.samples.unknown", name=repr(args.only), names=", ".join((*SCENES, *GROUPS)))
    start = time.monotonic()

    def progress(name: str) -> None:
        print(said("cli.samples.rendered", name=name, seconds=f"{time.monotonic() - start:.1f}"), flush=True)

    done = generate(out, args.only, progress)
    print(said("cli.samples.written", count=str(len(done)), path=out, seconds=f"{time.monotonic() - start:.1f}"))
    return 0
