"""Frame sources: kinds of source, undecodable frames, a camera that disconnects and comes back."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from calibration.setup import parse_setup
from tracker.markers import ScaledPlane
from tracker.pipeline import Tracker
from tracker.sources import (
    READS_BEFORE_LOST,
    REOPEN_FACTOR,
    REOPEN_FIRST_WAIT_S,
    REOPEN_MAX_WAIT_S,
    Frame,
    SourceError,
    frames_from_camera,
    open_frames,
    parse_source,
    read_image,
)


@pytest.mark.parametrize(
    ("text", "kind", "target"),
    [("0", "camera", 0), ("2", "camera", 2), ("/dev/video1", "camera", "/dev/video1")],
)
def test_camera_sources(text: str, kind: str, target: object) -> None:
    spec = parse_source(text)
    assert (spec.kind, spec.target) == (kind, target)


def test_file_sources(tmp_path: Path) -> None:
    (tmp_path / "a.jpg").write_bytes(b"x")
    (tmp_path / "game.mp4").write_bytes(b"x")
    (tmp_path / "notes.txt").write_text("x")
    assert parse_source(str(tmp_path)).kind == "folder"
    assert parse_source(str(tmp_path / "a.jpg")).kind == "image"
    assert parse_source(str(tmp_path / "game.mp4")).kind == "video"
    assert parse_source("sample").kind == "folder"
    with pytest.raises(SourceError, match="not an image"):
        parse_source(str(tmp_path / "notes.txt"))
    with pytest.raises(SourceError, match="no such file or folder"):
        parse_source(str(tmp_path / "missing.png"))


def test_folder_sorted_with_an_undecodable_frame(tmp_path: Path) -> None:
    img = np.full((20, 30, 3), 128, np.uint8)
    cv2.imwrite(str(tmp_path / "f002.png"), img)
    cv2.imwrite(str(tmp_path / "f000.png"), img)
    (tmp_path / "f001.png").write_bytes(b"\x89PNG broken")
    frames = list(open_frames(str(tmp_path)))
    assert [f.name for f in frames] == ["f000.png", "f001.png", "f002.png"]
    assert frames[1].image is None and "cannot decode" in (frames[1].error or "")
    assert frames[0].image is not None and frames[2].image is not None


def test_read_image_says_each_refusal_in_the_live_feeds_words_or_the_readers(tmp_path: Path,
                                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """The calibration's reader reads the picture; the live feed keeps its own words for a missing or undecodable
    one, and says a file it cannot read as the reader does, in both languages."""
    from tabletracker import i18n

    (tmp_path / "broken.png").write_bytes(b"\x89PNG broken")
    (tmp_path / "folder.png").mkdir()
    (tmp_path / "locked.png").write_bytes(b"x")
    cases = {"missing.png": "live.no_such_picture", "folder.png": "live.no_such_picture",
             "broken.png": "live.picture_undecodable", "locked.png": "image.unreadable"}
    original = np.fromfile

    def fromfile(path: object, *args: object, **kwargs: object) -> np.ndarray:
        if str(path).endswith("locked.png"):
            raise PermissionError(13, "Permission denied")
        return original(path, *args, **kwargs)

    monkeypatch.setattr(np, "fromfile", fromfile)
    for name, msg_id in cases.items():
        with pytest.raises(SourceError) as caught:
            read_image(tmp_path / name)
        err = caught.value
        assert err.msg_id == msg_id and err.params["path"] == str(tmp_path / name), name
        assert str(err) == i18n.render(msg_id, err.params, "en"), name
        assert (i18n.render(msg_id, err.params, "fr") or "").startswith(f"{tmp_path / name} : "), name
    assert read_image(Path(__file__).parents[2] / "sample_images" / "hf600_1080p_tilt20_webcam.jpg").shape[2] == 3


def test_empty_folder(tmp_path: Path) -> None:
    with pytest.raises(SourceError, match="no images"):
        list(open_frames(str(tmp_path)))


def test_video_file(tmp_path: Path) -> None:
    path = tmp_path / "clip.avi"
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), 10.0, (64, 48))
    if not writer.isOpened():
        pytest.fail("OpenCV cannot write an MJPG AVI here")
    for k in range(5):
        writer.write(np.full((48, 64, 3), 40 * k, np.uint8))
    writer.release()
    frames = list(open_frames(str(path)))
    assert frames[-1].event == "source_ended" and "the video ended" in (frames[-1].error or "")
    frames = frames[:-1]
    assert len(frames) == 5 and all(f.image is not None for f in frames)
    assert frames[1].timestamp_s == pytest.approx(0.1)


class FakeCamera:
    """A camera that gives ``frames`` images, then nothing until reopened after ``fail_opens`` tries."""

    def __init__(self, log: list[str], plan: dict) -> None:
        self.log, self.plan = log, plan
        self.opened = plan["opens"] > plan["fail_opens_at"].get(plan["opens"], -1)

    def isOpened(self) -> bool:
        return self.opened

    def read(self) -> tuple[bool, np.ndarray | None]:
        if self.plan["frames"] > 0:
            self.plan["frames"] -= 1
            return True, np.full((24, 32, 3), 100, np.uint8)
        self.log.append("read failed")
        return False, None

    def release(self) -> None:
        self.log.append("release")


def test_camera_reopened_with_back_off() -> None:
    log: list[str] = []
    sleeps: list[float] = []
    plan = {"frames": 3, "opens": 0, "fail_opens_at": {}}
    failing = {2, 3, 4}                       # the 2nd to 4th opens fail: unplugged for a while

    def opener(target: int | str) -> FakeCamera:
        plan["opens"] += 1
        cam = FakeCamera(log, plan)
        cam.opened = plan["opens"] not in failing
        if cam.opened and plan["opens"] > 1:
            plan["frames"] = 2                # back: two more frames
        return cam

    frames = frames_from_camera(0, opener=opener, sleep=sleeps.append, clock=lambda: 0.0)
    got = []
    for f in frames:
        got.append(f)
        if len(got) == 8:
            break
    kinds = [f.event or ("image" if f.image is not None else "error") for f in got]
    assert kinds == ["image", "image", "image", "camera_lost", "camera_back", "image", "image", "camera_lost"]
    assert sleeps[:4] == [REOPEN_FIRST_WAIT_S, REOPEN_FIRST_WAIT_S * REOPEN_FACTOR,
                          REOPEN_FIRST_WAIT_S * REOPEN_FACTOR ** 2, REOPEN_FIRST_WAIT_S * REOPEN_FACTOR ** 3]
    assert all(s <= REOPEN_MAX_WAIT_S for s in sleeps)
    assert log.count("read failed") >= READS_BEFORE_LOST


def test_camera_gives_up_after_max_attempts() -> None:
    opens = {"n": 0}

    def opener(target: int | str) -> FakeCamera:
        opens["n"] += 1
        cam = FakeCamera([], {"frames": 1 if opens["n"] == 1 else 0, "opens": 0, "fail_opens_at": {}})
        cam.opened = opens["n"] == 1
        return cam

    got = list(frames_from_camera("/dev/video9", opener=opener, sleep=lambda s: None, clock=lambda: 0.0,
                                  max_attempts=3))
    assert [f.event for f in got] == [None, "camera_lost", "camera_gave_up"]
    assert "gave up after 3" in (got[-1].error or "")


def test_camera_that_never_opens() -> None:
    def opener(target: int | str) -> FakeCamera:
        cam = FakeCamera([], {"frames": 0, "opens": 0, "fail_opens_at": {}})
        cam.opened = False
        return cam

    with pytest.raises(SourceError, match="cannot open it"):
        next(frames_from_camera(0, opener=opener))


def _table_image(marker_id: int, x_mm: float, y_mm: float, px_per_mm: float = 2.0) -> np.ndarray:
    """A 300 x 300 mm table seen straight down, one 12 mm marker on a 2 mm white margin."""
    img = np.full((int(300 * px_per_mm), int(300 * px_per_mm), 3), (90, 110, 80), np.uint8)
    d = cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_250)
    side = int(12 * px_per_mm)
    x0, y0 = int(round((x_mm - 6) * px_per_mm)), int(round((y_mm - 6) * px_per_mm))
    m = int(2 * px_per_mm)
    img[y0 - m:y0 + side + m, x0 - m:x0 + side + m] = 235
    img[y0:y0 + side, x0:x0 + side] = cv2.aruco.generateImageMarker(d, marker_id, side)[:, :, None]
    return img


def test_tracker_keeps_state_through_lost_camera_and_bad_frames() -> None:
    setup = parse_setup({"table": {"width_mm": 300, "depth_mm": 300}, "markers": {"base_height_mm": 0.0}})
    tracker = Tracker(setup, ScaledPlane(2.0), find_bare_bases=False)
    events = tracker.process(Frame(0, 0.0, _table_image(17, 100.0, 120.0)))
    assert [e["type"] for e in events if e["type"] == "appeared"] == ["appeared"]
    assert any(e["type"] == "calibration_warning" for e in events)     # no corner markers in view
    seen = tracker.state.model(17)
    assert seen is not None and seen.seen
    assert (seen.x_mm, seen.y_mm) == pytest.approx((100.0, 120.0), abs=0.3)
    events = tracker.process(Frame(1, 0.1, None, event="camera_lost", error="camera 0 stopped delivering frames"))
    events += tracker.process(Frame(2, 0.2, None, error="frame 2 could not be decoded"))
    events += tracker.process(Frame(3, 0.3, None, event="camera_back"))
    assert [e["type"] for e in events] == ["camera_lost", "frame_error", "camera_back"]
    assert events[1]["message"] == "frame 2 could not be decoded"
    assert tracker.state.model(17) == seen          # the state is kept as it was
    events = tracker.process(Frame(4, 0.4, _table_image(17, 100.0, 120.0)))
    assert events == [] and tracker.state.model(17).seen
