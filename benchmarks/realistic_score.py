"""Score ``locate``-style answers against realistic truth (the dev-scenes' format).

The rules are those of ``shared/dev-scenes/README.md``: a marker is expected when it is at
least 90 % visible and at least 16 px across, and counted for recall when its bits can be
read from its true outline (``decodable``); a bare base is expected when at least 75 % of
its rim is visible; a reported base within half its diameter of a true base matches it,
any other reported base away from every true base is a false one. Position error is the
distance from the reported centre to the true ``centre_mm``.

A frame with no answer is counted twice: once when its four corner markers are all (99.9 %)
visible, once when enough of them are readable from their true outline (:func:`unanswered_readable`):
two with the camera's intrinsics known (the pose is solved from any two), four when the lens
has to be estimated.

Used by ``benchmarks/tracker.py`` for the project's own realistic renders and for the six
dev-scenes; pure functions on plain dicts, so both share one scorer.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

MARKER_VISIBLE = 0.9
MARKER_MIN_PX = 16.0
BASE_VISIBLE = 0.75
#: A model reported farther than this from its true base centre is a wrong reading.
WRONG_MM = 15.0


@dataclass
class Score:
    """Counts and errors summed over frames."""

    expected: int = 0           # markers >= 90 % visible and >= 16 px
    decodable: int = 0          # ... whose bits read from the true outline
    found: int = 0              # decodable expected markers reported at the right place
    found_any: int = 0          # expected markers (decodable or not) reported at the right place
    false_ids: int = 0          # ids reported that no base carries
    wrong: int = 0              # ids reported far from where that base is
    err_mm: list[float] = field(default_factory=list)
    err_known_cam_mm: list[float] = field(default_factory=list)
    err_est_cam_mm: list[float] = field(default_factory=list)
    bare_expected: int = 0
    bare_found: int = 0
    bare_reported: int = 0
    bare_false: int = 0
    bare_err_mm: list[float] = field(default_factory=list)
    frames: int = 0
    no_answer: int = 0          # frames with no calibration although the corners were visible
    corners_enough: int = 0     # frames with enough corner markers readable (unanswered_readable)
    no_answer_readable: int = 0  # ... of which no calibration
    no_answer_frames: list[str] = field(default_factory=list)   # their labels
    missed: list[str] = field(default_factory=list)

    def add(self, other: Score) -> None:
        for k, v in vars(other).items():
            if isinstance(v, list):
                getattr(self, k).extend(v)
            else:
                setattr(self, k, getattr(self, k) + v)

    @staticmethod
    def rms(v: list[float]) -> float:
        return float(math.sqrt(sum(e * e for e in v) / len(v))) if v else float("nan")

    def recall(self) -> float:
        return self.found / self.decodable if self.decodable else float("nan")

    def bare_recall(self) -> float:
        return self.bare_found / self.bare_expected if self.bare_expected else float("nan")

    def bare_precision(self) -> float:
        real = self.bare_reported - self.bare_false
        return real / self.bare_reported if self.bare_reported else float("nan")


#: Corner markers the pose needs, the camera's intrinsics known (any two) or the lens estimated (all four).
CORNERS_NEEDED_CAMERA_KNOWN = 2
CORNERS_NEEDED_LENS_ESTIMATED = 4


def unanswered_readable(answered: bool, corners_readable: Mapping[int, bool], needed: int) -> bool:
    """Whether a frame went unanswered although at least ``needed`` of its corner markers were
    readable from their true outline (``corners_readable``: corner id -> readable)."""
    return not answered and sum(bool(v) for v in corners_readable.values()) >= needed


def score_frame(truth: dict[str, Any], decodable: dict[str, bool], models: list[dict[str, Any]] | None,
                bases: list[dict[str, Any]] | None, *, camera_known: bool, label: str = "",
                corners_readable: Mapping[int, bool] | None = None,
                corners_needed: int = CORNERS_NEEDED_LENS_ESTIMATED) -> Score:
    """Score one frame. ``models``/``bases``: ``locate --json`` items (None: no answer).

    ``corners_readable`` (corner id -> readable from its true outline), when given, counts the
    frame in ``corners_enough`` if at least ``corners_needed`` were readable, and in
    ``no_answer_readable`` if it went unanswered as well."""
    s = Score(frames=1)
    if corners_readable is not None and unanswered_readable(False, corners_readable, corners_needed):
        s.corners_enough = 1
        if models is None:
            s.no_answer_readable = 1
            s.no_answer_frames.append(label)
    true_bases = truth["bases"]
    by_id = {b["id"]: b for b in true_bases if b.get("id") is not None}
    for b in true_bases:
        if b.get("id") is None:
            continue
        if b.get("visibility", 1.0) >= MARKER_VISIBLE and (b.get("marker_px") or 0.0) >= MARKER_MIN_PX:
            s.expected += 1
            if decodable.get(str(b["id"]), False):
                s.decodable += 1
    corners_visible = all(c.get("visibility", c.get("visible_fraction", 1.0)) >= 0.999
                          for c in truth.get("corner_markers", []))
    if models is None:
        s.no_answer += int(corners_visible)
        for b in true_bases:
            if b.get("id") is not None and _counts(b, decodable):
                s.missed.append(f"{label}:{b['id']}(no answer)")
        if bases is None:
            s.bare_expected = sum(1 for b in true_bases if b.get("id") is None
                                  and b.get("visibility", 1.0) >= BASE_VISIBLE)
        return s
    reported = {int(m["marker_id"]): m for m in models}
    for mid, m in reported.items():
        t = by_id.get(mid)
        if t is None:
            s.false_ids += 1
            continue
        e = math.hypot(m["x_mm"] - t["centre_mm"][0], m["y_mm"] - t["centre_mm"][1])
        if e > WRONG_MM:
            s.wrong += 1
            continue
        s.err_mm.append(e)
        (s.err_known_cam_mm if camera_known else s.err_est_cam_mm).append(e)
        expected = t.get("visibility", 1.0) >= MARKER_VISIBLE and (t.get("marker_px") or 0.0) >= MARKER_MIN_PX
        if expected:
            s.found_any += 1
            if decodable.get(str(mid), False):
                s.found += 1
    for b in true_bases:
        if b.get("id") is not None and _counts(b, decodable) and (
                b["id"] not in reported or b["id"] in reported and math.hypot(
                    reported[b["id"]]["x_mm"] - b["centre_mm"][0],
                    reported[b["id"]]["y_mm"] - b["centre_mm"][1]) > WRONG_MM):
            s.missed.append(f"{label}:{b['id']}({b.get('top', '?')},{b.get('marker_px', 0):.0f}px)")
    found_bases = bases or []
    s.bare_reported = len(found_bases)
    for f in found_bases:
        near = min((math.hypot(f["x_mm"] - t["centre_mm"][0], f["y_mm"] - t["centre_mm"][1]) - t["diameter_mm"] / 2
                    for t in true_bases), default=math.inf)
        if near > 0.0:
            s.bare_false += 1
    for t in true_bases:
        if t.get("id") is not None or t.get("visibility", 1.0) < BASE_VISIBLE:
            continue
        s.bare_expected += 1
        d = [math.hypot(f["x_mm"] - t["centre_mm"][0], f["y_mm"] - t["centre_mm"][1]) for f in found_bases]
        if d and min(d) <= t["diameter_mm"] / 2:
            s.bare_found += 1
            s.bare_err_mm.append(min(d))
    return s


def rim_name(b: dict[str, Any], side_names: list[str]) -> str:
    """A true base's rim colour name: the dev-scenes give ``rim_colour.name`` (and a side index),
    the project's renders name the side by its colour."""
    rim = b.get("rim_colour")
    if isinstance(rim, dict) and rim.get("name"):
        return str(rim["name"])
    side = b.get("side")
    if isinstance(side, int) and 0 <= side < len(side_names):
        return side_names[side]
    return str(side)


def bare_by_rim(truth: dict[str, Any], bases: list[dict[str, Any]] | None, side_colours: dict[str, str]
                ) -> dict[str, dict[str, Any]]:
    """Bare-base figures per rim colour of one frame: expected, found, reported, false, errors (mm).

    Reported bases are counted under the rim colour of the side they were given (its name in
    the setup, which the renders' truth uses too); true ones under their own rim colour.
    """
    names = list(side_colours)
    out: dict[str, dict[str, Any]] = {}

    def row(name: str) -> dict[str, Any]:
        return out.setdefault(name, {"expected": 0, "found": 0, "reported": 0, "false": 0, "err": []})

    true_bases = truth["bases"]
    for f in bases or []:
        r = row(str(f.get("side")))
        r["reported"] += 1
        near = min((math.hypot(f["x_mm"] - t["centre_mm"][0], f["y_mm"] - t["centre_mm"][1]) - t["diameter_mm"] / 2
                    for t in true_bases), default=math.inf)
        r["false"] += int(near > 0.0)
    for t in true_bases:
        if t.get("id") is not None or t.get("visibility", 1.0) < BASE_VISIBLE:
            continue
        r = row(rim_name(t, names))
        r["expected"] += 1
        d = [math.hypot(f["x_mm"] - t["centre_mm"][0], f["y_mm"] - t["centre_mm"][1]) for f in bases or []]
        if d and min(d) <= t["diameter_mm"] / 2:
            r["found"] += 1
            r["err"].append(min(d))
    return out


def _counts(b: dict[str, Any], decodable: dict[str, bool]) -> bool:
    return bool(b.get("visibility", 1.0) >= MARKER_VISIBLE and (b.get("marker_px") or 0.0) >= MARKER_MIN_PX
                and decodable.get(str(b["id"]), False))
