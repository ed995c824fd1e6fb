"""Everything on the table in one image: models by marker, bare bases by rim colour.

Used by ``tabletracker locate``; the frame loop (:mod:`tracker.pipeline`) runs the same
steps with regions of interest.
"""

from __future__ import annotations

import logging
import math
import threading
from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np

from calibration.setup import Setup
from tracker.bases import MODEL_EXCLUSION_MM, FoundBase, PlanView, find_bases
from tracker.candidates import prepare_blurred_reading
from tracker.detections import Detections
from tracker.markers import (
    MIN_READABLE_SIDE_PX,
    LocatedModel,
    Rejection,
    TableMapping,
    detector_for,
    ids_in_play,
    locate_models,
    marker_side_px_range,
)
from tracker.onbase import markers_on_bases

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Located:
    """What one image shows: models, bare bases, rejected markers and warnings."""

    models: tuple[LocatedModel, ...]
    bases: tuple[FoundBase, ...]
    rejected: tuple[Rejection, ...]
    warnings: tuple[str, ...]

    def to_dict(self) -> dict[str, Any]:
        """Return the JSON document ``locate --json`` prints."""
        return {"models": [m.to_dict() for m in self.models], "bases": [b.to_dict() for b in self.bases],
                "rejected": [r.to_dict() for r in self.rejected], "warnings": list(self.warnings)}


def readability_warning(calibration: TableMapping, setup: Setup) -> str | None:
    """Say when base markers are too small in this image to be read, and what would work.

    Returns None when the smallest base marker is at least :data:`MIN_READABLE_SIDE_PX`
    across everywhere on the table.

    Examples
    --------
    >>> from calibration.setup import parse_setup
    >>> from tracker.markers import ScaledPlane
    >>> s = parse_setup({"table": {"width_mm": 1200, "depth_mm": 1200}})
    >>> print(readability_warning(ScaledPlane(0.9), s))  # doctest: +NORMALIZE_WHITESPACE
    12 mm base markers are only 10.8 px across in this image, and a marker needs about 16 px to be read:
    with this camera use markers of at least 18 mm, or a table of at most 810 x 810 mm (camera closer),
    or a higher-resolution camera. Bare bases are still found by their rim colour.
    >>> readability_warning(ScaledPlane(1.8), s) is None
    True
    """
    m = setup.markers
    size = m.base_size_mm
    low, _ = marker_side_px_range(calibration, setup, size, height_mm=m.base_height_mm)
    if low >= MIN_READABLE_SIDE_PX:
        return None
    scale = low / MIN_READABLE_SIDE_PX
    need_mm = math.ceil(size / scale)
    w, d = setup.table.width_mm, setup.table.depth_mm
    return (f"{size:g} mm base markers are only {low:.1f} px across in this image, and a marker needs about "
            f"{MIN_READABLE_SIDE_PX:g} px to be read: with this camera use markers of at least {need_mm} mm, "
            f"or a table of at most {math.floor(w * scale / 10) * 10:g} x {math.floor(d * scale / 10) * 10:g} mm "
            "(camera closer), or a higher-resolution camera. Bare bases are still found by their rim colour.")


def locate_all(image: np.ndarray, calibration: TableMapping, setup: Setup, *,
               bare_bases: bool = True) -> Located:
    """Find every model (by marker) and bare base (by rim colour) in one BGR image.

    Parameters
    ----------
    image : (H, W, 3) uint8
        The camera frame.
    calibration : TableMapping
        Image px <-> table mm.
    setup : Setup
        Table, markers, sides.
    bare_bases : bool
        Also run base mode.
    """
    warnings = []
    small = readability_warning(calibration, setup)
    if small:
        warnings.append(small)
    # base mode needs nothing from the marker scan until the end (the models' places, to leave
    # them out): it runs beside it, on the other core (OpenCV and numpy release the GIL), and
    # starts first (the grey image is the marker scan's alone)
    search = _BaseSearch(image, calibration, setup) if bare_bases and image.ndim == 3 else None
    gray = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY) if image.ndim == 3 else image
    det = detector_for(calibration, setup).detect(gray)
    if search is not None:
        search.markers_read()
    fixes = locate_models(det, calibration, setup)
    bases: tuple[FoundBase, ...] = ()
    if search is not None:
        view, circles = search.result()
        bases = _off_models(circles, fixes.models)
        more = markers_on_bases(image, gray, view, calibration, setup, bases)
        more = more.select(~np.isin(more.marker_ids, det.marker_ids))
        if len(more):
            fixes = locate_models(Detections.concat([det, more]), calibration, setup)
            bases = _off_models(bases, fixes.models)
    elif bare_bases:
        warnings.append("grey image: bare bases need colour to tell the sides, none looked for")
    return Located(fixes.models, bases, fixes.rejected, tuple(warnings))


def warm_up() -> None:
    """Start, on a thread of its own, the one-off set-up the calibration and base search would wait for.

    OpenCV fills its Lab conversion tables on the first conversion to Lab (about 0.12 s of
    CPU, once per process), numpy imports its masked arrays on the first median (the
    calibration's edge fits) and its random generators on first use (the bare-base
    search's RANSAC): a command that locates one image calls this first, so all three
    happen on the second core while the image is read and the table calibrated, instead of
    on the critical path. The imports come first: the calibration needs the masked arrays
    within a tenth of a second, while it waits on OpenCV (which releases the GIL). The
    results do not change.
    """
    def run() -> None:
        import numpy.ma  # noqa: F401  (np.median's check for masked arrays)
        import numpy.random  # noqa: F401  (RANSAC's sampler in tracker.bases)

        cv2.cvtColor(np.zeros((1, 1, 3), np.uint8), cv2.COLOR_BGR2LAB)

    threading.Thread(target=run, daemon=True, name="warm-up").start()


def _off_models(bases: tuple[FoundBase, ...], models: tuple[LocatedModel, ...]) -> tuple[FoundBase, ...]:
    """The bases not standing where a model (found by its marker) stands."""
    return tuple(b for b in bases if all(math.hypot(b.x_mm - m.x_mm, b.y_mm - m.y_mm) > MODEL_EXCLUSION_MM
                                         for m in models))


class _BaseSearch:
    """:func:`tracker.bases.find_bases` on the whole table, run in a thread of its own.

    Done before the marker scan, it has the blurred codes the scan's last reading fits (a
    tenth of a second of CPU, once per process: :func:`tracker.candidates.prepare_blurred_reading`)
    built beside the scan, on the core it leaves free, instead of by the scan when it gets there.
    """

    def __init__(self, image: np.ndarray, calibration: TableMapping, setup: Setup) -> None:
        self._out: tuple[PlanView, tuple[FoundBase, ...]] | None = None
        self._error: BaseException | None = None
        self._markers = threading.Event()
        self._thread = threading.Thread(target=self._run, args=(image, calibration, setup), daemon=True,
                                        name="bare-bases")
        self._thread.start()

    def _run(self, image: np.ndarray, calibration: TableMapping, setup: Setup) -> None:
        try:
            view = PlanView(calibration, setup)
            self._out = (view, find_bases(image, view, setup))
        except BaseException as exc:       # handed to the caller's thread by result()
            self._error = exc
            return
        if not self._markers.is_set():
            prepare_blurred_reading(setup.markers.dictionary, ids_in_play(setup) or ())

    def markers_read(self) -> None:
        """Say that the marker scan is over (nothing is built for it any more)."""
        self._markers.set()

    def result(self) -> tuple[PlanView, tuple[FoundBase, ...]]:
        self._thread.join()
        if self._error is not None:
            raise self._error
        assert self._out is not None
        return self._out
