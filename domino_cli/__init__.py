"""The `domino` command (domino_cli.main): the composition root of the product."""
