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
    report = sub.add_parser("report", help="the main job: certify the catalog, run every case study, write the report")
    report.add_argument("--out", metavar="DIR", required=True, help="the output directory (created; must be empty)")
    report.add_argument("--profile", choices=["quick", "paper"], default="quick",
                        help="quick (minutes) or paper (the papers' own lengths)")
    report.add_argument("--force", action="store_true", help="replace an existing non-empty DIR")
    cases = sub.add_parser("cases", help="list the case studies or run one")
    cases_sub = cases.add_subparsers(dest="cases_command", metavar="list|run")
    cases_sub.add_parser("list", help="list the case studies")
    run_case = cases_sub.add_parser("run", help="run one case study and print its checks")
    run_case.add_argument("name", metavar="NAME")
    run_case.add_argument("--profile", choices=["quick", "paper"], default="quick")
    run_case.add_argument("--out", metavar="DIR", help="where the figures go (default: a temporary directory)")
    return parser


def _cases(args) -> int:
    import casestudies

    if args.cases_command in (None, "list"):
        for name in casestudies.names():
            print(f"{name}: {casestudies.describe(name)}")
        return 0
    r = casestudies.run(args.name, args.profile, out=args.out)
    for c in r.checks:
        mark = "pass" if c.passed else "FAIL"
        print(f"  [{mark}] {c.description}: measured {c.measured}, expected {c.expected} ({c.source})")
    for label, cert in r.certificates:
        print(f"  [{cert.verdict()}] {label}: {cert.method}")
    for path in r.figures:
        print(f"  figure: {path}")
    print(f"RESULT: {'every check passes' if r.passed else 'NOT every check passes'} ({r.seconds:.1f} s)")
    return 0 if r.passed else 1


def _unwritable(path):
    """Why a file cannot be written at ``path`` (None when it can): checked before any work."""
    if os.path.isdir(path):
        return "it is a directory; a file name was expected"
    return unwritable_parent(path)


def unwritable_parent(path):
    """Why nothing can be created at ``path`` (its parent is missing or read-only), else None."""
    import tempfile

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
        if args.command == "report":
            from .report import output_problem, run_report

            problem = output_problem(args.out, args.force)
            if problem:
                print(f"geomcheck: cannot write the report to --out {args.out}: {problem}", file=sys.stderr)
                return 2
            return run_report(args.out, args.profile, args.force)
        if args.command == "cases":
            if args.cases_command == "run" and args.out:
                problem = output_problem(args.out, force=True)
                if problem:
                    print(f"geomcheck: cannot write figures to --out {args.out}: {problem}", file=sys.stderr)
                    return 2
            return _cases(args)
    except GeomcheckError as exc:
        print(f"geomcheck: {exc}", file=sys.stderr)
        return 2
    return 2


if __name__ == "__main__":
    sys.exit(main())
