"""The user's own prompts as a tune workload, beside the synthetic one:

- ``from_prompts_file``: a batch file (the formats :mod:`console.batch.formats` reads), each line
  one request, its output length the line's ``max_tokens`` (else the given one);
- ``from_conversations``: the saved chats (:mod:`console.chat.conversations`) replayed as they
  happened: each assistant turn becomes a request whose prompt is the conversation up to it
  (system prompt, every earlier turn), its output length that turn's length. Turns of one
  conversation share their prefix, as they did in the chat, so the prefix cache serves them as it
  served the chat.

Both are chat prompts (the model's template applies), greedy and at fixed lengths (EOS ignored), so
two engines are measured on the same tokens.
"""

from __future__ import annotations

from pathlib import Path
from typing import Callable

from console.batch.formats import read_batch_file
from console.bench.workload import Workload
from console.chat.conversations import ConversationStore
from console.config import SamplingSettings

#: Characters per token when no tokenizer counts an answer that saved no token count.
CHARS_PER_TOKEN = 4


def from_prompts_file(path: Path | str, output_len: int) -> Workload:
    """The requests of a batch file, each with its own ``max_tokens`` (``output_len`` where a line gives none)."""
    parsed = read_batch_file(path, SamplingSettings(temperature=0.0, max_tokens=output_len))
    msgs: list[list[dict[str, str]]] = []
    lens: list[int] = []
    for r in parsed.requests:
        if r.messages:
            msgs.append([{"role": m["role"], "content": str(m.get("content", ""))} for m in r.messages])
        elif r.prompt is not None:
            msgs.append([{"role": "user", "content": r.prompt}])
        else:
            continue  # token-id lines: no text to template
        lens.append(int(r.sampling.max_tokens or output_len))
    if not msgs:
        first = f" ({parsed.errors[0]})" if parsed.errors else ""
        raise ValueError(f"{path} has no usable prompts{first}")
    return Workload(
        f"your prompts: {Path(path).name} ({len(msgs)} requests)",
        max(lens),
        messages=msgs,
        output_lens=lens,
        source="your prompts",
    )


def from_conversations(
    store: ConversationStore,
    count_tokens: Callable[[str], int] | None = None,
    *,
    max_requests: int | None = None,
) -> Workload:
    """Every assistant turn of the saved conversations, oldest conversation first, as a request:
    the conversation up to that turn, and the turn's length in tokens (its saved count, else
    ``count_tokens`` of its text, else its characters / 4). ``max_requests``: the last ones only."""
    msgs: list[list[dict[str, str]]] = []
    lens: list[int] = []
    conversations = sorted(store.list(), key=lambda c: (c.created_at, c.id))
    used = 0
    for c in conversations:
        history: list[dict[str, str]] = [{"role": "system", "content": c.system_prompt}] if c.system_prompt else []
        turns = 0
        for m in store.messages(c.id):
            if m.role == "assistant" and any(h["role"] == "user" for h in history) and m.content:
                msgs.append([dict(h) for h in history])
                lens.append(max(1, _length(m.output_tokens, m.content, count_tokens)))
                turns += 1
            history.append({"role": m.role, "content": m.content})
        used += turns > 0
    if max_requests is not None:  # the most recent answers
        msgs, lens = msgs[-max_requests:], lens[-max_requests:]
    if not msgs:
        raise ValueError("no saved conversation has an answer to replay (chat first, or use --tune-prompts)")
    return Workload(
        f"your conversations: {len(msgs)} answers of {used} conversation(s)",
        max(lens),
        messages=msgs,
        output_lens=lens,
        source="your conversations",
    )


def _length(saved: int | None, text: str, count_tokens: Callable[[str], int] | None) -> int:
    if saved:
        return int(saved)
    if count_tokens is not None:
        return count_tokens(text)
    return -(-len(text) // CHARS_PER_TOKEN)
