"""The game database: WAL, one row per change, undo as a row, resume after reopening."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from server.store import GameStore, NothingToUndoError, origin_of
from tests.server.conftest import small_game


def game(name: str) -> dict:
    return {**small_game(), "name": name}


def test_every_change_is_a_row_and_the_database_is_in_wal_mode(tmp_path: Path) -> None:
    path = tmp_path / "sub" / "game.db"
    store = GameStore(path)
    store.open_game(game("a"), origin="o")
    for name in ("b", "c"):
        store.record("setup.name", game(name), payload={"name": name})
    store.close()
    db = sqlite3.connect(path)
    assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    kinds = [r[0] for r in db.execute("SELECT kind FROM events ORDER BY id")]
    db.close()
    assert kinds == ["start", "setup.name", "setup.name"]


@pytest.mark.parametrize("undos, expected", [(1, "b"), (2, "a")])
def test_undo_walks_back_through_steps_and_is_itself_logged(tmp_path: Path, undos: int, expected: str) -> None:
    store = GameStore(tmp_path / "g.db")
    store.open_game(game("a"), origin="o")
    store.record("x", game("b"))
    store.record("x", game("c"))
    for _ in range(undos):
        store.undo()
    assert store.current().game["name"] == expected
    events = store.events()
    assert [e.kind for e in events][-undos:] == ["undo"] * undos
    assert sum(e.undone_by is not None for e in events) == undos


def test_undo_after_an_undo_and_a_new_step(tmp_path: Path) -> None:
    store = GameStore(tmp_path / "g.db")
    store.open_game(game("a"), origin="o")
    store.record("x", game("b"))
    store.undo()  # back to a
    store.record("x", game("c"))
    store.undo()  # c undone: back to a (the game after the first undo)
    assert store.current().game["name"] == "a"
    with pytest.raises(NothingToUndoError):
        store.undo()


def test_reopening_resumes_the_current_game(tmp_path: Path) -> None:
    path = tmp_path / "g.db"
    first = GameStore(path)
    first.open_game(game("a"), origin=origin_of(game("a")))
    first.record("x", game("b"))
    first.close()
    again = GameStore(path)
    assert again.current_origin() == origin_of(game("a"))
    current = again.resume()
    assert current is not None and current.game["name"] == "b"
    again.close()


def test_an_unusable_database_path_is_a_clear_error(tmp_path: Path) -> None:
    folder = tmp_path / "adir"
    folder.mkdir()
    with pytest.raises(OSError, match="cannot open the game database"):
        GameStore(folder)
