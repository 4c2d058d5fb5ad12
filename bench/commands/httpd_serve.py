"""Serve placement under httpd and mod_wsgi in the foreground, configured
by apache/placement-api.conf as tests/operations/test_httpd.py renders
it: this service, or upstream's installed in a venv.  For
``bench/run request-path``:

    --server-cmd '$PWD/bench/run httpd-serve --port {port}
        --config-dir {config_dir} [--upstream-venv DIR] [--threads N]'

The configuration directory holds the placement.conf of the run; httpd's
daemon user (nobody, when run as root) must reach the Python code, so
upstream's packages are copied there when its venv is private (a home
directory).  ``--threads 1`` is the distribution packages' setting for
upstream (``processes=N threads=1``).
"""
import os
import shutil
import sys
import sysconfig

from bench.common import paths

# test_httpd's own imports name tests/support as the package support.
sys.path[:0] = [paths.TESTS, os.path.join(paths.TESTS, 'operations')]
import test_httpd  # noqa: E402


def upstream_code(venv, config_dir):
    """(directory of a wsgi.py serving upstream, PYTHONPATH for it)."""
    site = sysconfig.get_path('purelib', vars={'base': venv,
                                               'platbase': venv})
    if not test_httpd._world_can_read(site):
        copy = os.path.join(config_dir, 'site-packages')
        shutil.copytree(site, copy, symlinks=True)
        site = copy
    wsgi_dir = os.path.join(config_dir, 'upstream-wsgi')
    os.makedirs(wsgi_dir, exist_ok=True)
    with open(os.path.join(wsgi_dir, 'wsgi.py'), 'w') as out:
        out.write('from placement.wsgi.api import application  # noqa\n')
    return wsgi_dir, site


def add_arguments(parser):
    parser.add_argument('--port', type=int, required=True)
    parser.add_argument('--config-dir', required=True)
    parser.add_argument('--upstream-venv')
    parser.add_argument('--processes', type=int, default=1)
    parser.add_argument('--threads', type=int, default=4)


def main(args):
    if test_httpd.MOD_WSGI is None:
        sys.exit(test_httpd.MOD_WSGI_ENV)
    workdir = os.path.abspath(args.config_dir)
    env = dict(os.environ, OS_PLACEMENT_CONFIG_DIR=workdir,
               **test_httpd.MOD_WSGI_ENV)
    # The caller's metric files may be private to it; the daemon keeps
    # its own, as under a real httpd.
    env.pop('PROMETHEUS_MULTIPROC_DIR', None)
    text = test_httpd.render_config(workdir, args.port)
    ours = os.path.dirname(test_httpd.placement.__file__)
    if args.upstream_venv:
        wsgi_dir, env['PYTHONPATH'] = upstream_code(
            os.path.abspath(args.upstream_venv), workdir)
        text = text.replace('Define PLACEMENT_WSGI_DIR %s' % ours,
                            'Define PLACEMENT_WSGI_DIR %s' % wsgi_dir)
    text = text.replace('Define PLACEMENT_PROCESSES 2',
                        'Define PLACEMENT_PROCESSES %d' % args.processes)
    text = text.replace('threads=4', 'threads=%d' % args.threads)
    # The daemon user writes the SQLite database and the logs there.
    os.chmod(workdir, 0o755)
    user = test_httpd.pwd.getpwnam(test_httpd._daemon_user()[0])
    for root, dirs, files in os.walk(workdir):
        for name in [root] + [os.path.join(root, n) for n in dirs + files]:
            os.lchown(name, user.pw_uid, user.pw_gid)
    config = os.path.join(workdir, 'httpd.conf')
    with open(config, 'w') as out:
        out.write(text)
    os.execve(test_httpd.HTTPD, [test_httpd.HTTPD, '-f', config,
                                 '-DFOREGROUND'], env)
