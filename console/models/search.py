"""Search Hugging Face and ModelScope for models, with the picker's fit badges on each result.

Only an explicit search (the picker's Enter, ``models search``) asks a hub anything, and offline
mode (``console.privacy.offline_reason``) refuses with the way out. The search is one request
through the console's HTTP client (``console.net``) with the caller's timeout and no retries, so
a failure is one line at once (huggingface_hub's ``HfApi.list_models`` takes no timeout and retries
a 429, a 5xx or a timeout five times, sleeping up to Retry-After + 1 s in between). The hubs'
public search APIs:

* Hugging Face: ``GET {HF_ENDPOINT}/api/models?search=Q&filter=text-generation&sort=downloads
  &direction=-1&limit=N&expand[]=...``: ``safetensors`` gives the parameter count per dtype (so the
  size of the weights), ``gguf`` the parameter count a GGUF's header declares, ``config`` the
  architecture and ``quantization_config`` (not the layer widths);
* ModelScope: ``GET {MODELSCOPE_ENDPOINT}/openapi/v1/models?search=Q&sort=downloads&task=
  text-generation&page_size=N`` (the OpenAPI its SDK lists with), ``file_size`` for the size.

The shape the planner needs comes from the curated list (same repository), the planner's known
shapes matched by name, or (a fine-tune, a merge) the known shape of the config's ``model_type``
with the same parameter count; otherwise the verdict says plainly "unknown until download" (Check
reads the repository's config.json). A GGUF's badge is for what it becomes: 16-bit weights.
"""

from __future__ import annotations

import json
import urllib.parse
from dataclasses import dataclass, field
from typing import Any

import httpx

from console import net
from console.jobs import TaskState
from console.messages import Message, MessageError
from console.models.curated import (
    CuratedModel,
    FitBadges,
    fit_badges,
    load_curated,
    unknown_badges,
)
from console.models.gguf_info import CONVERTED_BYTES_PER_PARAM, gguf_advice, gguf_names
from console.planner.core import quantization_family
from console.planner.shapes import ModelShape
from console.planner.shape_lookup import known_shape, shape_by_config
from console.models.download import hf_endpoint
from console.models.modelscope_source import ms_endpoint

SEARCH_SOURCES = ("hf", "modelscope")
SOURCE_NAMES = {"hf": "Hugging Face", "modelscope": "ModelScope"}
DEFAULT_LIMIT = 20
DEFAULT_TIMEOUT_S = 15.0
UNKNOWN_SHAPE = Message("unknown until download: the planner reads config.json when you Check the repository")
#: Bytes per parameter of each safetensors dtype the Hub counts.
DTYPE_BYTES = {
    "F64": 8, "I64": 8, "U64": 8, "F32": 4, "I32": 4, "U32": 4, "BF16": 2, "F16": 2, "I16": 2, "U16": 2,
    "F8_E4M3": 1, "F8_E5M2": 1, "I8": 1, "U8": 1, "BOOL": 1,
}  # fmt: skip
_HF_EXPAND = ("downloads", "likes", "safetensors", "gguf", "config", "tags", "pipeline_tag")


class SearchError(MessageError):
    """A search that could not be answered; the message is one line with the way out."""


@dataclass(frozen=True)
class SearchHit:
    repo: str
    source: str
    downloads: int
    likes: int
    size_bytes: int | None  # the weights on disk, where the hub says
    params: int | None
    quantization: str | None  # the planner's family (awq, gptq, fp8, mxfp4); None: 16-bit
    shape_name: str | None  # None: unknown until download
    gguf: bool
    badges: FitBadges
    converted_bytes: int | None = None  # a GGUF: its size as 16-bit weights
    alternatives: list[CuratedModel] = field(default_factory=list)  # a GGUF: the curated checkpoints instead
    model_shape: ModelShape | None = field(default=None, compare=False)  # what the badges planned (None: unknown)

    def to_dict(self) -> dict[str, Any]:
        return {
            "repo": self.repo,
            "source": self.source,
            "downloads": self.downloads,
            "likes": self.likes,
            "size_bytes": self.size_bytes,
            "params": self.params,
            "quantization": self.quantization,
            "shape": self.shape_name,
            "gguf": self.gguf,
            "badges": self.badges.to_dict(),
            "converted_bytes": self.converted_bytes,
            "alternatives": [a.repo for a in self.alternatives],
        }


# -- talking to the hubs ----------------------------------------------------------------------
def base_url(source: str, base: str | None = None) -> str:
    """The hub a search asks: ``base``, else ``HF_ENDPOINT`` / ``MODELSCOPE_ENDPOINT`` (the same
    settings downloads follow), else the public hub."""
    if base:
        return base.rstrip("/")
    if source == "hf":
        return hf_endpoint()

    return ms_endpoint()


def search_url(source: str, query: str, limit: int, base: str | None = None) -> str:
    if source == "hf":
        params: list[tuple[str, str | int]] = [
            ("search", query),
            ("filter", "text-generation"),
            ("sort", "downloads"),
            ("direction", -1),
            ("limit", limit),
        ]
        params += [("expand[]", e) for e in _HF_EXPAND]
        return f"{base_url(source, base)}/api/models?{urllib.parse.urlencode(params)}"
    params = [("search", query), ("sort", "downloads"), ("task", "text-generation"), ("page_number", 1)]
    params.append(("page_size", limit))
    return f"{base_url(source, base)}/openapi/v1/models?{urllib.parse.urlencode(params)}"


def _get_json(http: httpx.Client, url: str, source: str, timeout: float) -> Any:
    """The JSON a hub answers at ``url``; any failure is a :class:`SearchError` of one line."""
    name, host = SOURCE_NAMES[source], net.host(url)
    try:
        response = http.get(url, headers={"Accept": "application/json"})
    except httpx.TimeoutException as exc:
        raise SearchError(
            Message(
                "{0} did not answer within {1} s ({2}): check the network and search again", name, f"{timeout:g}", host
            )
        ) from exc
    except httpx.TransportError as exc:
        raise SearchError(
            Message(
                "Could not reach {0} at {1} ({2}): check the network or the endpoint",
                name,
                host,
                str(exc) or type(exc).__name__,
            )
        ) from exc
    code = response.status_code
    if code == 429:
        retry = response.headers.get("Retry-After")
        raise SearchError(
            Message("{0} is limiting searches (HTTP 429): wait {1} s and search again", name, retry)
            if retry and retry.isdigit()
            else Message("{0} is limiting searches (HTTP 429): wait a minute and search again", name)
        )
    if code >= 500:
        raise SearchError(
            Message(
                "{0} answered HTTP {1} (a problem on its side): search again later, or search {2}",
                name,
                code,
                SOURCE_NAMES["modelscope" if source == "hf" else "hf"],
            )
        )
    if code >= 400:
        raise SearchError(Message("{0} refused the search (HTTP {1} from {2}): check the endpoint", name, code, host))
    try:
        return json.loads(response.content)
    except ValueError as exc:
        not_json = Message("{0} answered something that is not JSON ({1}): check the endpoint", name, host)
        raise SearchError(not_json) from exc


# -- reading the answers ----------------------------------------------------------------------
def _quantization(name: str, config: dict[str, Any] | None) -> str | None:
    method = str(((config or {}).get("quantization_config") or {}).get("quant_method") or "")
    text = f"{method} {name}".lower()
    if method == "compressed-tensors" or not method:  # llm-compressor names its builds
        method = next((q for q in ("fp8", "awq", "gptq", "w4a16", "int4", "mxfp4") if q in text), "")
        method = {"w4a16": "gptq", "int4": "gptq"}.get(method, method)
    try:
        return quantization_family(method) if method else None
    except ValueError:
        return None


def _badges(shape: ModelShape | None, quantization: str | None, device: Any) -> FitBadges:
    if shape is None:
        return unknown_badges(device, UNKNOWN_SHAPE)
    return fit_badges(shape, quantization, device)


def _hit(
    repo: str,
    source: str,
    downloads: int,
    likes: int,
    size: int | None,
    params: int | None,
    config: dict[str, Any] | None,
    is_gguf: bool,
    device: Any,
    curated: dict[str, CuratedModel],
) -> SearchHit:
    known = curated.get(repo)
    model_type = (config or {}).get("model_type")
    shape = known.model_shape if known else known_shape(repo, loose=True) or shape_by_config(model_type, params)
    quantization = None if is_gguf else (known.quantization if known else _quantization(repo, config))
    if is_gguf:  # what the console makes of it: 16-bit weights, and the curated checkpoint instead
        advice = gguf_advice(None, params or (shape.params if shape else None), gguf_names(repo))
        return SearchHit(
            repo, source, downloads, likes, size, advice.params, None, shape.name if shape else None, True,
            _badges(shape, None, device), advice.converted_bytes, advice.alternatives, shape,
        )  # fmt: skip
    return SearchHit(
        repo, source, downloads, likes, size or (known.disk_bytes if known else None),
        params or (shape.params if shape else None), quantization, shape.name if shape else None, False,
        _badges(shape, quantization, device), model_shape=shape,
    )  # fmt: skip


def parse_hf(data: Any, device: Any = None, curated: dict[str, CuratedModel] | None = None) -> list[SearchHit]:
    """Hits from the Hub's ``/api/models`` answer (a JSON list)."""
    if not isinstance(data, list):
        raise SearchError("Hugging Face answered an unexpected shape (not a list of models): check the endpoint")
    curated = curated if curated is not None else {m.repo: m for m in load_curated().models}
    hits = []
    for item in data:
        if not isinstance(item, dict) or not isinstance(item.get("id"), str):
            continue
        st: dict[str, Any] = item["safetensors"] if isinstance(item.get("safetensors"), dict) else {}
        dtypes: dict[str, Any] = st["parameters"] if isinstance(st.get("parameters"), dict) else {}
        size = sum(int(n) * DTYPE_BYTES.get(str(d).upper(), 2) for d, n in dtypes.items()) or None
        gguf: dict[str, Any] | None = item["gguf"] if isinstance(item.get("gguf"), dict) else None
        tags: list[Any] = item["tags"] if isinstance(item.get("tags"), list) else []
        is_gguf = gguf is not None or ("gguf" in tags and not dtypes)
        params = int(gguf["total"]) if gguf and gguf.get("total") else int(st["total"]) if st.get("total") else None
        if dtypes and not is_gguf and size:  # packed int4 counts 8 weights per I32: the size says more
            params = None if _quantization(item["id"], item.get("config")) in ("awq", "gptq") else params
        config = item.get("config") if isinstance(item.get("config"), dict) else None
        if config is None and gguf and gguf.get("architecture"):
            config = {"model_type": gguf["architecture"]}
        hits.append(
            _hit(
                item["id"],
                "hf",
                int(item.get("downloads") or 0),
                int(item.get("likes") or 0),
                size,
                params,
                config,
                is_gguf,
                device,
                curated,
            )  # fmt: skip
        )
    return hits


def parse_modelscope(data: Any, device: Any = None, curated: dict[str, CuratedModel] | None = None) -> list[SearchHit]:
    """Hits from ModelScope's ``/openapi/v1/models`` answer (``{"success", "data": {"models"}}``)."""
    payload = data.get("data", data.get("Data")) if isinstance(data, dict) else None
    if isinstance(data, dict) and data.get("success") is False:
        message = str(data.get("message") or data.get("Message") or "the search was refused")
        raise SearchError(f"ModelScope refused the search ({message}): search again later")
    models = (payload or {}).get("models", (payload or {}).get("Models")) if isinstance(payload, dict) else None
    if not isinstance(models, list):
        raise SearchError("ModelScope answered an unexpected shape (no model list): check MODELSCOPE_ENDPOINT")
    curated = curated if curated is not None else {m.modelscope_repo or m.repo: m for m in load_curated().models}
    hits = []
    for item in models:
        if not isinstance(item, dict):
            continue
        repo = str(item.get("id") or "")
        if "/" not in repo:
            owner, name = item.get("owner") or item.get("Path"), item.get("name") or item.get("Name")
            repo = f"{owner}/{name}" if owner and name else ""
        if not repo:
            continue
        tags = [str(t).lower() for t in item.get("tags") or []]
        is_gguf = "gguf" in tags or repo.lower().endswith("-gguf")
        size = int(item["file_size"]) if isinstance(item.get("file_size"), (int, float)) and item["file_size"] else None
        hits.append(
            _hit(
                repo,
                "modelscope",
                int(item.get("downloads") or 0),
                int(item.get("likes") or 0),
                size,
                None,
                None,
                is_gguf,
                device,
                curated,
            )  # fmt: skip
        )
    return hits


def search_models(
    query: str,
    *,
    source: str = "hf",
    limit: int = DEFAULT_LIMIT,
    device: Any = None,
    base: str | None = None,
    timeout: float = DEFAULT_TIMEOUT_S,
    task: TaskState | None = None,
) -> list[SearchHit]:
    """Search ``source`` for ``query``; each hit carries the badges for ``device`` (see
    ``console.models.curated.picker_card``). Raises :class:`SearchError` with one line."""
    query = query.strip()
    if not query:
        raise SearchError(Message("Type a few words to search for, e.g. qwen3 awq"))
    if source not in SEARCH_SOURCES:
        raise SearchError(f"Unknown source '{source}' (use one of: {', '.join(SEARCH_SOURCES)})")
    try:  # refused in offline mode, before anything is sent
        http = net.client(timeout, hub=Message("searching {0}", SOURCE_NAMES[source]), follow_redirects=True)
    except net.Offline as exc:
        raise SearchError(exc.message) from None
    task = task or TaskState()
    task.report(Message("searching {0}", SOURCE_NAMES[source]), None, query)
    with http:
        data = _get_json(http, search_url(source, query, max(1, min(limit, 100)), base), source, timeout)
    task.check()
    task.report("reading the results", 0.9)
    hits = parse_hf(data, device) if source == "hf" else parse_modelscope(data, device)
    task.report("done", 1.0)
    return hits


__all__ = [
    "CONVERTED_BYTES_PER_PARAM",
    "DEFAULT_LIMIT",
    "SEARCH_SOURCES",
    "SOURCE_NAMES",
    "SearchError",
    "SearchHit",
    "UNKNOWN_SHAPE",
    "base_url",
    "parse_hf",
    "parse_modelscope",
    "search_models",
    "search_url",
]
