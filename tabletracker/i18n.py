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
import json
import os
import re
from pathlib import Path
from typing import Any, Mapping, TypeVar

from tabletracker.errors import TabletrackerError

E = TypeVar("E", bound=TabletrackerError)

LANGS = ("fr", "en")
LOCALE_DIR = Path(__file__).resolve().parent / "locale"
# the web page's words: among them the rules core's English labels (``rule.*``: a step's rule name, the
# names of needed rolls and odds tables; ``outcome.*``; ``source.*``), which the command line says as the page does
PAGE_WORDS = Path(__file__).resolve().parent.parent / "server" / "static" / "i18n.js"


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


def number(value: float, digits: int, *, trim: bool = False, lang: str | None = None) -> str:
    """Return ``value`` with ``digits`` decimals in ``lang``, by default the command-line user's (``0,051`` in
    French); ``trim``: at most ``digits`` decimals, none for a whole number (``1219,2``, ``600``)."""
    from babel.numbers import format_decimal

    pattern = "0." + ("#" if trim else "0") * digits if digits else "0"
    return str(format_decimal(value, format=pattern, locale=lang or user_language()))


def user_language() -> str:
    """Return the command-line user's language: ``fr`` when ``LC_ALL``, ``LC_MESSAGES`` or ``LANG`` says French."""
    env = os.environ.get("LC_ALL") or os.environ.get("LC_MESSAGES") or os.environ.get("LANG") or "en"
    return "fr" if env.lower().startswith("fr") else "en"


@functools.cache
def page_words(lang: str) -> Mapping[str, str]:
    """Return the web page's words in ``lang`` (``server/static/i18n.js``; empty when the file is not there)."""
    try:
        text = PAGE_WORDS.read_text(encoding="utf-8")
        words = json.loads(text[text.index("{"): text.rindex("}") + 1])
    except (OSError, ValueError):
        return {}
    return dict(words.get(lang if lang in LANGS else "en", {}))


def _page_word(key: str, lang: str) -> str | None:
    return page_words(lang).get(key) if key in page_words("en") else None


def rule_word(label: Any, lang: str) -> str:
    """Return a rules core's English label (a step's rule name, a needed roll's or odds table's name) in ``lang``.

    As the page does it: the whole label when known, else its ``(...)`` tail and its head
    apart, else a known leading or trailing word, the rest (a weapon, a model id) kept as it is.

    >>> rule_word("to hit (rifle)", "fr"), rule_word("models removed", "fr"), rule_word("b2 killed", "en")
    ('pour toucher (rifle)', 'figurines retirées', 'b2 killed')
    """
    text = str(label)
    known = page_words(lang)
    english = page_words("en")
    if f"rule.{text}" in english:
        return known.get(f"rule.{text}", text)
    paren = re.fullmatch(r"(.*\S)\s+(\([^()]*\))", text)
    if paren:
        tail = paren[2]
        return f"{rule_word(paren[1], lang)} {known.get(f'rule.{tail}', tail) if f'rule.{tail}' in english else tail}"
    words = text.split(" ")
    for i in range(len(words) - 1, 0, -1):
        head = " ".join(words[:i])
        bare = head.removesuffix(":")
        if f"rule.{bare}" in english:
            return f"{known.get(f'rule.{bare}', bare)}{head[len(bare):]} {' '.join(words[i:])}"
    for i in range(1, len(words)):
        tail = " ".join(words[i:])
        if f"rule.{tail}" in english:
            return f"{' '.join(words[:i])} {known.get(f'rule.{tail}', tail)}"
    return text


def outcome_word(outcome: Any, lang: str) -> str:
    """Return an odds table's outcome in ``lang``: a named effect, a yes or no, a number, or several of them.

    >>> outcome_word([1, "none"], "fr"), outcome_word(True, "fr"), outcome_word("killed", "fr")
    ('1, aucun effet', 'oui', 'tué')
    """
    if isinstance(outcome, (list, tuple)):
        return ", ".join(outcome_word(o, lang) for o in outcome)
    if isinstance(outcome, bool):
        return _page_word("yes" if outcome else "no", lang) or str(outcome)
    if isinstance(outcome, str):
        paren = re.fullmatch(r"(.*\S)\s+\(([^()]*)\)", outcome)  # "wounded (bras)": the effect, where
        if paren and _page_word(f"outcome.{paren[1]}", lang):
            return f"{_page_word(f'outcome.{paren[1]}', lang)} ({paren[2]})"
        return _page_word(f"outcome.{outcome}", lang) or rule_word(outcome, lang)
    return _value(outcome, lang)


def source_words(source: Any, lang: str) -> str:
    """Return a step's source in ``lang``: the rule sets' section names are French already; the few English words
    the core adds (geometry, a table's name, who gains a bonus, a rule choice's number) are said in ``lang``."""
    out = str(source or "")
    english = page_words("en")
    keys = sorted((k for k in english if k.startswith("source.")), key=lambda k: -len(english[k]))
    for key in keys:
        out = out.replace(english[key], page_words(lang).get(key, english[key]))
    return re.sub(r"\brule choice (\d+)", lambda m: render("cli.rule_choice", {"n": m[1]}, lang) or m[0], out)


def pattern_words(message: str, patterns: Any, lang: str, *, numbers: bool = False) -> str:
    """Return an English sentence another package writes (argparse, the tracker) in ``lang``, as it is when none of
    ``patterns`` (``(regex, message id)``, the regex's named groups the message's parameters) matches it;
    ``numbers``: the groups written as decimal numbers are said with the language's decimal mark."""
    for pattern, msg_id in patterns:
        match = re.fullmatch(pattern, message)
        if match:
            params: dict[str, Any] = dict(match.groupdict())
            if numbers:
                params = {k: float(v) if re.fullmatch(r"-?\d+\.\d+", v) else v for k, v in params.items()}
            return render(msg_id, params, lang) or message
    return message


def message_of(value: Any) -> dict[str, Any]:
    """Return a warning or note as a message object: one with a message id (``tabletracker.words.Said``, an error)
    as ``{"msg", "params", "text"}``, a message object as it is, any other sentence as ``{"text": ...}``."""
    if isinstance(value, Mapping):
        return dict(value)
    msg_id = getattr(value, "msg_id", None)
    if msg_id:
        return {"msg": msg_id, "params": dict(getattr(value, "params", {}) or {}), "text": str(value)}
    return {"text": str(value)}


def message_text(message: Mapping[str, Any], lang: str) -> str:
    """Return a message object's sentence in ``lang`` (its English ``text`` without a catalogue entry).

    In English a message that carries its sentence (a ``Said``'s) is that sentence: no catalogue is read.
    """
    if lang == "en" and message.get("text"):
        return str(message["text"])
    text = render(message["msg"], message.get("params") or {}, lang) if isinstance(message.get("msg"), str) else None
    return text or str(message.get("text") or message.get("msg", ""))


def step_line(step: Mapping[str, Any], lang: str) -> str:
    """Return a localized JSON step's text in ``lang`` (the core's English sentence without a translation)."""
    return str((step.get("texts") or {}).get(lang) or step.get("text", ""))


def explanation_lines(steps: Any, lang: str) -> list[str]:
    """Return a localized answer's explanation as the command line prints it: rule, text, source, option."""
    lines = []
    for step in steps or []:
        option = f" [{render('cli.option', {'option': step['option']}, lang)}]" if "option" in step else ""
        lines.append(f"  - {rule_word(step['rule'], lang)}: {step_line(step, lang)} "
                     f"({source_words(step['source'], lang)}){option}")
    return lines
