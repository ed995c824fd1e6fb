"""The page's words exist in French and in English, for every key the page uses."""

from __future__ import annotations

import ast
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


def _message_ids(tree: ast.AST) -> tuple[set[str], set[str]]:
    """The message ids a module names: ``msg_id=`` / ``msg=`` keywords (a Step, an error) and ``msg(...)`` calls.

    Returns the literal ids (every string a conditional may pick: ``"a" if x else "b"``) and
    the ids built at run time, as regular expressions (``f"aura.{who}"`` -> ``aura\\.\\w+``).
    """
    literal: set[str] = set()
    built: set[str] = set()

    def collect(node: ast.AST) -> None:
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            literal.add(node.value)
        elif isinstance(node, ast.JoinedStr):
            parts = [re.escape(v.value) if isinstance(v, ast.Constant) else r"[\w]+" for v in node.values]
            built.add("".join(parts))
        elif isinstance(node, ast.IfExp):
            collect(node.body)
            collect(node.orelse)

    for node in ast.walk(tree):
        if isinstance(node, ast.keyword) and node.arg in ("msg_id", "msg"):
            collect(node.value)
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "msg" and node.args:
            collect(node.args[0])
    return literal, built


def test_every_message_id_the_rules_core_raises_has_french_and_english_text() -> None:
    """A message id in the rules core (an error's ``msg_id="..."``, a step's ``msg="..."``, a nested ``msg("...")``,
    or a ``high_fire.missing.*`` entry) without words in a catalogue fails; an id built at run time
    (an f-string) must match at least one entry of each catalogue."""
    from tabletracker.i18n import catalogue

    ids: set[str] = set()
    built: set[str] = set()
    for path in (ROOT / "rules").rglob("*.py"):
        found, patterns = _message_ids(ast.parse(path.read_text(encoding="utf-8")))
        # High Fire's missing table entries: their short id under high_fire.missing
        ids |= {i if "." in i else f"high_fire.missing.{i}" for i in found}
        built |= patterns
    ids |= {"feu_a_volonte.fog", "feu_a_volonte.hidden"}  # chosen by a condition
    assert len(ids) >= 100, ids
    assert {"los.sees", "cohesion.in", "ids.unknown"} <= ids  # a step's msg= and an error's msg_id= both seen
    assert r"aura\.[\w]+\.[\w]+" in built, built
    for lang in ("fr", "en"):
        assert sorted(i for i in ids if i not in catalogue(lang)) == [], lang
        assert sorted(p for p in built if not any(re.fullmatch(p, i) for i in catalogue(lang))) == [], lang
    assert set(catalogue("fr")) == set(catalogue("en"))


def test_every_message_the_shared_rules_build_at_run_time_has_french_and_english_text() -> None:
    """The ids the shared modules build from a value: each terrain kind's description of every rule set,
    the auras, cohesion links, templates, victory texts and the kinds of ids, in both catalogues."""
    from rules.rulesets import RULESETS
    from rules.terrain import kind_msg_id
    from tabletracker.i18n import catalogue, render

    ids = {kind_msg_id(rs.name, k) for rs in RULESETS for k in rs.terrain_kinds}
    ids |= {f"aura.{who}.{s}" for who in ("friends", "enemies", "all") for s in ("strict", "within")}
    ids |= {f"cohesion.link.{mode}" for mode in ("chain", "nearest")}
    ids |= {f"measure.ref.{how}" for how in ("edge", "centre")} | {f"template.under.{h}" for h in ("edge", "centre")}
    ids |= {f"ids.kind.{k}" for k in ("model", "unit", "terrain", "objective", "edge")}
    ids |= {f"terrain.shape.{s}" for s in ("area", "line")}
    ids |= {f"victory.none.{rs.name.replace('-', '_')}" for rs in RULESETS
            if rs.name not in ("firefight", "feu-a-volonte")}
    assert len(ids) >= 70
    for lang in ("fr", "en"):
        assert sorted(i for i in ids if i not in catalogue(lang)) == [], lang
    for rs in RULESETS:  # the English text of a kind is the rule set's own description
        for k, kind in rs.terrain_kinds.items():
            assert render(kind_msg_id(rs.name, k), {}, "en") == kind.text
