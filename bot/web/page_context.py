"""What the pages need, built once per process (`bot.web.wiring.build_context`)."""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

import redis

from bot.adapters.collections_store import StoredCollection
from bot.convert.mapping import MappingTable
from bot.hub.repo_results import ResultsReader
from bot.tokens.issuers import IssuerRegistry
from bot.validation.policy import DEFAULT_POLICY, Policy
from bot.web.benchmarks import CachedHubBenchmarks, LocalBenchmarks
from bot.web.guards import OperatorGate
from bot.web.hubsignin import HubSignIn


@dataclass(frozen=True, slots=True)
class WebContext:
    """The process's clients and settings; every endpoint module reads them from here."""

    #: None for `evalbot playground`: no history, status or collections, only what needs none.
    redis: redis.Redis | None
    queue: str
    hub_url: str
    bot_name: str
    #: Who is an operator (`bot.web.guards`), and "Sign in with Hugging Face" when set up.
    operators: OperatorGate
    #: The Hub's, cached (`evalbot web`); `evalbot validate`'s source (`evalbot playground`).
    benchmarks: CachedHubBenchmarks | LocalBenchmarks
    registry: IssuerRegistry
    policy: Policy = DEFAULT_POLICY
    sample_interval_s: float = 60.0
    playground_slots: int = 2
    playground_max_benchmarks: int = 20
    docs_url: str | None = None  # where docs/*.md are published; else their paths are shown
    clock: Callable[[], float] = time.time
    #: The collections a model's standing can be shown in (system, and the bot config's
    #: `collections_dir`), and the Hub reader of a model's results for them.
    collections: Mapping[str, StoredCollection] = field(default_factory=dict)
    results_reader: ResultsReader | None = None
    #: The table `evalbot convert` reads, so the playground converts a framework's output as
    #: the command would; None: outputs are checked as results files (and refused as such).
    mappings: MappingTable | None = None
    signin: HubSignIn | None = None
    #: The pages' public address is https: operator cookies are `Secure` whatever a request
    #: reads (`WebConfig.public_https`).
    public_https: bool = False
