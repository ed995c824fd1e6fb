"""freeze: plain values pass as they are, dicts and lists become frozen copies."""

from __future__ import annotations

from collections import OrderedDict

from rules.frozen import FrozenDict, freeze, thaw
from rules.reasons import Reason


def test_freeze_copies_dicts_and_lists_and_keeps_what_is_already_frozen() -> None:
    given = {"piece": "t1", "hit": 3, "share": 0.5, "ok": True, "none": None, "what": {"msg": "m", "params": {}},
             "list": [1, {"a": [2]}], "set": {1, 2}}
    frozen = freeze(given)
    assert isinstance(frozen, FrozenDict) and isinstance(frozen["what"], FrozenDict)
    assert frozen["list"] == (1, FrozenDict({"a": (2,)})) and frozen["set"] == frozenset({1, 2})
    given["piece"] = "t2"  # the frozen copy shares nothing with what it was given
    given["what"]["msg"] = "other"  # type: ignore[index]
    given["list"].append(3)  # type: ignore[attr-defined]
    assert frozen["piece"] == "t1" and frozen["what"]["msg"] == "m" and len(frozen["list"]) == 2
    assert thaw(frozen)["what"] == {"msg": "m", "params": {}}
    assert freeze(frozen) is frozen and freeze(frozen["what"]) is frozen["what"]
    reason = Reason("blocked", FrozenDict({"msg": "x"}))
    assert freeze(reason) is reason  # a str of another class: as it is, its message kept
    ordered = freeze(OrderedDict([("b", [1]), ("a", 2)]))  # any other mapping: frozen as a dict is
    assert isinstance(ordered, FrozenDict) and ordered == {"b": (1,), "a": 2}
    assert hash(freeze({"a": [1]})) == hash(freeze({"a": (1,)}))
