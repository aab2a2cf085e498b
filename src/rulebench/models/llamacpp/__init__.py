"""The llama.cpp backend: GGUF models on the CPU, prefix reuse and batched decoding."""
