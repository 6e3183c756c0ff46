"""Turn webhooks: cardroom tells a seat's own service when something happens at its table.

- :mod:`.notices`: which webhook events an append decides (the append script
  queues their deliveries in the same step, :class:`service.store.append.Hooks`);
- :mod:`.payloads`: the body of a delivery (no card, token or seed);
- :mod:`.receiver`: signatures, and an example receiver (standard library only);
- :mod:`.urls`: which URLs may be called, checked after DNS resolution;
- :mod:`.outbound`: one HTTP attempt, to the address checked;
- :mod:`.backoff`: when a failed delivery is tried again;
- :mod:`.delivery`: a worker's delivery of one queued delivery, and its log;
- :mod:`.subscriptions`: what a seat may do (subscribe, list, delete, rotate,
  read the log, redeliver).
"""

from __future__ import annotations

EVENTS = ("turn_started", "hand_ended", "game_ended", "seat_away")
"""The events a subscription may ask for."""
