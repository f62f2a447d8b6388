"""Broken: after a refusal it sends the refused move again, unchanged, instead of answering
the TurnRequest the engine sends again."""

from base import Bot, main


class ResendsRefused(Bot):
    def on_refusal(self, answer) -> None:
        refused = self.answered.get(answer.submitted_version)
        if refused is not None:
            self.outbox.put(refused)

    def on_turn(self, state) -> None:
        if state.version not in self.answered:     # each version once, whatever happened
            super().on_turn(state)
if __name__ == "__main__":
    main(ResendsRefused)
