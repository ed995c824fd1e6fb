"""The page's words exist in French and in English, for every key the page uses."""

from __future__ import annotations

import json
import re

from tests.server.conftest import ROOT

STATIC = ROOT / "server" / "static"


def dictionaries() -> dict[str, dict[str, str]]:
    text = (STATIC / "i18n.js").read_text(encoding="utf-8")
    body = text[text.index("{"): text.rindex("}") + 1]
    return json.loads(body)


def used_keys() -> set[str]:
    html = (ROOT / "server" / "templates" / "index.html").read_text(encoding="utf-8")
    js = (STATIC / "app.js").read_text(encoding="utf-8")
    js += (STATIC / "forms.js").read_text(encoding="utf-8")
    keys = set(re.findall(r'data-i18n(?:-placeholder)?="([\w.]+)"', html))
    keys |= set(re.findall(r'\bt\("([\w.]+)"', js))
    return keys


def test_french_and_english_have_the_same_keys() -> None:
    d = dictionaries()
    assert set(d) == {"fr", "en"}
    assert set(d["fr"]) == set(d["en"])


def test_every_word_the_page_uses_is_translated() -> None:
    d = dictionaries()
    missing = sorted(k for k in used_keys() if k not in d["fr"])
    assert missing == []
    assert len(used_keys()) > 40


def test_french_is_french() -> None:
    d = dictionaries()
    assert d["fr"]["tab.tools"] == "Outils" and d["en"]["tab.tools"] == "Tools"
    # the rules core's words (rule.*) may be the same in both ("initiative", "Commandement"): see test_rule_words
    # names (rule sets, some actions and terrain kinds) may be the same word in both languages too
    names = ("rule.", "ruleset.", "action_name.", "kind.", "counter.", "outcome.", "status_word.", "arg.", "choice.")
    same = [k for k in d["fr"] if d["fr"][k] == d["en"][k] and len(d["fr"][k]) > 4 and not k.startswith(names)]
    assert set(same) <= {"label.action", "label.table", "distance", "log.setup.table", "placeholder.dice",
                         "sight.visible"}, same  # the same word in both


def test_every_action_and_argument_the_rules_core_describes_has_words() -> None:
    """The page's forms come from the rules core's descriptions: each action and argument is named in both."""
    from rules.rulesets import RULESETS

    d = dictionaries()
    names: set[str] = set()
    for rs in RULESETS:
        for action, params in rs.action_params.items():
            names.add(f"action_name.{action}")
            names |= {f"arg.{p.name}" for p in params if p.kind not in ("point", "table")}
    for lang in ("fr", "en"):
        assert sorted(n for n in names if n not in d[lang]) == [], lang


def test_every_message_id_the_rules_core_raises_has_french_and_english_text() -> None:
    """A ``msg_id="..."`` in the rules core (or a ``high_fire.missing.*`` entry) without words in a catalogue fails."""
    from tabletracker.i18n import catalogue

    ids: set[str] = set()
    for path in (ROOT / "rules").rglob("*.py"):
        if path.name == "errors.py":  # its docstring's example
            continue
        found = re.findall(r'msg_id="([\w.]+)"', path.read_text(encoding="utf-8"))
        # High Fire's missing table entries: their short id under high_fire.missing
        ids |= {i if "." in i else f"high_fire.missing.{i}" for i in found}
    ids |= {"feu_a_volonte.fog", "feu_a_volonte.hidden"}  # chosen by a condition
    assert len(ids) >= 10, ids
    for lang in ("fr", "en"):
        assert sorted(i for i in ids if i not in catalogue(lang)) == [], lang
    assert set(catalogue("fr")) == set(catalogue("en"))
