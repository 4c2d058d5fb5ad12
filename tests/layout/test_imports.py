"""The layers of the code by role, checked on its import graph.

The package holds one folder per role (docs/developing.md draws them).
The web edge (``placement.web``, the handlers) calls the engine
(``placement.candidates``) and the objects, never the reverse; the data
layer (``placement.data``) imports no resource (objects, handlers,
engine); the metrics hooks read no resource; what the objects build on
never imports ``placement.objects``; the production server never loads
the test-only response validator.  The graph is read from the sources
with ``ast``, transitively: an import anywhere in a file counts, and
importing ``a.b.c`` also runs the packages ``a`` and ``a.b``.
"""
import ast
import collections
import sys

import pytest

import support

PACKAGE = support.REPO / 'placement'


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
    'placement.candidates.query', 'placement.candidates.query_filters',
    'placement.web.negotiation', 'placement.web.gc_pause',
    'placement.web.validation', 'placement.web.responses',
    'placement.handlers.base',
    # Every module of the data layer and of the metrics but the gauges,
    # which sum the objects' figures.
    *(name for name in MODULES if name.startswith(('placement.data.',
                                                   'placement.metrics.'))
      and name != 'placement.metrics.capacity_gauges')})
# Standard library only: usable by parsers, schemas and objects alike.
STANDALONE = ['placement.data.uuids', 'placement.data.timestamps',
              'placement.web.gc_pause']
OBJECTS = sorted(name for name in MODULES
                 if name.startswith('placement.objects'))
ENGINE = sorted(name for name in MODULES
                if name.startswith('placement.candidates'))
DATA = sorted(name for name in MODULES if name.startswith('placement.data'))
MEMORY = sorted(name for name in MODULES
                if name.startswith('placement.memory'))
# The web edge: its request machinery and the handlers.  environ_keys.py
# is only names (it imports nothing), which errors.py reads to render an
# error document, so every layer may reach it.
WEB_EDGE = ['placement.handlers'] + sorted(
    name for name in MODULES if name.startswith('placement.web.')
    and name != 'placement.web.environ_keys')
# Each role's folder, and the three modules every role shares.
TOP_LEVEL = {'__init__.py', 'wsgi.py', 'errors.py', 'microversions.py',
             'cmd', 'config', 'web', 'handlers', 'schemas', 'candidates',
             'objects', 'memory', 'data', 'metrics', 'console'}


def test_the_modules_named_here_exist():
    assert set(BELOW_OBJECTS + STANDALONE) <= set(MODULES)
    assert 'placement.data.db' in BELOW_OBJECTS
    assert 'placement.metrics.metrics' in BELOW_OBJECTS
    assert 'placement.candidates.candidate_search' in ENGINE
    assert 'placement.web.router' in WEB_EDGE


def test_the_package_is_grouped_by_role():
    """A new module goes into its role's folder, not beside them."""
    found = {path.name for path in PACKAGE.iterdir()
             if path.name != '__pycache__'}
    assert found == TOP_LEVEL
    assert len(TOP_LEVEL) <= 15


@pytest.mark.parametrize('name', BELOW_OBJECTS)
def test_never_imports_the_objects(name):
    _assert_never_reaches(name, ['placement.objects'])


@pytest.mark.parametrize('name', STANDALONE)
def test_needs_the_standard_library_only(name):
    reached = set(_reached(name)) - {name}
    _assert_never_reaches(name, sorted(reached - sys.stdlib_module_names))


@pytest.mark.parametrize('name', OBJECTS)
def test_objects_never_import_the_handlers(name):
    _assert_never_reaches(name, WEB_EDGE)


@pytest.mark.parametrize('name', ENGINE)
def test_the_engine_never_imports_the_web_edge(name):
    _assert_never_reaches(name, WEB_EDGE)


@pytest.mark.parametrize('name', MEMORY)
def test_the_snapshot_serves_the_engine_and_the_web_edge(name):
    """The snapshot is a source the engine and the handlers read from:
    it never reaches up to them."""
    _assert_never_reaches(name, ['placement.candidates', *WEB_EDGE])


@pytest.mark.parametrize('name', DATA)
def test_the_data_layer_imports_no_resource(name):
    _assert_never_reaches(name, ['placement.objects', 'placement.handlers',
                                 'placement.candidates', *WEB_EDGE])


def test_the_metrics_hooks_read_no_resource():
    """db.py counts through the hooks, so they stand below every
    resource: no objects, handlers, engine or web edge."""
    _assert_never_reaches('placement.metrics.metrics',
                          ['placement.objects', 'placement.handlers',
                           'placement.candidates', *WEB_EDGE])


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


def test_the_tests_import_no_benchmark_code():
    """bench/ may use the tests' support, never the other way round: a
    test runs a benchmark as a program (tests/cluster/test_swap.py)."""
    tests = PACKAGE.parent / 'tests'
    found = []
    for path in tests.rglob('*.py'):
        for node in ast.walk(ast.parse(path.read_text())):
            names = ([alias.name for alias in node.names]
                     if isinstance(node, ast.Import) else
                     [node.module or ''] if isinstance(node, ast.ImportFrom)
                     else [])
            found += ['%s: %s' % (path.relative_to(tests), name)
                      for name in names if name.split('.')[0] == 'bench']
    assert not found


def test_only_the_layouts_read_rows_by_column():
    """The layouts know where each column of a row sits (layouts.Layout,
    CensusLayout; statements.py writes the columns); every other module
    of the engine reads a row through their accessors, never
    ``row[...]`` or ``rows[...]``, so an offset changes in one place."""
    found = []
    for name in ENGINE:
        if name in ('placement.candidates.layouts',
                    'placement.candidates.statements'):
            continue
        for node in ast.walk(ast.parse(MODULES[name].read_text())):
            if (isinstance(node, ast.Subscript)
                    and isinstance(node.value, ast.Name)
                    and node.value.id in ('row', 'rows')):
                found.append('%s:%d' % (name, node.lineno))
    assert not found


def test_callers_ask_the_check_never_its_kind():
    """A rule's behaviour sits with its check (checks.py): the engine
    asks the check (its clause, its nearness, ...), never compares a
    ``kind`` attribute, so a new rule is one check and no caller grows a
    branch."""
    found = []
    for name in ENGINE:
        if name == 'placement.candidates.checks':
            continue
        for node in ast.walk(ast.parse(MODULES[name].read_text())):
            if isinstance(node, ast.Compare) and any(
                    isinstance(side, ast.Attribute) and side.attr == 'kind'
                    for side in (node.left, *node.comparators)):
                found.append('%s:%d' % (name, node.lineno))
    assert not found


# A namedtuple's own API, public despite its underscore.
NAMEDTUPLE_API = {'_replace', '_asdict', '_fields', '_make'}


def test_no_module_reads_another_modules_private_names():
    """A leading underscore is a module's or an object's own: no module
    imports ``_name`` from another, reads ``module._name``, or reaches
    into an object other than ``self``/``cls``/``super()``."""
    found = []
    for name, path in MODULES.items():
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom):
                private = [alias.name for alias in node.names
                           if alias.name.startswith('_')
                           and not alias.name.startswith('__')]
                if private:
                    found.append('%s:%d %s' % (name, node.lineno, private))
            elif (isinstance(node, ast.Attribute)
                    and node.attr.startswith('_')
                    and not node.attr.startswith('__')
                    and node.attr not in NAMEDTUPLE_API
                    and not (isinstance(node.value, ast.Name)
                             and node.value.id in ('self', 'cls'))
                    and not (isinstance(node.value, ast.Call)
                             and isinstance(node.value.func, ast.Name)
                             and node.value.func.id == 'super')):
                found.append('%s:%d %s' % (name, node.lineno,
                                           ast.unparse(node)))
    assert not found


def test_each_use_of_the_engine_is_declared_in_the_stacks():
    """The uses (list, explain, capacity, ...) are declared in
    candidates/stacks.py only: no other module builds a read plan or a
    reader of its own, so a use is never a flag on a shared object."""
    found = []
    for name, path in MODULES.items():
        if name in ('placement.candidates.stacks',
                    'placement.candidates.reader'):
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if (isinstance(node, ast.Call)
                    and isinstance(node.func, ast.Attribute)
                    and node.func.attr in ('Plan', 'RequestSearch')):
                found.append('%s:%d' % (name, node.lineno))
    assert not found


_UNIT_FIELDS = {'min_unit', 'max_unit', 'step_size'}


def _names_a_unit_field(node):
    return (isinstance(node, ast.Attribute) and node.attr in _UNIT_FIELDS
            or isinstance(node, ast.Name) and node.id in _UNIT_FIELDS)


def test_the_units_rule_is_written_once():
    """min_unit, max_unit and step_size are compared (or divided by) in
    objects/figures.py only, where the units rule has its SQL and Python
    forms side by side: the read path and the write path cannot drift
    apart."""
    found = []
    for name, path in MODULES.items():
        if name == 'placement.objects.figures':
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Compare):
                sides = (node.left, *node.comparators)
            elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod):
                sides = (node.left, node.right)
            else:
                continue
            if any(map(_names_a_unit_field, sides)):
                found.append('%s:%d' % (name, node.lineno))
    assert not found
