"""Custom HTTP routes served beside the LangGraph API (langgraph.json's ``http``).

    GET    /conversations/{id}/messages   the kept history: [{"role", "content"}]
    DELETE /conversations/{id}            delete a conversation and every checkpoint of it
    GET    /memories                      the caller's long-term memories
    DELETE /memories/{id}                 forget one memory
    DELETE /memories                      forget me: all of the caller's memories,
                                          conversations and bookings

Every route is authenticated by the same handler as the API (``enable_custom_route_auth``)
and acts only on the caller's own data: a conversation or memory of someone else answers 404,
exactly like one that does not exist. Conversations are reached through the server's own API
in process, checked against the owner stamped on each thread; errors are JSON
``{"error": …}``.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from typing import Any

import httpx
from langgraph_sdk import get_client
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from agent.context import normalize_id
from agent.errors import AgentError
from agent.factory import bookings_path, open_memory_service
from agent.long_term.memory import MemoryService
from agent.settings import Settings
from agent.tools import BookingStore

_ROLES = {"human": "user", "ai": "assistant", "system": "system", "tool": "tool"}


class _Resources:
    memory: MemoryService
    bookings: BookingStore


resources = _Resources()


@contextlib.asynccontextmanager
async def lifespan(app: Starlette) -> AsyncIterator[None]:
    settings = Settings.load()
    with contextlib.ExitStack() as stack:
        # opening files is blocking work: done in a worker thread
        resources.memory = await run_in_threadpool(
            stack.enter_context, open_memory_service(settings, model=None)
        )
        resources.bookings = await run_in_threadpool(BookingStore, bookings_path(settings))
        stack.callback(resources.bookings.close)
        yield


def _error(status: int, message: str) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status)


def _identity(request: Request) -> str:
    return str(request.user.identity)


def _conversation_id(request: Request) -> str:
    return normalize_id("conversation_id", request.path_params["conversation_id"])


async def _owned_thread(request: Request) -> str | JSONResponse:
    """The conversation id of the path if the caller owns it, else the error response.

    The in-process client acts with the server's own rights, so ownership is checked here,
    against the owner the auth handler stamped on the thread at creation.
    """
    try:
        conversation_id = _conversation_id(request)
    except AgentError as exc:
        return _error(422, str(exc))
    missing = _error(404, f"conversation {conversation_id} not found")
    try:
        thread = await get_client().threads.get(conversation_id)
    except httpx.HTTPStatusError as exc:
        return missing if exc.response.status_code in {403, 404, 422} else _upstream(exc)
    if (thread.get("metadata") or {}).get("owner") != _identity(request):
        return missing
    return conversation_id


async def conversation_messages(request: Request) -> JSONResponse:
    owned = await _owned_thread(request)
    if isinstance(owned, JSONResponse):
        return owned
    state = await get_client().threads.get_state(owned)
    values = state.get("values") if state else None
    messages = values.get("messages", []) if isinstance(values, dict) else []
    return JSONResponse([_public_message(m) for m in messages])


async def delete_conversation(request: Request) -> JSONResponse:
    owned = await _owned_thread(request)
    if isinstance(owned, JSONResponse):
        return owned
    await get_client().threads.delete(owned)
    return JSONResponse({"deleted": owned})


async def list_memories(request: Request) -> JSONResponse:
    records = await run_in_threadpool(resources.memory.list_memories, _identity(request))
    return JSONResponse([r.public() for r in records])


async def forget_memory(request: Request) -> JSONResponse:
    memory_id = request.path_params["memory_id"]
    if not await run_in_threadpool(resources.memory.forget, _identity(request), memory_id):
        return _error(404, f"memory {memory_id} not found")
    return JSONResponse({"deleted": memory_id})


async def forget_me(request: Request) -> JSONResponse:
    """Everything of the caller's: memories, conversations (with their checkpoints), bookings."""
    user_id = _identity(request)
    client = get_client()
    conversations = 0
    while True:
        threads = await client.threads.search(metadata={"owner": user_id}, limit=100)
        if not threads:
            break
        for thread in threads:
            await client.threads.delete(thread["thread_id"])
            conversations += 1
    memories = await run_in_threadpool(resources.memory.forget_user, user_id)
    bookings = await run_in_threadpool(resources.bookings.delete_user, user_id)
    return JSONResponse(
        {"memories": memories, "conversations": conversations, "bookings": bookings}
    )


def _upstream(exc: httpx.HTTPStatusError) -> JSONResponse:
    return _error(exc.response.status_code, exc.response.text)


def _public_message(message: dict[str, Any]) -> dict[str, Any]:
    content = message.get("content", "")
    if not isinstance(content, str):
        content = "".join(
            block.get("text", "") if isinstance(block, dict) else str(block) for block in content
        )
    return {
        "role": _ROLES.get(str(message.get("type")), str(message.get("type"))),
        "content": content,
    }


app = Starlette(
    routes=[
        Route("/conversations/{conversation_id}/messages", conversation_messages, methods=["GET"]),
        Route("/conversations/{conversation_id}", delete_conversation, methods=["DELETE"]),
        Route("/memories", list_memories, methods=["GET"]),
        Route("/memories", forget_me, methods=["DELETE"]),
        Route("/memories/{memory_id}", forget_memory, methods=["DELETE"]),
    ],
    lifespan=lifespan,
)
