"""`config/bot.yaml`, read by one reader into a typed, frozen `BotConfig`."""
