"""Pure measurement core: canonical form, tokenizer, data model, bands and badges.

Nothing in this package starts processes or opens network connections.
"""
