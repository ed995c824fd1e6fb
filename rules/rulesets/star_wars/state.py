"""Star Wars Grandes escarmouches' game state: one frozen record, read and written only at the JSON edge.

The game file keeps the state as JSON (``plan.state``); the rule set's actions read it with
:meth:`StarWarsState.of` (which refuses a malformed value with a French and English
message) and write it back with :meth:`StarWarsState.on`, never by string keys. The JSON
stays what it was: the keys every action fills in (``turn``, ``activated``, ``phases``,
``active_powers``, ``dead``), the others only once an action wrote them, and keys this
rule set does not know kept as they are.

Sources: Déroulement d'un tour de jeu (initiative), Phases d'activation (hero phases),
Activation d'une figurine (two actions), Utilisation de la Force (powers lasting the turn),
Règles additionnelles (Médico brings back the dead).

Examples
--------
>>> st = StarWarsState.from_json({"turn": 2, "phases": [{"side": "empire", "hero": "o1", "figures": ["s1"]}]})
>>> st.turn, st.phases[0].hero, st.phases[0].figures, st.initiative
(2, 'o1', ('s1',), None)
>>> st.with_(initiative="rebels").to_json()["phases"]
[{'side': 'empire', 'hero': 'o1', 'figures': ['s1']}]
>>> StarWarsState.from_json({"turn": 0})
Traceback (most recent call last):
...
rules.errors.GameFileError: the game state's 'turn' must be a whole number >= 1, got 0
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Mapping, Sequence

from rules.errors import GameFileError
from rules.explain import msg
from rules.frozen import EMPTY, freeze, thaw
from rules.plan import Model
from rules.rulesets.records import GameState, state_refusal

#: Keys every action writes (with their defaults); the others appear once written.
ALWAYS = ("turn", "activated", "phases", "active_powers", "dead")


def _bad(key: str, want: str, english: str, value: Any) -> GameFileError:
    return state_refusal(key, english, thaw(value), msg_id="star_wars.state.bad",
                         want=msg(f"star_wars.state.want.{want}"))


def _turn(key: str, v: Any) -> int:
    if isinstance(v, bool) or not isinstance(v, int) or v < 1:
        raise _bad(key, "turn", "a whole number >= 1", v)
    return v


def _name(key: str, v: Any) -> str | None:
    if v is not None and not isinstance(v, str):
        raise _bad(key, "name", "a side or figure name, or null", v)
    return v


def _text(key: str, v: Any) -> str:
    if not isinstance(v, str):
        raise _bad(key, "name", "a name", v)
    return v


def _names(key: str, v: Any) -> tuple[str, ...]:
    if isinstance(v, (str, bytes)) or not isinstance(v, Sequence) or not all(isinstance(x, str) for x in v):
        raise _bad(key, "names", "a list of names", v)
    return tuple(v)


def _list(key: str, v: Any, item: Callable[[str, Any], Any]) -> tuple[Any, ...]:
    if isinstance(v, (str, bytes)) or not isinstance(v, Sequence):
        raise _bad(key, "list", "a list", v)
    return tuple(item(f"{key}.{i}", x) for i, x in enumerate(v))


def _table(key: str, v: Any, value: Callable[[str, Any], Any]) -> Mapping[str, Any]:
    if not isinstance(v, Mapping):
        raise _bad(key, "table", "a table of names", v)
    return freeze({str(k): value(f"{key}.{k}", x) for k, x in v.items()})  # type: ignore[no-any-return]


@dataclass(frozen=True)
class Phase:
    """A phase played this turn: a hero's (``hero`` and the figures activated with it) or the troops' of a side."""

    side: str
    figures: tuple[str, ...] = ()
    hero: str | None = None
    troops: bool = False

    @classmethod
    def from_json(cls, key: str, v: Any) -> "Phase":
        if not isinstance(v, Mapping) or not isinstance(v.get("side"), str):
            raise _bad(key, "phase", "a phase (side, hero or troops, figures)", v)
        return cls(v["side"], _names(f"{key}.figures", v.get("figures", ())), _name(f"{key}.hero", v.get("hero")),
                   bool(v.get("troops", False)))

    def to_json(self) -> dict[str, Any]:
        if self.troops:
            return {"side": self.side, "troops": True, "figures": list(self.figures)}
        return {"side": self.side, "hero": self.hero, "figures": list(self.figures)}


@dataclass(frozen=True)
class Dead:
    """A figure killed this game, kept so Médico or Guérison can bring it back where it fell."""

    id: str
    unit: str
    x_mm: float
    y_mm: float
    base_mm: float
    profile: str | None = None
    marker_id: int | None = None

    @classmethod
    def from_json(cls, key: str, v: Any) -> "Dead":
        try:
            out = cls(v["id"], v["unit"], float(v["x_mm"]), float(v["y_mm"]), float(v["base_mm"]), v.get("profile"),
                      v.get("marker_id"))
        except (TypeError, KeyError, ValueError):
            raise _bad(key, "dead", "a dead figure's record (id, unit, x_mm, y_mm, base_mm)", v) from None
        if not isinstance(out.id, str) or not isinstance(out.unit, str):
            raise _bad(key, "dead", "a dead figure's record (id, unit, x_mm, y_mm, base_mm)", v)
        return out

    @classmethod
    def of(cls, m: Model) -> "Dead":
        """The record of figure ``m``, removed where it stands."""
        return cls(m.model_id, m.unit_id, m.position_mm[0], m.position_mm[1], m.base_mm, m.profile, m.marker_id)

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "unit": self.unit, "x_mm": self.x_mm, "y_mm": self.y_mm, "base_mm": self.base_mm,
                "profile": self.profile, "marker_id": self.marker_id}


@dataclass(frozen=True)
class Acted:
    """A figure's second action this turn and how many of its shots, attacks or uses it spent."""

    action: str
    used: int

    @classmethod
    def from_json(cls, key: str, v: Any) -> "Acted":
        if (not isinstance(v, Mapping) or not isinstance(v.get("action"), str) or isinstance(v.get("used"), bool)
                or not isinstance(v.get("used"), int)):
            raise _bad(key, "acted", "an action and a count used", v)
        return cls(v["action"], v["used"])

    def to_json(self) -> dict[str, Any]:
        return {"action": self.action, "used": self.used}


@dataclass(frozen=True)
class StarWarsState(GameState):
    """A Star Wars game's state between two actions (``plan.state``), typed and frozen.

    ``turn``, ``initiative`` (the side playing first this turn, ``None`` before the roll),
    ``activated`` (figures activated this turn), ``phases`` (phases played, in order),
    ``active_powers`` (power -> its users, until the end of the turn), ``dead`` (figures
    killed), ``acted`` (figure -> its second action), ``first_actions`` (figure -> move or
    concentrate); ``other`` and ``written`` as for every :class:`rules.rulesets.records.GameState`.
    """

    ALWAYS = ALWAYS

    turn: int = 1
    activated: tuple[str, ...] = ()
    phases: tuple[Phase, ...] = ()
    active_powers: Mapping[str, tuple[str, ...]] = EMPTY
    dead: tuple[Dead, ...] = ()
    initiative: str | None = None
    acted: Mapping[str, Acted] = EMPTY
    first_actions: Mapping[str, str] = EMPTY

    @classmethod
    def from_json(cls, data: Mapping[str, Any] | None) -> "StarWarsState":
        """Read the state from its JSON, the defaults filled in.

        Raises
        ------
        GameFileError
            Naming the key and what it must hold, in French and English.
        """
        return cls(**cls.read(data or {}, {
            "turn": _turn, "activated": _names, "phases": lambda k, v: _list(k, v, Phase.from_json),
            "active_powers": lambda k, v: _table(k, v, _names), "dead": lambda k, v: _list(k, v, Dead.from_json),
            "initiative": _name, "acted": lambda k, v: _table(k, v, Acted.from_json),
            "first_actions": lambda k, v: _table(k, v, _text),
        }))
