"""``reluid check CERT``: re-verify a certificate independently."""

from __future__ import annotations

from reluid.verdicts import ExitCode

NAME = "check"
HELP = "re-verify a certificate without z3 or the search code"
DESCRIPTION = ("Re-verify CERT exactly with the checker's own derivation rule; it prints the rule it applied and "
               "the status of every claim. Exit codes: 0 valid, 1 rejected, 4 invalid input (a malformed "
               "certificate or network, a certificate without its network and no --network, or --network naming "
               "another network than the certificate's), 2 usage.")


def add_arguments(p) -> None:
    from reluid.cli.common import natural

    p.add_argument("certificate", metavar="CERT.json", help="a certificate written by reluid certify or reluid audit")
    p.add_argument("--network", metavar="NET", help="the network (default: the copy embedded in CERT)")
    p.add_argument("--work-limit", metavar="STEPS", type=natural, default=None,
                   help="the checker's work limit over the whole certificate, in steps of its longest loops "
                        "(default 2^24, about ten seconds, or 16 steps per byte of the certificate and network "
                        "files when that is more); a claim past it is reported as not re-verified")
    from reluid.cli.common import add_input_options
    add_input_options(p)


def run(args, stdout, stderr) -> ExitCode:
    from reluid.api import check, read_certificate
    from reluid.report.check import generate_check_text

    cert = read_certificate(args.certificate)
    if cert.network is None and not args.network:
        print(f"reluid check: error: {args.certificate} names its network by SHA-256 only "
              f"({cert.network_sha256[:16]}…, {cert.architecture}); pass the network with --network NET",
              file=stderr)
        return ExitCode.INVALID
    net = None
    if args.network:
        from reluid.cli.common import load_network
        net = load_network(args.network, args, floats=False)
        if net.sha256() != cert.network_sha256:
            print(f"reluid check: error: {args.network} is not the network {args.certificate} is about (SHA-256 "
                  f"{net.sha256()[:16]}…, {net.architecture}; the certificate names {cert.network_sha256[:16]}…, "
                  f"{cert.architecture})", file=stderr)
            return ExitCode.INVALID
    import os

    size = sum(os.path.getsize(f) for f in (args.certificate, args.network) if f and os.path.isfile(f))
    report = check(cert, net, work_limit=args.work_limit, input_bytes=size)
    print(generate_check_text(report, cert.assumption), file=stdout)
    return report.exit_code
