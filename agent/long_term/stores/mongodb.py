"""MongoDB Atlas vector search through langchain-mongodb's ``MongoDBAtlasVectorSearch``.

Works with MongoDB Atlas and ``mongodb/mongodb-atlas-local``. At start-up the store pings the
server (an unreachable URL is an error naming it, password masked) and creates the vector
search index — with filter fields for user, type, conversation and the active flag — when it
is missing. Similarities are recomputed from the returned vectors, so they are plain cosines
whatever score normalisation the server applies (Atlas reports (1 + cos) / 2).

Consolidation for one user is serialised across processes by a lock document with an owner
token and an expiry, so a crashed holder cannot block the user forever.
"""

from __future__ import annotations

import logging
import time
import uuid
from collections.abc import Iterator, Sequence
from contextlib import contextmanager, suppress
from datetime import UTC, datetime, timedelta
from typing import Any
from urllib.parse import urlsplit

import numpy as np
from langchain_core.embeddings import Embeddings
from langchain_mongodb import MongoDBAtlasVectorSearch
from pymongo import MongoClient
from pymongo.collection import Collection
from pymongo.errors import DuplicateKeyError, OperationFailure, PyMongoError
from pymongo.operations import SearchIndexModel

from agent.errors import BackendUnavailableError
from agent.long_term.embeddings import Matrix, embed_query
from agent.long_term.records import MemoryRecord, MemoryType, utc_now
from agent.long_term.stores.base import MemoryStore
from agent.settings import mask_url

log = logging.getLogger("agent.long_term")
DEFAULT_DATABASE = "travel_agent"
COLLECTION = "memories"
LOCKS = "memory_locks"
INDEX_NAME = "memory_vector_index"
FILTER_FIELDS = ("user_id", "memory_type", "conversation_id", "active")
LOCK_TTL = timedelta(seconds=30)


def vector_index_definition(dimensions: int) -> dict[str, Any]:
    """The Atlas ``vectorSearch`` index this store needs: the vector and its filter fields."""
    return {
        "fields": [
            {"type": "vector", "path": "embedding", "numDimensions": dimensions,
             "similarity": "cosine"},
            *({"type": "filter", "path": field} for field in FILTER_FIELDS),
        ]
    }  # fmt: skip


def create_search_index_once(
    collection: Collection[dict[str, Any]], model: SearchIndexModel
) -> None:
    """Create a search index, or accept the one another process created a moment before.

    Whether the index exists is checked first, then it is created: two processes starting
    against a new collection both see none, and the second one's create fails. If the index
    is there after the failure, the other process won the race; any other failure is raised.
    """
    try:
        collection.create_search_index(model)
    except OperationFailure:
        name = model.document["name"]
        if name not in {index["name"] for index in collection.list_search_indexes(name)}:
            raise


class MongoMemoryStore(MemoryStore):
    """Long-term memories in a MongoDB collection with an Atlas vector search index."""

    name = "mongodb"

    def __init__(self, client: MongoClient[dict[str, Any]], database: str, embeddings: Embeddings):
        self._client = client
        self._collection: Collection[dict[str, Any]] = client[database][COLLECTION]
        self._locks: Collection[dict[str, Any]] = client[database][LOCKS]
        self.vector_store = MongoDBAtlasVectorSearch(
            self._collection,
            embeddings,
            index_name=INDEX_NAME,
            text_key="content",
            embedding_key="embedding",
            relevance_score_fn="cosine",
            auto_create_index=False,
        )
        self._embeddings = embeddings

    @classmethod
    def from_url(cls, url: str, embeddings: Embeddings) -> MongoMemoryStore:
        """Connect, check the server answers, and make sure the index exists."""
        database = urlsplit(url).path.strip("/") or DEFAULT_DATABASE
        client: MongoClient[dict[str, Any]] = MongoClient(url, serverSelectionTimeoutMS=5000)
        try:
            client.admin.command("ping")
        except PyMongoError as exc:
            client.close()
            raise BackendUnavailableError(
                f"cannot reach MongoDB at {mask_url(url)}: {str(exc).splitlines()[0]}"
            ) from exc
        store = cls(client, database, embeddings)
        store.ensure_index()
        return store

    def ensure_index(self, timeout: float = 120) -> None:
        """Create the vector search index when it is missing, and wait until it is queryable."""
        try:
            existing = {ix["name"]: ix for ix in self._collection.list_search_indexes()}
        except OperationFailure as exc:
            # Servers without search-index management over the wire (local stand-ins) cannot
            # be checked here; the first search fails loudly if the index is really missing.
            log.warning("cannot list search indexes (%s); assuming %s exists", exc, INDEX_NAME)
            return
        if INDEX_NAME not in existing:
            dimensions = len(embed_query(self._embeddings, "dimension probe"))
            with suppress(PyMongoError):  # the collection may exist already
                self._collection.database.create_collection(COLLECTION)
            create_search_index_once(
                self._collection,
                SearchIndexModel(
                    definition=vector_index_definition(dimensions),
                    name=INDEX_NAME,
                    type="vectorSearch",
                ),
            )
        deadline = time.monotonic() + timeout
        while True:
            indexes = {ix["name"]: ix for ix in self._collection.list_search_indexes()}
            index = indexes.get(INDEX_NAME, {})
            if index.get("queryable", index.get("status") in {None, "READY"}):
                return
            if time.monotonic() > deadline:
                raise BackendUnavailableError(f"the index {INDEX_NAME} did not become queryable")
            time.sleep(1)

    def close(self) -> None:
        self._client.close()

    # -- writes ------------------------------------------------------------------------------
    def add(self, records: Sequence[MemoryRecord]) -> None:
        documents = []
        base = time.time_ns()  # insertion order: Mongo dates keep only milliseconds
        for offset, record in enumerate(records):
            if record.embedding is None:
                raise ValueError(f"memory {record.id} has no embedding")
            documents.append({**_document(record), "seq": base + offset})
        if documents:
            self._collection.insert_many(documents, ordered=True)

    def supersede(self, user_id: str, old_id: str, new_id: str) -> None:
        self._collection.update_one(
            {"_id": old_id, "user_id": user_id},
            {"$set": {"superseded_by": new_id, "active": False, "updated_at": utc_now()}},
        )

    def delete(self, user_id: str, memory_id: str) -> bool:
        result = self._collection.delete_one({"_id": memory_id, "user_id": user_id})
        return result.deleted_count > 0

    def delete_user(self, user_id: str) -> int:
        return int(self._collection.delete_many({"user_id": user_id}).deleted_count)

    @contextmanager
    def user_lock(self, user_id: str) -> Iterator[None]:
        token = uuid.uuid4().hex
        while True:
            now = datetime.now(UTC)
            try:
                self._locks.find_one_and_update(
                    {"_id": user_id, "expires_at": {"$lt": now}},
                    {"$set": {"owner": token, "expires_at": now + LOCK_TTL}},
                    upsert=True,
                )
                break
            except DuplicateKeyError:  # held by someone else and not expired
                time.sleep(0.05)
        try:
            yield
        finally:
            self._locks.delete_one({"_id": user_id, "owner": token})

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
        pre_filter: dict[str, Any] = {"user_id": {"$eq": user_id}, "active": {"$eq": True}}
        if memory_type is not None:
            pre_filter["memory_type"] = {"$eq": memory_type.value}
        if conversation_id is not None:
            pre_filter["conversation_id"] = {"$eq": conversation_id}
        query = np.asarray(vector, dtype=np.float32)
        documents = self.vector_store.similarity_search_by_vector(
            query.tolist(), k=k, pre_filter=pre_filter, include_embeddings=True
        )
        scored = []
        for document in documents:
            data = {**document.metadata, "content": document.page_content}
            scored.append((_record(data), _cosine(data.get("embedding", []), query)))
        scored.sort(key=lambda pair: pair[1], reverse=True)
        return scored

    def similarities(self, user_id: str, ids: Sequence[str], vector: Matrix) -> dict[str, float]:
        query = np.asarray(vector, dtype=np.float32)
        result = {}
        for data in self._collection.find(
            {"_id": {"$in": list(ids)}, "user_id": user_id, "active": True},
            {"embedding": 1},
        ):
            result[str(data["_id"])] = _cosine(data["embedding"], query)
        return result

    def list(self, user_id: str, *, include_superseded: bool = False) -> list[MemoryRecord]:
        query: dict[str, Any] = {"user_id": user_id}
        if not include_superseded:
            query["active"] = True
        documents = list(self._collection.find(query, {"embedding": 0}))
        # Sorted here, not by the server: stand-ins differ in compound sorts on dates.
        documents.sort(key=lambda d: (_when(d["created_at"]), d.get("seq", 0)))
        return [_record(data) for data in documents]

    def get(self, user_id: str, memory_id: str) -> MemoryRecord | None:
        data = self._collection.find_one({"_id": memory_id, "user_id": user_id}, {"embedding": 0})
        return _record(data) if data else None

    def count(self, user_id: str | None = None) -> int:
        return int(
            self._collection.count_documents({} if user_id is None else {"user_id": user_id})
        )


def _cosine(stored: Sequence[float], query: Matrix) -> float:
    """Cosine of a stored vector to a unit-length query."""
    vector = np.asarray(stored, dtype=np.float32)
    norm = float(np.linalg.norm(vector))
    return float(np.dot(vector, query)) / max(norm, 1e-12)


def _document(record: MemoryRecord) -> dict[str, Any]:
    return {
        "_id": record.id,
        "user_id": record.user_id,
        "conversation_id": record.conversation_id,
        "content": record.content,
        "memory_type": record.memory_type.value,
        "created_at": record.created_at,
        "updated_at": record.updated_at,
        "superseded_by": record.superseded_by,
        "active": record.superseded_by is None,
        "metadata": record.metadata,
        "embedding": [float(x) for x in record.embedding or []],
    }


def _when(value: Any) -> datetime:
    if isinstance(value, datetime):
        return value if value.tzinfo else value.replace(tzinfo=UTC)
    return datetime.fromisoformat(str(value))


def _record(data: dict[str, Any]) -> MemoryRecord:
    return MemoryRecord(
        id=str(data["_id"]),
        user_id=data["user_id"],
        conversation_id=data.get("conversation_id"),
        content=data["content"],
        memory_type=MemoryType(data["memory_type"]),
        created_at=_when(data["created_at"]),
        updated_at=_when(data["updated_at"]),
        superseded_by=data.get("superseded_by"),
        metadata=data.get("metadata") or {},
    )
