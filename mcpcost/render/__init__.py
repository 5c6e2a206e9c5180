"""Rendering an audit: text, JSON, Markdown and SARIF."""
