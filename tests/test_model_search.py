"""Model search across Hugging Face and ModelScope (console/models/search.py) against a local fake
of their search APIs (tests/search_fakes.py, answers shaped as the APIs answer, never the
internet): the request, the parsing, the badges, GGUF advice, offline mode and the errors."""

from __future__ import annotations

import pytest

from console.models.curated import fit_badges
from console.models.search import SearchError, parse_hf, search_models, search_url
from console.planner import KNOWN_SHAPES
from search_fakes import SearchHub, search_hub  # noqa: F401  (the fixture)


def test_hf_search_asks_the_public_api_with_sizes_and_config(search_hub: SearchHub) -> None:  # noqa: F811
    hits = search_models("qwen3 8b", source="hf", limit=7)
    ((path, query),) = search_hub.requests
    assert path == "/api/models"
    assert query["search"] == ["qwen3 8b"] and query["filter"] == ["text-generation"] and query["limit"] == ["7"]
    assert query["sort"] == ["downloads"] and {"safetensors", "gguf", "config"} <= set(query["expand[]"])
    by_repo = {h.repo: h for h in hits}
    assert set(by_repo) == {
        "Qwen/Qwen3-8B-AWQ",
        "Qwen/Qwen3-8B-FP8",
        "Qwen/Qwen3-8B-GGUF",
        "someone/qwen3-8b-abliterated-merge",
    }
    awq = by_repo["Qwen/Qwen3-8B-AWQ"]
    # the size from the per-dtype parameter counts: 1,360,461,312 F16 x 2 + 848,166,912 I32 x 4
    assert awq.size_bytes == 1_360_461_312 * 2 + 848_166_912 * 4
    assert awq.quantization == "awq" and awq.shape_name == "Qwen3-8B" and awq.downloads == 412093
    assert awq.badges == fit_badges(KNOWN_SHAPES["Qwen3-8B"], "awq", None)  # the curated list's badges
    assert awq.badges.verdict == "fits" and awq.badges.card == "rtx-4090"
    fp8 = by_repo["Qwen/Qwen3-8B-FP8"]
    assert fp8.quantization == "fp8" and fp8.size_bytes == 1_360_732_160 * 2 + 6_828_326_912 + 4_227_072 * 4
    merge = by_repo["someone/qwen3-8b-abliterated-merge"]  # a merge: the shape of its config's family and size
    assert merge.shape_name == "Qwen3-8B" and merge.quantization is None and merge.size_bytes == 8_190_735_360 * 2
    assert merge.badges == fit_badges(KNOWN_SHAPES["Qwen3-8B"], None, None)  # 16-bit weights
    (mystery,) = search_models("mystery")  # an architecture the planner does not know
    assert mystery.shape_name is None and mystery.badges.verdict == "unknown" and mystery.params == 7_012_345_856
    assert "unknown until download" in mystery.badges.detail and mystery.size_bytes == 7_012_345_856 * 2


def test_a_gguf_hit_says_what_it_becomes_and_offers_the_curated_build(search_hub: SearchHub) -> None:  # noqa: F811
    gguf = next(h for h in search_models("qwen3 8b gguf") if h.gguf)
    assert gguf.params == 8_190_735_360 and gguf.converted_bytes == 2 * 8_190_735_360  # 16-bit after conversion
    assert gguf.quantization is None and gguf.badges == fit_badges(KNOWN_SHAPES["Qwen3-8B"], None, None)
    assert [a.repo for a in gguf.alternatives] == ["Qwen/Qwen3-8B-AWQ", "Qwen/Qwen3-8B-FP8"]


def test_badges_follow_the_chosen_card(search_hub: SearchHub) -> None:  # noqa: F811
    big = next(h for h in search_models("qwen3 32b", device="rtx-4080"))
    assert big.repo == "Qwen/Qwen3-32B" and big.badges.card == "rtx-4080" and big.badges.verdict != "fits"
    assert next(iter(search_models("qwen3 32b", device="h200"))).badges.verdict == "fits"


def test_modelscope_search_uses_its_openapi(search_hub: SearchHub) -> None:  # noqa: F811
    hits = search_models("qwen3-8b", source="modelscope", limit=5)
    ((path, query),) = search_hub.requests
    assert path == "/openapi/v1/models" and query["search"] == ["qwen3-8b"] and query["page_size"] == ["5"]
    by_repo = {h.repo: h for h in hits}
    assert by_repo["Qwen/Qwen3-8B-AWQ"].size_bytes == 6_094_159_872
    assert by_repo["Qwen/Qwen3-8B-AWQ"].badges.verdict == "fits" and by_repo["Qwen/Qwen3-8B-AWQ"].source == "modelscope"
    assert (
        by_repo["Qwen/Qwen3-8B-GGUF"].gguf
        and by_repo["Qwen/Qwen3-8B-GGUF"].converted_bytes == 2 * KNOWN_SHAPES["Qwen3-8B"].params
    )
    assert by_repo["someone/Mystery-8B-Chat"].badges.verdict == "unknown"


@pytest.mark.parametrize(
    ("status", "words"),
    [(429, "limiting searches (HTTP 429): wait 30 s"), (500, "HTTP 500 (a problem on its side)"), (503, "HTTP 503")],
)
def test_http_errors_are_one_line(search_hub: SearchHub, status: int, words: str) -> None:  # noqa: F811
    search_hub.status = status
    with pytest.raises(SearchError) as err:
        search_models("qwen3")
    assert words in str(err.value) and "\n" not in str(err.value) and "Traceback" not in str(err.value)


def test_a_hub_that_does_not_answer_times_out(search_hub: SearchHub) -> None:  # noqa: F811
    search_hub.delay_s = 2.0
    with pytest.raises(SearchError, match=r"did not answer within 0.3 s \(127.0.0.1:\d+\): check the network"):
        search_models("qwen3", timeout=0.3)


def test_unreachable_and_malformed_answers(search_hub: SearchHub) -> None:  # noqa: F811
    with pytest.raises(SearchError, match="Could not reach Hugging Face at 127.0.0.1:9"):
        search_models("qwen3", base="http://127.0.0.1:9")
    with pytest.raises(SearchError, match="not a list of models"):
        parse_hf({"error": "x"})
    with pytest.raises(SearchError, match="Type a few words"):
        search_models("   ")


def test_offline_mode_refuses_before_any_request(search_hub: SearchHub, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: F811
    for key in ("INFERENCE_CONSOLE_OFFLINE", "HF_HUB_OFFLINE"):
        monkeypatch.setenv(key, "1")
        with pytest.raises(SearchError, match=f"Offline mode is on \\({key}=1\\).*Unset {key}"):
            search_models("qwen3", source="modelscope")
        monkeypatch.delenv(key)
    assert search_hub.requests == []
    assert search_models("qwen3 8b awq")  # and with it unset, the search goes through


def test_search_url_follows_the_endpoint_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HF_ENDPOINT", "https://hf-mirror.example/")
    monkeypatch.delenv("MODELSCOPE_ENDPOINT", raising=False)
    monkeypatch.delenv("MODELSCOPE_DOMAIN", raising=False)
    assert search_url("hf", "q", 3).startswith("https://hf-mirror.example/api/models?search=q&filter=text-generation")
    assert search_url("modelscope", "q", 3).startswith("https://www.modelscope.cn/openapi/v1/models?search=q")
