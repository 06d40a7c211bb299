"""Which files are memory, how they become chunks and keys, and keeping the index in step with them."""
