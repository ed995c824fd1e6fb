"""The live feed's status line in French and English: every status the page can be sent has its words.

The frame loop's and the camera source's events reach the page as a status (``server.tracking``)
with its detail worded from the catalogues (``texts``: ``fr`` and ``en``), the tracker's own
message id and parameters first (hidden corners, a frame of another size, a calibration refused),
else the status's generic words.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Iterator

import cv2
import numpy as np
import pytest

from calibration.setup import parse_setup
from server.tracking import STATES, STATUS_EVENTS, Status, TrackerStep, event_status
from tabletracker.i18n import LOCALE_DIR
from tests.server.conftest import ROOT
from tracker.pipeline import Tracker
from tracker.sources import Frame, open_frames_waiting

SAMPLE = ROOT / "sample_images" / "hf600_1080p_top"
TRUTH = json.loads(SAMPLE.with_suffix(".json").read_text())


def _ids(lang: str) -> set[str]:
    text = (LOCALE_DIR / f"{lang}.live.po").read_text(encoding="utf-8")
    return {line.split('"')[1] for line in text.splitlines() if line.startswith('msgid "') and line != 'msgid ""'}


def _both(status: Status) -> dict[str, str]:
    words = status.texts()
    assert set(words) == {"fr", "en"} and all(words.values()), status
    assert words["fr"] != words["en"], status
    assert "{" not in words["fr"] + words["en"], words  # every parameter given
    return words


def test_the_live_catalogue_has_every_message_in_both_languages() -> None:
    assert _ids("fr") == _ids("en")
    kinds = {*STATUS_EVENTS, *STATES}
    assert {f"live.{kind}" for kind in kinds} <= _ids("en")


@pytest.mark.parametrize("kind", [*STATUS_EVENTS, *STATES])
def test_every_status_reaching_the_page_is_worded_in_french_and_english(kind: str) -> None:
    status = event_status({"type": kind, "message": "the English detail"})
    assert status.msg == f"live.{kind}"
    _both(status)


def _sample() -> np.ndarray:
    image = cv2.imread(str(SAMPLE.with_suffix(".jpg")))
    assert image is not None
    return image


def _hide_corner(image: np.ndarray, corner_id: int) -> np.ndarray:
    out = image.copy()
    px = np.array(TRUTH["corners"][corner_id]["corners_px"])
    (x0, y0), (x1, y1) = px.min(axis=0).astype(int) - 10, px.max(axis=0).astype(int) + 10
    out[y0:y1, x0:x1] = 128
    return out


class Fake:
    """A capture giving ``reads`` (an image each; a failed read after them), opened or not."""

    def __init__(self, reads: list[Any], opened: bool = True) -> None:
        self.reads, self.opened = reads, opened

    def isOpened(self) -> bool:
        return self.opened

    def read(self) -> tuple[bool, Any]:
        image = self.reads.pop(0) if self.reads else None
        return image is not None, image

    def release(self) -> None:
        pass

    def get(self, prop: int) -> float:
        return 10.0


def _step(frames: Iterator[Frame]) -> TrackerStep:
    setup = parse_setup(TRUTH["setup"])
    return TrackerStep(frames, Tracker(setup), (600.0, 600.0))


def test_the_frame_loop_says_hidden_corners_and_a_frame_of_another_size_in_both_languages(
        monkeypatch: pytest.MonkeyPatch) -> None:
    import tracker.pipeline

    for name in ("CORNER_CHECK_EVERY", "HIDDEN_CORNER_CHECK_EVERY"):  # the corners checked on every frame
        monkeypatch.setattr(tracker.pipeline, name, 1)
    image = _sample()
    frames = [Frame(0, 0.0, image), Frame(1, 0.1, _hide_corner(image, 0)), Frame(2, 0.2, _hide_corner(image, 0)),
              Frame(3, 0.3, image), Frame(4, 0.4, image[:400, :500]), Frame(5, 0.5, image[:400, :500])]
    step = _step(iter(frames))
    snaps = [step.step() for _ in frames]
    assert all(s is not None for s in snaps)
    statuses = [s.status for s in snaps if s is not None]
    assert statuses == ["calibrated", "corners_hidden", "corners_hidden", "ok", "frame_error", "frame_error"]
    hidden = snaps[1]
    assert hidden is not None
    assert hidden.texts["fr"] == "marqueur(s) de coin 0 caché(s) : le dernier bon étalonnage est gardé."
    assert hidden.texts["en"] == "corner marker(s) 0 hidden: keeping the last good calibration"
    assert snaps[2] is not None and snaps[2].texts == hidden.texts  # said as long as the corner stays hidden
    assert snaps[3] is not None and snaps[3].texts == {}
    other = snaps[4]
    assert other is not None and "image de 500 x 400 px" in other.texts["fr"]
    assert "1 920 x 1 080 px" in other.texts["fr"].replace("\u202f", " ").replace("\xa0", " ")
    assert other.texts["en"].startswith("frame of 500 x 400 px, but the table was calibrated on 1,920 x 1,080 px")
    # the frames after it are skipped too: the status stays (the tracker says it once)
    assert snaps[5] is not None and snaps[5].texts == other.texts


def test_a_table_that_cannot_be_calibrated_says_why_in_both_languages() -> None:
    blank = np.full((480, 640, 3), 128, np.uint8)
    step = _step(iter([Frame(i, i / 10, blank) for i in range(3)]))
    first, second = step.step(), step.step()
    assert first is not None and first.status == "calibration_failed"
    assert first.texts["fr"].startswith("l'image : 0 des 4 marqueurs de coin trouvés (aucun marqueur ArUco vu)")
    assert first.texts["en"].startswith("the image: found 0 of the 4 corner markers")
    # the next frames: not calibrated yet, for the same reason
    assert second is not None and second.status == "not_calibrated" and second.texts == first.texts


def test_the_camera_source_says_its_troubles_in_both_languages() -> None:
    frames = open_frames_waiting("0", opener=lambda target: Fake([], opened=False), sleep=lambda s: None)
    step = _step(frames)
    snap = step.step()
    assert snap is not None and snap.status == "source_failed"
    assert snap.texts["fr"].startswith("impossible d'ouvrir la caméra 0 (est-elle branchée")
    assert snap.texts["en"].startswith("camera 0 cannot be opened")
    # a camera lost mid-game, and given up: its number in both languages
    lost = _step(iter([Frame(0, 0.0, None, event="camera_lost", error="camera 2 stopped delivering frames",
                             msg="live.camera_stopped", params={"camera": "2"}),
                       Frame(0, 5.0, None, event="camera_gave_up", error="camera 2: gave up after 8 reopen attempts",
                             msg="live.camera_abandoned", params={"camera": "2", "attempts": 8})]))
    first, second = lost.step(), lost.step()
    assert first is not None and first.texts["fr"] == "la caméra 2 n'envoie plus d'images : reconnexion en cours."
    assert second is not None and second.texts["fr"] == "caméra 2 : pas de réponse après 8 tentatives, abandon."
    assert second.texts["en"] == "camera 2: no answer after 8 attempts, given up"


def test_the_page_is_sent_the_status_in_both_languages(make_app: Any, tmp_path: Path) -> None:
    folder = tmp_path / "frames"
    folder.mkdir()
    image = _sample()
    cv2.imwrite(str(folder / "frame_0000.jpg"), image)
    cv2.imwrite(str(folder / "frame_0001.jpg"), image[:600, :800])
    (tmp_path / "setup.json").write_text(json.dumps(TRUTH["setup"]))
    app = make_app(GAME=None, SOURCE={"kind": "images", "value": str(folder)}, SETUP_PATH=str(tmp_path / "setup.json"))
    loop = app.extensions["tabletracker"].loop
    loop.step()
    loop.step()
    live = app.test_client().get("/api/state").json["live"]
    assert live["status"] == "frame_error"
    assert live["texts"]["fr"].startswith("image de 800 x 600 px, mais la table a été étalonnée sur des images de 1")
    assert live["texts"]["en"].startswith("frame of 800 x 600 px, but the table was calibrated on 1,920 x 1,080 px")
    loop.step()  # the folder has ended: said in both languages
    live = app.test_client().get("/api/state").json["live"]
    assert live["status"] == "source_ended" and set(live["texts"]) == {"fr", "en"}


def test_every_event_of_the_frame_sources_is_worded_in_both_languages(tmp_path: Path) -> None:
    import re

    from tracker.sources import frames_from_camera, frames_from_folder, frames_from_video

    image = np.zeros((8, 8, 3), np.uint8)
    (tmp_path / "frame_0000.png").write_bytes(b"not a picture")
    captures = iter([Fake([image]), Fake([], opened=False), Fake([], opened=False)])
    frames = [*frames_from_folder(tmp_path),
              *frames_from_video(tmp_path / "v.mp4", opener=lambda target: Fake([image, np.zeros((0, 0, 3))])),
              *frames_from_camera(3, opener=lambda target: next(captures), sleep=lambda s: None, max_attempts=2)]
    said = [f for f in frames if f.image is None]
    assert [f.event for f in said] == [None, None, "source_ended", "camera_lost", "camera_gave_up"]
    words = [_both(event_status({"type": f.event or "frame_error", **f.words()})) for f in said]
    assert [w["fr"] for w in words] == [
        "frame_0000.png : image illisible : ignorée.",
        f"{tmp_path / 'v.mp4'} : l'image 1 n'a pas pu être lue : ignorée.",
        f"{tmp_path / 'v.mp4'} : la vidéo est terminée.", "la caméra 3 n'envoie plus d'images : reconnexion en cours.",
        "caméra 3 : pas de réponse après 2 tentatives, abandon."]
    # and every message id the sources name is in both catalogues
    named = set(re.findall(r'msg(?:_id)?="(live\.\w+)"', (ROOT / "tracker" / "sources.py").read_text()))
    assert len(named) >= 9 and named <= _ids("fr") and named <= _ids("en")
