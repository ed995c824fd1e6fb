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

import dataclasses
from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

from rules.errors import GameFileError
from rules.explain import msg
from rules.frozen import EMPTY, freeze, thaw
from rules.plan import TablePlan

KEYS = ("turn", "active_unit", "artillery_turns", "command_points_spent")


def _bad(key: str, want: str, english: str, value: Any) -> GameFileError:
    return GameFileError(f"the game state's {key!r} must be {english}, got {value!r}", msg_id="at43.state.bad",
                         params={"key": key, "want": msg(f"at43.state.want.{want}"), "value": repr(value)})


def _whole(key: str, v: Any, minimum: int) -> int:
    if isinstance(v, bool) or not isinstance(v, int) or v < minimum:
        raise _bad(key, "turn" if minimum else "count", f"a whole number >= {minimum}", v)
    return v


@dataclass(frozen=True)
class AT43State:
    """An AT-43 game's state between two actions (``plan.state``), typed and frozen.

    ``turn`` (from 1), ``active_unit`` (the unit being activated, which alert fire may
    target), ``artillery_turns`` (turns an artillery strike was called in),
    ``command_points_spent`` (side -> PC spent); ``other``: keys of other parts of the
    program, kept; ``written``: the keys the JSON holds (all of them for a record built here).
    """

    turn: int = 1
    active_unit: str | None = None
    artillery_turns: tuple[int, ...] = ()
    command_points_spent: Mapping[str, int] = EMPTY
    other: Mapping[str, Any] = EMPTY
    written: frozenset[str] = field(default=frozenset(KEYS))

    @classmethod
    def from_json(cls, data: Mapping[str, Any] | None) -> "AT43State":
        """Read ``plan.state``; a malformed value raises :class:`GameFileError` (in French and English)."""
        data = data or {}
        if not isinstance(data, Mapping):
            raise _bad("state", "table", "a table", data)
        active = data.get("active_unit")
        if active is not None and not isinstance(active, str):
            raise _bad("active_unit", "name", "a unit name, or null", active)
        turns = data.get("artillery_turns", ())
        if isinstance(turns, (str, bytes)) or not isinstance(turns, Sequence):
            raise _bad("artillery_turns", "turns", "a list of turns", turns)
        spent = data.get("command_points_spent", {})
        if not isinstance(spent, Mapping):
            raise _bad("command_points_spent", "spent", "a table side -> points", spent)
        return cls(
            turn=_whole("turn", data.get("turn", 1), 1),
            active_unit=active,
            artillery_turns=tuple(_whole("artillery_turns", t, 1) for t in turns),
            command_points_spent=freeze({str(k): _whole(f"command_points_spent.{k}", v, 0)
                                         for k, v in spent.items()}),
            other=freeze({k: v for k, v in data.items() if k not in KEYS}),
            written=frozenset(k for k in KEYS if k in data),
        )

    @classmethod
    def of(cls, plan: TablePlan) -> "AT43State":
        """Return the state of ``plan``."""
        return cls.from_json(plan.state)

    def with_(self, **changes: Any) -> "AT43State":
        """Return this state with some fields changed (and written to the JSON from now on)."""
        unknown = set(changes) - set(KEYS)
        if unknown:
            raise TypeError(f"AT43State has no field {sorted(unknown)}")
        frozen = {k: freeze(v) for k, v in changes.items()}
        return dataclasses.replace(self, **frozen, written=self.written | set(changes))

    def to_json(self) -> dict[str, Any]:
        """Return the JSON of this state (the keys written; no active unit when none)."""
        out: dict[str, Any] = dict(thaw(self.other))
        values = {"turn": self.turn, "active_unit": self.active_unit, "artillery_turns": list(self.artillery_turns),
                  "command_points_spent": dict(self.command_points_spent)}
        for key in KEYS:
            if key in self.written and not (key == "active_unit" and self.active_unit is None):
                out[key] = values[key]
        return out

    def on(self, plan: TablePlan) -> TablePlan:
        """Return ``plan`` carrying this state."""
        return plan.with_state(self.to_json())
