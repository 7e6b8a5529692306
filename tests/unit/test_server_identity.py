"""The server's identity and input checks, without a server: dev headers, JWT (shared secret
and JWKS), and the run-input rules."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, HTTPServer
from typing import Any

import jwt
import pytest
from cryptography.hazmat.primitives.asymmetric import rsa
from langgraph_sdk import Auth
from pydantic import SecretStr

from agent.server.identity import identity_from_headers, run_input_problem
from agent.settings import Settings

SECRET = "test-secret-that-is-long-enough-for-hs256"


def token(
    claims: dict[str, Any], key: Any = SECRET, algorithm: str = "HS256", **headers: Any
) -> str:
    return jwt.encode({"exp": int(time.time()) + 60, **claims}, key, algorithm=algorithm,
                      headers=headers or None)  # fmt: skip


def bearer(value: str) -> dict[bytes, bytes]:
    return {b"authorization": f"Bearer {value}".encode()}


def rejected(headers: dict[bytes, bytes], settings: Settings) -> str:
    with pytest.raises(Auth.exceptions.HTTPException) as error:
        identity_from_headers(headers, settings)
    assert error.value.status_code == 401
    return str(error.value.detail)


def test_dev_mode_takes_the_user_from_the_header() -> None:
    settings = Settings(auth="dev")
    assert identity_from_headers({b"x-user-id": b"alice"}, settings) == "alice"
    assert "missing X-User-Id" in rejected({}, settings)
    assert "user_id" in rejected({b"x-user-id": b"not valid!"}, settings)


def test_jwt_mode_verifies_a_shared_secret_and_reads_the_configured_claim() -> None:
    settings = Settings(auth="jwt", jwt_secret=SecretStr(SECRET), jwt_user_claim="uid")
    assert identity_from_headers(bearer(token({"uid": "alice", "sub": "x"})), settings) == "alice"
    assert "missing bearer" in rejected({}, settings)
    assert "invalid token" in rejected(
        bearer(token({"uid": "a"}, key="wrong-secret-" * 3)), settings
    )
    expired = jwt.encode({"uid": "alice", "exp": int(time.time()) - 5}, SECRET, algorithm="HS256")
    assert "expired" in rejected(bearer(expired), settings)
    assert "invalid token" in rejected(bearer("not.a.token"), settings)


def test_jwt_audience_and_issuer_are_enforced_when_set() -> None:
    settings = Settings(
        auth="jwt", jwt_secret=SecretStr(SECRET), jwt_audience="travel", jwt_issuer="idp"
    )
    good = token({"sub": "alice", "aud": "travel", "iss": "idp"})
    assert identity_from_headers(bearer(good), settings) == "alice"
    rejected(bearer(token({"sub": "alice", "aud": "other", "iss": "idp"})), settings)
    rejected(bearer(token({"sub": "alice", "aud": "travel", "iss": "evil"})), settings)


@pytest.fixture
def jwks_server() -> Iterator[tuple[str, Any]]:
    """A JWKS endpoint on 127.0.0.1 publishing one RSA key; yields its URL and the key."""
    private = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    jwk = json.loads(jwt.algorithms.RSAAlgorithm.to_jwk(private.public_key()))
    body = json.dumps({"keys": [{**jwk, "kid": "k1", "use": "sig", "alg": "RS256"}]}).encode()

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: Any) -> None:
            pass

    server = HTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}/jwks.json", private
    finally:
        server.shutdown()
        server.server_close()


def test_jwt_mode_verifies_rs256_tokens_against_a_jwks(jwks_server: tuple[str, Any]) -> None:
    url, private = jwks_server
    settings = Settings(auth="jwt", jwt_jwks_url=url)
    signed = token({"sub": "alice"}, key=private, algorithm="RS256", kid="k1")
    assert identity_from_headers(bearer(signed), settings) == "alice"
    stranger = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    rejected(bearer(token({"sub": "alice"}, key=stranger, algorithm="RS256", kid="k1")), settings)


@pytest.mark.parametrize(
    ("run_input", "context", "expected"),
    [
        ({"messages": [{"role": "user", "content": "hi"}]}, {"user_id": "alice"}, None),
        ({"messages": [{"role": "user", "content": "x" * 101}]}, None, 413),
        ({"messages": [("user", "x" * 101)]}, None, 413),
        ({"messages": [], "owner": "bob"}, None, 422),
        ("hello", None, 422),
        (None, {"user_id": "bob"}, 403),
        (None, {"tenant": "acme"}, 422),
        (None, ["alice"], 422),
    ],
)
def test_run_input_rules(run_input: Any, context: Any, expected: int | None) -> None:
    problem = run_input_problem(run_input, context, "alice", max_chars=100)
    assert (problem[0] if problem else None) == expected
