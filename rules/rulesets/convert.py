"""The ``convert`` question: a length in another unit, without mental arithmetic.

``convert 12 in cm``, ``convert 4UD``, ``convert 30 cm pas``: a number, the unit it is
in (default: the rule set's) and the unit wanted (default: the rule set's, or
centimetres when the length is already in it). Units: mm, cm, in (also ``"``,
``inch``, ``pouce``), UD and pas. The rule set's own unit sizes come from
:mod:`calibration.units` through the rule set (an inch is 25.4 mm, a pas 25 mm, an AT-43
range band 10 cm, a Feu à Volonté UD 10, 20 or 40 mm by figure scale: its ``ud_mm``).

Sources: the units each rule set measures in (High Fire, Introduction: inches;
Grimdark Future Firefight: inches; Feu à Volonté, Échelle: the UD by figure scale;
AT-43, Portée: centimetres in bands of 10; Star Wars Grandes escarmouches: the pas).
"""

from __future__ import annotations

import math
import re
from typing import TYPE_CHECKING, Any, Mapping

from calibration.units import DEFAULT_UD_MM, LengthUnit, length_unit
from rules.errors import InvalidActionError
from rules.explain import Step, msg
from rules.plan import TablePlan
from rules.rulesets.answers import ConvertAnswer
from tabletracker.words import Said

if TYPE_CHECKING:
    from rules.rulesets.base import RuleSet
    from rules.rulesets.common import Args

#: Spellings players type -> unit key (English and French).
UNIT_WORDS: Mapping[str, str] = {
    "mm": "mm", "millimetre": "mm", "millimetres": "mm", "millimeter": "mm", "millimeters": "mm",
    "cm": "cm", "centimetre": "cm", "centimetres": "cm", "centimeter": "cm", "centimeters": "cm",
    "in": "in", '"': "in", "''": "in", "inch": "in", "inches": "in", "pouce": "in", "pouces": "in",
    "ud": "ud", "pas": "pas", "pace": "pas", "paces": "pas",
}
_NUMBER = re.compile(r"^\s*([+-]?(?:\d+(?:[.,]\d*)?|[.,]\d+))\s*(.*?)\s*$")
USAGE = "convert LENGTH [FROM_UNIT] [TO_UNIT]  (e.g. convert 12 in cm, convert 4UD, convert 30cm pas)"


def _unit_key(word: str) -> str:
    key = UNIT_WORDS.get(word.strip().lower())
    if key is None:
        raise InvalidActionError(f"convert: unknown unit {word!r}; units are mm, cm, in (or \"), UD and pas; "
                                 f"usage: {USAGE}", msg_id="convert.unknown_unit", params={"unit": word})
    return key


def parse_convert(raw: list[str]) -> tuple[float, str | None, str | None]:
    """Return ``(value, from_unit_key, to_unit_key)`` of ``convert``'s words (units ``None`` when left out).

    >>> parse_convert(["12", "in", "cm"])
    (12.0, 'in', 'cm')
    >>> parse_convert(["7,5cm", "to", "in"])
    (7.5, 'cm', 'in')
    >>> parse_convert(['6"'])
    (6.0, 'in', None)
    """
    words = [w for w in " ".join(raw).replace("->", " ").split() if w.lower() not in ("to", "en")]
    if not words:
        raise InvalidActionError(f"convert: give a length; usage: {USAGE}", msg_id="convert.no_length")
    found = _NUMBER.match(words[0])
    if found is None:
        raise InvalidActionError(f"convert: {words[0]!r} is not a number; usage: {USAGE}",
                                 msg_id="convert.not_number", params={"got": words[0]})
    value = float(found.group(1).replace(",", "."))
    if not math.isfinite(value):
        raise InvalidActionError(f"convert: the length must be a finite number, got {words[0]!r}",
                                 msg_id="convert.not_number", params={"got": words[0]})
    units = ([found.group(2)] if found.group(2) else []) + words[1:]
    if len(units) > 2:
        raise InvalidActionError(f"convert: too many words ({' '.join(raw)}); usage: {USAGE}",
                                 msg_id="convert.too_many", params={"given": " ".join(raw)})
    keys = [_unit_key(u) for u in units]
    return value, (keys[0] if keys else None), (keys[1] if len(keys) > 1 else None)


def _unit(rs: "RuleSet", key: str, opts: Mapping[str, Any]) -> LengthUnit:
    ud_mm = float(opts.get("ud_mm", DEFAULT_UD_MM))
    return length_unit(key, ud_mm=ud_mm)


def _fmt(v: float) -> str:
    return f"{v:.3f}".rstrip("0").rstrip(".")


def _len(v: float, unit: LengthUnit) -> str:
    """``12"``, ``30.48 cm``: a length as players write it."""
    return f"{_fmt(v)}{unit.symbol}" if unit.symbol == '"' else f"{_fmt(v)} {unit.symbol}"


def _len_words(v: float, unit: LengthUnit) -> Mapping[str, Any]:
    """:func:`_len` as a message, the number written in the reader's language."""
    return msg("answer.length_inch" if unit.symbol == '"' else "answer.length", value=round(v, 3), unit=unit.symbol)


def q_convert(rs: "RuleSet", plan: TablePlan, args: "Args", opts: Mapping[str, Any]) -> ConvertAnswer:
    """convert LENGTH [FROM] [TO]: a length in another unit (mm, cm, in, UD, pas), by default the rule set's."""
    value, src_key, dst_key = parse_convert(args.raw)
    own = rs.unit_key
    src_key = src_key or own
    if dst_key is None:
        dst_key = own if src_key != own else ("cm" if own != "cm" else "in")
    src, dst = _unit(rs, src_key, opts), _unit(rs, dst_key, opts)
    mm = src.to_mm(value)
    out = dst.from_mm(mm)
    steps = [Step("convert", f"{_len(value, src)} = {_fmt(mm)} mm = {_len(out, dst)}",
                  f"{rs.title}: lengths in {rs.unit(opts).name}", msg="convert.result",
                  params={"value": value, "from": src.symbol, "mm": round(mm, 3), "result": round(out, 3),
                          "to": dst.symbol})]
    if "ud" in (src_key, dst_key):
        ud = _unit(rs, "ud", opts).mm
        note = ("by figure scale (option ud_mm)" if rs.unit_key == "ud"
                else "Feu à Volonté's UD for 25-28 mm figures (this game does not measure in UD)")
        steps.append(Step("UD", f"1 UD = {_fmt(ud)} mm, {note}", "Feu à Volonté, Échelle",
                          option=rs.changed(opts, "ud_mm") if rs.unit_key == "ud" else None,
                          msg="convert.ud_scale" if rs.unit_key == "ud" else "convert.ud_default",
                          params={"mm": round(ud, 3)}))
    every = {k: round(_unit(rs, k, opts).from_mm(mm), 3) for k in ("mm", "cm", "in", "ud", "pas")}
    band: int | None = None
    if rs.name == "at-43":
        band = int(math.floor(mm / 100.0 + 1e-9)) if mm >= 0 else 0
        steps.append(Step("range band", f"{_fmt(mm / 10.0)} cm is portée {band} (bands of 10 cm)", "AT-43, Portée",
                          msg="convert.at43_band", params={"cm": round(mm / 10.0, 3), "band": band}))
    summary = Said(f"{_len(value, src)} = {_len(out, dst)}", "answer.convert", given=_len_words(value, src),
                   result=_len_words(out, dst))
    return ConvertAnswer(value, src.symbol, dst.symbol, mm, out, every, summary,
                         range_band=band, steps=tuple(steps))
