"""Who is calling, and whether a run's input is acceptable: the server's checks as plain
functions, so they are tested without a server (auth.py wires them into langgraph.json)."""

from __future__ import annotations

from functools import cache
from typing import Any

from langgraph_sdk import Auth

from agent.context import normalize_id
from agent.errors import AgentError
from agent.messages import message_text
from agent.settings import Settings

ALLOWED_INPUT_KEYS = {"messages"}
ALLOWED_CONTEXT_KEYS = {"user_id", "conversation_id"}


def _unauthorized(detail: str) -> Auth.exceptions.HTTPException:
    return Auth.exceptions.HTTPException(status_code=401, detail=detail)


def identity_from_headers(headers: dict[bytes, bytes], settings: Settings) -> str:
    """The caller's user id, or an HTTP 401 that says what is wrong."""
    if settings.auth == "dev":
        raw = headers.get(b"x-user-id")
        if not raw:
            raise _unauthorized("missing X-User-Id header (AGENT_AUTH=dev)")
        return _valid_user(raw.decode("utf-8", "replace"))
    authorization = headers.get(b"authorization", b"").decode("utf-8", "replace")
    scheme, _, token = authorization.partition(" ")
    if scheme.lower() != "bearer" or not token:
        raise _unauthorized("missing bearer token")
    return _valid_user(str(verify_token(token.strip(), settings).get(settings.jwt_user_claim, "")))


def verify_token(token: str, settings: Settings) -> dict[str, Any]:
    """The claims of a valid token; HTTP 401 for an invalid, expired or foreign one."""
    import jwt

    options: Any = {"require": ["exp"], "verify_aud": settings.jwt_audience is not None}
    try:
        if settings.jwt_secret is not None:
            key: Any = settings.jwt_secret.get_secret_value()
            algorithms = ["HS256"]
        else:
            assert settings.jwt_jwks_url is not None
            key = _jwks_client(settings.jwt_jwks_url).get_signing_key_from_jwt(token).key
            algorithms = ["RS256", "ES256"]
        claims: dict[str, Any] = jwt.decode(
            token,
            key,
            algorithms=algorithms,
            audience=settings.jwt_audience,
            issuer=settings.jwt_issuer,
            options=options,
        )
    except jwt.PyJWTError as exc:
        raise _unauthorized(f"invalid token: {exc}") from exc
    return claims


@cache
def _jwks_client(url: str) -> Any:
    """One client per JWKS URL, so keys are fetched once and cached, not per request."""
    import jwt

    return jwt.PyJWKClient(url, cache_keys=True)


def _valid_user(raw: str) -> str:
    try:
        return normalize_id("user_id", raw)
    except AgentError as exc:
        raise _unauthorized(str(exc)) from exc


def run_input_problem(
    run_input: Any, context: Any, identity: str, max_chars: int
) -> tuple[int, str] | None:
    """Why a run's input or context is unacceptable, as (HTTP status, detail); None if fine."""
    return _input_problem(run_input, max_chars) or _context_problem(context, identity)


def _input_problem(run_input: Any, max_chars: int) -> tuple[int, str] | None:
    if run_input is None:
        return None
    if not isinstance(run_input, dict):
        return 422, "input must be an object with 'messages'"
    unknown = set(run_input) - ALLOWED_INPUT_KEYS
    if unknown:
        return 422, f"unknown input fields {sorted(unknown)}; only 'messages' is accepted"
    for message in run_input.get("messages") or []:
        size = len(_content_text(message))
        if size > max_chars:
            return 413, (
                f"message: {size} characters is over the limit of {max_chars} "
                "(AGENT_MAX_INPUT_CHARS)"
            )
    return None


def _context_problem(context: Any, identity: str) -> tuple[int, str] | None:
    if context is None:
        return None
    if not isinstance(context, dict):
        return 422, "context must be an object"
    unknown = set(context) - ALLOWED_CONTEXT_KEYS
    if unknown:
        return 422, f"unknown context fields {sorted(unknown)}"
    claimed = context.get("user_id")
    if claimed is not None and str(claimed) != identity:
        return 403, "context.user_id must be the authenticated user (or left out)"
    return None


def _content_text(message: Any) -> str:
    if isinstance(message, dict):
        content = message.get("content", "")
        return content if isinstance(content, str) else str(content)
    if isinstance(message, (list, tuple)) and len(message) == 2:
        return str(message[1])
    return message_text(message) if hasattr(message, "content") else str(message)
