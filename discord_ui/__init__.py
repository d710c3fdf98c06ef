"""The Discord pieces the cogs share: the client, the error boundary, boards, custom ids, options.

None of them is a cog: they hold no commands, so every cog may use them without depending on
another cog.
"""
