"""The text prompt of a chat request, for engines that template it themselves (the in-process
host) and for counting tokens against a server: the model's chat template when it has one, else
a plain ``role: content`` transcript. A request whose ``continue_final`` is set goes on with its
last (assistant) message instead of opening a new answer (the chat's Continue)."""

from __future__ import annotations

from typing import Any

from console.engine.types import GenerationRequest


def chat_prompt(tokenizer: Any, request: GenerationRequest) -> str:
    """``request.messages`` through ``tokenizer``'s chat template."""
    assert request.messages is not None
    if request.continue_final:
        return str(
            tokenizer.apply_chat_template(
                request.messages, tokenize=False, add_generation_prompt=False, continue_final_message=True
            )
        )
    return str(tokenizer.apply_chat_template(request.messages, tokenize=False, add_generation_prompt=True))


def transcript_prompt(request: GenerationRequest) -> str:
    """A model without a chat template continues a plain transcript."""
    assert request.messages is not None
    text = "\n".join(f"{m['role']}: {m['content']}" for m in request.messages)
    return text if request.continue_final else text + "\nassistant:"


__all__ = ["chat_prompt", "transcript_prompt"]
