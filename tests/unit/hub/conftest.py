from __future__ import annotations

from collections.abc import Iterator

import pytest

from bot.hub.client import HfHubClient
from tests.unit.hub.fake_hub import FakeHub, install, sample_details


@pytest.fixture
def hub() -> FakeHub:
    fake = FakeHub()
    fake.details[("acme/model-7b", 3)] = sample_details()
    return fake


@pytest.fixture
def client(hub: FakeHub) -> Iterator[HfHubClient]:
    for api in install(hub):
        yield HfHubClient(api)
