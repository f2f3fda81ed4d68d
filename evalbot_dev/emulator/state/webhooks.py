"""Registered webhooks, which of them a change fires, and the listeners that deliver them."""

from __future__ import annotations

from evalbot_dev.emulator import access
from evalbot_dev.emulator.model import (
    READ,
    Token,
    Webhook,
)
from evalbot_dev.emulator.state.accounts import Accounts
from evalbot_dev.emulator.state.base import (
    Trigger,
)


class Webhooks(Accounts):
    """Registered webhooks, which of them a change fires, and the listeners that deliver them."""

    def add_webhook(
        self,
        owner: str,
        url: str,
        watched: list[dict[str, str]],
        domains: list[str],
        secret: str | None,
    ) -> Webhook:
        with self.lock:
            webhook = Webhook(
                self.ids.new(), owner, url, [dict(item) for item in watched], list(domains), secret
            )
            self.webhooks[webhook.id] = webhook
            return webhook

    def webhooks_for(self, trigger: Trigger) -> list[Webhook]:
        """Enabled webhooks that watch the trigger's repo (or its namespace) and its domain."""
        domain = trigger.scope.split(".", 1)[0]
        repo = trigger.repo
        chosen = []
        for webhook in self.webhooks.values():
            if webhook.disabled or domain not in webhook.domains:
                continue
            owner_token = Token("", webhook.owner, "read", frozenset({READ}), "")
            if not access.can_read(self.members, owner_token, repo):
                continue
            for item in webhook.watched:
                kind, name = item.get("type"), item.get("name", "")
                if (kind in ("user", "org") and name == repo.namespace) or (
                    kind == repo.type and name.lower() == repo.full_name.lower()
                ):
                    chosen.append(webhook)
                    break
        return chosen

    def _emit(self, trigger: Trigger) -> None:
        for listener in self.listeners:
            listener(trigger)
