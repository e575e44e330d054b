"""Downloading models from Hugging Face (or a mirror of it) and ModelScope into the store.

The flow is the same whatever the source: list the repository's files with their sizes and
hashes, pick the files a checkpoint needs (safetensors over ``.bin``; one GGUF file out of many),
read ``config.json`` so the planner can say whether the model fits *before* gigabytes move, check
the free disk space, then fetch each file into a download folder that survives interruptions
(``<store>/.downloads/<repo>@<commit>``), verify sizes and hashes, and only then hand the folder
to the store's staging (``add_staged``), so a model appears in the registry only when complete.

Hugging Face: ``huggingface_hub`` lists the repository and builds URLs and headers (so
``HF_ENDPOINT`` mirrors and ``HF_TOKEN`` work); the file bodies are fetched here with HTTP
``Range`` requests into ``<file>.part`` files, because huggingface_hub 2.x deletes its partial
files on failure and so cannot resume across runs, and because cancel and progress must be ours.
ModelScope: its own SDK (optional extra, imported lazily; ``MODELSCOPE_ENDPOINT`` points it at
another host, read at each call) lists with sha256 and downloads file by file into the same folder.
"""

from __future__ import annotations

import errno
import fnmatch
import hashlib
import os
import shutil
import time
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any, Callable

from console.jobs import Cancelled, TaskState
from console.models.store import ModelEntry, ModelStore

SOURCES = ("hf", "modelscope")
_WEIGHT_EXTS = (".safetensors", ".bin", ".pt", ".pth", ".h5", ".msgpack", ".ckpt", ".gguf", ".onnx")
_SKIP_EXTS = (".md", ".png", ".jpg", ".jpeg", ".gif", ".pdf")
_SKIP_NAMES = {".gitattributes", "LICENSE", "LICENSE.txt", "NOTICE"}
_CHUNK = 1024 * 1024
_DISK_FULL = (errno.ENOSPC, errno.EDQUOT, errno.EFBIG)
#: Room kept free beyond the download itself (logs, the registry, the OS).
DEFAULT_RESERVE_BYTES = 512 * 1024**2


class DownloadError(Exception):
    """A download that cannot go on; the message is meant for the user."""


@dataclass(frozen=True)
class RemoteFile:
    path: str
    size: int | None
    sha256: str | None = None  # LFS files: the content's sha256
    git_oid: str | None = None  # small files: git's blob sha1

    @property
    def is_weight(self) -> bool:
        return self.path.lower().endswith(_WEIGHT_EXTS)


@dataclass(frozen=True)
class RepoListing:
    repo: str
    source: str
    commit: str
    files: list[RemoteFile]


@dataclass(frozen=True)
class Preview:
    repo: str
    source: str
    commit: str
    files: list[RemoteFile]
    total_bytes: int
    gguf: str | None  # the chosen GGUF file, converted after download
    verdict: str  # the planner's: fits / fits-with-changes / does-not-fit / unknown
    verdict_detail: str


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


def list_files(repo: str, *, source: str = "hf", revision: str | None = None,
               endpoint: str | None = None, token: str | None = None) -> RepoListing:
    if source == "modelscope":
        return _modelscope_listing(repo, revision)
    if source != "hf":
        raise DownloadError(f"Unknown source '{source}' (use one of: {', '.join(SOURCES)})")
    from huggingface_hub import HfApi

    try:
        info = HfApi(endpoint=hf_endpoint(endpoint), token=token).model_info(
            repo, revision=revision, files_metadata=True)
    except Exception as exc:
        raise _hf_error(exc, repo, "the file list") from exc
    files = [RemoteFile(s.rfilename, s.size, s.lfs.sha256 if s.lfs else None, None if s.lfs else s.blob_id)
             for s in info.siblings or []]
    return RepoListing(repo, "hf", str(info.sha or revision or "main"), files)


def _ms_endpoint_override() -> str | None:
    """``MODELSCOPE_ENDPOINT`` (or the older ``MODELSCOPE_DOMAIN``) read at call time and handed
    to the SDK explicitly: the SDK reads the environment once, into a process-wide config."""
    value = (os.environ.get("MODELSCOPE_ENDPOINT") or os.environ.get("MODELSCOPE_DOMAIN") or "").strip()
    if not value:
        return None
    return (value if value.startswith(("http://", "https://")) else f"https://{value}").rstrip("/")


def ms_endpoint() -> str:
    """The ModelScope hub in use, for messages."""
    return _ms_endpoint_override() or "https://www.modelscope.cn"


def _modelscope() -> Any:
    try:
        import modelscope  # noqa: F401  (heavy; only when asked for)
        from modelscope.hub.api import HubApi
    except ImportError as exc:
        raise DownloadError("ModelScope downloads need its SDK: pip install 'inference-console[modelscope]' "
                            "(or use a Hugging Face mirror: HF_ENDPOINT=https://hf-mirror.com)") from exc
    return HubApi()


def _ms_error(exc: Exception, repo: str, what: str) -> DownloadError:
    """The SDK's exception as a sentence (its classes moved between releases: read the status)."""
    status = getattr(exc, "status_code", None)
    name = type(exc).__name__
    if status in (401, 403) or name in ("AuthenticationError", "PermissionDeniedError"):
        return DownloadError(f"{repo} on ModelScope needs a login: set MODELSCOPE_API_TOKEN to an access "
                             "token that may read it")
    if status == 404 or name in ("NotExistError", "RepoNotFoundError"):
        return DownloadError(f"No repository '{repo}' (or no {what} in it) on {ms_endpoint()}")
    text = str(exc)
    if "FileIntegrity" in name or "hash mismatch" in text.lower() or "size mismatch" in text.lower():
        return DownloadError(f"{what} is corrupt (its hash or size does not match the one ModelScope "
                             "lists); run the pull again")
    if "NetworkError" in name or "Connection failed" in text:
        return DownloadError(f"Could not reach {ms_endpoint()} for {what} of {repo}: check the network "
                             "(or MODELSCOPE_ENDPOINT)")
    if isinstance(exc, OSError) and getattr(exc, "errno", None) in _DISK_FULL:
        return DownloadError(f"The disk filled up while writing {what}; free some space and run the pull again")
    return DownloadError(f"Could not get {what} of {repo} from {ms_endpoint()}: {text}")


def _modelscope_listing(repo: str, revision: str | None) -> RepoListing:
    api = _modelscope()
    rev = revision or "master"
    try:
        try:  # modelscope >= 1.38 lists through modelscope_hub, whose entries carry sha256
            from modelscope_hub.api import HubApi as _Hub
        except ImportError:
            entries = api.get_model_files(repo, revision=rev, recursive=True)  # reads the env itself
            files = [RemoteFile(e["Path"], e.get("Size"), e.get("Sha256") or None) for e in entries
                     if e.get("Type") != "tree"]
        else:
            files = [RemoteFile(e.path, e.size, e.sha256 or None)
                     for e in _Hub(endpoint=_ms_endpoint_override()).list_repo_files(
                             repo, "model", revision=rev, recursive=True)
                     if not e.is_dir]
    except DownloadError:
        raise
    except Exception as exc:
        raise _ms_error(exc, repo, "the file list") from exc
    return RepoListing(repo, "modelscope", rev, files)


# -- choosing files ---------------------------------------------------------------------------
def choose_files(files: list[RemoteFile], *, include: list[str] | None = None,
                 variant: str | None = None) -> tuple[list[RemoteFile], str | None]:
    """The files a checkpoint needs, and the GGUF file to convert (if that is what it is)."""
    top = [f for f in files if "/" not in f.path and f.path not in _SKIP_NAMES
           and not f.path.lower().endswith(_SKIP_EXTS)]
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
            names = ", ".join(PurePosixPath(f.path).name for f in (ggufs or [f for f in pool if f.path.endswith(".gguf")]))
            raise DownloadError(f"Pick one GGUF file with --variant or --include (choices: {names})"
                                if ggufs or not variant else f"No GGUF file matches '{variant}' (choices: {names})")
        return ggufs, ggufs[0].path
    if include:
        weights = [f for f in wanted if f.is_weight]
    elif safetensors:
        weights = safetensors + [f for f in top if f.path == "model.safetensors.index.json"]
    else:
        weights = [f for f in top if f.path.endswith((".bin", ".bin.index.json")) or f.path == "pytorch_model.bin.index.json"]
    if not any(f.is_weight for f in weights):
        raise DownloadError("This repository has no safetensors, .bin or GGUF weights the console can load")
    extras = [f for f in top if not f.is_weight and not f.path.endswith(".index.json")]
    chosen = {f.path: f for f in [*extras, *weights, *(wanted if include else [])]}
    return sorted(chosen.values(), key=lambda f: f.path), None


# -- preview: size and the planner's verdict before anything big moves -------------------------
def _fetch_small(listing: RepoListing, path: str, endpoint: str | None, token: str | None) -> bytes:
    from huggingface_hub import hf_hub_url
    from huggingface_hub.utils import build_hf_headers
    from huggingface_hub.utils import get_session, hf_raise_for_status

    url = hf_hub_url(listing.repo, path, revision=listing.commit, endpoint=hf_endpoint(endpoint))
    try:
        r = get_session().get(url, headers=build_hf_headers(token=token), follow_redirects=True, timeout=30)
        hf_raise_for_status(r)
    except Exception as exc:
        raise _hf_error(exc, listing.repo, path) from exc
    return bytes(r.content)


def _ms_fetch_small(listing: RepoListing, path: str) -> bytes:
    """One small file through the ModelScope SDK (config.json, for the planner)."""
    import tempfile

    _modelscope()
    from modelscope.hub.file_download import model_file_download

    with tempfile.TemporaryDirectory(prefix="console-ms-") as tmp:
        try:
            got = model_file_download(listing.repo, path, revision=listing.commit, local_dir=tmp,
                                      endpoint=_ms_endpoint_override())
            return Path(got).read_bytes()
        except Exception as exc:
            raise _ms_error(exc, listing.repo, path) from exc


def plan_verdict(config: dict[str, Any], name: str, gpu: Any, max_model_len: int | None = None) -> tuple[str, str]:
    from console.planner import PlanRequest, ShapeError, plan
    from console.planner.shapes import ModelShape

    try:
        shape = ModelShape.from_hf_config(config, name)
        p = plan(PlanRequest(shape, gpu=gpu, quantization=shape.quantization, max_model_len=max_model_len))
    except (ShapeError, ValueError, KeyError) as exc:
        return "unknown", str(exc)
    detail = f"{p.weights_gib:.1f} GiB of weights, {p.kv_tokens} tokens of KV cache on {p.request.profile.name}"
    if p.problems:
        detail += "; " + "; ".join(p.problems)
    return str(p.verdict), detail


def preview(repo: str, *, source: str = "hf", revision: str | None = None, include: list[str] | None = None,
            variant: str | None = None, gpu: Any = "rtx-4090", max_model_len: int | None = None,
            endpoint: str | None = None, token: str | None = None,
            listing: RepoListing | None = None) -> Preview:
    """What a pull would fetch, how much, and whether the planner thinks it fits ``gpu``."""
    import json

    listing = listing or list_files(repo, source=source, revision=revision, endpoint=endpoint, token=token)
    files, gguf = choose_files(listing.files, include=include, variant=variant)
    total = sum(f.size or 0 for f in files)
    verdict, detail = "unknown", "no config.json to read (GGUF repositories rarely have one)"
    if any(f.path == "config.json" for f in listing.files):
        try:
            raw = (_fetch_small(listing, "config.json", endpoint, token) if listing.source == "hf"
                   else _ms_fetch_small(listing, "config.json"))
            config = json.loads(raw)
            verdict, detail = plan_verdict(config, repo, gpu, max_model_len)
        except (ValueError, DownloadError) as exc:
            detail = f"config.json unreadable: {exc}"
    return Preview(repo, listing.source, listing.commit, files, total, gguf, verdict, detail)


# -- fetching ---------------------------------------------------------------------------------
def download_dir(store: ModelStore, source: str, repo: str, commit: str) -> Path:
    """Where a pull's files wait until complete; it survives crashes so a re-run resumes."""
    return store.root / ".downloads" / f"{source}--{repo.replace('/', '--')}@{commit[:16]}"


def _disk_check(folder: Path, need: int, reserve: int) -> None:
    free = shutil.disk_usage(folder).free
    if free < need + reserve:
        from console.cli.common import human_bytes

        raise DownloadError(f"Not enough disk space in {folder}: the download needs {human_bytes(need)} "
                            f"(+{human_bytes(reserve)} to spare), {human_bytes(free)} is free")


def _verify(path: Path, f: RemoteFile) -> None:
    size = path.stat().st_size
    if f.size is not None and size != f.size:
        path.unlink(missing_ok=True)
        raise DownloadError(f"{f.path}: got {size} bytes, the source lists {f.size}; the file was "
                            "deleted, run the pull again")
    if f.sha256 or f.git_oid:
        h = hashlib.sha256() if f.sha256 else hashlib.sha1(b"blob %d\0" % size)
        with open(path, "rb") as fh:
            while chunk := fh.read(_CHUNK * 8):
                h.update(chunk)
        if h.hexdigest() != (f.sha256 or f.git_oid):
            path.unlink(missing_ok=True)
            raise DownloadError(f"{f.path} is corrupt (its hash does not match the one the source "
                                "lists); the file was deleted, run the pull again")


class _Meter:
    """Bytes so far across all files, turned into throttled progress with speed and ETA."""

    def __init__(self, task: TaskState, total: int, already: int) -> None:
        self.task, self.total, self.done = task, max(total, 1), already
        self._t0, self._start_bytes, self._last = time.monotonic(), already, 0.0

    def add(self, n: int, name: str, force: bool = False) -> None:
        self.done += n
        now = time.monotonic()
        if not force and now - self._last < 0.25:
            return
        self._last = now
        from console.cli.common import human_bytes

        speed = (self.done - self._start_bytes) / max(now - self._t0, 1e-3)
        eta = (self.total - self.done) / speed if speed > 0 else None
        msg = f"{human_bytes(self.done)} of {human_bytes(self.total)}, {human_bytes(speed)}/s"
        if eta is not None:
            msg += f", ETA {eta:.0f} s"
        self.task.report(f"downloading {name}", min(self.done / self.total, 1.0), msg)


def _http_fetch(listing: RepoListing, f: RemoteFile, target: Path, meter: _Meter, task: TaskState,
                endpoint: str | None, token: str | None) -> None:
    from huggingface_hub import hf_hub_url
    from huggingface_hub.utils import build_hf_headers
    from huggingface_hub.utils import get_session, hf_raise_for_status

    part = target.with_name(target.name + ".part")
    have = part.stat().st_size if part.exists() else 0
    if f.size is not None and have > f.size:
        part.unlink()
        have = 0
    headers = build_hf_headers(token=token)
    headers["Accept-Encoding"] = "identity"
    if have:
        headers["Range"] = f"bytes={have}-"
    url = hf_hub_url(listing.repo, f.path, revision=listing.commit, endpoint=hf_endpoint(endpoint))
    try:
        with get_session().stream("GET", url, headers=headers, follow_redirects=True, timeout=60) as r:
            if r.status_code == 416 and f.size is not None and have == f.size:
                pass  # already complete
            else:
                if r.status_code >= 400:
                    r.read()
                    hf_raise_for_status(r)
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
        from huggingface_hub import errors

        if isinstance(exc, errors.HfHubHTTPError):  # an OSError too, but the server's answer
            raise _hf_error(exc, listing.repo, f.path) from exc
        if exc.errno in _DISK_FULL:
            raise DownloadError(f"The disk filled up while writing {f.path}; free some space and run "
                                "the pull again (it resumes where it stopped)") from exc
        raise DownloadError(f"Could not write {part}: {exc}") from exc
    except Exception as exc:
        from huggingface_hub import errors

        if isinstance(exc, errors.HfHubHTTPError):
            raise _hf_error(exc, listing.repo, f.path) from exc
        raise DownloadError(f"The download of {f.path} was interrupted ({type(exc).__name__}: {exc}); "
                            "run the pull again to resume") from exc
    _verify(part, f)
    os.replace(part, target)


def _modelscope_fetch(listing: RepoListing, files: list[RemoteFile], folder: Path, meter: _Meter,
                      task: TaskState) -> None:
    """Each file through the SDK (which resumes its own partial files), one at a time so a cancel
    takes effect between files at the latest; progress comes from the SDK's callbacks."""
    _modelscope()
    from modelscope.hub.callback import ProgressCallback
    from modelscope.hub.snapshot_download import snapshot_download

    class _Progress(ProgressCallback):  # type: ignore[misc]  # the SDK creates one per file
        def update(self, size: int) -> None:
            task.check()  # the SDK aborts the file on any exception from here
            meter.add(size, self.filename)

    for f in files:
        task.check()
        target = folder / f.path
        if target.exists():
            continue  # verified when it was completed
        try:  # snapshot_download, not model_file_download: only it takes progress callbacks
            snapshot_download(listing.repo, revision=listing.commit, local_dir=str(folder),
                              allow_patterns=[f.path], progress_callbacks=[_Progress], max_workers=1,
                              endpoint=_ms_endpoint_override())
        except Cancelled:
            raise
        except Exception as exc:
            if task.cancelled:
                raise Cancelled() from exc
            raise _ms_error(exc, listing.repo, f.path) from exc
        meter.add(0, f.path, force=True)
        _verify(target, f)


def fetch(store: ModelStore, listing: RepoListing, files: list[RemoteFile], task: TaskState, *,
          endpoint: str | None = None, token: str | None = None,
          reserve_bytes: int = DEFAULT_RESERVE_BYTES, extra_bytes: int = 0) -> Path:
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
    meter = _Meter(task, total, already)
    if listing.source == "modelscope":
        _modelscope_fetch(listing, files, folder, meter, task)
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


def pull(store: ModelStore, repo: str, name: str, *, source: str = "hf", revision: str | None = None,
         include: list[str] | None = None, variant: str | None = None, task: TaskState | None = None,
         endpoint: str | None = None, token: str | None = None,
         reserve_bytes: int = DEFAULT_RESERVE_BYTES, listing: RepoListing | None = None) -> ModelEntry:
    """Download ``repo`` and register it as ``name``; all or nothing, resumable."""
    from console.models.store import validate_name

    task = task or TaskState()
    validate_name(name)
    if name in store:
        raise DownloadError(f"A model named '{name}' already exists; remove it or pick another name")
    task.report("listing files", None, repo)
    listing = listing or list_files(repo, source=source, revision=revision, endpoint=endpoint, token=token)
    files, gguf = choose_files(listing.files, include=include, variant=variant)
    # A GGUF is dequantized to bf16 afterwards: roughly 4x its size again on disk, briefly.
    extra = 4 * sum(f.size or 0 for f in files) if gguf else 0
    folder = fetch(store, listing, files, task, endpoint=endpoint, token=token,
                   reserve_bytes=reserve_bytes, extra_bytes=extra)
    origin = f"{'Hugging Face' if listing.source == 'hf' else 'ModelScope'} {repo}@{listing.commit[:12]}"
    lineage = {"method": "download", "source": listing.source, "repo": repo, "commit": listing.commit,
               "files": [f.path for f in files]}
    task.report("registering", 0.99)
    if gguf:
        from console.models.importers import import_gguf

        entry = import_gguf(store, folder / gguf, name, task, source=f"{origin} {gguf}")
        entry = store.update(name, lineage={**lineage, "method": "download+gguf-dequantize"})
    else:
        entry = store.add_staged(name, _move_into(folder, files), source=origin, lineage=lineage)
    shutil.rmtree(folder, ignore_errors=True)
    task.report("done", 1.0)
    return entry


__all__ = ["DEFAULT_RESERVE_BYTES", "DownloadError", "Preview", "RemoteFile", "RepoListing", "SOURCES",
           "choose_files", "download_dir", "fetch", "hf_endpoint", "list_files", "plan_verdict", "preview",
           "pull"]
