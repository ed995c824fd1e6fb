"""High Fire's game state: one frozen record, read and written only at the JSON edge.

The game file keeps the state as JSON (``plan.state``); High Fire's actions read it with
:meth:`HighFireState.of` (which refuses a malformed value with a French and English
message) and write it back with :meth:`HighFireState.on`, never by string keys. The JSON
stays what it was: the keys every action writes (``turn``, ``phase``, ``activated``,
``actions``, ``engaged``, ``observed``), the others once written, and keys this rule set
does not know (other parts of the program) kept as they are.

Sources: High Fire v0.5.1, Séquence de jeu (turn, points d'activation, the three phases
of each player, assaults, motivation), Actions, Assauts, Tir indirect (Observation).

Examples
--------
>>> st = HighFireState.from_json({"phase": 2, "first": "blue", "engaged": [["a", "b"]]})
>>> st.turn, st.phase, st.first, st.engaged
(1, 2, 'blue', (('a', 'b'),))
>>> sorted(st.with_(phase="assault").to_json())
['actions', 'activated', 'engaged', 'first', 'observed', 'phase', 'turn']
>>> HighFireState.from_json({"phase": 9})
Traceback (most recent call last):
...
rules.errors.GameFileError: the game state's 'phase' must be 0 to 5, start, initiative or assault, got 9
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Sequence

from rules.errors import GameFileError
from rules.explain import msg
from rules.frozen import EMPTY, freeze, thaw
from rules.rulesets.records import GameState, state_refusal

#: Keys every High Fire action that writes the state writes (with their defaults).
ALWAYS = ("turn", "phase", "activated", "actions", "engaged", "observed")
KEYS = (*ALWAYS, "first", "pa", "operational")
PHASE_COUNT = 6  # three phases for each player (Séquence de jeu)
PHASE_WORDS = ("start", "initiative", "assault")
PHASE_PARTS = ("action1", "reaction", "action2")


def _bad(key: str, want: str, english: str, value: Any) -> GameFileError:
    return state_refusal(key, english, value, msg_id="high_fire.state.bad", want=msg(f"high_fire.state.want.{want}"))


def _whole(key: str, v: Any, minimum: int) -> int:
    if isinstance(v, bool) or not isinstance(v, int) or v < minimum:
        raise _bad(key, "turn" if minimum else "count", f"a whole number >= {minimum}", v)
    return v


def _name(key: str, v: Any) -> str:
    if not isinstance(v, str):
        raise _bad(key, "name", "a name", v)
    return v


def _names(key: str, v: Any) -> tuple[str, ...]:
    if isinstance(v, (str, bytes)) or not isinstance(v, Sequence):
        raise _bad(key, "names", "a list of names", v)
    return tuple(_name(key, x) for x in v)


def _table(key: str, v: Any) -> Mapping[str, Any]:
    if not isinstance(v, Mapping):
        raise _bad(key, "table", "a table of names", v)
    return v


def _names_to(key: str, v: Any, value: Callable[[str, Any], Any]) -> Mapping[str, Any]:
    return freeze({str(k): value(f"{key}.{k}", x) for k, x in _table(key, v).items()})  # type: ignore[no-any-return]


def _phase(v: Any) -> int | str:
    if (isinstance(v, int) and not isinstance(v, bool) and 0 <= v < PHASE_COUNT) or v in PHASE_WORDS:
        return v  # type: ignore[no-any-return]
    raise _bad("phase", "phase", "0 to 5, start, initiative or assault", v)


def _pa(v: Any) -> Mapping[str, Mapping[str, int]]:
    out: dict[str, dict[str, int]] = {}
    for side, parts in _table("pa", v).items():
        parts = _table(f"pa.{side}", parts)
        if set(parts) != set(PHASE_PARTS):
            raise _bad(f"pa.{side}", "split", "a table of action1, reaction and action2", thaw(parts))
        out[str(side)] = {p: _whole(f"pa.{side}.{p}", parts[p], 0) for p in PHASE_PARTS}
    return freeze(out)  # type: ignore[no-any-return]


def _pairs(v: Any) -> tuple[tuple[str, str], ...]:
    if isinstance(v, (str, bytes)) or not isinstance(v, Sequence):
        raise _bad("engaged", "pairs", "a list of pairs of units", v)
    out = []
    for p in v:
        names = _names("engaged", p)
        if len(names) != 2:
            raise _bad("engaged", "pairs", "a list of pairs of units", thaw(v))
        out.append((names[0], names[1]))
    return tuple(out)


@dataclass(frozen=True)
class HighFireState(GameState):
    """A High Fire game's state between two actions (``plan.state``), typed and frozen.

    ``turn`` (from 1), ``phase`` (0-5 for the six action phases, else ``start``,
    ``initiative`` or ``assault``), ``first`` (the side acting first this turn), ``pa``
    (side -> PA per phase: action1, reaction, action2), ``operational`` (side -> PA of
    the turn), ``activated`` (units activated this phase), ``actions`` (unit -> infantry
    action taken this turn), ``engaged`` (pairs of units in assault), ``observed``
    (target unit -> the unit observing it); ``other`` and ``written`` as for every
    :class:`rules.rulesets.records.GameState` (all the keys for a record built here).
    """

    ALWAYS = ALWAYS

    turn: int = 1
    phase: int | str = "start"
    first: str | None = None
    pa: Mapping[str, Mapping[str, int]] = EMPTY
    operational: Mapping[str, int] = EMPTY
    activated: tuple[str, ...] = ()
    actions: Mapping[str, str] = EMPTY
    engaged: tuple[tuple[str, str], ...] = ()
    observed: Mapping[str, str] = EMPTY
    written: frozenset[str] = field(default=frozenset(KEYS), kw_only=True)

    @classmethod
    def from_json(cls, data: Mapping[str, Any] | None) -> "HighFireState":
        """Read ``plan.state``; a malformed value raises :class:`GameFileError` (in French and English)."""
        data = data or {}
        if not isinstance(data, Mapping):
            raise _bad("state", "table", "a table of names", data)
        return cls(**cls.read(data, {
            "turn": lambda k, v: _whole(k, v, 1), "phase": lambda k, v: _phase(v),
            "first": lambda k, v: None if v is None else _name(k, v), "pa": lambda k, v: _pa(v),
            "operational": lambda k, v: _names_to(k, v, lambda key, x: _whole(key, x, 0)),
            "activated": _names, "actions": lambda k, v: _names_to(k, v, _name),
            "engaged": lambda k, v: _pairs(v), "observed": lambda k, v: _names_to(k, v, _name)}))
