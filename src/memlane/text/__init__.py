"""Pure string functions every floor above reads with: the one Markdown reader (``markdown``), keywords and
stopwords (``keywords``), time words (``timeparse``), content hashes (``hashing``) and whose words a bullet holds
(``origin``). Nothing here does I/O or imports memlane beyond ``errors``."""
