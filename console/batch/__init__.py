"""Batch inference: read a file of prompts, run it on an engine, write results as they
complete.

- :mod:`console.batch.formats` reads JSONL of prompts, CSV, and the OpenAI batch request format
  that ``vllm run-batch`` reads, reporting malformed lines by number.
- :mod:`console.batch.results` writes the OpenAI batch output format (append + fsync, one line
  per finished request), reads it back for resume, and exports CSV.
- :mod:`console.batch.runner` runs a batch with bounded concurrency, progress, cancel and resume.
"""
