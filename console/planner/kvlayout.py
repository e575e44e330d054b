"""How vLLM lays out the KV cache of one GPU: per layer type, as the installed version allocates it.

vLLM 0.26-0.33 (``vllm/v1/core/kv_cache_utils.py``; ``kv_cache_planning.py`` in 0.33) on a GPU:

* Every layer of one attention type shares a page size: ``block_size x 2 x kv_heads x head_dim x
  dtype bytes``. A model with one type (every layer full attention) has one group of all layers.
* A model with sliding-window layers beside full ones (Gemma-2/3, gpt-oss) goes through the hybrid
  KV cache manager (on by default on a GPU; never on the CPU, where sliding layers are sized as
  full ones): layers are split into groups of ``group_size`` layers (the smaller layer count of
  the two types, or the larger when it is under 1.5x the smaller), and one block id holds a
  block of tokens in one layer of every group: ``bytes per block = group_size x page``.
* A request is charged, per group, ``ceil(max_model_len / block)`` blocks for full attention and
  ``ceil(min(window - 1 + 2 x max_num_batched_tokens, max_model_len) / block) + 1`` for a sliding
  window (two batches in flight: asynchronous scheduling is on by default).
* vLLM refuses a max_model_len whose request needs more than the KV memory it has (0.32 and later
  keep one block aside first) and names the longest one that fits. What it logs as "KV cache size:
  N tokens" is ``blocks / blocks per request x max_model_len``; for a hybrid model that depends on
  max_model_len and is not the number of tokens the cache holds.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from console.messages import Message
from console.planner.shapes import ModelShape


@dataclass(frozen=True)
class KvLayout:
    """The KV cache's geometry on one GPU for one max_model_len."""

    rule: str  # said in the plan: which allocation rule these figures follow
    page_bytes: int  # one layer's block
    group_size: int  # layers per group (sharing one block id)
    groups_full: int
    groups_sliding: int
    window: int
    block_size: int
    max_model_len: int
    max_num_batched_tokens: int
    reserved_blocks: int  # blocks vLLM keeps aside before its max_model_len check (0.32+: 1)

    @property
    def bytes_per_block(self) -> int:
        return self.group_size * self.page_bytes

    @property
    def groups(self) -> int:
        return self.groups_full + self.groups_sliding

    def sliding_blocks(self, max_model_len: int) -> int:
        tokens = min(self.window - 1 + 2 * self.max_num_batched_tokens, max_model_len)
        return math.ceil(tokens / self.block_size) + 1

    def blocks_per_request(self, max_model_len: int | None = None) -> int:
        length = self.max_model_len if max_model_len is None else max_model_len
        full = self.groups_full * math.ceil(length / self.block_size)
        return full + (self.groups_sliding * self.sliding_blocks(length) if self.groups_sliding else 0)

    def blocks(self, budget_bytes: int) -> int:
        return max(0, int(budget_bytes) // self.bytes_per_block)

    def fits_one(self, blocks: int, max_model_len: int | None = None) -> bool:
        """vLLM's start-up check: one request of max_model_len fits in the cache."""
        return self.blocks_per_request(max_model_len) <= blocks - self.reserved_blocks

    def longest_fitting(self, blocks: int, cap: int) -> int:
        """The longest max_model_len (at most ``cap``) that passes the start-up check, as vLLM's
        own estimate finds it (0: not even one token)."""
        lo, hi = 0, cap
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if self.fits_one(blocks, mid):
                lo = mid
            else:
                hi = mid - 1
        return lo

    def concurrency(self, blocks: int) -> float:
        return blocks / self.blocks_per_request()

    def reported_tokens(self, blocks: int) -> int:
        """What vLLM logs as "KV cache size: N tokens"."""
        return int(self.concurrency(blocks) * self.max_model_len)

    def tokens_held(self, blocks: int) -> int:
        """Tokens the cache holds (blocks x block size; with the hybrid KV cache, tokens of short
        requests, which every group keeps)."""
        return blocks * self.block_size // max(1, self.groups)


def kv_layout(
    shape: ModelShape,
    dtype_bytes: int,
    block_size: int,
    max_model_len: int,
    max_num_batched_tokens: int,
    layers: int | None = None,
    kv_heads: int | None = None,
    hybrid: bool = True,
    vllm_minor: int | None = None,
) -> KvLayout:
    """The layout of ``layers`` layers (default all) of ``shape`` with ``kv_heads`` per GPU.
    ``hybrid``: the hybrid KV cache manager (GPU: on; CPU: off). ``vllm_minor``: the vLLM 0.x
    release whose rules apply (None: the newest known)."""
    n = shape.layers if layers is None else layers
    heads = shape.num_kv_heads if kv_heads is None else kv_heads
    page = block_size * 2 * heads * shape.head_dim * dtype_bytes
    reserved = 0 if vllm_minor is not None and vllm_minor < 32 else 1
    sliding = round(shape.sliding_layers * n / shape.layers) if shape.sliding_window else 0
    full = n - sliding
    common = dict(
        page_bytes=page,
        window=shape.sliding_window,
        block_size=block_size,
        max_model_len=max_model_len,
        max_num_batched_tokens=max_num_batched_tokens,
        reserved_blocks=reserved,
    )
    if not sliding or (not hybrid and full):
        rule = (
            Message(
                "every layer as full attention ({0} sliding-window layers too: no hybrid KV cache on this device)",
                sliding,
            )
            if sliding and not hybrid
            else Message("every layer as full attention")
        )
        return KvLayout(rule=rule, group_size=n, groups_full=1, groups_sliding=0, **common)
    if not full:
        rule = Message("every layer a {0}-token sliding window", shape.sliding_window)
        return KvLayout(rule=rule, group_size=n, groups_full=0, groups_sliding=1, **common)
    small, large = min(full, sliding), max(full, sliding)
    group = large if large < 1.5 * small else small
    gf, gs = math.ceil(full / group), math.ceil(sliding / group)
    rule = Message(
        "hybrid KV cache: {0} full-attention + {1} sliding-window ({2} tokens) layers in {3} groups of {4}; a "
        "request holds its whole context in the full layers and window + 2 x {5} batched tokens in each sliding one",
        full,
        sliding,
        shape.sliding_window,
        gf + gs,
        group,
        f"{max_num_batched_tokens:,}",
    )
    return KvLayout(rule=rule, group_size=group, groups_full=gf, groups_sliding=gs, **common)


__all__ = ["KvLayout", "kv_layout"]
