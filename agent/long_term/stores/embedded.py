"""The embedded store: one SQLite file in the data directory, no server.

Vectors are float32 blobs; a search scores the user's active memories with one matrix
product over an in-memory copy that is reloaded only when the file changed (``PRAGMA
data_version`` notices other processes' writes). Lexical search uses SQLite's FTS5 index with
its BM25 ranking. Writers in several processes are serialised by SQLite's write lock, and
consolidation for one user by a per-user lock file (``fcntl.flock``).
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import sqlite3
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

import numpy as np
import numpy.typing as npt

from agent.long_term.embeddings import Matrix
from agent.long_term.records import MemoryRecord, MemoryType, utc_now
from agent.long_term.stores.base import MemoryStore, words
from agent.persistence.sqlite_files import SqliteFile

_MIGRATIONS = {
    1: """
    CREATE TABLE IF NOT EXISTS memories (
        id              TEXT PRIMARY KEY,
        user_id         TEXT NOT NULL,
        conversation_id TEXT,
        content         TEXT NOT NULL CHECK (length(trim(content)) > 0),
        memory_type     TEXT NOT NULL CHECK (memory_type IN ('EPISODIC', 'SEMANTIC')),
        created_at      TEXT NOT NULL,
        updated_at      TEXT NOT NULL,
        superseded_by   TEXT,
        embedding       BLOB NOT NULL,
        metadata        TEXT NOT NULL DEFAULT '{}'
    );
    CREATE INDEX IF NOT EXISTS memories_user_active ON memories (user_id, superseded_by);
    CREATE VIRTUAL TABLE IF NOT EXISTS memories_fts USING fts5(
        content, id UNINDEXED, user_id UNINDEXED, tokenize = 'porter unicode61'
    )
    """,
    # v2: the owner becomes an indexed token (the hex of the user id), so a search reads only
    # the postings of that user's memories; superseded memories leave the text index.
    2: """
    DROP TABLE IF EXISTS memories_fts;
    CREATE VIRTUAL TABLE memories_fts USING fts5(
        content, owner, id UNINDEXED, tokenize = 'porter unicode61'
    );
    INSERT INTO memories_fts (content, owner, id)
        SELECT content, lower(hex(user_id)), id FROM memories WHERE superseded_by IS NULL
    """,
}
# a query word found in more than this share of a user's memories is left to the embedding
_RARE_TERM_SHARE = 0.05
_RARE_TERM_FLOOR = 25
_COLUMNS = (
    "id, user_id, conversation_id, content, memory_type, created_at, updated_at, "
    "superseded_by, metadata"
)


@dataclass
class _UserVectors:
    """The active memories of one user, as a matrix for scoring."""

    records: list[MemoryRecord]
    rows_by_id: dict[str, int]
    matrix: Matrix
    types: npt.NDArray[np.str_]
    conversations: npt.NDArray[np.object_]


class EmbeddedMemoryStore(MemoryStore):
    """Long-term memories in a SQLite file; safe with several threads and processes."""

    name = "embedded"

    def __init__(self, path: Path) -> None:
        self.path = path
        self._file = SqliteFile(path, "long-term memory", _MIGRATIONS)
        self._lock_dir = path.parent / f"{path.name}.locks"
        self._lock_dir.mkdir(parents=True, exist_ok=True)
        self._cache: dict[str, _UserVectors] = {}
        self._seen_version = -1

    def close(self) -> None:
        self._file.close()

    # -- writes ------------------------------------------------------------------------------
    def add(self, records: Sequence[MemoryRecord]) -> None:
        rows = []
        for record in records:
            if record.embedding is None:
                raise ValueError(f"memory {record.id} has no embedding")
            rows.append(
                (
                    record.id,
                    record.user_id,
                    record.conversation_id,
                    record.content,
                    record.memory_type.value,
                    record.created_at.isoformat(),
                    record.updated_at.isoformat(),
                    record.superseded_by,
                    np.asarray(record.embedding, dtype=np.float32).tobytes(),
                    json.dumps(record.metadata),
                )
            )
        with self._file.transaction() as conn:
            conn.executemany(
                f"INSERT INTO memories ({_COLUMNS}, embedding) VALUES (?,?,?,?,?,?,?,?,?,?)",
                [(*r[:8], r[9], r[8]) for r in rows],
            )
            conn.executemany(
                "INSERT INTO memories_fts (content, owner, id) VALUES (?, ?, ?)",
                [(r[3], _owner_token(r[1]), r[0]) for r in rows if r[7] is None],
            )
            self._forget_cache({r[1] for r in rows})

    def supersede(self, user_id: str, old_id: str, new_id: str) -> None:
        with self._file.transaction() as conn:
            updated = conn.execute(
                "UPDATE memories SET superseded_by = ?, updated_at = ? "
                "WHERE id = ? AND user_id = ?",
                (new_id, utc_now().isoformat(), old_id, user_id),
            ).rowcount
            if updated:
                conn.execute("DELETE FROM memories_fts WHERE id = ?", (old_id,))
            self._forget_cache({user_id})

    def delete(self, user_id: str, memory_id: str) -> bool:
        with self._file.transaction() as conn:
            deleted = conn.execute(
                "DELETE FROM memories WHERE id = ? AND user_id = ?", (memory_id, user_id)
            ).rowcount
            if deleted:
                conn.execute("DELETE FROM memories_fts WHERE id = ?", (memory_id,))
            self._forget_cache({user_id})
        return deleted > 0

    def delete_user(self, user_id: str) -> int:
        with self._file.transaction() as conn:
            deleted = conn.execute("DELETE FROM memories WHERE user_id = ?", (user_id,)).rowcount
            conn.execute(
                "DELETE FROM memories_fts WHERE memories_fts MATCH ?",
                (f'owner:"{_owner_token(user_id)}"',),
            )
            self._forget_cache({user_id})
        return int(deleted)

    @contextmanager
    def user_lock(self, user_id: str) -> Iterator[None]:
        digest = hashlib.sha256(user_id.encode()).hexdigest()[:32]
        with (self._lock_dir / f"{digest}.lock").open("a") as handle:
            fcntl.flock(handle, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(handle, fcntl.LOCK_UN)

    # -- reads -------------------------------------------------------------------------------
    def vector_search(
        self,
        user_id: str,
        vector: Matrix,
        k: int,
        *,
        memory_type: MemoryType | None = None,
        conversation_id: str | None = None,
    ) -> list[tuple[MemoryRecord, float]]:
        vectors = self._user_vectors(user_id)
        if not vectors.records:
            return []
        scores = vectors.matrix @ np.asarray(vector, dtype=np.float32)
        if memory_type is not None:
            scores = np.where(vectors.types == memory_type.value, scores, -np.inf)
        if conversation_id is not None:
            scores = np.where(vectors.conversations == conversation_id, scores, -np.inf)
        k = min(k, len(scores))
        top = np.argpartition(-scores, k - 1)[:k]
        top = top[np.argsort(-scores[top])]
        return [(vectors.records[i], float(scores[i])) for i in top if np.isfinite(scores[i])]

    def similarities(self, user_id: str, ids: Sequence[str], vector: Matrix) -> dict[str, float]:
        vectors = self._user_vectors(user_id)
        rows = [vectors.rows_by_id[i] for i in ids if i in vectors.rows_by_id]
        if not rows:
            return {}
        scores = vectors.matrix[rows] @ np.asarray(vector, dtype=np.float32)
        return {vectors.records[r].id: float(s) for r, s in zip(rows, scores, strict=True)}

    def lexical_search(
        self, user_id: str, query: str, k: int, *, conversation_id: str | None = None
    ) -> list[tuple[MemoryRecord, float]]:
        owner = f'owner:"{_owner_token(user_id)}"'
        with self._file.lock:
            terms = self._distinctive_terms(
                owner, words(query), len(self._user_vectors(user_id).records)
            )
            if not terms:
                return []
            match = f"{owner} AND ({' OR '.join(terms)})"
            # over-fetch when a conversation filter will drop some of the user's matches
            limit = k * 4 if conversation_id is not None else k
            ranked = self._file.conn.execute(
                "SELECT id, bm25(memories_fts, 1.0, 0.0) AS rank FROM memories_fts "
                "WHERE memories_fts MATCH ? ORDER BY rank LIMIT ?",
                (match, limit),
            ).fetchall()
            if not ranked:
                return []
            marks = ",".join("?" * len(ranked))
            rows = self._file.conn.execute(
                f"SELECT {_COLUMNS} FROM memories WHERE id IN ({marks}) AND user_id = ?",
                [row["id"] for row in ranked] + [user_id],
            ).fetchall()
        records = {row["id"]: _record(row) for row in rows}
        hits = [
            (records[row["id"]], -float(row["rank"]))
            for row in ranked
            if row["id"] in records
            and records[row["id"]].active
            and (conversation_id is None or records[row["id"]].conversation_id == conversation_id)
        ]
        return hits[:k]

    def _distinctive_terms(self, owner: str, terms: list[str], total: int) -> list[str]:
        """The query terms rare enough in this user's memories to carry lexical signal.

        A word in a large share of the memories adds almost nothing to BM25 but costs a scan
        of all its postings; the embedding already covers such words. Each count reads one
        posting list, which is cheap.
        """
        most = max(_RARE_TERM_FLOOR, int(total * _RARE_TERM_SHARE))
        distinctive = []
        for term in dict.fromkeys(terms):
            quoted = f'"{term}"'
            count = self._file.conn.execute(
                "SELECT count(*) FROM memories_fts WHERE memories_fts MATCH ?",
                (f"{owner} AND {quoted}",),
            ).fetchone()[0]
            if 0 < count <= most:
                distinctive.append(quoted)
        return distinctive

    def list(self, user_id: str, *, include_superseded: bool = False) -> list[MemoryRecord]:
        sql = f"SELECT {_COLUMNS} FROM memories WHERE user_id = ?"
        if not include_superseded:
            sql += " AND superseded_by IS NULL"
        with self._file.lock:
            rows = self._file.conn.execute(sql + " ORDER BY created_at, id", (user_id,)).fetchall()
        return [_record(row) for row in rows]

    def get(self, user_id: str, memory_id: str) -> MemoryRecord | None:
        with self._file.lock:
            row = self._file.conn.execute(
                f"SELECT {_COLUMNS} FROM memories WHERE id = ? AND user_id = ?",
                (memory_id, user_id),
            ).fetchone()
        return _record(row) if row else None

    def count(self, user_id: str | None = None) -> int:
        with self._file.lock:
            if user_id is None:
                row = self._file.conn.execute("SELECT count(*) FROM memories").fetchone()
            else:
                row = self._file.conn.execute(
                    "SELECT count(*) FROM memories WHERE user_id = ?", (user_id,)
                ).fetchone()
        return int(row[0])

    # -- cache -------------------------------------------------------------------------------
    def _user_vectors(self, user_id: str) -> _UserVectors:
        with self._file.lock:
            version = self._file.conn.execute("PRAGMA data_version").fetchone()[0]
            if version != self._seen_version:  # another process wrote: start afresh
                self._cache.clear()
                self._seen_version = version
            cached = self._cache.get(user_id)
            if cached is not None:
                return cached
            rows = self._file.conn.execute(
                f"SELECT {_COLUMNS}, embedding FROM memories "
                "WHERE user_id = ? AND superseded_by IS NULL ORDER BY created_at, id",
                (user_id,),
            ).fetchall()
            records = [_record(row) for row in rows]
            matrix = (
                np.vstack([np.frombuffer(row["embedding"], dtype=np.float32) for row in rows])
                if rows
                else np.zeros((0, 0), dtype=np.float32)
            )
            vectors = _UserVectors(
                records=records,
                rows_by_id={record.id: row for row, record in enumerate(records)},
                matrix=matrix,
                types=np.array([r.memory_type.value for r in records], dtype=np.str_),
                conversations=np.array([r.conversation_id for r in records], dtype=object),
            )
            self._cache[user_id] = vectors
            return vectors

    def _forget_cache(self, user_ids: set[str]) -> None:
        for user_id in user_ids:
            self._cache.pop(user_id, None)


def _owner_token(user_id: str) -> str:
    """The user id as one text-index token (the lower-case hex of its UTF-8 bytes)."""
    return user_id.encode().hex()


def _record(row: sqlite3.Row) -> MemoryRecord:
    return MemoryRecord(
        id=row["id"],
        user_id=row["user_id"],
        conversation_id=row["conversation_id"],
        content=row["content"],
        memory_type=MemoryType(row["memory_type"]),
        created_at=datetime.fromisoformat(row["created_at"]),
        updated_at=datetime.fromisoformat(row["updated_at"]),
        superseded_by=row["superseded_by"],
        metadata=json.loads(row["metadata"]),
    )
