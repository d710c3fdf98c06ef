"""Rating maths of the bot's league (pure Python, stdlib only)."""
