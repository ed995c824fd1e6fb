"""The rule sets' records: action results that are also read-only dicts of their JSON, and game states.

A :class:`Record` is a frozen dataclass whose JSON (:meth:`Record.to_json`) is also its content
as a dict, so a :class:`rules.resolution.Resolution` keeps it as its ``result`` and the edges
write it as JSON as it is. A field whose metadata is :data:`OMIT` is left out while it is ``None``.

A :class:`GameState` is a rule set's game state between two actions (``plan.state``): typed,
frozen, read (:meth:`GameState.of`) and written back (:meth:`GameState.on`) only at the JSON
edge, never by string keys. Each rule set's ``state.py`` declares its fields and how each key
is checked; the reading, the keys of other parts of the program kept as they are, the changes
(:meth:`GameState.with_`) and the JSON are the same for all.

Examples
--------
>>> from dataclasses import dataclass, field
>>> @dataclass(frozen=True, eq=False)
... class Hit(Record):
...     target: str
...     saved: bool | None = field(default=None, metadata=OMIT)
>>> dict(Hit("b1")), Hit("b1", saved=True)["saved"]
({'target': 'b1'}, True)
>>> Hit("b1")["target"] = "b2"
Traceback (most recent call last):
...
TypeError: a Hit is read-only; build a new one (dataclasses.replace)
>>> @dataclass(frozen=True)
... class Turn(GameState):
...     ALWAYS = ("turn",)
...     turn: int = 1
...     leader: str | None = field(default=None, metadata=OMIT)
...     @classmethod
...     def from_json(cls, data: Mapping[str, Any] | None) -> "Turn":
...         return cls(**cls.read(data or {}, {"turn": lambda k, v: int(v), "leader": lambda k, v: v}))
>>> st = Turn.from_json({"notes": "kept"})
>>> st.to_json(), st.with_(turn=2, leader="a").to_json()
({'notes': 'kept', 'turn': 1}, {'notes': 'kept', 'turn': 2, 'leader': 'a'})
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, ClassVar, Mapping, TypeVar

from rules.errors import GameFileError
from rules.frozen import EMPTY, freeze, thaw

if TYPE_CHECKING:
    from rules.plan import TablePlan

OMIT = {"omit": True}
S = TypeVar("S", bound="GameState")


def json_value(v: Any) -> Any:
    """Return ``v`` as JSON: records and states by their ``to_json``, tables and lists item by item."""
    if v is None or isinstance(v, (str, int, float)):
        return v
    if callable(getattr(v, "to_json", None)):
        return v.to_json()
    if isinstance(v, Mapping):
        return {k: json_value(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [json_value(x) for x in v]
    return v


@dataclass(frozen=True, eq=False)
class Record(dict[str, Any]):
    """A result record: typed fields, and a read-only dict of its JSON (:meth:`to_json`) for the edges."""

    def __post_init__(self) -> None:
        dict.update(self, self.to_json())

    def to_json(self) -> dict[str, Any]:
        """Return the record as JSON (nested records too); ``omit`` fields left out while ``None``."""
        out = {}
        for name, omit in _fields(type(self)):
            value = getattr(self, name)
            if not (omit and value is None):
                out[name] = json_value(value)
        return out

    def _read_only(self, *args: Any, **kwargs: Any) -> Any:
        raise TypeError(f"a {type(self).__name__} is read-only; build a new one (dataclasses.replace)")

    __setitem__ = __delitem__ = update = pop = popitem = clear = setdefault = __ior__ = _read_only


def state_refusal(key: str, english: str, value: Any, *, msg_id: str, want: Any) -> GameFileError:
    """Return the refusal of a damaged game state, in French and English: ``key`` must be ``english``.

    ``msg_id`` is the rule set's message saying it, ``want`` (a message) what the key must hold.
    """
    return GameFileError(f"the game state's {key!r} must be {english}, got {value!r}", msg_id=msg_id,
                         params={"key": key, "want": want, "value": repr(value)})


@dataclass(frozen=True)
class GameState:
    """A rule set's game state (``plan.state``), typed and frozen; subclasses declare the fields.

    ``ALWAYS`` names the keys the JSON always holds (every action writes them, with their
    defaults); the other fields are written once the game had them or an action set them
    (``written``), in the order of the fields, after the keys of other parts of the program
    (``other``), which are kept as they are. A field whose metadata is :data:`OMIT` is left out
    while it is ``None``. Subclasses write :meth:`from_json` (their checks, through :meth:`read`).
    """

    ALWAYS: ClassVar[tuple[str, ...]] = ()

    other: Mapping[str, Any] = field(default=EMPTY, kw_only=True)
    written: frozenset[str] = field(default=frozenset(), kw_only=True)

    @classmethod
    def from_json(cls: type[S], data: Mapping[str, Any] | None) -> S:
        """Read the state from its JSON; a malformed value raises :class:`rules.errors.GameFileError`."""
        raise NotImplementedError

    @classmethod
    def of(cls: type[S], plan: "TablePlan") -> S:
        """Return the state of ``plan``."""
        return cls.from_json(plan.state)

    @classmethod
    def keys(cls) -> tuple[str, ...]:
        """Return the state's own keys: those always written, then the others in the order of the fields."""
        return _layout(cls)[0]

    @classmethod
    def read(cls, data: Mapping[str, Any], readers: Mapping[str, Callable[[str, Any], Any]]) -> dict[str, Any]:
        """Return the fields read from ``data``: each own key through its reader ``(key, value) -> field``,
        ``other`` (the keys it does not know, frozen) and ``written`` (the own keys it holds)."""
        return {**{k: readers[k](k, v) for k, v in data.items() if k in readers},
                "other": freeze({k: v for k, v in data.items() if k not in readers}),
                "written": frozenset(k for k in data if k in readers and k not in cls.ALWAYS)}

    def with_(self: S, **changes: Any) -> S:
        """Return the state with ``changes`` (lists become tuples, tables frozen); the keys are then written."""
        unknown = set(changes) - set(self.keys())
        if unknown:
            raise TypeError(f"{type(self).__name__} has no field {sorted(unknown)}")
        return dataclasses.replace(self, **{k: freeze(v) for k, v in changes.items()},
                                   written=self.written | (set(changes) - set(self.ALWAYS)))

    def to_json(self) -> dict[str, Any]:
        """Return the state as JSON: the keys of others, then the keys always written, then the others written."""
        keys, omit = _layout(type(self))
        out: dict[str, Any] = thaw(self.other)
        for key in keys:
            value = getattr(self, key)
            if (key in self.ALWAYS or key in self.written) and not (key in omit and value is None):
                out[key] = json_value(value)
        return out

    def on(self, plan: "TablePlan") -> "TablePlan":
        """Return ``plan`` holding this state."""
        return plan.with_state(self.to_json())


_FIELDS: dict[type, tuple[tuple[str, bool], ...]] = {}
_LAYOUTS: dict[type, tuple[tuple[str, ...], frozenset[str]]] = {}


def _fields(cls: type) -> tuple[tuple[str, bool], ...]:
    """Return a record class's fields as (name, whether it is ``OMIT``), worked out once."""
    if cls not in _FIELDS:
        _FIELDS[cls] = tuple((f.name, bool(f.metadata.get("omit"))) for f in dataclasses.fields(cls))
    return _FIELDS[cls]


def _layout(cls: type[GameState]) -> tuple[tuple[str, ...], frozenset[str]]:
    """Return a state class's own keys (:meth:`GameState.keys`) and its ``OMIT`` fields, worked out once."""
    if cls not in _LAYOUTS:
        own = [name for name, _ in _fields(cls) if name not in ("other", "written")]
        omit = frozenset(name for name, omitted in _fields(cls) if omitted)
        _LAYOUTS[cls] = ((*cls.ALWAYS, *(k for k in own if k not in cls.ALWAYS)), omit)
    return _LAYOUTS[cls]
