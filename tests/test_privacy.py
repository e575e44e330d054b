"""Nothing leaves the machine unless the user says so, proven with a network guard.

The guard (tests/netguard/sitecustomize.py) is loaded by every Python process of a run: it
records each non-loopback connect / sendto / name lookup and refuses it. The end-to-end test runs
the console's load, chat, batch, bench, quantize and export paths (tests/privacy_scenario.py)
with the telemetry variables removed from the environment it starts with: the console itself
must turn them off. The control runs vLLM's own call-home code under the same guard, with and
without the console's environment, to show the guard sees a library calling home.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any, Iterator

import pytest
import yaml

from console import privacy
from console.config import EngineConfig
from console.engine.serve_options import ServeOptions

ROOT = Path(__file__).resolve().parent.parent
GUARD = ROOT / "tests" / "netguard"
#: Everything the console (or the user's shell) might have set that would decide for it.
CLEARED = [*privacy.OPT_OUT_ENV, privacy.HOST_IP_ENV, privacy.USAGE_STATS_ENV, "HOST_IP"]


def guarded_env(tmp_path: Path, log: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in CLEARED}
    env.update(
        NETGUARD_LOG=str(log),
        PYTHONPATH=os.pathsep.join([str(GUARD), str(ROOT)]),
        # vLLM also honours ~/.config/vllm/do_not_track and writes usage_stats.json there.
        VLLM_CONFIG_ROOT=str(tmp_path / "vllm-config"),
        VLLM_LOGGING_LEVEL="WARNING",
        TQDM_DISABLE="1",
        INFERENCE_CONSOLE_HOME=str(tmp_path / "home"),
    )
    env.update(extra)
    return env


def read_log(log: Path) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """(network attempts, usage-stats verdicts) recorded by the guard."""
    records = [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []
    return [r for r in records if "call" in r], [r for r in records if "usage_stats_enabled" in r]


def describe(attempts: list[dict[str, Any]]) -> str:
    return "\n".join(
        f"{a['process']} pid {a['pid']} {a['call']} {a['address']}\n{''.join(a['stack'])}" for a in attempts
    )


CALL_HOME = """
import sys, time
from vllm.usage.usage_lib import UsageContext, is_usage_stats_enabled, usage_message
from vllm.utils.network_utils import get_ip
print(get_ip())
if is_usage_stats_enabled():  # what vLLM's GPU worker does once the KV cache is sized
    usage_message.report_usage("LlamaForCausalLM", UsageContext.ENGINE_CONTEXT)
    t0 = time.monotonic()
    while time.monotonic() - t0 < 120 and "stats.vllm.ai" not in open(sys.argv[1]).read():
        time.sleep(0.2)
"""


@pytest.mark.engine
def test_guard_records_vllm_calling_home_without_the_console_env(tmp_path: Path) -> None:
    """Control: vLLM's address lookup and usage report, under the guard. Without the console's
    environment both reach for the outside world and are recorded; with it, neither does."""
    log = tmp_path / "bare.log"
    bare = subprocess.run(
        [sys.executable, "-c", CALL_HOME, str(log)],
        env=guarded_env(tmp_path, log),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert bare.returncode == 0, bare.stderr[-2000:]
    attempts, verdicts = read_log(log)
    assert [v["usage_stats_enabled"] for v in verdicts] == [True]
    addresses = [a["address"][0] for a in attempts]
    assert "8.8.8.8" in addresses  # the UDP connect of vLLM's get_ip()
    assert "stats.vllm.ai" in addresses  # the usage report's lookup: refused, nothing sent

    log = tmp_path / "console.log"
    env = privacy.child_env(guarded_env(tmp_path, log), INFERENCE_CONSOLE_USAGE_STATS="0")
    run = subprocess.run(
        [sys.executable, "-c", CALL_HOME, str(log)], env=env, capture_output=True, text=True, timeout=300
    )
    assert run.returncode == 0, run.stderr[-2000:]
    attempts, verdicts = read_log(log)
    assert attempts == [], describe(attempts)
    assert [v["usage_stats_enabled"] for v in verdicts] == [False]
    assert run.stdout.strip() == "127.0.0.1"


@pytest.mark.engine
def test_opting_in_lets_the_libraries_decide(tmp_path: Path) -> None:
    log = tmp_path / "optin.log"
    env = privacy.child_env(guarded_env(tmp_path, log, INFERENCE_CONSOLE_USAGE_STATS="1"))
    assert not set(privacy.OPT_OUT_ENV) & set(env)
    run = subprocess.run(
        [sys.executable, "-c", "import vllm.usage.usage_lib"], env=env, capture_output=True, text=True, timeout=300
    )
    assert run.returncode == 0, run.stderr[-2000:]
    assert [v["usage_stats_enabled"] for v in read_log(log)[1]] == [True]


@pytest.mark.engine
def test_load_chat_batch_bench_quantize_export_stay_on_this_machine(tmp_path: Path) -> None:
    log = tmp_path / "net.log"
    work = tmp_path / "work"
    work.mkdir()
    run = subprocess.run(
        [sys.executable, str(ROOT / "tests" / "privacy_scenario.py"), str(work)],
        env=guarded_env(tmp_path, log),
        capture_output=True,
        text=True,
        timeout=1500,
    )
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    summary = json.loads((work / "summary.json").read_text())
    assert summary["quantized"] == "awq" and summary["chat_output_tokens"] == 6
    assert summary["batch_succeeded"] == 3 and summary["bench_requests"] == 4
    assert summary["export_rc"] == [0, 0]

    attempts, verdicts = read_log(log)
    assert attempts == [], "outbound attempts:\n" + describe(attempts)
    # vLLM's own verdict, in every process that imported it: the driver and the engine core child.
    assert verdicts and not any(v["usage_stats_enabled"] for v in verdicts), verdicts
    assert any(v["process"].startswith("EngineCore") and v["ppid"] == summary["driver_pid"] for v in verdicts)
    assert not (tmp_path / "vllm-config" / "usage_stats.json").exists()

    # The exported server files say so, explicitly.
    bundle = work / "bundle"
    assert "VLLM_NO_USAGE_STATS=1 DO_NOT_TRACK=1" in (bundle / "serve.sh").read_text()
    assert "Usage statistics OFF" in (bundle / "serve.yaml").read_text()
    compose = yaml.safe_load((bundle / "docker-compose.yaml").read_text())
    assert compose["services"]["vllm"]["environment"]["VLLM_NO_USAGE_STATS"] == "1"
    assert (
        "export VLLM_NO_USAGE_STATS=1 DO_NOT_TRACK=1 RAY_USAGE_STATS_ENABLED=0" in (work / "ray-cluster.sh").read_text()
    )


def test_exports_carry_the_choice_both_ways(tiny_model: Path) -> None:
    from console.export.compose import compose_dict, container_serve_yaml
    from console.export.k8s import k8s_objects
    from console.export.ray import rayservice_dict
    from console.engine.serve_args import serve_command, serve_script, serve_yaml

    config = EngineConfig(model=str(tiny_model), tensor_parallel_size=2)
    for allowed, value in ((False, "1"), (True, "0")):
        options = ServeOptions(usage_stats=allowed, nodes=1)
        word = "ON" if allowed else "OFF"
        assert f"Usage statistics {word}" in serve_yaml(config, options)
        assert f"Usage statistics {word}" in container_serve_yaml(config, options, "here")
        # (tensor parallel 2, so the NVLink multicast switches come next: tests/test_export_ray.py)
        assert serve_command(config, options).startswith(f"VLLM_NO_USAGE_STATS={value} DO_NOT_TRACK={value} NCCL_")
        assert f"export VLLM_NO_USAGE_STATS={value} DO_NOT_TRACK={value} NCCL_" in serve_script(config, options)
        assert (
            compose_dict(config, options, str(tiny_model))["services"]["vllm"]["environment"]["DO_NOT_TRACK"] == value
        )
        deployment = next(o for o in k8s_objects(config, options, str(tiny_model)) if o["kind"] == "Deployment")
        env = {e["name"]: e.get("value") for e in deployment["spec"]["template"]["spec"]["containers"][0]["env"]}
        assert env["VLLM_NO_USAGE_STATS"] == value and env["DO_NOT_TRACK"] == value
        ray = rayservice_dict(config, ServeOptions(usage_stats=allowed, nodes=2), str(tiny_model))
        head = ray["spec"]["rayClusterConfig"]["headGroupSpec"]["template"]["spec"]["containers"][0]
        assert {e["name"]: e["value"] for e in head["env"]}["RAY_USAGE_STATS_ENABLED"] == ("1" if allowed else "0")
        serve = yaml.safe_load(ray["spec"]["serveConfigV2"])["applications"][0]["runtime_env"]["env_vars"]
        assert serve["VLLM_NO_USAGE_STATS"] == value


@pytest.fixture()
def own_environ() -> Iterator[None]:
    """The CLI applies the choice to os.environ: put this process's environment back after."""
    saved = dict(os.environ)
    for key in CLEARED:
        os.environ.pop(key, None)
    yield
    os.environ.clear()
    os.environ.update(saved)


def test_setting_cli_and_version_show_the_choice(home: Path, capsys: Any, own_environ: None) -> None:
    from console.cli.main import main
    from console.versions import version_report
    from console.settings import load_settings

    assert privacy.usage_stats_allowed() is False
    assert version_report()["usage statistics"].startswith("off")
    assert main(["privacy", "on"]) == 0
    assert load_settings().usage_stats is True
    assert os.environ[privacy.USAGE_STATS_ENV] == "1" and "VLLM_NO_USAGE_STATS" not in os.environ
    assert ServeOptions().usage_stats is True  # exports follow the saved choice
    del os.environ[privacy.USAGE_STATS_ENV]  # --version reads the saved setting
    assert main(["--version"]) == 0
    assert "usage statistics: on" in capsys.readouterr().out
    assert main(["privacy", "off"]) == 0
    assert load_settings().usage_stats is False and os.environ["VLLM_NO_USAGE_STATS"] == "1"
    assert "usage statistics: off" in capsys.readouterr().out


@pytest.mark.parametrize("saved", [True, False])
def test_version_with_settings_imports_no_pydantic(tmp_path: Path, saved: bool) -> None:
    """docs/ARCHITECTURE.md: pydantic is not paid by ``--version``. It was whenever
    settings.json existed (every start read the whole file through its schema for one value, the
    usage-statistics choice), so before the window's first paint too; the saved choice still
    shows."""
    home = tmp_path / "home"
    home.mkdir()
    (home / "settings.json").write_text(
        json.dumps({"schema_version": 2, "usage_stats": saved, "knobs": {"max_num_seqs": 8}}), encoding="utf-8"
    )
    env = {k: v for k, v in os.environ.items() if k != privacy.USAGE_STATS_ENV}
    proc = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "console", "--version"],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
        env={**env, "INFERENCE_CONSOLE_HOME": str(home)},
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    imported = [line.rsplit("|", 1)[-1].strip() for line in proc.stderr.splitlines() if line.startswith("import time:")]
    assert "console.versions" in imported  # the measurement sees the console's own imports
    assert [m for m in imported if m.split(".")[0] in ("pydantic", "pydantic_core")] == []
    assert f"usage statistics: {'on' if saved else 'off'}" in proc.stdout


def test_user_opt_outs_survive_opting_in(monkeypatch: Any) -> None:
    env = {"DO_NOT_TRACK": "1"}
    monkeypatch.setattr(privacy, "_USER_OPT_OUTS", frozenset({"DO_NOT_TRACK"}))
    privacy.apply(env, allowed=True)
    assert env["DO_NOT_TRACK"] == "1"  # the user's own shell said so; opting in here does not undo it
    env2 = {"VLLM_HOST_IP": "10.0.0.5"}
    privacy.apply(env2, allowed=False)
    assert env2["VLLM_HOST_IP"] == "10.0.0.5" and env2["VLLM_NO_USAGE_STATS"] == "1"
