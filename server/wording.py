"""The field readers' wordings in French (the server's JSON bodies, an imported game file).

:class:`calibration.fields.Reader` words its refusals in English ("body.x must be a number,
got a string 'a'"); the page shows the French made here from them, field names and values kept.
"""

from __future__ import annotations

import re

# The body reader's wording (calibration/fields.py), in French: (English pattern, French). The
# parts in braces are kept (ids, values), a type name is translated (_TYPES).
_READER_FR: tuple[tuple[str, str], ...] = (
    (r"must be a JSON object, got (?P<t>.+)", "doit être un objet JSON, reçu : {t}"),
    (r"has unknown key\(s\) (?P<keys>.+); allowed keys are (?P<allowed>.+)",
     "a des clés inconnues {keys} ; clés permises : {allowed}"),
    (r"is missing \((?P<t>.+) is required\)", "manque ({t} attendu)"),
    (r"must be a number, got (?P<t>an? \w+|null) ?(?P<v>.*)", "doit être un nombre, reçu : {t} {v}"),
    (r"is too large \((?P<v>.+)\); numbers are at most (?P<m>\S+) in size",
     "est trop grand ({v}) ; les nombres valent au plus {m}"),
    (r"must be a finite number, got (?P<v>.+)", "doit être un nombre fini, reçu : {v}"),
    (r"must be greater than 0, got (?P<v>.+)", "doit être plus grand que 0, reçu : {v}"),
    (r"must be an integer, got (?P<t>an? \w+|null) ?(?P<v>.*)", "doit être un nombre entier, reçu : {t} {v}"),
    (r"must be a non-empty string, got (?P<t>an? \w+|null) ?(?P<v>.*)",
     "doit être un texte non vide, reçu : {t} {v}"),
    (r"must be one of (?P<choices>.+); got (?P<v>.+)", "doit être l'un de {choices} ; reçu : {v}"),
    (r"must be true or false, got (?P<t>an? \w+|null) ?(?P<v>.*)", "doit être true ou false, reçu : {t} {v}"),
    (r"must be an array, got (?P<t>.+)", "doit être une liste, reçu : {t}"),
    (r"must have (?P<n>\d+) numbers, got (?P<m>\d+)", "doit avoir {n} nombres, reçu : {m}"),
    (r"\[(?P<i>\d+)\] must be a finite number of at most (?P<m>\S+), got (?P<v>.+)",
     "[{i}] doit être un nombre fini d'au plus {m}, reçu : {v}"),
)
_TYPES = {"an object": "un objet", "an array": "une liste", "a string": "un texte", "a boolean": "un booléen",
          "a number": "un nombre", "an integer": "un nombre entier", "true or false": "true ou false",
          "null": "null"}


def french_where(where: str) -> str:
    """The place of a field in a request, in French (``the top level``: ``le corps entier``)."""
    return "le corps entier" if where == "the top level" else where


_SOURCES = {"request": "requête", "imported game": "partie importée", "game": "partie"}


def reader_message_fr(message: str) -> str | None:
    """Return the French of a field reader's message (``None`` when it is not one of its wordings).

    >>> reader_message_fr("imported game: ruleset is missing (a string is required)")
    'partie importée : ruleset manque (un texte attendu)'
    """
    for pattern, fr in _READER_FR:
        m = re.match(r"^(?P<source>[^:\n]+): (?P<where>.+?) ?" + pattern + "$", message, re.S)
        if m:
            parts = {k: _TYPES.get(v, v) for k, v in m.groupdict().items() if k not in ("where", "source")}
            sep = "" if fr.startswith("[") else " "
            source = _SOURCES.get(m.group("source"), m.group("source"))
            return f"{source} : {french_where(m.group('where'))}{sep}{fr.format(**parts).rstrip()}"
    return None


