"""ModelScope as a download source: its SDK (an optional extra, imported only when asked for)
lists the repository with sha256 and fetches file by file into the pull's download folder.
``MODELSCOPE_ENDPOINT`` points it at another host; it is read at each call."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from console.jobs import Cancelled, TaskState
from console.models.remote_files import DISK_FULL, DownloadError, Meter, RemoteFile, RepoListing, verify_file


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
        raise DownloadError(
            "ModelScope downloads need its SDK: pip install 'inference-console[modelscope]' "
            "(or use a Hugging Face mirror: HF_ENDPOINT=https://hf-mirror.com)"
        ) from exc
    return HubApi()


def _ms_error(exc: Exception, repo: str, what: str) -> DownloadError:
    """The SDK's exception as a sentence (its classes moved between releases: read the status)."""
    status = getattr(exc, "status_code", None)
    name = type(exc).__name__
    if status in (401, 403) or name in ("AuthenticationError", "PermissionDeniedError"):
        return DownloadError(
            f"{repo} on ModelScope needs a login: set MODELSCOPE_API_TOKEN to an access token that may read it"
        )
    if status == 404 or name in ("NotExistError", "RepoNotFoundError"):
        return DownloadError(f"No repository '{repo}' (or no {what} in it) on {ms_endpoint()}")
    text = str(exc)
    if "FileIntegrity" in name or "hash mismatch" in text.lower() or "size mismatch" in text.lower():
        return DownloadError(
            f"{what} is corrupt (its hash or size does not match the one ModelScope lists); run the pull again"
        )
    if "NetworkError" in name or "Connection failed" in text:
        return DownloadError(
            f"Could not reach {ms_endpoint()} for {what} of {repo}: check the network (or MODELSCOPE_ENDPOINT)"
        )
    if isinstance(exc, OSError) and getattr(exc, "errno", None) in DISK_FULL:
        return DownloadError(f"The disk filled up while writing {what}; free some space and run the pull again")
    return DownloadError(f"Could not get {what} of {repo} from {ms_endpoint()}: {text}")


def modelscope_listing(repo: str, revision: str | None) -> RepoListing:
    api = _modelscope()
    rev = revision or "master"
    try:
        try:  # modelscope >= 1.38 lists through modelscope_hub, whose entries carry sha256
            from modelscope_hub.api import HubApi as _Hub
        except ImportError:
            entries = api.get_model_files(repo, revision=rev, recursive=True)  # reads the env itself
            files = [
                RemoteFile(e["Path"], e.get("Size"), e.get("Sha256") or None)
                for e in entries
                if e.get("Type") != "tree"
            ]
        else:
            files = [
                RemoteFile(e.path, e.size, e.sha256 or None)
                for e in _Hub(endpoint=_ms_endpoint_override()).list_repo_files(
                    repo, "model", revision=rev, recursive=True
                )
                if not e.is_dir
            ]
    except DownloadError:
        raise
    except Exception as exc:
        raise _ms_error(exc, repo, "the file list") from exc
    return RepoListing(repo, "modelscope", rev, files)


def ms_fetch_small(listing: RepoListing, path: str) -> bytes:
    """One small file through the ModelScope SDK (config.json, for the planner)."""
    import tempfile

    _modelscope()
    from modelscope.hub.file_download import model_file_download

    with tempfile.TemporaryDirectory(prefix="console-ms-") as tmp:
        try:
            got = model_file_download(
                listing.repo, path, revision=listing.commit, local_dir=tmp, endpoint=_ms_endpoint_override()
            )
            return Path(got).read_bytes()
        except Exception as exc:
            raise _ms_error(exc, listing.repo, path) from exc


def modelscope_fetch(
    listing: RepoListing, files: list[RemoteFile], folder: Path, meter: Meter, task: TaskState
) -> None:
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
            snapshot_download(
                listing.repo,
                revision=listing.commit,
                local_dir=str(folder),
                allow_patterns=[f.path],
                progress_callbacks=[_Progress],
                max_workers=1,
                endpoint=_ms_endpoint_override(),
            )
        except Cancelled:
            raise
        except Exception as exc:
            if task.cancelled:
                raise Cancelled() from exc
            raise _ms_error(exc, listing.repo, f.path) from exc
        meter.add(0, f.path, force=True)
        verify_file(target, f)
