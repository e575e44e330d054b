"""The Export tab renders console.export's real texts (no stand-ins): the loaded engine's config,
or one the window sets; Save writes files (one) or a folder (several)."""

from __future__ import annotations

import shlex
from pathlib import Path

import pytest
import yaml

from console.config import EngineConfig
from console.engine.serve_options import ExportError
from console.metrics.store import MetricsStore
from console.metrics.device import DeviceSampler

pytest.importorskip("pytestqt")


def _panel(qtbot, connections, engine=None):
    """An Export panel on ``engine`` (None: no engine), its bridge closed at the test's teardown."""
    from console.ui.context import AppContext
    from console.ui.export.panel import ExportPanel

    metrics = engine.metrics if engine is not None else MetricsStore()
    ctx = AppContext(
        engine=engine,
        metrics=metrics,
        store=None,
        sampler=DeviceSampler(metrics),  # type: ignore[arg-type]
        bridge=connections.bridge(engine) if engine is not None else None,
    )  # type: ignore[arg-type]
    panel = ExportPanel(ctx)
    qtbot.addWidget(panel)
    panel.show()
    return panel


def test_export_placeholder_then_every_format(qtbot, connections, tmp_path: Path) -> None:
    model_dir = tmp_path / "my-model"
    model_dir.mkdir()
    (model_dir / "config.json").write_text("{}")
    panel = _panel(qtbot, connections)
    assert not panel.save_button.isEnabled() and "Load a model" in panel.message.text()

    config = EngineConfig(model=str(model_dir), max_model_len=4096, max_num_seqs=32, enable_prefix_caching=False)
    panel.set_config(config)
    assert panel.fmt == "yaml" and panel.editor.isReadOnly()
    data = yaml.safe_load(panel.current_text())
    assert data["model"] == str(model_dir) and data["max-model-len"] == 4096 and data["max-num-seqs"] == 32
    assert data["enable-prefix-caching"] is False and data["host"] == "127.0.0.1"

    panel.set_format("cmd")
    line = [ln for ln in panel.current_text().splitlines() if ln.startswith("exec ")][0]
    tokens = shlex.split(line)
    assert tokens[1:3] == ["vllm", "serve"] and "--max-model-len" in tokens and "--no-enable-prefix-caching" in tokens
    saved = panel.save_to(tmp_path / "serve.sh")
    assert saved.read_text() == panel.current_text() and saved.stat().st_mode & 0o100

    panel.port_spin.setValue(9001)
    panel.set_format("compose")
    assert panel.file_combo.count() == 2 and panel.file_combo.isEnabled()
    assert "9001" in panel.current_text()

    panel.set_format("k8s")
    docs = [d for d in yaml.safe_load_all(panel.current_text()) if d]
    assert {d["kind"] for d in docs} >= {"Deployment", "Service"}

    panel.set_format("bundle")
    names = [panel.file_combo.itemText(i) for i in range(panel.file_combo.count())]
    assert {"serve.yaml", "serve.sh", "README.md", "manifest.json"} <= set(names)
    out = panel.save_to(tmp_path / "bundle")
    assert (out / "serve.yaml").read_text() == panel.files["serve.yaml"]
    with pytest.raises(ExportError, match="exists"):
        panel.save_to(tmp_path / "bundle")  # never overwrites a folder silently

    panel.set_format("trtllm")  # TensorRT-LLM's trtllm-serve, from the same configuration
    names = [panel.file_combo.itemText(i) for i in range(panel.file_combo.count())]
    assert set(names) == {"trtllm.yaml", "trtllm-serve.sh", "trtllm.container.yaml", "Dockerfile", "README.md"}
    trt = yaml.safe_load(panel.files["trtllm.yaml"])
    assert trt["max_seq_len"] == 4096 and trt["max_batch_size"] == 32
    assert trt["kv_cache_config"]["enable_block_reuse"] is False and "--port 9001" in panel.files["trtllm-serve.sh"]

    panel.host_edit.setText("0.0.0.0")
    panel.refresh()
    assert "reachable from other machines" in panel.message.text()
    panel.port_spin.setValue(1)
    panel.host_edit.setText("bad host")
    panel.refresh()
    assert "Cannot export" in panel.message.text() and not panel.save_button.isEnabled()


@pytest.mark.engine
def test_export_follows_the_loaded_engine(qtbot, connections, tiny_engine) -> None:
    panel = _panel(qtbot, connections, tiny_engine)
    data = yaml.safe_load(panel.current_text())
    assert data["model"] == tiny_engine.config.model
    assert data["max-model-len"] == 1024  # what the session engine was loaded with
