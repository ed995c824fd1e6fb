"""Result records that are also read-only dicts of their JSON (Firefight's and Star Wars' actions).

A record is a frozen dataclass whose JSON (:meth:`Record.to_json`) is also its content as a
dict, so a :class:`rules.resolution.Resolution` keeps it as its ``result`` and the edges write
it as JSON as it is. A field whose metadata is :data:`OMIT` is left out while it is ``None``.

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
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, Mapping

OMIT = {"omit": True}


def _json(v: Any) -> Any:
    if isinstance(v, Record):
        return v.to_json()
    if isinstance(v, Mapping):
        return {k: _json(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [_json(x) for x in v]
    return v


@dataclass(frozen=True, eq=False)
class Record(dict[str, Any]):
    """A result record: typed fields, and a read-only dict of its JSON (:meth:`to_json`) for the edges."""

    def __post_init__(self) -> None:
        dict.update(self, self.to_json())

    def to_json(self) -> dict[str, Any]:
        """Return the record as JSON (nested records too); ``omit`` fields left out while ``None``."""
        return {f.name: _json(getattr(self, f.name)) for f in dataclasses.fields(self)
                if not (f.metadata.get("omit") and getattr(self, f.name) is None)}

    def _read_only(self, *args: Any, **kwargs: Any) -> Any:
        raise TypeError(f"a {type(self).__name__} is read-only; build a new one (dataclasses.replace)")

    __setitem__ = __delitem__ = update = pop = popitem = clear = setdefault = __ior__ = _read_only
