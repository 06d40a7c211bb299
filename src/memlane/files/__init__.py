"""Everything that writes Markdown or moves it: notes, generated blocks, the flush, backup, archive."""
