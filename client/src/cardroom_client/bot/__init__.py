"""The bot kit: ``cardroom-bot run mybot.py`` plays ``choose(view) -> move``."""

from .runner import Choose, Runner
from .state import State, TableState

__all__ = ["Choose", "Runner", "State", "TableState"]
