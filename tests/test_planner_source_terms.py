"""Terms of vLLM 0.26's memory account the planner counts from vLLM's source, not fits (README-fit.md,
"Read from vLLM 0.26's source"): the rotary embeddings' cos/sin caches in the weights, and what a
compiled engine's first profile run adds (torch.compile's kernel benchmark of the embedding gather)."""

from __future__ import annotations

from console.planner.config_keys import rope_cache_elements
from console.planner.core import compute
from console.planner.published import PUBLISHED_CONFIGS
from console.planner.request import PlanRequest
from console.planner.shapes import KNOWN_SHAPES, ModelShape
from console.planner.vllm_memory import ReleaseConstants, activation_bytes, rope_cache_bytes

GEMMA12 = PUBLISHED_CONFIGS["RedHatAI/gemma-3-12b-it-FP8-dynamic"]


def test_rope_caches_follow_the_config() -> None:
    """One cache per distinct rope, rows x rotary width: Gemma-3's global rope (linear x 8) holds
    131,072 x 8 rows, its sliding layers' own rope 131,072; Llama's one rope max_position rows."""
    text = GEMMA12.get("text_config") or GEMMA12
    assert rope_cache_elements(text, 256, 131072) == (131072 * 8 + 131072) * 256
    v5 = {  # transformers 5 names the ropes per layer type
        "rope_parameters": {
            "full_attention": {"rope_type": "linear", "factor": 8.0, "rope_theta": 1e6},
            "sliding_attention": {"rope_type": "default", "rope_theta": 1e4},
        }
    }
    assert rope_cache_elements(v5, 256, 131072) == (131072 * 8 + 131072) * 256
    yarn = {"rope_scaling": {"rope_type": "yarn", "factor": 32.0, "original_max_position_embeddings": 4096}}
    assert rope_cache_elements(yarn, 64, 131072) == 4096 * 32 * 64
    assert rope_cache_elements({"partial_rotary_factor": 0.25}, 128, 4096) == 4096 * 32
    gemma = ModelShape.from_hf_config(GEMMA12, "Gemma-3-12B")
    assert rope_cache_bytes(gemma) == (131072 * 9) * 256 * 2  # 576 MiB, bf16
    assert rope_cache_bytes(KNOWN_SHAPES["Llama-3.1-8B"]) == 131072 * 128 * 2


def test_the_plans_weights_hold_the_rope_cache() -> None:
    gemma = ModelShape.from_hf_config(GEMMA12, "Gemma-3-12B")
    plain = ModelShape.from_hf_config({**GEMMA12, "rope_scaling": None}, "Gemma-3-12B")
    args = dict(gpu="h200", max_model_len=8192, calibration=False, measured_constants=False)
    p, q = compute(PlanRequest(gemma, **args)), compute(PlanRequest(plain, **args))
    # the parameters are the same; what vLLM holds on the GPU has the larger cache
    assert p.weights_bytes == q.weights_bytes
    assert p.per_gpu[0].weights_bytes - q.per_gpu[0].weights_bytes == 131072 * 7 * 256 * 2


def test_a_compiled_profile_run_peaks_at_the_embedding_benchmark_whatever_the_sequences() -> None:
    """A compiled engine's first profile run compiles the model; inductor benchmarks the fused
    embedding gather and first norm on random copies of its arguments: the embedding table and two
    [tokens, hidden] outputs. No term grows with max_num_seqs (vLLM 0.26 measured Llama-3.1-8B at
    8,192 tokens, 256 sequences: 1.10 GiB, this count 1.104)."""
    llama = KNOWN_SHAPES["Llama-3.1-8B"]
    c = ReleaseConstants(gpu="h200", vllm_version="0.26.0")
    table = 128256 * 4096 * 2
    outputs = 2 * 8192 * 4096 * 2 + 8192 * 8
    for seqs in (16, 256, 1024):
        assert activation_bytes(llama, 8192, seqs, 1, False, c) == table + outputs
    # at 16,384 tokens the forward pass is the larger: compiling adds nothing
    forward = 16384 * (3 * 4096 + 3 * 14336) * 2
    assert (
        activation_bytes(llama, 16384, 1024, 1, False, c) == forward == activation_bytes(llama, 16384, 1024, 1, True, c)
    )


def test_an_eager_mlp_that_keeps_its_gate_up_output_peaks_in_the_down_projection() -> None:
    """vLLM's Qwen2MLP (Qwen2, Qwen3) and Gemma3MLP keep ``gate_up`` bound while ``down_proj`` runs;
    Llama's MLP rebinds ``x`` and frees it. The peak is then the layer's input, residual and normed
    input, gate/up, its activation and the down projection's output, (4 x hidden + 3 x intermediate)
    x 2 B a token; W8A8 FP8 adds the down projection's 8-bit input (vLLM 0.26 on the H200: Qwen3-8B
    AWQ at 4,096 tokens 0.41 GiB, this count 0.406; Qwen3-8B-FP8 at 8,192 0.91, this count 0.909)."""
    from console.planner.vllm_memory import forward_peak

    qwen = ModelShape.from_hf_config(PUBLISHED_CONFIGS["Qwen/Qwen3-8B-FP8"], "Qwen3-8B")
    h, i = 4096, 12288
    assert forward_peak(qwen, 4096, 1, "awq") == 4096 * (4 * h + 3 * i) * 2
    assert forward_peak(qwen, 8192, 1, "fp8") == 8192 * ((4 * h + 3 * i) * 2 + i + i // 32)
    llama = KNOWN_SHAPES["Llama-3.1-8B"]
    assert forward_peak(llama, 8192, 1, "fp8") == 8192 * (3 * 4096 + 3 * 14336) * 2
