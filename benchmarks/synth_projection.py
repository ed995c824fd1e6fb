"""How exactly the renderer puts markers where its truth says, and how fast it renders.

Run: .venv/bin/python benchmarks/synth_projection.py
Prints, for a pinhole and a webcam-like lens: the mean / max distance of the rendered ink
edges from the projected true edges (measured on intensity profiles, no detector), the
error of OpenCV's ArUco corners (CORNER_REFINE_SUBPIX) against the truth, and the
render time of a 1080p sample scene.
"""

from __future__ import annotations

import dataclasses
import sys
import time
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "synth"))

from synth.catalog import build_scene  # noqa: E402
from synth.render import render_scene  # noqa: E402
from test_render import WEBCAM, _detect, _edge_offsets, _scene, _truth_corners  # noqa: E402


def main() -> None:
    for name, dist in (("pinhole", (0.0,) * 5), ("webcam k1=-0.28", WEBCAM)):
        spec = dataclasses.replace(_scene(dist, blur=0.0), supersample=3)
        image, truth = render_scene(spec)
        gray = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY).astype(np.float32)
        offs = []
        for m in truth["models"][:2]:
            offs += _edge_offsets(gray, spec.camera, np.array(m["marker_corners_mm"]), m["height_mm"])
        for c in truth["corners"]:
            offs += _edge_offsets(gray, spec.camera, np.array(c["corners_mm"]), 0.0)
        offs = np.abs(offs)
        image, truth = render_scene(_scene(dist))
        found, want = _detect(image), _truth_corners(truth)
        err = np.concatenate([np.linalg.norm(found[i] - want[i], axis=1) for i in want if i in found])
        centre = [np.linalg.norm(found[i].mean(0) - want[i].mean(0)) for i in want if i in found]
        print(f"{name:16s} edge offset mean {offs.mean():.3f} px max {offs.max():.3f} px | ArUco SUBPIX corners "
              f"RMS {np.sqrt(np.mean(err**2)):.3f} px max {err.max():.3f} px, centres max {max(centre):.3f} px")
    spec = build_scene("hf600_1080p_top")
    start = time.process_time()
    render_scene(spec)
    print(f"render hf600_1080p_top (1920x1080, 18 models): {time.process_time() - start:.2f} s CPU")


if __name__ == "__main__":
    main()
