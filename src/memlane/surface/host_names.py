"""The hosts ``memlane install`` knows, by name: the CLI's options list them without loading the installer
(its host-file editors and the writer), so a hook starts fast (docs/design/capture.md §47)."""

HOSTS = ("claude-code", "cursor", "claude-desktop", "codex", "openclaw")
