"""Feu à Volonté's words as messages: the pieces of explanation the edges say in French and English.

The steps and refusals of the rule set carry a message id (``fav.*``, texts in
``tabletracker/locale/fr.feu_a_volonte.po`` and ``en.feu_a_volonte.po``) and their
parameters. A phrase built in one place and read in another (a modifier's reason, a
cover reason) is a :class:`Phrase`: the English text, as before, that also knows its
message; :func:`said` turns it into a parameter.

Examples
--------
>>> p = Phrase("us-3 is prone", "fav.mod.prone", who="us-3")
>>> p == "us-3 is prone", said(p)["msg"], dict(said(p)["params"])
(True, 'fav.mod.prone', {'who': 'us-3'})
>>> import copy, pickle
>>> said(copy.deepcopy(p)) == said(p) == said(pickle.loads(pickle.dumps(p)))
True
>>> said("plain words")
'plain words'
>>> dict(id_list([])), id_list(["a", "b"])
({'msg': 'fav.none', 'params': FrozenDict({})}, ['a', 'b'])
>>> signed(2), signed(-1), signed(0)
('+2', '-1', '+0')
"""

from __future__ import annotations

from typing import Any, Iterable, Mapping, Sequence

from rules.explain import Step, msg
from rules.frozen import thaw
from tabletracker.words import Said

Phrase = Said
"""An English phrase (it is the ``str``) with the message id and parameters that say it in any language."""


def said(text: str) -> Mapping[str, Any] | str:
    """Return a phrase as a message parameter (``{"msg", "params"}``); a plain string stays itself."""
    if isinstance(text, Phrase):
        return msg(text.msg_id, **thaw(text.params))
    return text


def id_list(ids: Iterable[str]) -> list[str] | Mapping[str, Any]:
    """Return a list of ids as a parameter (joined by the edges), or the message "none" when it is empty."""
    out = list(ids)
    return out if out else msg("fav.none")


def signed(value: int) -> str:
    """Return a modifier with its sign (``+1``, ``-2``, ``+0``): whole numbers, no decimal mark to localise."""
    return f"{value:+d}"


LOCATION_MSG: Mapping[str, str] = {"jambe": "fav.location.leg", "bras": "fav.location.arm",
                                   "buste": "fav.location.chest", "tête": "fav.location.head"}
WHY_MSG: Mapping[str, str] = {"double six": "fav.why.double_six", "at least double the defence": "fav.why.double",
                              "head": "fav.why.head", "third wound": "fav.why.third_wound"}
WEATHER_MSG: Mapping[str, str] = {"vent": "fav.weather.wind", "brouillard": "fav.weather.fog",
                                  "pluie / neige": "fav.weather.rain", "beau temps": "fav.weather.fine"}
GRADE_MSG: Mapping[str, str] = {"leader": "fav.grade.leader", "second": "fav.grade.second",
                                "trooper": "fav.grade.trooper"}
ACTION_MSG: Mapping[str, str] = {
    "activation de groupe": "fav.act.group", "marcher": "fav.act.walk", "orientation": "fav.act.turn",
    "courir": "fav.act.run", "grimper / sauter": "fav.act.climb", "se dissimuler": "fav.act.hide",
    "repérage / fouiller": "fav.act.spot", "se désengager": "fav.act.disengage", "combat / grenade": "fav.act.combat",
    "recharger": "fav.act.reload", "tir d'opportunité": "fav.act.opportunity", "charger": "fav.act.charge",
}


EFFECT_MSG: Mapping[str, str] = {"jambe": "fav.effect.leg", "bras": "fav.effect.arm", "buste": "fav.effect.chest",
                                 "tête": "fav.effect.head"}


def cran_phrase(cran: int, quality: str) -> Phrase:
    """Return the defence's cran as a modifier reason (``cran +1 (elite)``)."""
    return Phrase(f"cran {cran:+d} ({quality})", "fav.mod.cran", cran=signed(cran), quality=quality_word(quality))


def modifier_step(value: int, reason: str, source: str) -> Step:
    """Return the explanation step of one modifier (``+1: weapon LMG, bonus +1``)."""
    return Step("modifier", f"{value:+d}: {reason}", source, value=value, msg="fav.modifier",
                params={"value": signed(value), "why": said(reason)})


def mod_list(mods: Sequence[tuple[int, str, str]]) -> list[Mapping[str, Any]]:
    """Return modifiers ``(value, reason, source)`` as a list parameter (``+1 (cran +1 (elite)), -1 (...)``)."""
    return [msg("fav.mod_item", value=signed(v), why=said(r)) for v, r, _ in mods]


def effect(loc: str) -> Mapping[str, Any] | str:
    """Return what a wound at ``loc`` does (``-1 in attack``...) as a message parameter."""
    return msg(EFFECT_MSG[loc]) if loc in EFFECT_MSG else loc


QUALITY_MSG: Mapping[str, str] = {"recrue": "fav.quality.recrue", "aguerri": "fav.quality.aguerri",
                                  "veteran": "fav.quality.veteran", "elite": "fav.quality.elite"}


def quality_word(name: str) -> Mapping[str, Any] | str:
    """Return a quality (``recrue``, ``aguerri``, ``veteran``, ``elite``) as a message parameter."""
    return msg(QUALITY_MSG[name]) if name in QUALITY_MSG else name


def location(loc: str) -> Mapping[str, Any] | str:
    """Return a hit location (``jambe``, ``bras``, ``buste``, ``tête``) as a message parameter."""
    return msg(LOCATION_MSG[loc]) if loc in LOCATION_MSG else loc


def why(reason: str) -> Mapping[str, Any] | str:
    """Return why a figure was killed (``double six``, ``head``...) as a message parameter."""
    return msg(WHY_MSG[reason]) if reason in WHY_MSG else reason


def weather_word(kind: str) -> Mapping[str, Any] | str:
    """Return a weather (``vent``, ``brouillard``...) as a message parameter."""
    return msg(WEATHER_MSG[kind]) if kind in WEATHER_MSG else kind


def grade(role: str) -> Mapping[str, Any] | str:
    """Return a grade (``leader``, ``second``, ``trooper``) as a message parameter."""
    return msg(GRADE_MSG[role]) if role in GRADE_MSG else role


def action_word(action: str) -> Mapping[str, Any] | str:
    """Return an action of the book's cost table (``marcher``...) as a message parameter."""
    return msg(ACTION_MSG[action]) if action in ACTION_MSG else action
