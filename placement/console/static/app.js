// The console's router: one page per location hash, each rendered into
// <main> by a module; leaving a page aborts its pending API calls.
import * as api from './api.js';
import {h, clear, errorBox, parseHash} from './dom.js';
import {renderOverview} from './overview.js';
import {renderProviders} from './providers.js';
import {renderProvider, renderConsumer} from './provider.js';
import {renderExplain} from './explain.js';
import {renderCapacity} from './capacity.js';

const PAGES = {
  overview: renderOverview,
  providers: renderProviders,
  provider: renderProvider,
  consumer: renderConsumer,
  explain: renderExplain,
  capacity: renderCapacity,
};

const main = document.getElementById('main');
let current = null;

function tokenForm(reason) {
  const input = h('input', {type: 'password', id: 'token', autocomplete: 'off',
                            required: true, placeholder: 'gAAAAAB…'});
  const form = h('form', {class: 'panel token', id: 'token-form'},
    h('h2', null, 'Sign in with a token'),
    h('p', null, reason),
    h('p', {class: 'muted'},
      'Paste a keystone token, e.g. the "id" of "openstack token issue". ' +
      'It is kept for this browser tab only (sessionStorage) and sent only to this service.'),
    h('label', {for: 'token'}, 'Token'), input,
    h('button', {type: 'submit'}, 'Use token'));
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    api.setToken(input.value.trim());
    route();
  });
  return form;
}

async function route() {
  if (current) current.abort();
  const controller = new AbortController();
  current = controller;
  const [path, query] = parseHash();
  const [name, ...rest] = path.split('/');
  const page = PAGES[name] ? name : 'overview';
  for (const a of document.querySelectorAll('[data-nav]')) {
    a.classList.toggle('active', a.dataset.nav === page ||
                       (a.dataset.nav === 'providers' && ['provider', 'consumer'].includes(page)));
  }
  document.getElementById('signout').hidden = !api.storedToken();
  clear(main).dataset.state = 'loading';
  main.dataset.page = page;
  try {
    await PAGES[page](main, {
      arg: rest.map(decodeURIComponent).join('/'),
      query: new URLSearchParams(query),
      rawQuery: query,
      signal: controller.signal,
    });
    if (!controller.signal.aborted) main.dataset.state = 'done';
  } catch (error) {
    if (controller.signal.aborted) return;
    if (error instanceof api.NeedToken) {
      clear(main).append(tokenForm(error.message));
      main.dataset.state = 'token';
      document.getElementById('token').focus();
      return;
    }
    main.append(errorBox(error));
    main.dataset.state = 'error';
  }
}

document.getElementById('signout').addEventListener('click', () => {
  api.forgetToken();
  route();
});
window.addEventListener('hashchange', route);
api.loadConfig().then(route, route);
