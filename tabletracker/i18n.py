"""The rules core's messages in French and English, from gettext catalogues read at run time.

The rules core raises errors carrying a message id and parameters (``rules.errors``); the
edges (the web server, the CLI) render them here from ``tabletracker/locale/<lang>.po``,
read with Babel's ``read_po`` (no compile step), numbers written with the language's
decimal mark. A message without an entry falls back to the core's English sentence.

Examples
--------
>>> render("shoot.out_of_range_pas", {"target": "rb-2", "distance": 20.2, "reach": 20}, "fr")
"rb-2 est à 20,2 pas : hors de portée (jusqu'à 20 pas)."
>>> render("shoot.out_of_range_pas", {"target": "rb-2", "distance": 20.2, "reach": 20}, "en")
'rb-2 is 20.2 pas away: out of range (up to 20 pas).'
>>> render("no.such.id", {}, "fr") is None
True
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any, Mapping

from babel.messages.pofile import read_po
from babel.numbers import format_decimal

LANGS = ("fr", "en")
LOCALE_DIR = Path(__file__).resolve().parent / "locale"


@functools.lru_cache(maxsize=None)
def catalogue(lang: str) -> Mapping[str, str]:
    """Return the message texts of ``lang`` (``fr`` or ``en``) by message id."""
    with open(LOCALE_DIR / f"{lang}.po", "rb") as f:
        cat = read_po(f, locale=lang)
    return {str(m.id): str(m.string) for m in cat if m.id and m.string}


def _value(v: Any, lang: str) -> str:
    if isinstance(v, bool):
        return str(v)
    if isinstance(v, (int, float)):
        return str(format_decimal(v, locale=lang))
    if isinstance(v, (list, tuple)):
        return ", ".join(_value(x, lang) for x in v)
    return str(v)


def render(msg_id: str, params: Mapping[str, Any], lang: str) -> str | None:
    """Return the message ``msg_id`` in ``lang`` with its parameters, or ``None`` when the catalogue lacks it."""
    text = catalogue(lang if lang in LANGS else "en").get(msg_id)
    if text is None:
        return None
    values = {k: _value(v, lang) for k, v in params.items()}
    try:
        return text.format(**values)
    except (KeyError, IndexError):
        return None


def texts(exc: BaseException) -> dict[str, str] | None:
    """Return an error's message in every language (``None`` for an error without a message id)."""
    msg_id = getattr(exc, "msg_id", None)
    if not msg_id:
        return None
    params = getattr(exc, "params", {}) or {}
    out = {lang: render(msg_id, params, lang) for lang in LANGS}
    return {lang: text for lang, text in out.items() if text is not None} or None
