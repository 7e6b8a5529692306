"""Authentication and ownership for the LangGraph server (langgraph.json's ``auth``).

Every request is authenticated; there is no anonymous mode:

- ``AGENT_AUTH=dev`` takes the user from the ``X-User-Id`` header. For development only: anyone
  can claim any id.
- ``AGENT_AUTH=jwt`` verifies ``Authorization: Bearer <token>`` with ``AGENT_JWT_SECRET``
  (HS256) or the keys at ``AGENT_JWT_JWKS_URL`` (RS256/ES256), checks expiry and, when set,
  ``AGENT_JWT_AUDIENCE`` / ``AGENT_JWT_ISSUER``, and takes the user from
  ``AGENT_JWT_USER_CLAIM`` (default ``sub``).
- Neither: the server refuses to start.

Ownership: every thread, run and cron is stamped with its creator (``metadata.owner``) and
every read, run, stream, state or history read, update, delete and search is filtered by it,
so another user's thread answers 404 and searches list only your own. Assistants (the graph
itself) are readable by everyone and writable by no one. A run's input is checked before it
is queued: only ``messages``, no message over ``AGENT_MAX_INPUT_CHARS``, and a context that
may name no other user than the caller.
"""

from __future__ import annotations

from typing import Any

from langgraph_sdk import Auth

from agent.errors import ConfigurationError
from agent.server.identity import identity_from_headers, run_input_problem
from agent.settings import Settings

auth = Auth()
_settings = Settings.load()

if _settings.auth is None:
    raise ConfigurationError(
        "AGENT_AUTH is not set: the server will not run without authentication. Set "
        "AGENT_AUTH=dev (trusts an X-User-Id header; development only) or AGENT_AUTH=jwt "
        "with AGENT_JWT_SECRET or AGENT_JWT_JWKS_URL."
    )
if _settings.auth == "jwt" and not (_settings.jwt_secret or _settings.jwt_jwks_url):
    raise ConfigurationError("AGENT_AUTH=jwt needs AGENT_JWT_SECRET or AGENT_JWT_JWKS_URL")


@auth.authenticate
async def authenticate(headers: dict[bytes, bytes]) -> Auth.types.MinimalUserDict:
    return {"identity": identity_from_headers(headers, _settings), "is_authenticated": True}


@auth.on
async def owner_only(ctx: Auth.types.AuthContext, value: Any) -> Auth.types.FilterType:
    """Stamp what is created with its owner; filter everything else by owner."""
    if isinstance(value, dict) and ctx.action == "create":
        _stamp_owner(value, ctx.user.identity)
    return {"owner": ctx.user.identity}


def _stamp_owner(value: dict[str, Any], identity: str) -> None:
    # mutated in place: the server keeps a reference to this metadata dict
    metadata = value.get("metadata")
    if metadata is None:
        metadata = value["metadata"] = {}
    metadata["owner"] = identity


@auth.on.threads.create_run
async def check_run(ctx: Auth.types.AuthContext, value: Any) -> Auth.types.FilterType:
    """Refuse a malformed or spoofing run before it is queued; then the owner filter."""
    kwargs = value.get("kwargs") or {}
    problem = run_input_problem(
        kwargs.get("input"), kwargs.get("context"), ctx.user.identity, _settings.max_input_chars
    )
    if problem is not None:
        status, detail = problem
        raise Auth.exceptions.HTTPException(status_code=status, detail=detail)
    _stamp_owner(value, ctx.user.identity)
    return {"owner": ctx.user.identity}


@auth.on.assistants
async def assistants_are_shared(ctx: Auth.types.AuthContext, value: Any) -> bool:
    """Everyone may read and search the graph's assistants; nobody may change them."""
    return ctx.action in {"read", "search"}


@auth.on.store
async def own_namespace_only(ctx: Auth.types.AuthContext, value: Any) -> bool:
    namespace = tuple(value.get("namespace") or ())
    return bool(namespace) and namespace[0] == ctx.user.identity
