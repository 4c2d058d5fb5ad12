"""The request mix of a cloud, in three modes:

  http       one server (and upstream's with --upstream-venv) under the
             open-loop mix for --duration seconds;
  long       the same mix for --minutes, sampling memory, descriptors
             and database connections once a minute;
  inprocess  the mix's read calls timed in-process (CPU time per call),
             for this service or, with --python, upstream.

bench/run mix MODE -h lists a mode's options; see bench/README.md.
"""
import argparse

from bench.commands.mix import http
from bench.commands.mix import inprocess
from bench.commands.mix import long

MODES = {'http': http, 'long': long, 'inprocess': inprocess}


def add_arguments(parser):
    modes = parser.add_subparsers(dest='mode', required=True,
                                  metavar='MODE')
    for name, module in MODES.items():
        module.add_arguments(modes.add_parser(
            name, help=module.__doc__.split('\n')[0],
            description=module.__doc__,
            formatter_class=argparse.RawDescriptionHelpFormatter))


def main(args):
    return MODES[args.mode].main(args)
