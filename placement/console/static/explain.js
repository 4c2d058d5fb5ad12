// Explain: build a GET /allocation_candidates query (or paste one), show
// the candidates, or when there are none, GET /allocation_candidates/explain
// as a funnel per group, the checks spanning groups and the nearest misses
// (and the weights, when the candidates are weighed).
import * as api from './api.js';
import {h, clear, errorBox, fmt, providerLink, section} from './dom.js';

// Placeholders are examples ("e.g."), styled apart from entered values.
const GROUP_FIELDS = [
  ['resources', 'Resources', 'e.g. VCPU:4,MEMORY_MB:8192'],
  ['required', 'Traits', 'e.g. HW_CPU_X86_AVX2,!CUSTOM_SLOW'],
  ['member_of', 'Aggregates', 'e.g. in:uuid1,uuid2'],
  ['in_tree', 'In tree', 'a provider uuid'],
];
const GLOBAL_FIELDS = [
  ['group_policy', 'Group policy', ['', 'none', 'isolate']],
  ['same_subtree', 'Same subtree', 'e.g. _NIC,_PF'],
  ['root_required', 'Root traits', 'e.g. HW_CPU_X86_AVX2'],
  ['root_member_of', 'Root aggregates', 'e.g. in:uuid1,uuid2'],
  ['limit', 'Limit', 'e.g. 1000'],
];
const SHOWN_CANDIDATES = 20;
const SHARING_TRAIT = 'MISC_SHARES_VIA_AGGREGATE';
const GROUP_KEY = /^(resources|required|member_of|in_tree)(.*)$/;

// The query as form values, or null when the form cannot hold it (a key
// repeated, or one the form has no field for).
function formValues(params) {
  const groups = new Map([['', {}]]);
  const globals = {};
  const seen = new Set();
  for (const [key, value] of params) {
    if (seen.has(key)) return null;
    seen.add(key);
    const match = GROUP_KEY.exec(key);
    if (match) {
      const group = groups.get(match[2]) || {};
      group[match[1]] = value;
      groups.set(match[2], group);
    } else if (GLOBAL_FIELDS.some(([name]) => name === key)) {
      globals[key] = value;
    } else {
      return null;
    }
  }
  return {groups, globals};
}

function normalize(text) {
  const trimmed = text.trim();
  const at = trimmed.indexOf('?');
  return at < 0 ? trimmed : trimmed.slice(at + 1);
}

export async function renderExplain(main, {rawQuery, query, signal}) {
  const values = formValues(query) || {groups: new Map([['', {}]]), globals: {}};
  const groupsBox = h('div', {id: 'groups'});
  const addGroup = (suffix, fields) => {
    const n = groupsBox.children.length;
    groupsBox.append(h('fieldset', {class: 'group'},
      h('legend', null, n === 0 ? 'Unsuffixed group' : 'Group'),
      h('label', {hidden: n === 0}, h('span', null, 'Suffix'),
        h('input', {name: 'suffix', value: suffix, placeholder: 'e.g. _COMPUTE'})),
      GROUP_FIELDS.map(([key, label, placeholder]) => h('label', null, h('span', null, label),
        h('input', {name: key, value: fields[key] || '', placeholder})))));
  };
  for (const [suffix, fields] of values.groups) addGroup(suffix, fields);
  const pasted = h('textarea', {id: 'pasted', rows: 2,
                                placeholder: 'e.g. resources=VCPU:4&required=HW_CPU_X86_AVX2&limit=10'},
                   formValues(query) ? '' : rawQuery);
  const form = h('form', {id: 'explain-form', class: 'explain-form'},
    groupsBox,
    h('div', {class: 'wide'}, h('button', {type: 'button', class: 'link', id: 'add-group',
                                           onclick: () => addGroup('', {})}, '+ add a group')),
    h('fieldset', {class: 'group'}, h('legend', null, 'Across groups'),
      GLOBAL_FIELDS.map(([key, label, hint]) => h('label', null, h('span', null, label),
        Array.isArray(hint) ? choice(key, hint, values.globals[key])
          : h('input', {name: key, value: values.globals[key] || '', placeholder: hint})))),
    h('label', {class: 'wide'}, h('span', null, 'Or paste a query string (it wins over the fields)'), pasted),
    h('button', {type: 'submit'}, 'Find candidates'));
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    location.hash = '#/explain?' + (pasted.value.trim() ? normalize(pasted.value) : build(form));
  });
  const out = h('div', {id: 'outcome'});
  // With a query the answer matters most: the form folds into one line
  // (the query itself) so that the answer starts above the fold.
  const folded = h('details', {class: 'query', id: 'query', open: !rawQuery},
    h('summary', null, rawQuery ? h('span', null, 'Query ',
      h('code', {class: 'mono', 'data-field': 'query'},
        [...query].map(([key, value]) => `${key}=${value}`).join('&')),
      h('span', {class: 'muted small'}, ' (edit)')) : 'Query'),
    form);
  main.append(h('h1', null, 'Allocation candidates, explained'), folded, out);
  if (!rawQuery) return;

  out.append(h('p', {class: 'muted'}, 'Asking for candidates…'));
  const answer = await api.get('allocation_candidates', rawQuery, signal);
  const count = answer.allocation_requests.length;
  if (!count) {
    const why = await explanation(rawQuery, signal);
    clear(out).append(h('p', {id: 'candidate-count', class: 'bad'}, '0 candidates'), why);
    return;
  }
  // With candidates the funnel is one click away (why so few?).
  const more = h('div', {id: 'explanation'},
    h('button', {type: 'button', class: 'link', onclick: async () => {
      clear(more).append(h('p', {class: 'muted'}, 'Asking why…'));
      try {
        clear(more).append(await explanation(rawQuery, signal));
      } catch (error) {
        clear(more).append(errorBox(error));
      }
    }}, 'Explain these numbers'));
  clear(out).append(await candidates(answer, signal), more);
}

async function explanation(rawQuery, signal) {
  return explained(await api.get('allocation_candidates/explain', rawQuery, signal));
}

function choice(name, options, value) {
  return h('select', {name}, options.map((option) =>
    h('option', {value: option, selected: option === (value || '')}, option || '(not set)')));
}

function build(form) {
  const params = new URLSearchParams();
  for (const fieldset of form.querySelectorAll('#groups fieldset')) {
    const suffix = fieldset.querySelector('[name=suffix]').value.trim();
    for (const [key] of GROUP_FIELDS) {
      const value = fieldset.querySelector(`[name=${key}]`).value.trim();
      if (value) params.append(key + suffix, value);
    }
  }
  for (const [key] of GLOBAL_FIELDS) {
    const value = form.elements[key].value.trim();
    if (value) params.append(key, value);
  }
  return params.toString();
}

// A candidate's providers as one reads a placement: the compute node
// (a tree's root) first, then the rest of its tree, then the sharing
// providers it draws from; by name within each.
function providerOrder(summaries, names) {
  const rank = (uuid) => {
    const summary = summaries[uuid] || {};
    if ((summary.traits || []).includes(SHARING_TRAIT)) return 2;
    return summary.root_provider_uuid === uuid ? 0 : 1;
  };
  return (a, b) => rank(a) - rank(b) || names.get(a).localeCompare(names.get(b));
}

async function candidates(answer, signal) {
  const requests = answer.allocation_requests;
  const shown = requests.slice(0, SHOWN_CANDIDATES);
  const uuids = [...new Set(shown.flatMap((r) => Object.keys(r.allocations)))];
  const names = new Map();
  await api.pool(uuids, 6, async (u) => names.set(u, await api.providerName(u, signal)), signal);
  const order = providerOrder(answer.provider_summaries, names);
  return h('div', null,
    h('p', {id: 'candidate-count', class: 'good'},
      `${fmt(requests.length)} candidate${requests.length === 1 ? '' : 's'}`,
      requests.length > shown.length ? ` (the first ${shown.length} shown)` : ''),
    h('ol', {class: 'candidates'}, shown.map((r) => h('li', null,
      Object.keys(r.allocations).sort(order).map((u) => h('div', {'data-uuid': u},
        providerLink(u, names.get(u)), ': ',
        Object.entries(r.allocations[u].resources).sort()
          .map(([rc, n]) => `${rc} ${fmt(n)}`).join(', ')))))));
}

function explained(doc) {
  const parts = [h('p', {id: 'summary', class: 'summary'}, doc.summary)];
  for (const group of doc.groups || []) {
    const label = group.suffix ? `Group ${group.suffix}` : 'Unsuffixed group';
    parts.push(section(label, funnel(group.steps || [], group.considered,
                                     {'data-suffix': group.suffix})));
  }
  // The checks spanning groups: {considered, steps} like a group's.
  const combination = doc.combination || {};
  if ((combination.steps || []).length) {
    parts.push(section('Across groups and trees',
      funnel(combination.steps, combination.considered, {id: 'combination'}, 'trees')));
  }
  if (doc.nearest && doc.nearest.length) {
    parts.push(section('Nearest misses', h('ol', {id: 'nearest', class: 'nearest'},
      doc.nearest.map(nearMiss))));
  }
  if (doc.weights) parts.push(section('Weights', weighed(doc.weights)));
  return h('div', null, parts);
}

// The first candidates as weighed ([placement] candidate_order spread or
// pack): each one's score and per class its share of it.
function weighed(weights) {
  const classes = [...new Set(weights.candidates.flatMap((c) => Object.keys(c.parts)))].sort();
  const share = (value) => (value ?? 0).toFixed(3);
  return h('div', {id: 'weights'},
    h('p', {class: 'muted'}, `Order: ${weights.order}; trees within ${weights.tolerance} `
      + 'of each other are shuffled per request.'),
    h('div', {class: 'scroll'}, h('table', {class: 'steps'},
      h('thead', null, h('tr', null, h('th', null, 'Tree'), h('th', {class: 'num'}, 'Score'),
        classes.map((rc) => h('th', {class: 'num'}, rc)))),
      h('tbody', null, weights.candidates.map((c) => h('tr', {'data-uuid': c.root},
        h('td', null, providerLink(c.root, c.root)),
        h('td', {class: 'num', 'data-field': 'score'}, share(c.score)),
        classes.map((rc) => h('td', {class: 'num', title: `${fmt(c.free[rc] ?? 0)} free after the claim`},
          share(c.parts[rc])))))))));
}

// The steps as a funnel: each bar is what remains after that check.
function funnel(steps, considered, attrs, unit = 'providers') {
  const start = considered ?? (steps.length ? steps[0].removed + steps[0].remaining : 0);
  // Marked as the cause only where a check leaves nothing: checks that
  // merely narrow the field are not failures of the request.
  const emptying = steps.find((step) => step.removed > 0 && step.remaining === 0);
  return h('div', {class: 'funnel', ...attrs},
    considered != null ? h('p', {'data-field': 'considered'}, `${fmt(considered)} ${unit} considered`) : null,
    emptying ? h('p', {class: 'first-fail'}, 'Leaves nothing: ',
      h('strong', {'data-field': 'emptying-check'}, emptying.check)) : null,
    h('div', {class: 'scroll'}, h('table', {class: 'steps'},
      h('thead', null, h('tr', null, h('th', null, 'Check'), h('th', {class: 'num'}, 'Removed'),
                         h('th', null, ''), h('th', {class: 'num'}, 'Remaining'))),
      h('tbody', null, steps.map((step) => h('tr', {class: step === emptying ? 'step first' : 'step'},
        h('th', {scope: 'row', 'data-field': 'check'}, step.check),
        h('td', {class: 'num', 'data-field': 'removed'}, step.removed ? `−${fmt(step.removed)}` : '0'),
        h('td', {class: 'bar-cell'}, h('meter', {min: 0, max: Math.max(start, 1), value: step.remaining,
                                                 title: `${step.remaining} of ${start} remain`})),
        h('td', {class: 'num', 'data-field': 'remaining'}, fmt(step.remaining))))))));
}

// One provider that failed exactly one check: which, and by how much.
function nearMiss(entry) {
  return h('li', {'data-uuid': entry.uuid},
    providerLink(entry.uuid, entry.name || entry.uuid), ' ',
    entry.group ? h('span', {class: 'muted'}, `group ${entry.group}: `) : null,
    h('span', {'data-field': 'detail'}, entry.detail), ' ',
    h('span', {class: 'muted small', 'data-field': 'check'}, `(${entry.check})`));
}
