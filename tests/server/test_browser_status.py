"""The status pill tells the truth: live, paused, source ended, disconnected (never a latency then)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.server.browser import chromium
from tests.server.conftest import ROOT
from tests.server.serving import Served

pytestmark = pytest.mark.browser


def _serve(frames: Path, setup: dict, tmp_path: Path, fps: float = 2.0) -> Served:
    """Serve the image folder ``frames`` at ``fps`` frames a second, on ``setup``'s table with an empty game."""
    (tmp_path / "setup.json").write_text(json.dumps(setup))
    (tmp_path / "game.json").write_text(json.dumps({"ruleset": "firefight", "table": setup["table"],
                                                    "units": [], "models": []}))
    return Served(["--images", str(frames), "--fps", str(fps), "--setup", str(tmp_path / "setup.json"),
                   "--game", str(tmp_path / "game.json"), "--db", str(tmp_path / "g.db")])


def test_the_pill_says_live_paused_ended_and_disconnected(tmp_path: Path) -> None:
    truth = json.loads((ROOT / "sample_images" / "hf600_1080p_top.json").read_text())
    frames = tmp_path / "frames"
    frames.mkdir()
    for i in range(3):  # a short video of the same table: it plays once, then ends
        (frames / f"frame_{i:04d}.jpg").write_bytes((ROOT / "sample_images" / "hf600_1080p_top.jpg").read_bytes())
    served = _serve(frames, truth["setup"], tmp_path)
    try:
        with chromium() as browser:
            page = browser.new_page()
            errors: list[str] = []
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.goto(served.url)
            page.wait_for_function("() => window.TT.live && window.TT.live.seq >= 1", timeout=30_000)
            run = page.evaluate("() => window.TT.live.run")
            assert run
            # the source ends after its three frames: said so, without a latency
            page.wait_for_function("() => document.querySelector('#status').dataset.status === 'source_ended'", timeout=30_000)
            assert page.inner_text("#status") == "source terminée"
            # the page holds the last frame under this run's name
            assert f"run={run}&seq=" in (page.get_attribute("#camera-svg image", "href") or "")
            # frames stop coming while the source runs (a stalled camera): paused
            page.evaluate("() => { window.TT.live = { ...window.TT.live, status: 'ok' }; window.TT.lastLiveAt = Date.now() - 10000; }")
            page.wait_for_function("() => document.querySelector('#status').dataset.status === 'paused'",
                                   timeout=30_000)
            assert "ms" not in page.inner_text("#status")
            served.kill()
            page.wait_for_function("() => document.querySelector('#status').dataset.status === 'offline'", timeout=30_000)
            assert page.inner_text("#status") == "déconnecté"
            assert errors == []
            page.close()
    finally:
        served.kill()


def test_a_casualtys_marker_still_on_the_table_is_known_as_removed(tmp_path: Path) -> None:
    truth = json.loads((ROOT / "sample_images" / "hf600_1080p_top.json").read_text())
    sample = json.loads((ROOT / "sample_images" / "sequence" / "game.json").read_text())
    frames = tmp_path / "frames"
    frames.mkdir()
    (frames / "frame_0000.jpg").write_bytes((ROOT / "sample_images" / "hf600_1080p_top.jpg").read_bytes())
    (tmp_path / "setup.json").write_text(json.dumps(truth["setup"]))
    red = [m for m in truth["models"] if m["side"] == "red"][:2]
    blue = [m for m in truth["models"] if m["side"] == "blue"][:2]
    models = [{"id": f"{side}-{m['marker_id']}", "unit": side, "marker_id": m["marker_id"], "x_mm": m["x_mm"],
               "y_mm": m["y_mm"], "base_mm": m["base_mm"], "profile": "Sniper" if side == "red" else "Cultist",
               "weapons": ["sniper rifle"] if side == "red" else []}
              for side, ms in (("red", red), ("blue", blue)) for m in ms]
    game = {"ruleset": "firefight", "table": truth["setup"]["table"], "profiles": sample["profiles"],
            "weapons": sample["weapons"], "units": [{"id": "red", "side": "A", "name": "Snipers"},
                                                    {"id": "blue", "side": "B", "name": "Cultists"}],
            "models": models}
    (tmp_path / "game.json").write_text(json.dumps(game))
    with Served(["--images", str(frames), "--setup", str(tmp_path / "setup.json"), "--game",
                 str(tmp_path / "game.json"), "--db", str(tmp_path / "g.db")]) as served, chromium() as browser:
        page = browser.new_page()
        page.goto(served.url)
        page.wait_for_function("() => window.TT.live && window.TT.live.models.length > 5", timeout=30_000)
        body = {"action": "shoot", "request": {"firing": "red", "target": "blue"}}
        for dice in ([6, 6, 1, 1], [6, 6, 1, 1, 1], [6, 6, 1, 1, 1, 1]):
            status, res = served.post("api/resolve/apply", {**body, "dice": dice})
            if status == 200:
                break
        assert status == 200, res
        removed = res["event"]["payload"]["changes"]["removed"]
        assert removed
        page.wait_for_function(f"() => window.TT.game.removed.length === {len(removed)}")
        page.wait_for_selector("#plan-svg .removed-marker")
        assert page.locator("#plan-svg .removed-marker").count() == len(removed)
        labels = page.locator("#plan-svg text.model-label").all_text_contents()
        assert not any(f"#{r['marker_id']}" == x for r in removed for x in labels)  # not an unknown marker
        page.click("[data-tab=setup]")
        detected = page.inner_text("#su-detected")
        assert all(f"#{r['marker_id']} : {r['name']}, retirée" in detected for r in removed), detected
        page.close()


def test_the_status_line_says_a_frame_of_another_size_in_the_pages_language(tmp_path: Path) -> None:
    import cv2

    truth = json.loads((ROOT / "sample_images" / "hf600_1080p_top.json").read_text())
    image = cv2.imread(str(ROOT / "sample_images" / "hf600_1080p_top.jpg"))
    frames = tmp_path / "frames"
    frames.mkdir()
    cv2.imwrite(str(frames / "frame_0000.jpg"), image)
    for i in range(1, 25):  # then a camera giving smaller frames (fewer than make it calibrate again)
        cv2.imwrite(str(frames / f"frame_{i:04d}.jpg"), image[:600, :800])
    # the smaller frames are read for as long as this test looks at the page (the source then ends and the
    # status with it): the browser is up before the source starts, and one frame a second leaves 24 s
    with chromium() as browser:
        served = _serve(frames, truth["setup"], tmp_path, fps=1.0)
        try:
            page = browser.new_page(viewport={"width": 390, "height": 844})  # a phone
            errors: list[str] = []
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.goto(served.url)
            page.wait_for_function("() => document.querySelector('#status').dataset.status === 'frame_error'",
                                   timeout=30_000)
            assert page.inner_text("#status") == "image ignorée"  # unreadable, or of another size
            detail = page.inner_text("#status-detail")
            assert detail.startswith("image de 800 x 600 px, mais la table a été étalonnée sur des images de 1"), detail
            assert "image ignorée, les dernières positions sont gardées." in detail
            assert page.is_visible("#status-detail")  # on a phone too
            page.click("#lang-en")
            assert page.inner_text("#status-detail").startswith(
                "frame of 800 x 600 px, but the table was calibrated on 1,920 x 1,080 px frames")
            page.click("#lang-fr")
            assert page.inner_text("#status-detail").startswith("image de 800 x 600 px")
            assert errors == []
            page.close()
        finally:
            served.kill()
