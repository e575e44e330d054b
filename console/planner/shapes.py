"""Model shapes: the few numbers of a transformer that decide its memory and speed.

A :class:`ModelShape` comes from a Hugging Face ``config.json`` (a folder, a store entry) or from
the built-in table of well-known models, so a user can plan for a model before downloading it.
The table's figures are copied from each model's published ``config.json``.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, replace
from typing import Any

from console.planner.config_keys import quant_method, quant_variant, rope_cache_elements, sliding_layers
from console.planner.config_keys import tied_embeddings
from console.planner.vision import (
    deepstack_levels,
    image_tokens,
    reference_image_tokens,
    text_model_type,
    vision_kind,
    vision_params,
)
from console.planner.published_vision import with_vision


class ShapeError(ValueError):
    """A model whose shape cannot be found or read; the message says what to do."""


@dataclass(frozen=True)
class ModelShape:
    layers: int
    hidden_size: int
    num_attention_heads: int
    num_kv_heads: int
    head_dim: int
    intermediate_size: int
    vocab_size: int
    max_position_embeddings: int
    tie_word_embeddings: bool = False
    params: int = 0  # 0: computed from the other fields
    name: str = ""
    attention_bias: bool = False  # Qwen2 has q/k/v biases
    weight_bytes: int = 2  # bytes per unquantized parameter as the engine holds it (bf16/fp16)
    quantization: str | None = None  # the checkpoint's own quantization, if it has one
    #: mixture of experts: routed experts per layer (0: a dense MLP), how many each token uses, and
    #: each expert's MLP width. Every expert is resident (memory); a token reads only its own (speed).
    num_experts: int = 0
    experts_per_token: int = 0
    moe_intermediate_size: int = 0
    #: the architecture as its config.json names it (``model_type``: "llama", "qwen3_moe",
    #: "gemma3_text", "gpt_oss"...): what the planner's calibration is keyed by ("" = unknown)
    model_type: str = ""
    #: sliding-window attention: the window in tokens and how many of the layers use it (the rest
    #: attend to the whole context); 0 = every layer is full attention
    sliding_window: int = 0
    sliding_layers: int = 0
    #: the quantization's own variant where it changes what vLLM stores: "block" (FP8 with
    #: 128 x 128 scales), "channel"/"tensor" (compressed-tensors FP8), "" otherwise
    quant_variant: str = ""
    #: a vision-language model's vision tower and projector (16-bit, outside ``params``) and the
    #: tokens one image takes in a prompt where the config fixes it (planner/vision.py)
    vision_params: int = 0
    image_tokens: int = 0
    #: the tokens of a REFERENCE_SIDE-pixel square picture (= ``image_tokens`` where it is fixed)
    reference_image_tokens: int = 0
    vision_kind: str = ""  # the tower's kind (planner/vision.py); "" for a text model
    deepstack_levels: int = 0  # Qwen3-VL: a buffer per level beside the tower (planner/vision.py)
    extra: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)

    def __post_init__(self) -> None:
        for key in (
            "layers",
            "hidden_size",
            "num_attention_heads",
            "num_kv_heads",
            "head_dim",
            "intermediate_size",
            "vocab_size",
            "max_position_embeddings",
        ):
            if int(getattr(self, key)) <= 0:
                raise ShapeError(f"model shape {self.name or '?'}: {key} must be positive")
        if self.params == 0:
            object.__setattr__(
                self,
                "params",
                self.embedding_params * (1 if self.tie_word_embeddings else 2)
                + self.layers * (self.linear_params_per_layer + self.small_params_per_layer)
                + self.hidden_size,
            )

    # -- parameter groups (what quantization touches and what it leaves alone) -----------------
    @property
    def q_dim(self) -> int:
        return self.num_attention_heads * self.head_dim

    @property
    def kv_dim(self) -> int:
        return self.num_kv_heads * self.head_dim

    @property
    def attention_linear_params(self) -> int:
        """q, k, v and o projections of one layer."""
        h = self.hidden_size
        return h * self.q_dim + 2 * h * self.kv_dim + self.q_dim * h

    @property
    def is_moe(self) -> bool:
        return self.num_experts > 0

    @property
    def expert_params(self) -> int:
        """gate, up and down projections of one expert."""
        return 3 * self.hidden_size * self.moe_intermediate_size

    @property
    def mlp_linear_params(self) -> int:
        """gate, up and down projections of one layer (gated MLP; every expert of an MoE layer)."""
        if self.is_moe:
            return self.num_experts * self.expert_params
        return 3 * self.hidden_size * self.intermediate_size

    @property
    def expert_linear_params(self) -> int:
        """All routed experts' linears (0 for a dense model): what MXFP4 checkpoints quantize."""
        return self.layers * self.num_experts * self.expert_params

    @property
    def inactive_params(self) -> int:
        """Expert parameters a token does not read (resident all the same)."""
        return self.layers * (self.num_experts - self.experts_per_token) * self.expert_params if self.is_moe else 0

    @property
    def active_params(self) -> int:
        """Parameters one token reads: all of a dense model, the routed experts' share of an MoE."""
        return self.params - self.inactive_params

    @property
    def linear_params_per_layer(self) -> int:
        return self.attention_linear_params + self.mlp_linear_params

    @property
    def small_params_per_layer(self) -> int:
        """Norms and biases: never quantized."""
        bias = self.q_dim + 2 * self.kv_dim if self.attention_bias else 0
        router = self.hidden_size * self.num_experts  # the MoE gate: small, kept 16-bit
        return 2 * self.hidden_size + bias + router

    @property
    def embedding_params(self) -> int:
        return self.vocab_size * self.hidden_size

    @property
    def linear_params(self) -> int:
        """All quantizable parameters (decoder linears; embeddings and lm_head stay 16-bit)."""
        return self.layers * self.linear_params_per_layer

    @property
    def unquantized_params(self) -> int:
        return self.params - self.linear_params

    def linear_bytes(self, bits: float, experts_only: bool = False, layers: int | None = None) -> float:
        """Bytes of the linears of ``layers`` layers (default all) at ``bits`` per weight; with
        ``experts_only`` (MXFP4, as gpt-oss ships) attention stays at ``weight_bytes``."""
        n = self.layers if layers is None else layers
        linear = n * self.linear_params_per_layer
        quantized = n * self.num_experts * self.expert_params if experts_only else linear
        return quantized * bits / 8 + (linear - quantized) * self.weight_bytes

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d.pop("extra")
        return d

    @classmethod
    def from_hf_config(cls, config: dict[str, Any], name: str = "") -> "ModelShape":
        """The shape described by a Hugging Face ``config.json`` (multimodal configs: its text part)."""
        cfg = dict(config.get("text_config") or config)
        try:
            hidden = int(cfg["hidden_size"])
            heads = int(cfg["num_attention_heads"])
            layers = int(cfg["num_hidden_layers"])
            vocab = int(cfg.get("vocab_size") or config["vocab_size"])
        except KeyError as exc:
            raise ShapeError(
                f"config.json of {name or 'the model'} has no {exc.args[0]}: "
                "not a decoder-only transformer the planner knows"
            ) from exc
        kv_heads = int(cfg.get("num_key_value_heads") or heads)
        head_dim = int(cfg.get("head_dim") or hidden // heads)
        inter = int(cfg.get("intermediate_size") or 4 * hidden)
        max_pos = int(cfg.get("max_position_embeddings") or cfg.get("max_sequence_length") or 2048)
        experts = int(cfg.get("num_experts") or cfg.get("num_local_experts") or cfg.get("n_routed_experts") or 0)
        moe_inter = int(cfg.get("moe_intermediate_size") or (inter if experts else 0))
        qcfg = dict(config.get("quantization_config") or {})
        quant = quant_method(qcfg)
        dtype = str(cfg.get("torch_dtype") or cfg.get("dtype") or "bfloat16")
        model_type = text_model_type(str(cfg.get("model_type") or config.get("model_type", "")))
        window, sliding = sliding_layers(cfg, layers)
        return cls(
            layers=layers,
            hidden_size=hidden,
            num_attention_heads=heads,
            num_kv_heads=kv_heads,
            head_dim=head_dim,
            intermediate_size=inter,
            vocab_size=vocab,
            max_position_embeddings=max_pos,
            tie_word_embeddings=tied_embeddings(config, cfg),
            name=name,
            attention_bias=bool(cfg.get("attention_bias", model_type.startswith("qwen2"))),
            weight_bytes=4 if dtype == "float32" else 2,
            quantization=str(quant) if quant else None,
            num_experts=experts,
            experts_per_token=int(cfg.get("num_experts_per_tok") or 0) if experts else 0,
            moe_intermediate_size=moe_inter,
            model_type=model_type,
            sliding_window=window,
            sliding_layers=sliding,
            quant_variant=quant_variant(qcfg),
            vision_params=vision_params(config),
            image_tokens=image_tokens(config),
            reference_image_tokens=reference_image_tokens(config),
            vision_kind=vision_kind(config),
            deepstack_levels=deepstack_levels(config),
            extra={"model_type": model_type, "rope": rope_cache_elements(cfg, head_dim, max_pos, layers)},
        )


def _shape(
    name: str,
    layers: int,
    hidden: int,
    heads: int,
    kv: int,
    head_dim: int,
    inter: int,
    vocab: int,
    max_pos: int,
    tied: bool,
    bias: bool = False,
    experts: tuple[int, int] = (0, 0),
    model_type: str = "",
    sliding: tuple[int, int] = (0, 0),
) -> ModelShape:
    """``experts``: (routed experts per layer, experts per token); ``inter`` is then each expert's
    width. ``model_type``: the config's model_type; ``sliding``: (window, layers that use it)."""
    return ModelShape(
        layers=layers,
        hidden_size=hidden,
        num_attention_heads=heads,
        num_kv_heads=kv,
        head_dim=head_dim,
        intermediate_size=inter,
        vocab_size=vocab,
        max_position_embeddings=max_pos,
        tie_word_embeddings=tied,
        name=name,
        attention_bias=bias,
        num_experts=experts[0],
        experts_per_token=experts[1],
        moe_intermediate_size=inter if experts[0] else 0,
        model_type=model_type,
        sliding_window=sliding[0],
        sliding_layers=sliding[1],
    )


#: Well-known models, from their published config.json files.
KNOWN_SHAPES: dict[str, ModelShape] = {
    s.name: s
    for s in [
        _shape("Llama-3.1-8B", 32, 4096, 32, 8, 128, 14336, 128256, 131072, False, model_type="llama"),
        _shape("Llama-3.2-3B", 28, 3072, 24, 8, 128, 8192, 128256, 131072, True, model_type="llama"),
        _shape("Qwen2.5-7B", 28, 3584, 28, 4, 128, 18944, 152064, 32768, False, bias=True, model_type="qwen2"),
        _shape("Qwen2.5-14B", 48, 5120, 40, 8, 128, 13824, 152064, 32768, False, bias=True, model_type="qwen2"),
        _shape("Qwen2.5-32B", 64, 5120, 40, 8, 128, 27648, 152064, 32768, False, bias=True, model_type="qwen2"),
        _shape("Mistral-7B", 32, 4096, 32, 8, 128, 14336, 32768, 32768, False, model_type="mistral"),
        # Gemma-2 alternates sliding-window (4096) and global layers.
        _shape("Gemma-2-9B", 42, 3584, 16, 8, 256, 14336, 256000, 8192, True, model_type="gemma2", sliding=(4096, 21)),
        _shape(
            "DeepSeek-R1-Distill-Qwen-7B",
            28,
            3584,
            28,
            4,
            128,
            18944,
            152064,
            131072,
            False,
            bias=True,
            model_type="qwen2",
        ),
        _shape("Phi-3.5-mini", 32, 3072, 32, 32, 96, 8192, 32064, 131072, False, model_type="phi3"),
        _shape("SmolLM2-135M", 30, 576, 9, 3, 64, 1536, 49152, 8192, True, model_type="llama"),
        # Qwen3 has no q/k/v bias (it normalizes q and k).
        _shape("Qwen3-8B", 36, 4096, 32, 8, 128, 12288, 151936, 40960, False, model_type="qwen3"),
        _shape("Qwen3-14B", 40, 5120, 40, 8, 128, 17408, 151936, 40960, False, model_type="qwen3"),
        _shape("Qwen3-32B", 64, 5120, 64, 8, 128, 25600, 151936, 40960, False, model_type="qwen3"),
        _shape(
            "Qwen3-30B-A3B", 48, 2048, 32, 4, 128, 768, 151936, 40960, False, experts=(128, 8), model_type="qwen3_moe"
        ),
        # Gemma-3 (text_config): 5 sliding-window layers (1024) per global one.
        _shape(
            "Gemma-3-12B",
            48,
            3840,
            16,
            8,
            256,
            15360,
            262208,
            131072,
            True,
            model_type="gemma3_text",
            sliding=(1024, 40),
        ),
        _shape(
            "Gemma-3-27B",
            62,
            5376,
            32,
            16,
            128,
            21504,
            262208,
            131072,
            True,
            model_type="gemma3_text",
            sliding=(1024, 52),
        ),
        _shape("Mistral-Small-24B", 40, 5120, 32, 8, 128, 32768, 131072, 32768, False, model_type="mistral"),
        # gpt-oss alternates 128-token sliding-window and full attention; its experts ship in MXFP4,
        # attention and embeddings in bf16.
        _shape(
            "gpt-oss-20b",
            24,
            2880,
            64,
            8,
            64,
            2880,
            201088,
            131072,
            False,
            bias=True,
            experts=(32, 4),
            model_type="gpt_oss",
            sliding=(128, 12),
        ),
        _shape("Llama-3.3-70B", 80, 8192, 64, 8, 128, 28672, 128256, 131072, False, model_type="llama"),
        # Mistral NeMo (12B, 128k tokenizer) and the R1 distills (the 14B is Qwen2.5-14B's shape
        # with a 128k context).
        _shape("Mistral-NeMo-12B", 40, 5120, 32, 8, 128, 14336, 131072, 1024000, False, model_type="mistral"),
        _shape(
            "DeepSeek-R1-Distill-Qwen-14B",
            48,
            5120,
            40,
            8,
            128,
            13824,
            152064,
            131072,
            False,
            bias=True,
            model_type="qwen2",
        ),
        _shape("DeepSeek-R1-Distill-Llama-8B", 32, 4096, 32, 8, 128, 14336, 128256, 131072, False, model_type="llama"),
    ]
}


def _with_vision(shape: ModelShape, kind: str, name: str | None = None) -> ModelShape:
    """``shape`` (a text model) with the published vision part of ``kind`` (published_vision)."""

    text = {
        "model_type": shape.model_type,
        "hidden_size": shape.hidden_size,
        "num_hidden_layers": shape.layers,
        "num_attention_heads": shape.num_attention_heads,
        "vocab_size": shape.vocab_size,
    }
    config = with_vision(text, kind)
    return replace(
        shape,
        name=name or shape.name,
        vision_params=vision_params(config),
        image_tokens=image_tokens(config),
        reference_image_tokens=reference_image_tokens(config),
        vision_kind=vision_kind(config),
        deepstack_levels=deepstack_levels(config),
    )


# The instruction-tuned Gemma-3 12B and 27B are vision models (google/gemma-3-*-it): vLLM loads
# their SigLIP tower beside the text model. Qwen-VL and Mistral-Small-3.1 are their text models'
# shapes with a vision part.
for _name in ("Gemma-3-12B", "Gemma-3-27B"):
    KNOWN_SHAPES[_name] = _with_vision(KNOWN_SHAPES[_name], "gemma3")
KNOWN_SHAPES["Qwen2.5-VL-7B"] = _with_vision(
    replace(KNOWN_SHAPES["Qwen2.5-7B"], max_position_embeddings=128000), "qwen2_5_vl", "Qwen2.5-VL-7B"
)
KNOWN_SHAPES["Qwen3-VL-8B"] = _with_vision(
    replace(KNOWN_SHAPES["Qwen3-8B"], max_position_embeddings=262144), "qwen3_vl", "Qwen3-VL-8B"
)
KNOWN_SHAPES["Mistral-Small-3.1-24B"] = _with_vision(
    replace(KNOWN_SHAPES["Mistral-Small-24B"], max_position_embeddings=131072), "mistral3", "Mistral-Small-3.1-24B"
)

#: The quantizations each known model is published in that vLLM serves (the makers' own releases
#: and the widely used FP8/AWQ/GPTQ conversions); "mxfp4" is gpt-oss's native format.
SHIPPED_QUANTIZATIONS: dict[str, tuple[str, ...]] = {
    "Qwen3-8B": ("awq", "fp8"),
    "Qwen3-14B": ("awq", "fp8"),
    "Qwen3-32B": ("awq", "fp8"),
    "Qwen3-30B-A3B": ("gptq", "fp8"),
    "Gemma-3-12B": ("awq", "gptq", "fp8"),
    "Gemma-3-27B": ("awq", "gptq", "fp8"),
    "Mistral-Small-24B": ("awq", "gptq", "fp8"),
    "Qwen2.5-VL-7B": ("awq",),
    "Qwen3-VL-8B": ("fp8",),
    "Mistral-Small-3.1-24B": ("gptq", "fp8"),
    "gpt-oss-20b": ("mxfp4",),
    "Llama-3.3-70B": ("awq", "gptq", "fp8"),
    "Mistral-NeMo-12B": ("awq", "fp8"),
}
