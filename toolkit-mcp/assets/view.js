// The MCP Apps view of toolkit-mcp: shows the artifacts of the call whose result the host gives
// it, on the renderer of artifacts.js. It speaks the extension's JSON-RPC over postMessage with
// its parent (the host) only: `ui/initialize`, then the call's result arrives as
// `ui/notifications/tool-result`; the handle in the result's `_meta` goes to the app-only tool
// through the host (`tools/call`), whose reply carries the artifacts. Nothing here fetches,
// navigates or parses markup.
'use strict';

const PROTOCOL_VERSION = '2026-01-26';
const ARTIFACTS_TOOL = 'toolkit_artifacts';
const HANDLE_KEY = 'toolkit/artifacts';
const APP_INFO = { name: 'toolkit artifacts view', version: '{{version}}' };

const status = document.getElementById('status');
const shown = document.getElementById('artifacts');
const pending = new Map();
let nextId = 1;
let toolName = null;

function send(message) {
  window.parent.postMessage(Object.assign({ jsonrpc: '2.0' }, message), '*');
}

function request(method, params) {
  const id = nextId;
  nextId += 1;
  send({ id, method, params });
  return new Promise((resolve, reject) => pending.set(id, { resolve, reject }));
}

function say(text, failed) {
  status.textContent = text;
  status.classList.toggle('error', Boolean(failed));
}

// The host's theme and style variables (CSS custom properties only).
function applyContext(context) {
  if (!context || typeof context !== 'object') return;
  const root = document.documentElement;
  if (context.theme === 'light' || context.theme === 'dark') {
    root.dataset.theme = context.theme;
    root.style.colorScheme = context.theme;
  }
  const variables = context.styles && context.styles.variables;
  if (variables && typeof variables === 'object') {
    for (const name of Object.keys(variables)) {
      if (name.startsWith('--') && typeof variables[name] === 'string') root.style.setProperty(name, variables[name]);
    }
  }
  const tool = context.toolInfo && context.toolInfo.tool;
  if (tool && typeof tool.name === 'string') toolName = tool.name;
}

function firstText(result) {
  const block = Array.isArray(result.content) ? result.content.find((item) => item && item.type === 'text') : null;
  return block && typeof block.text === 'string' ? block.text : '';
}

async function showResult(result) {
  clear(shown);
  const kept = result && result._meta && result._meta[HANDLE_KEY];
  const handle = kept && typeof kept.handle === 'string' ? kept.handle : null;
  if (handle === null) {
    say(result && result.isError ? 'The call failed; it made no artifacts.' : 'This call made no artifacts.', false);
    return;
  }
  say('Loading the artifacts…', false);
  let reply;
  try {
    reply = await request('tools/call', { name: ARTIFACTS_TOOL, arguments: { handle } });
  } catch (error) {
    say('The host could not fetch the artifacts: ' + (error && error.message ? error.message : String(error)), true);
    return;
  }
  const structured = reply && reply.structuredContent;
  if (reply.isError || !structured || !Array.isArray(structured.artifacts)) {
    say(firstText(reply || {}) || 'The artifacts are not available.', true);
    return;
  }
  const tool = typeof structured.tool === 'string' ? structured.tool : toolName;
  say(plural(structured.artifacts.length) + (tool ? ' of ' + tool : '') + ', for you only: the model never receives them.', false);
  for (const artifact of structured.artifacts) shown.append(renderArtifact(artifact));
}

function plural(count) {
  return count + (count === 1 ? ' artifact' : ' artifacts');
}

function onRequest(message) {
  switch (message.method) {
    case 'ping':
    case 'ui/resource-teardown':
      send({ id: message.id, result: {} });
      break;
    default:
      send({ id: message.id, error: { code: -32601, message: 'Method not found' } });
  }
}

function onNotification(message) {
  switch (message.method) {
    case 'ui/notifications/tool-result':
      showResult(message.params || {});
      break;
    case 'ui/notifications/tool-cancelled':
      clear(shown);
      say('The call was cancelled.', true);
      break;
    case 'ui/notifications/host-context-changed':
      applyContext(message.params);
      break;
    default:
      break;
  }
}

window.addEventListener('message', (event) => {
  if (event.source !== window.parent) return;
  const message = event.data;
  if (!message || typeof message !== 'object' || message.jsonrpc !== '2.0') return;
  if (typeof message.method === 'string') {
    if (message.id !== undefined && message.id !== null) onRequest(message); else onNotification(message);
    return;
  }
  const waiter = pending.get(message.id);
  if (!waiter) return;
  pending.delete(message.id);
  if (message.error) waiter.reject(new Error(String(message.error.message))); else waiter.resolve(message.result);
});

// Tells the host the view's size whenever it changes.
let lastHeight = -1;
new ResizeObserver(() => {
  const height = Math.ceil(document.documentElement.getBoundingClientRect().height);
  if (height === lastHeight) return;
  lastHeight = height;
  send({ method: 'ui/notifications/size-changed', params: { width: Math.ceil(window.innerWidth), height } });
}).observe(document.body);

request('ui/initialize', { appInfo: APP_INFO, appCapabilities: {}, protocolVersion: PROTOCOL_VERSION })
  .then((result) => {
    applyContext(result && result.hostContext);
    send({ method: 'ui/notifications/initialized', params: {} });
  })
  .catch((error) => say('The host refused the view: ' + (error && error.message ? error.message : String(error)), true));
