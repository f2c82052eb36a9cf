// Tool Playground inspector. Every value from a tool, a model or the audit copy is put into the
// page with textContent (or as a form control's value), never parsed as markup: artifacts are
// inert text whatever they contain. The page's CSP forbids inline script and eval as a second wall.
'use strict';

const PAGE_SIZE = 100;

// An element with a class and, optionally, text. Attribute names here are constants of this file.
function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined && text !== null) node.textContent = String(text);
  return node;
}

function testId(node, id) {
  node.dataset.testid = id;
  return node;
}

function clear(node) {
  while (node.firstChild) node.removeChild(node.firstChild);
}

function pretty(value) {
  try {
    return JSON.stringify(value, null, 2);
  } catch (error) {
    return String(value);
  }
}

function formatMs(ms) {
  if (typeof ms !== 'number' || !isFinite(ms)) return '';
  return ms < 10 ? ms.toFixed(2) + ' ms' : ms.toFixed(1) + ' ms';
}

function isStringArray(value) {
  return Array.isArray(value) && value.every((item) => typeof item === 'string');
}

// ---- artifacts ---------------------------------------------------------------------------------

function renderTable(data) {
  const wrap = el('div', 'table-wrap');
  const pager = el('div', 'pager');
  const previous = el('button', 'previous', 'Previous');
  const next = el('button', 'next', 'Next');
  previous.type = 'button';
  next.type = 'button';
  const position = testId(el('span', 'position'), 'page-position');
  pager.append(previous, position, next);
  const table = el('table');
  const head = el('thead');
  const headRow = el('tr');
  for (const column of data.columns) headRow.append(el('th', null, column));
  head.append(headRow);
  const body = el('tbody');
  table.append(head, body);
  const pages = Math.max(1, Math.ceil(data.rows.length / PAGE_SIZE));
  let page = 0;
  function show() {
    clear(body);
    const start = page * PAGE_SIZE;
    for (const row of data.rows.slice(start, start + PAGE_SIZE)) {
      const tr = el('tr');
      for (const value of row) tr.append(el('td', null, value));
      body.append(tr);
    }
    const end = Math.min(data.rows.length, start + PAGE_SIZE);
    position.textContent = data.rows.length === 0
      ? 'no rows'
      : 'rows ' + (start + 1) + '–' + end + ' of ' + data.rows.length;
    previous.disabled = page === 0;
    next.disabled = page >= pages - 1;
  }
  previous.addEventListener('click', () => { if (page > 0) { page -= 1; show(); } });
  next.addEventListener('click', () => { if (page < pages - 1) { page += 1; show(); } });
  show();
  if (pages > 1) wrap.append(pager); else wrap.append(position);
  wrap.append(table);
  return wrap;
}

function isTable(artifact) {
  const data = artifact.data;
  return artifact.type === 'table' && data && typeof data === 'object' &&
    isStringArray(data.columns) && Array.isArray(data.rows) &&
    data.rows.every((row) => isStringArray(row) && row.length === data.columns.length);
}

function isText(artifact) {
  return artifact.type === 'text' && artifact.data && typeof artifact.data === 'object' &&
    typeof artifact.data.text === 'string';
}

// One artifact: a TABLE as a table, a TEXT as preformatted text, anything else as JSON text.
function renderArtifact(artifact) {
  const box = testId(el('div', 'artifact'), 'artifact');
  const known = artifact && typeof artifact === 'object';
  const label = known && typeof artifact.label === 'string' ? artifact.label : '(no label)';
  const heading = el('h3');
  heading.append(testId(el('span', null, label), 'artifact-label'));
  const kind = el('span', 'kind', known && typeof artifact.type === 'string' ? artifact.type : 'unknown');
  heading.append(kind);
  box.append(heading);
  if (known && isTable(artifact)) {
    box.dataset.kind = 'table';
    box.append(renderTable(artifact.data));
  } else if (known && isText(artifact)) {
    box.dataset.kind = 'text';
    box.append(testId(el('pre', 'artifact-text', artifact.data.text), 'artifact-text'));
  } else {
    box.dataset.kind = 'json';
    box.append(testId(el('pre', 'artifact-json', pretty(artifact)), 'artifact-json'));
  }
  return box;
}

// ---- steps -------------------------------------------------------------------------------------

// A step as the renderer takes it: {index, kind, name, duration_ms, is_error, arguments, content,
// artifacts (array, or null when not kept), artifact_count, artifact_types, note}.
function renderStep(step) {
  const item = testId(el('li', 'step'), 'step');
  item.dataset.kind = step.kind || '';
  item.dataset.index = String(step.index);
  if (step.is_error) item.classList.add('failed');
  const head = el('div', 'step-head');
  head.append(el('strong', null, '#' + step.index + ' ' + (step.kind || 'step')));
  if (step.name) head.append(testId(el('span', 'name', step.name), 'step-name'));
  if (step.is_error) head.append(el('span', 'error', 'error'));
  if (step.note) head.append(el('span', 'meta', step.note));
  head.append(testId(el('span', 'duration', formatMs(step.duration_ms)), 'step-duration'));
  item.append(head);
  if (step.kind !== 'tool') {
    if (step.content !== null && step.content !== undefined && step.content !== '') {
      item.append(el('pre', 'step-body', step.content));
    }
    return item;
  }
  const tabs = testId(el('div', 'tabs'), 'tabs');
  tabs.setAttribute('role', 'tablist');
  const body = el('div', 'step-body');
  const panels = [];
  function addTab(name, build) {
    const button = testId(el('button', null, name), 'tab-' + name.toLowerCase());
    button.type = 'button';
    button.setAttribute('role', 'tab');
    button.setAttribute('aria-selected', 'false');
    const panel = testId(el('div', 'panel'), 'panel-' + name.toLowerCase());
    panel.hidden = true;
    build(panel);
    panels.push([button, panel]);
    button.addEventListener('click', () => {
      for (const [other, otherPanel] of panels) {
        other.setAttribute('aria-selected', String(other === button));
        otherPanel.hidden = other !== button;
      }
    });
    tabs.append(button);
    body.append(panel);
  }
  addTab('Arguments', (panel) => {
    if (step.arguments === null || step.arguments === undefined) {
      panel.append(el('p', 'note', 'not kept at this privacy level'));
      return;
    }
    let shown = step.arguments;
    try { shown = pretty(JSON.parse(step.arguments)); } catch (error) { /* shown raw */ }
    panel.append(testId(el('pre', null, shown), 'arguments'));
  });
  addTab('Result', (panel) => {
    if (step.content === null || step.content === undefined) {
      panel.append(el('p', 'note', 'not kept at this privacy level'));
      return;
    }
    panel.append(el('p', 'meta', 'Exactly the wire string the model receives:'));
    panel.append(testId(el('pre', 'wire', step.content), 'wire'));
  });
  const count = Array.isArray(step.artifacts) ? step.artifacts.length : (step.artifact_count || 0);
  if (count > 0) {
    addTab('Artifacts', (panel) => {
      panel.append(el('p', 'meta', 'Run-only: shown to people, never sent to the model.'));
      if (!Array.isArray(step.artifacts)) {
        const types = Array.isArray(step.artifact_types) ? step.artifact_types.join(', ') : '';
        panel.append(el('p', 'note', count + ' artifacts (' + types + '); their data is not kept at this privacy level'));
        return;
      }
      for (const artifact of step.artifacts) panel.append(renderArtifact(artifact));
    });
    tabs.lastChild.textContent = 'Artifacts (' + count + ')';
  }
  item.append(tabs, body);
  // The Result tab is open first: it is what the model saw.
  panels[1][0].click();
  return item;
}

function fromInvocation(index, invocation) {
  return {
    index,
    kind: 'tool',
    name: invocation.name,
    duration_ms: invocation.duration,
    is_error: invocation.is_error,
    arguments: invocation.arguments,
    content: invocation.content,
    artifacts: Array.isArray(invocation.artifacts) ? invocation.artifacts : [],
  };
}

function fromStep(index, step) {
  if (step.kind === 'llm') {
    const calls = Array.isArray(step.tool_calls) ? step.tool_calls.length : 0;
    return {
      index, kind: 'llm', duration_ms: step.duration, is_error: Boolean(step.error),
      content: step.error || step.content, note: calls + ' tool calls',
    };
  }
  if (step.kind === 'request') {
    const tools = Array.isArray(step.tools) ? step.tools.length : 0;
    return { index, kind: 'request', content: null, note: tools + ' tools offered' };
  }
  return { index, kind: step.kind, content: pretty(step) };
}

// ---- inspector ---------------------------------------------------------------------------------

async function getJson(url, options) {
  const response = await fetch(url, options);
  const body = await response.json();
  if (!response.ok) throw new Error(body && body.error ? body.error : response.statusText);
  return body;
}

function schemaType(schema) {
  if (!schema || typeof schema !== 'object') return 'json';
  let type = schema.type;
  if (Array.isArray(type)) type = type.find((t) => t !== 'null');
  if (type === 'string' && !schema.enum) return 'string';
  if (type === 'integer' || type === 'number' || type === 'boolean') return type;
  return 'json';
}

function buildForm(form, tool) {
  clear(form);
  const schema = tool.input_schema || {};
  const properties = schema.properties && typeof schema.properties === 'object' ? schema.properties : {};
  const required = new Set(Array.isArray(schema.required) ? schema.required : []);
  const fields = [];
  for (const name of Object.keys(properties)) {
    const property = properties[name];
    const type = schemaType(property);
    const label = el('label', null, name + (required.has(name) ? ' *' : ''));
    const hint = el('span', 'hint', ' ' + type + (property && property.description ? ' — ' + property.description : ''));
    label.append(hint);
    let input;
    if (type === 'boolean') {
      input = document.createElement('input');
      input.type = 'checkbox';
      input.checked = Boolean(property.default);
    } else if (type === 'json') {
      input = document.createElement('textarea');
      input.rows = 3;
      input.placeholder = 'JSON';
    } else {
      input = document.createElement('input');
      input.type = type === 'string' ? 'text' : 'number';
      if (property && property.default !== undefined && property.default !== null) {
        input.placeholder = 'default: ' + String(property.default);
      }
    }
    input.name = name;
    input.dataset.testid = 'field-' + name;
    form.append(label, input);
    fields.push({ name, type, input, required: required.has(name) });
  }
  if (fields.length === 0) form.append(el('p', 'note', 'This tool takes no arguments.'));
  return fields;
}

function formArguments(fields) {
  const args = {};
  for (const field of fields) {
    const value = field.input.value;
    if (field.type === 'boolean') {
      args[field.name] = field.input.checked;
    } else if (value === '') {
      if (field.required && field.type === 'string') args[field.name] = '';
    } else if (field.type === 'string') {
      args[field.name] = value;
    } else if (field.type === 'json') {
      try { args[field.name] = JSON.parse(value); } catch (error) {
        throw new Error(field.name + ': not valid JSON (' + error.message + ')');
      }
    } else {
      const number = Number(value);
      if (!isFinite(number)) throw new Error(field.name + ': not a number');
      args[field.name] = number;
    }
  }
  return args;
}

async function inspector() {
  const list = document.getElementById('tool-list');
  const steps = document.getElementById('steps');
  const status = document.getElementById('status');
  const form = document.getElementById('arg-form');
  const raw = document.getElementById('raw-args');
  const argError = document.getElementById('arg-error');
  let current = null;
  let fields = [];
  const [tools, config] = await Promise.all([getJson('/api/tools'), getJson('/api/config')]);
  document.getElementById('tool-count').textContent = '(' + tools.length + ')';
  document.getElementById('script').value = config.default_script;
  document.getElementById('question').value = config.default_question;
  const live = document.getElementById('live-mode');
  if (config.live) {
    document.getElementById('live-info').textContent = '(' + config.live.model + ' at ' + config.live.base_url + ')';
  } else {
    live.disabled = true;
    document.getElementById('live-info').textContent = '(start with --base-url to enable)';
  }
  const buttons = [];
  for (const tool of tools) {
    const item = el('li');
    const button = testId(el('button', null, tool.name), 'tool-' + tool.name);
    button.type = 'button';
    button.append(el('span', 'group', tool.group));
    button.addEventListener('click', () => select(tool, button));
    item.append(button);
    list.append(item);
    buttons.push([tool, item]);
  }
  document.getElementById('tool-filter').addEventListener('input', (event) => {
    const needle = event.target.value.toLowerCase();
    for (const [tool, item] of buttons) item.hidden = !tool.name.toLowerCase().includes(needle);
  });
  function rawMode() { return document.getElementById('raw-mode').checked; }
  function select(tool, button) {
    current = tool;
    for (const node of list.querySelectorAll('button.selected')) node.classList.remove('selected');
    button.classList.add('selected');
    document.getElementById('tool-detail').hidden = false;
    document.getElementById('tool-name').textContent = tool.name;
    const flags = Object.keys(tool.flags).filter((key) => tool.flags[key] && key !== 'enabled_by_default');
    if (!tool.flags.enabled_by_default) flags.push('not enabled by default');
    document.getElementById('tool-meta').textContent = 'group ' + tool.group + (flags.length ? ' · ' + flags.join(', ') : '');
    document.getElementById('tool-description').textContent = tool.description;
    document.getElementById('tool-schema').textContent = pretty(tool.input_schema);
    fields = buildForm(form, tool);
    raw.value = '{}';
    argError.textContent = '';
  }
  for (const radio of document.querySelectorAll('input[name=arg-mode]')) {
    radio.addEventListener('change', () => {
      const useRaw = rawMode();
      if (useRaw) {
        try { raw.value = JSON.stringify(formArguments(fields), null, 2); } catch (error) { /* keep */ }
      }
      raw.hidden = !useRaw;
      form.hidden = useRaw;
    });
  }
  document.getElementById('run-tool').addEventListener('click', async () => {
    if (!current) return;
    argError.textContent = '';
    let text;
    try {
      if (rawMode()) {
        text = raw.value;
        JSON.parse(text);
      } else {
        text = JSON.stringify(formArguments(fields));
      }
    } catch (error) {
      argError.textContent = 'Arguments: ' + error.message;
      return;
    }
    clear(steps);
    status.textContent = 'running ' + current.name + '…';
    try {
      const event = await getJson('/api/invoke', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ name: current.name, arguments: text }),
      });
      steps.append(renderStep(fromInvocation(event.index, event.invocation)));
      const wanted = new URLSearchParams(window.location.search).get('tab');
      const tab = wanted && steps.querySelector('[data-testid="tab-' + wanted.replace(/[^a-z]/g, '') + '"]');
      if (tab) tab.click();
      status.textContent = 'done';
    } catch (error) {
      status.textContent = 'failed: ' + error.message;
    }
  });
  document.getElementById('run-loop').addEventListener('click', () => runLoop(steps, status));
  // Deep links: ?tool=NAME selects a tool, &args=JSON fills the raw arguments, &run=1 runs it,
  // &tab=artifacts (or arguments, result) opens that tab of the result.
  const query = new URLSearchParams(window.location.search);
  const linked = buttons.find(([tool]) => tool.name === query.get('tool'));
  if (linked) {
    linked[1].querySelector('button').click();
    if (query.has('args')) {
      document.getElementById('raw-mode').click();
      raw.value = query.get('args');
    }
    if (query.get('run') === '1') document.getElementById('run-tool').click();
  }
}

async function runLoop(steps, status) {
  clear(steps);
  status.textContent = 'running…';
  const mode = document.getElementById('live-mode').checked ? 'live' : 'scripted';
  const body = {
    mode,
    question: document.getElementById('question').value,
    script: document.getElementById('script').value,
  };
  let response;
  try {
    response = await fetch('/api/run', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  } catch (error) {
    status.textContent = 'failed: ' + error.message;
    return;
  }
  if (!response.ok) {
    let message = response.statusText;
    try { message = (await response.json()).error; } catch (error) { /* keep */ }
    status.textContent = 'failed: ' + message;
    return;
  }
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += decoder.decode(value, { stream: true });
    let newline;
    while ((newline = buffer.indexOf('\n')) >= 0) {
      const line = buffer.slice(0, newline);
      buffer = buffer.slice(newline + 1);
      if (line.trim() !== '') onEvent(JSON.parse(line), steps, status);
    }
  }
}

function placeStep(steps, index, node) {
  const existing = steps.querySelector('li[data-index="' + Number(index) + '"]');
  if (existing) existing.replaceWith(node); else steps.append(node);
}

function onEvent(event, steps, status) {
  switch (event.event) {
    case 'run_started':
      status.textContent = 'run ' + event.run_id + ' running…';
      break;
    case 'step_started': {
      const pending = testId(el('li', 'step pending'), 'step-pending');
      pending.dataset.index = String(Number(event.index));
      pending.append(el('div', 'step-head', '#' + event.index + ' ' + event.kind + (event.tool ? ' ' + event.tool : '') + ' …'));
      placeStep(steps, event.index, pending);
      break;
    }
    case 'step_finished':
      placeStep(steps, event.index, renderStep(fromStep(event.index, event.step)));
      break;
    case 'tool_invoked':
      placeStep(steps, event.index, renderStep(fromInvocation(event.index, event.invocation)));
      break;
    case 'error':
      steps.append(el('li', 'step error', 'error: ' + event.message));
      break;
    case 'done':
      status.textContent = 'done: ' + event.termination;
      status.dataset.done = 'true';
      if (event.content) {
        const answer = testId(el('li', 'step'), 'answer');
        answer.append(el('div', 'step-head', 'answer'), el('pre', 'step-body', event.content));
        steps.append(answer);
      }
      break;
    default:
      break;
  }
}

// ---- runs history ------------------------------------------------------------------------------

async function history() {
  const list = document.getElementById('run-list');
  const steps = document.getElementById('steps');
  const title = document.getElementById('run-title');
  const data = await getJson('/api/runs');
  document.getElementById('audit-info').textContent = data.audit
    ? 'From the audit copy (SQLite). New rows are kept at privacy level: ' + data.audit + '.'
    : 'No audit copy is kept by this server.';
  async function open(runId) {
    clear(steps);
    try {
      const detail = await getJson('/api/runs/' + encodeURIComponent(runId));
      title.textContent = detail.run.kind + ' ' + detail.run.run_id + ' · ' + (detail.run.title || '') +
        ' · ' + (detail.run.termination || 'unfinished') + ' · privacy ' + detail.run.privacy;
      for (const step of detail.steps) steps.append(renderStep(step));
      title.dataset.loaded = detail.run.run_id;
    } catch (error) {
      title.textContent = 'cannot open run: ' + error.message;
    }
  }
  function show(runs) {
    clear(list);
    for (const run of runs) {
      const item = el('li');
      const button = testId(el('button', null, run.started_at + ' · ' + run.kind + ' · ' + (run.title || '')), 'run-' + run.run_id);
      button.type = 'button';
      button.append(el('span', 'group', run.steps + ' steps · ' + (run.termination || 'unfinished')));
      button.addEventListener('click', () => open(run.run_id));
      item.append(button);
      list.append(item);
    }
    if (runs.length === 0) list.append(el('li', 'note', 'No runs yet.'));
  }
  // Other processes write to the same audit copy (`playground mcp`, say): look again every two
  // seconds and redraw the list when a run or a step was added.
  const shape = (runs) => JSON.stringify(runs.map((run) => [run.run_id, run.steps, run.termination]));
  let shown = shape(data.runs);
  show(data.runs);
  if (data.audit) {
    window.setInterval(async () => {
      try {
        const fresh = await getJson('/api/runs');
        if (shape(fresh.runs) !== shown) {
          shown = shape(fresh.runs);
          show(fresh.runs);
        }
      } catch (error) {
        document.getElementById('audit-info').textContent = 'cannot refresh the runs: ' + error.message;
      }
    }, 2000);
  }
  const wanted = new URLSearchParams(window.location.search).get('run');
  if (wanted) await open(wanted);
}

function start() {
  const page = document.body.dataset.page;
  const work = page === 'runs' ? history() : inspector();
  work.then(() => { document.body.dataset.ready = 'true'; }, (error) => {
    document.body.dataset.ready = 'error';
    const status = document.getElementById('status') || document.getElementById('run-title');
    if (status) status.textContent = 'failed to load: ' + error.message;
  });
}

start();
