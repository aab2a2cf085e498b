"""The OpenAI-compatible HTTP backend: endpoints, replicas, rate limits, retries."""
