"""``reluid survey``: the functional-dimension survey of Figure 6 (Grigsby, Lindsey, Rolnick 2023).

Draws K random networks of architecture (W, ..., W, 1) (``--depth`` layer maps,
input dimension W unless ``--input-dim``), weights N(0, 2/fan-in), biases
N(0, 0.01), and certifies each network's functional dimension on F × U
Gaussian points.  Prints the distribution and the fraction with dim_fun = U
(95% Wilson interval); optionally writes a histogram plot, JSON and Markdown.
Exit code 0 (the survey is a measurement, not a verdict).
"""

from __future__ import annotations

import argparse

from reluid.cli.common import natural, positive_int, write_text
from reluid.verdicts import ExitCode

NAME = "survey"
HELP = "reproduce the functional-dimension survey (Figure 6 of Grigsby-Lindsey-Rolnick)"
DESCRIPTION = __doc__.split("\n\n", 1)[1].strip()


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--depth", type=positive_int, required=True, help="number of layer maps (depth 4 = (W,W,W,W,1))")
    p.add_argument("--width", type=positive_int, required=True, help="hidden width W")
    p.add_argument("--input-dim", type=positive_int, default=None, metavar="N0", help="input dimension (default W)")
    p.add_argument("--networks", type=positive_int, default=100, metavar="K", help="number of networks (paper: 5000)")
    p.add_argument("--seed", type=natural, default=0, help="seed (networks are reproducible from (seed, index))")
    p.add_argument("--points-factor", type=positive_int, default=100, metavar="F",
                   help="sample F × U points per network (paper: 100)")
    p.add_argument("--bias-variance", type=float, default=0.01, metavar="V",
                   help="variance of the initial biases (paper: 0.01)")
    p.add_argument("--workers", type=positive_int, default=None, metavar="P",
                   help="local worker processes (default: all CPUs)")
    p.add_argument("--dask", metavar="ADDRESS", default=None, help="run on the dask.distributed scheduler at ADDRESS")
    p.add_argument("--plot", metavar="FILE", help="write a histogram like Figure 6")
    p.add_argument("--json", metavar="FILE", help="write the results as JSON")
    p.add_argument("--markdown", metavar="FILE", help="write a Markdown summary")
    p.add_argument("--progress", action="store_true",
                   help="show one progress bar across every network on stderr (needs rich; off when stderr is not a "
                        "terminal)")


def run(args, stdout, stderr) -> ExitCode:
    from reluid.api import progress_bar, run_survey
    from reluid.report.survey import (generate_survey_json, generate_survey_markdown, generate_survey_text,
                                      write_survey_plot)
    if not args.bias_variance >= 0:
        print("reluid survey: error: --bias-variance must be >= 0", file=stderr)
        return ExitCode.USAGE
    if args.depth < 3:
        print("reluid survey: error: --depth must be at least 3 (two hidden layers)", file=stderr)
        return ExitCode.USAGE

    with progress_bar(args.progress, stream=stderr) as bar:
        result = run_survey(depth=args.depth, width=args.width, input_dim=args.input_dim, networks=args.networks,
                            seed=args.seed, points_factor=args.points_factor, bias_variance=args.bias_variance,
                            workers=args.workers, dask_address=args.dask, progress=bar)
    stdout.write(generate_survey_text(result))
    if args.plot:
        write_survey_plot([result], args.plot)
    if args.json:
        write_text(args.json, generate_survey_json([result]))
    if args.markdown:
        write_text(args.markdown, generate_survey_markdown([result]))
    return ExitCode.OK
