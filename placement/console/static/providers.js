// Providers: the API filters the list (resources=, required=, member_of=,
// in_tree=), the page searches, sorts and pages it; only the visible rows
// read their traits and usage (aggregates are on each provider's page).
import * as api from './api.js';
import {h, clear, fmt, providerLink, usageBar} from './dom.js';

const PAGE_SIZE = 20;
const IN_FLIGHT = 6;
// Placeholders are examples ("e.g."), styled apart from entered values.
const API_FILTERS = [
  ['resources', 'Has capacity for', 'e.g. VCPU:4,MEMORY_MB:8192'],
  ['required', 'Traits', 'e.g. HW_CPU_X86_AVX2,!CUSTOM_SLOW'],
  ['member_of', 'Aggregate', 'e.g. in:uuid1,uuid2'],
  ['in_tree', 'In the tree of', 'a provider uuid'],
];
const SORTS = {
  name: (a, b) => a.name.localeCompare(b.name),
  uuid: (a, b) => a.uuid.localeCompare(b.uuid),
  generation: (a, b) => a.generation - b.generation,
};

// The last list the API returned, by token and query: search, sort and
// paging do not read it again.
let cached = {key: null, providers: null};

export async function renderProviders(main, {query, signal}) {
  const state = {
    q: query.get('q') || '',
    sort: query.get('sort') || 'name',
    page: Math.max(1, parseInt(query.get('page') || '1', 10) || 1),
  };
  const filters = {};
  for (const [key] of API_FILTERS) filters[key] = query.get(key) || '';

  const search = h('input', {type: 'search', id: 'search', value: state.q,
                             placeholder: 'part of a name or uuid', 'aria-label': 'Search'});
  const form = h('form', {class: 'filters', id: 'filters'},
    h('label', null, h('span', null, 'Search'), search),
    API_FILTERS.map(([key, label, placeholder]) => h('label', null, h('span', null, label),
      h('input', {name: key, id: 'filter-' + key, value: filters[key], placeholder}))),
    h('button', {type: 'submit'}, 'Filter'));
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const params = new URLSearchParams();
    if (search.value) params.set('q', search.value);
    for (const [key] of API_FILTERS) {
      const value = form.elements[key].value.trim();
      if (value) params.set(key, value);
    }
    location.hash = '#/providers?' + params;
  });
  const results = h('div', {id: 'results'}, h('p', {class: 'muted'}, 'Loading…'));
  main.append(h('h1', null, 'Resource providers'), form, results);

  const key = JSON.stringify([api.epoch(), filters]);
  if (cached.key !== key) {
    const body = await api.get('resource_providers', filters, signal);
    cached = {key, providers: body.resource_providers};
    for (const rp of cached.providers) api.rememberName(rp.uuid, rp.name);
  }
  const all = cached.providers;
  const byUuid = new Map(all.map((rp) => [rp.uuid, rp]));

  function hashFor(changes) {
    const params = new URLSearchParams();
    const next = {...filters, ...state, ...changes};
    for (const [k, v] of Object.entries(next)) {
      if (v && !(k === 'page' && v === 1) && !(k === 'sort' && v === 'name')) params.set(k, v);
    }
    return '#/providers?' + params;
  }

  // Each view (search, page) cancels the reads of the one before.
  let viewController = null;
  signal.addEventListener('abort', () => viewController && viewController.abort(), {once: true});
  async function view() {
    if (viewController) viewController.abort();
    viewController = new AbortController();
    const viewSignal = viewController.signal;
    const needle = state.q.toLowerCase();
    const matches = needle
      ? all.filter((rp) => rp.name.toLowerCase().includes(needle) || rp.uuid.includes(needle))
      : [...all];
    const desc = state.sort.startsWith('-');
    const compare = SORTS[state.sort.replace(/^-/, '')] || SORTS.name;
    matches.sort(desc ? (a, b) => compare(b, a) : compare);
    const pages = Math.max(1, Math.ceil(matches.length / PAGE_SIZE));
    const page = Math.min(state.page, pages);
    const shown = matches.slice((page - 1) * PAGE_SIZE, page * PAGE_SIZE);

    const sortLink = (field, label) => {
      const next = state.sort === field ? '-' + field : field;
      const mark = state.sort === field ? ' ▲' : state.sort === '-' + field ? ' ▼' : '';
      return h('a', {href: hashFor({sort: next, page: 1}), 'data-sort': field}, label + mark);
    };
    const rows = shown.map((rp) => {
      const parent = byUuid.get(rp.parent_provider_uuid);
      return h('tr', {'data-uuid': rp.uuid},
        h('td', {'data-field': 'name'}, providerLink(rp.uuid, rp.name),
          rp.parent_provider_uuid ? h('div', {class: 'muted small'}, 'child of ',
            parent ? parent.name : rp.parent_provider_uuid) : null),
        h('td', {class: 'mono wide-only', 'data-field': 'uuid'}, rp.uuid),
        h('td', {class: 'num', 'data-field': 'generation'}, rp.generation),
        h('td', {'data-field': 'traits', class: 'small'}, '…'),
        h('td', {'data-field': 'usage'}, '…'));
    });
    clear(results).append(
      h('p', {id: 'count'}, `${fmt(matches.length)} of ${fmt(all.length)} providers`,
        pages > 1 ? ` · page ${page} of ${fmt(pages)}` : ''),
      h('div', {class: 'scroll'}, h('table', {class: 'list', id: 'provider-table'},
        h('thead', null, h('tr', null,
          h('th', null, sortLink('name', 'Name')),
          h('th', {class: 'wide-only'}, sortLink('uuid', 'UUID')),
          h('th', null, sortLink('generation', 'Gen')),
          h('th', null, 'Traits'),
          h('th', null, 'Usage'))),
        h('tbody', null, rows))),
      pager(page, pages, hashFor) || '');

    await api.pool(rows, IN_FLIGHT, async (tr) => {
      const uuid = tr.dataset.uuid;
      const base = 'resource_providers/' + encodeURIComponent(uuid);
      const [traits, usage] = await Promise.all([
        api.get(base + '/traits', null, viewSignal),
        api.providerUsage(uuid, viewSignal),
      ]);
      const cell = (field) => clear(tr.querySelector(`[data-field="${field}"]`));
      cell('traits').append(traits.traits.sort().join(', '));
      cell('usage').append(...usage.map((r) => h('div', {class: 'mini', 'data-rc': r.rc},
        h('span', {class: 'rc'}, r.rc), usageBar(r.used, r.capacity, Math.floor(r.reserved * r.ratio),
          `${r.rc}: used ${fmt(r.used)} of ${fmt(r.capacity)}`),
        h('span', {class: 'num'}, `${fmt(r.used)}/${fmt(r.capacity)}`))));
    }, viewSignal);
    if (!viewSignal.aborted) results.dataset.state = 'done';
  }

  let timer = null;
  search.addEventListener('input', () => {
    clearTimeout(timer);
    timer = setTimeout(() => {
      state.q = search.value;
      state.page = 1;
      history.replaceState(null, '', hashFor({}));
      results.dataset.state = 'loading';
      view().catch((error) => results.append(String(error.message)));
    }, 200);
  });
  await view();
}

function pager(page, pages, hashFor) {
  if (pages <= 1) return null;
  const item = (n, label) => n === page || n < 1 || n > pages
    ? h('span', {class: 'muted'}, label)
    : h('a', {href: hashFor({page: n}), 'data-page': n}, label);
  return h('nav', {class: 'pager', 'aria-label': 'Pages'},
    item(1, '« first'), item(page - 1, '‹ previous'),
    h('span', null, `${page} / ${fmt(pages)}`),
    item(page + 1, 'next ›'), item(pages, 'last »'));
}
