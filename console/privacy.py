"""Nothing leaves the user's machine unless they say so: the telemetry switches of every library.

The console runs libraries that report home by default, each with its own opt-out variable:

- vLLM posts usage statistics (architecture, dtype, GPU type, memory settings...) to its
  maintainers' server from the GPU worker once the KV cache is sized, unless
  ``VLLM_NO_USAGE_STATS`` / ``VLLM_DO_NOT_TRACK`` / ``DO_NOT_TRACK`` is set;
- huggingface_hub (and through it transformers and datasets) adds telemetry to hub requests
  unless ``HF_HUB_DISABLE_TELEMETRY`` / ``DISABLE_TELEMETRY`` / ``DO_NOT_TRACK`` is set;
- Ray (the multi-node exports, vLLM's Ray backend) collects usage stats unless
  ``RAY_USAGE_STATS_ENABLED=0``; Gradio-based tools honour ``GRADIO_ANALYTICS_ENABLED``.

They are read from the environment, so the console sets them in ``os.environ`` at start
(:func:`apply_to_process`: every child it starts inherits them: the engine core, the
console-launched server, quantize and import children, baselines) and again in every explicit
child environment (:func:`child_env`).

Besides telemetry, vLLM finds "its own address" with a UDP ``connect()`` to 8.8.8.8 (nothing is
sent, but it is a lookup of the outside world); ``VLLM_HOST_IP=127.0.0.1`` skips it. The console
runs its engine on one machine, so loopback is right; exports for other machines never carry it.

The choice: off unless the user opts in, with ``inference-console privacy on`` (the setting
``usage_stats`` in settings.json), the checkbox in the window's About box, or
``INFERENCE_CONSOLE_USAGE_STATS=1`` for one run. Opting in only stops the console from adding
the opt-outs: variables the user set in their own environment stay.
"""

from __future__ import annotations

import os
from typing import Mapping, MutableMapping

from console.messages import Message
from console.settings import load_settings, save_settings, saved_usage_stats

#: ``1``/``0`` overrides the saved setting for this process and its children.
USAGE_STATS_ENV = "INFERENCE_CONSOLE_USAGE_STATS"

#: Opt-out variables and the value that turns each library's reporting off.
OPT_OUT_ENV: dict[str, str] = {
    "VLLM_NO_USAGE_STATS": "1",
    "VLLM_DO_NOT_TRACK": "1",
    "DO_NOT_TRACK": "1",
    "HF_HUB_DISABLE_TELEMETRY": "1",
    "DISABLE_TELEMETRY": "1",
    "RAY_USAGE_STATS_ENABLED": "0",
    "GRADIO_ANALYTICS_ENABLED": "False",
}

#: The variables exported server files set (the server there runs vLLM; DO_NOT_TRACK also
#: covers the Hugging Face libraries in its image).
EXPORT_ENV_KEYS = ("VLLM_NO_USAGE_STATS", "DO_NOT_TRACK")

#: ``1`` keeps the console from asking any model hub anything (search, pull); Hugging Face's own
#: ``HF_HUB_OFFLINE=1`` counts too.
OFFLINE_ENV = "INFERENCE_CONSOLE_OFFLINE"
HF_OFFLINE_ENV = "HF_HUB_OFFLINE"

#: vLLM's address lookup (UDP connect to 8.8.8.8) is skipped when this is set.
HOST_IP_ENV = "VLLM_HOST_IP"
LOOPBACK = "127.0.0.1"

#: The opt-outs present before the console touched the environment: the user's own, kept when
#: they opt in.
_USER_OPT_OUTS = frozenset(k for k in OPT_OUT_ENV if k in os.environ)


def _truthy(value: str) -> bool:
    return value.strip().lower() in ("1", "true", "yes", "on")


def usage_stats_allowed(env: Mapping[str, str] | None = None) -> bool:
    """The user's choice: ``INFERENCE_CONSOLE_USAGE_STATS`` in ``env`` (default ``os.environ``)
    if set, else the saved setting."""
    override = (os.environ if env is None else env).get(USAGE_STATS_ENV)
    if override is not None and override.strip():
        return _truthy(override)

    return saved_usage_stats()


def offline_reason(what: str, env: Mapping[str, str] | None = None) -> str | None:
    """Why ``what`` (e.g. "Searching Hugging Face") may not reach the network now, as one line with
    the way out; None when it may. Only an explicit user action asks a hub anything: nothing runs
    in the background."""
    env = os.environ if env is None else env
    for key in (OFFLINE_ENV, HF_OFFLINE_ENV):
        if _truthy(env.get(key, "")):
            return Message(
                "Offline mode is on ({0}={1}): {2} would use the network. Unset {3} to search, or pick from the "
                "curated list",
                key,
                env[key],
                what,
                key,
            )
    return None


def apply(env: MutableMapping[str, str], allowed: bool | None = None) -> MutableMapping[str, str]:
    """Make ``env`` follow the choice (``allowed``, else :func:`usage_stats_allowed`); returns it."""
    if allowed is None:
        allowed = usage_stats_allowed(env)
    env[USAGE_STATS_ENV] = "1" if allowed else "0"
    if allowed:
        for key in OPT_OUT_ENV:
            if key not in _USER_OPT_OUTS:
                env.pop(key, None)
    else:
        env.update(OPT_OUT_ENV)
    # The user's own address (a multi-homed machine, a container) wins over loopback.
    env.setdefault(HOST_IP_ENV, LOOPBACK)
    return env


def apply_to_process(allowed: bool | None = None) -> bool:
    """Apply the choice to ``os.environ`` (so every child inherits it); returns it."""
    apply(os.environ, allowed)
    return _truthy(os.environ[USAGE_STATS_ENV])


def save_choice(allowed: bool) -> None:
    """Remember the choice in settings.json and apply it to this process (children started from
    now on follow it; an engine already running keeps the environment it started with)."""

    settings = load_settings()
    settings.usage_stats = allowed
    save_settings(settings)
    os.environ.pop(USAGE_STATS_ENV, None)  # the saved choice is now the one to follow
    apply_to_process(allowed)


def child_env(base: MutableMapping[str, str] | None = None, **extra: str) -> dict[str, str]:
    """An environment for a child process: ``base`` (default ``os.environ``) plus ``extra``,
    with the telemetry choice applied on top."""
    env = dict(os.environ if base is None else base)
    env.update(extra)
    apply(env)
    return env


def export_env(allowed: bool) -> dict[str, str]:
    """The environment an exported server gets: explicit both ways (``0`` when usage statistics
    are allowed, ``1`` when not), so an image's own defaults cannot decide for the user."""
    value = "0" if allowed else "1"
    return {key: value for key in EXPORT_ENV_KEYS}


def export_note(allowed: bool) -> str:
    """The comment line every exported server file carries."""
    assignments = " ".join(f"{k}={v}" for k, v in export_env(allowed).items())
    if allowed:
        return (
            f"Usage statistics ON (inference-console privacy setting): vLLM may send usage data to its "
            f"maintainers; the server's environment sets {assignments}."
        )
    return f"Usage statistics OFF (inference-console privacy setting): the server's environment must set {assignments}."


def status_line(allowed: bool | None = None) -> str:
    """One line for ``--version`` and the About box."""
    if allowed is None:
        allowed = usage_stats_allowed()
    if allowed:
        return "on (vLLM and Hugging Face may send usage data; `inference-console privacy off` stops it)"
    return "off (nothing is sent; `inference-console privacy on` to share usage data with vLLM and Hugging Face)"


__all__ = [
    "EXPORT_ENV_KEYS",
    "HF_OFFLINE_ENV",
    "HOST_IP_ENV",
    "OFFLINE_ENV",
    "OPT_OUT_ENV",
    "USAGE_STATS_ENV",
    "apply",
    "apply_to_process",
    "child_env",
    "export_env",
    "export_note",
    "offline_reason",
    "save_choice",
    "status_line",
    "usage_stats_allowed",
]
