"""The layers of the code, checked on its import graph.

What the objects build on (the database, the metrics, the parsers, the
request helpers) never imports ``placement.objects``; no object module
imports the handlers; the production server never loads the test-only
response validator.  The graph is read from the sources with ``ast``,
transitively: an import anywhere in a file counts, and importing
``a.b.c`` also runs the packages ``a`` and ``a.b``.
"""
import ast
import collections
import pathlib
import sys

import pytest

PACKAGE = pathlib.Path(__file__).resolve().parent.parent / 'placement'


def _module_name(path):
    parts = path.relative_to(PACKAGE.parent).with_suffix('').parts
    return '.'.join(parts[:-1] if parts[-1] == '__init__' else parts)


MODULES = {_module_name(path): path for path in PACKAGE.rglob('*.py')}


def _with_packages(name):
    """``name`` and every package above it."""
    parts = name.split('.')
    return {'.'.join(parts[:i]) for i in range(1, len(parts) + 1)}


def _imports(name):
    """What module ``name`` imports: module names of the service, and the
    top-level names of anything else (``webob``)."""
    found = set()
    package = name if MODULES[name].name == '__init__.py' else (
        name.rpartition('.')[0])
    for node in ast.walk(ast.parse(MODULES[name].read_text())):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ''
            if node.level:
                anchor = package.split('.')[:len(package.split('.'))
                                            - node.level + 1]
                base = '.'.join(anchor + ([base] if base else []))
            # "from a import b": b is a module or a name in a.
            targets = [base] + ['%s.%s' % (base, alias.name)
                                for alias in node.names]
        else:
            continue
        for target in targets:
            if target.split('.')[0] != 'placement':
                found.add(target.split('.')[0])
            elif target in MODULES:
                found |= _with_packages(target)
    return found


def _reached(start):
    """{module or library reached from ``start``: the module that
    imports it}, to name the chain in a failure."""
    parents = {start: None}
    queue = collections.deque([start])
    while queue:
        name = queue.popleft()
        for target in _imports(name):
            if target not in parents:
                parents[target] = name
                if target in MODULES:
                    queue.append(target)
    return parents


def _assert_never_reaches(start, forbidden):
    """Fail naming every import chain from ``start`` to anything under a
    name of ``forbidden``."""
    parents = _reached(start)
    chains = []
    for name in sorted(parents):
        if any(name == f or name.startswith(f + '.') for f in forbidden):
            chain = [name]
            while parents[chain[-1]] is not None:
                chain.append(parents[chain[-1]])
            chains.append(' -> '.join(reversed(chain)))
    assert not chains, 'forbidden imports:\n' + '\n'.join(chains)


# What the object layer stands on, or what stands beside it.
BELOW_OBJECTS = sorted({
    'placement.data.db', 'placement.candidates.query', 'placement.candidates.query_filters',
    'placement.web.negotiation',
    'placement.data.uuids', 'placement.data.timestamps', 'placement.web.gc_pause',
    'placement.web.validation', 'placement.web.responses',
    'placement.handlers.base',
    # Another engineer may split metrics.py: every metrics module.
    *(_module_name(path) for path in PACKAGE.glob('metrics*.py'))})
# Standard library only: usable by parsers, schemas and objects alike.
STANDALONE = ['placement.data.uuids', 'placement.data.timestamps',
              'placement.web.gc_pause']
OBJECTS = sorted(name for name in MODULES
                 if name.startswith('placement.objects'))


def test_the_modules_named_here_exist():
    assert set(BELOW_OBJECTS + STANDALONE) <= set(MODULES)
    assert any(name.startswith('placement.metrics.metrics') for name in BELOW_OBJECTS)


@pytest.mark.parametrize('name', BELOW_OBJECTS)
def test_never_imports_the_objects(name):
    _assert_never_reaches(name, ['placement.objects'])


@pytest.mark.parametrize('name', STANDALONE)
def test_needs_the_standard_library_only(name):
    reached = set(_reached(name)) - {name}
    _assert_never_reaches(name, sorted(reached - sys.stdlib_module_names))


@pytest.mark.parametrize('name', OBJECTS)
def test_objects_never_import_the_handlers(name):
    _assert_never_reaches(name, ['placement.handlers'])


@pytest.mark.parametrize('name', ['placement.candidates.query',
                                  'placement.candidates.query_filters'])
def test_query_parsing_needs_no_schema_validator(name):
    """The query parsers are pure parsing: no jsonschema, no webob of
    their own (their errors are errors.py's)."""
    _assert_never_reaches(name, ['jsonschema'])
    assert 'webob' not in _imports(name)


@pytest.mark.parametrize('name', ['placement.web.deploy', 'placement.wsgi',
                                  'placement.cmd.api'])
def test_production_never_imports_the_testing_package(name):
    _assert_never_reaches(name, ['testsupport'])
