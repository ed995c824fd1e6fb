"""Deeply immutable copies of JSON values, and back.

Examples
--------
>>> f = freeze({"a": [1, {"b": 2}]})
>>> f["a"][1]["b"]
2
>>> thaw(f)
{'a': [1, {'b': 2}]}
"""

from __future__ import annotations

from types import MappingProxyType
from typing import Any, Mapping


def freeze(value: Any) -> Any:
    """Return ``value`` with dicts as read-only mappings and lists as tuples."""
    if isinstance(value, Mapping):
        return MappingProxyType({k: freeze(v) for k, v in value.items()})
    if isinstance(value, (list, tuple)):
        return tuple(freeze(v) for v in value)
    return value


def thaw(value: Any) -> Any:
    """Return a plain JSON value (dicts and lists) from a frozen one."""
    if isinstance(value, Mapping):
        return {k: thaw(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [thaw(v) for v in value]
    return value


EMPTY: Mapping[str, Any] = MappingProxyType({})
