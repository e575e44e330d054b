"""Quantization jobs: AWQ int4 through AutoAWQ in a child process, and the quality/speed gate.

Nothing here imports Qt. The heavy libraries (torch, awq, vllm) are imported inside functions so
that importing the package stays cheap for the CLI and the GUI.
"""
