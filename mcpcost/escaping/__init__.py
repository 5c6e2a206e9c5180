"""One escaping boundary per output kind: terminal, CI log, Markdown."""
