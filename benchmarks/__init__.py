"""``make bench``: throughput and latency figures, printed side by side with yardsticks."""
