"""``python -m gdlcheck``."""

from gdlcheck.cli import main

main()
