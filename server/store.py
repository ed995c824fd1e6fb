"""The saved game: an SQLite event log (standard library ``sqlite3``, WAL).

Every change to the game is one row of the ``events`` table holding what happened
(``kind``, ``actor``, a JSON ``payload`` the page turns into a log line) and the whole
game file after it. The current game is the last row's game, so a server killed at
any moment (even ``kill -9``) and started again resumes exactly where it was: a
committed row is on disk before the change is shown to anyone.

Undo appends a row too (kind ``undo``) that restores the game as it was before the
last step not yet undone; nothing is ever deleted.

Compact: each distinct game document is stored once, zlib-compressed, in the
``snapshots`` table (keyed by its SHA-256, 128 bits kept); an event row names it (``@<hash>``). A
sample that loops back to the same positions, or an undo, adds a row of a few hundred
bytes, not another copy of the game. Rows written before this (the game as JSON
text) are still read.

When the database cannot be written (disk full, a folder made read-only), the change
is kept in memory, :class:`StorageError` says what to do, and the next change (or
:meth:`GameStore.flush`) writes everything kept as soon as writing works again.

Examples
--------
>>> store = GameStore(":memory:")
>>> doc = {"ruleset": "at-43", "table": {"width_mm": 600.0, "depth_mm": 600.0},
...        "units": [], "models": []}
>>> store.open_game(doc, origin="example").game_id
1
>>> doc2 = dict(doc, name="renamed")
>>> store.record("setup.name", doc2, payload={"name": "renamed"}).kind
'setup.name'
>>> store.current().game["name"]
'renamed'
>>> store.undo().payload["undoes"]
2
>>> "name" in store.current().game
False
>>> store.undo().payload["undoes"]
Traceback (most recent call last):
...
server.store.NothingToUndoError: nothing to undo: the game is as it started
"""

from __future__ import annotations

import hashlib
import json
import logging
import sqlite3
import threading
import time
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Mapping

from server.errors import ServerError, with_fr

log = logging.getLogger(__name__)

SCHEMA = """
CREATE TABLE IF NOT EXISTS games (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    created_s REAL NOT NULL,
    origin TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS events (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    game_id INTEGER NOT NULL REFERENCES games(id),
    at_s REAL NOT NULL,
    actor TEXT NOT NULL,
    kind TEXT NOT NULL,
    payload TEXT NOT NULL,
    game TEXT NOT NULL,
    undone_by INTEGER
);
CREATE INDEX IF NOT EXISTS events_by_game ON events(game_id, id);
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS snapshots (hash TEXT PRIMARY KEY, data BLOB NOT NULL);
"""

NOT_UNDOABLE = ("start", "undo")


class NothingToUndoError(ServerError):
    """Undo was asked but every step of the game is already undone."""

    def __init__(self, message: str, fr: str | None = None) -> None:
        super().__init__(message)
        self.message_fr = fr


class StorageError(OSError):
    """The game database cannot be opened or written; the message says what to do."""


def _storage_error(path: str, exc: BaseException, *, opening: bool) -> StorageError:
    reason = getattr(exc, "strerror", None) or " ".join(str(exc).split())[:120]
    low = reason.lower()
    if "readonly" in low or "read-only" in low or "permission" in low:
        hint = "the folder or file is read-only; give a file in a writable folder with --db PATH"
        hint_fr = ("le dossier ou le fichier est en lecture seule ; donnez un fichier dans un dossier inscriptible "
                   "avec --db CHEMIN")
    elif "full" in low or "space" in low:
        hint = "the disk is full; free some space, or give a file on another disk with --db PATH"
        hint_fr = "le disque est plein ; libérez de la place, ou donnez un fichier sur un autre disque avec --db CHEMIN"
    else:
        hint = "give another file with --db PATH, and check the disk has free space"
        hint_fr = "donnez un autre fichier avec --db CHEMIN, et vérifiez qu'il reste de la place sur le disque"
    what = "cannot open the game database" if opening else "cannot write the game database"
    what_fr = "impossible d'ouvrir la base de la partie" if opening else "impossible d'écrire la base de la partie"
    return with_fr(StorageError(f"{path}: {what} ({reason}); {hint}"),
                   f"{path} : {what_fr} ({reason}) ; {hint_fr}")  # the command line says it in the user's language


@dataclass(frozen=True)
class Event:
    """One row of the event log: what changed, who changed it, the game after it."""

    event_id: int
    game_id: int
    at_s: float
    actor: str
    kind: str
    payload: Mapping[str, Any]
    game: Mapping[str, Any]
    undone_by: int | None = None

    def to_json(self, *, with_game: bool = False) -> dict[str, Any]:
        out: dict[str, Any] = {"id": self.event_id, "at_s": self.at_s, "actor": self.actor,
                               "kind": self.kind, "payload": dict(self.payload),
                               "undone": self.undone_by is not None,
                               "undoable": self.undone_by is None and self.actor != "tracker"
                               and self.kind not in NOT_UNDOABLE}
        if with_game:
            out["game"] = dict(self.game)
        return out


@dataclass(frozen=True)
class Current:
    """The current game of the store: its id, last event id and game document."""

    game_id: int
    event_id: int
    game: Mapping[str, Any]


def origin_of(doc: Mapping[str, Any]) -> str:
    """Return a stable fingerprint of a game document (to know a restart from a new game)."""
    text = json.dumps(doc, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class GameStore:
    """The game database. Thread-safe: one connection guarded by a lock.

    Parameters
    ----------
    path
        The SQLite file (created with its folder when missing), or ``":memory:"``.
    """

    def __init__(self, path: str | Path) -> None:
        self.path = str(path)
        self._lock = threading.RLock()
        try:
            if self.path != ":memory:":
                Path(self.path).parent.mkdir(parents=True, exist_ok=True)
            self._db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
            self._db.execute("PRAGMA journal_mode=WAL")
            # FULL: each committed event is on disk before the change is shown.
            self._db.execute("PRAGMA synchronous=FULL")
            self._db.executescript(SCHEMA)
        except (sqlite3.Error, OSError) as exc:
            raise _storage_error(self.path, exc, opening=True) from None
        self._current: Current | None = None
        self._pending: list[Event] = []  # changes kept in memory while the disk refuses them
        self._last_id = 0

    def close(self) -> None:
        with self._lock:
            self._db.close()

    # -- games -----------------------------------------------------------------
    def resume(self) -> Current | None:
        """Return the game that was being played when the server stopped, if any."""
        with self._lock:
            row = self._db.execute("SELECT value FROM meta WHERE key='current_game'").fetchone()
            if row is None:
                return None
            self._current = self._load_current(int(row[0]))
            return self._current

    def current_origin(self) -> str | None:
        """Return the origin fingerprint of the current game, if any."""
        with self._lock:
            row = self._db.execute(
                "SELECT g.origin FROM meta m JOIN games g ON g.id = CAST(m.value AS INTEGER) "
                "WHERE m.key='current_game'").fetchone()
            return None if row is None else str(row[0])

    def open_game(self, doc: Mapping[str, Any], *, origin: str, actor: str = "server",
                  payload: Mapping[str, Any] | None = None) -> Current:
        """Start a new game from ``doc`` and make it the current one."""
        with self._lock, self._transaction():
            cur = self._db.execute("INSERT INTO games(created_s, origin) VALUES (?, ?)",
                                   (time.time(), origin))
            game_id = int(cur.lastrowid)
            self._db.execute("INSERT OR REPLACE INTO meta(key, value) VALUES ('current_game', ?)",
                             (str(game_id),))
            self._insert(game_id, actor, "start", dict(payload or {}), doc)
        return self._refresh(game_id)

    def current(self) -> Current:
        """Return the current game; :class:`LookupError` when no game was opened."""
        with self._lock:
            if self._current is None:
                raise LookupError("no game is open")
            return self._current

    # -- changes -----------------------------------------------------------------
    def record(self, kind: str, game: Mapping[str, Any], *, actor: str = "user",
               payload: Mapping[str, Any] | None = None) -> Event:
        """Append one change (the game after it) to the current game's log."""
        with self._lock:
            game_id = self.current().game_id
            try:
                self.flush()
                with self._transaction():
                    event = self._insert(game_id, actor, kind, dict(payload or {}), game)
            except StorageError as exc:
                self._last_id = max(self._last_id, self._current.event_id if self._current else 0) + 1
                event = Event(self._last_id, game_id, time.time(), actor, kind, dict(payload or {}), dict(game))
                self._pending.append(event)
                self._current = Current(game_id, event.event_id, event.game)
                log.warning("%s (%d change(s) kept in memory)", exc, len(self._pending))
                raise
            self._current = Current(game_id, event.event_id, event.game)
            return event

    @property
    def unsaved(self) -> int:
        """How many changes are kept in memory, not yet written."""
        with self._lock:
            return len(self._pending)

    def flush(self) -> None:
        """Write the changes kept in memory; :class:`StorageError` when the disk still refuses."""
        with self._lock:
            if not self._pending:
                return
            with self._transaction():
                for e in self._pending:
                    self._insert(e.game_id, e.actor, e.kind, dict(e.payload), e.game, event_id=e.event_id, at_s=e.at_s)
            log.info("game database: %d change(s) kept in memory are now saved", len(self._pending))
            self._pending.clear()

    def undo(self, *, actor: str = "user", event_id: int | None = None,
             adjust: Callable[[dict[str, Any]], dict[str, Any]] | None = None) -> Event:
        """Undo the player's last action, or every action back to ``event_id`` (a log entry).

        Only the players' steps are undone: the camera's (actor ``tracker``: moves and
        first placements) are not steps of their own; the camera corrects itself, and
        ``adjust`` (given the restored game, returning it changed) puts back what it sees
        now. One ``undo`` row restores the game as it was before the (oldest) undone
        action; every action it undoes is marked ``undone_by`` that row.
        """
        with self._lock:
            game_id = self.current().game_id
            self.flush()  # undo reads the log: what memory kept must be written first
            undoable = (f"game_id=? AND undone_by IS NULL AND actor != 'tracker' "
                        f"AND kind NOT IN ({','.join('?' * len(NOT_UNDOABLE))})")
            if event_id is None:
                target = self._db.execute(f"SELECT id, kind FROM events WHERE {undoable} ORDER BY id DESC LIMIT 1",
                                          (game_id, *NOT_UNDOABLE)).fetchone()
                if target is None:
                    raise NothingToUndoError("nothing to undo: the game is as it started",
                                             fr="rien à annuler : la partie est comme au début")
            else:
                target = self._db.execute(f"SELECT id, kind FROM events WHERE {undoable} AND id=?",
                                          (game_id, *NOT_UNDOABLE, event_id)).fetchone()
                if target is None:
                    raise NothingToUndoError(f"log entry {event_id} is not a player's action that can be undone "
                                             "(already undone, a camera sighting, or not in this game)",
                                             fr=f"l'entrée {event_id} du journal n'est pas une action de joueur "
                                                "annulable (déjà annulée, vue par la caméra, ou d'une autre partie)")
            target_id, target_kind = int(target[0]), str(target[1])
            undone = [int(r[0]) for r in self._db.execute(
                f"SELECT id FROM events WHERE {undoable} AND id>=? ORDER BY id", (game_id, *NOT_UNDOABLE, target_id))]
            before = self._db.execute(
                "SELECT game FROM events WHERE game_id=? AND id<? ORDER BY id DESC LIMIT 1",
                (game_id, target_id)).fetchone()
            game = self._game_of(before[0])
            if adjust is not None:
                game = adjust(game)
            with self._transaction():
                event = self._insert(game_id, actor, "undo",
                                     {"undoes": target_id, "undone_kind": target_kind, "undone": undone}, game)
                self._db.execute(f"UPDATE events SET undone_by=? WHERE id IN ({','.join('?' * len(undone))})",
                                 (event.event_id, *undone))
            self._current = Current(game_id, event.event_id, event.game)
            return event

    def events(self, *, limit: int = 200, with_games: bool = False) -> list[Event]:
        """Return the current game's last ``limit`` events, oldest first."""
        with self._lock:
            game_id = self.current().game_id
            rows = self._db.execute(
                "SELECT id, game_id, at_s, actor, kind, payload, game, undone_by FROM events "
                "WHERE game_id=? ORDER BY id DESC LIMIT ?", (game_id, limit)).fetchall()
            saved = [self._event(r, with_games) for r in reversed(rows)]
            kept = [e for e in self._pending if e.game_id == game_id]
        out = saved + (kept if with_games else [Event(e.event_id, e.game_id, e.at_s, e.actor, e.kind, e.payload, {})
                                                for e in kept])
        return out[-limit:]

    def payloads(self, kind: str) -> list[dict[str, Any]]:
        """Return the payloads of the current game's events of ``kind``, oldest first (those kept in memory too)."""
        with self._lock:
            game_id = self.current().game_id
            rows = self._db.execute("SELECT payload FROM events WHERE game_id=? AND kind=? ORDER BY id",
                                    (game_id, kind)).fetchall()
            kept = [dict(e.payload) for e in self._pending if e.game_id == game_id and e.kind == kind]
        return [dict(json.loads(r[0])) for r in rows] + kept

    def count_events(self) -> int:
        with self._lock:
            game_id = self.current().game_id
            return int(self._db.execute("SELECT COUNT(*) FROM events WHERE game_id=?",
                                        (game_id,)).fetchone()[0])

    # -- internals -----------------------------------------------------------------
    def _transaction(self) -> "_Tx":
        return _Tx(self._db, self.path)

    def _insert(self, game_id: int, actor: str, kind: str, payload: dict[str, Any],
                game: Mapping[str, Any], *, event_id: int | None = None, at_s: float | None = None) -> Event:
        at_s = time.time() if at_s is None else at_s
        text = json.dumps(game, ensure_ascii=False, allow_nan=False, separators=(",", ":"))
        digest = hashlib.sha256(text.encode("utf-8")).hexdigest()[:32]  # 128 bits: no collision in a lifetime of games
        self._db.execute("INSERT OR IGNORE INTO snapshots(hash, data) VALUES (?, ?)",
                         (digest, zlib.compress(text.encode("utf-8"), 6)))
        cur = self._db.execute(
            "INSERT INTO events(id, game_id, at_s, actor, kind, payload, game) VALUES (?, ?, ?, ?, ?, ?, ?)",
            (event_id, game_id, at_s, actor, kind,
             json.dumps(payload, ensure_ascii=False, allow_nan=False, separators=(",", ":")), "@" + digest))
        new_id = int(cur.lastrowid)
        self._last_id = max(self._last_id, new_id)
        return Event(new_id, game_id, at_s, actor, kind, payload, dict(game))

    def _game_of(self, stored: str) -> dict[str, Any]:
        """Return the game an event row names (``@<hash>`` of a snapshot, or older rows' JSON)."""
        if not stored.startswith("@"):
            return dict(json.loads(stored))
        row = self._db.execute("SELECT data FROM snapshots WHERE hash=?", (stored[1:],)).fetchone()
        if row is None:
            raise LookupError(f"the game database lacks the game snapshot {stored[1:13]}")
        return dict(json.loads(zlib.decompress(row[0]).decode("utf-8")))

    def _refresh(self, game_id: int) -> Current:
        with self._lock:
            self._current = self._load_current(game_id)
            return self._current

    def _load_current(self, game_id: int) -> Current:
        row = self._db.execute("SELECT id, game FROM events WHERE game_id=? ORDER BY id DESC LIMIT 1",
                               (game_id,)).fetchone()
        if row is None:
            raise LookupError(f"game {game_id} has no events")
        last = self._db.execute("SELECT MAX(id) FROM events").fetchone()
        self._last_id = max(self._last_id, int(last[0] or 0))
        return Current(game_id, int(row[0]), self._game_of(row[1]))

    def _event(self, row: tuple[Any, ...], with_game: bool) -> Event:
        return Event(int(row[0]), int(row[1]), float(row[2]), str(row[3]), str(row[4]),
                     json.loads(row[5]), self._game_of(row[6]) if with_game else {},
                     None if row[7] is None else int(row[7]))


class _Tx:
    """``BEGIN IMMEDIATE`` ... ``COMMIT`` (rolled back on error) on an autocommit connection.

    A database error becomes :class:`StorageError` (what to do: free space, ``--db``).
    """

    def __init__(self, db: sqlite3.Connection, path: str) -> None:
        self.db = db
        self.path = path

    def __enter__(self) -> None:
        try:
            self.db.execute("BEGIN IMMEDIATE")
        except sqlite3.Error as exc:
            raise _storage_error(self.path, exc, opening=False) from None

    def __exit__(self, exc_type: Any, exc: Any, _tb: Any) -> bool:
        try:
            self.db.execute("ROLLBACK" if exc_type else "COMMIT")
        except sqlite3.Error as err:
            if exc_type is None:
                try:
                    self.db.execute("ROLLBACK")
                except sqlite3.Error:
                    pass
                raise _storage_error(self.path, err, opening=False) from None
        if exc_type is not None and issubclass(exc_type, sqlite3.Error):
            raise _storage_error(self.path, exc, opening=False) from None
        return False
