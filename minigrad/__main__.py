"""Command line: ``python -m minigrad --version`` and ``python -m minigrad check``."""

from __future__ import annotations

import argparse
import sys

import minigrad


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m minigrad", description=__doc__)
    parser.add_argument("--version", action="version", version=f"minigrad {minigrad.__version__}")
    parser.parse_args(argv)
    parser.print_help()
    return 0


if __name__ == "__main__":
    sys.exit(main())
