"""The planner's KV arithmetic against what vLLM itself reports, on the real CPU engine.

On CPU the KV budget is exactly ``kv_cache_memory_bytes`` and the block size is forced to 128, so
the prediction must equal vLLM's figures to the token: the number of blocks, the tokens
(``EngineInfo.kv_cache_tokens``), and the "KV cache size" / "Maximum concurrency" vLLM logs
(stored on ``vllm_config.cache_config``). Engine loads are few: the session's tiny-model engine,
one more tiny load with a max_model_len that is not a multiple of the block size, and the bundled
SmolLM2 at two KV sizes (one of them the session's shared SmolLM2 engine, ``smollm2_engine``).
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any, Iterator

import pytest

from conftest import SMOLLM2_KV_BYTES, SMOLLM2_MAX_LEN, TEST_KV_BYTES
from console.planner import PlanRequest, plan, shape_for

pytestmark = pytest.mark.engine


def vllm_own_figures(engine: Any) -> dict[str, Any]:
    """What vLLM logged as "KV cache size: N tokens, Maximum concurrency for L tokens: Xx"."""
    cache = engine._engine.vllm_config.cache_config  # read-only peek at the engine's resolved config
    return {
        "blocks": cache.num_gpu_blocks,
        "block_size": cache.block_size,
        "tokens": cache.kv_cache_size_tokens,
        "concurrency": cache.kv_cache_max_concurrency,
    }


def check(engine: Any, model: Any, kv_bytes: int, max_model_len: int) -> dict[str, Any]:
    info = engine.status.info
    own = vllm_own_figures(engine)
    # the KV cache follows the weights' dtype, which the CPU dtype check chose (float32 here)
    p = plan(
        PlanRequest(
            shape_for(model),
            gpu="cpu",
            max_model_len=max_model_len,
            kv_cache_memory_bytes=kv_bytes,
            calibration=False,
            dtype=info.dtype,
        )
    )
    assert p.block_size == own["block_size"] == info.block_size == 128
    assert p.kv_blocks == own["blocks"] == info.num_kv_blocks
    assert p.kv_tokens == info.kv_cache_tokens
    assert p.kv_cache_size_tokens == own["tokens"]
    assert p.max_concurrency == pytest.approx(own["concurrency"], abs=1e-9)
    figures = {
        "kv_cache_memory_bytes": kv_bytes,
        "max_model_len": max_model_len,
        **own,
        "dtype_bytes": dtype_bytes(engine),
    }
    print("vLLM reported:", figures)  # the source of resources/calibration/cpu.json's points
    return figures


def dtype_bytes(engine: Any) -> int:
    return 4 if engine.status.info.dtype == "float32" else 2


def load(model_path: Path, kv_bytes: int, max_model_len: int) -> Any:
    from console.config import EngineConfig
    from console.engine.in_process import InProcessEngine

    engine = InProcessEngine()
    engine.load(
        EngineConfig(
            model=str(model_path),
            kv_cache_memory_bytes=kv_bytes,
            max_model_len=max_model_len,
            device="cpu",
            enforce_eager=True,
        ),
        model_path.name,
    ).result(timeout=600)
    return engine


def test_tiny_model_session_engine(tiny_engine: Any, tiny_model: Path) -> None:
    figures = check(tiny_engine, tiny_model, TEST_KV_BYTES, 1024)
    # hand check: 2 layers x 2 x 1 kv head x 64 x 2 B = 512 B/token (1024 in float32);
    # 64 MiB / (128 x 512) = 1024 blocks (512 in float32)
    per_token = 512 * dtype_bytes(tiny_engine) // 2
    assert figures["blocks"] == TEST_KV_BYTES // (128 * per_token)


def test_tiny_model_partial_last_block(tiny_model: Path) -> None:
    """max_model_len 1000 is not a multiple of 128: a request still takes ceil(1000/128) = 8 blocks."""
    kv = 5 * 1024**2 + 12345
    engine = load(tiny_model, kv, 1000)
    try:
        figures = check(engine, tiny_model, kv, 1000)
        per_token = 512 * dtype_bytes(engine) // 2
        assert figures["concurrency"] == pytest.approx((kv // (128 * per_token)) / math.ceil(1000 / 128))
    finally:
        engine.close()


@pytest.fixture(scope="module")
def smol_entry(smollm2_model: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """The session's converted SmolLM2 (conftest), registered by reference in a store of its own."""
    from console.models.importers import import_hf_folder
    from console.models.store import ModelStore

    store = ModelStore(tmp_path_factory.mktemp("planner-store"))
    yield import_hf_folder(store, smollm2_model, "smollm2", copy=False)


@pytest.mark.e2e
@pytest.mark.parametrize("kv_bytes,max_model_len", [(2 * 1024**3, 8192), (SMOLLM2_KV_BYTES, SMOLLM2_MAX_LEN)])
def test_smollm2_two_kv_sizes(
    smol_entry: Any, kv_bytes: int, max_model_len: int, request: pytest.FixtureRequest
) -> None:
    shape = shape_for(smol_entry)  # read from the store entry's config.json
    table = shape_for("SmolLM2-135M")
    keys = (
        "layers",
        "hidden_size",
        "num_attention_heads",
        "num_kv_heads",
        "head_dim",
        "intermediate_size",
        "vocab_size",
        "tie_word_embeddings",
        "params",
    )
    assert {k: getattr(shape, k) for k in keys} == {k: getattr(table, k) for k in keys}
    assert shape.params == smol_entry.params  # the store counted the safetensors' parameters
    if (kv_bytes, max_model_len) == (SMOLLM2_KV_BYTES, SMOLLM2_MAX_LEN):
        # the session's SmolLM2 engine was built with this point (300 MiB, 2000 tokens): no new load
        engine = request.getfixturevalue("smollm2_engine")
        assert Path(engine.status.info.model_path).resolve() == Path(smol_entry.path).resolve()
        figures = check(engine, smol_entry, kv_bytes, max_model_len)
    else:
        engine = load(Path(smol_entry.path), kv_bytes, max_model_len)
        try:
            figures = check(engine, smol_entry, kv_bytes, max_model_len)
        finally:
            engine.close()
    if kv_bytes == 2 * 1024**3:  # FIELD_NOTES: 2 GiB -> 93,184 tokens in 16 bits (half in float32)
        assert figures["blocks"] * 128 == 93_184 * 2 // figures["dtype_bytes"]
