"""``python -m gdlcheck``."""

from gdlcheck.cli import main

if __name__ == "__main__":
    main()
