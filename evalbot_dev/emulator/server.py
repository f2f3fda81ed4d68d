"""Run an emulator under uvicorn in a background thread, on a free 127.0.0.1 port.

    with EmulatorServer(state) as hub:
        api = HfApi(endpoint=hub.url, token="hf_alice")
        ...
        hub.state, hub.faults, hub.dispatcher   # direct access for assertions and faults

The socket is bound before uvicorn starts, so the URL is known and there is no port race.
A second socket, on another free port, is the CDN origin LFS downloads are redirected to
(`hub.cdn_url`, `hub.cdn_requests()`).
"""

from __future__ import annotations

import socket
import threading
import time
from dataclasses import dataclass
from types import TracebackType

import uvicorn

from evalbot_dev.emulator.app import Emulator
from evalbot_dev.emulator.cdn import CdnRequest
from evalbot_dev.emulator.delivery import DeliveryRecord, DeliverySettings, Dispatcher
from evalbot_dev.emulator.faults import Faults
from evalbot_dev.emulator.listen import listening_socket
from evalbot_dev.emulator.model import RepoType
from evalbot_dev.emulator.state import HubState


@dataclass(frozen=True)
class CommentView:
    id: str
    author: str
    content: str
    hidden: bool


class EmulatorServer:
    def __init__(
        self,
        state: HubState | None = None,
        *,
        host: str = "127.0.0.1",
        port: int = 0,
        delivery: DeliverySettings | None = None,
        log_level: str = "warning",
        listen: socket.socket | None = None,
    ) -> None:
        """`listen`: a listening socket to serve on (one a parent process bound and passed
        down, `python -m evalbot_dev.emulator --fd`) instead of binding `host`:`port`."""
        self.emulator = Emulator(state, delivery)
        self.host = host
        self.port = port
        self.log_level = log_level
        self._listen_on = listen
        self._sockets: list[socket.socket] = []
        self._server: uvicorn.Server | None = None
        self._thread: threading.Thread | None = None

    @property
    def state(self) -> HubState:
        return self.emulator.state

    @property
    def faults(self) -> Faults:
        return self.emulator.faults

    @property
    def dispatcher(self) -> Dispatcher:
        return self.emulator.dispatcher

    @property
    def url(self) -> str:
        return self.emulator.endpoint

    @property
    def cdn_url(self) -> str | None:
        """The CDN origin (`http://127.0.0.1:PORT`), once started."""
        return self.emulator.state.cdn.endpoint

    def _listen(self, port: int) -> socket.socket:
        sock = listening_socket(port, self.host)
        self._sockets.append(sock)
        return sock

    def start(self) -> EmulatorServer:
        if self._listen_on is not None:
            sock, self._listen_on = self._listen_on, None  # a later start binds self.port
            self._sockets.append(sock)
            self.host = sock.getsockname()[0]
        else:
            sock = self._listen(self.port)
        self.port = sock.getsockname()[1]
        self.emulator.endpoint = f"http://{self.host}:{self.port}"
        cdn_port = self._listen(0).getsockname()[1]
        self.emulator.cdn_port = cdn_port
        self.emulator.state.cdn.endpoint = f"http://{self.host}:{cdn_port}"
        config = uvicorn.Config(
            self.emulator.asgi,
            interface="asgi3",
            log_level=self.log_level,
            access_log=False,
            lifespan="off",
            timeout_graceful_shutdown=2,
            # The stdlib loop, not uvloop: this server runs in a background thread, and a
            # uvloop loop still alive in a thread at interpreter exit was seen to crash the
            # process (SIGSEGV) under load. The emulator does not need uvloop's speed.
            loop="asyncio",
        )
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(
            target=self._server.run,
            kwargs={"sockets": list(self._sockets)},
            name="hub-emulator",
            daemon=True,
        )
        self._thread.start()
        deadline = time.monotonic() + 10
        while not self._server.started:
            if time.monotonic() > deadline or not self._thread.is_alive():
                raise RuntimeError("the Hub emulator did not start")
            time.sleep(0.01)
        self.emulator.dispatcher.start()
        return self

    # -- conveniences for assertions --------------------------------------------------------

    def comments(self, repo_id: str, num: int, repo_type: RepoType = "model") -> list[CommentView]:
        """The comments of a discussion or PR, oldest first (hidden ones included, flagged)."""
        state = self.emulator.state
        with state.locked():
            discussion = state.discussion(state.find_repo(repo_type, repo_id), num)
            return [
                CommentView(
                    event.id, event.author, str(event.data["raw"]), bool(event.data["hidden"])
                )
                for event in discussion.events
                if event.type == "comment"
            ]

    def counters(self) -> dict[str, int]:
        """Requests served so far, by route name (e.g. `discussions.comment`)."""
        return self.emulator.faults.count_snapshot()

    def rate_limited(self) -> dict[str, int]:
        """429s answered so far, by bucket (`api`, `resolvers`): quotas and route faults."""
        return self.emulator.faults.rate_limited_snapshot()

    def cdn_requests(self) -> list[CdnRequest]:
        """Every request the CDN origin received, oldest first (with whether it carried auth)."""
        return self.emulator.state.cdn.requests()

    def deliveries(self) -> list[DeliveryRecord]:
        """The webhook delivery log: one record per attempt, drop or final failure."""
        return self.emulator.dispatcher.log()

    def wait(self) -> None:
        """Block until the server thread ends (the CLI's foreground loop; Ctrl-C interrupts)."""
        while self._thread is not None and self._thread.is_alive():
            self._thread.join(timeout=0.5)

    def stop(self) -> None:
        self.emulator.dispatcher.stop()
        if self._server is not None:
            self._server.should_exit = True
        if self._thread is not None:
            self._thread.join(timeout=10)
        for sock in self._sockets:
            sock.close()
        self._sockets.clear()
        self.emulator.state.cdn.endpoint = None
        self._server = self._thread = None

    def __enter__(self) -> EmulatorServer:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.stop()
