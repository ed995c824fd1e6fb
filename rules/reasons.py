"""A sight answer's reasons (its ``blockers`` and ``cover``) as messages beside their English words.

:mod:`rules.visibility` words why a piece blocks or hides a target ("ruins (3/24 sight rays
blocked)"); the code that reads those reasons takes them as plain strings, so a reason stays a
``str`` and only carries its message (``{"msg", "params"}``) along. The JSON answer adds it as
``reason_msg`` beside ``reason``, and :func:`tabletracker.i18n.localize` gives it its ``texts``.

Examples
--------
>>> r = Reason("wall (2/24 sight rays blocked)", {"msg": "sight.reason.blocks", "params": {"hit": 2}})
>>> r == "wall (2/24 sight rays blocked)", r.message["msg"]
(True, 'sight.reason.blocks')
>>> reason_json("wall", "wall-1", r)["reason_msg"]
{'msg': 'sight.reason.blocks', 'params': {'hit': 2}}
>>> "reason_msg" in reason_json("wall", "wall-1", "plain words")
False
"""

from __future__ import annotations

from typing import Any, Mapping

from rules.frozen import EMPTY, thaw


class Reason(str):
    """An English reason that also carries its message; still a plain ``str`` for the code reading it."""

    message: Mapping[str, Any]

    def __new__(cls, text: str, message: Mapping[str, Any] = EMPTY) -> Reason:
        self = super().__new__(cls, text)
        self.message = message
        return self


def reason_json(kind: str, ident: str, reason: str) -> dict[str, Any]:
    """Return one blocker or cover entry of a sight answer: ``kind``, ``id``, ``reason`` and its ``reason_msg``."""
    out: dict[str, Any] = {"kind": kind, "id": ident, "reason": str(reason)}
    message = getattr(reason, "message", None)
    if message:
        out["reason_msg"] = thaw(message)
    return out
