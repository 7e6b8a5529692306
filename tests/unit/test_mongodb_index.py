"""The vector search index the MongoDB store creates, checked against Atlas' format, and
created once when several processes start at the same moment."""

from __future__ import annotations

from typing import Any, cast

import pytest
from langchain_mongodb.index import _vector_search_index_definition
from pymongo.collection import Collection
from pymongo.errors import OperationFailure
from pymongo.operations import SearchIndexModel

from agent.long_term.stores.mongodb import (
    FILTER_FIELDS,
    INDEX_NAME,
    create_search_index_once,
    vector_index_definition,
)


def test_the_index_is_an_atlas_vector_search_definition_with_filter_fields() -> None:
    definition = vector_index_definition(384)
    assert set(definition) == {"fields"}
    vector, *filters = definition["fields"]
    assert vector == {
        "type": "vector",
        "path": "embedding",
        "numDimensions": 384,
        "similarity": "cosine",
    }
    assert filters == [{"type": "filter", "path": field} for field in FILTER_FIELDS]
    assert {"user_id", "memory_type", "conversation_id"} <= set(FILTER_FIELDS)


def test_the_definition_matches_what_langchain_mongodb_itself_builds() -> None:
    expected = _vector_search_index_definition(
        dimensions=384, path="embedding", similarity="cosine", filters=list(FILTER_FIELDS)
    )
    assert vector_index_definition(384) == expected


class RacedCollection:
    """The search-index calls of a collection whose create fails: ``listed`` says whether
    the index is there afterwards (another process created it) or not (a real failure).
    The MongoDB stand-in cannot manage search indexes, so this path has no server to run on.
    """

    def __init__(self, listed: list[str]) -> None:
        self.listed = listed

    def create_search_index(self, model: SearchIndexModel) -> str:
        raise OperationFailure("Duplicate Index", code=68)

    def list_search_indexes(self, name: str | None = None) -> list[dict[str, Any]]:
        return [{"name": n} for n in self.listed if name in (None, n)]


def _model() -> SearchIndexModel:
    return SearchIndexModel(
        definition=vector_index_definition(384), name=INDEX_NAME, type="vectorSearch"
    )


def test_an_index_another_process_created_first_is_accepted() -> None:
    collection = cast(Collection[dict[str, Any]], RacedCollection(listed=[INDEX_NAME]))
    create_search_index_once(collection, _model())


def test_a_failed_create_with_no_index_afterwards_is_raised() -> None:
    collection = cast(Collection[dict[str, Any]], RacedCollection(listed=["other_index"]))
    with pytest.raises(OperationFailure, match="Duplicate Index"):
        create_search_index_once(collection, _model())
