"""Every English word the rules core shows on the page (Step rule names, needed and odds labels)
has a French entry in server/static/i18n.js, found by scanning the rules code the way a reader greps.

A new ``Step("some new rule", ...)`` or ``needed = {"new label": ...}`` without a ``rule.`` entry in
both languages fails here. The step's detail text stays as the rules core wrote it (not translated).
"""

from __future__ import annotations

from tests.server.conftest import ROOT
from tests.server.rule_words import scan
from tests.server.test_i18n import dictionaries


def test_the_scan_finds_the_rules_words() -> None:
    rules, labels = scan(ROOT)
    assert {"to hit", "defence", "casualties", "measuring", "range band", "fire zone", "line of sight", "cover"} <= rules
    assert {"to hit", "defence", "outcome (models removed, last model)", "killed", "attack on", "PV lost"} <= labels
    assert len(rules) > 150 and len(labels) > 30


def test_every_rules_word_has_a_french_and_an_english_entry() -> None:
    d = dictionaries()
    rules, labels = scan(ROOT)
    missing_fr = sorted(w for w in rules | labels if f"rule.{w}" not in d["fr"])
    missing_en = sorted(w for w in rules | labels if d["en"].get(f"rule.{w}") != w)
    assert missing_fr == [], f"add French entries 'rule.<word>' to server/static/i18n.js for: {missing_fr}"
    assert missing_en == [], f"the English entry of 'rule.<word>' must be the word itself: {missing_en}"


def test_no_stale_rules_words() -> None:
    rules, labels = scan(ROOT)
    stale = sorted(k[5:] for k in dictionaries()["fr"] if k.startswith("rule.") and k[5:] not in rules | labels)
    assert stale == []


def test_the_french_rules_words_are_french() -> None:
    fr = dictionaries()["fr"]
    assert fr["rule.to hit"] == "pour toucher" and fr["rule.defence"] == "défense"
    assert fr["rule.casualties"] == "pertes" and fr["rule.range band"] == "tranche de portée"
    assert fr["rule.fire zone"] == "zone de feu" and fr["rule.line of sight"] == "ligne de vue"
    lower = [k for k in fr if k.startswith("rule.") and k[5:6].islower()]
    same = [k for k in lower if fr[k] == k[5:]]
    # words spelt the same in both languages ("initiative", "distance", "collision", "phase"...)
    assert len(same) < len(lower) / 8, same
