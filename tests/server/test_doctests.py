"""The examples in the server's docstrings run (``server/`` is not in pytest's doctest paths)."""

from __future__ import annotations

import doctest
import importlib

import pytest

MODULES = ["server.store", "server.broadcast", "server.edits", "server.validate", "server.bands",
           "server.tracking"]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name: str) -> None:
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0
