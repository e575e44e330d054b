"""The chat core: sessions, conversations and their pictures, tools, MCP, approval, thinking. No Qt."""
