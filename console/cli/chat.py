"""``inference-console chat``: stream an answer from the engine (in this process by default;
``--engine serve`` starts a vLLM server for it, ``--engine URL`` talks to a running one).

With a PROMPT, answers once and exits; without one, a terminal chat. The terminal chat is a
:class:`~console.chat.session.ChatSession` like the window's Chat tab: it is saved in the same
conversation history (the window lists it), ``--conversation ID`` continues a saved one (a PROMPT
then joins it too), ``/new`` starts another, ``/regenerate`` asks the last question again,
``/continue`` goes on with an answer cut at max tokens, ``/quit`` or Ctrl-D leaves, and Ctrl-C
stops the current answer (what arrived is kept). An answer that starts repeating one paragraph
is stopped and saved as such (``console/chat/repetition.py``, as in the window). A
reasoning model's thinking is shown apart on stderr and saved apart (``chat_thinking.py``).
``--image FILE`` attaches pictures to the first message (``chat_images.py``).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any, Sequence

from console.chat.attachments import Attachment, ImageError, user_content
from console.chat.repetition import REPEATING, RepetitionGuard
from console.chat.session import ChatSession
from console.cli.chat_images import add_image_args, images_from_args, loaded_refusal
from console.cli.chat_output import add_output_args, output_fields_from_args, print_choices
from console.cli.chat_thinking import ThinkingPrinter, add_thinking_args, chat_splitter
from console.engine.image_parts import takes_images
from console.cli.chat_tools import MAX_ROUNDS, Ask, add_tool_args, answer_calls, ask_on_terminal, configure, wants_tools
from console.cli.common import CliError
from console.cli.engine_flags import (
    add_engine_args,
    add_sampling_args,
    sampling_from_args,
    sampling_note,
    start_engine,
)
from console.cli.flags import check_model_and_preset
from console.sampling import SamplingSettings
from console.chat.conversations import ConversationError, ConversationStore
from console.engine.interface import Engine
from console.engine.openai_body import BodyError, request_fields
from console.engine.types import GenerationRequest, RequestFailed, RequestFinished, TokenDelta
from console.engine.thinking import Thought


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("chat", help="chat with a model (one answer, or a terminal session)")
    p.add_argument("prompt", nargs="?", help="the question; omit for an interactive session")
    p.add_argument("--system", help="system prompt")
    p.add_argument(
        "--conversation",
        type=int,
        metavar="ID",
        help="continue this saved conversation (ids: the window's Chat tab, or the number "
        "printed when a terminal chat ends)",
    )
    add_engine_args(p)
    add_sampling_args(p)
    add_output_args(p)
    add_thinking_args(p)
    add_tool_args(p)
    add_image_args(p)
    p.set_defaults(func=cmd_chat)


class _Answer:
    """What streamed for one request: its text so far and how it ended; a reasoning model's
    thinking apart (``thought``) and its answer (``content``) once it ended."""

    def __init__(self) -> None:
        self.text = ""
        self.finished: RequestFinished | None = None
        self.thought: Thought | None = None
        self.content: str | None = None
        self.repeating = False  # the loop guard stopped it


def end_line(finished: RequestFinished, max_tokens: int, repeating: bool) -> str | None:
    """The line said about an answer that did not end by itself (as the window's chat says it)."""
    if repeating:
        return (
            "[stopped: the answer started repeating itself; /regenerate, "
            "or raise --temperature or --repetition-penalty]"
        )
    if finished.finish_reason != "length":
        return None
    if max_tokens <= 0:
        return "[the answer filled the model's context]"
    return (
        f"[stopped at max tokens ({max_tokens}): /continue goes on in a terminal chat; --max-tokens sets "
        "the length, 0 up to the context]"
    )


def answer(
    engine: Engine,
    request: GenerationRequest,
    out: _Answer | None = None,
    hide_thinking: bool = False,
    before: str = "",
) -> str:
    """Stream ``request``'s answer to stdout (figures, and a reasoning model's thinking, to
    stderr); returns its text. ``out`` sees the text as it arrives, so an interrupted answer keeps
    what came. ``before``: the saved part a continued answer goes on from (the loop guard reads it)."""
    out = out if out is not None else _Answer()
    printer = ThinkingPrinter(
        chat_splitter(engine, request.openai_fields or {}) if request.messages is not None else None, hide_thinking
    )
    try:
        return _stream(engine, request, out, printer, before)
    except KeyboardInterrupt:  # stopped: what arrived is kept, its thinking apart
        out.thought, out.content = printer.finish(out.text, None)
        raise


def _stream(engine: Engine, request: GenerationRequest, out: _Answer, printer: ThinkingPrinter, before: str) -> str:
    guard = RepetitionGuard()
    guard.feed(before + "\n" if before else "")
    for ev in engine.stream(request):
        if isinstance(ev, TokenDelta):
            out.text += ev.text
            printer.add(ev.text, ev.num_tokens, ev.token_ids, ev.reasoning)
            if not out.repeating and guard.feed(ev.text):  # looping: stopped (the engine ends it as aborted)
                out.repeating = True
                engine.abort(request.request_id)
        elif isinstance(ev, RequestFinished):
            out.thought, out.content = printer.finish(ev.text, ev)
            sys.stdout.write("\n")
            tps = f", {ev.tokens_per_s:.1f} tok/s" if ev.tokens_per_s else ""
            ttft = f"TTFT {1000 * ev.ttft_s:.0f} ms, " if ev.ttft_s is not None else ""
            reason = REPEATING if out.repeating else ev.finish_reason
            print(f"[{ttft}{ev.output_tokens} tokens{tps}, finish: {reason}]", file=sys.stderr)
            line = end_line(ev, request.sampling.max_tokens, out.repeating)
            if line is not None:
                print(line, file=sys.stderr)
            print_choices(ev.choices)
            out.text, out.finished = ev.text, ev
            return ev.text
        elif isinstance(ev, RequestFailed):
            out.thought, out.content = printer.finish(out.text, None)
            raise CliError(ev.message)
    return out.text


def cmd_chat(args: argparse.Namespace) -> int:
    check_model_and_preset(args)  # the cheap checks before vLLM's import (the request check below)
    images = images_from_args(args)  # read, and refused for a text-only model, before it loads
    sampling = sampling_from_args(args)
    fields = output_fields_from_args(args)
    try:  # structured output, logprobs, n: checked by vLLM before the engine loads
        extra = request_fields(fields, sampling)
    except BodyError as exc:
        raise CliError(str(exc)) from None
    if args.adapter:
        extra["adapter"] = args.adapter[0]  # the conversation's adapter (the others are attached too)
    session: ChatSession | None = None
    tools = wants_tools(args)
    if args.prompt is None or args.conversation is not None or tools:  # a terminal chat, joining one, tools
        try:
            saved = args.prompt is None or args.conversation is not None  # a one-shot question is not kept
            session = ChatSession(ConversationStore() if saved else ConversationStore(Path(":memory:")))
            if args.conversation is not None:
                session.open(args.conversation)
        except ConversationError as exc:
            raise CliError(str(exc)) from None
        if args.system is not None:
            session.system_prompt = args.system
        if tools:
            configure(session, args)
    engine = start_engine(args)
    try:
        refused = loaded_refusal(engine) if images else None
        if refused is not None:
            raise CliError(str(refused))
        if session is not None:
            session.image_check = lambda: loaded_refusal(engine)
        info = engine.status.info
        if info is not None:
            print(sampling_note(info, sampling), file=sys.stderr)
            if session is not None:  # an MCP result's images reach a model that takes them
                session.tools.takes_images = takes_images(info.model_path)
            if fields:  # vLLM's params for them, made again over the model's own defaults
                try:
                    extra.update(request_fields(fields, sampling.resolved(info.sampling_defaults)))
                except BodyError as exc:
                    raise CliError(str(exc)) from None
        if session is None:
            messages: list[dict[str, Any]] = [{"role": "system", "content": args.system}] if args.system else []
            question = {"role": "user", "content": user_content(args.prompt, [i.url for i in images])}
            answer(
                engine,
                GenerationRequest(messages=messages + [question], sampling=sampling, **extra),
                hide_thinking=args.hide_thinking,
            )
            return 0
        if args.prompt is not None:
            turn(engine, session, sampling, args.prompt, extra, hide_thinking=args.hide_thinking, images=images)
            return 0
        return repl(engine, session, sampling, extra, hide_thinking=args.hide_thinking, images=images)
    finally:
        engine.close()
        if session is not None:
            session.tools.close()  # MCP servers, when --mcp started some


def turn(
    engine: Engine,
    session: ChatSession,
    sampling: SamplingSettings,
    text: str | None,
    extra: dict[str, Any] | None = None,
    hide_thinking: bool = False,
    ask: Ask | None = None,
    images: Sequence[Attachment] = (),
) -> None:
    """One question (``text``, with ``images``; None: ask the last one again) and its answer,
    both saved; the model's tool calls answered (built-in tools, else ``ask``) and the model
    asked again."""
    _turn(engine, session, sampling, text, extra, hide_thinking, images)
    for _ in range(MAX_ROUNDS):
        if not answer_calls(session, ask):
            return
        _turn(engine, session, sampling, None, extra, hide_thinking)


def _turn(
    engine: Engine,
    session: ChatSession,
    sampling: SamplingSettings,
    text: str | None,
    extra: dict[str, Any] | None = None,
    hide_thinking: bool = False,
    images: Sequence[Attachment] = (),
    cont: bool = False,
) -> None:
    """One question (``text``; None: ask the last one again) and its answer, both saved (a
    reasoning model's thinking apart); ``cont``: go on with the last answer where max tokens cut
    it instead. Ctrl-C stops the answer and keeps what arrived, as the window's Stop does."""
    try:
        if cont:
            request = session.continue_answer(sampling, **(extra or {}))
        elif text is not None:
            request = session.send(text, sampling, images=images, **(extra or {}))
        else:
            request = session.regenerate(sampling, **(extra or {}))
    except ImageError as exc:  # refused before anything was saved
        raise CliError(str(exc)) from None
    except (ConversationError, OSError) as exc:
        raise CliError(f"could not save the message: {exc}") from None
    if request is None:
        print(
            "nothing to continue: no answer was cut short" if cont else "nothing to regenerate: ask something first",
            file=sys.stderr,
        )
        return
    got = _Answer()
    before = session.continuing.content if session.continuing is not None else ""
    try:
        answer(engine, request, got, hide_thinking, before)
        reason = REPEATING if got.repeating else None
    except KeyboardInterrupt:
        print("\n[stopped]", file=sys.stderr)
        reason = "abort"
    except CliError:
        session.record_answer(_content(got), None, model=engine.status.model, reason="error", thought=got.thought)
        raise
    session.record_answer(_content(got), got.finished, model=engine.status.model, reason=reason, thought=got.thought)


def _content(got: _Answer) -> str:
    return got.content if got.content is not None else got.text


def repl(
    engine: Engine,
    session: ChatSession,
    sampling: SamplingSettings,
    extra: dict[str, Any] | None = None,
    hide_thinking: bool = False,
    images: Sequence[Attachment] = (),
) -> int:
    print(
        "Type a message. /new starts another conversation, /regenerate asks again, /continue goes on "
        "with an answer cut at max tokens, /quit leaves. Ctrl-C stops an answer.",
        file=sys.stderr,
    )
    for m in session.messages:  # a continued conversation: where it stands
        print(f"{'you' if m.role == 'user' else 'model'}> {m.content}")
    if images:
        print(f"[{len(images)} picture(s) go with your first message]", file=sys.stderr)
    try:
        while True:
            try:
                line = input("you> ")
            except EOFError:
                print()
                return 0
            command = line.strip()
            if not command:
                continue
            if command == "/quit":
                return 0
            if command in ("/new", "/reset"):
                _saved(session)
                session.new()
                continue
            try:
                if command == "/continue":
                    _turn(engine, session, sampling, None, extra, hide_thinking, cont=True)
                    continue
                text = None if command == "/regenerate" else line
                turn(engine, session, sampling, text, extra, hide_thinking, ask_on_terminal, images if text else ())
                if text is not None:
                    images = ()  # they went with the first message
            except (CliError, ValueError) as exc:  # one bad message must not end the session
                print(f"error: {exc}", file=sys.stderr)
    finally:
        _saved(session)


def _saved(session: ChatSession) -> None:
    if session.conversation_id is not None:
        print(
            f"[saved as conversation {session.conversation_id}; continue it with "
            f"`inference-console chat --conversation {session.conversation_id}`]",
            file=sys.stderr,
        )
