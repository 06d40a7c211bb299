"""Payloads that :class:`~memlane.memory.Memory` builds and ``surface/`` prints: ``status``, ``doctor``,
``context`` and the entities. They read the stages below; they never import ``memory``, ``surface`` or ``ui``."""
