#!/bin/bash
# The GPU work still open, one step a `run` call, on the machine after .gpu-stage's install.sh:
#
#   bash benchmarks/gpu/agenda.sh STEP [BUDGET_S]
#
#   probe          weights_probe.py: what the worker holds after an online-FP8 load (the planner, ~4 min)
#   fm             fit_matrix.py, resuming from results/fit/fit-matrix.jsonl (the planner; BUDGET_S
#                  starts no load after that many seconds, default 420; call it until nothing is left)
#   startup        startup.py: console vs LLM() vs vllm serve, cold and warm compile cache (six 8B
#                  starts, ~9 minutes; KINDS=console,llm before the command splits them over calls)
#   tune-one-user  tune_8b.py --goal one-user within BUDGET_S; a second call goes on from
#                  the first (--state), so 15 minutes of tuning span two calls; a third argument
#                  "last" confirms the best at the end (the earlier parts spend their budget on trials)
#   tune-many      tune_8b.py --goal many --max-tpot-ms 60 within BUDGET_S, resumable the same way
#
# The emulated 24 GB card is 22.9 GiB of whatever card came (0.1638 of an H200, 0.2892 of an H100
# 80GB). startup and the tunes need the bundled tokenizer in .gpu-tok/ (git-ignored: write it here
# with `.venv/bin/python benchmarks/gpu/tune_8b.py --write-tokenizer .gpu-tok` and pass
# carry=[".gpu-tok"]). What each step writes goes under $OUT; commit it under benchmarks/gpu/results/.
set -u
export PYTHONPATH=/tmp/site VLLM_USE_FLASHINFER_SAMPLER=0 VLLM_WORKER_MULTIPROC_METHOD=spawn PYTHONUNBUFFERED=1
STEP=${1:?step: probe, fm, startup, tune-one-user or tune-many}
BUDGET=${2:-420}
CONFIRM=--no-confirm
[ "${3:-}" = last ] && CONFIRM=
OUT=${OUT:-/tmp/out}
U=$(python3 -c "import torch; print(round(22.9 * 2**30 / torch.cuda.mem_get_info()[1], 4))")
nvidia-smi --query-gpu=name,memory.total,memory.used --format=csv,noheader
echo "gpu_memory_utilization for 22.9 GiB: $U"
cleanup() { pkill -9 -f FITRESULT; pkill -9 -f HOLDING; pkill -9 -f PROBE; pkill -9 -f multiprocessing.spawn; true; }
case "$STEP" in
  probe)
    timeout 560 python3 benchmarks/gpu/weights_probe.py "$OUT/probe" --util "$U" --timeout-s 130
    cleanup ;;
  fm)
    [ -f /tmp/fm/fit-matrix.jsonl ] || { mkdir -p /tmp/fm; cp benchmarks/gpu/results/fit/fit-matrix.jsonl /tmp/fm/; }
    timeout $((BUDGET + 150)) python3 benchmarks/gpu/fit_matrix.py /tmp/fm --util "$U" --skip-done \
      --budget-s "$BUDGET" --timeout-s 150
    cleanup
    mkdir -p "$OUT/fm"; cp /tmp/fm/fit-matrix.jsonl "$OUT/fm/"
    tar czf "$OUT/fm/fit-matrix-logs.tar.gz" -C /tmp/fm logs ;;
  startup)
    timeout 570 python3 benchmarks/gpu/startup.py "$OUT/startup" --tokenizer .gpu-tok --util "$U" \
      ${KINDS:+--kinds "$KINDS"} ;;
  tune-one-user)
    timeout $((BUDGET + 120)) python3 benchmarks/gpu/tune_8b.py "$OUT/tune" --tokenizer .gpu-tok \
      --goal one-user --budget-s "$BUDGET" --state /tmp/console-tune/state-one-user.json $CONFIRM ;;
  tune-many)
    timeout $((BUDGET + 120)) python3 benchmarks/gpu/tune_8b.py "$OUT/tune" --tokenizer .gpu-tok \
      --goal many --max-tpot-ms 60 --budget-s "$BUDGET" --state /tmp/console-tune/state-many.json $CONFIRM ;;
  *) echo "unknown step $STEP"; exit 2 ;;
esac
