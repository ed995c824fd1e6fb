"""The live loop over the real tracker and frame sources, on a rendered sample image."""

from __future__ import annotations

import json
import math
import shutil
from pathlib import Path
from typing import Any

import pytest

from tests.server.conftest import ROOT, write_json

SAMPLE = ROOT / "sample_images" / "hf600_1080p_top"


@pytest.fixture
def image_folder(tmp_path: Path) -> tuple[Path, Path, dict[str, Any]]:
    truth = json.loads(SAMPLE.with_suffix(".json").read_text())
    folder = tmp_path / "frames"
    folder.mkdir()
    shutil.copy(SAMPLE.with_suffix(".jpg"), folder / "frame_0000.jpg")
    setup = write_json(tmp_path / "setup.json", truth["setup"])
    return folder, setup, truth


def test_a_frame_from_an_image_folder_reaches_the_page(make_app: Any, image_folder: Any) -> None:
    folder, setup, truth = image_folder
    app = make_app(GAME=None, SOURCE={"kind": "images", "value": str(folder)}, SETUP_PATH=str(setup))
    ov = app.extensions["tabletracker"]
    snap = ov.loop.step()
    assert snap is not None and snap.projector is not None
    client = app.test_client()
    live = client.get("/api/state").json["live"]
    found = {m["marker_id"]: m for m in live["models"]}
    truth_models = {m["marker_id"]: m for m in truth["models"]}
    assert len(found) >= 0.9 * len(truth_models)
    for marker_id, seen in found.items():
        t = truth_models[marker_id]
        assert math.dist((seen["x_mm"], seen["y_mm"]), (t["x_mm"], t["y_mm"])) < 2.0
        assert seen["base_mm"] == truth["setup"]["markers"]["per_marker"].get(str(marker_id), {}).get("base_mm")
    # the projection grid puts the table's corner markers where the image shows them
    grid = client.get("/api/projection").json
    assert grid["table_mm"] == [truth["setup"]["table"]["width_mm"], truth["setup"]["table"]["depth_mm"]]
    plan = client.get("/api/frame/plan.jpg")
    assert plan.status_code == 200 and plan.data[:2] == b"\xff\xd8"
    # an empty game on the setup's table, ready for assignment
    game = client.get("/api/state").json["game"]["game"]
    assert game["models"] == [] and game["table"]["width_mm"] == truth["setup"]["table"]["width_mm"]


def test_a_missing_source_fails_with_a_clear_message(make_app: Any, tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="no such file or folder"):
        make_app(SOURCE={"kind": "video", "value": str(tmp_path / "none.mp4")})


def test_a_video_file_is_played_through_the_tracker(make_app: Any, image_folder: Any, tmp_path: Path) -> None:
    import cv2

    from tabletracker.commands.serve import default_fps

    folder, setup, truth = image_folder
    image = cv2.imread(str(folder / "frame_0000.jpg"))
    video = tmp_path / "table.avi"
    writer = cv2.VideoWriter(str(video), cv2.VideoWriter_fourcc(*"MJPG"), 12.0, (image.shape[1], image.shape[0]))
    for _ in range(3):
        writer.write(image)
    writer.release()
    assert default_fps({"kind": "video", "value": str(video)}) == pytest.approx(12.0)
    app = make_app(GAME=None, SOURCE={"kind": "video", "value": str(video)}, SETUP_PATH=str(setup))
    ov = app.extensions["tabletracker"]
    for _ in range(3):
        assert ov.loop.step() is not None
    ended = ov.loop.step()  # the page says the video ended...
    assert ended is not None and ended.status == "source_ended" and "the video ended" in ended.message
    assert ov.loop.step() is None  # ...and it stops there (only the sample loops)
    live = app.test_client().get("/api/state").json["live"]
    assert live["seq"] == 4 and live["status"] == "source_ended"
    assert len(live["models"]) >= 0.9 * len(truth["models"])


def test_a_camera_that_cannot_be_opened_is_said_on_the_page_and_the_plan_is_served(make_app: Any) -> None:
    from tests.tracker.mjpeg_server import CameraServer

    with CameraServer() as cam:
        url = cam.url("/video")          # nobody listens there any more
    app = make_app(SOURCE={"kind": "camera", "value": url})   # does not raise: the plan is still served
    ov = app.extensions["tabletracker"]
    snap = ov.loop.step()
    assert snap is not None and snap.status == "source_failed" and "cannot connect" in snap.message
    client = app.test_client()
    state = client.get("/api/state").json
    assert state["live"]["status"] == "source_failed" and "cannot connect" in state["live"]["message"]
    assert state["game"]["game"]["models"]               # the game in progress is there
