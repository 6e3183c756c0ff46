"""Configuration from environment variables (``CARDROOM_*``), validated.

Every setting is documented in ``docs/operations.md``; a bad value stops the
process at start with a message naming the variable.
"""

from __future__ import annotations

from functools import cache
from typing import Final, Literal

from pydantic import Field, SecretStr, ValidationError, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

CLUSTER_SCHEMES: Final = ("redis+cluster://", "rediss+cluster://")
RATE_PATTERN: Final = r"(?i)^\s*[1-9]\d*\s*(/|per)\s*(second|minute|hour)s?\s*$"
"""A rate budget: ``N/second``, ``N/minute`` or ``N/hour`` (see service/budgets.py)."""


class WebhookSettings(BaseSettings):
    """The turn webhooks' settings (``docs/webhooks.md``), a part of :class:`Settings`."""

    model_config = SettingsConfigDict(env_prefix="CARDROOM_", extra="ignore")

    public_url: str = Field(
        default="http://127.0.0.1:8000",
        description=(
            "The address players reach cardroom at: webhook payloads link to the table's "
            "page under it."
        ),
    )
    limit_webhooks: str = Field(
        default="30/hour",
        pattern=RATE_PATTERN,
        description="Webhook subscriptions made per client address.",
    )
    webhooks_per_game: int = Field(
        default=16, ge=1, le=256, description="Webhook subscriptions a game may have at once."
    )
    webhooks_per_seat: int = Field(
        default=2, ge=1, le=16, description="Webhook subscriptions a seat may have at once."
    )
    webhook_http_loopback: bool = Field(
        default=False,
        description=(
            "Allow webhook URLs to loopback addresses (http or https), for development. "
            "Never on a shared server."
        ),
    )
    webhook_allow: str = Field(
        default="",
        description=(
            "Comma-separated hosts (`.example.org` for a domain), addresses or networks: "
            "when set, webhooks may call only these (a network named here may be private)."
        ),
    )
    webhook_deny: str = Field(
        default="",
        description="Comma-separated hosts, domains, addresses or networks webhooks never call.",
    )
    webhook_timeout_s: float = Field(
        default=5.0, gt=0, le=30, description="The longest one webhook attempt may take in all."
    )
    webhook_reply_bytes: int = Field(
        default=4096, ge=0, le=1024 * 1024, description="Bytes of a receiver's reply read."
    )
    webhook_follow_redirects: int = Field(
        default=0,
        ge=0,
        le=5,
        description="Redirects a webhook attempt follows (each checked as the URL is); 0: none.",
    )
    webhook_retry_base_s: float = Field(
        default=10.0, gt=0, le=3600, description="The first retry's wait; each doubles it."
    )
    webhook_retry_max_s: float = Field(
        default=3600.0, gt=0, le=86_400, description="The longest wait between two retries."
    )
    webhook_retry_window_s: float = Field(
        default=86_400.0,
        gt=0,
        le=7 * 86_400,
        description=(
            "How long deliveries other than turn_started are retried after their event "
            "(turn_started: until the turn's deadline)."
        ),
    )
    webhook_pause_after: int = Field(
        default=10,
        ge=1,
        le=1000,
        description="Failed attempts in a row after which a subscription is paused.",
    )
    webhook_lease_s: float = Field(
        default=30.0,
        gt=0,
        le=600,
        description=(
            "How long a worker holds a delivery it is sending; one lost with its worker "
            "is sent again this much later."
        ),
    )


class Settings(WebhookSettings):
    model_config = SettingsConfigDict(env_prefix="CARDROOM_", extra="ignore")

    redis_url: str | None = Field(
        default=None,
        description=(
            "Redis of the event store. Unset: `cardroom serve` runs its own redis-server "
            "on CARDROOM_DATA_DIR (an in-process fake Redis if redis-server is missing)."
        ),
    )
    data_dir: str | None = Field(
        default=None,
        description=(
            "Where `cardroom serve` keeps its games when CARDROOM_REDIS_URL is unset (a "
            "redis-server child process's files). Unset: $XDG_DATA_HOME/cardroom, "
            "else ~/.local/share/cardroom."
        ),
    )
    redis_cluster: bool = Field(
        default=False,
        description=(
            "Treat CARDROOM_REDIS_URL as a Redis Cluster node (implied by a "
            "`redis+cluster://` URL)."
        ),
    )
    redis_wait_replicas: int = Field(
        default=0,
        ge=0,
        le=16,
        description=(
            "Replicas that must hold each append before it is acknowledged (Redis WAIT); "
            "0: do not wait."
        ),
    )
    redis_wait_timeout_ms: int = Field(
        default=1000,
        ge=1,
        le=60_000,
        description="How long an append waits for CARDROOM_REDIS_WAIT_REPLICAS replicas.",
    )
    redis_aof_acl_check: Literal["refuse", "warn", "off"] = Field(
        default="refuse",
        description=(
            "At start, check that Redis would keep the service's writes across a restart: "
            "with the AOF on, its default user must be allowed every write the service "
            "makes in transactions (service/aofcheck.py). refuse: stop if not; warn: log "
            "an error and run (a Redis with the fix, redis/redis#14545); off: do not check."
        ),
    )
    queue_url: str | None = Field(
        default=None,
        description="Redis used as the RQ broker (standalone). Unset: the event store's Redis.",
    )
    queue_name: str = Field(default="cardroom", description="RQ queue name.")
    host: str = Field(default="127.0.0.1", description="Address `cardroom serve` binds.")
    port: int = Field(default=8000, ge=1, le=65535, description="Port `cardroom serve` binds.")
    bot_delay_s: float = Field(
        default=0.5, ge=0, le=30, description="Thinking delay before a bot's move."
    )
    max_body_bytes: int = Field(
        default=64 * 1024, ge=1024, le=16 * 1024 * 1024, description="Largest request body."
    )
    rate_limit: str = Field(
        default="50/second",
        pattern=RATE_PATTERN,
        description=(
            "Requests per client address and API process, for every request without a "
            "budget of its own (counted in memory): a flood guard."
        ),
    )
    limit_moves: str = Field(
        default="60/minute", pattern=RATE_PATTERN, description="Moves per seat of a game."
    )
    limit_games: str = Field(
        default="20/minute", pattern=RATE_PATTERN, description="Games opened per client address."
    )
    limit_seats: str = Field(
        default="60/minute", pattern=RATE_PATTERN, description="Seats taken per client address."
    )
    limit_reads: str = Field(
        default="60/minute",
        pattern=RATE_PATTERN,
        description=(
            "Replays and verifications (GET …/replay, …/verify) per client address; "
            "a page of 100 events or more costs one per 100 (one for an ended game's)."
        ),
    )
    stream_keepalive_s: float = Field(
        default=15, gt=0, le=300, description="Keep-alive interval of live event streams."
    )
    stream_write_timeout_s: float = Field(
        default=30,
        gt=0,
        le=600,
        description=(
            "How long a write to a live stream's client may block (a client that stopped "
            "reading, a half-open connection) before the stream is dropped."
        ),
    )
    stream_max_pending: int = Field(
        default=256,
        ge=1,
        le=100_000,
        description=(
            "Batches of events a live stream may have queued, not yet written, before it "
            "is dropped as too slow (its client resumes with ?after=)."
        ),
    )
    stream_gc_freeze_every: int = Field(
        default=0,
        ge=0,
        le=1_000_000,
        description=(
            "Live streams opened between two freezes of what the process holds out of the "
            "garbage collector's full passes (their pause stops every stream); 0: never. "
            "The stream server's config sets 250."
        ),
    )
    player_stream_seats: int = Field(
        default=64,
        ge=1,
        le=1024,
        description="Games one player's live stream (GET /players/me/events) follows at once.",
    )
    abandon_after_s: float = Field(
        default=3600,
        ge=0,
        le=30 * 86_400,
        description=(
            "A started game nobody has acted in for this long (no move by a person) "
            "ends as abandoned; 0: never."
        ),
    )
    streams_per_address: int = Field(
        default=16,
        ge=1,
        le=100_000,
        description="Live streams one client address may hold open at once, per process.",
    )
    streams_per_game: int = Field(
        default=200,
        ge=1,
        le=100_000,
        description="Spectators' live streams of one game a process holds open at once.",
    )
    streams_max: int = Field(
        default=2000,
        ge=1,
        le=100_000,
        description="Live streams one process holds open at once, all games together.",
    )
    streams_per_seat: int = Field(
        default=3,
        ge=1,
        le=100,
        description="Live streams one seat may hold open at once, per process (kept for it).",
    )
    streams_spectator_share: float = Field(
        default=0.75,
        gt=0,
        le=1,
        description=(
            "Share of CARDROOM_STREAMS_MAX that spectators' streams may take; the rest is "
            "kept for seats."
        ),
    )
    streams_poll_after_s: int = Field(
        default=5,
        ge=1,
        le=300,
        description="A client refused a live stream polls its view this often meanwhile.",
    )
    streams_retry_after_s: int = Field(
        default=30,
        ge=1,
        le=3600,
        description="A client refused a live stream tries the stream again after this long.",
    )
    proxies: int = Field(
        default=0,
        ge=0,
        le=8,
        description=(
            "Reverse proxies in front of the API and stream server whose X-Forwarded-For "
            "is trusted for the client's address (rate limits, stream caps)."
        ),
    )
    idempotency_ttl_s: int = Field(
        default=86_400, ge=60, description="How long an idempotency key is remembered."
    )
    cors_origins: str = Field(
        default="", description="Comma-separated origins allowed by CORS; empty: CORS off."
    )
    job_retry_backoff_s: str = Field(
        default="1,5,15",
        pattern=r"^\s*(\d+(\.\d+)?\s*(,\s*\d+(\.\d+)?\s*)*)?$",
        description="Seconds before each retry of a failed job (comma-separated; empty: none).",
    )
    redis_socket_timeout_s: float = Field(
        default=1.0,
        gt=0,
        le=60,
        description=(
            "How long a Redis command may take before it fails (the API then answers 503); "
            "raised to fit CARDROOM_REDIS_WAIT_TIMEOUT_MS when waiting for replicas."
        ),
    )
    redis_connect_timeout_s: float = Field(
        default=1.0, gt=0, le=60, description="How long connecting to Redis may take."
    )
    followup_lease_s: float = Field(
        default=5.0,
        ge=0.5,
        le=300,
        description=(
            "Lease of a game's follow-up marker and of a claimed timer: a follow-up lost "
            "with its worker is retried this long after."
        ),
    )
    followup_drains: int = Field(
        default=0,
        ge=0,
        le=1_000,
        description=(
            "How many drain jobs may serve the games' follow-ups at once; 0: as many as "
            "the worker processes listening on the queue (counted every 10 s)."
        ),
    )
    followup_linger_s: float = Field(
        default=0.2,
        ge=0,
        le=5,
        description=(
            "How long a drain job that has served a follow-up waits for the next before it "
            "ends (the embedded worker's drains do not wait)."
        ),
    )
    project_on_append: bool = Field(
        default=True,
        description=(
            "Whether a move that leaves nothing for the workers to do but fold it (no deal, "
            "settlement, bot or end of game follows) is projected by its own append, in the "
            "same script, when no follow-up of its game is pending; a standalone Redis only "
            "(on a cluster every append is projected by the workers)."
        ),
    )
    timer_poll_s: float = Field(
        default=0.25,
        gt=0,
        le=10,
        description="How often each worker and the scheduler look for due timers.",
    )
    reconcile_interval_s: float = Field(
        default=2.0, gt=0, le=300, description="Pause between two passes of the reconciler."
    )
    worker_heartbeat_max_age_s: float = Field(
        default=60,
        ge=2,
        le=3600,
        description=(
            "How recent a worker's heartbeat must be for /readyz of the API (at least one) "
            "and for `cardroom worker --check` (this host's); workers beat at least every "
            "half of it."
        ),
    )
    reconcile_batch: int = Field(
        default=200, ge=1, le=10_000, description="Games one pass of the reconciler checks at most."
    )
    redis_password_file: str | None = Field(
        default=None,
        description=(
            "File holding the Redis password (e.g. a container secret); the URL's user "
            "name, if any, goes with it. Unset: the password of the URL, if any."
        ),
    )
    seed_keys: SecretStr | None = Field(
        default=None,
        description=(
            "Keys sealing server seeds at rest: `<id>:<base64 of 32 bytes>`, comma-separated; "
            "the first seals, all open. Unset: CARDROOM_SEED_KEYS_FILE, else (with a real "
            "Redis) seeds are stored unencrypted."
        ),
    )
    seed_keys_file: str | None = Field(
        default=None, description="File holding CARDROOM_SEED_KEYS (one key a line)."
    )
    archive_url: str | None = Field(
        default=None,
        description=(
            "Where finished games are archived (a directory or an fsspec URL, e.g. "
            "file:///srv/cardroom-archive, s3://bucket/cardroom). Unset: games stay in Redis."
        ),
    )
    archive_after_s: int = Field(
        default=7 * 86_400,
        ge=0,
        description="Age of a finished game's last event before it is archived.",
    )
    unjoined_ttl_s: int = Field(
        default=1800,
        ge=60,
        description=(
            "How long a table that has not started (a seat still free) is kept after its "
            "last seat was taken, or its creation; then it is deleted (410 for a day)."
        ),
    )
    retention_interval_s: int = Field(
        default=60, ge=1, le=86_400, description="How often the workers run the retention pass."
    )
    memory_warn_ratio: float = Field(
        default=0.8,
        gt=0,
        le=1,
        description="Share of Redis maxmemory past which the workers log a warning.",
    )
    worker_metrics_port: int = Field(
        default=9101,
        ge=0,
        le=65535,
        description=(
            "Port on which `cardroom worker` serves its Prometheus metrics (GET /metrics; "
            "the retention pass's among them); 0: none."
        ),
    )
    scheduler_metrics_port: int = Field(
        default=9102,
        ge=0,
        le=65535,
        description="Port on which `cardroom scheduler` serves its Prometheus metrics; 0: none.",
    )
    metrics_host: str = Field(
        default="0.0.0.0",
        description=(
            "Address the worker's and the scheduler's metrics ports bind (keep them off "
            "the public network)."
        ),
    )
    log_level: Literal["DEBUG", "INFO", "WARNING", "ERROR"] = Field(
        default="INFO", description="Log level of the JSON logs."
    )

    @model_validator(mode="after")
    def _cluster_url(self) -> Settings:
        """A ``redis+cluster://`` URL names a cluster by itself, so the flag cannot
        be forgotten (a standalone client on a cluster node fails on most keys)."""
        if self.redis_url is not None and self.redis_url.startswith(CLUSTER_SCHEMES):
            self.redis_cluster = True
        return self

    @property
    def retry_intervals(self) -> list[int]:
        return [round(float(x)) for x in self.job_retry_backoff_s.split(",") if x.strip()]

    def redis_password(self) -> str | None:
        """The password of CARDROOM_REDIS_PASSWORD_FILE (trailing new line dropped)."""
        if self.redis_password_file is None:
            return None
        with open(self.redis_password_file, encoding="utf-8") as f:
            return f.read().rstrip("\r\n")

    @property
    def embedded(self) -> bool:
        return self.redis_url is None


class ConfigError(ValueError):
    """A ``CARDROOM_*`` variable with a bad value."""


def load_settings(**overrides: object) -> Settings:
    try:
        return Settings(**overrides)  # type: ignore[arg-type]
    except ValidationError as exc:
        problems = "; ".join(
            f"CARDROOM_{'_'.join(str(p) for p in err['loc']).upper()}: {err['msg']}"
            for err in exc.errors()
        )
        raise ConfigError(f"bad configuration: {problems}") from None


@cache
def settings() -> Settings:
    return load_settings()
