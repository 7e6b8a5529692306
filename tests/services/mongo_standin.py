"""A MongoDB wire-protocol stand-in for the Atlas store's integration tests.

No MongoDB server can be installed on the machines this project is tested on, so the tests
talk real pymongo to `mongoeco` (Python 3.13+), served on a local port. Its known limits: search
indexes cannot be created over the wire, so the vector index is created here, in process,
before serving (without "filter" fields, which mongoeco rejects; it still honours pre-filters
on any field); scores are raw cosines, not Atlas' (1 + cos) / 2. A stand-in, not Atlas.

Usage: python mongo_standin.py PORT [DIMENSIONS]   (prints "READY <port>" when serving)
"""

from __future__ import annotations

import asyncio
import sys

from mongoeco import AsyncMongoClient, SearchIndexModel
from mongoeco.wire.proxy import AsyncMongoEcoProxyServer

DATABASE = "travel_agent_test"
COLLECTION = "memories"
INDEX = "memory_vector_index"


async def serve(port: int, dimensions: int) -> None:
    client = AsyncMongoClient()
    collection = client[DATABASE][COLLECTION]
    await client[DATABASE].create_collection(COLLECTION)
    await collection.create_search_index(
        SearchIndexModel(
            {
                "fields": [
                    {"type": "vector", "path": "embedding", "numDimensions": dimensions,
                     "similarity": "cosine"}
                ]
            },
            name=INDEX,
            type="vectorSearch",
        )
    )  # fmt: skip
    server = AsyncMongoEcoProxyServer(client=client, port=port)
    address = await server.start()
    print(f"READY {address.port}", flush=True)
    await asyncio.Event().wait()


if __name__ == "__main__":
    asyncio.run(serve(int(sys.argv[1]), int(sys.argv[2]) if len(sys.argv) > 2 else 384))
