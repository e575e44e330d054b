"""The result file: append + fsync lines, torn-tail repair, resume ids, CSV export (no engine)."""

from __future__ import annotations

import csv
import json
from pathlib import Path

from console.batch.results import BatchResult, ResultWriter, completed_ids, export_csv, repair_tail


def _r(cid: str, ok: bool = True) -> BatchResult:
    return BatchResult(
        cid,
        1,
        f"prompt {cid}",
        ok=ok,
        text=f'answer, "{cid}"\nline2' if ok else "",
        finish_reason="stop" if ok else None,
        prompt_tokens=3,
        output_tokens=2 if ok else 0,
        ttft_s=0.1,
        latency_s=0.2,
        error=None if ok else "boom",
        model="m",
    )


def test_writer_appends_and_resume_repairs_torn_tail(tmp_path: Path) -> None:
    out = tmp_path / "out.jsonl"
    with ResultWriter(out) as w:
        w.write(_r("a"))
        w.write(_r("b", ok=False))
    # A kill -9 in the middle of the next write leaves half a line.
    with open(out, "ab") as fh:
        fh.write(b'{"id": "vllm-x", "custom_id": "c", "respo')
    assert completed_ids(out) == {"a", "b"}
    with ResultWriter(out) as w:  # reopening for resume cuts the torn tail
        w.write(_r("c"))
    lines = out.read_text(encoding="utf-8").splitlines()
    assert [json.loads(ln)["custom_id"] for ln in lines] == ["a", "b", "c"]
    assert repair_tail(out) == 0
    with ResultWriter(out, resume=False) as w:
        w.write(_r("z"))
    assert completed_ids(out) == {"z"}


def test_csv_export_roundtrip(tmp_path: Path) -> None:
    out = tmp_path / "out.jsonl"
    with ResultWriter(out) as w:
        w.write(_r("a"))
        w.write(_r("b", ok=False))
    n = export_csv(out, tmp_path / "out.csv", {"a": "prompt, a"})
    rows = list(csv.DictReader(open(tmp_path / "out.csv", encoding="utf-8", newline="")))
    assert n == 2 and [r["custom_id"] for r in rows] == ["a", "b"]
    assert rows[0]["output"] == 'answer, "a"\nline2' and rows[0]["prompt"] == "prompt, a"
    assert rows[0]["status"] == "ok" and rows[0]["output_tokens"] == "2" and rows[0]["ttft_s"] == "0.1000"
    assert rows[1]["status"] == "error" and rows[1]["error"] == "boom"
