"""Broken: when the stream breaks (an engine restart), it gives up instead of reconnecting."""

from base import Bot, main


class NeverReconnects(Bot):
    def on_broken(self, error) -> bool:
        return False


if __name__ == "__main__":
    main(NeverReconnects)
