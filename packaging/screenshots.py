"""Screenshots of every tab of the console, with real data, for the README.

Starts the real console window on a virtual screen (``--xvfb``: re-runs itself under
``xvfb-run``, Debian package ``xvfb``; default: Qt's ``offscreen`` platform, which renders the
same pixels with no X server), loads the bundled SmolLM2 model when the store has it (``smollm2``),
else a tiny random-weight Llama (its answers are gibberish, but every figure is real), chats,
runs a batch, lets the Monitor collect a few seconds of series, runs a small bench with a
concurrency sweep, and saves ``docs/screenshots/{chat,batch,monitor,export,bench}.png`` (palette
PNGs, kept under 300 KB each), plus ``chat-schema.png`` and ``chat-logprobs.png`` (the chat's
Output control: a JSON schema, then logprobs with two answers; ``--only chat-output``), and the
first-run and serving shots of packaging/screenshots_first_run.py: ``first-run-picker.png`` (Get a
model…, the curated list), ``first-run-load.png`` (the chat while the model loads; ``--only first-run``
takes both), ``server.png`` and ``server-log.png`` (the Server tab serving the model; ``--only server``)
``chat-thinking.png`` (a Qwen3-family random-weight fixture's thinking; ``--only chat-thinking``) and
``chat-mcp-approval.png`` (that fixture's call to an MCP server's tool awaiting approval;
``--only chat-mcp-approval``), and ``chat-image.png`` (a picture sent to the tests' vision
fixture, packaging/screenshots_chat_image.py; ``--only chat-image``).
The window is 1600 x 900 (``--size``), the chat's settings side panel unfolded. ``--theme dark`` (or
``light``) takes them in that theme (``INFERENCE_CONSOLE_THEME``, not saved); the dark ones go to
``docs/screenshots/dark/`` unless ``--out`` says otherwise.
The answers to the questions with a known answer (the capital of France: "Paris") are checked: a wrong
one stops the script with exit status 1 and a one-line reason before its screenshot is written, so the
tiny model (gibberish) cannot make the chat screenshots.
``--only bench`` skips the chat and batches and saves only the tabs named.

    .venv/bin/python packaging/screenshots.py [--xvfb] [--import-bundled] [--only SHOTS] [--size WxH]
        [--theme light|dark] [--out docs/screenshots]

Conversations and settings go to a throwaway data home; the model store is read, never changed.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
MAX_PNG_BYTES = 300 * 1024
from console.models.bundled import bundled_gguf  # noqa: E402

BUNDLED = "smollm2"
BATCH_PROMPTS = [
    "What is the capital of France?",
    "Name three primary colours.",
    "Write a haiku about GPUs.",
    "Explain KV cache in one sentence.",
    "What is 12 times 12?",
    "Give a synonym for fast.",
    "Translate 'good morning' to Spanish.",
    "What does CPU stand for?",
    "List two prime numbers.",
    "Why is the sky blue?",
    "Suggest a name for a cat.",
    "What is the boiling point of water?",
]
CAPITAL_QUESTION = "What is the capital of France?"
# a chat screenshot whose answer is wrong is never written (the headline chat.png once showed
# "L'Étoile, le Pont d'Aix..." for the capital question): each question the script asks with a known answer
KNOWN_ANSWERS = {
    CAPITAL_QUESTION: "Paris",
    "Give the capital of France as JSON with city and country.": "Paris",
}


def wrong_answer(question: str, answer: str) -> str | None:
    """None when ``answer`` holds the known answer to ``question`` (or the question has none); else a
    one-line reason to refuse the screenshot, with the way out."""
    expected = KNOWN_ANSWERS.get(question.strip())
    if expected is None or expected.casefold() in answer.casefold():
        return None
    shown = " ".join(answer.split())
    shown = shown if len(shown) <= 80 else shown[:77] + "..."
    return (
        f"refusing the chat screenshot: the answer to {question!r} does not contain {expected!r} "
        f"(it said {shown!r}); check the model and its dtype (console check-cpu) and run again"
    )


def last_answer(chat) -> str:  # type: ignore[no-untyped-def]
    """The text of the conversation's last assistant message ("" when none)."""
    answers = [m.content for m in chat.messages if m.role == "assistant"]
    return answers[-1] if answers else ""


def check_answer(question: str, answer: str) -> None:
    """Exit non-zero (no screenshot written) when the answer is wrong."""
    reason = wrong_answer(question, answer)
    if reason is not None:
        raise SystemExit(reason)


def pick_model(real_store_root: Path, work: Path, import_bundled: bool = False) -> tuple[str, Path]:
    """(store name, store root): the bundled model from the user's store, else a tiny model in a
    temporary store."""
    from console.models.store import ModelStore

    store = ModelStore(real_store_root) if real_store_root.exists() else None
    if store is not None and any(e.name == BUNDLED and e.available for e in store.list()):
        return BUNDLED, real_store_root
    if import_bundled:
        gguf = bundled_gguf()
        if gguf is not None:
            from console.models.importers import import_gguf

            tmp_root = work / "store"
            print(f"importing {gguf.name} into a temporary store (about a minute)…", flush=True)
            import_gguf(ModelStore(tmp_root), gguf, BUNDLED)
            return BUNDLED, tmp_root
    from tests.fixtures.synthetic import make_llama

    folder = make_llama(work / "tiny-llama")
    tmp_root = work / "store"
    ModelStore(tmp_root).add_reference("tiny-llama", folder, source="packaging/screenshots.py")
    return "tiny-llama", tmp_root


def save_small(image, path: Path) -> int:  # type: ignore[no-untyped-def]
    """Save a QImage as a palette PNG (screenshots have few colours); returns the file size. The
    palette is the picture's own (Pillow's median cut): Qt's Indexed8 conversion falls back to a
    fixed colour cube past 256 colours, which made the dark theme's greys one and the light
    window white."""
    from io import BytesIO

    from PIL import Image
    from PySide6.QtCore import QBuffer, QIODevice

    buffer = QBuffer()
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    image.save(buffer, "PNG")
    rgb = Image.open(BytesIO(bytes(buffer.data()))).convert("RGB")
    for colours in (256, 128, 64):
        rgb.quantize(colours, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE).save(path, optimize=True)
        if path.stat().st_size <= MAX_PNG_BYTES:
            break
    return path.stat().st_size


def run_bench(window, spin) -> None:  # type: ignore[no-untyped-def]
    """A small synthetic bench with a concurrency sweep, so the Bench tab's table and plots show."""
    bench = window.panels.get("bench")
    if bench is None or not hasattr(bench, "run"):
        return
    bench.num_prompts.setValue(32)
    bench.input_len.setValue(64)
    bench.output_len.setValue(32)
    bench.sweep_edit.setText("1,4,16")
    if bench.run():
        spin(900, lambda: not bench.busy())
    print("bench:", bench.status_label.text(), flush=True)


FIRST_RUN = {"first-run-picker", "first-run-load"}
#: shots that need no model loaded first (the thinking and picture shots load their own fixtures)
NO_MODEL = {"first-run-picker", "chat-thinking", "chat-mcp-approval", "chat-image"}


def spinner(app):  # type: ignore[no-untyped-def]
    """``spin(seconds, until=None)``: run ``app``'s events for ``seconds``, or until ``until()`` is
    true (then True; False when the time ran out first; True after the time with no ``until``)."""

    def spin(seconds: float, until=None) -> bool:  # type: ignore[no-untyped-def]
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            app.processEvents()
            if until is not None and until():
                return True
            time.sleep(0.01)
        return until is None

    return spin


def run(
    out: Path, import_bundled: bool = False, only: set[str] | None = None, size: tuple[int, int] = (1600, 900)
) -> int:
    from console.paths import store_root

    real_store = store_root()
    work = Path(tempfile.mkdtemp(prefix="ic-shots-"))
    os.environ["INFERENCE_CONSOLE_HOME"] = str(work / "home")
    os.environ.setdefault("VLLM_LOGGING_LEVEL", "WARNING")
    name, root = pick_model(real_store, work, import_bundled)
    os.environ["INFERENCE_CONSOLE_STORE"] = str(root)
    print(f"model: {name} (store {root})", flush=True)

    from PySide6.QtWidgets import QApplication

    from console.ui.app import create_window

    app = QApplication(sys.argv[:1])
    app.setApplicationName("Inference Console")
    ctx, window = create_window()
    window.resize(*size)  # a laptop-sized window (it fits 1366 x 768)
    window.chat.set_settings_shown(True)  # the side panel folds by itself on a small (offscreen) screen
    window.show()

    spin = spinner(app)
    try:
        _take(window, ctx, spin, name, work, out, only)
    except BaseException:  # a refused shot: no server or engine process outlives the script
        server = window.panels.get("server")
        if server is not None and server.controller is not None and server.controller.server is not None:
            server.controller.stop()
        finish(ctx, work)
        raise
    return finish(ctx, work)


def _take(window, ctx, spin, name, work, out, only) -> None:  # type: ignore[no-untyped-def]
    """Every shot ``only`` names (all when None), in an order that needs one model load."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import screenshots_chat_image as chat_image
    import screenshots_first_run as first_run

    from console.engine.types import EngineState

    def wants(*names: str) -> bool:
        return only is None or bool(only & set(names))

    spin(1.0)
    if hasattr(window, "build_panels"):
        window.build_panels()
    out.mkdir(parents=True, exist_ok=True)
    models = window.models
    models.refresh(select=name)
    models.select_model(name)
    spin(0.5)
    if wants("first-run-picker"):
        first_run.picker_shot(window, spin, save_small, out)
    if only is not None and only <= NO_MODEL:
        if "chat-thinking" in only:
            first_run.thinking_shot(window, ctx, spin, save_small, work, out)
        if "chat-mcp-approval" in only:
            first_run.mcp_approval_shot(window, ctx, spin, save_small, work, out)
        if "chat-image" in only:
            chat_image.image_shot(window, ctx, spin, save_small, work, out)
        return
    window.tabs.setCurrentWidget(window.chat)
    if not models.load_selected():
        raise SystemExit("the console refused to load the model")
    if wants("first-run-load"):
        first_run.load_shot(window, ctx, spin, save_small, out)
    if (
        not spin(900, lambda: ctx.engine.status.state in (EngineState.READY, EngineState.FAILED))
        or ctx.engine.status.state != EngineState.READY
    ):
        raise SystemExit(f"load failed: {ctx.engine.status.error}")
    print("engine ready", flush=True)
    t_loaded = time.time()

    if only is None or only & {"chat", "batch", "monitor"}:
        chat_and_batches(
            window, ctx, spin, work, t_loaded, out, only is None or "chat" in only, wants("batch", "monitor")
        )
    if only is None or "chat-output" in only:
        chat_output_shots(window, spin, out)
    if only is None or "chat-lora" in only:
        chat_lora_shots(window, ctx, spin, work, out)
    if only is None or "bench" in only:
        run_bench(window, spin)
    for i in range(window.tabs.count()):
        title = window.tabs.tabText(i).replace("&", "").lower()
        if (only is not None and title not in only) or title in ("chat", "server"):  # saved with their runs
            continue
        window.tabs.setCurrentIndex(i)
        spin(0.8)
        path = out / f"{title}.png"
        size_kb = save_small(window.grab().toImage(), path) // 1024
        print(f"{path}: {size_kb} KB", flush=True)
    if wants("server"):  # last but the thinking fixture: starting the server unloads the in-process model
        first_run.server_shot(window, ctx, spin, save_small, out)
    if wants("chat-thinking"):
        first_run.thinking_shot(window, ctx, spin, save_small, work, out)
    if wants("chat-mcp-approval"):
        first_run.mcp_approval_shot(window, ctx, spin, save_small, work, out)
    if wants("chat-image"):
        chat_image.image_shot(window, ctx, spin, save_small, work, out)


def finish(ctx, work: Path) -> int:  # type: ignore[no-untyped-def]
    ctx.sampler.stop()
    ctx.engine.close()
    shutil.rmtree(work, ignore_errors=True)
    return 0


def chat_and_batches(
    window,
    ctx,
    spin,
    work: Path,
    t_loaded: float,
    out: Path,  # type: ignore[no-untyped-def]
    save_chat: bool,
    batches: bool = True,
) -> None:
    chat = window.chat
    window.tabs.setCurrentWidget(chat)
    chat.temperature.setValue(0.0)  # greedy: the headline answer is the model's own, not a lucky draw
    chat.input.setPlainText(CAPITAL_QUESTION)
    if not chat.send():
        raise SystemExit("chat refused to send")
    spin(300, lambda: chat.active_id is None)
    spin(0.8)
    check_answer(CAPITAL_QUESTION, last_answer(chat))
    if save_chat:  # now, while the chat shows this answer (later shots open other conversations)
        out.mkdir(parents=True, exist_ok=True)
        print(f"{out / 'chat.png'}: {save_small(window.grab().toImage(), out / 'chat.png') // 1024} KB", flush=True)
    if not batches:  # the chat alone (--only chat): no batch runs for the Batch and Monitor shots
        return

    batch = window.panels["batch"]
    src = work / "prompts.jsonl"
    src.write_text(
        "\n".join(json.dumps({"custom_id": f"q{i + 1}", "prompt": p}) for i, p in enumerate(BATCH_PROMPTS * 2)) + "\n",
        encoding="utf-8",
    )
    batch.open_file(src)
    batch.max_tokens.setValue(64)
    batch.temperature.setValue(0.0)
    monitor = window.panels["monitor"]
    # three runs at rising concurrency, so the Monitor's series have a shape worth looking at
    for concurrency in (2, 8, 24):
        batch.concurrency.setValue(concurrency)
        batch.resume_check.setChecked(False)
        if not batch.start():
            raise SystemExit("the batch did not start")
        spin(600, lambda: batch.job is None)
        print(f"batch (concurrency {concurrency}):", batch.status_label.text(), flush=True)
        spin(2.0)
    window.tabs.setCurrentWidget(monitor)
    monitor.show_last(max(60.0, time.time() - t_loaded + 10))
    spin(3.0)


CAPITAL_SCHEMA = """{
  "type": "object",
  "properties": {"city": {"type": "string"}, "country": {"type": "string"}},
  "required": ["city", "country"]
}"""


def chat_output_shots(window, spin, out: Path) -> None:  # type: ignore[no-untyped-def]
    """The chat's Output control: an answer held to a JSON schema, then two answers with their
    per-token probabilities (``chat-schema.png``, ``chat-logprobs.png``)."""
    from console.ui.chat.output_control import FREE, SCHEMA

    chat = window.chat

    def ask(question: str, png: str) -> None:
        chat.input.setPlainText(question)
        if not chat.send():
            raise SystemExit(f"chat refused to send: {chat.error_label.text()}")
        spin(300, lambda: chat.active_id is None)
        spin(0.8)
        check_answer(question, last_answer(chat))
        print(f"{out / png}: {save_small(window.grab().toImage(), out / png) // 1024} KB", flush=True)

    window.tabs.setCurrentWidget(chat)
    chat.new_conversation()
    chat.temperature.setValue(0.0)
    chat.max_tokens.setValue(48)
    chat.output.set_mode(SCHEMA, CAPITAL_SCHEMA)
    ask("Give the capital of France as JSON with city and country.", "chat-schema.png")
    chat.new_conversation()
    chat.output.set_mode(FREE)
    chat.output.logprobs.setValue(3)
    chat.output.answers.setValue(2)
    chat.temperature.setValue(0.8)
    chat.seed.setValue(5)
    chat.max_tokens.setValue(24)
    ask("Describe the sea in one sentence.", "chat-logprobs.png")
    chat.output.logprobs.setValue(-1)
    chat.output.answers.setValue(1)


def chat_lora_shots(window, ctx, spin, work: Path, out: Path) -> None:  # type: ignore[no-untyped-def]
    """The chat's LoRA box: the model reloaded with LoRA slots and a random-weight
    adapter made with peft, a second one attached from the box, an answer from the adapter, and
    the base and the adapter side by side (``chat-lora.png``, ``chat-lora-compare.png``). The
    adapters are random, so they answer nonsense: the pictures show the controls and real runs."""
    from console.engine.types import EngineState
    from tests.fixtures.synthetic import make_lora

    model = Path(ctx.engine.config.model)
    every = ("q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj")
    pirate = make_lora(model, work / "adapters" / "pirate", rank=8, seed=1, scale=0.12, target_modules=every)
    poet = make_lora(model, work / "adapters" / "poet", rank=8, seed=2, scale=0.05, target_modules=every)
    ctx.engine.load(
        ctx.engine.config.replace(lora_modules={"pirate": str(pirate)}, max_loras=2, max_lora_rank=8),
        ctx.engine.status.model,
    )
    if (
        not spin(900, lambda: ctx.engine.status.state in (EngineState.READY, EngineState.FAILED))
        or ctx.engine.status.state != EngineState.READY
    ):
        raise SystemExit(f"LoRA load failed: {ctx.engine.status.error}")
    chat = window.chat
    window.tabs.setCurrentWidget(chat)
    chat.new_conversation()
    chat.temperature.setValue(0.0)
    chat.max_tokens.setValue(40)
    if not chat.adapter_box.attach(str(poet), "poet"):
        raise SystemExit(f"attach refused: {chat.adapter_box.error_label.text()}")
    chat.adapter_box.select("pirate")
    chat.input.setPlainText("What is the capital of France?")
    if not chat.send():
        raise SystemExit(f"chat refused to send: {chat.error_label.text()}")
    spin(300, lambda: chat.active_id is None)
    shot = save_small(window.grab().toImage(), out / "chat-lora.png")
    print(f"{out / 'chat-lora.png'}: {shot // 1024} KB", flush=True)
    chat.new_conversation()  # the comparison on the bare question, not after the answer above
    chat.input.setPlainText("What is the capital of France?")
    chat.adapter_box.compare_button.click()
    compare = chat.adapter_box.compare
    spin(300, compare.finished)
    spin(1.0)
    size = save_small(compare.grab().toImage(), out / "chat-lora-compare.png")
    print(f"{out / 'chat-lora-compare.png'}: {size // 1024} KB", flush=True)
    compare.close()


def main() -> int:
    p = argparse.ArgumentParser(description="Save a screenshot of each tab of the console")
    p.add_argument("--out", help="where the PNGs go (default docs/screenshots, docs/screenshots/dark for --theme dark)")
    p.add_argument("--xvfb", action="store_true", help="run under xvfb-run (Debian package xvfb)")
    p.add_argument(
        "--import-bundled",
        action="store_true",
        help="when the store has no smollm2, import the bundled GGUF into a temporary store "
        "instead of using the tiny random model",
    )
    p.add_argument(
        "--only",
        metavar="SHOTS",
        help="comma list of tabs or shots to save (e.g. bench, server, chat-thinking, chat-image; first-run = "
        "first-run-picker and first-run-load); skips unneeded runs",
    )
    p.add_argument("--size", default="1600x900", help="the window's size, WIDTHxHEIGHT (default 1600x900)")
    p.add_argument("--theme", choices=("light", "dark"), help="the window's theme (default: light offscreen)")
    args = p.parse_args()
    args.out = args.out or str(ROOT / "docs" / "screenshots" / ("dark" if args.theme == "dark" else ""))
    if args.xvfb and not os.environ.get("IC_UNDER_XVFB"):
        if shutil.which("xvfb-run") is None:
            print("xvfb-run not found: apt-get install -y xvfb (or drop --xvfb for offscreen)", file=sys.stderr)
            return 2
        env = dict(os.environ, IC_UNDER_XVFB="1", QT_QPA_PLATFORM="xcb")
        cmd = [
            "xvfb-run",
            "-a",
            "-s",
            "-screen 0 1600x1000x24",
            sys.executable,
            __file__,
            "--out",
            args.out,
            *(["--import-bundled"] if args.import_bundled else []),
            *(["--only", args.only] if args.only else []),
            "--size",
            args.size,
            *(["--theme", args.theme] if args.theme else []),
        ]
        return subprocess.call(cmd, env=env)
    if not os.environ.get("IC_UNDER_XVFB"):
        os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    if args.theme:
        os.environ["INFERENCE_CONSOLE_THEME"] = args.theme  # console.ui.theme_switch.THEME_ENV, read at start
    only = {t.strip().lower() for t in args.only.split(",")} if args.only else None
    if only is not None and "first-run" in only:
        only = (only - {"first-run"}) | FIRST_RUN
    width, height = (int(v) for v in args.size.lower().split("x"))
    code = run(Path(args.out), args.import_bundled, only, (width, height))
    sys.stdout.flush()
    os._exit(code)  # skip Qt/pyqtgraph teardown at interpreter exit (it can abort)


if __name__ == "__main__":
    raise SystemExit(main())
