"""The API routes a running vLLM server offers beyond chat completions, each with an example.

Which routes a server has depends on its vLLM version and its model (a text model's server has
``/v1/completions``, and where its version has them the Responses API and Anthropic-style
``/v1/messages``; an embedding model's has ``/v1/embeddings``): :func:`offered_routes` reads them
from the server's own ``/openapi.json`` (:func:`read_openapi`), never from a list of versions.
:func:`route_examples` gives a curl command for each known route the server offers, with the
server's URL, its served model name and the key filled in. No Qt here.
"""

from __future__ import annotations

import json
import shlex
from dataclasses import dataclass
from typing import Any, Callable

from console import net

#: The example bodies of the routes the Server tab lists after chat completions, in its order.
_BODIES: dict[str, Callable[[str], dict[str, Any]]] = {
    "/v1/completions": lambda model: {"model": model, "prompt": "Once upon a time", "max_tokens": 32},
    "/v1/responses": lambda model: {"model": model, "input": "Hello!", "max_output_tokens": 32},
    "/v1/messages": lambda model: {
        "model": model,
        "max_tokens": 32,
        "messages": [{"role": "user", "content": "Hello!"}],
    },
    "/v1/embeddings": lambda model: {"model": model, "input": "Hello!"},
}
#: What each route is, as the tab names it (vLLM's and the APIs' own names).
ROUTE_TITLES = {
    "/v1/completions": "Completions (OpenAI)",
    "/v1/responses": "Responses (OpenAI)",
    "/v1/messages": "Messages (Anthropic)",
    "/v1/embeddings": "Embeddings (OpenAI)",
}
KNOWN_ROUTES = tuple(_BODIES)


@dataclass(frozen=True)
class ApiRoute:
    """One route a server offers: its path, what it is, its example body and the curl command."""

    path: str
    title: str
    body: dict[str, Any]
    curl: str


def curl_command(root: str, path: str, body: dict[str, Any], api_key: str | None) -> str:
    """A POST of ``body`` (JSON) to ``root + path`` with curl, the key as a bearer token (vLLM
    checks it so on every route, the Anthropic-style one included)."""
    lines = [f"curl {root}{path}", '-H "Content-Type: application/json"']
    if api_key:
        lines.append(f'-H "Authorization: Bearer {api_key}"')
    lines.append(f"-d {shlex.quote(json.dumps(body))}")
    return " \\\n  ".join(lines)


def server_root(base_url: str) -> str:
    """The server's address without the ``/v1`` of a base URL."""
    return base_url[: -len("/v1")] if base_url.endswith("/v1") else base_url.rstrip("/")


def read_openapi(root: str, timeout_s: float = 10.0) -> dict[str, Any]:
    """The server's OpenAPI description (``/openapi.json``: vLLM's key guards ``/v1`` only);
    raises ``httpx.HTTPError`` when it cannot be read."""
    resp = net.get(server_root(root) + "/openapi.json", timeout_s)
    resp.raise_for_status()
    data = resp.json()
    return data if isinstance(data, dict) else {}


def offered_routes(openapi: dict[str, Any]) -> list[str]:
    """The paths an OpenAPI description offers for POST, in its order."""
    paths = openapi.get("paths") or {}
    return [p for p, ops in paths.items() if isinstance(ops, dict) and "post" in ops]


def route_examples(base_url: str, model: str, api_key: str | None, offered: list[str]) -> list[ApiRoute]:
    """An example for each known route in ``offered`` (:func:`offered_routes`), in the tab's order."""
    root = server_root(base_url)
    out = []
    for path in KNOWN_ROUTES:
        if path in offered:
            body = _BODIES[path](model)
            out.append(ApiRoute(path, ROUTE_TITLES[path], body, curl_command(root, path, body, api_key)))
    return out


__all__ = [
    "ApiRoute",
    "KNOWN_ROUTES",
    "ROUTE_TITLES",
    "curl_command",
    "offered_routes",
    "read_openapi",
    "route_examples",
    "server_root",
]
