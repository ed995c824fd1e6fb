"""Every reason a marker is rejected, and every frame source that cannot be opened, is worded in
French and English: a code and a message id beside the English sentence (kept as it was)."""

from __future__ import annotations

import ast
from pathlib import Path

import numpy as np
import pytest

from calibration.setup import parse_setup
from tabletracker import i18n
from tracker.detections import Detections
from tracker.markers import REJECTION_CODES, Rejection, ScaledPlane, locate_models, square_corners_mm
from tracker.sources import SourceError, parse_source

SETUP = parse_setup({"table": {"width_mm": 600, "depth_mm": 600},
                     "markers": {"base_offset_mm": 5.0, "base_size_mm": 12.0, "corner_size_mm": 60.0,
                                 "per_marker": {"17": {}, "18": {}, "19": {}, "20": {}, "21": {}}}})
PX_PER_MM = 2.0


def _both(words: dict[str, object]) -> dict[str, str]:
    got = i18n.step_texts(words)
    assert got is not None and set(got) == {"fr", "en"} and all(got.values()), words
    assert got["fr"] != got["en"] and "{" not in got["fr"] + got["en"], got
    return got


def _rejections() -> tuple[Rejection, ...]:
    # (id, centre mm, side mm): 17 twice, 57 not in play, 19 too large, 20 off the table, 21 on a corner marker
    marks = [(17, (100.0, 200.0), 12.0), (17, (300.0, 200.0), 12.0), (57, (150.0, 400.0), 12.0),
             (19, (400.0, 400.0), 20.0), (20, (640.0, 300.0), 12.0), (21, (20.0, 25.0), 12.0)]
    corners = np.stack([square_corners_mm(c, side, facing_deg=0.0) for _, c, side in marks]) * PX_PER_MM
    det = Detections.from_corners(corners, np.array([i for i, _, _ in marks]))
    found = locate_models(det, ScaledPlane(px_per_mm=PX_PER_MM), SETUP)
    assert not found.models
    return found.rejected


def test_every_rejection_reason_has_a_code_and_both_texts() -> None:
    rejected = _rejections()
    assert sorted({r.code for r in rejected}) == sorted(REJECTION_CODES)
    for r in rejected:
        words = r.words()
        assert words["msg"] == f"track.rejected.{r.code}"
        _both(words)
        # the JSON form (the API, ``locate --json``) is what it was: the English reason, no message id
        assert set(r.to_dict()) == {"marker_id", "reason", "center_px"} and r.to_dict()["reason"] == r.reason


def test_the_markers_catalogue_has_every_rejection_in_both_languages() -> None:
    def ids(lang: str) -> set[str]:
        text = (i18n.LOCALE_DIR / f"{lang}.markers.po").read_text(encoding="utf-8")
        return {line.split('"')[1] for line in text.splitlines() if line.startswith('msgid "') and line != 'msgid ""'}

    assert ids("fr") == ids("en") == {f"track.rejected.{code}" for code in REJECTION_CODES}


def test_the_rejections_say_what_is_wrong_in_french() -> None:
    by_code = {r.code: _both(r.words()) for r in _rejections()}
    assert by_code["unknown_id"]["fr"].startswith("marqueur inconnu n° 57 : aucune figurine ne le porte")
    assert by_code["unknown_id"]["en"].startswith("unknown marker no. 57: no model carries it")
    assert "n° 17 vu 2 fois" in by_code["duplicate"]["fr"]
    assert "20 mm de côté au lieu de 12 mm" in by_code["wrong_size"]["fr"]
    assert "(640 ; 300) mm est hors de la table de 600 x 600 mm" in by_code["outside_table"]["fr"]
    assert "(20 ; 25) mm est sur un marqueur de coin" in by_code["on_corner"]["fr"]


def test_the_english_reasons_are_unchanged() -> None:
    reasons = {r.code: r.reason for r in _rejections()}
    assert reasons["unknown_id"].startswith("unknown marker: id 57 is not one of the setup's markers")
    assert reasons["duplicate"] == "id 17 seen 2 times in one frame; each model needs its own marker"
    assert reasons["wrong_size"].startswith("measures 20.0 mm across but the setup says 12 mm")
    assert reasons["outside_table"] == "centre at (640.0, 300.0) mm is outside the 600 x 600 mm table"
    assert reasons["on_corner"] == "centre at (20.0, 25.0) mm lies on a corner marker"


def _too_large_ids() -> list[str]:
    """The message ids of the image size refusals (``calibration.images.TooLarge``: text, id, parameters)."""
    tree = ast.parse(Path(__file__).resolve().parents[2].joinpath("calibration", "images.py").read_text())
    return [node.args[1].value for node in ast.walk(tree) if isinstance(node, ast.Call)
            and getattr(node.func, "id", None) == "TooLarge" and isinstance(node.args[1], ast.Constant)]


def _source_error_ids() -> list[str | None]:
    tree = ast.parse(Path(__file__).resolve().parents[2].joinpath("tracker", "sources.py").read_text())
    ids: list[str | None] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Raise) and isinstance(node.exc, ast.Call) and \
                getattr(node.exc.func, "id", None) == "SourceError":
            kw = {k.arg: k.value for k in node.exc.keywords}
            value = kw.get("msg_id")
            if isinstance(value, ast.Attribute) and value.attr == "msg_id":  # an image too large: its own ids
                ids.extend(_too_large_ids())
                continue
            ids.append(value.value if isinstance(value, ast.Constant) else None)
    return ids


def test_every_source_error_raised_has_a_message_id_in_both_catalogues() -> None:
    ids = _source_error_ids()
    assert len(ids) >= 10 and None not in ids, ids
    for lang in i18n.LANGS:
        assert set(ids) <= set(i18n.catalogue(lang)), lang  # type: ignore[arg-type]


@pytest.mark.parametrize(("text", "fr", "en"), [
    ("no/such/thing.mkv", "no/such/thing.mkv : fichier ou dossier introuvable",
     "no/such/thing.mkv: no such file or folder"),
    ("ftp://10.0.0.9/cam", "ftp://10.0.0.9/cam : type d'adresse inconnu",
     "ftp://10.0.0.9/cam: unknown kind of address"),
])
def test_a_source_name_refused_at_start_up_is_worded_in_both_languages(text: str, fr: str, en: str) -> None:
    with pytest.raises(SourceError) as got:
        parse_source(text)
    words = i18n.texts(got.value)
    assert words is not None and words["fr"].startswith(fr) and words["en"].startswith(en)
    assert words["en"] == str(got.value)  # the English words are the error's own sentence


def test_a_file_neither_image_nor_video_is_worded_in_both_languages(tmp_path: Path) -> None:
    notes = tmp_path / "notes.txt"
    notes.write_text("hello")
    with pytest.raises(SourceError) as got:
        parse_source(str(notes))
    words = i18n.texts(got.value)
    assert words is not None and words["en"] == str(got.value)
    assert words["fr"].startswith(f"{notes} : ni une image (.") and "ni une vidéo (." in words["fr"]


def _cli(args: list[str], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    from tabletracker.cli import main

    for name in ("LC_ALL", "LC_MESSAGES"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("LANG", "fr_FR.UTF-8")
    code = main(args)
    err = capsys.readouterr().err
    assert "Traceback" not in err
    return code, err


def test_track_and_serve_say_a_missing_video_in_french(monkeypatch: pytest.MonkeyPatch,
                                              capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    import json

    setup = tmp_path / "setup.json"
    setup.write_text(json.dumps({"table": {"width_mm": 600, "depth_mm": 600}}))
    missing = tmp_path / "partie.mkv"
    code, err = _cli(["track", str(missing), "--setup", str(setup)], monkeypatch, capsys)
    assert code == 2 and f"{missing} : fichier ou dossier introuvable ; donnez un numéro de caméra (0)" in err
    code, err = _cli(["track", "ftp://10.0.0.9/cam", "--setup", str(setup)], monkeypatch, capsys)
    assert code == 2 and "ftp://10.0.0.9/cam : type d'adresse inconnu" in err
    code, err = _cli(["serve", "--video", str(missing), "--db", str(tmp_path / "game.db")], monkeypatch, capsys)
    assert code == 2 and f"{missing} : fichier ou dossier introuvable" in err


def test_the_frame_loop_reports_each_kind_of_rejection_of_a_marker_once() -> None:
    # marker 20 first seen off the table, then on a corner marker: two kinds of reason that both begin "centre"
    from tracker.markers import MarkerFixes
    from tracker.pipeline import Tracker

    tracker = Tracker(SETUP, ScaledPlane(px_per_mm=PX_PER_MM), find_bare_bases=False)
    by_code = {r.code: r for r in _rejections()}
    off, corner = by_code["outside_table"], by_code["on_corner"]
    assert off.reason.split(" ")[0] == corner.reason.split(" ")[0]
    moved = Rejection(off.marker_id, corner.reason, corner.center_px, corner.code, corner.params)
    events = [tracker._rejections(MarkerFixes((), (r,)), {"frame": i}) for i, r in enumerate((off, off, moved))]
    assert [[e["msg"] for e in ev] for ev in events] == [["track.rejected.outside_table"], [],
                                                          ["track.rejected.on_corner"]]
