"""The English words the rules core hands to the page: Step rule names, needed and odds labels.

Scans every rules/**/*.py with :mod:`ast` (no import of the
rules), the same way a reader greps for ``Step("...`` and ``needed``/``odds`` keys. A label
chosen by a condition counts by both its words, one built
with an f-string by its fixed words: ``f"to hit ({w})"`` gives "to hit", ``f"{m} killed"``
gives "killed"; the page translates those words and keeps the rest (weapon, model id) as it is.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

DICT_NAMES = {"needed", "odds", "needed_map"}


def _fixed_words(node: ast.expr) -> set[str]:
    """The translatable words of a label: the whole string, or an f-string's fixed head/tail."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return {node.value}
    if isinstance(node, ast.IfExp):  # Step("attacker" if ... else "defender", ...): both words
        return _fixed_words(node.body) | _fixed_words(node.orelse)
    if isinstance(node, ast.JoinedStr):
        parts = [v.value if isinstance(v, ast.Constant) else None for v in node.values]
        out = set()
        head, tail = parts[0], parts[-1]
        for text in (head, tail):
            if not text:
                continue
            paren = re.search(r"\((?P<inner>[^(){}]+)\)\s*$", text) if text is tail else None
            if paren:
                out.add(paren.group(0).strip())
                text = text[: paren.start()]
            word = re.sub(r"^[\s:,]+|[\s:,(]+$", "", text)
            if len(word) > 1:
                out.add(word)
        return out
    return set()


def _dict_keys(node: ast.expr) -> set[str]:
    out: set[str] = set()
    if isinstance(node, ast.Dict):
        for k in node.keys:
            if k is not None:
                out |= _fixed_words(k)
    elif isinstance(node, ast.DictComp):
        out |= _fixed_words(node.key)
    return out


def scan(root: Path) -> tuple[set[str], set[str]]:
    """Return (Step rule names, needed and odds labels) written in the rules core under ``root``."""
    files = sorted(root.glob("rules/**/*.py"))
    rules: set[str] = set()
    labels: set[str] = set()
    for path in files:
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for node in ast.walk(tree):
            if isinstance(node, ast.Call):
                name = getattr(node.func, "id", getattr(node.func, "attr", None))
                if name == "Step" and node.args:
                    rules |= _fixed_words(node.args[0])
                if name == "Resolution":
                    for arg in node.args[3:5]:
                        labels |= _dict_keys(arg)
                    for kw in node.keywords:
                        if kw.arg in ("needed", "odds"):
                            labels |= _dict_keys(kw.value)
            elif isinstance(node, (ast.Assign, ast.AnnAssign)):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                for t in targets:
                    if isinstance(t, ast.Name) and t.id in DICT_NAMES and node.value is not None:
                        labels |= _dict_keys(node.value)
                    if isinstance(t, ast.Subscript) and getattr(t.value, "id", None) in DICT_NAMES:
                        labels |= _fixed_words(t.slice)
    return rules, labels
