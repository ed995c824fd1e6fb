"""Lengths typed at the command line: a number in the rule set's unit, or with its unit.

``3`` is 3 of the game's unit (inches for High Fire and Firefight, cm for AT-43, UD for
Feu à Volonté, pas for Star Wars); ``3in``, ``3"``, ``7.5cm``, ``76mm``, ``4UD``, ``6pas``
say their unit. A UD is the Feu à Volonté game's (40 mm unless the ``ud_mm`` option says
10 or 20); a pas is 25 mm (see ``docs/units.md``).

:func:`convert_length_args` rewrites a question's arguments into what the rules core
expects, using the question's usage line (``template X_MM Y_MM RADIUS_MM``,
``range FIRING TARGET --weapon-range INCHES``): a positional named ``*_MM`` is in mm, one
named ``*_INCHES`` in inches, a flag whose value is named ``INCHES``, ``CM``, ``UD``,
``PAS`` or ``MM`` in that unit. Positions on the table (``X_MM``, ``Y_MM``) take mm when
no unit is given, like the game file; every other length takes the rule set's unit.

>>> from calibration.units import UNITS
>>> parse_length_mm("3in", UNITS["cm"])
76.2
>>> parse_length_mm("3", UNITS["in"])
76.2
>>> parse_length_mm("4UD", UNITS["in"], ud_mm=20)
80.0
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from calibration.units import DEFAULT_UD_MM, UNITS, LengthUnit
from tabletracker.errors import UsageError
from tabletracker.i18n import worded

# suffix as typed (lower case) -> key in calibration.units.UNITS
SUFFIXES: dict[str, str] = {
    "mm": "mm", "cm": "cm", "in": "in", "inch": "in", "inches": "in", '"': "in", "''": "in",
    "ud": "ud", "pas": "pas",
}
# a usage line's value name -> the unit the rules core reads it in ("" = the rule set's unit)
VALUE_NAMES: dict[str, str] = {"MM": "mm", "CM": "cm", "INCHES": "in", "UD": "ud", "PAS": "pas"}
POSITION_NAMES = ("X_MM", "Y_MM")
_LENGTH = re.compile(r"^\s*([+-]?(?:\d+(?:[.,]\d*)?|[.,]\d+))\s*([a-zA-Z\"']*)\s*$")


class LengthError(UsageError):
    """A length that cannot be read, with the forms that can."""


def unit_named(key: str, *, ud_mm: float = DEFAULT_UD_MM) -> LengthUnit:
    """Return the unit ``key`` of :data:`calibration.units.UNITS`, a UD of ``ud_mm``."""
    if key == "ud":
        return LengthUnit("UD", "UD", ud_mm)
    return UNITS[key]


def split_length(text: str) -> tuple[float, str | None]:
    """Return (number, unit key or None) of a typed length.

    >>> split_length("7,5 cm")
    (7.5, 'cm')
    >>> split_length("12")
    (12.0, None)
    """
    match = _LENGTH.match(text)
    if match is None:
        raise worded(LengthError, "cli.length_unreadable", value=repr(text))
    number = float(match.group(1).replace(",", "."))
    suffix = match.group(2).lower()
    if not suffix:
        return number, None
    if suffix not in SUFFIXES:
        raise worded(LengthError, "cli.length_unknown_unit", value=repr(text), unit=repr(match.group(2)))
    if not math.isfinite(number):
        raise worded(LengthError, "cli.length_not_finite", value=repr(text))
    return number, SUFFIXES[suffix]


def parse_length_mm(text: str, default: LengthUnit, *, ud_mm: float = DEFAULT_UD_MM) -> float:
    """Return the length typed as ``text`` in mm; a bare number is in ``default``.

    Raises
    ------
    LengthError
        ``text`` is not a number with an optional known unit.
    """
    number, key = split_length(text)
    unit = default if key is None else unit_named(key, ud_mm=ud_mm)
    return round(unit.to_mm(number), 9)


def looks_like_length(text: str) -> bool:
    """Tell whether ``text`` is typed as a length: a number, then letters if any (not an id like ``m1``).

    ``3parsecs`` is typed as a length (and refused with the units there are).

    >>> looks_like_length("3parsecs"), looks_like_length("m1")
    (True, False)
    """
    return _LENGTH.match(text) is not None


@dataclass(frozen=True)
class Usage:
    """What a question's usage line says about its arguments."""

    positional: tuple[str, ...]
    flags: Mapping[str, str | None]  # flag -> value name, None for an on/off flag

    @classmethod
    def parse(cls, line: str) -> Usage:
        """Read ``name ARG ARG [OPT] [--flag VALUE] [--switch]`` (the first form only).

        >>> Usage.parse("range FIRING TARGET [--weapon-range PAS] [--no-long]").flags
        {'weapon-range': 'PAS', 'no-long': None}
        """
        head = line.split(":", 1)[0].split("(or ", 1)[0]
        words = head.split()[1:]
        positional: list[str] = []
        flags: dict[str, str | None] = {}
        i = 0
        while i < len(words):
            word = words[i].strip("[]")
            if word.startswith("--"):
                name, _, value = word[2:].partition("=")
                takes_value = not words[i].endswith("]") and i + 1 < len(words) \
                    and not words[i + 1].lstrip("[").startswith("--")
                if not value and takes_value:
                    i += 1
                    value = words[i].strip("[]")
                flags[name] = value or None
            else:
                positional.append(word)  # an optional positional keeps its place too
            i += 1
        return cls(tuple(positional), flags)


def _target_unit(name: str) -> str | None:
    """Return the unit key the core reads a value named ``name`` in, or None if not a length."""
    if name in VALUE_NAMES:
        return VALUE_NAMES[name]
    for suffix, key in (("_MM", "mm"), ("_INCHES", "in"), ("_CM", "cm"), ("_UD", "ud"), ("_PAS", "pas")):
        if name.endswith(suffix):
            return key
    return None


def _converted(text: str, name: str, target_key: str, game_unit: LengthUnit, ud_mm: float) -> str:
    default = UNITS["mm"] if name in POSITION_NAMES else game_unit
    value_mm = parse_length_mm(text, default, ud_mm=ud_mm)
    if value_mm < 0 and name not in POSITION_NAMES:
        shown = re.sub(r"_(MM|INCHES|CM|UD|PAS)$", "", name).lower().replace("_", " ")
        raise worded(LengthError, "cli.length_negative", name=shown, value=repr(text))
    value = unit_named(target_key, ud_mm=ud_mm).from_mm(value_mm)
    return f"{round(value, 6):g}"


def convert_length_args(usage_line: str, args: Sequence[str], game_unit: LengthUnit, *,
                        ud_mm: float = DEFAULT_UD_MM) -> list[str]:
    """Return ``args`` with every length written as the number the rules core expects.

    A token that does not read as a length is left as it is, for the core to refuse with
    its own message (an id in place of a number, a typo).

    >>> from calibration.units import UNITS
    >>> convert_length_args("template X_MM Y_MM RADIUS_MM", ["300", "30cm", "3"], UNITS["in"])
    ['300', '300', '76.2']
    >>> convert_length_args("jump GAP_INCHES [--drop INCHES]", ["5cm", "--drop", "2"], UNITS["in"])
    ['1.9685', '--drop', '2']
    """
    usage = Usage.parse(usage_line)
    out: list[str] = []
    position = 0
    i = 0
    while i < len(args):
        tok = args[i]
        if tok.startswith("--") and len(tok) > 2:
            name, eq, value = tok[2:].partition("=")
            value_name = usage.flags.get(name)
            target = _target_unit(value_name) if value_name else None
            if eq:
                out.append(f"--{name}={_converted(value, '--' + name, target, game_unit, ud_mm)}"
                           if target and looks_like_length(value) else tok)
            else:
                out.append(tok)
                if value_name is not None and i + 1 < len(args):
                    i += 1
                    nxt = args[i]
                    out.append(_converted(nxt, "--" + name, target, game_unit, ud_mm)
                               if target and looks_like_length(nxt) else nxt)
        else:
            name = usage.positional[position] if position < len(usage.positional) else ""
            target = _target_unit(name)
            out.append(_converted(tok, name, target, game_unit, ud_mm)
                       if target and looks_like_length(tok) else tok)
            position += 1
        i += 1
    return out


REQUEST_SUFFIXES = (("_mm", "mm"), ("_cm", "cm"), ("_in", "in"), ("_ud", "ud"), ("_pas", "pas"))
"""An action's request keys that are lengths, by the unit their name ends with (``distance_in``, ``move_pas``)."""


def convert_length_request(request: Mapping[str, object], *, ud_mm: float = DEFAULT_UD_MM) -> dict[str, object]:
    """Return ``request`` with each length value (a key ending in ``_mm``, ``_cm``, ``_in``, ``_ud`` or
    ``_pas``) written in the key's own unit; a bare number already is, a suffix converts it.

    >>> convert_length_request({"model": "m1", "distance_in": "15.24cm", "move_pas": "4"})
    {'model': 'm1', 'distance_in': '6', 'move_pas': '4'}

    Raises
    ------
    LengthError
        A value that is not a length, or a negative one.
    """
    out = dict(request)
    for key, value in request.items():
        unit_key = next((k for suffix, k in REQUEST_SUFFIXES if key.endswith(suffix)), None)
        if unit_key is None or not isinstance(value, str) or not value.strip():
            continue
        unit = unit_named(unit_key, ud_mm=ud_mm)
        value_mm = parse_length_mm(value.strip(), unit, ud_mm=ud_mm)
        if value_mm < 0:
            raise worded(LengthError, "cli.length_negative", name=key, value=repr(value))
        out[key] = f"{round(unit.from_mm(value_mm), 6):g}"
    return out
