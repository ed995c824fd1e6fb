"""Network cameras: an MJPEG server on 127.0.0.1 that starts, stalls, resumes, sends garbage,
answers with a web page, changes its picture size, and is down when the program starts."""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest

from calibration.setup import parse_setup
from tests.tracker.mjpeg_server import CameraServer
from tracker.sources import Frame, SourceError, frames_from_url, open_frames, open_frames_waiting, parse_source

#: Short, so a stall is seen quickly, but longer than a loaded 2-core machine keeps a 50 fps stream waiting.
STALL_S = 1.0


def fast_sleep(seconds: float) -> None:
    time.sleep(min(seconds, 0.05))


def take(frames: Iterator[Frame], n: int, *, until: str | None = None, limit: int = 400) -> list[Frame]:
    """The next ``n`` frames, or up to the first with event ``until``."""
    got: list[Frame] = []
    for frame in frames:
        got.append(frame)
        if (until is not None and frame.event == until) or (until is None and len(got) == n) or len(got) >= limit:
            break
    return got


@pytest.fixture
def camera() -> Iterator[CameraServer]:
    with CameraServer() as cam:
        yield cam


@pytest.mark.parametrize("text", ["http://192.168.1.20:8080/video", "https://cam.local/mjpeg",
                                  "rtsp://10.0.0.5:554/stream1", "RTSPS://cam/live"])
def test_addresses_are_url_sources(text: str) -> None:
    spec = parse_source(text)
    assert (spec.kind, spec.target) == ("url", text)


def test_unknown_address_kind_is_refused() -> None:
    with pytest.raises(SourceError, match="unknown kind of address"):
        parse_source("ftp://camera/video")


def test_stream_frames_arrive_with_their_time_of_arrival(camera: CameraServer) -> None:
    frames = open_frames(camera.url("/video"))
    try:
        got = take(frames, 5)
    finally:
        frames.close()  # type: ignore[attr-defined]
    assert all(f.image is not None and f.image.shape == (48, 64, 3) for f in got)
    assert all(f.received_wall_s is not None and abs(f.received_wall_s - time.time()) < 5 for f in got)
    assert [f.index for f in got] == [0, 1, 2, 3, 4]


def test_stream_without_content_length(camera: CameraServer) -> None:
    camera.with_length = False
    frames = frames_from_url(camera.url("/video"))
    try:
        got = take(frames, 4)
    finally:
        frames.close()  # type: ignore[attr-defined]
    assert all(f.image is not None and f.image.shape == (48, 64, 3) for f in got)


def test_a_stall_is_a_lost_camera_then_it_comes_back(camera: CameraServer) -> None:
    frames = frames_from_url(camera.url("/video"), stall_s=STALL_S, sleep=fast_sleep)
    try:
        assert all(f.image is not None for f in take(frames, 3))
        camera.mode = "stall"
        lost = take(frames, 0, until="camera_lost")
        assert lost[-1].event == "camera_lost" and "stalled" in (lost[-1].error or "")
        camera.mode = "ok"
        back = take(frames, 0, until="camera_back")
        assert back[-1].event == "camera_back"
        again = take(frames, 3)
        assert all(f.image is not None for f in again)
    finally:
        frames.close()  # type: ignore[attr-defined]


def test_a_camera_switched_off_is_reconnected_with_back_off(camera: CameraServer) -> None:
    frames = frames_from_url(camera.url("/video"), stall_s=STALL_S, sleep=fast_sleep)
    try:
        take(frames, 2)
        camera.mode = "down"
        lost = take(frames, 0, until="camera_lost")
        assert lost[-1].event == "camera_lost"
        time.sleep(0.2)
        camera.mode = "ok"
        assert take(frames, 0, until="camera_back")[-1].event == "camera_back"
        assert take(frames, 1)[0].image is not None
    finally:
        frames.close()  # type: ignore[attr-defined]


def test_garbage_instead_of_a_jpeg_is_an_error_frame_and_the_stream_goes_on(camera: CameraServer) -> None:
    frames = frames_from_url(camera.url("/video"))
    try:
        take(frames, 2)
        camera.mode = "garbage"
        got = take(frames, 30)
    finally:
        frames.close()  # type: ignore[attr-defined]
    bad = [f for f in got if f.image is None]
    assert bad and all("not a JPEG" in (f.error or "") for f in bad)
    assert got[-1].image is not None


def test_a_web_page_instead_of_a_stream_is_one_clear_error(camera: CameraServer) -> None:
    with pytest.raises(SourceError, match="answers with a web page, not a camera stream.*/video"):
        open_frames(camera.url("/page"))


def test_a_change_of_picture_size_is_reported(camera: CameraServer) -> None:
    frames = frames_from_url(camera.url("/video"))
    try:
        take(frames, 2)
        camera.size = (80, 60)
        got = take(frames, 0, until="resolution_changed")
        assert "64x48 to 80x60" in (got[-1].error or "")
        nxt = take(frames, 1)[0]
        assert nxt.image is not None and nxt.image.shape == (60, 80, 3)
    finally:
        frames.close()  # type: ignore[attr-defined]


def test_snapshot_address_is_polled(camera: CameraServer) -> None:
    frames = frames_from_url(camera.url("/shot.jpg"))
    try:
        got = take(frames, 3)
    finally:
        frames.close()  # type: ignore[attr-defined]
    assert all(f.image is not None for f in got)


def test_nobody_listening_is_a_clear_error() -> None:
    with CameraServer() as cam:
        url = cam.url("/video")
    with pytest.raises(SourceError, match="cannot connect.*camera app is running"):
        open_frames(url)


def test_a_camera_down_at_start_is_waited_for(camera: CameraServer) -> None:
    camera.mode = "down"
    frames = open_frames_waiting(camera.url("/video"), sleep=fast_sleep)
    try:
        first = next(frames)
        assert first.event == "source_failed" and "HTTP 503" in (first.error or "")
        camera.mode = "ok"
        back = take(frames, 0, until="camera_back")
        assert back[-1].event == "camera_back"
        assert take(frames, 1)[0].image is not None
    finally:
        frames.close()  # type: ignore[attr-defined]


def test_a_video_that_cannot_be_opened_is_one_failure_frame(tmp_path: object) -> None:
    from pathlib import Path

    bad = Path(str(tmp_path)) / "broken.mp4"
    bad.write_bytes(b"not a video")
    got = list(open_frames_waiting(str(bad)))
    assert [f.event for f in got] == ["source_failed"] and "cannot open the video" in (got[0].error or "")


def test_the_page_says_when_the_camera_cannot_be_opened_and_the_server_keeps_going() -> None:
    from server.tracking import make_tracker_step

    with CameraServer() as cam:
        url = cam.url("/video")
    setup = parse_setup({"table": {"width_mm": 600, "depth_mm": 600}})
    step = make_tracker_step({"kind": "camera", "value": url}, setup)()   # does not raise
    try:
        snap = step.step()
        assert snap is not None and snap.status == "source_failed" and "cannot connect" in snap.message
    finally:
        step.close()


def test_page_latency_counts_from_the_frame_s_arrival(camera: CameraServer) -> None:
    from server.tracking import make_tracker_step

    setup = parse_setup({"table": {"width_mm": 600, "depth_mm": 600}})
    step = make_tracker_step({"kind": "camera", "value": camera.url("/video")}, setup)()
    try:
        snap = step.step()
        assert snap is not None and snap.image is not None
        assert snap.captured_s <= snap.processed_s and snap.processed_s - snap.captured_s < 5.0
    finally:
        step.close()


def test_an_rtsp_address_that_cannot_be_opened_is_one_clear_error() -> None:
    class Closed:
        def isOpened(self) -> bool:
            return False

        def read(self) -> tuple[bool, None]:
            return False, None

        def release(self) -> None:
            pass

    with pytest.raises(SourceError, match="rtsp://10.0.0.9/live: cannot open the stream; check the address"):
        next(frames_from_url("rtsp://10.0.0.9/live", opener=lambda target: Closed()))
