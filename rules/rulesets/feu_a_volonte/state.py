"""Feu à Volonté's game state (the plan's ``state``) as typed, frozen records, read and written at the JSON edge.

What the rule set keeps between actions (Activation et séquence d'un tour, Les Actions,
Rôle du leader et du second, Compétences, La météo, Initiative, Fin de partie):

* ``turn``: the turn being played (absent: turn 1);
* ``activation``: the figures acting now, their side, the action points left and the radio
  surcharge (+1 PA on a figure's first action);
* ``losses``: figures lost per side (the 3/4 end of the game);
* ``chance_used``: figures that used Chance de cocu this turn;
* ``reserve_used``: per side, the leader's and the second's reserve dice spent this game;
* ``weather``: the weather rolled (``vent``, ``brouillard``, ``pluie / neige``, ``beau temps``)
  and the wind's d8;
* ``initiative``: the side that starts;
* ``budget``: the recruitment budget in PdR.

Keys the rule set does not own (written by other parts of the program) are kept as they
are in ``other``. :meth:`FavState.from_json` refuses a malformed value with a message in
French and English; :meth:`FavState.to_json` writes back only the keys that are set, so a
state round-trips to the same JSON.

Examples
--------
>>> s = FavState.from_json({"turn": 2, "losses": {"US": 1}, "activation": {"side": "US", "figures": ["us-2"],
...                         "ap_left": 3, "surcharge": {}}, "note": "kept"})
>>> s.turn, s.losses["US"], s.activation.ap_left if s.activation else None, s.other["note"]
(2, 1, 3, 'kept')
>>> s.to_json() == {"turn": 2, "losses": {"US": 1}, "activation": {"side": "US", "figures": ["us-2"],
...                 "ap_left": 3, "surcharge": {}}, "note": "kept"}
True
>>> FavState.from_json(None) == FavState() and FavState().to_json() == {}
True
>>> FavState.from_json({"turn": "two"})
Traceback (most recent call last):
...
rules.errors.GameFileError: game state: turn must be a whole number of at least 1, got 'two'
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any, Mapping

from rules.errors import GameFileError
from rules.explain import msg
from rules.frozen import EMPTY, freeze, thaw
from rules.plan import TablePlan
from rules.rulesets.records import GameState

WEATHER_KINDS = ("vent", "brouillard", "pluie / neige", "beau temps")


def _bad(where: str, expected: str, value: Any) -> GameFileError:
    words = {"count": "a whole number of at least 0", "turn": "a whole number of at least 1", "text": "a text",
             "texts": "a list of texts", "object": "an object", "weather": ", ".join(WEATHER_KINDS), "d8": "1 to 8"}
    return GameFileError(f"game state: {where} must be {words[expected]}, got {value!r}", msg_id="fav.state.bad",
                         params={"field": where, "expected": msg(f"fav.state.expect.{expected}"),
                                 "value": repr(value)})


def _count(where: str, value: Any, *, least: int = 0, expected: str = "count") -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < least:
        raise _bad(where, expected, value)
    return value


def _text(where: str, value: Any) -> str:
    if not isinstance(value, str):
        raise _bad(where, "text", value)
    return value


def _texts(where: str, value: Any) -> tuple[str, ...]:
    if not isinstance(value, (list, tuple)) or not all(isinstance(v, str) for v in value):
        raise _bad(where, "texts", value)
    return tuple(value)


def _object(where: str, value: Any) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise _bad(where, "object", value)
    return value


def _counts(where: str, value: Any) -> Mapping[str, int]:
    return freeze({str(k): _count(f"{where}.{k}", v) for k, v in _object(where, value).items()})  # type: ignore[no-any-return]


@dataclass(frozen=True)
class Activation:
    """The figures acting now (Activation): their side, the action points left, the radio surcharge per figure."""

    side: str
    figures: tuple[str, ...]
    ap_left: int
    surcharge: Mapping[str, int] = field(default=EMPTY)

    @classmethod
    def from_json(cls, data: Any) -> "Activation":
        d = _object("activation", data)
        return cls(_text("activation.side", d.get("side")), _texts("activation.figures", d.get("figures")),
                   _count("activation.ap_left", d.get("ap_left")),
                   _counts("activation.surcharge", d.get("surcharge", {})))

    def to_json(self) -> dict[str, Any]:
        return {"side": self.side, "figures": list(self.figures), "ap_left": self.ap_left,
                "surcharge": dict(self.surcharge)}


@dataclass(frozen=True)
class Weather:
    """The weather rolled (La météo) and, for wind, the d8 of the direction it blows from."""

    kind: str
    wind_d8: int | None = None

    @classmethod
    def from_json(cls, data: Any) -> "Weather":
        d = _object("weather", data)
        kind = d.get("kind")
        if kind not in WEATHER_KINDS:
            raise _bad("weather.kind", "weather", kind)
        wind = d.get("wind_d8")
        if wind is not None and (isinstance(wind, bool) or not isinstance(wind, int) or not 1 <= wind <= 8):
            raise _bad("weather.wind_d8", "d8", wind)
        return cls(str(kind), wind)

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, **({"wind_d8": self.wind_d8} if self.wind_d8 is not None else {})}


@dataclass(frozen=True)
class FavState(GameState):
    """Feu à Volonté's game state; ``None`` (or empty) fields are absent from the JSON.

    ``other`` as for every :class:`rules.rulesets.records.GameState`; ``written``: the own keys
    the JSON had, written back even when empty.
    """

    turn: int | None = None
    activation: Activation | None = None
    losses: Mapping[str, int] = field(default=EMPTY)
    chance_used: tuple[str, ...] | None = None
    reserve_used: Mapping[str, Mapping[str, int]] = field(default=EMPTY)
    weather: Weather | None = None
    initiative: str | None = None
    budget: int | None = None

    @classmethod
    def from_json(cls, data: Mapping[str, Any] | None) -> "FavState":
        """Read a plan's ``state``; a malformed value is refused (:class:`rules.errors.GameFileError`)."""
        return cls(**cls.read(thaw(data) if data else {}, {
            "turn": lambda k, v: None if v is None else _count(k, v, least=1, expected="turn"),
            "activation": lambda k, v: Activation.from_json(v) if v else None,
            "losses": _counts,
            "chance_used": lambda k, v: None if v is None else _texts(k, v),
            "reserve_used": lambda k, v: freeze({str(side): _counts(f"{k}.{side}", per)
                                                 for side, per in _object(k, v).items()}),
            "weather": lambda k, v: Weather.from_json(v) if v else None,
            "initiative": lambda k, v: None if v is None else _text(k, v),
            "budget": lambda k, v: None if v is None else _count(k, v),
        }))

    def to_json(self) -> dict[str, Any]:
        """Return the plan's ``state`` JSON: the keys set, and the keys of others as they were."""
        out: dict[str, Any] = thaw(self.other)
        own: dict[str, Any] = {
            "turn": self.turn, "activation": self.activation.to_json() if self.activation else None,
            "losses": dict(self.losses) if self.losses or "losses" in self.written else None,
            "chance_used": list(self.chance_used) if self.chance_used is not None else None,
            "reserve_used": thaw(self.reserve_used) if self.reserve_used or "reserve_used" in self.written else None,
            "weather": self.weather.to_json() if self.weather else None,
            "initiative": self.initiative, "budget": self.budget,
        }
        out.update({k: v for k, v in own.items() if v is not None})
        return out

    def on(self, plan: TablePlan) -> TablePlan:
        """Return ``plan`` with this state (the plan itself when nothing changed)."""
        new = self.to_json()
        return plan if new == thaw(plan.state or {}) else plan.with_state(new)

    def replace(self, **changes: Any) -> "FavState":
        """Return a copy with ``changes`` (field names as in the dataclass)."""
        return dataclasses.replace(self, **changes)


def state_json(plan: TablePlan) -> dict[str, Any]:
    """Return the plan's state JSON as this rule set reads it (refusing a malformed one)."""
    return FavState.of(plan).to_json()
