"""Command line: ``python -m minigrad SUBCOMMAND``.

    python -m minigrad check                 # sweep every op through the battery (see minigrad/cli/check.py)
    python -m minigrad merge shard-*.json --json all.json   # merge the JSON reports of CI shards
    python -m minigrad exercise --list       # exercises graded by the checker (minigrad/exercises/cli.py)

Each subcommand is a module (of ``minigrad.cli``, or ``minigrad.exercises.cli``) with ``HELP``,
``add_arguments(parser)`` and ``run(args) -> exit status``; ``SUBCOMMANDS``
lists them. Exit status 2 on bad arguments.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

import minigrad

# subcommand -> the module that implements it
SUBCOMMANDS: dict[str, str] = {
    "check": "minigrad.cli.check",
    "merge": "minigrad.cli.merge",
    "exercise": "minigrad.exercises.cli",
}


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m minigrad", description="minigrad command line")
    parser.add_argument("--version", action="version", version=f"minigrad {minigrad.__version__}")
    commands = parser.add_subparsers(dest="command")
    for name, module_name in SUBCOMMANDS.items():
        module = importlib.import_module(module_name)
        examples = module.__doc__.split("\n\n", 1)[1].replace("``", "")  # its docstring's examples, exit status
        sub = commands.add_parser(name, help=module.HELP, description=module.HELP, epilog=examples,
                                  formatter_class=argparse.RawDescriptionHelpFormatter)
        module.add_arguments(sub)
        sub.set_defaults(run=module.run)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line ``argv`` (default: ``sys.argv[1:]``); returns the exit status.

    Example:
        >>> from minigrad.__main__ import main
        >>> main(["check", "--ops", "tanhh"])
        2
    """
    parser = _parser()
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        args = parser.parse_args(argv)
    except SystemExit as exit_:  # argparse exits 2 on bad arguments, 0 for --help/--version
        return int(exit_.code or 0)
    if args.command is None:
        parser.print_help()
        return 0
    try:
        return args.run(args, argv=argv)
    except BrokenPipeError:  # e.g. piped into `head`
        sys.stderr.close()
        return 1


if __name__ == "__main__":
    sys.exit(main())
