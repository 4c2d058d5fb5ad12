// The REST API, called with the user's own token: the console has no
// privileges of its own.  The token lives in sessionStorage only.
const API_ROOT = new URL('../', document.baseURI);
const TOKEN_KEY = 'placement-console-token';
export const MICROVERSION = '1.39';

let config = {auth_strategy: 'keystone'};

export async function loadConfig() {
  const response = await fetch('config.json', {cache: 'no-cache'});
  if (response.ok) config = await response.json();
  return config;
}

export function authStrategy() {
  return config.auth_strategy;
}

export function storedToken() {
  return sessionStorage.getItem(TOKEN_KEY);
}

function token() {
  // Under noauth2 the service trusts the header: "admin" is an admin.
  return storedToken() || (authStrategy() === 'noauth2' ? 'admin' : null);
}

// Bumped whenever the token changes: what was read with another token
// (cached lists, names) must not be shown with this one.
let tokenEpoch = 0;

export function epoch() {
  return tokenEpoch;
}

export function setToken(value) {
  sessionStorage.setItem(TOKEN_KEY, value);
  tokenChanged();
}

export function forgetToken() {
  sessionStorage.removeItem(TOKEN_KEY);
  tokenChanged();
}

function tokenChanged() {
  tokenEpoch += 1;
  names.clear();
}

export class ApiError extends Error {
  constructor(status, detail) {
    super(detail);
    this.status = status;
  }
}

// Raised when there is no token, or the service refused it.
export class NeedToken extends Error {}

// GET path (relative to the API root) with a query given as an object
// or as a raw query string; the parsed JSON body.
export async function get(path, query, signal) {
  const url = apiUrl(path);
  if (typeof query === 'string') {
    url.search = query;
  } else if (query) {
    for (const [key, value] of Object.entries(query)) {
      if (value !== undefined && value !== null && value !== '') {
        url.searchParams.append(key, value);
      }
    }
  }
  return send('GET', url, undefined, signal);
}

// POST a JSON body to a route that only reads (POST /capacity).
export async function post(path, body, signal) {
  return send('POST', apiUrl(path), JSON.stringify(body), signal);
}

function apiUrl(path) {
  return new URL(path.replace(/^\//, ''), API_ROOT);
}

async function send(method, url, body, signal) {
  const secret = token();
  if (!secret) throw new NeedToken('A token is needed.');
  const headers = {
    'Accept': 'application/json',
    'X-Auth-Token': secret,
    'OpenStack-API-Version': 'placement ' + MICROVERSION,
  };
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  const response = await fetch(url, {
    method, headers, body, cache: 'no-store', credentials: 'omit', signal,
  });
  if (response.status === 401) {
    forgetToken();
    throw new NeedToken('The service refused the token.');
  }
  if (!response.ok) {
    let detail = response.statusText;
    try {
      const answer = await response.json();
      detail = answer.errors[0].detail;
    } catch (e) {
      // Not the JSON error document: keep the status text.
    }
    throw new ApiError(response.status, detail);
  }
  return response.json();
}

// Run fn(item, index) over items with at most `limit` calls in flight.
export async function pool(items, limit, fn, signal) {
  let next = 0;
  async function worker() {
    while (next < items.length) {
      if (signal && signal.aborted) return;
      const index = next++;
      await fn(items[index], index);
    }
  }
  const workers = [];
  for (let i = 0; i < Math.min(limit, items.length); i++) workers.push(worker());
  await Promise.all(workers);
}

// Provider names by uuid, read once per page load.
const names = new Map();

export function rememberName(uuid, name) {
  names.set(uuid, name);
}

export async function providerName(uuid, signal) {
  if (!names.has(uuid)) {
    try {
      const rp = await get('resource_providers/' + encodeURIComponent(uuid), null, signal);
      names.set(uuid, rp.name);
    } catch (e) {
      if (e instanceof ApiError && e.status === 404) return uuid;
      throw e;
    }
  }
  return names.get(uuid);
}

// Inventory and usage of one provider: [{rc, total, reserved, ratio,
// capacity, used}] sorted by class.
export async function providerUsage(uuid, signal) {
  const base = 'resource_providers/' + encodeURIComponent(uuid);
  const [inv, use] = await Promise.all([
    get(base + '/inventories', null, signal),
    get(base + '/usages', null, signal),
  ]);
  return usageRows(inv.inventories, use.usages);
}

function usageRows(inventories, usages) {
  return Object.keys(inventories).sort().map((rc) => {
    const record = inventories[rc];
    return {
      rc,
      total: record.total,
      reserved: record.reserved,
      ratio: record.allocation_ratio,
      capacity: capacity(record),
      used: usages[rc] || 0,
    };
  });
}

// What can be allocated, as the API's provider summaries count it.
function capacity(record) {
  return Math.floor((record.total - record.reserved) * record.allocation_ratio);
}
