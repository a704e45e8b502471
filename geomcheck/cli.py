"""The ``geomcheck`` command line.

Exit status: 0 when everything asked for holds, 1 when a check fails, 2 for bad
input (with a one-line message naming what was wrong).
"""

from __future__ import annotations

import argparse
import os
import sys

from .errors import GeomcheckError


class _Parser(argparse.ArgumentParser):
    def error(self, message):
        self.exit(2, f"geomcheck: {message}\n")


def _parser():
    parser = _Parser(prog="geomcheck", description="Prove geometric properties of numerical schemes.")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    demo = sub.add_parser("demo", help="certify a Hamiltonian flow symplectic and print its LaTeX derivation")
    demo.add_argument("--latex", metavar="FILE", help="also write the derivation as a standalone LaTeX file")
    certify = sub.add_parser("certify", help="certify every declared property of one catalog scheme")
    certify.add_argument("scheme", metavar="SCHEME", help="a catalog scheme name (see integrators.list_schemes())")
    certify.add_argument("--system", metavar="NAME", help="an example system (default: a generic one)")
    certify.add_argument("--latex", metavar="FILE", help="also write the derivations as a standalone LaTeX file")
    return parser


def _unwritable(path):
    """Why a file cannot be written at ``path`` (None when it can): checked before any work."""
    import tempfile

    if os.path.isdir(path):
        return "it is a directory; a file name was expected"
    parent = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(parent):
        return f"{parent} is not a directory"
    try:
        with tempfile.TemporaryFile(dir=parent):
            pass
    except OSError as exc:
        return f"{parent} is not writable ({exc.strerror})"
    return None


def main(argv=None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help(sys.stderr)
        return 2
    try:
        if args.command == "demo":
            if args.latex:
                problem = _unwritable(args.latex)
                if problem:
                    print(f"geomcheck: cannot write --latex {args.latex}: {problem}", file=sys.stderr)
                    return 2
            from .demo import run

            return run(latex_file=args.latex)
        if args.command == "certify":
            if args.latex:
                problem = _unwritable(args.latex)
                if problem:
                    print(f"geomcheck: cannot write --latex {args.latex}: {problem}", file=sys.stderr)
                    return 2
            from .cli_certify import run_certify

            return run_certify(args.scheme, args.system, args.latex)
    except GeomcheckError as exc:
        print(f"geomcheck: {exc}", file=sys.stderr)
        return 2
    return 2


if __name__ == "__main__":
    sys.exit(main())
