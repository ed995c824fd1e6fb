"""AT-43's game state: one frozen record, read and written only at the JSON edge.

The game file keeps the state as JSON (``plan.state``); AT-43's actions read it with
:meth:`AT43State.of` (which refuses a malformed value with a French and English message)
and write it back with :meth:`AT43State.on`, never by string keys. The JSON stays what it
was: only the keys the game already had or an action wrote, and keys this rule set does
not know (other parts of the program) kept as they are.

Sources: AT-43, Tirs: Nouvelle salve ! (the turn, the unit being activated: alert fire
targets it) and Frappes d'artillerie (one strike per turn, 3 PC).

Examples
--------
>>> st = AT43State.from_json({"turn": 2, "active_unit": "a", "notes": "kept"})
>>> st.turn, st.active_unit, st.artillery_turns
(2, 'a', ())
>>> st.with_(active_unit=None, turn=3).to_json()
{'notes': 'kept', 'turn': 3}
>>> AT43State.from_json({"turn": "two"})
Traceback (most recent call last):
...
rules.errors.GameFileError: the game state's 'turn' must be a whole number >= 1, got 'two'
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

from rules.errors import GameFileError
from rules.explain import msg
from rules.frozen import EMPTY, freeze
from rules.rulesets.records import OMIT, GameState, state_refusal

KEYS = ("turn", "active_unit", "artillery_turns", "command_points_spent")


def _bad(key: str, want: str, english: str, value: Any) -> GameFileError:
    return state_refusal(key, english, value, msg_id="at43.state.bad", want=msg(f"at43.state.want.{want}"))


def _whole(key: str, v: Any, minimum: int) -> int:
    if isinstance(v, bool) or not isinstance(v, int) or v < minimum:
        raise _bad(key, "turn" if minimum else "count", f"a whole number >= {minimum}", v)
    return v


def _active(key: str, v: Any) -> str | None:
    if v is not None and not isinstance(v, str):
        raise _bad(key, "name", "a unit name, or null", v)
    return v


def _turns(key: str, v: Any) -> tuple[int, ...]:
    if isinstance(v, (str, bytes)) or not isinstance(v, Sequence):
        raise _bad(key, "turns", "a list of turns", v)
    return tuple(_whole(key, t, 1) for t in v)


def _spent(key: str, v: Any) -> Mapping[str, int]:
    if not isinstance(v, Mapping):
        raise _bad(key, "spent", "a table side -> points", v)
    return freeze({str(k): _whole(f"{key}.{k}", n, 0) for k, n in v.items()})  # type: ignore[no-any-return]


@dataclass(frozen=True)
class AT43State(GameState):
    """An AT-43 game's state between two actions (``plan.state``), typed and frozen.

    ``turn`` (from 1), ``active_unit`` (the unit being activated, which alert fire may
    target; absent from the JSON when none), ``artillery_turns`` (turns an artillery strike
    was called in), ``command_points_spent`` (side -> PC spent); ``other`` and ``written``
    as for every :class:`rules.rulesets.records.GameState` (all the keys for a record built here).
    """

    turn: int = 1
    active_unit: str | None = field(default=None, metadata=OMIT)
    artillery_turns: tuple[int, ...] = ()
    command_points_spent: Mapping[str, int] = EMPTY
    written: frozenset[str] = field(default=frozenset(KEYS), kw_only=True)

    @classmethod
    def from_json(cls, data: Mapping[str, Any] | None) -> "AT43State":
        """Read ``plan.state``; a malformed value raises :class:`GameFileError` (in French and English)."""
        data = data or {}
        if not isinstance(data, Mapping):
            raise _bad("state", "table", "a table", data)
        return cls(**cls.read(data, {"turn": lambda k, v: _whole(k, v, 1), "active_unit": _active,
                                     "artillery_turns": _turns, "command_points_spent": _spent}))
