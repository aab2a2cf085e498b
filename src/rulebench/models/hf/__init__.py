"""The transformers backend: batched generation and scoring on CPU or GPU; gradients for GCG."""
