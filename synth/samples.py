"""Write rendered samples to disk: ``<stem>.jpg`` and its ``<stem>.json`` ground truth.

Examples
--------
>>> import tempfile, pathlib, numpy as np
>>> d = pathlib.Path(tempfile.mkdtemp())
>>> paths = write_sample(d / "tiny", np.zeros((4, 6, 3), np.uint8), {"notes": "x"}, jpeg_quality=80)
>>> sorted(p.name for p in paths)
['tiny.jpg', 'tiny.json']
>>> json.loads((d / "tiny.json").read_text())["image_size"]
[6, 4]
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import cv2
import numpy as np


def encode_jpeg(image: np.ndarray, quality: int = 90) -> bytes:
    """Return the JPEG bytes of a BGR image (baseline, no chroma tricks: reproducible)."""
    ok, buf = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, int(quality)])
    if not ok:
        raise ValueError("OpenCV could not encode the image as JPEG")
    return buf.tobytes()


def write_sample(path_stem: str | Path, image: np.ndarray, truth: dict[str, Any], *,
                 jpeg_quality: int | None = None) -> tuple[Path, Path]:
    """Write ``image`` as ``<path_stem>.jpg`` and ``truth`` as ``<path_stem>.json``.

    The truth's ``image`` and ``image_size`` fields are set to match the written file.
    ``jpeg_quality`` defaults to ``truth["render"]["jpeg_quality"]`` or 90.

    Returns
    -------
    (jpg_path, json_path)
    """
    stem = Path(path_stem)
    stem.parent.mkdir(parents=True, exist_ok=True)
    if jpeg_quality is None:
        jpeg_quality = int(truth.get("render", {}).get("jpeg_quality", 90))
    jpg = stem.with_name(stem.name + ".jpg")
    js = stem.with_name(stem.name + ".json")
    jpg.write_bytes(encode_jpeg(image, jpeg_quality))
    doc = dict(truth)
    doc["image"] = jpg.name
    doc["image_size"] = [int(image.shape[1]), int(image.shape[0])]
    js.write_text(json.dumps(doc, indent=1) + "\n", encoding="utf-8")
    return jpg, js


def load_truth(path: str | Path) -> dict[str, Any]:
    """Read a truth JSON written by :func:`write_sample`."""
    return json.loads(Path(path).read_text(encoding="utf-8"))
