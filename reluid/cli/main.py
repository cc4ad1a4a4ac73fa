"""``reluid`` command line.

Each subcommand lives in its own module ``reluid.cli.cmd_<name>`` exposing
``NAME``, ``HELP``, ``add_arguments(parser)`` and
``run(args, stdout, stderr) -> ExitCode`` so tests can call handlers directly.

Exit codes (everywhere): 0 certified / valid / equal, 1 hidden symmetry /
rejected / different, 2 usage, 3 unknown, 4 invalid input.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys

from reluid.errors import (CertificateError, IncompatibleNetworks, InvalidArgument, InvalidNetwork, NotShallow,
                           ReluidError)
from reluid.verdicts import ExitCode

__all__ = ["main", "build_parser", "EXIT_OK", "EXIT_HIDDEN", "EXIT_USAGE", "EXIT_UNKNOWN", "EXIT_INVALID"]

#: the exit codes under their earlier names (:class:`reluid.verdicts.ExitCode` is the vocabulary)
EXIT_OK, EXIT_HIDDEN, EXIT_USAGE, EXIT_UNKNOWN, EXIT_INVALID = (ExitCode.OK, ExitCode.HIDDEN, ExitCode.USAGE,
                                                           ExitCode.UNKNOWN, ExitCode.INVALID)

COMMANDS = ("certify", "check", "equiv", "align", "minimal", "stabilizer", "conditions", "audit", "prove",
            "fundim", "survey")


def _version() -> str:
    from reluid._version import __version__
    return __version__


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # usage errors exit 2 with one line
        self.print_usage(sys.stderr)
        self.exit(ExitCode.USAGE, f"{self.prog}: error: {message}\n")


def _modules():
    mods = []
    for name in COMMANDS:
        try:
            mods.append(importlib.import_module(f"reluid.cli.cmd_{name}"))
        except ModuleNotFoundError as e:
            if e.name != f"reluid.cli.cmd_{name}":
                raise
    return mods


def build_parser() -> argparse.ArgumentParser:
    p = _Parser(prog="reluid", description="Exact verification of the symmetries of ReLU networks.")
    p.add_argument("--version", action="version", version=f"reluid {_version()}")
    sub = p.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    for mod in _modules():
        sp = sub.add_parser(mod.NAME, help=mod.HELP, description=getattr(mod, "DESCRIPTION", mod.HELP))
        mod.add_arguments(sp)
        sp.set_defaults(_run=mod.run)
    return p


def main(argv=None, stdout=None, stderr=None) -> ExitCode:
    stdout = stdout or sys.stdout
    stderr = stderr or sys.stderr
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "_run", None):
        parser.print_help(stdout)
        return ExitCode.USAGE
    try:
        return args._run(args, stdout, stderr)
    except (InvalidNetwork, CertificateError) as e:
        print(f"reluid {args.command}: error: {_one_line(e)}", file=stderr)
        return ExitCode.INVALID
    except (NotShallow, IncompatibleNetworks) as e:
        print(f"reluid {args.command}: error: {_one_line(e)}", file=stderr)
        return ExitCode.INVALID
    except InvalidArgument as e:
        print(f"reluid {args.command}: error: {_one_line(e)}", file=stderr)
        return ExitCode.USAGE
    except ReluidError as e:
        print(f"reluid {args.command}: error: {_one_line(e)}", file=stderr)
        return ExitCode.UNKNOWN
    except MemoryError:  # the data-segment backstop of --memory-gb: an estimate was too low
        from reluid.budget import memory_cap_gb

        print(f"reluid {args.command}: the memory cap of {memory_cap_gb():.1f} GB was reached (--memory-gb); "
              "no verdict", file=stderr)
        return ExitCode.UNKNOWN
    except BrokenPipeError:  # output piped into e.g. `head`
        return ExitCode.OK
    except KeyboardInterrupt:
        print(f"reluid {args.command}: interrupted", file=stderr)
        return ExitCode.UNKNOWN
    except Exception as e:  # an internal error: one line, never a verdict
        if os.environ.get("RELUID_DEBUG"):
            raise
        print(f"reluid {args.command}: internal error: {type(e).__name__}: {_one_line(e)} "
              "(set RELUID_DEBUG=1 for a traceback)", file=stderr)
        return ExitCode.UNKNOWN


def _one_line(e: Exception) -> str:
    return " ".join(str(e).split())


def entry() -> None:  # console script
    from reluid.cli import common

    common.ENFORCE_RLIMIT = True
    sys.exit(main())
