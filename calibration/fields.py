"""Checked reading of JSON documents: every error names the file and the field.

Standard library only: the setup file (``calibration.setup``) and the game file
(``rules.plan``) both read through these helpers, so the wording of errors is one.

Examples
--------
>>> r = Reader({"table": {"width_mm": 600}}, source="setup.json", error=ValueError)
>>> t = r.child("table")
>>> t.number("width_mm")
600.0
>>> t.number("depth_mm")
Traceback (most recent call last):
...
ValueError: setup.json: table.depth_mm is missing (a number is required)
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from calibration.limits import MAX_ABS_NUMBER, parse_json_bounded

_MISSING = object()


class Reader:
    """Read fields of one JSON object, raising ``error`` with file and path on anything wrong."""

    def __init__(
        self, data: Any, *, source: str, error: type[ValueError], path: str = ""
    ) -> None:
        self.source = source
        self.error = error
        self.path = path
        if not isinstance(data, Mapping):
            self.fail(f"must be a JSON object, got {_type_name(data)}")
        self.data: Mapping[str, Any] = data

    # -- errors ---------------------------------------------------------------
    def where(self, key: str | None = None) -> str:
        """Return the dotted path of ``key`` (or of this object) for messages."""
        if key is None:
            return self.path or "the top level"
        return f"{self.path}.{key}" if self.path else key

    def fail(self, message: str, key: str | None = None) -> None:
        """Raise this reader's error about ``key`` (or the whole object)."""
        sep = "" if message.startswith("[") else " "
        raise self.error(f"{self.source}: {self.where(key)}{sep}{message}")

    def only(self, allowed: Sequence[str]) -> None:
        """Refuse keys outside ``allowed``; unknown keys are never silently ignored."""
        unknown = sorted(set(self.data) - set(allowed))
        if unknown:
            self.fail(
                f"has unknown key(s) {', '.join(map(repr, unknown))}; "
                f"allowed keys are {', '.join(allowed)}"
            )

    # -- typed getters ----------------------------------------------------------
    def _get(self, key: str, default: Any, kind: str) -> Any:
        value = self.data.get(key, _MISSING)
        if value is _MISSING:
            if default is _MISSING:
                self.fail(f"is missing ({kind} is required)", key)
            return default
        return value

    def has(self, key: str) -> bool:
        """Return whether ``key`` is present."""
        return key in self.data

    def number(self, key: str, default: Any = _MISSING, *, positive: bool = False) -> Any:
        """Return a finite number as float (``default`` when absent)."""
        value = self._get(key, default, "a number")
        if value is default and default is not _MISSING:
            return value
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            self.fail(f"must be a number, got {_type_name(value)} {_short(value)}", key)
        if isinstance(value, int) and abs(value) > MAX_ABS_NUMBER:
            self.fail(f"is too large ({str(value)[:12]}...); numbers are at most {MAX_ABS_NUMBER:g} in size", key)
        if not math.isfinite(value):
            self.fail(f"must be a finite number, got {_short(value)}", key)
        if positive and value <= 0:
            self.fail(f"must be greater than 0, got {_short(value)}", key)
        return float(value)

    def integer(self, key: str, default: Any = _MISSING) -> Any:
        """Return an integer (``default`` when absent)."""
        value = self._get(key, default, "an integer")
        if value is default and default is not _MISSING:
            return value
        if isinstance(value, bool) or not isinstance(value, int):
            self.fail(f"must be an integer, got {_type_name(value)} {_short(value)}", key)
        if abs(value) > MAX_ABS_NUMBER:
            self.fail(f"is too large ({str(value)[:12]}...); numbers are at most {MAX_ABS_NUMBER:g} in size", key)
        return int(value)

    def string(self, key: str, default: Any = _MISSING, *, choices: Sequence[str] = ()) -> Any:
        """Return a non-empty string, one of ``choices`` when given."""
        value = self._get(key, default, "a string")
        if value is default and default is not _MISSING:
            return value
        if not isinstance(value, str) or not value:
            self.fail(f"must be a non-empty string, got {_type_name(value)} {_short(value)}", key)
        if choices and value not in choices:
            self.fail(f"must be one of {', '.join(choices)}; got {_short(value)}", key)
        return value

    def boolean(self, key: str, default: Any = _MISSING) -> Any:
        """Return a boolean."""
        value = self._get(key, default, "true or false")
        if value is default and default is not _MISSING:
            return value
        if not isinstance(value, bool):
            self.fail(f"must be true or false, got {_type_name(value)} {value!r}", key)
        return value

    def array(self, key: str, default: Any = _MISSING) -> Any:
        """Return a JSON array as a list."""
        value = self._get(key, default, "an array")
        if value is default and default is not _MISSING:
            return value
        if not isinstance(value, list):
            self.fail(f"must be an array, got {_type_name(value)}", key)
        return value

    def numbers(self, key: str, default: Any = _MISSING, *, length: int | None = None) -> Any:
        """Return an array of finite numbers as a tuple of floats."""
        value = self.array(key, default)
        if value is default and default is not _MISSING:
            return value
        if length is not None and len(value) != length:
            self.fail(f"must have {length} numbers, got {len(value)}", key)
        out = []
        for i, item in enumerate(value):
            if (isinstance(item, bool) or not isinstance(item, (int, float))
                    or (isinstance(item, int) and abs(item) > MAX_ABS_NUMBER) or not math.isfinite(item)):
                self.fail(f"[{i}] must be a finite number of at most {MAX_ABS_NUMBER:g}, got {_short(item)}", key)
            out.append(float(item))
        return tuple(out)

    def child(self, key: str, default: Any = _MISSING) -> Any:
        """Return a Reader on the object at ``key`` (``default`` when absent)."""
        value = self._get(key, default, "an object")
        if value is default and default is not _MISSING:
            return value
        return Reader(value, source=self.source, error=self.error, path=self.where(key))

    def children(self, key: str, default: Any = _MISSING) -> Any:
        """Return Readers on each object of the array at ``key``."""
        value = self.array(key, default)
        if value is default and default is not _MISSING:
            return value
        return [
            Reader(item, source=self.source, error=self.error, path=f"{self.where(key)}[{i}]")
            for i, item in enumerate(value)
        ]


def _short(value: Any) -> str:
    """``repr(value)``, cut to 60 characters (a hostile value must not fill the message)."""
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) > 10**30:
        return str(value)[:20] + "..."
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _type_name(value: Any) -> str:
    names = {dict: "an object", list: "an array", str: "a string", bool: "a boolean",
             int: "a number", float: "a number", type(None): "null"}
    return names.get(type(value), type(value).__name__)


def read_json_file(path: str | Path, *, what: str, error: type[ValueError]) -> Any:
    """Return the parsed JSON of the file at ``path``; ``error`` names the file on failure.

    ``what`` names the file for the reader ("setup file", "game file"...).

    Examples
    --------
    >>> read_json_file("/nowhere/setup.json", what="setup file", error=ValueError)
    Traceback (most recent call last):
    ...
    ValueError: /nowhere/setup.json: cannot read the setup file (No such file or directory)
    """
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise error(f"{path}: cannot read the {what} ({exc.strerror or exc})") from None
    return parse_json_text(text, source=str(path), error=error)


def parse_json_text(text: str, *, source: str, error: type[ValueError]) -> Any:
    """Return the parsed JSON ``text``; ``error`` gives the line and column of a syntax error.

    The limits of :mod:`calibration.limits` apply (depth, finite numbers, sizes).
    """
    return parse_json_bounded(text, source=source, error=error)
