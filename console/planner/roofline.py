"""Speed ceilings: what the memory bandwidth and the tensor cores allow, so a measured speed can be
shown as a fraction of what the hardware could do.

* Single-stream decode reads every weight (the input embedding table aside: only one row per
  token; of an MoE's experts only the token's own) and the sequence's KV cache once per token:
  ``tok/s <= TP x bandwidth / bytes read``.
* A batch of B sequences shares one read of the weights:
  ``tok/s <= TP x bandwidth x B / (weights + B x context x KV bytes per token)``, and never more than
  ``GPUs x peak FLOP/s / FLOPs per token`` (2 per linear weight + 4 x layers x q_dim x context).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from console.planner.core import QUANT_BITS

if TYPE_CHECKING:
    from console.planner.core import Plan


def roofline(p: "Plan") -> dict[str, Any]:
    req, s, g = p.request, p.request.shape, p.request.profile
    tp, world = req.tensor_parallel_size, req.world_size
    bw = g.bandwidth_gbs * 1e9
    embed_read = 0 if s.tie_word_embeddings else s.embedding_params * s.weight_bytes
    # An MoE token reads only its experts: the others are resident but not read (their share of
    # a step's reads shrinks as a batch's tokens route to more of them).
    expert_bytes = s.expert_linear_params * QUANT_BITS[req.quantization] / 8
    w_all = p.weights_bytes - embed_read
    batch = max(1, min(req.concurrency, int(p.max_concurrency) or 1, req.max_num_seqs or req.concurrency))

    def weights_read(b: int) -> float:
        touched = 1 - (1 - s.experts_per_token / s.num_experts) ** b if s.is_moe else 1.0
        return w_all - expert_bytes * (1 - touched)

    w_read = weights_read(1)
    kv = p.kv_bytes_per_token
    ctx = req.context
    avg_ctx = ctx // 2  # a request's context grows from its prompt to max_model_len: half on average

    single_short = tp * bw / w_read
    single_full = tp * bw / (w_read + ctx * kv)
    mem_batched = tp * bw * batch / (weights_read(batch) + batch * avg_ctx * kv)
    lm_head = s.embedding_params
    linear_read = s.linear_params - s.inactive_params  # per token: the active experts only
    flops_per_token = 2 * (linear_read + lm_head) + 4 * s.layers * s.q_dim * avg_ctx
    fp8_compute = req.quantization == "fp8" and g.native_fp8
    peak = (g.fp8_tflops if fp8_compute and g.fp8_tflops else g.bf16_tflops) * 1e12
    compute_bound = world * peak / flops_per_token
    return {
        "decode_tok_s_single_stream": round(single_short, 1),
        "decode_tok_s_single_stream_full_context": round(single_full, 1),
        "batched_sequences": batch,
        "batched_tok_s_memory_bound": round(mem_batched, 1),
        "batched_tok_s_compute_bound": round(compute_bound, 1),
        "batched_tok_s_bound": round(min(mem_batched, compute_bound), 1),
        "formulas": {
            "single_stream": (
                f"TP x bandwidth / weights read = {tp} x {g.bandwidth_gbs:g} GB/s / "
                f"{w_read / 1e9:.2f} GB = {single_short:.1f} tok/s (at {ctx:,} tokens of context: "
                f"+ {ctx:,} x {kv:,} B of KV -> {single_full:.1f} tok/s)"
            ),
            "batched_memory": (
                f"TP x bandwidth x B / (weights + B x avg context x KV per token) = {tp} x "
                f"{g.bandwidth_gbs:g} GB/s x {batch} / ({w_read / 1e9:.2f} GB + {batch} x {avg_ctx:,} x "
                f"{kv:,} B) = {mem_batched:.1f} tok/s"
            ),
            "batched_compute": (
                f"GPUs x peak / FLOPs per token = {world} x {peak / 1e12:g} TFLOP/s "
                f"({'FP8' if fp8_compute else 'BF16'}) / (2 x {linear_read + lm_head:,} + 4 x "
                f"{s.layers} x {s.q_dim} x {avg_ctx:,}) = {compute_bound:.1f} tok/s"
            ),
        },
    }
