"""The use cases of the bot, without Discord: challenges, games, the computer's turns, reports,
settings. Front ends (the Discord cogs, the demo, tests, a terminal client) call these and show
what they return; a use case that cannot be done raises a :class:`app.errors.Refusal` carrying
the message for the person who asked."""
