"""Random-weight checkpoints of a chosen shape, with a real tokenizer and chat template.

Tests use a tiny one (fast to build, seconds to load in vLLM); the GPU runs use the same code for
large shapes. The weights are random, so the text is gibberish, but every code path is real: the
files are what a Hugging Face checkpoint holds and vLLM loads them as it would any Llama.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

CHAT_TEMPLATE = (
    "{% for message in messages %}<|im_start|>{{ message['role'] }}\n{{ message['content'] }}<|im_end|>\n"
    "{% endfor %}{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
)

_CORPUS = [
    "The capital of France is Paris. The capital of Italy is Rome.",
    "A GPU with 24 GB of memory holds the weights, the KV cache and the activations.",
    "PagedAttention stores the KV cache in blocks; continuous batching keeps the GPU busy.",
    "Quantization to int4 or fp8 shrinks the weights and speeds up decoding.",
    "What is the capital of France? Hello, how are you today? Tell me a story about a cat.",
]


def build_tokenizer(folder: Path, vocab_size: int = 512) -> Any:
    """Train a small byte-level BPE tokenizer and save it as a fast HF tokenizer in ``folder``."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    special = ["<|endoftext|>", "<|im_start|>", "<|im_end|>"]
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size, special_tokens=special, initial_alphabet=pre_tokenizers.ByteLevel.alphabet()
    )
    tok.train_from_iterator(_CORPUS * 20, trainer=trainer)
    fast = PreTrainedTokenizerFast(
        tokenizer_object=tok,
        bos_token="<|im_start|>",
        eos_token="<|im_end|>",
        unk_token="<|endoftext|>",
        pad_token="<|endoftext|>",
    )
    fast.chat_template = CHAT_TEMPLATE
    fast.save_pretrained(str(folder))
    return fast


def make_llama(
    folder: Path,
    *,
    hidden_size: int = 128,
    num_layers: int = 2,
    num_heads: int = 2,
    num_kv_heads: int = 1,
    intermediate_size: int = 256,
    max_position_embeddings: int = 2048,
    vocab_size: int = 512,
    seed: int = 0,
    dtype: str = "bfloat16",
) -> Path:
    """Write a random-weight Llama checkpoint (safetensors + tokenizer + chat template).

    The CPU attention kernels need head_dim 32, 64, 128...: the defaults give 64."""
    import torch
    from transformers import LlamaConfig, LlamaForCausalLM

    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    tok = build_tokenizer(folder, vocab_size)
    torch.manual_seed(seed)
    cfg = LlamaConfig(
        vocab_size=len(tok),
        hidden_size=hidden_size,
        intermediate_size=intermediate_size,
        num_hidden_layers=num_layers,
        num_attention_heads=num_heads,
        num_key_value_heads=num_kv_heads,
        max_position_embeddings=max_position_embeddings,
        bos_token_id=tok.bos_token_id,
        eos_token_id=tok.eos_token_id,
        pad_token_id=tok.pad_token_id,
        tie_word_embeddings=False,
    )
    model = LlamaForCausalLM(cfg).to(getattr(torch, dtype))
    model.save_pretrained(str(folder), safe_serialization=True)
    gen = {"bos_token_id": tok.bos_token_id, "eos_token_id": tok.eos_token_id}
    (folder / "generation_config.json").write_text(json.dumps(gen), encoding="utf-8")
    return folder


def make_lora(
    base: Path,
    folder: Path,
    *,
    rank: int = 8,
    seed: int = 1,
    scale: float = 0.5,
    target_modules: tuple[str, ...] = ("q_proj", "v_proj"),
) -> Path:
    """Write a random-weight PEFT LoRA adapter for the checkpoint in ``base``.

    peft initialises B to zeros (an adapter that changes nothing); both A and B get random values
    here, so the adapter visibly changes the model's greedy output."""
    import torch
    from peft import LoraConfig, get_peft_model
    from transformers import AutoModelForCausalLM

    model = AutoModelForCausalLM.from_pretrained(str(base), dtype=torch.float32)
    config = LoraConfig(
        r=rank, lora_alpha=2 * rank, target_modules=list(target_modules), lora_dropout=0.0, task_type="CAUSAL_LM"
    )
    peft_model = get_peft_model(model, config)
    gen = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for name, param in peft_model.named_parameters():
            if "lora_A" in name or "lora_B" in name:
                param.copy_(torch.randn(param.shape, generator=gen) * scale)
    peft_model.save_pretrained(str(folder), safe_serialization=True)
    return Path(folder)
