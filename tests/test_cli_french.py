"""Every word the command line shows comes in the user's language (``LANG``): the main paths of each
command run in French and in English, and no line of the one is in the other's catalogue wording only.

The sweep compares the output with the catalogues' fixed words (a message's text between its
``{fields}``, and the page's words for the rules core's labels): a long enough fragment of an
English message that the French catalogue does not share must not reach a French user, and the
reverse. Numbers, ids, unit names and rule-set names are the same in both languages and are not
fragments long enough to count.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from tabletracker import i18n
from tabletracker.cli import main

ROOT = Path(__file__).resolve().parents[1]
SCENE = "hf600_1080p_tilt20_webcam"  # no camera file: a lens estimated, a rim too close to the table's colour
# the catalogues whose sentences the paths below say (a file's messages are those of its part of the program)
SWEPT = ("cli", "questions", "table", "kit")
MIN_FRAGMENT = 14  # characters: shorter fragments ("options", " px RMS") may be the same words in both languages


def _run(argv: list[str], capsys: Any, monkeypatch: pytest.MonkeyPatch, lang: str) -> tuple[int, str]:
    monkeypatch.setenv("LANG", lang)
    monkeypatch.delenv("LC_ALL", raising=False)
    monkeypatch.delenv("LC_MESSAGES", raising=False)
    try:
        code = main(argv)
    except SystemExit as exc:
        code = int(exc.code or 0)
    out = capsys.readouterr()
    return code, out.out + out.err


def _fragments(text: str) -> list[str]:
    """A message's fixed words: its text between the ``{fields}``, long fragments only."""
    parts = re.split(r"\{[^{}]*\}", text)
    return [p.strip(" ,;:()") for p in parts if len(p.strip(" ,;:()")) >= MIN_FRAGMENT]


def _only_in(lang: str) -> set[str]:
    """The fixed words of ``lang``'s messages that the other language's catalogue does not share."""
    other = "en" if lang == "fr" else "fr"
    mine: dict[str, str] = {}
    for part in SWEPT:
        mine.update(i18n._read(i18n.LOCALE_DIR / f"{lang}.{part}.po"))
    theirs = "\n".join(i18n.catalogue(other).values())
    page = i18n.page_words(lang)
    # the rule books' section names the sources cite are French in both languages: only the English source words
    kinds = ("rule.", "outcome.", "source.") if lang == "en" else ("rule.", "outcome.")
    texts = [*mine.values(), *(v for k, v in page.items() if k.startswith(kinds))]
    return {f for text in texts for f in _fragments(text) if f not in theirs}


@pytest.fixture(scope="module")
def scene(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("french")
    setup = root / "setup.json"
    setup.write_text(json.dumps(json.loads((ROOT / "sample_images" / f"{SCENE}.json").read_text())["setup"]))
    return {"image": ROOT / "sample_images" / f"{SCENE}.jpg", "setup": setup, "out": root / "calibration.json"}


def _paths(scene: dict[str, Path]) -> list[list[str]]:
    image, setup, out = str(scene["image"]), str(scene["setup"]), str(scene["out"])
    return [
        ["calibrate", image, "--setup", setup, "--out", out],
        ["locate", image, "--calibration", out],
        *[["ask", game] for game in ("at-43", "feu-a-volonte", "firefight", "high-fire", "star-wars")],
        ["ask", "firefight", "cover", "squad-a", "squad-b"],
        ["ask", "at-43", "firezone", "sierra-alpha", "golems-256"],
        ["ask", "feu-a-volonte", "convert", "3"],
        ["ask", "feu-a-volonte", "victory"],
        ["ask", "star-wars", "objectives"],
        ["ask", "firefight", "los", "a1", "b1"],
        ["ask", "firefight", "distance", "a1", "b1"],
        ["resolve", "at-43", "shoot", "sierra-alpha", "golems-256", "--weapon", "laser rifle", "--seed", "3"],
        ["resolve", "feu-a-volonte", "shoot", "para-2", "us-3"],
        ["resolve", "feu-a-volonte", "melee", "para-1", "us-1", "--seed", "3"],
        ["resolve", "firefight", "shoot", "snipers-a", "squad-b", "--seed", "3"],
        ["resolve", "star-wars", "shoot", "st-1", "rb-1"],
        ["resolve", "firefight"],
        ["markers", "--out", str(scene["out"].with_suffix(".pdf")), "--ids", "300-400"],
        ["locate", str(scene["out"].with_suffix(".jpg")), "--setup", setup],
        ["render-samples", "--only", "nowhere", "--out", str(scene["out"].parent / "samples")],
    ]


@pytest.mark.parametrize(("lang", "env"), [("fr", "fr_FR.UTF-8"), ("en", "en_GB.UTF-8")])
def test_no_line_of_the_command_line_is_in_the_other_language(lang: str, env: str, scene: dict[str, Path],
                                                               capsys: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    foreign = _only_in("en" if lang == "fr" else "fr")
    assert len(foreign) > 100  # the sweep has words to look for
    said = []
    for argv in _paths(scene):
        code, text = _run(argv, capsys, monkeypatch, env)
        assert code in (0, 2), (argv, text)
        said += [(" ".join(argv[:2]), line) for line in text.splitlines()]
    wrong = sorted({(where, f) for where, line in said for f in foreign if f in line})
    assert wrong == []


def test_calibrate_says_its_lens_warnings_and_report_in_french(scene: dict[str, Path], capsys: Any,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    argv = ["calibrate", str(scene["image"]), "--setup", str(scene["setup"]), "--out", str(scene["out"])]
    code, fr = _run(argv, capsys, monkeypatch, "fr_FR.UTF-8")
    assert code == 0
    assert "objectif estimé d'après les marqueurs : focale " in fr and "k1 -0,28" in fr
    assert "attention : pas de calibration de caméra donnée : objectif estimé d'après les marqueurs sur la table" in fr
    assert "plus petit marqueur lu partout sur cette table" in fr and "aux bords" in fr
    assert "lens estimated" not in fr and "from 13 base markers" not in fr and "at the edges" not in fr
    code, en = _run(argv, capsys, monkeypatch, "en_GB.UTF-8")
    assert "lens estimated from the markers: focal " in en and "k1 -0.28" in en
    assert "smallest marker read everywhere on this table" in en and "objectif" not in en
    code, doc = _run([*argv, "--json"], capsys, monkeypatch, "fr_FR.UTF-8")
    answer = json.loads(doc)
    assert answer["warnings"][0].startswith("no camera calibration given")  # the stable English text
    assert answer["warning_texts"][0]["fr"].startswith("pas de calibration de caméra donnée")
    assert answer["lens"]["texts"]["fr"].startswith("focale ") and answer["lens"]["texts"]["en"].startswith("focal ")


def test_resolve_names_its_odds_and_outcomes_in_french(capsys: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    code, fr = _run(["resolve", "feu-a-volonte", "shoot", "para-2", "us-3"], capsys, monkeypatch, "fr_FR.UTF-8")
    assert code == 0
    assert "  - attaque: para-2" in fr and "  chances (tir) :" in fr
    assert re.search(r"^ +blessé \(bras\): +\d+,\d\d %", fr, re.M) and "plus de munitions:" in fr
    assert "wounded" not in fr and "out-of-ammo" not in fr and "odds of" not in fr
    code, fr = _run(["resolve", "star-wars", "shoot", "st-1", "rb-1"], capsys, monkeypatch, "fr_FR.UTF-8")
    assert "à obtenir (pour toucher) : 6+" in fr and re.search(r"^ +non: +83,33 %", fr, re.M)
    code, en = _run(["resolve", "star-wars", "shoot", "st-1", "rb-1"], capsys, monkeypatch, "en_GB.UTF-8")
    assert "needed to hit: 6+" in en and re.search(r"^ +no: +83.33 %", en, re.M) and "chances" not in en


def test_resolve_says_its_result_in_words_in_each_language(capsys: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    melee = ["resolve", "feu-a-volonte", "melee", "para-1", "us-1", "--seed", "3"]
    code, fr = _run(melee, capsys, monkeypatch, "fr_FR.UTF-8")
    assert code == 0
    assert "  résultat : l'attaquant l'emporte ; us-1 blessé (buste)" in fr
    assert "  - attaquant: para-1" in fr and "  - défenseur: us-1" in fr and "(victoire) : le total le plus fort" in fr
    assert "attacker" not in fr and "defender" not in fr and "higher total" not in fr and '"' not in fr
    code, en = _run(melee, capsys, monkeypatch, "en_GB.UTF-8")
    assert "  result: attacker wins; us-1 wounded (buste)" in en and "  - attacker: para-1" in en
    assert "needed win: higher total" in en and "attaquant" not in en and "blessé" not in en
    shoot = ["resolve", "at-43", "shoot", "sierra-alpha", "golems-256", "--weapon", "laser rifle", "--seed", "3"]
    code, fr = _run(shoot, capsys, monkeypatch, "fr_FR.UTF-8")
    assert "  résultat : 4 touche(s) ; g256-3, g256-1, g256-5 retiré(s)" in fr and "hits" not in fr
    code, en = _run([*shoot, "--json"], capsys, monkeypatch, "fr_FR.UTF-8")  # the result's every number: --json
    assert json.loads(en)["result"]["groups"][0]["damage_dice"] == [4, 6, 5, 1]


def test_usage_and_help_placeholders_are_in_the_users_language(capsys: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    code, fr = _run(["resolve", "--help"], capsys, monkeypatch, "fr_FR.UTF-8")
    assert code == 0
    assert "[--weapon ARME]" in fr and "[--roster FICHIER]" in fr and "partie [action] [arguments ...]" in fr
    assert "WEAPON" not in fr and "FILE" not in fr and "game [action]" not in fr
    code, fr = _run(["ask", "--help"], capsys, monkeypatch, "fr_FR.UTF-8")
    assert "--option CLÉ=VALEUR" in fr and "KEY=VALUE" not in fr
    code, fr = _run(["--help"], capsys, monkeypatch, "fr_FR.UTF-8")
    assert "[-v] COMMANDE ..." in fr and "COMMAND " not in fr
    code, fr = _run(["resolve", "feu-a-volonte", "melee", "a", "b", "c"], capsys, monkeypatch, "fr_FR.UTF-8")
    assert code == 2 and "melee attend : ATTAQUANT DÉFENSEUR ; reçu 3" in fr and "ATTACKER" not in fr
    code, en = _run(["resolve", "feu-a-volonte", "melee", "a", "b", "c"], capsys, monkeypatch, "en_GB.UTF-8")
    assert "melee takes ATTACKER DEFENDER; got 3" in en
    code, en = _run(["resolve", "--help"], capsys, monkeypatch, "en_GB.UTF-8")
    assert "[--weapon WEAPON]" in en and "[--roster FILE]" in en and "game [action] [args ...]" in en
    assert "ARME" not in en and "FICHIER" not in en and "partie" not in en


def test_every_placeholder_of_every_command_has_a_french_word(monkeypatch: pytest.MonkeyPatch) -> None:
    import argparse
    import importlib

    from tabletracker.cli import COMMANDS, Parser

    monkeypatch.setenv("LANG", "en_GB.UTF-8")
    monkeypatch.delenv("LC_ALL", raising=False)
    monkeypatch.delenv("LC_MESSAGES", raising=False)
    shown = {"COMMAND"}
    for name, module in COMMANDS.items():
        parser = Parser(prog=f"tabletracker {name}")
        importlib.import_module(module).add_arguments(parser)
        shown |= {a.metavar for a in parser._actions if isinstance(a.metavar, str) and not a.metavar.startswith("{")
                  and not isinstance(a, argparse._HelpAction)}
    assert {"FILE", "KEY=VALUE", "game", "SEED"} <= shown
    from rules.rulesets import RULESETS
    from tabletracker.commands.resolve import DEFAULT_ARGUMENTS

    typed = [*DEFAULT_ARGUMENTS.values(), *(n for rs in RULESETS for n in rs.action_arguments.values())]
    shown |= {name.upper() for names in typed for name in names}  # resolve's main arguments: FIRING TARGET
    assert {"CASTER", "ATTACKER", "USER"} <= shown
    missing = sorted(m for m in shown if i18n.render(f"cli.metavar.{m}", {}, "fr") is None
                     or i18n.render(f"cli.metavar.{m}", {}, "en") != m)
    assert missing == []


def test_asks_question_list_is_in_french(capsys: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    code, fr = _run(["ask", "star-wars"], capsys, monkeypatch, "fr_FR.UTF-8")
    assert code == 0
    assert "  aura HÉROS : les figurines amies non héros dans la bulle de commandement d'un héros" in fr
    assert "command bubble" not in fr
    code, doc = _run(["ask", "star-wars", "--json"], capsys, monkeypatch, "en_GB.UTF-8")
    los = next(q for q in json.loads(doc)["questions"] if q["question"] == "los")
    assert los["texts"] == {"fr": "los A B : la vue entre deux figurines, ou entre deux unités.", "en": los["help"]}


def test_every_questions_help_has_its_french_words() -> None:
    """A question added to a rule set, or its help reworded in the rules core, needs its words in the catalogues."""
    from rules.questions import describe
    from rules.rulesets import RULESETS
    from tabletracker.commands.ask import question_help

    for ruleset in (rs.name for rs in RULESETS):
        for q in describe(ruleset):
            assert question_help(ruleset, q, "fr") != q["help"], (ruleset, q["help"])
            assert question_help(ruleset, q, "en") == q["help"]


def test_asks_one_line_answer_is_in_french(capsys: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    code, fr = _run(["ask", "firefight", "distance", "a1", "b1"], capsys, monkeypatch, "fr_FR.UTF-8")
    assert code == 0
    assert fr.splitlines()[0] == 'distance (firefight): a1 à b1 : 28,57" de bord de socle à bord de socle'
    code, en = _run(["ask", "firefight", "distance", "a1", "b1"], capsys, monkeypatch, "en_GB.UTF-8")
    assert en.splitlines()[0] == 'distance (firefight): a1 to b1: 28.57" base edge to base edge'
    code, fr = _run(["ask", "firefight", "cover", "squad-a", "squad-b"], capsys, monkeypatch, "fr_FR.UTF-8")
    assert fr.splitlines()[0] == "cover (firefight): 5 sur 5 à couvert : +1 en Défense" and "in cover" not in fr
    code, doc = _run(["ask", "star-wars", "los", "st-1", "rb-1", "--json"], capsys, monkeypatch, "fr_FR.UTF-8")
    answer = json.loads(doc)
    assert answer["answer"] == "st-1 sees rb-1 (100% of its base); behind low-wall-1"  # the stable English text
    assert answer["answer_words"]["texts"]["fr"] == "st-1 voit rb-1 (100 % de son socle) ; derrière low-wall-1"


def _said_ids() -> set[str]:
    """The message ids the rules core words its answers' summaries with (``Said(text, id)``, ``msg("answer...")``)."""
    import ast

    out = set()
    for path in sorted((ROOT / "rules").glob("**/*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Call):
                continue
            name = getattr(node.func, "id", "")
            args = node.args[1:2] if name == "Said" else node.args[:1] if name == "msg" else []
            if args and isinstance(args[0], ast.Constant) and str(args[0].value).startswith("answer."):
                out.add(str(args[0].value))
            elif args and isinstance(args[0], ast.IfExp):
                out |= {str(b.value) for b in (args[0].body, args[0].orelse) if isinstance(b, ast.Constant)}
    return out


def test_every_answer_summary_has_its_words_in_both_languages() -> None:
    ids = _said_ids()
    assert {"answer.distance", "answer.los.sees", "answer.victory.fav_over", "answer.length"} <= ids
    for msg_id in ids:
        fr, en = i18n.catalogue("fr").get(msg_id), i18n.catalogue("en").get(msg_id)
        assert fr and en, msg_id
        # the same in both only when it holds no word but its parameters, units and "impossible"
        words = re.findall(r"[^\W\d_]{3,}", re.sub(r"\{\w+\}", "", en))
        assert fr != en or set(words) <= {"impossible", "pas", "mm", "UD"}, msg_id


# one question of each kind on each bundled game (the arguments the sample games answer)
QUESTIONS = {
    "at-43": ["distance sa-1 g256-1", "los sa-1 g256-1", "los sierra-alpha golems-256", "template 300 300 50",
              "objectives", "terrain", "terrain sa-1", "range sierra-alpha golems-256 --accuracy 5",
              "firezone sierra-alpha golems-256", "shooters sierra-alpha golems-256", "cover sierra-alpha golems-256",
              "casualties sierra-alpha golems-256",
              "indirect sierra-alpha g256-1 --area 5 --successes 2 --failures 1 --direction 3", "convert 10",
              "victory"],
    "feu-a-volonte": ["cohesion para-1", "range para-2 us-3", "cover para-2 us-3", "arc para-2 us-3",
                      "shooters us-3 para-2 para-1", "aura para-leader", "radio", "spot para-1", "hide para-1",
                      "grenade para-1 300 300", "split us-1 us-2", "move para-1 300 300",
                      "climb para-1 --to-elevation 30", "victory", "objectives"],
    "firefight": ["range snipers-a squad-b --weapon-range 24", "cover squad-a squad-b", "aura caster-b",
                  "charge squad-a squad-b", "melee squad-a squad-b", "blast squad-a squad-b --x 3", "objectives",
                  "deployment", "ambush squad-a", "scout squad-a", "move a1 900 900", "jump 4 --drop 3", "victory"],
    "high-fire": ["los alpha red-1", "range alpha red-1 --weapon-range 12", "cover alpha red-1", "proximity alpha",
                  "move al-1 300 300 --action careful", "objectives"],
    "star-wars": ["range st-1 rb-1", "cover st-1 rb-1", "aura officer-1", "activation officer-1",
                  "zone 300 300 --radius 3", "force repulsion inquisitor", "force speed inquisitor",
                  "force lightning inquisitor st-1", "move st-1 100 100"],
}


def _plain(text: str) -> str:
    """A summary with its numbers' trailing zeros and its sentences' full stops left out (7.60 UD and 7.6 UD)."""
    return re.sub(r"(\d+)\.(\d*?)0+(?!\d)", lambda m: m[1] + ("." + m[2] if m[2] else ""), text).replace(".;", ";")


@pytest.mark.parametrize("game", sorted(QUESTIONS))
def test_every_asks_summary_has_its_words_and_says_what_the_english_says(game: str) -> None:
    from rules.plan import load_game
    from rules.questions import ask
    from tabletracker.samples import game_file

    plan = load_game(game_file(game))
    for question in QUESTIONS[game]:
        name, *args = question.split()
        answer = i18n.localize(ask(plan, name, args))
        words = answer.get("answer_words", {}).get("texts", {})
        assert words.get("fr") and words["fr"] != words["en"], (game, question, answer["answer"])
        assert _plain(words["en"]).rstrip(".").lower() == _plain(answer["answer"]).rstrip(".").lower(), (game, question)
