"""Grimdark Future Firefight's game state: one frozen record, read and written only at the JSON edge.

The game file keeps the state as JSON (``plan.state``); the rule set's actions read it
with :meth:`FirefightState.of` (which refuses a malformed value with a French and English
message) and write it back with :meth:`FirefightState.on`, never by string keys. The JSON
stays what it was: the keys every action fills in (``round``, ``first``, ``turn``,
``activated``, ``fatigued``, ``actions``), the others only once an action wrote them, and
keys this rule set does not know kept as they are.

Sources: Jouer la partie (alternate activations, rounds), Activation (actions), Mêlée
(fatigue), Mission (objectives, four rounds), Moral (half the starting units).

Examples
--------
>>> st = FirefightState.from_json({"round": 2, "activated": ["a"]}, sides=("red", "blue"))
>>> st.round, st.first, st.turn, st.activated
(2, 'red', 'red', ('a',))
>>> sorted(st.with_(winner=None).to_json())
['actions', 'activated', 'fatigued', 'first', 'round', 'turn', 'winner']
>>> FirefightState.from_json({"round": "two"})
Traceback (most recent call last):
...
rules.errors.GameFileError: the game state's 'round' must be a whole number >= 1, got 'two'
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Mapping, Sequence

from rules.errors import GameFileError
from rules.explain import msg
from rules.frozen import EMPTY, freeze
from rules.plan import TablePlan
from rules.rulesets.kit import sides_of
from rules.rulesets.records import GameState, state_refusal

#: Keys every action writes (with their defaults); the others appear once written.
ALWAYS = ("round", "first", "turn", "activated", "fatigued", "actions")


def _bad(key: str, want: str, english: str, value: Any) -> GameFileError:
    return state_refusal(key, english, value, msg_id="firefight.state.bad", want=msg(f"firefight.state.want.{want}"))


def _int(key: str, v: Any) -> int:
    if isinstance(v, bool) or not isinstance(v, int) or v < 1:
        raise _bad(key, "round", "a whole number >= 1", v)
    return v


def _count(key: str, v: Any) -> int:
    if isinstance(v, bool) or not isinstance(v, int) or v < 0:
        raise _bad(key, "count", "a whole number >= 0", v)
    return v


def _bool(key: str, v: Any) -> bool:
    if not isinstance(v, bool):
        raise _bad(key, "bool", "true or false", v)
    return v


def _name(key: str, v: Any) -> str | None:
    if v is not None and not isinstance(v, str):
        raise _bad(key, "name", "a side or unit name, or null", v)
    return v


def _names(key: str, v: Any) -> tuple[str, ...]:
    if isinstance(v, (str, bytes)) or not isinstance(v, Sequence) or not all(isinstance(x, str) for x in v):
        raise _bad(key, "names", "a list of names", v)
    return tuple(v)


def _table(key: str, v: Any, value: Callable[[str, Any], Any]) -> Mapping[str, Any]:
    if not isinstance(v, Mapping):
        raise _bad(key, "table", "a table of names", v)
    return freeze({str(k): value(f"{key}.{k}", x) for k, x in v.items()})  # type: ignore[no-any-return]


def _text(key: str, v: Any) -> str:
    if not isinstance(v, str):
        raise _bad(key, "name", "a name", v)
    return v


@dataclass(frozen=True)
class FirefightState(GameState):
    """A Firefight game's state between two actions (``plan.state``), typed and frozen.

    ``round`` (1 to 4), ``first`` (the side that starts the round), ``turn`` (the side to
    activate a unit), ``activated`` (units activated this round), ``fatigued`` (units that
    charged or struck back this round), ``actions`` (unit -> action taken this round),
    ``finished_first`` (the side that finished activating first), ``objectives``
    (objective -> side, or ``None`` when neutral), ``starting_units`` (side -> units at the
    start), ``morale_due`` (units that must test morale), ``game_over``, ``winner``,
    ``deployment_edges`` (side -> table edge), ``round_complete``; ``other`` and ``written``
    as for every :class:`rules.rulesets.records.GameState`.
    """

    ALWAYS = ALWAYS

    round: int = 1
    first: str | None = None
    turn: str | None = None
    activated: tuple[str, ...] = ()
    fatigued: tuple[str, ...] = ()
    actions: Mapping[str, str] = EMPTY
    finished_first: str | None = None
    objectives: Mapping[str, str | None] = EMPTY
    starting_units: Mapping[str, int] = EMPTY
    morale_due: tuple[str, ...] = ()
    game_over: bool = False
    winner: str | None = None
    deployment_edges: Mapping[str, str] = EMPTY
    round_complete: bool = False

    @classmethod
    def from_json(cls, data: Mapping[str, Any] | None, *, sides: Sequence[str] = ()) -> "FirefightState":
        """Read the state from its JSON, the defaults filled in (the first side in unit order starts).

        Raises
        ------
        GameFileError
            Naming the key and what it must hold, in French and English.
        """
        values = cls.read(data or {}, {
            "round": _int, "first": _name, "turn": _name, "activated": _names, "fatigued": _names,
            "actions": lambda k, v: _table(k, v, _text), "finished_first": _name,
            "objectives": lambda k, v: _table(k, v, _name), "starting_units": lambda k, v: _table(k, v, _count),
            "morale_due": _names, "game_over": _bool, "winner": _name,
            "deployment_edges": lambda k, v: _table(k, v, _text), "round_complete": _bool,
        })
        values.setdefault("first", sides[0] if sides else None)
        values.setdefault("turn", values["first"])
        return cls(**values)

    @classmethod
    def of(cls, plan: TablePlan) -> "FirefightState":
        """Return the state of ``plan`` (the first side in unit order starts a new game)."""
        return cls.from_json(plan.state, sides=sides_of(plan))
