"""`config/bot.yaml`, read by one reader: parsed without I/O into a typed, frozen `BotConfig`
(`document`, `sections`), read from disk once at a process's start (`files`)."""
