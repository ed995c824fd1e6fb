"""Sentences a package says to its user in English, each carrying its message id and parameters.

A :class:`Said` is the English sentence itself (a ``str``: whoever joins, logs or stores a
calibration's warnings or an answer's summary keeps doing so), with ``msg_id`` and ``params``
for the edges, which word it in the user's language from the catalogues
(``tabletracker/locale/<lang>*.po``), as they do the packages' errors. Standard library only:
the calibration and the rules core import it, as they do ``tabletracker.errors``. A parameter
may be a message itself (``{"msg": id, "params": {...}}``).

>>> w = Said("corner marker(s) 3 not seen", "calibration.corners_hidden", hidden="3", seen="0, 1, 2")
>>> w == "corner marker(s) 3 not seen", w.msg_id, dict(w.params)
(True, 'calibration.corners_hidden', {'hidden': '3', 'seen': '0, 1, 2'})
>>> import copy, pickle
>>> copies = (copy.deepcopy(w), pickle.loads(pickle.dumps(w)))
>>> [(x, x.msg_id, dict(x.params)) for x in copies] == [(w, w.msg_id, dict(w.params))] * 2
True
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any


class Said(str):
    """An English sentence for the user with its message id and parameters (see the module docstring)."""

    msg_id: str
    _params: dict[str, Any]

    def __new__(cls, text: str, msg_id: str = "", **params: Any) -> Said:  # the defaults: copy and pickle
        out = super().__new__(cls, text)
        out.msg_id = msg_id
        out._params = dict(params)
        return out

    @property
    def params(self) -> Mapping[str, Any]:
        """The message's parameters (read-only)."""
        return MappingProxyType(self._params)

    def words(self) -> dict[str, Any]:
        """The sentence as a message object (``{"msg", "params", "text"}``), as the rules core's steps are."""
        return {"msg": self.msg_id, "params": dict(self._params), "text": str(self)}
