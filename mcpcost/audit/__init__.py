"""``audit``: discover MCP client configs, measure their servers, report, diff and gate."""
