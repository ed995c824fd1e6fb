"""Deeply immutable, hashable copies of JSON values, and back.

:class:`FrozenDict` is a read-only mapping that hashes (on its items), so a
:class:`rules.plan.TablePlan` holding free-form JSON (profiles, options, state) hashes
too and caches can key on plans by value.

Examples
--------
>>> f = freeze({"a": [1, {"b": 2}]})
>>> f["a"][1]["b"]
2
>>> thaw(f)
{'a': [1, {'b': 2}]}
>>> hash(f) == hash(freeze({"a": [1, {"b": 2}]}))
True
>>> f["c"] = 3
Traceback (most recent call last):
...
TypeError: 'FrozenDict' object does not support item assignment
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any


class FrozenDict(Mapping[str, Any]):
    """A read-only, hashable mapping (its values frozen by :func:`freeze`)."""

    __slots__ = ("_data", "_hash")

    def __init__(self, data: Mapping[str, Any] | None = None) -> None:
        self._data: dict[str, Any] = dict(data or {})
        self._hash: int | None = None

    @classmethod
    def _owning(cls, data: dict[str, Any]) -> FrozenDict:
        """A FrozenDict keeping ``data`` itself (a dict nobody else holds), not a copy."""
        frozen = cls()
        frozen._data = data
        return frozen

    def __getitem__(self, key: str) -> Any:
        return self._data[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._data)

    def __len__(self) -> int:
        return len(self._data)

    def get(self, key: str, default: Any = None) -> Any:  # the dict's own, not Mapping's try/except
        return self._data.get(key, default)

    def __contains__(self, key: object) -> bool:
        return key in self._data

    def __hash__(self) -> int:
        if self._hash is None:
            self._hash = hash(frozenset(self._data.items()))
        return self._hash

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Mapping):
            return self._data == dict(other.items())
        return NotImplemented

    def __repr__(self) -> str:
        return f"FrozenDict({self._data!r})"


_PLAIN = frozenset({str, int, float, bool, type(None)})  # frozen as they are


def freeze(value: Any) -> Any:
    """Return ``value`` with dicts as :class:`FrozenDict` and lists as tuples (already frozen: as it is)."""
    kind = type(value)
    if kind in _PLAIN or kind is FrozenDict:  # most values: no isinstance of an abstract class
        return value
    if kind is dict:  # a message's parameters: frozen into a new dict the FrozenDict keeps (no second copy)
        return FrozenDict._owning({k: freeze(v) for k, v in value.items()})
    if kind is list or kind is tuple:  # its plain items as they are, without a call each
        return tuple([v if type(v) in _PLAIN else freeze(v) for v in value])
    if isinstance(value, FrozenDict):
        return value
    if isinstance(value, Mapping):
        return FrozenDict({k: freeze(v) for k, v in value.items()})
    if isinstance(value, (list, tuple)):
        return tuple(freeze(v) for v in value)
    if isinstance(value, (set, frozenset)):
        return frozenset(freeze(v) for v in value)
    return value


def thaw(value: Any) -> Any:
    """Return a plain JSON value (dicts and lists) from a frozen one."""
    kind = type(value)
    if kind in _PLAIN:  # as in freeze: the common cases before the abstract-class checks
        return value
    if kind is FrozenDict or kind is dict:
        items = value._data.items() if kind is FrozenDict else value.items()  # not Mapping's view, key by key
        return {k: v if type(v) in _PLAIN else thaw(v) for k, v in items}
    if kind is tuple or kind is list:
        return [v if type(v) in _PLAIN else thaw(v) for v in value]
    if isinstance(value, Mapping):
        return {k: thaw(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [thaw(v) for v in value]
    return value


EMPTY: Mapping[str, Any] = FrozenDict()

TRUE_WORDS = frozenset({"true", "yes", "oui", "on", "1"})
FALSE_WORDS = frozenset({"false", "no", "non", "off", "0"})


def parse_bool(value: Any) -> bool | None:
    """Return the yes/no a JSON value or a typed word means, ``None`` when it means neither.

    The rules core's one reading of a boolean (options, action arguments): ``true``/``false``,
    ``yes``/``no``, ``oui``/``non``, ``on``/``off``, ``1``/``0`` in any case, spaces around
    ignored; JSON ``true``/``false`` and the integers 0 and 1.

    >>> parse_bool("Oui"), parse_bool(" off "), parse_bool(1), parse_bool(True)
    (True, False, True, True)
    >>> parse_bool("maybe") is None and parse_bool(2) is None and parse_bool(None) is None
    True
    """
    if isinstance(value, bool):
        return value
    if isinstance(value, int) and value in (0, 1):
        return bool(value)
    if isinstance(value, str):
        word = value.strip().lower()
        if word in TRUE_WORDS:
            return True
        if word in FALSE_WORDS:
            return False
    return None
