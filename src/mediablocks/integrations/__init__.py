"""Where agents' media comes from: MCP tool results, LangChain and pydantic-ai messages.

One module per integration (`mcp`, `langchain`, `pydantic_ai`); each reads the framework's
objects by their shape and imports the framework only where it must build its objects, so
``import mediablocks`` loads none of them. The agent hooks that subclass a framework's own
classes live in modules of their own (`langchain_agent`), imported by the user.
"""
