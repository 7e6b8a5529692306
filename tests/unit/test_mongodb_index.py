"""The vector search index the MongoDB store creates, checked against Atlas' format."""

from __future__ import annotations

from langchain_mongodb.index import _vector_search_index_definition

from agent.long_term.stores.mongodb import FILTER_FIELDS, vector_index_definition


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
