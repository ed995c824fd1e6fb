"""The command line speaks the user's language (``LANG``): its usage errors and their hints, argparse's
own messages, and an image too large with the same figures in French and English (issue 9)."""

from __future__ import annotations

import ast
import re
import string
import struct
from pathlib import Path
from typing import Any

import pytest

from tabletracker import i18n
from tabletracker.cli import COMMANDS, Parser, main

ROOT = Path(__file__).resolve().parents[1]
SETUP = ROOT / "sample_images" / "sequence" / "setup.json"
# where the command line words what it says to its user: every error raised there carries a message id
CLI_FILES = sorted([*(ROOT / "tabletracker" / "commands").glob("*.py"), ROOT / "tabletracker" / "cli.py",
                    ROOT / "tabletracker" / "lengths.py", ROOT / "tabletracker" / "samples.py"])


SAME_WORDS = {"cli.options", "cli.kit.page", "cli.kit.pages"}  # "options", "page 4", "pages 2-3" in both


def _run(argv: list[str], capsys: Any, monkeypatch: pytest.MonkeyPatch, lang: str = "fr_FR.UTF-8") -> tuple[int, str]:
    monkeypatch.setenv("LANG", lang)
    monkeypatch.delenv("LC_ALL", raising=False)
    monkeypatch.delenv("LC_MESSAGES", raising=False)
    try:
        code = main(argv)
    except SystemExit as exc:  # argparse's own errors
        code = int(exc.code or 0)
    return code, capsys.readouterr().err


def test_track_without_a_setup_says_so_in_french_only(capsys: Any, monkeypatch: pytest.MonkeyPatch,
                                                       tmp_path: Path) -> None:
    code, err = _run(["track", str(tmp_path)], capsys, monkeypatch)
    assert code == 2
    assert err.strip() == ("tabletracker track : erreur : donnez --setup setup.json (la taille de la table et "
                           "les marqueurs), ou --calibration")
    code, err = _run(["track", str(tmp_path)], capsys, monkeypatch, lang="C.UTF-8")
    assert err.strip() == ("tabletracker track: error: pass --setup setup.json (the table size and markers), "
                           "or --calibration")


@pytest.mark.parametrize(("argv", "fr"), [
    (["track"], "tabletracker track : erreur : ces arguments sont obligatoires : source"),
    (["serve", "--fps", "vite"],
     "tabletracker serve : erreur : argument --fps : valeur invalide (float attendu) : 'vite'"),
    (["serve", "--lang", "de"], "tabletracker serve : erreur : argument --lang : choix invalide : 'de' "
                                "(choix possibles : 'fr', 'en')"),
    (["locate", "demo", "--bogus"], "tabletracker locate : erreur : arguments non reconnus : --bogus"),
    (["dance"], "tabletracker : erreur : commande inconnue 'dance' ; les commandes sont : serve, markers"),
    (["serve", "--port", "70000"], "tabletracker serve : erreur : --port doit aller de 1 à 65535, reçu : 70000"),
    (["resolve", "at-43", "shoot", "--dice", ""], "tabletracker resolve : erreur : --dice est vide"),
    (["ask", "firefight", "distance", "--option", "measure"],
     "tabletracker ask : erreur : --option doit être CLÉ=VALEUR (par exemple measure=centre), reçu : 'measure'"),
    (["ask", "nowhere-game", "distance"], "tabletracker ask : erreur : nowhere-game : impossible de lire le fichier "
                                          "de partie (fichier absent)"),
])
def test_usage_errors_and_argparses_own_are_said_in_french(argv: list[str], fr: str, capsys: Any,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    code, err = _run(argv, capsys, monkeypatch)
    assert code == 2
    said = [line for line in err.splitlines() if "erreur" in line]
    assert said and said[-1].startswith(fr), err
    assert "usage:" not in err and "error:" not in err and "\n  (" not in err, err  # no English left, none in brackets


def _huge_png(path: Path) -> Path:
    path.write_bytes(b"\x89PNG\r\n\x1a\n" + struct.pack(">I", 13) + b"IHDR" + struct.pack(">II", 20000, 12000)
                     + b"\x08\x02\x00\x00\x00")
    return path


@pytest.mark.parametrize("command", ["locate", "track"])
def test_an_image_too_large_gives_its_figures_in_both_languages(command: str, capsys: Any,
                                                                monkeypatch: pytest.MonkeyPatch,
                                                                tmp_path: Path) -> None:
    huge = _huge_png(tmp_path / "huge.png")
    code, fr = _run([command, str(huge), "--setup", str(SETUP)], capsys, monkeypatch)
    assert code == 2
    assert f"{huge} : l'image fait 20000 x 12000 pixels (240 mégapixels) ; la limite est de 50 mégapixels et " \
           "20000 pixels de côté" in fr, fr
    assert "(" + str(huge) + ": the image" not in fr  # the English sentence no longer follows
    code, en = _run([command, str(huge), "--setup", str(SETUP)], capsys, monkeypatch, lang="en_GB.UTF-8")
    assert f"{huge}: the image is 20000 x 12000 pixels (240 megapixels); the limit is 50 megapixels and " \
           "20000 pixels a side" in en, en


def _fields(text: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(text) if name}


def _worded_ids() -> dict[str, set[str]]:
    """The message ids the command line words its errors and lines with, and the parameters each call gives."""
    out: dict[str, set[str]] = {}
    for path in CLI_FILES:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Call):
                continue
            name = getattr(node.func, "id", getattr(node.func, "attr", ""))
            args = node.args[1:] if name == "worded" else node.args if name == "said" else []
            if args and isinstance(args[0], ast.Constant) and isinstance(args[0].value, str):
                out.setdefault(args[0].value, set()).update(k.arg for k in node.keywords if k.arg)
            elif args and isinstance(args[0], ast.JoinedStr):  # f"cli.serve.game_{how}": each id of that prefix
                prefix = "".join(v.value for v in args[0].values if isinstance(v, ast.Constant))
                for msg_id in i18n.catalogue("en"):
                    if msg_id.startswith(prefix):
                        out.setdefault(msg_id, set()).update(k.arg for k in node.keywords if k.arg)
    return out


def test_every_message_the_command_line_says_is_in_both_catalogues_with_its_parameters() -> None:
    used = _worded_ids()
    assert len(used) > 30, sorted(used)
    for msg_id, given in used.items():
        fr, en = i18n.catalogue("fr").get(msg_id), i18n.catalogue("en").get(msg_id)
        assert fr and en and (fr != en or msg_id in SAME_WORDS), msg_id
        assert _fields(fr) == _fields(en) == given, msg_id


def _english_only_raises() -> list[str]:
    """Errors the command line raises with a sentence of its own but no message id (so English only)."""
    out = []
    for path in CLI_FILES:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not (isinstance(node, ast.Call) and getattr(node.func, "id", "").endswith("Error") and node.args):
                continue
            if isinstance(node.args[0], (ast.Constant, ast.JoinedStr)) and \
                    not any(k.arg == "msg_id" for k in node.keywords):
                out.append(f"{path.relative_to(ROOT)}:{node.lineno} {node.func.id}(...)")  # type: ignore[attr-defined]
    return out


def test_no_error_of_the_command_line_is_english_only() -> None:
    assert _english_only_raises() == []


def test_argparses_headings_and_usage_line_are_in_french(capsys: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LANG", "fr_FR.UTF-8")
    with pytest.raises(SystemExit):
        main(["track", "--help"])
    out = capsys.readouterr().out
    assert out.startswith("utilisation : tabletracker track")
    assert re.search(r"^options:$", out, re.M) and "afficher cette aide et quitter" in out
    assert "show this help message" not in out and "usage:" not in out


def test_locate_says_a_rejected_marker_in_french(capsys: Any, monkeypatch: pytest.MonkeyPatch,
                                                 tmp_path: Path) -> None:
    import json

    truth = json.loads((ROOT / "sample_images" / "hf600_1080p_top.json").read_text())
    setup = truth["setup"]
    del setup["markers"]["per_marker"]["47"]  # marker 47 is on the table: an unknown marker
    (tmp_path / "setup.json").write_text(json.dumps(setup))
    monkeypatch.setenv("LANG", "fr_FR.UTF-8")
    assert main(["locate", str(ROOT / "sample_images" / "hf600_1080p_top.jpg"), "--setup",
                 str(tmp_path / "setup.json")]) == 0
    out = capsys.readouterr().out
    assert "figurine(s) par marqueur" in out and "(calibration : marqueurs de coin de l'image)" in out, out
    assert "  marqueur 47 refusé : marqueur inconnu n° 47 : aucune figurine ne le porte" in out, out
    assert "rejected" not in out and "model(s)" not in out


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_every_argument_of_every_command_has_its_french_help(command: str, monkeypatch: pytest.MonkeyPatch) -> None:
    import importlib

    monkeypatch.setenv("LANG", "fr_FR.UTF-8")
    parser = Parser(prog=f"tabletracker {command}")
    importlib.import_module(COMMANDS[command]).add_arguments(parser)
    missing = [a.dest for a in parser._actions
               if a.help and a.dest != "help" and f"cli.arg.{command}.{a.dest}" not in i18n.catalogue("fr")]
    assert missing == []
    parser.format_help()  # every %(default)s of the French helps is one argparse fills in


def test_the_command_lines_messages_all_live_in_its_own_catalogue() -> None:
    # i18n.render looks a cli.* id up in the command line's file only (reading every file at each start cost
    # a tenth of a second): one put in another file would never be said
    for lang in i18n.LANGS:
        elsewhere = [k for k in i18n.catalogue(lang) if k.startswith("cli.") and k not in i18n._command_line(lang)]
        assert elsewhere == [], lang


def test_starting_a_command_reads_only_the_command_lines_catalogue(monkeypatch: pytest.MonkeyPatch) -> None:
    import importlib

    from tabletracker.cli import build_parser

    monkeypatch.setenv("LANG", "fr_FR.UTF-8")
    i18n.catalogue.cache_clear()
    build_parser()
    parser = Parser(prog="tabletracker locate")
    importlib.import_module(COMMANDS["locate"]).add_arguments(parser)
    assert i18n.catalogue.cache_info().currsize == 0
    assert i18n.render("cli.no.such.id", {}, "fr") is None and i18n.catalogue.cache_info().currsize == 0


def test_the_catalogues_read_as_babel_reads_them(tmp_path: Path) -> None:
    from babel.messages.pofile import read_po

    files = sorted(i18n.LOCALE_DIR.glob("*.po"))
    assert len(files) > 10
    for path in files:
        with open(path, "rb") as f:
            theirs = {str(m.id): str(m.string) for m in read_po(f) if m.id and m.string}
        assert i18n._read(path) == theirs, path.name
    odd = tmp_path / "odd.po"      # continued strings, escapes, an obsolete entry, an untranslated one
    odd.write_text('# c\nmsgid ""\nmsgstr "H: 1\\n"\n\n#, fuzzy\nmsgid "a.b"\nmsgstr ""\n"x \\"y\\"\\t"\n"\\\\z\\n"\n\n'
                   'msgid "c"\nmsgstr ""\n\n#~ msgid "d"\n#~ msgstr "e"\n', encoding="utf-8")
    with open(odd, "rb") as f:
        theirs = {str(m.id): str(m.string) for m in read_po(f) if m.id and m.string}
    assert i18n._read(odd) == theirs == {"a.b": 'x "y"\t\\z\n'}
    (tmp_path / "ctxt.po").write_text('msgctxt "k"\nmsgid "a"\nmsgstr "b"\n', encoding="utf-8")
    with pytest.raises(ValueError, match="ctxt.po:1"):
        i18n._read(tmp_path / "ctxt.po")
