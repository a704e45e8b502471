"""The ``geomcheck`` command line.

Exit status: 0 when everything asked for holds, 1 when a check fails, 2 for bad
input (with a one-line message naming what was wrong).
"""

from __future__ import annotations

import argparse
import os
import sys

from .files import directory_problem, unwritable_parent
from .errors import GeomcheckError


class _Parser(argparse.ArgumentParser):
    def error(self, message):
        self.exit(2, f"geomcheck: {message}\n")


def _epilog() -> str:
    import integrators as ig

    def wrapped(names):
        lines, line = [], "  "
        for n in names:
            if len(line) + len(n) + 2 > 78:
                lines.append(line.rstrip())
                line = "  "
            line += n + ", "
        return "\n".join(lines + [line.rstrip(", ")])

    return ("schemes (geomcheck certify SCHEME):\n" + wrapped(ig.list_schemes())
            + "\n\nexample systems (--system NAME):\n" + wrapped(ig.list_example_systems()))


def _workers(text):
    try:
        n = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of worker processes, got {text!r}") from None
    if not 1 <= n <= 1024:
        raise argparse.ArgumentTypeError(f"expected 1 to 1024 worker processes, got {n}")
    return n


def _workers_of(args):
    """The ``--workers`` asked for; one per usable core when neither it nor ``--scheduler`` is given."""
    from . import report_jobs

    if args.workers is None and args.scheduler is None:
        return report_jobs.default_workers()
    return args.workers


def _distributed_options(parser):
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--workers", metavar="N", type=_workers,
                       help="run in N worker processes of this machine (default: one per usable core; 1 runs"
                            " in this process)")
    group.add_argument("--scheduler", metavar="ADDRESS",
                       help="run on the Dask scheduler at ADDRESS, e.g. tcp://host:8786")


def _parser():
    from .version import __version__

    parser = _Parser(prog="geomcheck", description="Prove geometric properties of numerical schemes.",
                     epilog=_epilog(), formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--version", action="version", version=f"geomcheck {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    demo = sub.add_parser("demo", help="certify a Hamiltonian flow symplectic and print its LaTeX derivation")
    demo.add_argument("--latex", metavar="FILE", help="also write the derivation as a standalone LaTeX file")
    certify = sub.add_parser("certify", help="certify every declared property of one catalog scheme",
                             epilog=_epilog(), formatter_class=argparse.RawDescriptionHelpFormatter)
    certify.add_argument("scheme", metavar="SCHEME", nargs="?",
                         help="a catalog scheme name (see integrators.list_schemes())")
    certify.add_argument("--all", action="store_true", help="certify every scheme of the catalog (no SCHEME)")
    certify.add_argument("--system", metavar="NAME", help="an example system (default: a generic one)")
    certify.add_argument("--latex", metavar="FILE", help="also write the derivations as a standalone LaTeX file")
    _distributed_options(certify)
    report = sub.add_parser("report", help="the main job: certify the catalog, run every case study, write the report")
    report.add_argument("--out", metavar="DIR", required=True, help="the output directory (created; must be empty)")
    report.add_argument("--profile", choices=["quick", "paper"], default="quick",
                        help="quick (minutes) or paper (the papers' own lengths)")
    report.add_argument("--force", action="store_true", help="replace an existing non-empty DIR")
    _distributed_options(report)
    cases = sub.add_parser("cases", help="list the case studies or run one")
    cases_sub = cases.add_subparsers(dest="cases_command", metavar="list|run")
    cases_sub.add_parser("list", help="list the case studies")
    run_case = cases_sub.add_parser("run", help="run one case study and print its checks")
    run_case.add_argument("name", metavar="NAME")
    run_case.add_argument("--profile", choices=["quick", "paper"], default="quick")
    run_case.add_argument("--out", metavar="DIR", help="where the figures go (default: a temporary directory)")
    return parser


def _shown(value) -> str:
    """A measured value as a reader wants it: numbers rounded, verdicts in words."""
    if isinstance(value, bool) or value is None:
        return {True: "holds", False: "fails", None: "undecided"}[value]
    if isinstance(value, float):
        return f"{value:.4g}"
    return str(value)


def _cases(args) -> int:
    import casestudies

    if args.cases_command in (None, "list"):
        for name in casestudies.names():
            print(f"{name}: {casestudies.describe(name)}")
        return 0
    r = casestudies.run(args.name, args.profile, out=args.out)
    for c in r.checks:
        mark = "pass" if c.passed else "FAIL"
        print(f"  [{mark}] {c.description}: measured {_shown(c.measured)}, expected {c.expected} ({c.source})")
    for label, cert in r.certificates:
        print(f"  [{cert.verdict()}] {label}: {cert.method}")
    for f in r.findings:
        print(f"  [{f.title}] {f.where}: {f.statement} (shown by {f.test})")
    for path in r.figures:
        print(f"  figure: {path}")
    print(f"RESULT: {'every check passes' if r.passed else 'NOT every check passes'} ({r.seconds:.1f} s)")
    return 0 if r.passed else 1


def _unwritable(path):
    """Why a file cannot be written at ``path`` (None when it can): checked before any work."""
    if not path.strip():
        return "an empty file name"
    if os.path.isdir(path):
        return "it is a directory; a file name was expected"
    return unwritable_parent(path)


def main(argv=None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help(sys.stderr)
        return 2
    try:
        if args.command == "demo":
            if args.latex is not None:
                problem = _unwritable(args.latex)
                if problem:
                    print(f"geomcheck: cannot write --latex {args.latex}: {problem}", file=sys.stderr)
                    return 2
            from .demo import run

            return run(latex_file=args.latex)
        if args.command == "certify":
            if args.all == (args.scheme is not None):
                print("geomcheck: certify takes a SCHEME or --all (not both)", file=sys.stderr)
                return 2
            if args.all and args.system is not None:
                print("geomcheck: --system goes with one SCHEME; --all certifies each scheme on its default system",
                      file=sys.stderr)
                return 2
            if not args.all and (args.workers is not None or args.scheduler is not None):
                print("geomcheck: --workers and --scheduler go with --all", file=sys.stderr)
                return 2
            if args.latex is not None:
                problem = _unwritable(args.latex)
                if problem:
                    print(f"geomcheck: cannot write --latex {args.latex}: {problem}", file=sys.stderr)
                    return 2
            from .cli_certify import run_certify, run_certify_all

            if args.all:
                return run_certify_all(args.latex, workers=_workers_of(args), scheduler=args.scheduler)
            return run_certify(args.scheme, args.system, args.latex)
        if args.command == "report":
            from .report import output_problem, run_report

            problem = output_problem(args.out, args.force)
            if problem:
                print(f"geomcheck: cannot write the report to --out {args.out}: {problem}", file=sys.stderr)
                return 2
            return run_report(args.out, args.profile, args.force, workers=_workers_of(args), scheduler=args.scheduler)
        if args.command == "cases":
            if args.cases_command == "run" and args.out is not None:
                problem = directory_problem(args.out)
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
