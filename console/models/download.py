"""Downloading models from Hugging Face (or a mirror of it) and ModelScope into the store.

The flow is the same whatever the source: list the repository's files with their sizes and
hashes, pick the files a checkpoint needs (safetensors over ``.bin``; one GGUF file out of many),
read ``config.json`` so the planner can say whether the model fits *before* gigabytes move, check
the free disk space, then fetch each file into a download folder that survives interruptions
(``<store>/.downloads/<repo>@<commit>``), verify sizes and hashes, and only then hand the folder
to the store's staging (``add_staged``), so a model appears in the registry only when complete.

Hugging Face: ``huggingface_hub`` lists the repository and builds URLs and headers (so
``HF_ENDPOINT`` mirrors and ``HF_TOKEN`` work); the file bodies are fetched here through the
console's HTTP client (``console.net``) with ``Range`` requests into ``<file>.part`` files,
because huggingface_hub 2.x deletes its partial files on failure and so cannot resume across
runs, and because cancel and progress must be ours.
ModelScope (``console.models.modelscope_source``): its own SDK lists with sha256 and downloads
file by file into the same folder.
"""

from __future__ import annotations

import fnmatch
import os
import shutil
from pathlib import Path, PurePosixPath
from typing import Any, Callable

import httpx

from console import net
from console.jobs import Cancelled, TaskState
from console.messages import Message
from console.models.modelscope_source import modelscope_fetch, modelscope_listing, ms_fetch_small
from console.models.remote_files import (
    DISK_FULL,
    DownloadError,
    Meter,
    Preview,
    RemoteFile,
    RepoListing,
    verify_file,
)
from console.models.store import ModelEntry, ModelStore, suggest_name, validate_name
from console.units import human_bytes
from console.models.gguf_info import GgufError, gguf_advice, gguf_names, read_gguf_remote, shape_from_gguf
from console.models.importers import import_gguf
from console.planner import PlanRequest, ShapeError, plan
from console.planner.shapes import ModelShape
from console.planner.shape_lookup import known_shape

SOURCES = ("hf", "modelscope")
_SKIP_EXTS = (".md", ".png", ".jpg", ".jpeg", ".gif", ".pdf")
_SKIP_NAMES = {".gitattributes", "LICENSE", "LICENSE.txt", "NOTICE"}
#: Room kept free beyond the download itself (logs, the registry, the OS).
DEFAULT_RESERVE_BYTES = 512 * 1024**2


def default_pull_name(repo: str) -> str:
    """The store name a pull of ``repo`` gets unless the user picks one: the repository's last
    part, cleaned to the store's name rules."""
    return suggest_name(repo.rstrip("/").split("/")[-1])


# -- listing ----------------------------------------------------------------------------------
def hf_endpoint(endpoint: str | None = None) -> str:
    """The Hub (or mirror) to talk to, read at call time so ``HF_ENDPOINT`` set later counts."""
    return (endpoint or os.environ.get("HF_ENDPOINT") or "https://huggingface.co").rstrip("/")


def _hf_error(exc: Exception, repo: str, what: str) -> DownloadError:
    from huggingface_hub import errors

    if isinstance(exc, errors.GatedRepoError):
        return DownloadError(f"{repo} is gated: accept its licence on the Hub and set HF_TOKEN")
    if isinstance(exc, errors.RepositoryNotFoundError):
        return DownloadError(f"No repository '{repo}' on {hf_endpoint()} (or it is private: set HF_TOKEN)")
    if isinstance(exc, errors.RevisionNotFoundError):
        return DownloadError(f"{repo} has no revision by that name")
    if isinstance(exc, errors.EntryNotFoundError):
        return DownloadError(f"{what} is not in {repo}")
    return DownloadError(f"Could not reach {hf_endpoint()} for {what} of {repo}: {exc}")


def _answer_error(r: httpx.Response, repo: str, what: str) -> DownloadError:
    """A Hub answer that is not a success, said as :func:`_hf_error` says huggingface_hub's
    errors (the Hub names the case in its ``X-Error-Code`` header)."""
    code = r.headers.get("X-Error-Code")
    if code == "GatedRepo":
        return DownloadError(f"{repo} is gated: accept its licence on the Hub and set HF_TOKEN")
    if code == "RepoNotFound" or (r.status_code == 401 and not code):
        return DownloadError(f"No repository '{repo}' on {hf_endpoint()} (or it is private: set HF_TOKEN)")
    if code == "RevisionNotFound":
        return DownloadError(f"{repo} has no revision by that name")
    if code == "EntryNotFound":
        return DownloadError(f"{what} is not in {repo}")
    said = r.headers.get("X-Error-Message") or r.reason_phrase
    return DownloadError(f"Could not get {what} of {repo} from {hf_endpoint()}: HTTP {r.status_code} {said}".rstrip())


def _file_request(
    listing: RepoListing, path: str, endpoint: str | None, token: str | None
) -> tuple[str, dict[str, str]]:
    """The URL and headers (``HF_TOKEN``'s authorization) of one file of a Hugging Face listing."""
    from huggingface_hub import hf_hub_url
    from huggingface_hub.utils import build_hf_headers

    url = hf_hub_url(listing.repo, path, revision=listing.commit, endpoint=hf_endpoint(endpoint))
    return url, dict(build_hf_headers(token=token))


def list_files(
    repo: str, *, source: str = "hf", revision: str | None = None, endpoint: str | None = None, token: str | None = None
) -> RepoListing:
    if source == "modelscope":
        return modelscope_listing(repo, revision)
    if source != "hf":
        raise DownloadError(f"Unknown source '{source}' (use one of: {', '.join(SOURCES)})")
    from huggingface_hub import HfApi

    try:
        info = HfApi(endpoint=hf_endpoint(endpoint), token=token).model_info(
            repo, revision=revision, files_metadata=True
        )
    except Exception as exc:
        raise _hf_error(exc, repo, "the file list") from exc
    files = [
        RemoteFile(s.rfilename, s.size, s.lfs.sha256 if s.lfs else None, None if s.lfs else s.blob_id)
        for s in info.siblings or []
    ]
    return RepoListing(repo, "hf", str(info.sha or revision or "main"), files)


# -- choosing files ---------------------------------------------------------------------------
def choose_files(
    files: list[RemoteFile], *, include: list[str] | None = None, variant: str | None = None
) -> tuple[list[RemoteFile], str | None]:
    """The files a checkpoint needs, and the GGUF file to convert (if that is what it is)."""
    top = [
        f for f in files if "/" not in f.path and f.path not in _SKIP_NAMES and not f.path.lower().endswith(_SKIP_EXTS)
    ]
    wanted = [f for f in files if include and any(fnmatch.fnmatch(f.path, p) for p in include)]
    if include and not wanted:
        raise DownloadError(f"No file matches {', '.join(include)}")
    pool = wanted if include else files
    ggufs = [f for f in pool if f.path.lower().endswith(".gguf")]
    safetensors = [f for f in top if f.path.endswith(".safetensors")]
    if ggufs and (include or variant or not safetensors):
        if variant:
            ggufs = [f for f in ggufs if variant.lower() in PurePosixPath(f.path).name.lower()]
        if len(ggufs) != 1:
            shown = ggufs or [f for f in pool if f.path.endswith(".gguf")]
            names = ", ".join(PurePosixPath(f.path).name for f in shown)
            raise DownloadError(
                f"Pick one GGUF file with --variant or --include (choices: {names})"
                if ggufs or not variant
                else f"No GGUF file matches '{variant}' (choices: {names})"
            )
        return ggufs, ggufs[0].path
    if include:
        weights = [f for f in wanted if f.is_weight]
    elif safetensors:
        weights = safetensors + [f for f in top if f.path == "model.safetensors.index.json"]
    else:
        weights = [
            f for f in top if f.path.endswith((".bin", ".bin.index.json")) or f.path == "pytorch_model.bin.index.json"
        ]
    if not any(f.is_weight for f in weights):
        raise DownloadError("This repository has no safetensors, .bin or GGUF weights the console can load")
    extras = [f for f in top if not f.is_weight and not f.path.endswith(".index.json")]
    chosen = {f.path: f for f in [*extras, *weights, *(wanted if include else [])]}
    return sorted(chosen.values(), key=lambda f: f.path), None


# -- preview: size and the planner's verdict before anything big moves -------------------------
def _fetch_small(
    listing: RepoListing, path: str, endpoint: str | None, token: str | None, first_bytes: int | None = None
) -> bytes:
    """A small file, or the first ``first_bytes`` of a big one (an HTTP Range request)."""
    url, headers = _file_request(listing, path, endpoint, token)
    if first_bytes:
        headers.update({"Range": f"bytes=0-{first_bytes - 1}", "Accept-Encoding": "identity"})
    try:
        with net.client(30, follow_redirects=True) as http, http.stream("GET", url, headers=headers) as r:
            if r.status_code >= 400:
                r.read()
                raise _answer_error(r, listing.repo, path)
            data = bytearray()
            for chunk in r.iter_bytes():  # a server that ignores Range: stop after what was asked
                data += chunk
                if first_bytes and len(data) >= first_bytes:
                    break
            return bytes(data[:first_bytes] if first_bytes else data)
    except DownloadError:
        raise
    except httpx.HTTPError as exc:
        raise DownloadError(f"Could not reach {hf_endpoint(endpoint)} for {path} of {listing.repo}: {exc}") from exc


def plan_verdict(config: dict[str, Any], name: str, gpu: Any, max_model_len: int | None = None) -> tuple[str, str]:
    try:
        shape = ModelShape.from_hf_config(config, name)
        p = plan(PlanRequest(shape, gpu=gpu, quantization=shape.quantization, max_model_len=max_model_len))
    except (ShapeError, ValueError, KeyError) as exc:
        return "unknown", str(exc)
    figures = (f"{p.loaded_weights_bytes / 2**30:.1f}", p.kv_tokens, p.request.profile.name)
    if not p.problems:
        return str(p.verdict), Message("{0} GiB of weights, {1} tokens of KV cache on {2}", *figures)
    problems = p.problems[0]
    for more in p.problems[1:]:
        problems = Message("{0}; {1}", problems, more)
    return str(p.verdict), Message("{0} GiB of weights, {1} tokens of KV cache on {2}; {3}", *figures, problems)


def preview(
    repo: str,
    *,
    source: str = "hf",
    revision: str | None = None,
    include: list[str] | None = None,
    variant: str | None = None,
    gpu: Any = "rtx-4090",
    max_model_len: int | None = None,
    endpoint: str | None = None,
    token: str | None = None,
    listing: RepoListing | None = None,
) -> Preview:
    """What a pull would fetch, how much, and whether the planner thinks it fits ``gpu``."""
    import json

    listing = listing or list_files(repo, source=source, revision=revision, endpoint=endpoint, token=token)
    files, gguf = choose_files(listing.files, include=include, variant=variant)
    total = sum(f.size or 0 for f in files)
    verdict, detail = "unknown", "no config.json to read (GGUF repositories rarely have one)"
    advice = None
    if gguf:
        verdict, detail, advice = _gguf_preview(listing, gguf, total, gpu, max_model_len, endpoint, token)
    elif any(f.path == "config.json" for f in listing.files):
        try:
            raw = (
                _fetch_small(listing, "config.json", endpoint, token)
                if listing.source == "hf"
                else ms_fetch_small(listing, "config.json")
            )
            config = json.loads(raw)
            verdict, detail = plan_verdict(config, repo, gpu, max_model_len)
        except (ValueError, DownloadError) as exc:
            detail = f"config.json unreadable: {exc}"
    return Preview(repo, listing.source, listing.commit, files, total, gguf, verdict, detail, advice)


def _gguf_preview(
    listing: RepoListing,
    gguf: str,
    file_bytes: int,
    gpu: Any,
    max_model_len: int | None,
    endpoint: str | None,
    token: str | None,
) -> tuple[str, str, Any]:
    """A GGUF's verdict as what the import makes of it (16-bit weights), from its header (read
    with Range requests, a few MB) on Hugging Face, or from its name elsewhere; and the advice."""

    header, shape, why = None, None, ""
    if listing.source == "hf":
        try:
            header = read_gguf_remote(lambda n: _fetch_small(listing, gguf, endpoint, token, n))
            shape = known_shape(*gguf_names(listing.repo, header), loose=True) or shape_from_gguf(header, listing.repo)
        except (GgufError, ShapeError, DownloadError) as exc:
            why = f"its header is unreadable ({exc})"
    else:
        shape = known_shape(*gguf_names(listing.repo), loose=True)
        why = "" if shape else "its model is not one the planner knows by name"
    params = (header.model_params if header else None) or (shape.params if shape else None)
    advice = gguf_advice(file_bytes, params, gguf_names(listing.repo, header))
    if shape is None:
        return "unknown", f"a GGUF: {why}", advice
    try:
        p = plan(PlanRequest(shape, gpu=gpu, max_model_len=max_model_len))
    except (ShapeError, ValueError) as exc:
        return "unknown", str(exc), advice
    detail = f"as 16-bit weights after conversion: {p.weights_gib:.1f} GiB, {p.kv_tokens} tokens of KV cache"
    detail += f" on {p.request.profile.name}" + ("; " + "; ".join(p.problems) if p.problems else "")
    return str(p.verdict), detail, advice


# -- fetching ---------------------------------------------------------------------------------
def download_dir(store: ModelStore, source: str, repo: str, commit: str) -> Path:
    """Where a pull's files wait until complete; it survives crashes so a re-run resumes."""
    return store.root / ".downloads" / f"{source}--{repo.replace('/', '--')}@{commit[:16]}"


def _disk_check(folder: Path, need: int, reserve: int) -> None:
    free = shutil.disk_usage(folder).free
    if free < need + reserve:
        raise DownloadError(
            f"Not enough disk space in {folder}: the download needs {human_bytes(need)} "
            f"(+{human_bytes(reserve)} to spare), {human_bytes(free)} is free"
        )


def _http_fetch(
    listing: RepoListing,
    f: RemoteFile,
    target: Path,
    meter: Meter,
    task: TaskState,
    endpoint: str | None,
    token: str | None,
) -> None:
    part = target.with_name(target.name + ".part")
    have = part.stat().st_size if part.exists() else 0
    if f.size is not None and have > f.size:
        part.unlink()
        have = 0
    url, headers = _file_request(listing, f.path, endpoint, token)
    headers["Accept-Encoding"] = "identity"
    if have:
        headers["Range"] = f"bytes={have}-"
    try:
        with net.client(60, follow_redirects=True) as http, http.stream("GET", url, headers=headers) as r:
            if r.status_code == 416 and f.size is not None and have == f.size:
                pass  # already complete
            else:
                if r.status_code >= 400:
                    r.read()
                    raise _answer_error(r, listing.repo, f.path)
                if have and r.status_code != 206:  # the server ignored Range: start over
                    meter.add(-have, f.path)
                    have = 0
                with open(part, "ab" if have else "wb") as out:
                    for chunk in r.iter_bytes():  # as received: nothing buffered is lost on a drop
                        task.check()
                        out.write(chunk)
                        meter.add(len(chunk), f.path)
    except (Cancelled, DownloadError):
        raise
    except OSError as exc:
        if exc.errno in DISK_FULL:
            raise DownloadError(
                f"The disk filled up while writing {f.path}; free some space and run "
                "the pull again (it resumes where it stopped)"
            ) from exc
        raise DownloadError(f"Could not write {part}: {exc}") from exc
    except Exception as exc:
        raise DownloadError(
            f"The download of {f.path} was interrupted ({type(exc).__name__}: {exc}); run the pull again to resume"
        ) from exc
    verify_file(part, f)
    os.replace(part, target)


def fetch(
    store: ModelStore,
    listing: RepoListing,
    files: list[RemoteFile],
    task: TaskState,
    *,
    endpoint: str | None = None,
    token: str | None = None,
    reserve_bytes: int = DEFAULT_RESERVE_BYTES,
    extra_bytes: int = 0,
) -> Path:
    """Fetch ``files`` into the pull's download folder (resuming what is there); return it."""
    folder = download_dir(store, listing.source, listing.repo, listing.commit)
    folder.mkdir(parents=True, exist_ok=True)

    def have(f: RemoteFile) -> int:
        p = folder / f.path
        if p.exists():
            return p.stat().st_size
        part = p.with_name(p.name + ".part")
        return part.stat().st_size if part.exists() else 0

    total = sum(f.size or 0 for f in files)
    already = sum(have(f) for f in files)
    _disk_check(folder, max(total - already, 0) + extra_bytes, reserve_bytes)
    meter = Meter(task, total, already)
    if listing.source == "modelscope":
        modelscope_fetch(listing, files, folder, meter, task)
        return folder
    for f in files:
        task.check()
        target = folder / f.path
        target.parent.mkdir(parents=True, exist_ok=True)
        if target.exists():
            continue  # verified when it was completed
        _http_fetch(listing, f, target, meter, task, endpoint, token)
        meter.add(0, f.path, force=True)
    return folder


def _move_into(folder: Path, files: list[RemoteFile]) -> Callable[[Path], None]:
    def writer(tmp: Path) -> None:
        for f in files:
            dst = tmp / f.path
            dst.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(folder / f.path, dst)  # copy: a failed registration can be retried

    return writer


def pull(
    store: ModelStore,
    repo: str,
    name: str,
    *,
    source: str = "hf",
    revision: str | None = None,
    include: list[str] | None = None,
    variant: str | None = None,
    task: TaskState | None = None,
    endpoint: str | None = None,
    token: str | None = None,
    reserve_bytes: int = DEFAULT_RESERVE_BYTES,
    listing: RepoListing | None = None,
) -> ModelEntry:
    """Download ``repo`` and register it as ``name``; all or nothing, resumable."""
    task = task or TaskState()
    validate_name(name)
    if name in store:
        raise DownloadError(f"A model named '{name}' already exists; remove it or pick another name")
    task.report("listing files", None, repo)
    listing = listing or list_files(repo, source=source, revision=revision, endpoint=endpoint, token=token)
    files, gguf = choose_files(listing.files, include=include, variant=variant)
    # A GGUF is dequantized to bf16 afterwards: roughly 4x its size again on disk, briefly.
    extra = 4 * sum(f.size or 0 for f in files) if gguf else 0
    folder = fetch(
        store, listing, files, task, endpoint=endpoint, token=token, reserve_bytes=reserve_bytes, extra_bytes=extra
    )
    origin = f"{'Hugging Face' if listing.source == 'hf' else 'ModelScope'} {repo}@{listing.commit[:12]}"
    lineage = {
        "method": "download",
        "source": listing.source,
        "repo": repo,
        "commit": listing.commit,
        "files": [f.path for f in files],
    }
    task.report("registering", 0.99)
    if gguf:
        entry = import_gguf(store, folder / gguf, name, task, source=f"{origin} {gguf}")
        entry = store.update(name, lineage={**lineage, "method": "download+gguf-dequantize"})
    else:
        entry = store.add_staged(name, _move_into(folder, files), source=origin, lineage=lineage)
    shutil.rmtree(folder, ignore_errors=True)
    task.report("done", 1.0)
    return entry


__all__ = [
    "DEFAULT_RESERVE_BYTES",
    "DownloadError",
    "Preview",
    "RemoteFile",
    "RepoListing",
    "SOURCES",
    "choose_files",
    "default_pull_name",
    "download_dir",
    "fetch",
    "hf_endpoint",
    "list_files",
    "plan_verdict",
    "preview",
    "pull",
]
