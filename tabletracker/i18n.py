"""The rules core's messages in French and English, from gettext catalogues read at run time.

The rules core raises errors, and writes explanation steps, carrying a message id and
parameters (``rules.errors``, ``rules.explain``); the edges (the web server, the CLI) render
them here from ``tabletracker/locale/<lang>.po`` and ``<lang>.<part>.po`` (one file per rule
set, merged), read as they are (no compile step: the ``msgid``/``msgstr`` pairs and comments
they hold, as Babel's ``read_po`` reads them, without loading it and the e-mail parser it
reads a header with at every command's start), numbers written with the language's decimal
mark. A parameter may be a message itself (``{"msg": id, "params": {...}}``).
A message without an entry falls back to the core's English sentence.

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
import os
import re
from pathlib import Path
from typing import Any, Mapping, TypeVar

from tabletracker.errors import TabletrackerError

E = TypeVar("E", bound=TabletrackerError)

LANGS = ("fr", "en")
LOCALE_DIR = Path(__file__).resolve().parent / "locale"


def catalogue_files(lang: str) -> list[Path]:
    """Return the catalogue files of ``lang``: ``<lang>.po`` then ``<lang>.<part>.po`` by name."""
    return [LOCALE_DIR / f"{lang}.po", *sorted(LOCALE_DIR.glob(f"{lang}.*.po"))]


@functools.cache
def catalogue(lang: str) -> Mapping[str, str]:
    """Return the message texts of ``lang`` (``fr`` or ``en``) by message id, all its files merged."""
    out: dict[str, str] = {}
    for path in catalogue_files(lang):
        out.update(_read(path))
    return out


@functools.cache
def _command_line(lang: str) -> Mapping[str, str]:
    """The command line's own messages (``cli.*``), read alone: ``tabletracker --help`` reads no other file."""
    return _read(LOCALE_DIR / f"{lang}.cli.po")


_PO_LINE = re.compile(r'(msgid|msgstr)?\s*("(?:[^"\\]|\\.)*")\s*')
_PO_ESCAPE = re.compile(r'\\([\\trn"])')
_PO_ESCAPED = {"n": "\n", "t": "\t", "r": "\r"}


def _read(path: Path) -> dict[str, str]:
    """The translated messages of one catalogue file by id (its header and empty translations left out).

    Comments (``#``, obsolete ``#~`` entries too) are skipped; a string continues on the lines
    that hold only a string; escapes are those of the format (``\\n``, ``\\t``, ``\\r``, ``\\"``, ``\\\\``).
    A line of any other kind (``msgctxt``, plurals) is refused: these catalogues hold none.
    """
    out: dict[str, str] = {}
    key, parts = "", {"msgid": [], "msgstr": []}

    def done() -> None:
        msg_id, text = "".join(parts["msgid"]), "".join(parts["msgstr"])
        if msg_id and text:
            out[msg_id] = text
        parts["msgid"], parts["msgstr"] = [], []

    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        match = _PO_LINE.fullmatch(line)
        if match is None or (match.group(1) is None and not key):
            raise ValueError(f"{path}:{n}: not a line this reader knows: {line!r}")
        if match.group(1) == "msgid":
            done()
        key = match.group(1) or key
        parts[key].append(_PO_ESCAPE.sub(lambda m: _PO_ESCAPED.get(m.group(1), m.group(1)), match.group(2)[1:-1]))
    done()
    return out


def _value(v: Any, lang: str) -> str:
    if isinstance(v, Mapping) and isinstance(v.get("msg"), str):
        inner = render(v["msg"], v.get("params") or {}, lang)
        return inner if inner is not None else str(v.get("text", v["msg"]))
    if isinstance(v, bool):
        return str(v)
    if isinstance(v, (int, float)):
        from babel.numbers import format_decimal  # Babel's locale data loads only for a number said

        return str(format_decimal(v, locale=lang))
    if isinstance(v, (list, tuple)):
        return ", ".join(_value(x, lang) for x in v)
    return str(v)


def render(msg_id: str, params: Mapping[str, Any], lang: str) -> str | None:
    """Return the message ``msg_id`` in ``lang`` with its parameters, or ``None`` when the catalogue lacks it."""
    lang = lang if lang in LANGS else "en"
    # the command line's messages live in its own file alone: an id it lacks (a command's option
    # without words of its own) reads no other file (all of them took a tenth of a second at every start)
    text = _command_line(lang).get(msg_id) if msg_id.startswith("cli.") else catalogue(lang).get(msg_id)
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


def step_texts(step: Mapping[str, Any]) -> dict[str, str] | None:
    """Return a JSON step's (or any ``{"msg", "params"}`` object's) text in every language, ``None`` without one."""
    msg_id = step.get("msg")
    if not isinstance(msg_id, str):
        return None
    params = step.get("params") or {}
    out = {lang: render(msg_id, params, lang) for lang in LANGS}
    return {lang: text for lang, text in out.items() if text is not None} or None


def localize(value: Any) -> Any:
    """Return a JSON answer with ``texts`` ({"fr", "en"}) beside every object carrying a message id.

    The web server and the CLI call it on what the rules core answers, so each explanation
    step reaches the player in their language; objects without a catalogue entry are kept as
    they are (the page shows the core's English ``text``).
    """
    if isinstance(value, Mapping):
        out = {k: localize(v) for k, v in value.items()}
        words = step_texts(value) if "msg" in value else None
        if words:
            out["texts"] = words
        return out
    if isinstance(value, list):
        return [localize(v) for v in value]
    return value


def worded(error: type[E], msg_id: str, **params: Any) -> E:
    """Return ``error`` worded by the message ``msg_id``: its English text, the id and parameters for the others.

    >>> from tabletracker.errors import UsageError
    >>> e = worded(UsageError, "cli.port_range", value="70000")
    >>> str(e), render(e.msg_id, e.params, "fr")
    ('--port must be from 1 to 65535, got 70000', '--port doit aller de 1 à 65535, reçu : 70000')
    """
    return error(render(msg_id, params, "en") or msg_id, msg_id=msg_id, params=params)


def said(msg_id: str, **params: Any) -> str:
    """Return the message ``msg_id`` in the command-line user's language (:func:`user_language`)."""
    return render(msg_id, params, user_language()) or render(msg_id, params, "en") or msg_id


def number(value: float, digits: int) -> str:
    """Return ``value`` with ``digits`` decimals in the command-line user's language (``0,051`` in French)."""
    from babel.numbers import format_decimal

    return str(format_decimal(value, format="0." + "0" * digits if digits else "0", locale=user_language()))


def user_language() -> str:
    """Return the command-line user's language: ``fr`` when ``LC_ALL``, ``LC_MESSAGES`` or ``LANG`` says French."""
    env = os.environ.get("LC_ALL") or os.environ.get("LC_MESSAGES") or os.environ.get("LANG") or "en"
    return "fr" if env.lower().startswith("fr") else "en"


def step_line(step: Mapping[str, Any], lang: str) -> str:
    """Return a localized JSON step's text in ``lang`` (the core's English sentence without a translation)."""
    return str((step.get("texts") or {}).get(lang) or step.get("text", ""))
