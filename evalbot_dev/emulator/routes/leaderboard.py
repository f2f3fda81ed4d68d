"""`GET /api/datasets/{ns}/{name}/leaderboard[?base_model=bool]` (`HfApi.get_dataset_leaderboard`).

`base_model` is accepted and has no effect: the emulator's models declare no `base_model`.
"""

from __future__ import annotations

from starlette.responses import Response

from evalbot_dev.emulator.http import Ctx, json_response, route
from evalbot_dev.emulator.leaderboard import leaderboard


@route("GET", "/api/datasets/{ns}/{name}/leaderboard", "datasets.leaderboard")
async def dataset_leaderboard(ctx: Ctx) -> Response:
    benchmark = ctx.state.get_repo(ctx.token, "dataset", f"{ctx.params['ns']}/{ctx.params['name']}")
    with ctx.state.locked() as state:
        rows = leaderboard(state, benchmark)
    return json_response(rows)


ROUTES = [dataset_leaderboard]
