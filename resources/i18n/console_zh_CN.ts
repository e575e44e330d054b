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
  </context>
  <context>
    <name>AdvisorPanel</name>
    <message>
      <location filename="../../console/ui/advisor_panel.py" />
      <source>Apply to the knobs</source>
      <translation>应用到参数</translation>
    </message>
    <message>
      <location filename="../../console/ui/advisor_panel.py" />
      <source>Back to live</source>
      <translation>回到实时</translation>
    </message>
    <message>
      <location filename="../../console/ui/advisor_panel.py" />
      <source>Cannot open the recording: {0}</source>
      <translation>无法打开记录：{0}</translation>
    </message>
    <message>
      <location filename="../../console/ui/advisor_panel.py" />
      <source>Cannot save the recording: {0}</source>
      <translation>无法保存记录：{0}</translation>
    </message>
    <message>
      <location filename="../../console/ui/advisor_panel.py" />
      <source>Change: {0} — {1}</source>
      <translation>修改：{0} — {1}</translation>
    </message>
    <message>
      <location filename="../../console/ui/advisor_panel.py" />
      <source>No engine setting to change: see why.</source>
      <translation>没有需要修改的引擎设置：原因见下。</translation>
    </message>
    <message>
      <location filename="../../console/ui/advisor_panel.py" />
      <source>Not checked: {0}</source>
      <translation>未检查：{0}</translation>
    </message>
    <message>
      <location filename="../../console/ui/advisor_panel.py" />
      <source>Nothing to change: no rule fired over the {0}.</source>
      <translation>无需修改：{0}内没有规则被触发。</translation>
    </message>
    <message>
      <location filename="../../console/ui/advisor_panel.py" />
      <source>Open a metrics recording</source>
      <translation>打开指标记录</translation>
    </message>
    <message>
      <location filename="../../console/ui/advisor_panel.py" />
      <source>Open recording…</source>
      <translation>打开记录…</translation>
    </message>
    <message>
      <location filename="../../console/ui/advisor_panel.py" />
      <source>Prometheus can scrape {0}</source>
      <translation>Prometheus 可抓取 {0}</translation>
    </message>
    <message>
      <location filename="../../console/ui/advisor_panel.py" />
      <source>Recording saved to {0}</source>
      <translation>记录已保存到 {0}</translation>
    </message>
    <message>
      <location filename="../../console/ui/advisor_panel.py" />
      <source>Recordings (*.json)</source>
      <translation>记录文件 (*.json)</translation>
    </message>
    <message>
      <location filename="../../console/ui/advisor_panel.py" />
      <source>Recordings (*.json);;All files (*)</source>
      <translation>记录 (*.json);;所有文件 (*)</translation>
    </message>
    <message>
      <location filename="../../console/ui/advisor_panel.py" />
      <source>Save recording…</source>
      <translation>保存记录…</translation>
    </message>
    <message>
      <location filename="../../console/ui/advisor_panel.py" />
      <source>Save the metrics recording</source>
      <translation>保存指标记录</translation>
    </message>
    <message>
      <location filename="../../console/ui/advisor_panel.py" />
      <source>Saving the recording…</source>
      <translation>正在保存记录…</translation>
    </message>
    <message>
      <location filename="../../console/ui/advisor_panel.py" />
      <source>Serve /metrics for Prometheus on {0}:{1}</source>
      <translation>在 {0}:{1} 上为 Prometheus 提供 /metrics</translation>
    </message>
    <message>
      <location filename="../../console/ui/advisor_panel.py" />
      <source>The advisor's rules cannot be read: {0}</source>
      <translation>无法读取调优建议规则：{0}</translation>
    </message>
    <message>
      <location filename="../../console/ui/advisor_panel.py" />
      <source>Why:</source>
      <translation>原因：</translation>
    </message>
    <message>
      <location filename="../../console/ui/advisor_panel.py" />
      <source>critical</source>
      <translation>严重</translation>
    </message>
    <message>
      <location filename="../../console/ui/advisor_panel.py" />
      <source>info</source>
      <translation>信息</translation>
    </message>
    <message>
      <location filename="../../console/ui/advisor_panel.py" />
      <source>last {0:.0f} s</source>
      <translation>最近 {0:.0f} 秒</translation>
    </message>
    <message>
      <location filename="../../console/ui/advisor_panel.py" />
      <source>recording</source>
      <translation>记录</translation>
    </message>
    <message>
      <location filename="../../console/ui/advisor_panel.py" />
      <source>warning</source>
      <translation>警告</translation>
    </message>
    <message>
      <location filename="../../console/ui/advisor_panel.py" />
      <source>{0} finding(s) over the {1}.</source>
      <translation>{1}内发现 {0} 项问题。</translation>
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
      <location filename="../../console/ui/batch_panel.py" />
      <source>(and {m} more)</source>
      <translation>（另有 {m} 行）</translation>
    </message>
    <message>
      <location filename="../../console/ui/batch_panel.py" />
      <source>Batch files (*.jsonl *.json *.csv);;All files (*)</source>
      <translation>批处理文件 (*.jsonl *.json *.csv);;所有文件 (*)</translation>
    </message>
    <message>
      <location filename="../../console/ui/batch_panel.py" />
      <source>CSV (*.csv)</source>
      <translation>CSV (*.csv)</translation>
    </message>
    <message>
      <location filename="../../console/ui/batch_panel.py" />
      <source>Cancel</source>
      <translation>取消</translation>
    </message>
    <message>
      <location filename="../../console/ui/batch_panel.py" />
      <source>Cancelled ({n} not run; run again with Resume to finish):</source>
      <translation>已取消（{n} 个未运行；勾选“续跑”再次运行即可完成）：</translation>
    </message>
    <message>
      <location filename="../../console/ui/batch_panel.py" />
      <source>Cancelling: stopping the requests in flight…</source>
      <translation>正在取消：停止进行中的请求…</translation>
    </message>
    <message>
      <location filename="../../console/ui/batch_panel.py" />
      <source>Cannot read the file: {e}</source>
      <translation>无法读取文件：{e}</translation>
    </message>
    <message>
      <location filename="../../console/ui/batch_panel.py" />
      <source>Choose…</source>
      <translation>选择…</translation>
    </message>
    <message>
      <location filename="../../console/ui/batch_panel.py" />
      <source>Concurrency</source>
      <translation>并发数</translation>
    </message>
    <message>
      <location filename="../../console/ui/batch_panel.py" />
      <source>Done:</source>
      <translation>完成：</translation>
    </message>
    <message>
      <location filename="../../console/ui/batch_panel.py" />
      <source>ETA {s:.0f} s</source>
      <translation>预计剩余 {s:.0f} 秒</translation>
    </message>
    <message>
      <location filename="../../console/ui/batch_panel.py" />
      <source>ETA –</source>
      <translation>预计剩余 –</translation>
    </message>
    <message>
      <location filename="../../console/ui/batch_panel.py" />
      <source>Export CSV</source>
      <translation>导出 CSV</translation>
    </message>
    <message>
      <location filename="../../console/ui/batch_panel.py" />
      <source>Export CSV…</source>
      <translation>导出 CSV…</translation>
    </message>
    <message>
      <location filename="../../console/ui/batch_panel.py" />
      <source>Export JSONL</source>
      <translation>导出 JSONL</translation>
    </message>
    <message>
      <location filename="../../console/ui/batch_panel.py" />
      <source>Export JSONL (OpenAI batch output)…</source>
      <translation>导出 JSONL（OpenAI 批处理输出）…</translation>
    </message>
    <message>
      <location filename="../../console/ui/batch_panel.py" />
      <source>Export failed: {e}</source>
      <translation>导出失败：{e}</translation>
    </message>
    <message>
      <location filename="../../console/ui/batch_panel.py" />
      <source>Exported {n} results to {p}</source>
      <translation>已将 {n} 条结果导出到 {p}</translation>
    </message>
    <message>
      <location filename="../../console/ui/batch_panel.py" />
      <source>Input:</source>
      <translation>输入：</translation>
    </message>
    <message>
      <location filename="../../console/ui/batch_panel.py" />
      <source>JSONL (*.jsonl)</source>
      <translation>JSONL (*.jsonl)</translation>
    </message>
    <message>
      <location filename="../../console/ui/batch_panel.py" />
      <source>JSONL, CSV or OpenAI batch request file</source>
      <translation>JSONL、CSV 或 OpenAI 批处理请求文件</translation>
    </message>
    <message>
      <location filename="../../console/ui/batch_panel.py" />
      <source>Load a model first</source>
      <translation>请先加载模型</translation>
    </message>
    <message>
      <location filename="../../console/ui/batch_panel.py" />
      <source>Load a model first: the engine is not ready.</source>
      <translation>请先加载模型：引擎尚未就绪。</translation>
    </message>
    <message>
      <location filename="../../console/ui/batch_panel.py" />
      <source>Max tokens</source>
      <translation>最大词元数</translation>
    </message>
    <message>
      <location filename="../../console/ui/batch_panel.py" />
      <source>No file opened.</source>
      <translation>未打开文件。</translation>
    </message>
    <message>
      <location filename="../../console/ui/batch_panel.py" />
      <source>Open a batch file</source>
      <translation>打开批处理文件</translation>
    </message>
    <message>
      <location filename="../../console/ui/batch_panel.py" />
      <source>Open…</source>
      <translation>打开…</translation>
    </message>
    <message>
      <location filename="../../console/ui/batch_panel.py" />
      <source>Output:</source>
      <translation>输出：</translation>
    </message>
    <message>
      <location filename="../../console/ui/batch_panel.py" />
      <source>Resume (skip requests already in the output)</source>
      <translation>续跑（跳过输出中已有的请求）</translation>
    </message>
    <message>
      <location filename="../../console/ui/batch_panel.py" />
      <source>Run a batch first: there is no output to export.</source>
      <translation>请先运行批处理：没有可导出的输出。</translation>
    </message>
    <message>
      <location filename="../../console/ui/batch_panel.py" />
      <source>Run batch</source>
      <translation>运行批处理</translation>
    </message>
    <message>
      <location filename="../../console/ui/batch_panel.py" />
      <source>Sampling (defaults; values given in the file win)</source>
      <translation>采样（默认值；文件中给出的值优先）</translation>
    </message>
    <message>
      <location filename="../../console/ui/batch_panel.py" />
      <source>Seed</source>
      <translation>随机种子</translation>
    </message>
    <message>
      <location filename="../../console/ui/batch_panel.py" />
      <source>Starting…</source>
      <translation>正在启动…</translation>
    </message>
    <message>
      <location filename="../../console/ui/batch_panel.py" />
      <source>Stopped: {e}.</source>
      <translation>已停止：{e}。</translation>
    </message>
    <message>
      <location filename="../../console/ui/batch_panel.py" />
      <source>Temperature</source>
      <translation>温度</translation>
    </message>
    <message>
      <location filename="../../console/ui/batch_panel.py" />
      <source>The batch failed: {e}</source>
      <translation>批处理失败：{e}</translation>
    </message>
    <message>
      <location filename="../../console/ui/batch_panel.py" />
      <source>Top-p</source>
      <translation>Top-p</translation>
    </message>
    <message>
      <location filename="../../console/ui/batch_panel.py" />
      <source>Write results to</source>
      <translation>结果写入到</translation>
    </message>
    <message>
      <location filename="../../console/ui/batch_panel.py" />
      <source>random</source>
      <translation>随机</translation>
    </message>
    <message>
      <location filename="../../console/ui/batch_panel.py" />
      <source>results are written here as they complete</source>
      <translation>结果在完成时逐条写入此处</translation>
    </message>
    <message>
      <location filename="../../console/ui/batch_panel.py" />
      <source>{done}/{total} done ({failed} failed, {skipped} already done) · {eta} · {tps:.0f} tok/s this batch · {live:.0f} tok/s engine now</source>
      <translation>已完成 {done}/{total}（失败 {failed}，此前已完成 {skipped}）· {eta} · 本批 {tps:.0f} 词元/秒 · 引擎当前 {live:.0f} 词元/秒</translation>
    </message>
    <message>
      <location filename="../../console/ui/batch_panel.py" />
      <source>{n} lines skipped: {shown}</source>
      <translation>跳过 {n} 行：{shown}</translation>
    </message>
    <message>
      <location filename="../../console/ui/batch_panel.py" />
      <source>{n} requests ({fmt} format).</source>
      <translation>{n} 个请求（{fmt} 格式）。</translation>
    </message>
    <message>
      <location filename="../../console/ui/batch_panel.py" />
      <source>{ok} succeeded, {failed} failed, {skipped} skipped, {tok} tokens in {s:.1f} s ({tps:.0f} tok/s)</source>
      <translation>成功 {ok}，失败 {failed}，跳过 {skipped}，{s:.1f} 秒内 {tok} 个词元（{tps:.0f} 词元/秒）</translation>
    </message>
  </context>
  <context>
    <name>BatchResultsModel</name>
    <message>
      <location filename="../../console/ui/batch_results_model.py" />
      <source>Finish reason</source>
      <translation>结束原因</translation>
    </message>
    <message>
      <location filename="../../console/ui/batch_results_model.py" />
      <source>ID</source>
      <translation>ID</translation>
    </message>
    <message>
      <location filename="../../console/ui/batch_results_model.py" />
      <source>Latency (s)</source>
      <translation>延迟 (s)</translation>
    </message>
    <message>
      <location filename="../../console/ui/batch_results_model.py" />
      <source>Output</source>
      <translation>输出</translation>
    </message>
    <message>
      <location filename="../../console/ui/batch_results_model.py" />
      <source>Prompt</source>
      <translation>提示词</translation>
    </message>
    <message>
      <location filename="../../console/ui/batch_results_model.py" />
      <source>TTFT (ms)</source>
      <translation>首字延迟 (ms)</translation>
    </message>
    <message>
      <location filename="../../console/ui/batch_results_model.py" />
      <source>Tokens (in/out)</source>
      <translation>词元（输入/输出）</translation>
    </message>
    <message>
      <location filename="../../console/ui/batch_results_model.py" />
      <source>error: {e}</source>
      <translation>错误：{e}</translation>
    </message>
  </context>
  <context>
    <name>ChatPanel</name>
    <message>
      <location filename="../../console/ui/chat_panel.py" />
      <source>Assistant</source>
      <translation>助手</translation>
    </message>
    <message>
      <location filename="../../console/ui/chat_panel.py" />
      <source>Context</source>
      <translation>上下文</translation>
    </message>
    <message>
      <location filename="../../console/ui/chat_panel.py" />
      <source>Conversations</source>
      <translation>对话</translation>
    </message>
    <message>
      <location filename="../../console/ui/chat_panel.py" />
      <source>Could not save the answer: {0}</source>
      <translation>无法保存回答：{0}</translation>
    </message>
    <message>
      <location filename="../../console/ui/chat_panel.py" />
      <source>Could not save the message: {0}</source>
      <translation>无法保存消息：{0}</translation>
    </message>
    <message>
      <location filename="../../console/ui/chat_panel.py" />
      <source>Delete</source>
      <translation>删除</translation>
    </message>
    <message>
      <location filename="../../console/ui/chat_panel.py" />
      <source>Delete conversation</source>
      <translation>删除对话</translation>
    </message>
    <message>
      <location filename="../../console/ui/chat_panel.py" />
      <source>Delete this conversation and all its messages?</source>
      <translation>删除此对话及其全部消息？</translation>
    </message>
    <message>
      <location filename="../../console/ui/chat_panel.py" />
      <source>Edit last</source>
      <translation>编辑上一条</translation>
    </message>
    <message>
      <location filename="../../console/ui/chat_panel.py" />
      <source>Editing your last message: Send replaces it and the answer after it.</source>
      <translation>正在编辑上一条消息：发送后将替换它及其后的回答。</translation>
    </message>
    <message>
      <location filename="../../console/ui/chat_panel.py" />
      <source>Export conversation</source>
      <translation>导出对话</translation>
    </message>
    <message>
      <location filename="../../console/ui/chat_panel.py" />
      <source>Export failed: {0}</source>
      <translation>导出失败：{0}</translation>
    </message>
    <message>
      <location filename="../../console/ui/chat_panel.py" />
      <source>Exported to {0}</source>
      <translation>已导出到 {0}</translation>
    </message>
    <message>
      <location filename="../../console/ui/chat_panel.py" />
      <source>Export…</source>
      <translation>导出…</translation>
    </message>
    <message>
      <location filename="../../console/ui/chat_panel.py" />
      <source>Load a model, type a message and press Ctrl+Enter.</source>
      <translation>加载模型，输入消息，然后按 Ctrl+Enter。</translation>
    </message>
    <message>
      <location filename="../../console/ui/chat_panel.py" />
      <source>Markdown (*.md);;JSON (*.json)</source>
      <translation>Markdown (*.md);;JSON (*.json)</translation>
    </message>
    <message>
      <location filename="../../console/ui/chat_panel.py" />
      <source>Max tokens:</source>
      <translation>最大词元数：</translation>
    </message>
    <message>
      <location filename="../../console/ui/chat_panel.py" />
      <source>Message (Ctrl+Enter sends, Esc stops)</source>
      <translation>消息（Ctrl+Enter 发送，Esc 停止）</translation>
    </message>
    <message>
      <location filename="../../console/ui/chat_panel.py" />
      <source>New chat</source>
      <translation>新对话</translation>
    </message>
    <message>
      <location filename="../../console/ui/chat_panel.py" />
      <source>No model is loaded: pick one in the Models sidebar and press Load (Ctrl+L)</source>
      <translation>未加载模型：请在“模型”侧栏中选择一个并点击“加载” (Ctrl+L)</translation>
    </message>
    <message>
      <location filename="../../console/ui/chat_panel.py" />
      <source>Nothing to export: start or open a conversation first</source>
      <translation>没有可导出的内容：请先开始或打开一个对话</translation>
    </message>
    <message>
      <location filename="../../console/ui/chat_panel.py" />
      <source>Put your last message back in the box; sending replaces it and the answers after it</source>
      <translation>把你的上一条消息放回输入框；发送后将替换它及其后的回答</translation>
    </message>
    <message>
      <location filename="../../console/ui/chat_panel.py" />
      <source>Regenerate</source>
      <translation>重新生成</translation>
    </message>
    <message>
      <location filename="../../console/ui/chat_panel.py" />
      <source>Rename</source>
      <translation>重命名</translation>
    </message>
    <message>
      <location filename="../../console/ui/chat_panel.py" />
      <source>Rename conversation</source>
      <translation>重命名对话</translation>
    </message>
    <message>
      <location filename="../../console/ui/chat_panel.py" />
      <source>Repetition penalty:</source>
      <translation>重复惩罚：</translation>
    </message>
    <message>
      <location filename="../../console/ui/chat_panel.py" />
      <source>Sampling</source>
      <translation>采样</translation>
    </message>
    <message>
      <location filename="../../console/ui/chat_panel.py" />
      <source>Seed:</source>
      <translation>随机种子：</translation>
    </message>
    <message>
      <location filename="../../console/ui/chat_panel.py" />
      <source>Send</source>
      <translation>发送</translation>
    </message>
    <message>
      <location filename="../../console/ui/chat_panel.py" />
      <source>Send (Ctrl+Enter)</source>
      <translation>发送 (Ctrl+Enter)</translation>
    </message>
    <message>
      <location filename="../../console/ui/chat_panel.py" />
      <source>Start a new conversation (Ctrl+N)</source>
      <translation>开始新对话 (Ctrl+N)</translation>
    </message>
    <message>
      <location filename="../../console/ui/chat_panel.py" />
      <source>Stop</source>
      <translation>停止</translation>
    </message>
    <message>
      <location filename="../../console/ui/chat_panel.py" />
      <source>Stop strings:</source>
      <translation>停止字符串：</translation>
    </message>
    <message>
      <location filename="../../console/ui/chat_panel.py" />
      <source>Stop the answer (Esc)</source>
      <translation>停止回答 (Esc)</translation>
    </message>
    <message>
      <location filename="../../console/ui/chat_panel.py" />
      <source>System prompt</source>
      <translation>系统提示词</translation>
    </message>
    <message>
      <location filename="../../console/ui/chat_panel.py" />
      <source>System prompt (optional)</source>
      <translation>系统提示词（可选）</translation>
    </message>
    <message>
      <location filename="../../console/ui/chat_panel.py" />
      <source>TTFT {0:.2f} s</source>
      <translation>首字延迟 {0:.2f} 秒</translation>
    </message>
    <message>
      <location filename="../../console/ui/chat_panel.py" />
      <source>Temperature:</source>
      <translation>温度：</translation>
    </message>
    <message>
      <location filename="../../console/ui/chat_panel.py" />
      <source>The answer failed: {0}</source>
      <translation>回答失败：{0}</translation>
    </message>
    <message>
      <location filename="../../console/ui/chat_panel.py" />
      <source>Title:</source>
      <translation>标题：</translation>
    </message>
    <message>
      <location filename="../../console/ui/chat_panel.py" />
      <source>Top-k:</source>
      <translation>Top-k：</translation>
    </message>
    <message>
      <location filename="../../console/ui/chat_panel.py" />
      <source>Top-p:</source>
      <translation>Top-p：</translation>
    </message>
    <message>
      <location filename="../../console/ui/chat_panel.py" />
      <source>You</source>
      <translation>你</translation>
    </message>
    <message>
      <location filename="../../console/ui/chat_panel.py" />
      <source>failed</source>
      <translation>失败</translation>
    </message>
    <message>
      <location filename="../../console/ui/chat_panel.py" />
      <source>hit max tokens</source>
      <translation>达到最大词元数</translation>
    </message>
    <message>
      <location filename="../../console/ui/chat_panel.py" />
      <source>no model loaded</source>
      <translation>未加载模型</translation>
    </message>
    <message>
      <location filename="../../console/ui/chat_panel.py" />
      <source>off</source>
      <translation>关闭</translation>
    </message>
    <message>
      <location filename="../../console/ui/chat_panel.py" />
      <source>one stop string per line</source>
      <translation>每行一个停止字符串</translation>
    </message>
    <message>
      <location filename="../../console/ui/chat_panel.py" />
      <source>random</source>
      <translation>随机</translation>
    </message>
    <message>
      <location filename="../../console/ui/chat_panel.py" />
      <source>stopped</source>
      <translation>已停止</translation>
    </message>
    <message>
      <location filename="../../console/ui/chat_panel.py" />
      <source>{0:,} / {1:,} tokens</source>
      <translation>{0:,} / {1:,} 词元</translation>
    </message>
    <message>
      <location filename="../../console/ui/chat_panel.py" />
      <source>{0:.1f} tok/s</source>
      <translation>{0:.1f} 词元/秒</translation>
    </message>
    <message>
      <location filename="../../console/ui/chat_panel.py" />
      <source>{0} tokens</source>
      <translation>{0} 个词元</translation>
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
      <source>A running vLLM server at a URL</source>
      <translation>某个 URL 上正在运行的 vLLM 服务器</translation>
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
  </context>
  <context>
    <name>ExportPanel</name>
    <message>
      <location filename="../../console/ui/export_panel.py" />
      <source>Address the server listens on; anything but 127.0.0.1 exposes it</source>
      <translation>服务器监听的地址；除 127.0.0.1 以外的地址都会对外暴露</translation>
    </message>
    <message>
      <location filename="../../console/ui/export_panel.py" />
      <source>Bundle (all of them + plan + README)</source>
      <translation>打包（全部格式 + 规划 + README）</translation>
    </message>
    <message>
      <location filename="../../console/ui/export_panel.py" />
      <source>Cannot export: {e}</source>
      <translation>无法导出：{e}</translation>
    </message>
    <message>
      <location filename="../../console/ui/export_panel.py" />
      <source>Command line</source>
      <translation>命令行</translation>
    </message>
    <message>
      <location filename="../../console/ui/export_panel.py" />
      <source>Copied to the clipboard.</source>
      <translation>已复制到剪贴板。</translation>
    </message>
    <message>
      <location filename="../../console/ui/export_panel.py" />
      <source>Copy</source>
      <translation>复制</translation>
    </message>
    <message>
      <location filename="../../console/ui/export_panel.py" />
      <source>Docker Compose</source>
      <translation>Docker Compose</translation>
    </message>
    <message>
      <location filename="../../console/ui/export_panel.py" />
      <source>Export formats are not available in this installation (console.export: {e}).</source>
      <translation>此安装中没有可用的导出格式（console.export：{e}）。</translation>
    </message>
    <message>
      <location filename="../../console/ui/export_panel.py" />
      <source>File</source>
      <translation>文件</translation>
    </message>
    <message>
      <location filename="../../console/ui/export_panel.py" />
      <source>Format</source>
      <translation>格式</translation>
    </message>
    <message>
      <location filename="../../console/ui/export_panel.py" />
      <source>Host</source>
      <translation>主机</translation>
    </message>
    <message>
      <location filename="../../console/ui/export_panel.py" />
      <source>Kubernetes</source>
      <translation>Kubernetes</translation>
    </message>
    <message>
      <location filename="../../console/ui/export_panel.py" />
      <source>Load a model (or choose a model and preset) to export its server configuration.</source>
      <translation>加载模型（或选择模型和预设）以导出其服务器配置。</translation>
    </message>
    <message>
      <location filename="../../console/ui/export_panel.py" />
      <source>Name</source>
      <translation>名称</translation>
    </message>
    <message>
      <location filename="../../console/ui/export_panel.py" />
      <source>Port</source>
      <translation>端口</translation>
    </message>
    <message>
      <location filename="../../console/ui/export_panel.py" />
      <source>Ray (multi-node)</source>
      <translation>Ray（多节点）</translation>
    </message>
    <message>
      <location filename="../../console/ui/export_panel.py" />
      <source>Save as a new folder</source>
      <translation>另存为新文件夹</translation>
    </message>
    <message>
      <location filename="../../console/ui/export_panel.py" />
      <source>Save export</source>
      <translation>保存导出</translation>
    </message>
    <message>
      <location filename="../../console/ui/export_panel.py" />
      <source>Save failed: {e}</source>
      <translation>保存失败：{e}</translation>
    </message>
    <message>
      <location filename="../../console/ui/export_panel.py" />
      <source>Saved to {p}</source>
      <translation>已保存到 {p}</translation>
    </message>
    <message>
      <location filename="../../console/ui/export_panel.py" />
      <source>Save…</source>
      <translation>保存…</translation>
    </message>
    <message>
      <location filename="../../console/ui/export_panel.py" />
      <source>Warning: the server will be reachable from other machines on {h}.</source>
      <translation>警告：服务器将在 {h} 上可被其他机器访问。</translation>
    </message>
    <message>
      <location filename="../../console/ui/export_panel.py" />
      <source>served model name (default: the model's)</source>
      <translation>对外模型名（默认：模型自身名称）</translation>
    </message>
    <message>
      <location filename="../../console/ui/export_panel.py" />
      <source>vllm serve YAML</source>
      <translation>vllm serve YAML</translation>
    </message>
    <message>
      <location filename="../../console/ui/export_panel.py" />
      <source>{n} file(s) for {model}.</source>
      <translation>{model} 的 {n} 个文件。</translation>
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
      <source>Chat</source>
      <translation>对话</translation>
    </message>
    <message>
      <location filename="../../console/ui/main_window.py" />
      <source>Device: CPU</source>
      <translation>设备：CPU</translation>
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
      <source>The {0} panel is not available: {1}</source>
      <translation>{0} 面板不可用：{1}</translation>
    </message>
    <message>
      <location filename="../../console/ui/main_window.py" />
      <source>VRAM {0} / {1}</source>
      <translation>显存 {0} / {1}</translation>
    </message>
    <message>
      <location filename="../../console/ui/main_window.py" />
      <source>{0:.1f} tok/s</source>
      <translation>{0:.1f} 词元/秒</translation>
    </message>
  </context>
  <context>
    <name>ModelTableModel</name>
    <message>
      <location filename="../../console/ui/models_panel.py" />
      <source>Architecture</source>
      <translation>架构</translation>
    </message>
    <message>
      <location filename="../../console/ui/models_panel.py" />
      <source>Fits?</source>
      <translation>能否装下？</translation>
    </message>
    <message>
      <location filename="../../console/ui/models_panel.py" />
      <source>Max context</source>
      <translation>最大上下文</translation>
    </message>
    <message>
      <location filename="../../console/ui/models_panel.py" />
      <source>Name</source>
      <translation>名称</translation>
    </message>
    <message>
      <location filename="../../console/ui/models_panel.py" />
      <source>Params</source>
      <translation>参数量</translation>
    </message>
    <message>
      <location filename="../../console/ui/models_panel.py" />
      <source>Quantization</source>
      <translation>量化</translation>
    </message>
    <message>
      <location filename="../../console/ui/models_panel.py" />
      <source>Size</source>
      <translation>大小</translation>
    </message>
    <message>
      <location filename="../../console/ui/models_panel.py" />
      <source>The files of this model are gone: {0}</source>
      <translation>此模型的文件已丢失：{0}</translation>
    </message>
    <message>
      <location filename="../../console/ui/models_panel.py" />
      <source>none</source>
      <translation>无</translation>
    </message>
  </context>
  <context>
    <name>ModelsPanel</name>
    <message>
      <location filename="../../console/ui/models_panel.py" />
      <source>Cannot load: {0}</source>
      <translation>无法加载：{0}</translation>
    </message>
    <message>
      <location filename="../../console/ui/models_panel.py" />
      <source>Cannot plan</source>
      <translation>无法规划</translation>
    </message>
    <message>
      <location filename="../../console/ui/models_panel.py" />
      <source>Context length:</source>
      <translation>上下文长度：</translation>
    </message>
    <message>
      <location filename="../../console/ui/models_panel.py" />
      <source>Copy into store</source>
      <translation>复制到模型库</translation>
    </message>
    <message>
      <location filename="../../console/ui/models_panel.py" />
      <source>Copy the model into the store, or use it where it is?</source>
      <translation>把模型复制到模型库，还是在原位置使用？</translation>
    </message>
    <message>
      <location filename="../../console/ui/models_panel.py" />
      <source>Details</source>
      <translation>详情</translation>
    </message>
    <message>
      <location filename="../../console/ui/models_panel.py" />
      <source>GGUF files (*.gguf);;All files (*)</source>
      <translation>GGUF 文件 (*.gguf);;所有文件 (*)</translation>
    </message>
    <message>
      <location filename="../../console/ui/models_panel.py" />
      <source>GPU memory utilisation:</source>
      <translation>显存利用率：</translation>
    </message>
    <message>
      <location filename="../../console/ui/models_panel.py" />
      <source>Import GGUF…</source>
      <translation>导入 GGUF…</translation>
    </message>
    <message>
      <location filename="../../console/ui/models_panel.py" />
      <source>Import a GGUF file</source>
      <translation>导入 GGUF 文件</translation>
    </message>
    <message>
      <location filename="../../console/ui/models_panel.py" />
      <source>Import a Hugging Face model folder</source>
      <translation>导入 Hugging Face 模型文件夹</translation>
    </message>
    <message>
      <location filename="../../console/ui/models_panel.py" />
      <source>Import cancelled; nothing was added</source>
      <translation>导入已取消；未添加任何内容</translation>
    </message>
    <message>
      <location filename="../../console/ui/models_panel.py" />
      <source>Import failed: {0}</source>
      <translation>导入失败：{0}</translation>
    </message>
    <message>
      <location filename="../../console/ui/models_panel.py" />
      <source>Import folder</source>
      <translation>导入文件夹</translation>
    </message>
    <message>
      <location filename="../../console/ui/models_panel.py" />
      <source>Import folder…</source>
      <translation>导入文件夹…</translation>
    </message>
    <message>
      <location filename="../../console/ui/models_panel.py" />
      <source>Imported {0}</source>
      <translation>已导入 {0}</translation>
    </message>
    <message>
      <location filename="../../console/ui/models_panel.py" />
      <source>Importing {0}</source>
      <translation>正在导入 {0}</translation>
    </message>
    <message>
      <location filename="../../console/ui/models_panel.py" />
      <source>Its files in the store are deleted.</source>
      <translation>它在模型库中的文件将被删除。</translation>
    </message>
    <message>
      <location filename="../../console/ui/models_panel.py" />
      <source>Its folder ({0}) is left as it is.</source>
      <translation>它的文件夹（{0}）保持不变。</translation>
    </message>
    <message>
      <location filename="../../console/ui/models_panel.py" />
      <source>KV cache dtype:</source>
      <translation>KV 缓存数据类型：</translation>
    </message>
    <message>
      <location filename="../../console/ui/models_panel.py" />
      <source>KV cache size (CPU):</source>
      <translation>KV 缓存大小 (CPU)：</translation>
    </message>
    <message>
      <location filename="../../console/ui/models_panel.py" />
      <source>KV cache {0}</source>
      <translation>KV 缓存 {0}</translation>
    </message>
    <message>
      <location filename="../../console/ui/models_panel.py" />
      <source>KV cache: {0:,} tokens</source>
      <translation>KV 缓存：{0:,} 词元</translation>
    </message>
    <message>
      <location filename="../../console/ui/models_panel.py" />
      <source>KV dtype {0}</source>
      <translation>KV 数据类型 {0}</translation>
    </message>
    <message>
      <location filename="../../console/ui/models_panel.py" />
      <source>Load</source>
      <translation>加载</translation>
    </message>
    <message>
      <location filename="../../console/ui/models_panel.py" />
      <source>Load failed: {0}</source>
      <translation>加载失败：{0}</translation>
    </message>
    <message>
      <location filename="../../console/ui/models_panel.py" />
      <source>Load the selected model with this preset (Ctrl+L)</source>
      <translation>使用此预设加载所选模型 (Ctrl+L)</translation>
    </message>
    <message>
      <location filename="../../console/ui/models_panel.py" />
      <source>Loading {0}…</source>
      <translation>正在加载 {0}…</translation>
    </message>
    <message>
      <location filename="../../console/ui/models_panel.py" />
      <source>Max concurrency at full context: {0:.1f}×</source>
      <translation>满上下文时的最大并发：{0:.1f}×</translation>
    </message>
    <message>
      <location filename="../../console/ui/models_panel.py" />
      <source>Max sequences:</source>
      <translation>最大并发序列数：</translation>
    </message>
    <message>
      <location filename="../../console/ui/models_panel.py" />
      <source>Model details</source>
      <translation>模型详情</translation>
    </message>
    <message>
      <location filename="../../console/ui/models_panel.py" />
      <source>Model name</source>
      <translation>模型名称</translation>
    </message>
    <message>
      <location filename="../../console/ui/models_panel.py" />
      <source>Name in the store:</source>
      <translation>在模型库中的名称：</translation>
    </message>
    <message>
      <location filename="../../console/ui/models_panel.py" />
      <source>Planner</source>
      <translation>规划器</translation>
    </message>
    <message>
      <location filename="../../console/ui/models_panel.py" />
      <source>Preset and knobs</source>
      <translation>预设与参数</translation>
    </message>
    <message>
      <location filename="../../console/ui/models_panel.py" />
      <source>Preset:</source>
      <translation>预设：</translation>
    </message>
    <message>
      <location filename="../../console/ui/models_panel.py" />
      <source>Reload</source>
      <translation>重新加载</translation>
    </message>
    <message>
      <location filename="../../console/ui/models_panel.py" />
      <source>Remove</source>
      <translation>移除</translation>
    </message>
    <message>
      <location filename="../../console/ui/models_panel.py" />
      <source>Remove failed: {0}</source>
      <translation>移除失败：{0}</translation>
    </message>
    <message>
      <location filename="../../console/ui/models_panel.py" />
      <source>Remove model</source>
      <translation>移除模型</translation>
    </message>
    <message>
      <location filename="../../console/ui/models_panel.py" />
      <source>Remove {0} from the store?</source>
      <translation>从模型库中移除 {0}？</translation>
    </message>
    <message>
      <location filename="../../console/ui/models_panel.py" />
      <source>Removed {0}</source>
      <translation>已移除 {0}</translation>
    </message>
    <message>
      <location filename="../../console/ui/models_panel.py" />
      <source>Select a model in the table first</source>
      <translation>请先在表格中选择一个模型</translation>
    </message>
    <message>
      <location filename="../../console/ui/models_panel.py" />
      <source>Select a model to see whether it fits.</source>
      <translation>选择一个模型，查看它能否装下。</translation>
    </message>
    <message>
      <location filename="../../console/ui/models_panel.py" />
      <source>The engine is busy ({0}); wait for it to finish</source>
      <translation>引擎正忙（{0}）；请等待其完成</translation>
    </message>
    <message>
      <location filename="../../console/ui/models_panel.py" />
      <source>The planner failed</source>
      <translation>规划器出错</translation>
    </message>
    <message>
      <location filename="../../console/ui/models_panel.py" />
      <source>Unload</source>
      <translation>卸载</translation>
    </message>
    <message>
      <location filename="../../console/ui/models_panel.py" />
      <source>Use in place</source>
      <translation>原位使用</translation>
    </message>
    <message>
      <location filename="../../console/ui/models_panel.py" />
      <source>Weights: {0}</source>
      <translation>权重：{0}</translation>
    </message>
    <message>
      <location filename="../../console/ui/models_panel.py" />
      <source>context {0}</source>
      <translation>上下文 {0}</translation>
    </message>
    <message>
      <location filename="../../console/ui/models_panel.py" />
      <source>default</source>
      <translation>默认</translation>
    </message>
    <message>
      <location filename="../../console/ui/models_panel.py" />
      <source>does not fit</source>
      <translation>装不下</translation>
    </message>
    <message>
      <location filename="../../console/ui/models_panel.py" />
      <source>error</source>
      <translation>错误</translation>
    </message>
    <message>
      <location filename="../../console/ui/models_panel.py" />
      <source>files missing</source>
      <translation>文件缺失</translation>
    </message>
    <message>
      <location filename="../../console/ui/models_panel.py" />
      <source>fits</source>
      <translation>可装下</translation>
    </message>
    <message>
      <location filename="../../console/ui/models_panel.py" />
      <source>fits with changes</source>
      <translation>调整后可装下</translation>
    </message>
    <message>
      <location filename="../../console/ui/models_panel.py" />
      <source>from preset</source>
      <translation>沿用预设</translation>
    </message>
    <message>
      <location filename="../../console/ui/models_panel.py" />
      <source>from preset ({0})</source>
      <translation>沿用预设（{0}）</translation>
    </message>
    <message>
      <location filename="../../console/ui/models_panel.py" />
      <source>max seqs {0}</source>
      <translation>最大序列数 {0}</translation>
    </message>
    <message>
      <location filename="../../console/ui/models_panel.py" />
      <source>model</source>
      <translation>模型</translation>
    </message>
    <message>
      <location filename="../../console/ui/models_panel.py" />
      <source>model default</source>
      <translation>模型默认值</translation>
    </message>
    <message>
      <location filename="../../console/ui/models_panel.py" />
      <source>planner not available</source>
      <translation>规划器不可用</translation>
    </message>
    <message>
      <location filename="../../console/ui/models_panel.py" />
      <source>utilisation {0:.2f}</source>
      <translation>利用率 {0:.2f}</translation>
    </message>
    <message>
      <location filename="../../console/ui/models_panel.py" />
      <source>{0} is loaded; unload it before removing it</source>
      <translation>{0} 已加载；请先卸载再移除</translation>
    </message>
  </context>
  <context>
    <name>MonitorPanel</name>
    <message>
      <location filename="../../console/ui/monitor_panel.py" />
      <source>Device: CPU — {reason}</source>
      <translation>设备：CPU — {reason}</translation>
    </message>
    <message>
      <location filename="../../console/ui/monitor_panel.py" />
      <source>Device: {name} (NVML, driver {driver})</source>
      <translation>设备：{name}（NVML，驱动 {driver}）</translation>
    </message>
    <message>
      <location filename="../../console/ui/monitor_panel.py" />
      <source>Guidance: inference is usually memory-bound; capping the power limit to about 70-80% of the default (nvidia-smi -pl, as administrator) often costs little throughput and avoids thermal throttling. The console shows this only; it never changes driver settings.</source>
      <translation>提示：推理通常受显存带宽限制；把功耗上限设为默认值的 70-80% 左右（以管理员身份运行 nvidia-smi -pl）通常只损失很少的吞吐量，并可避免过热降频。控制台只显示此建议，从不修改驱动设置。</translation>
    </message>
    <message>
      <location filename="../../console/ui/monitor_panel.py" />
      <source>KV {kv:.0f}%</source>
      <translation>KV {kv:.0f}%</translation>
    </message>
    <message>
      <location filename="../../console/ui/monitor_panel.py" />
      <source>RSS {r:.2f} GiB, CPU {c:.0f}%</source>
      <translation>RSS {r:.2f} GiB，CPU {c:.0f}%</translation>
    </message>
    <message>
      <location filename="../../console/ui/monitor_panel.py" />
      <source>VRAM {u:.1f}/{t:.1f} GiB</source>
      <translation>显存 {u:.1f}/{t:.1f} GiB</translation>
    </message>
    <message>
      <location filename="../../console/ui/monitor_panel.py" />
      <source>no NVIDIA GPU</source>
      <translation>没有 NVIDIA GPU</translation>
    </message>
    <message>
      <location filename="../../console/ui/monitor_panel.py" />
      <source>running {r:.0f}, waiting {w:.0f}</source>
      <translation>运行 {r:.0f}，等待 {w:.0f}</translation>
    </message>
    <message>
      <location filename="../../console/ui/monitor_panel.py" />
      <source>seconds ago</source>
      <translation>秒前</translation>
    </message>
    <message>
      <location filename="../../console/ui/monitor_panel.py" />
      <source>throttle: {w}</source>
      <translation>降频：{w}</translation>
    </message>
    <message>
      <location filename="../../console/ui/monitor_panel.py" />
      <source>{g:.0f} tok/s</source>
      <translation>{g:.0f} 词元/秒</translation>
    </message>
    <message>
      <location filename="../../console/ui/monitor_panel.py" />
      <source>{p:.0f}/{l:.0f} W</source>
      <translation>{p:.0f}/{l:.0f} W</translation>
    </message>
    <message>
      <location filename="../../console/ui/monitor_panel.py" />
      <source>{t:.0f} °C</source>
      <translation>{t:.0f} °C</translation>
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
</TS>
