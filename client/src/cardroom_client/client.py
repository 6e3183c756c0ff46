"""The synchronous client: every endpoint of the API as a typed method."""

from __future__ import annotations

import secrets
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import httpx
from pydantic import BaseModel

from . import models as m
from .errors import ProblemError
from .lines import View, parse_view
from .retry import RetryPolicy
from .stream import LiveStream
from .transport import Transport, bearer

Move = Mapping[str, Any] | BaseModel
"""A move body: a dict such as ``{"action": "pass"}`` or one of the move models."""
Decide = Callable[[View], Move | None]
"""Given a seat's view, the move to make (None: nothing to do)."""


MoveAnswer = m.HazariMoveAccepted | m.AziMoveAccepted | m.MurlanMoveAccepted
EventsAnswer = m.HazariEventsPage | m.AziEventsPage | m.MurlanEventsPage


def new_key() -> str:
    """A fresh idempotency key: 24 random bytes, URL-safe (32 characters)."""
    return secrets.token_urlsafe(24)


def move_body(move: Move) -> dict[str, Any]:
    if isinstance(move, BaseModel):
        return move.model_dump(mode="json", exclude_none=True)
    return dict(move)


class Client:
    """A client of one cardroom server.

    Every write carries an idempotency key (drawn for you unless given), so the
    client sends it again safely after a lost answer; ``429`` and ``503`` are
    retried after their ``Retry-After`` (see :class:`RetryPolicy`). A refusal is
    raised as :class:`~cardroom_client.errors.ProblemError`.
    """

    def __init__(
        self,
        base_url: str,
        *,
        client_secret: str | None = None,
        timeout_s: float = 10.0,
        keepalive_s: float = 15.0,
        policy: RetryPolicy | None = None,
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        headers = {"Client-Secret": client_secret} if client_secret else {}
        self.transport = Transport(
            base_url, timeout_s=timeout_s, policy=policy, transport=transport, headers=headers
        )
        self.keepalive_s = keepalive_s

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self.transport.close()

    def _json(self, method: str, path: str, **kw: Any) -> Any:
        return self.transport.send(method, path, **kw).json()

    # -- games ----------------------------------------------------------------------
    def create_game(
        self,
        game: str,
        *,
        options: Mapping[str, Any] | None = None,
        seats: int | None = None,
        bots: Sequence[Mapping[str, Any]] | None = None,
        idempotency_key: str | None = None,
    ) -> m.GameCreated:
        """``POST /games``; ``bots``: ``[{"seat": 1, "name": "bot"}]`` seats house bots."""
        body: dict[str, Any] = {"game": game, "idempotency_key": idempotency_key or new_key()}
        if options:
            body["options"] = dict(options)
        if seats is not None:
            body["seats"] = seats
        if bots:
            body["bots"] = [dict(b) for b in bots]
        return m.GameCreated.model_validate(self._json("POST", "/games", json=body))

    def list_games(
        self,
        *,
        game: str | None = None,
        status: str | None = None,
        limit: int | None = None,
        cursor: str | None = None,
    ) -> m.GamesPage:
        params = {"game": game, "status": status, "limit": limit, "cursor": cursor}
        return m.GamesPage.model_validate(self._json("GET", "/games", params=params))

    def view(self, game_id: str, token: str | None = None) -> View:
        """The public view, or with a seat's ``token`` that seat's (one model per game)."""
        return parse_view(self._json("GET", f"/games/{game_id}", headers=bearer(token)))

    def take_seat(
        self,
        game_id: str,
        name: str,
        *,
        client_seed: str | None = None,
        bot: bool = False,
        idempotency_key: str | None = None,
        player_key: str | None = None,
    ) -> m.SeatGranted:
        """``POST /games/{id}/seats``; with ``player_key`` the seat is bound to the player."""
        body: dict[str, Any] = {"name": name, "idempotency_key": idempotency_key or new_key()}
        if client_seed is not None:
            body["client_seed"] = client_seed
        if bot:
            body["bot"] = True
        data = self._json("POST", f"/games/{game_id}/seats", json=body, headers=bearer(player_key))
        return m.SeatGranted.model_validate(data)

    def move(
        self,
        game_id: str,
        token: str,
        move: Move,
        *,
        expected_version: int | None = None,
        idempotency_key: str | None = None,
    ) -> MoveAnswer:
        body: dict[str, Any] = {
            "move": move_body(move),
            "idempotency_key": idempotency_key or new_key(),
        }
        if expected_version is not None:
            body["expected_version"] = expected_version
        data = self._json("POST", f"/games/{game_id}/moves", json=body, headers=bearer(token))
        return m.MoveAccepted.model_validate(data).root

    def play(
        self, game_id: str, token: str, decide: Decide, view: View | None = None
    ) -> MoveAnswer | None:
        """Decide on ``view`` (read now if None) and send the move at its version.

        A ``409`` (the game moved on) reads the view again and calls ``decide``
        again; None once ``decide`` returns None or the seat has no legal move.
        """
        while True:
            if view is None:
                view = self.view(game_id, token)
            if not view.legal_moves:
                return None
            move = decide(view)
            if move is None:
                return None
            try:
                return self.move(game_id, token, move, expected_version=view.version)
            except ProblemError as exc:
                if exc.status != 409 or exc.code in ("game-over", "table-full"):
                    raise
                view = None

    def events(
        self, game_id: str, token: str | None = None, *, after: int = 0, limit: int | None = None
    ) -> EventsAnswer:
        params = {"after": after, "limit": limit}
        data = self._json("GET", f"/games/{game_id}/events", params=params, headers=bearer(token))
        return m.EventsPage.model_validate(data).root

    def replay(self, game_id: str, token: str | None = None) -> m.Replay:
        data = self._json("GET", f"/games/{game_id}/replay", headers=bearer(token))
        return m.Replay.model_validate(data)

    def verify(self, game_id: str) -> m.Verification:
        return m.Verification.model_validate(self._json("GET", f"/games/{game_id}/verify"))

    def stream(
        self,
        game_id: str,
        token: str | None = None,
        *,
        after: int | None = None,
        views: bool = True,
    ) -> LiveStream:
        """The game's live stream from ``after`` (None: a view of now, then what follows)."""
        cursors = {} if after is None else {game_id: after}
        return LiveStream(
            self.transport,
            f"/games/{game_id}/events",
            bearer(token),
            self.keepalive_s,
            views=views,
            game_id=game_id,
            cursors=cursors,
        )

    # -- players --------------------------------------------------------------------
    def create_player(self) -> m.PlayerCreated:
        """``POST /players``: a player key, shown only in this answer."""
        return m.PlayerCreated.model_validate(self._json("POST", "/players", json={}))

    def my_seats(self, player_key: str) -> m.PlayerSeats:
        """``GET /players/me/seats``: every seat bound to the player, newest first."""
        data = self._json("GET", "/players/me/seats", headers=bearer(player_key))
        return m.PlayerSeats.model_validate(data)

    def player_stream(
        self, player_key: str, *, after: Mapping[str, int] | None = None, views: bool = True
    ) -> LiveStream:
        """``GET /players/me/events``: one stream over every seat bound to the player."""
        return LiveStream(
            self.transport,
            "/players/me/events",
            bearer(player_key),
            self.keepalive_s,
            views=views,
            cursors=dict(after or {}),
        )

    # -- webhooks -------------------------------------------------------------------
    def create_webhook(
        self, game_id: str, token: str, url: str, events: Sequence[str]
    ) -> m.Webhook:
        body = {"url": url, "events": list(events)}
        data = self._json("POST", f"/games/{game_id}/webhooks", json=body, headers=bearer(token))
        return m.Webhook.model_validate(data)

    def webhooks(self, game_id: str, token: str) -> m.WebhookList:
        data = self._json("GET", f"/games/{game_id}/webhooks", headers=bearer(token))
        return m.WebhookList.model_validate(data)

    def delete_webhook(self, game_id: str, token: str, hook_id: str) -> None:
        self.transport.send("DELETE", f"/games/{game_id}/webhooks/{hook_id}", headers=bearer(token))

    def rotate_webhook(self, game_id: str, token: str, hook_id: str) -> m.Webhook:
        path = f"/games/{game_id}/webhooks/{hook_id}/rotate"
        return m.Webhook.model_validate(self._json("POST", path, headers=bearer(token)))

    def deliveries(self, game_id: str, token: str, hook_id: str) -> m.DeliveryList:
        path = f"/games/{game_id}/webhooks/{hook_id}/deliveries"
        return m.DeliveryList.model_validate(self._json("GET", path, headers=bearer(token)))

    def redeliver(self, game_id: str, token: str, hook_id: str, delivery_id: str) -> m.Delivery:
        path = f"/games/{game_id}/webhooks/{hook_id}/deliveries/{delivery_id}/redeliver"
        return m.Delivery.model_validate(self._json("POST", path, headers=bearer(token)))

    # -- the rest -------------------------------------------------------------------
    def fairness_report(
        self, *, player: str | None = None, game: str | None = None
    ) -> m.FairnessReport:
        params = {"player": player, "game": game}
        return m.FairnessReport.model_validate(self._json("GET", "/fairness/report", params=params))

    def healthz(self) -> m.Health:
        return m.Health.model_validate(self._json("GET", "/healthz", retry=False))

    def readyz(self) -> m.Ready:
        return m.Ready.model_validate(self._json("GET", "/readyz", retry=False))

    def livez(self) -> m.Live:
        return m.Live.model_validate(self._json("GET", "/livez", retry=False))

    def openapi(self) -> dict[str, Any]:
        data: dict[str, Any] = self._json("GET", "/openapi.json")
        return data
