// Providers: one page at a time from GET /summary/providers, which
// filters as GET /resource_providers does (resources=, required=,
// member_of=, in_tree=), searches names and uuids, sorts and pages in the
// database, and sends each provider's traits and usage along: one request
// a page, however many providers there are (aggregates are on each
// provider's page).
import * as api from './api.js';
import {h, clear, fmt, plural, providerLink, usageBar} from './dom.js';

const PAGE_SIZE = 20;
// Placeholders are examples ("e.g."), styled apart from entered values.
const API_FILTERS = [
  ['resources', 'Has capacity for', 'e.g. VCPU:4,MEMORY_MB:8192'],
  ['required', 'Traits', 'e.g. HW_CPU_X86_AVX2,!CUSTOM_SLOW'],
  ['member_of', 'Aggregate', 'e.g. in:uuid1,uuid2'],
  ['in_tree', 'In the tree of', 'a provider uuid'],
];
const SORTS = ['name', 'uuid', 'generation'];

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

  function hashFor(changes) {
    const params = new URLSearchParams();
    const next = {...filters, ...state, ...changes};
    for (const [k, v] of Object.entries(next)) {
      if (v && !(k === 'page' && v === 1) && !(k === 'sort' && v === 'name')) params.set(k, v);
    }
    return '#/providers?' + params;
  }

  // Each view (search, page) cancels the read of the one before.
  let viewController = null;
  signal.addEventListener('abort', () => viewController && viewController.abort(), {once: true});
  async function view() {
    if (viewController) viewController.abort();
    viewController = new AbortController();
    const viewSignal = viewController.signal;
    const sort = SORTS.includes(state.sort.replace(/^-/, '')) ? state.sort : 'name';
    const body = await api.get('summary/providers', {
      ...filters, q: state.q, sort, limit: PAGE_SIZE, offset: (state.page - 1) * PAGE_SIZE,
    }, viewSignal);
    if (viewSignal.aborted) return;
    const pages = Math.max(1, Math.ceil(body.count / PAGE_SIZE));
    if (state.page > pages) {
      // Past the end (a stale link): the last page.
      state.page = pages;
      return view();
    }
    for (const rp of body.resource_providers) api.rememberName(rp.uuid, rp.name);

    const sortLink = (field, label) => {
      const next = sort === field ? '-' + field : field;
      const mark = sort === field ? ' ▲' : sort === '-' + field ? ' ▼' : '';
      return h('a', {href: hashFor({sort: next, page: 1}), 'data-sort': field}, label + mark);
    };
    const rows = body.resource_providers.map((rp) => h('tr', {'data-uuid': rp.uuid},
      h('td', {'data-field': 'name'}, providerLink(rp.uuid, rp.name),
        rp.parent_provider_uuid ? h('div', {class: 'muted small'}, 'child of ',
          rp.parent_provider_name) : null),
      h('td', {class: 'mono wide-only', 'data-field': 'uuid'}, rp.uuid),
      h('td', {class: 'num', 'data-field': 'generation'}, rp.generation),
      h('td', {'data-field': 'traits', class: 'small'}, rp.traits.join(', ')),
      h('td', {'data-field': 'usage'}, Object.keys(rp.inventories).sort().map((rc) => {
        const r = rp.inventories[rc];
        return h('div', {class: 'mini', 'data-rc': rc},
          h('span', {class: 'rc'}, rc),
          usageBar(r.used, r.capacity, Math.floor(r.reserved * r.allocation_ratio),
                   `${rc}: used ${fmt(r.used)} of ${fmt(r.capacity)}`),
          h('span', {class: 'num'}, `${fmt(r.used)}/${fmt(r.capacity)}`));
      }))));
    clear(results).append(
      h('p', {id: 'count'}, plural(body.count, 'provider'),
        state.q ? ` match “${state.q}”` : '',
        pages > 1 ? ` · page ${state.page} of ${fmt(pages)}` : ''),
      h('div', {class: 'scroll'}, h('table', {class: 'list', id: 'provider-table'},
        h('thead', null, h('tr', null,
          h('th', null, sortLink('name', 'Name')),
          h('th', {class: 'wide-only'}, sortLink('uuid', 'UUID')),
          h('th', null, sortLink('generation', 'Gen')),
          h('th', null, 'Traits'),
          h('th', null, 'Usage'))),
        h('tbody', null, rows))),
      pager(state.page, pages, hashFor) || '');
    results.dataset.state = 'done';
  }

  let timer = null;
  search.addEventListener('input', () => {
    clearTimeout(timer);
    timer = setTimeout(() => {
      state.q = search.value;
      state.page = 1;
      history.replaceState(null, '', hashFor({}));
      results.dataset.state = 'loading';
      view().catch((error) => {
        if (error.name !== 'AbortError') results.append(String(error.message));
      });
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
