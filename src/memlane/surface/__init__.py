"""The user-facing surfaces: the CLI, the agent tools, the MCP server, status and doctor."""
