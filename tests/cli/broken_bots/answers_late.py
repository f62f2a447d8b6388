"""Broken: thinks 1.3 s over its first move, longer than the kit's short turn clock (1 s);
then quick (so that the test's match does not crawl)."""

import time

from base import Bot, main

THINK_S = 1.3


class AnswersLate(Bot):
    def on_turn(self, state) -> None:
        if not self.answered:
            time.sleep(THINK_S)
        super().on_turn(state)


if __name__ == "__main__":
    main(AnswersLate)
