"""Results as they come in (stderr) and as tables, side by side per
data set."""
import json
import sys

from bench.common import web
from bench.common import datasets
from bench.common import serving


def note(results, key, value):
    """Keep one measurement and show it on stderr as soon as it is done."""
    results[key] = value
    web.log('    %-20s %s' % (key, fmt_dict(value)))


def fmt_dict(values):
    return ', '.join('%s=%s' % (k, fmt(v)) for k, v in values.items())


def fmt(value):
    if isinstance(value, float):
        return '%.1f' % value if value >= 10 else '%.2f' % value
    if isinstance(value, list):
        return str(len(value))
    return str(value)


# (label, path into the results, True when higher is better)
ROWS = [('load providers/s', ('load', 'providers_per_s'), True),
        ('load 5xx/net retries', ('load', 'retried_errors'), None)]
for _name, _ in datasets.VARIANTS:
    ROWS += [
        ('%s median ms' % _name, ('latency ' + _name, 'median_ms'), False),
        ('%s p95 ms' % _name, ('latency ' + _name, 'p95_ms'), False),
        ('%s candidates' % _name, ('latency ' + _name, 'candidates'), None),
    ]
ROWS += [
    ('explain median ms', ('latency explain', 'median_ms'), False),
    ('explain p95 ms', ('latency explain', 'p95_ms'), False),
]
for _name, _ in datasets.VARIANTS:
    ROWS.append(('%s req/s (conc.)' % _name,
                 ('throughput ' + _name, 'rps'), True))
    ROWS.append(('%s server CPU ms/req (conc.)' % _name,
                 ('throughput ' + _name, 'server_cpu_ms'), False))
    ROWS.append(('%s database CPU ms/req (conc.)' % _name,
                 ('throughput ' + _name, 'db_cpu_ms'), False))
ROWS += [
    ('claims/s (conc.)', ('claims', 'claims_per_s'), True),
    ('claims made', ('claims', 'claims'), None),
    ('claim 409 retries', ('claims', 'conflicts'), None),
    ('claim failures', ('claims', 'failures'), None),
    ('over-committed', ('claims', 'overcommitted'), None),
    ('project usage matches', ('claims', 'usage_matches'), None),
]


def lookup(result, path):
    value = result
    for key in path:
        if not isinstance(value, dict):
            return None
        if 'error' in value and key not in value:
            return 'error'
        value = value.get(key)
    return value


def describe(dataset_label, run_args):
    """Table title from a data set label and the options of its run."""
    kind, count = dataset_label.split()
    per_unit = len(datasets.NESTED_TREE) if kind == 'nested' else 1
    return '%s (%d providers), %s, %d workers, %d concurrent' % (
        dataset_label, int(count) * per_unit,
        serving.Database(run_args['db_url'], '/', 'x').backend,
        run_args['workers'], run_args['concurrency'])


def report(title, labels, results, markdown):
    headers = ['metric'] + labels
    if len(labels) == 2:
        headers.append('%s vs %s' % tuple(labels))
    rows = []
    for name, path, higher_better in ROWS:
        values = [lookup(results[label], path) for label in labels]
        row = [name] + [fmt(v) if v is not None else '-' for v in values]
        if len(labels) == 2:
            row.append(ratio(values, higher_better))
        rows.append(row)
    widths = [max(len(str(r[i])) for r in rows + [headers])
              for i in range(len(headers))]
    if markdown:
        line = '| %s |'
        sep = ' | '
    else:
        line = '%s'
        sep = '  '
    print()
    print(title)
    if markdown:
        print()
    print(line % sep.join(h.ljust(w) for h, w in zip(headers, widths)))
    print(line % sep.join('-' * w for w in widths))
    for row in rows:
        print(line % sep.join(str(c).ljust(w) for c, w in zip(row, widths)))
    for label in labels:
        if 'error' in results[label]:
            print('%s: %s' % (label, results[label]['error'].strip()))
    sys.stdout.flush()


def markdown_head(names):
    """A Markdown table's header and separator lines."""
    return markdown_row(names) + '\n|' + '---|' * len(names)


def markdown_row(cells):
    return '| ' + ' | '.join(str(cell) for cell in cells) + ' |'


def ratio(values, higher_better):
    """How many times better the first column is than the second."""
    ours, theirs = values
    if higher_better is None or not all(
            isinstance(v, (int, float)) and v > 0 for v in values):
        return ''
    gain = ours / theirs if higher_better else theirs / ours
    return '%.2fx %s' % (gain if gain >= 1 else 1 / gain,
                         'better' if gain >= 1 else 'worse')


def report_files(paths, markdown):
    """Tables from earlier --json files, servers merged per data set."""
    merged = {}
    for path in paths:
        with open(path) as handle:
            saved = json.load(handle)
        for dataset_label, results in saved['results'].items():
            entry = merged.setdefault(dataset_label, {
                'title': describe(dataset_label, saved['args']),
                'results': {}})
            entry['results'].update(results)
    for entry in merged.values():
        report(entry['title'], list(entry['results']), entry['results'],
               markdown)
    return 0
