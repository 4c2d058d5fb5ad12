"""bench/run COMMAND [options]: run one benchmark (COMMAND -h for its
options).  See bench/README.md."""
import argparse
import importlib
import sys

# name: (module under bench.commands, what it measures)
COMMANDS = {
    'candidates': ('candidates', 'candidates and claims over HTTP, '
                   'ours and another server side by side'),
    'explain': ('explain', 'the CPU cost of /allocation_candidates/explain '
                '(in-process)'),
    'answer-memory': ('answer_memory', "a worker's memory for one full "
                      'answer (in-process)'),
    'answer-floor': ('answer_floor', 'a full answer against its floor: '
                     'one read, a plain build, orjson (in-process)'),
    'capacity': ('capacity', 'POST /capacity of 20 shapes against '
                 "os-capacity's method (in-process)"),
    'metrics': ('metrics', 'GET /metrics and the capacity gauges '
                '(in-process)'),
    'provider-list': ('provider_list', 'GET /resource_providers with its '
                      'filters: from the database, from memory, upstream'),
    'candidates-by-source': ('candidates_by_source', 'GET '
                             '/allocation_candidates: from the database, '
                             'from memory, upstream'),
    'summary': ('summary', 'GET /summary per database (in-process)'),
    'mix': ('mix', "the request mix of a cloud: over HTTP, for half an "
            'hour, or in-process'),
    'request-path': ('request_path', 'the CPU time of a small request, '
                     'layer by layer or per server over HTTP'),
    'wide-trees': ('wide_trees', 'candidates of wide trees, flat and nested '
                   'clouds, per engine (in-process)'),
    'bulk': ('bulk', 'one POST /allocations with many consumers'),
    'weigh': ('weigh', "candidate order against nova's scheduler"),
    'select': ('select', 'POST /claims against GET + PUT, many '
               'schedulers at once'),
    'swap': ('swap', 'a rolling swap of upstream for this service behind '
             'HAProxy'),
    'cluster': ('cluster', 'a Galera cluster against one MariaDB server'),
    'httpd-serve': ('httpd_serve', 'serve under httpd and mod_wsgi, for '
                    'a --server-cmd'),
}


def usage():
    width = max(len(name) for name in COMMANDS)
    return __doc__ + '\ncommands:\n' + ''.join(
        '  %-*s  %s\n' % (width, name, text)
        for name, (_, text) in COMMANDS.items())


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if not argv or argv[0] not in COMMANDS:
        sys.stdout.write(usage())
        return 0 if argv[:1] in (['-h'], ['--help']) else 2
    # Only the command run is imported: some set up the process (the
    # metrics directory) as they load.
    module = importlib.import_module(
        'bench.commands.' + COMMANDS[argv[0]][0])
    parser = argparse.ArgumentParser(
        prog='bench/run ' + argv[0], description=module.__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    module.add_arguments(parser)
    return module.main(parser.parse_args(argv[1:])) or 0


if __name__ == '__main__':
    sys.exit(main())
