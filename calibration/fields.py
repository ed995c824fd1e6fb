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

import errno
import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from types import MappingProxyType
from typing import Any

from calibration.limits import MAX_ABS_NUMBER, parse_json_bounded

_MISSING = object()
# source names that are words, not file names: said in the user's language (file.source.<name>)
_GENERIC_SOURCES = ("game file", "imported game", "game", "roster", "setup file")


def source_param(source: str) -> Any:
    """Return a file's name as a message parameter: a message itself for a generic name ("game file")."""
    if source in _GENERIC_SOURCES:
        return _message(f"file.source.{source.replace(' ', '_')}")
    return source


_OS_REASONS = {errno.ENOENT: "not_found", errno.EACCES: "denied", errno.EPERM: "denied", errno.EISDIR: "is_dir"}


def os_reason(exc: OSError) -> Any:
    """Return why a file cannot be read, as a message parameter (``file.os.<why>``, else the system's words)."""
    why = _OS_REASONS.get(exc.errno or 0)
    return _message(f"file.os.{why}") if why else str(exc.strerror or exc)


def names_param(names: Sequence[str]) -> Any:
    """Return a list of names as a message parameter: the names, or the message "(none)" when empty."""
    return list(names) or _message("file.none")


def _message(msg_id: str, **params: Any) -> dict[str, Any]:
    """A message as a parameter of another (``{"msg", "params"}``, see ``tabletracker.i18n``)."""
    return {"msg": msg_id, "params": params}


def _type_message(value: Any) -> dict[str, Any]:
    """The JSON type of ``value`` as a message (``file.type.<name>``)."""
    return _message(f"file.type.{_TYPE_IDS.get(type(value), 'other')}", name=type(value).__name__)


class Reader:
    """Read fields of one JSON object, raising ``error`` with file and path on anything wrong."""

    def __init__(
        self, data: Any, *, source: str, error: type[ValueError], path: str = ""
    ) -> None:
        self.source = source
        self.error = error
        self.path = path
        if not isinstance(data, Mapping):
            self.fail(f"must be a JSON object, got {_type_name(data)}", None, "not_object",
                      {"got": _type_message(data)})
        self.data: Mapping[str, Any] = data

    # -- errors ---------------------------------------------------------------
    def where(self, key: str | None = None) -> str:
        """Return the dotted path of ``key`` (or of this object) for messages."""
        if key is None:
            return self.path or "the top level"
        return f"{self.path}.{key}" if self.path else key

    def fail(self, message: str, key: str | None = None, msg: str | None = None,
             params: Mapping[str, Any] | None = None) -> None:
        """Raise this reader's error about ``key`` (or the whole object).

        ``msg`` and ``params`` give the message id (``file.<msg>``) and its parameters, to which
        the file (``source``) and the field (``where``) are added: an error class that carries
        message ids (``rules.errors.RulesError``: its instances have ``msg_id``) gets them, so the
        edges word it in French or English; the English ``message`` stays the fallback.
        """
        sep = "" if message.startswith("[") else " "
        exc = self.error(f"{self.source}: {self.where(key)}{sep}{message}")
        if msg is not None and hasattr(exc, "msg_id"):
            exc.msg_id = f"file.{msg}"
            exc.params = MappingProxyType(  # type: ignore[attr-defined]
                {**self.message_params(key), **(params or {})})
        raise exc

    def message_params(self, key: str | None = None) -> dict[str, Any]:
        """Return the ``source`` and ``where`` parameters of a message about ``key`` (or this object).

        A generic source name ("game file", "imported game"...) and "the top level" are messages
        themselves, so they are said in the reader's language too.

        >>> Reader({}, source="game file", error=ValueError).message_params()
        {'source': {'msg': 'file.source.game_file', 'params': {}}, 'where': {'msg': 'file.top_level', 'params': {}}}
        """
        where: Any = self.where(key)
        if key is None and not self.path:
            where = _message("file.top_level")
        return {"source": source_param(self.source), "where": where}

    def only(self, allowed: Sequence[str]) -> None:
        """Refuse keys outside ``allowed``; unknown keys are never silently ignored."""
        unknown = sorted(set(self.data) - set(allowed))
        if unknown:
            self.fail(
                f"has unknown key(s) {', '.join(map(repr, unknown))}; "
                f"allowed keys are {', '.join(allowed)}",
                None, "unknown_keys", {"keys": [repr(k) for k in unknown], "allowed": list(allowed)},
            )

    # -- typed getters ----------------------------------------------------------
    def _get(self, key: str, default: Any, kind: str) -> Any:
        value = self.data.get(key, _MISSING)
        if value is _MISSING:
            if default is _MISSING:
                self.fail(f"is missing ({kind} is required)", key, "missing",
                          {"kind": _message(f"file.kind.{_KIND_IDS[kind]}")})
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
            self.fail(f"must be a number, got {_type_name(value)} {_short(value)}", key, "not_number",
                      {"got": _type_message(value), "value": _short(value)})
        if isinstance(value, int) and abs(value) > MAX_ABS_NUMBER:
            self.fail(f"is too large ({str(value)[:12]}...); numbers are at most {MAX_ABS_NUMBER:g} in size", key,
                      "too_large", {"value": f"{str(value)[:12]}...", "limit": f"{MAX_ABS_NUMBER:g}"})
        if not math.isfinite(value):
            self.fail(f"must be a finite number, got {_short(value)}", key, "not_finite", {"value": _short(value)})
        if positive and value <= 0:
            self.fail(f"must be greater than 0, got {_short(value)}", key, "not_positive", {"value": _short(value)})
        return float(value)

    def integer(self, key: str, default: Any = _MISSING) -> Any:
        """Return an integer (``default`` when absent)."""
        value = self._get(key, default, "an integer")
        if value is default and default is not _MISSING:
            return value
        if isinstance(value, bool) or not isinstance(value, int):
            self.fail(f"must be an integer, got {_type_name(value)} {_short(value)}", key, "not_integer",
                      {"got": _type_message(value), "value": _short(value)})
        if abs(value) > MAX_ABS_NUMBER:
            self.fail(f"is too large ({str(value)[:12]}...); numbers are at most {MAX_ABS_NUMBER:g} in size", key,
                      "too_large", {"value": f"{str(value)[:12]}...", "limit": f"{MAX_ABS_NUMBER:g}"})
        return int(value)

    def string(self, key: str, default: Any = _MISSING, *, choices: Sequence[str] = ()) -> Any:
        """Return a non-empty string, one of ``choices`` when given."""
        value = self._get(key, default, "a string")
        if value is default and default is not _MISSING:
            return value
        if not isinstance(value, str) or not value:
            self.fail(f"must be a non-empty string, got {_type_name(value)} {_short(value)}", key, "not_string",
                      {"got": _type_message(value), "value": _short(value)})
        if choices and value not in choices:
            self.fail(f"must be one of {', '.join(choices)}; got {_short(value)}", key, "not_choice",
                      {"choices": list(choices), "value": _short(value)})
        return value

    def boolean(self, key: str, default: Any = _MISSING) -> Any:
        """Return a boolean."""
        value = self._get(key, default, "true or false")
        if value is default and default is not _MISSING:
            return value
        if not isinstance(value, bool):
            self.fail(f"must be true or false, got {_type_name(value)} {value!r}", key, "not_boolean",
                      {"got": _type_message(value), "value": _short(value)})
        return value

    def array(self, key: str, default: Any = _MISSING) -> Any:
        """Return a JSON array as a list."""
        value = self._get(key, default, "an array")
        if value is default and default is not _MISSING:
            return value
        if not isinstance(value, list):
            self.fail(f"must be an array, got {_type_name(value)}", key, "not_array", {"got": _type_message(value)})
        return value

    def numbers(self, key: str, default: Any = _MISSING, *, length: int | None = None) -> Any:
        """Return an array of finite numbers as a tuple of floats."""
        value = self.array(key, default)
        if value is default and default is not _MISSING:
            return value
        if length is not None and len(value) != length:
            self.fail(f"must have {length} numbers, got {len(value)}", key, "count",
                      {"count": length, "got": len(value)})
        out = []
        for i, item in enumerate(value):
            if (isinstance(item, bool) or not isinstance(item, (int, float))
                    or (isinstance(item, int) and abs(item) > MAX_ABS_NUMBER) or not math.isfinite(item)):
                self.fail(f"[{i}] must be a finite number of at most {MAX_ABS_NUMBER:g}, got {_short(item)}", key,
                          "item_not_number", {"index": i, "limit": f"{MAX_ABS_NUMBER:g}", "value": _short(item)})
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


_TYPE_IDS = {dict: "object", list: "array", str: "string", bool: "boolean", int: "number", float: "number",
             type(None): "null"}
_KIND_IDS = {"a number": "number", "an integer": "integer", "a string": "string", "true or false": "boolean",
             "an array": "array", "an object": "object"}


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
        err = error(f"{path}: cannot read the {what} ({exc.strerror or exc})")
        if hasattr(err, "msg_id"):  # an error that carries message ids (rules.errors): worded at the edges
            err.msg_id = "file.unreadable"
            err.params = MappingProxyType(  # type: ignore[attr-defined]
                {"source": str(path), "what": source_param(what), "reason": os_reason(exc)})
        raise err from None
    return parse_json_text(text, source=str(path), error=error)


def parse_json_text(text: str, *, source: str, error: type[ValueError]) -> Any:
    """Return the parsed JSON ``text``; ``error`` gives the line and column of a syntax error.

    The limits of :mod:`calibration.limits` apply (depth, finite numbers, sizes).
    """
    return parse_json_bounded(text, source=source, error=error)
