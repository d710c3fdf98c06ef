"""Discord adapters: each cog parses interactions, calls app/ and presents the results."""
