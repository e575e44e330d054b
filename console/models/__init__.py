"""Local models: the store and its registry, inspection of checkpoints, GGUF and HF imports."""
