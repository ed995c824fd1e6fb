"""One set of limits for every document that enters the program.

The game file, an imported game, a roster (JSON or YAML), an API request body and
the command line all pass through :func:`check_tree` (or :func:`parse_json_bounded`
/ :func:`load_yaml_bounded`, which call it), so one hostile or careless document is
refused the same way wherever it comes in, with a message naming the limit:

* numbers are finite (no ``NaN`` / ``Infinity``) and at most :data:`MAX_ABS_NUMBER`
  in size; a length in millimetres (a key ending in ``_mm``) at most
  :data:`MAX_COORD_MM`;
* a count of dice, attacks or ranks (:data:`COUNT_KEYS`) at most :data:`MAX_COUNT`;
* strings at most :data:`MAX_STRING` characters (names and ids :data:`MAX_NAME`);
* lists at most :data:`MAX_LIST` items (models :data:`MAX_MODELS`), objects at most
  :data:`MAX_KEYS` keys, nesting at most :data:`MAX_DEPTH` levels, the whole
  document at most :data:`MAX_NODES` values;
* YAML aliases (``&a`` / ``*a``) are refused before they are expanded: a roster never
  needs them, and a few of them can stand for millions of values.

Hand-written rather than ``jsonschema``: the limits are the same for every key of
free-form rule-set data (``extra``, ``profiles``, ``weapons``), which a schema
library cannot say more briefly, and the rest of each file is already checked field
by field by :class:`calibration.fields.Reader`.

Examples
--------
>>> check_tree({"x_mm": 12.5, "name": "Sergent"}, source="game.json", error=ValueError)
>>> check_tree({"x_mm": float("nan")}, source="game.json", error=ValueError)
Traceback (most recent call last):
...
ValueError: game.json: x_mm must be a finite number, got nan
>>> parse_json_bounded('{"a": NaN}', source="request", error=ValueError)
Traceback (most recent call last):
...
ValueError: request: NaN is not a number JSON allows; send a finite number
>>> parse_json_bounded("[" * 100 + "]" * 100, source="request", error=ValueError)
Traceback (most recent call last):
...
ValueError: request: nested more than 24 levels deep; the limit is 24
>>> load_yaml_bounded("a: &x [1]\\nb: *x\\n", source="roster.yaml", error=ValueError)
Traceback (most recent call last):
...
ValueError: roster.yaml: line 2: YAML aliases (*name) are not accepted; write the values out in full
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from typing import Any, NoReturn

MAX_DEPTH = 24
MAX_NODES = 100_000
MAX_LIST = 2_000
MAX_MODELS = 500
MAX_KEYS = 500
MAX_STRING = 4_000
MAX_NAME = 200
MAX_ABS_NUMBER = 2**63  # a seed is up to 2**63 - 1; larger integers are typos or attacks
MAX_COORD_MM = 100_000.0
MAX_COUNT = 100
MAX_TEXT_BYTES = 2 * 1024 * 1024
MAX_TABLE_MM = 10_000.0

NAME_KEYS = frozenset({"id", "name", "side", "kind", "profile", "weapon", "unit", "model", "ruleset"})
# Numbers that say how many dice a rule rolls (Firefight ``attacks``, Star Wars ``A`` and
# ``Cad``, AT-43 dice and rate, High Fire ranks, Feu à Volonté reserve dice).
COUNT_KEYS = frozenset({"attacks", "A", "Cad", "shots", "dice", "rate", "reserve", "rank", "count"})


def _fail(error: type[ValueError], source: str, message: str, fr: str | None = None) -> NoReturn:
    """Raise ``error`` naming ``source``; ``fr`` (the French words) rides along as ``message_fr``."""
    exc = error(f"{source}: {message}")
    if fr is not None:
        exc.message_fr = f"{source} : {fr}"  # type: ignore[attr-defined]
    raise exc


# The JSON parser's words, in ours (never Python's own messages in an answer): English, French.
_JSON_WORDS = {
    "Expecting value": ("a value is expected", "une valeur est attendue"),
    "Expecting ',' delimiter": ("a comma is expected", "une virgule est attendue"),
    "Expecting ':' delimiter": ("a colon is expected", "deux-points sont attendus"),
    "Expecting property name enclosed in double quotes": ("a key in double quotes is expected",
                                                          "une clé entre guillemets est attendue"),
    "Unterminated string starting at": ("a text is not closed", "un texte n'est pas fermé"),
    "Invalid control character at": ("a control character is inside a text",
                                     "un caractère de contrôle est dans un texte"),
    "Invalid \\escape": ("a backslash escape is wrong", "un échappement par barre oblique est faux"),
    "Extra data": ("something follows the end of the document", "quelque chose suit la fin du document"),
}


def check_tree(data: Any, *, source: str, error: type[ValueError], path: str = "") -> None:
    """Refuse ``data`` (parsed JSON or YAML) when it breaks one of the module's limits."""
    nodes = 0
    stack: list[tuple[Any, str, int]] = [(data, path, 0)]
    while stack:
        value, where, depth = stack.pop()
        nodes += 1
        if nodes > MAX_NODES:
            _fail(error, source, f"holds more than {MAX_NODES} values; the limit is {MAX_NODES}",
                  f"contient plus de {MAX_NODES} valeurs ; la limite est {MAX_NODES}")
        if depth > MAX_DEPTH:
            _fail(error, source, f"{where or 'the document'} is nested more than {MAX_DEPTH} levels deep; "
                  f"the limit is {MAX_DEPTH}", f"{where or 'le document'} est imbriqué sur plus de {MAX_DEPTH} "
                  f"niveaux ; la limite est {MAX_DEPTH}")
        key = where.rsplit(".", 1)[-1].split("[", 1)[0] if where else ""
        label = where or "the document"
        if isinstance(value, bool) or value is None:
            continue
        if isinstance(value, int):
            if abs(value) > MAX_ABS_NUMBER:
                _fail(error, source, f"{label} is too large ({str(value)[:12]}...); numbers are at most "
                      f"{MAX_ABS_NUMBER:g} in size", f"{label} est trop grand ({str(value)[:12]}...) ; les nombres "
                      f"valent au plus {MAX_ABS_NUMBER:g}")
            _check_number(float(value), key, label, source, error)
        elif isinstance(value, float):
            if not math.isfinite(value):
                _fail(error, source, f"{label} must be a finite number, got {value!r}",
                      f"{label} doit être un nombre fini, reçu {value!r}")
            if abs(value) > MAX_ABS_NUMBER:
                _fail(error, source,
                      f"{label} is too large ({value:g}); numbers are at most {MAX_ABS_NUMBER:g} in size",
                      f"{label} est trop grand ({value:g}) ; les nombres valent au plus {MAX_ABS_NUMBER:g}")
            _check_number(value, key, label, source, error)
        elif isinstance(value, str):
            if key in COUNT_KEYS and value.strip().isdigit() and len(value.strip()) < 30:
                _check_number(float(value.strip()), key, label, source, error)  # "attacks=1000" typed as text
            limit = MAX_NAME if key in NAME_KEYS else MAX_STRING
            if len(value) > limit:
                _fail(error, source, f"{label} is {len(value)} characters long; the limit is {limit}",
                      f"{label} fait {len(value)} caractères ; la limite est {limit}")
        elif isinstance(value, (list, tuple)):
            limit = MAX_MODELS if key == "models" else MAX_LIST
            if len(value) > limit:
                _fail(error, source, f"{label} has {len(value)} items; the limit is {limit}",
                      f"{label} a {len(value)} éléments ; la limite est {limit}")
            stack.extend((item, f"{where}[{i}]", depth + 1) for i, item in enumerate(value))
        elif isinstance(value, Mapping):
            if len(value) > MAX_KEYS:
                _fail(error, source, f"{label} has {len(value)} keys; the limit is {MAX_KEYS}",
                      f"{label} a {len(value)} clés ; la limite est {MAX_KEYS}")
            for k, item in value.items():
                if not isinstance(k, str):
                    _fail(error, source, f"{label} has a key that is not text ({str(k)[:20]}); keys are text",
                          f"{label} a une clé qui n'est pas du texte ({str(k)[:20]}) ; les clés sont du texte")
                if len(k) > MAX_NAME:
                    _fail(error, source, f"{label} has a key of {len(k)} characters; the limit is {MAX_NAME}",
                          f"{label} a une clé de {len(k)} caractères ; la limite est {MAX_NAME}")
                stack.append((item, f"{where}.{k}" if where else k, depth + 1))
        else:
            _fail(error, source, f"{label} holds a {type(value).__name__}, which JSON does not have",
                  f"{label} contient un {type(value).__name__}, que JSON ne connaît pas")


def check_game_tree(data: Any, *, source: str, error: type[ValueError]) -> None:
    """:func:`check_tree`, plus a table of at most :data:`MAX_TABLE_MM` a side (a game file or import).

    >>> check_game_tree({"table": {"width_mm": 20000, "depth_mm": 600}}, source="game.json", error=ValueError)
    Traceback (most recent call last):
    ...
    ValueError: game.json: table.width_mm is 20000 mm; a table is at most 10000 mm (10 m) a side
    """
    check_tree(data, source=source, error=error)
    table = data.get("table") if isinstance(data, Mapping) else None
    if isinstance(table, Mapping):
        for key in ("width_mm", "depth_mm"):
            value = table.get(key)
            if isinstance(value, (int, float)) and not isinstance(value, bool) and value > MAX_TABLE_MM:
                _fail(error, source, f"table.{key} is {value:g} mm; a table is at most {MAX_TABLE_MM:g} mm "
                      f"({MAX_TABLE_MM / 1000:g} m) a side", f"table.{key} vaut {value:g} mm ; une table fait "
                      f"au plus {MAX_TABLE_MM:g} mm ({MAX_TABLE_MM / 1000:g} m) de côté")


def _check_number(value: float, key: str, label: str, source: str, error: type[ValueError]) -> None:
    if key.endswith("_mm") and abs(value) > MAX_COORD_MM:
        _fail(error, source, f"{label} is {value:g} mm; lengths and coordinates are at most "
              f"{MAX_COORD_MM:g} mm (100 m)", f"{label} vaut {value:g} mm ; longueurs et coordonnées valent "
              f"au plus {MAX_COORD_MM:g} mm (100 m)")
    if key in COUNT_KEYS and value > MAX_COUNT:
        _fail(error, source, f"{label} is {value:g}; a count of dice, attacks or ranks is at most {MAX_COUNT}",
              f"{label} vaut {value:g} ; un nombre de dés, d'attaques ou de rangs vaut au plus {MAX_COUNT}")


def _reject_constant(name: str) -> NoReturn:
    raise _Constant(name)


class _Constant(Exception):
    pass


class _Refused(Exception):
    pass


def nesting_depth(text: str) -> int:
    """Return the deepest ``[``/``{`` nesting of JSON ``text`` (strings skipped), cheaply.

    >>> nesting_depth('{"a": [1, "[[["]}')
    2
    """
    depth = deepest = 0
    in_string = escaped = False
    for ch in text:
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "[{":
            depth += 1
            if depth > deepest:
                deepest = depth
        elif ch in "]}":
            depth -= 1
    return deepest


def parse_json_bounded(text: str, *, source: str, error: type[ValueError]) -> Any:
    """Parse JSON ``text`` within the limits: depth first (before recursion), no NaN/Infinity,
    then :func:`check_tree`."""
    if len(text) > MAX_TEXT_BYTES:
        _fail(error, source, f"is {len(text) // 1024} KiB; the limit is {MAX_TEXT_BYTES // 1024} KiB",
              f"fait {len(text) // 1024} Kio ; la limite est {MAX_TEXT_BYTES // 1024} Kio")
    if nesting_depth(text) > MAX_DEPTH:
        _fail(error, source, f"nested more than {MAX_DEPTH} levels deep; the limit is {MAX_DEPTH}",
              f"imbriqué sur plus de {MAX_DEPTH} niveaux ; la limite est {MAX_DEPTH}")
    try:
        data = json.loads(text, parse_constant=_reject_constant)
    except _Constant as exc:
        _fail(error, source, f"{exc} is not a number JSON allows; send a finite number",
              f"{exc} n'est pas un nombre permis en JSON ; envoyez un nombre fini")
    except json.JSONDecodeError as exc:
        en, fr = _JSON_WORDS.get(exc.msg, ("syntax error", "erreur de syntaxe"))
        _fail(error, source, f"not valid JSON (line {exc.lineno}, column {exc.colno}: {en})",
              f"JSON non valide (ligne {exc.lineno}, colonne {exc.colno} : {fr})")
    except (ValueError, RecursionError):  # an integer of thousands of digits
        _fail(error, source, f"holds a number too large to read; numbers are at most {MAX_ABS_NUMBER:g} in size",
              f"contient un nombre trop grand pour être lu ; les nombres valent au plus {MAX_ABS_NUMBER:g}")
    check_tree(data, source=source, error=error)
    return data


def load_yaml_bounded(text: str, *, source: str, error: type[ValueError]) -> Any:
    """Parse YAML ``text`` safely: aliases and deep nesting refused before anything is built."""
    import yaml

    if len(text) > MAX_TEXT_BYTES:
        _fail(error, source, f"is {len(text) // 1024} KiB; the limit is {MAX_TEXT_BYTES // 1024} KiB",
              f"fait {len(text) // 1024} Kio ; la limite est {MAX_TEXT_BYTES // 1024} Kio")
    depth = 0
    try:
        for event in yaml.parse(text, Loader=yaml.SafeLoader):
            if isinstance(event, yaml.AliasEvent):
                line = event.start_mark.line + 1 if event.start_mark else 0
                raise _Refused(f"line {line}: YAML aliases (*name) are not accepted; write the values out in full",
                               f"ligne {line} : les alias YAML (*nom) ne sont pas acceptés ; "
                               "écrivez les valeurs en entier")
            if isinstance(event, (yaml.SequenceStartEvent, yaml.MappingStartEvent)):
                depth += 1
                if depth > MAX_DEPTH:
                    raise _Refused(f"nested more than {MAX_DEPTH} levels deep; the limit is {MAX_DEPTH}",
                                   f"imbriqué sur plus de {MAX_DEPTH} niveaux ; la limite est {MAX_DEPTH}")
            elif isinstance(event, (yaml.SequenceEndEvent, yaml.MappingEndEvent)):
                depth -= 1
        data = yaml.safe_load(text)
    except _Refused as exc:
        _fail(error, source, exc.args[0], exc.args[1])
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" (line {mark.line + 1}, column {mark.column + 1})" if mark is not None else ""
        problem = getattr(exc, "problem", None) or "syntax error"
        where_fr = f" (ligne {mark.line + 1}, colonne {mark.column + 1})" if mark is not None else ""
        _fail(error, source, f"not valid YAML{where}: {problem}", f"YAML non valide{where_fr} : {problem}")
    except (ValueError, RecursionError, OverflowError):
        _fail(error, source, "holds a value YAML cannot read (a number too large?)",
              "contient une valeur que YAML ne peut pas lire (un nombre trop grand ?)")
    check_tree(data, source=source, error=error)
    return data
