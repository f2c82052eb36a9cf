// Tool Playground inspector, on the artifacts renderer of /artifacts.js (loaded first). Every
// value from a tool, a model or the audit copy is put into the page with textContent (or as a
// form control's value), never parsed as markup: artifacts are inert text whatever they contain.
// Each such value sits in its own bidi-isolated element, so a right-to-left override in a value
// cannot reorder the page's own labels. The page's CSP forbids inline script and eval as a
// second wall.
'use strict';

const RUNS_PAGE = 50;

// The launch token the server put into this page; every API request carries it.
const TOKEN = (document.querySelector('meta[name="playground-token"]') || {}).content || '';

function plural(count, one, many) {
  return count + ' ' + (count === 1 ? one : many);
}

function formatMs(ms) {
  if (typeof ms !== 'number' || !isFinite(ms)) return '';
  if (ms >= 1000) return (ms / 1000).toFixed(2) + ' s';
  return ms < 10 ? ms.toFixed(2) + ' ms' : ms.toFixed(1) + ' ms';
}

function formatBytes(bytes) {
  if (typeof bytes !== 'number') return '';
  if (bytes < 1024) return plural(bytes, 'byte', 'bytes');
  return (bytes / 1024).toFixed(1) + ' KB';
}

// Tabs that arrow keys move across, as a tablist should.
function arrowKeys(tablist) {
  tablist.addEventListener('keydown', (event) => {
    if (event.key !== 'ArrowRight' && event.key !== 'ArrowLeft') return;
    const tabs = Array.from(tablist.querySelectorAll('[role=tab]'));
    const at = tabs.indexOf(document.activeElement);
    if (at < 0) return;
    const next = tabs[(at + (event.key === 'ArrowRight' ? 1 : tabs.length - 1)) % tabs.length];
    next.focus();
    next.click();
    event.preventDefault();
  });
}

// ---- steps -------------------------------------------------------------------------------------

// A step as the renderer takes it: {index, kind, name, duration_ms, is_error, arguments, content,
// content_bytes, artifacts (array, or null when not kept), artifact_count, artifact_types,
// privacy, note, calls, stop_reason, thinking}.
function renderStep(step) {
  const item = testId(el('li', 'step'), 'step');
  item.dataset.kind = step.kind || '';
  item.dataset.index = String(step.index);
  if (step.is_error) item.classList.add('failed');
  const head = el('div', 'step-head');
  head.append(el('strong', null, '#' + step.index + ' ' + (step.kind || 'step')));
  if (step.name) head.append(testId(val('span', 'name', step.name), 'step-name'));
  if (step.is_error) head.append(el('span', 'error', 'error'));
  if (step.note) head.append(testId(el('span', 'meta', step.note), 'step-note'));
  // Why a model turn ended, in its provider's word when it is none of ours: a value, isolated.
  if (typeof step.stop_reason === 'string' && step.stop_reason !== '') {
    head.append(el('span', 'meta', ' · ended: '), testId(val('span', 'stop-reason', step.stop_reason), 'step-stop-reason'));
    if (step.stop_reason !== 'finished' && step.stop_reason !== 'tool_calls') item.classList.add('stopped');
  }
  head.append(testId(el('span', 'duration', formatMs(step.duration_ms)), 'step-duration'));
  item.append(head);
  // What the model thought before it answered: for people, folded away.
  if (typeof step.thinking === 'string' && step.thinking !== '') {
    const thought = testId(el('details', 'thinking step-body'), 'step-thinking');
    thought.append(el('summary', null, 'What the model thought'), val('pre', null, step.thinking));
    item.append(thought);
  }
  if (step.kind !== 'tool') {
    if (Array.isArray(step.calls) && step.calls.length > 0) {
      const calls = testId(el('ul', 'calls step-body'), 'requested-calls');
      for (const call of step.calls) {
        const line = el('li');
        line.append(el('span', 'meta', 'asks for '), val('code', null, call.name), el('span', 'meta', ' '), val('code', 'args', call.arguments));
        calls.append(line);
      }
      item.append(calls);
    }
    if (step.content !== null && step.content !== undefined && step.content !== '') {
      item.append(testId(val('pre', 'step-body', step.content), 'step-content'));
    }
    return item;
  }
  const tabs = testId(el('div', 'tabs'), 'tabs');
  tabs.setAttribute('role', 'tablist');
  arrowKeys(tabs);
  const body = el('div', 'step-body');
  const panels = [];
  const notKept = (what, bytes) => {
    const where = step.privacy ? ' at privacy ' + step.privacy : ' at this privacy level';
    return what + ' not kept' + where + (typeof bytes === 'number' ? ' (' + formatBytes(bytes) + ')' : '');
  };
  function addTab(name, build) {
    const button = testId(el('button', null, name), 'tab-' + name.toLowerCase());
    button.type = 'button';
    button.setAttribute('role', 'tab');
    button.setAttribute('aria-selected', 'false');
    button.tabIndex = -1;
    const panel = testId(el('div', 'panel'), 'panel-' + name.toLowerCase());
    panel.setAttribute('role', 'tabpanel');
    panel.hidden = true;
    build(panel);
    panels.push([button, panel]);
    button.addEventListener('click', () => {
      for (const [other, otherPanel] of panels) {
        other.setAttribute('aria-selected', String(other === button));
        other.tabIndex = other === button ? 0 : -1;
        otherPanel.hidden = other !== button;
      }
    });
    tabs.append(button);
    body.append(panel);
  }
  addTab('Arguments', (panel) => {
    if (step.arguments === null || step.arguments === undefined) {
      panel.append(el('p', 'note', notKept('Arguments')));
      return;
    }
    let shown = step.arguments;
    try { shown = pretty(JSON.parse(step.arguments)); } catch (error) { /* shown raw */ }
    panel.append(testId(val('pre', null, shown), 'arguments'));
  });
  addTab('Result', (panel) => {
    if (step.content === null || step.content === undefined) {
      panel.append(el('p', 'note', notKept('The wire string', step.content_bytes)));
    } else {
      panel.append(el('p', 'meta', 'Exactly the wire string the model receives (' + formatBytes(new TextEncoder().encode(step.content).length) + '):'));
      panel.append(testId(val('pre', 'wire', step.content), 'wire'));
    }
    // The media the model saw after the text, checked by the seam: shown as the Artifacts tab
    // shows media (a raster image, a sound; anything else offered for download only).
    const media = Array.isArray(step.media) ? step.media : [];
    if (media.length > 0) {
      panel.append(el('p', 'meta', 'And the media the model sees after it (' + plural(media.length, 'part', 'parts') + '):'));
      const shown = testId(el('div', 'model-media'), 'model-media');
      for (const part of media) {
        const artifact = { type: 'media', label: String(part.name), data: { mime_type: part.mime_type, base64: part.base64 } };
        if (isMedia(artifact)) {
          shown.append(renderArtifact(artifact));
        } else {
          // The audit copy keeps the bytes at privacy full only.
          shown.append(testId(val('p', 'note', notKept(String(part.name) + ' (' + String(part.mime_type) + ')', Number(part.bytes))), 'media-not-kept'));
        }
      }
      panel.append(shown);
    }
  });
  const count = Array.isArray(step.artifacts) ? step.artifacts.length : (step.artifact_count || 0);
  if (count > 0) {
    addTab('Artifacts', (panel) => {
      panel.append(el('p', 'meta', 'Run-only: shown to people, never sent to the model.'));
      if (!Array.isArray(step.artifacts)) {
        const types = Array.isArray(step.artifact_types) ? step.artifact_types.join(', ') : '';
        const why = step.privacy === 'full'
          ? 'their data could not be read back from the audit copy'
          : 'their data is not kept' + (step.privacy ? ' at privacy ' + step.privacy : ' at this privacy level');
        panel.append(el('p', 'note', plural(count, 'artifact', 'artifacts') + ' (' + types + '); ' + why));
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
    media: Array.isArray(invocation.media) ? invocation.media : [],
    artifacts: Array.isArray(invocation.artifacts) ? invocation.artifacts : [],
  };
}

// Token counts as billed: the prompt and the answer, and the parts billed apart when the
// provider counted them.
function usageNote(usage) {
  if (!usage) return '';
  const parts = [];
  if (Number(usage.cache_read_tokens) > 0) parts.push(Number(usage.cache_read_tokens) + ' read from cache');
  if (Number(usage.cache_write_tokens) > 0) parts.push(Number(usage.cache_write_tokens) + ' written to cache');
  if (Number(usage.reasoning_tokens) > 0) parts.push(Number(usage.reasoning_tokens) + ' reasoning');
  return Number(usage.input_tokens) + ' in / ' + Number(usage.output_tokens) + ' out tokens'
    + (parts.length > 0 ? ' (' + parts.join(', ') + ')' : '');
}

function fromStep(index, step) {
  if (step.kind === 'llm') {
    const calls = Array.isArray(step.tool_calls) ? step.tool_calls : [];
    return {
      index, kind: 'llm', duration_ms: step.duration, is_error: Boolean(step.error),
      content: step.error || step.content,
      note: plural(calls.length, 'tool call', 'tool calls') + ' · ' + usageNote(step.usage),
      calls, stop_reason: step.stop_reason, thinking: step.thinking,
    };
  }
  if (step.kind === 'request') {
    const tools = Array.isArray(step.tools) ? step.tools.length : 0;
    return { index, kind: 'request', content: null, note: plural(tools, 'tool', 'tools') + ' offered' };
  }
  if (step.kind === 'suspended') {
    const pending = Array.isArray(step.pending) ? step.pending : [];
    return { index, kind: 'suspended', content: null, note: plural(pending.length, 'call waits', 'calls wait') + ' for you', calls: pending };
  }
  if (step.kind === 'asked') {
    const asked = Array.isArray(step.asked) ? step.asked : [];
    return {
      index, kind: 'asked', name: step.tool,
      note: '(' + step.call_id + ') asks you ' + plural(asked.length, 'question', 'questions'),
      content: asked.map((question) => question.key + ': ' + question.message).join('\n'),
    };
  }
  if (step.kind === 'resumed' || step.kind === 'decided') {
    const decisions = Array.isArray(step.decisions) ? step.decisions : [];
    const note = step.kind === 'decided'
      ? plural(decisions.length, 'call', 'calls') + ' decided without a question'
      : plural(decisions.length, 'decision', 'decisions') + ' by the operator';
    return { index, kind: step.kind, content: decisions.map(describeDecision).join('\n'), note };
  }
  return { index, kind: step.kind, content: pretty(step) };
}

// ---- forms -------------------------------------------------------------------------------------

async function getJson(url, options) {
  const response = await api(url, options);
  const body = await response.json();
  if (!response.ok) throw new Error(body && body.error ? body.error : response.statusText);
  return body;
}

function api(url, options) {
  const given = options || {};
  const headers = Object.assign({}, given.headers || {}, { 'x-playground-token': TOKEN });
  return fetch(url, Object.assign({}, given, { headers }));
}

// The options of a POST with a JSON body.
function postJson(body) {
  return { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) };
}

// The schema a `$ref` points at, within the tool's own schema; what the referring schema says
// beside the `$ref` (its description, its default) wins.
function resolve(schema, root) {
  let current = schema;
  for (let depth = 0; current && typeof current.$ref === 'string' && depth < 20; depth += 1) {
    const path = current.$ref.replace(/^#\//, '').split('/');
    let target = root;
    for (const part of path) target = target && typeof target === 'object' ? target[part] : undefined;
    const beside = Object.assign({}, current);
    delete beside.$ref;
    current = target && typeof target === 'object' ? Object.assign({}, target, beside) : target;
  }
  return current && typeof current === 'object' ? current : {};
}

// A nullable `type: [X, "null"]` or `anyOf: [X, {type: null}]` as X.
function unwrap(schema, root) {
  const resolved = resolve(schema, root);
  if (Array.isArray(resolved.anyOf)) {
    const real = resolved.anyOf.filter((branch) => resolve(branch, root).type !== 'null');
    if (real.length === 1) return Object.assign({}, resolve(real[0], root), { description: resolved.description || resolve(real[0], root).description, default: resolved.default });
  }
  return resolved;
}

function typeOf(schema) {
  let type = schema.type;
  if (Array.isArray(type)) type = type.find((t) => t !== 'null');
  return type;
}

// The choices of an enum: [{value, doc}], or null when the schema is not one.
function choices(schema, root) {
  if (Array.isArray(schema.enum)) return schema.enum.map((value) => ({ value, doc: '' }));
  const branches = schema.oneOf || schema.anyOf;
  if (Array.isArray(branches) && branches.length > 0) {
    const all = branches.map((branch) => resolve(branch, root));
    if (all.every((branch) => 'const' in branch || (Array.isArray(branch.enum) && branch.enum.length === 1))) {
      return all.map((branch) => ({ value: 'const' in branch ? branch.const : branch.enum[0], doc: branch.description || '' }));
    }
  }
  return null;
}

// A value that fits the schema, to show as an example.
function exampleOf(schema, root, depth) {
  const resolved = unwrap(schema, root);
  if (Array.isArray(resolved.examples) && resolved.examples.length > 0) return resolved.examples[0];
  if (resolved.default !== undefined) return resolved.default;
  const options = choices(resolved, root);
  if (options) return options[0].value;
  if (depth > 4) return null;
  switch (typeOf(resolved)) {
    case 'string': return 'text';
    case 'integer': return resolved.minimum !== undefined ? resolved.minimum : 1;
    case 'number': return 1.5;
    case 'boolean': return true;
    case 'array': return [exampleOf(resolved.items || {}, root, depth + 1)];
    case 'object': {
      const out = {};
      const properties = resolved.properties || {};
      for (const name of Object.keys(properties)) out[name] = exampleOf(properties[name], root, depth + 1);
      return out;
    }
    default: return {};
  }
}

// One field for `schema`: {node, read() -> value | undefined, write(value), check() -> errors}.
// Objects and arrays become sub-forms; what the form cannot express becomes a JSON box.
function field(name, schema, root, required, path) {
  const resolved = unwrap(schema, root);
  const type = typeOf(resolved);
  const options = choices(resolved, root);
  const description = resolved.description || '';
  const wrap = testId(el('div', 'field'), 'field-box-' + path);
  wrap.dataset.path = path;
  const label = el('label');
  label.append(el('span', 'field-name', name));
  if (required) label.append(el('span', 'required', ' required'));
  const kindText = options ? 'one of ' + options.length : (type || 'JSON');
  label.append(el('span', 'hint', ' ' + kindText));
  wrap.append(label);
  if (description) wrap.append(el('div', 'hint doc', description));
  const hasDefault = resolved.default !== undefined && resolved.default !== null;
  if (hasDefault) wrap.append(testId(el('div', 'hint', 'default: ' + JSON.stringify(resolved.default)), 'default-' + path));
  const id = 'f-' + path.replace(/[^A-Za-z0-9_-]/g, '_');
  label.htmlFor = id;
  const fail = (message) => [path + ': ' + message];

  if (options) {
    const select = testId(el('select'), 'field-' + path);
    select.id = id;
    select.append(el('option', null, required ? '(choose)' : '(not set)'));
    select.firstChild.value = '';
    options.forEach((option, index) => {
      const item = el('option', null, JSON.stringify(option.value).replace(/^"|"$/g, '') + (option.doc ? ' — ' + option.doc : ''));
      item.value = String(index);
      item.title = option.doc;
      select.append(item);
    });
    wrap.append(select);
    return {
      node: wrap,
      read: () => (select.value === '' ? undefined : options[Number(select.value)].value),
      write: (value) => {
        const at = options.findIndex((option) => JSON.stringify(option.value) === JSON.stringify(value));
        select.value = at < 0 ? '' : String(at);
      },
      check: () => (required && select.value === '' ? fail('choose one') : []),
    };
  }
  if (type === 'boolean') {
    const toggle = el('label', 'toggle');
    const input = testId(el('input'), 'field-' + path);
    input.type = 'checkbox';
    input.id = id;
    input.setAttribute('role', 'switch');
    input.checked = resolved.default === true;
    const state = el('span', 'toggle-state', input.checked ? 'on' : 'off');
    let touched = false;
    input.addEventListener('change', () => { state.textContent = input.checked ? 'on' : 'off'; touched = true; });
    toggle.append(input, state);
    wrap.append(toggle);
    return {
      node: wrap,
      // Sent when required, set by the user, or different from the default.
      read: () => (required || touched || input.checked !== (resolved.default === true) ? input.checked : undefined),
      write: (value) => { input.checked = value === true; state.textContent = input.checked ? 'on' : 'off'; touched = value !== undefined; },
      check: () => [],
    };
  }
  if (type === 'string') {
    const input = testId(el('textarea'), 'field-' + path);
    input.id = id;
    input.rows = /text|content|body|script|sql|query/i.test(name) ? 4 : 1;
    input.spellcheck = false;
    if (hasDefault) input.placeholder = String(resolved.default);
    else if (Array.isArray(resolved.examples) && resolved.examples.length > 0) input.placeholder = 'e.g. ' + String(resolved.examples[0]);
    wrap.append(input);
    return {
      node: wrap,
      read: () => (input.value === '' ? undefined : input.value),
      write: (value) => { input.value = typeof value === 'string' ? value : ''; },
      check: () => {
        if (input.value === '') return required ? fail('required') : [];
        const length = Array.from(input.value).length;
        if (typeof resolved.minLength === 'number' && length < resolved.minLength) return fail('at least ' + resolved.minLength + ' characters');
        if (typeof resolved.maxLength === 'number' && length > resolved.maxLength) return fail('at most ' + resolved.maxLength + ' characters');
        if (typeof resolved.pattern === 'string') {
          try { if (!new RegExp(resolved.pattern, 'u').test(input.value)) return fail('does not match ' + resolved.pattern); } catch (error) { /* a pattern JS cannot read: the server checks */ }
        }
        return [];
      },
    };
  }
  if (type === 'integer' || type === 'number') {
    const input = testId(el('input'), 'field-' + path);
    input.id = id;
    input.type = 'number';
    input.step = type === 'integer' ? '1' : 'any';
    if (typeof resolved.minimum === 'number') input.min = String(resolved.minimum);
    if (typeof resolved.maximum === 'number') input.max = String(resolved.maximum);
    if (hasDefault) input.placeholder = String(resolved.default);
    wrap.append(input);
    return {
      node: wrap,
      read: () => (input.value === '' ? undefined : Number(input.value)),
      write: (value) => { input.value = typeof value === 'number' ? String(value) : ''; },
      check: () => {
        if (input.value === '') return required ? fail('required') : [];
        const number = Number(input.value);
        if (!isFinite(number)) return fail('not a number');
        if (type === 'integer' && !Number.isInteger(number)) return fail('a whole number');
        if (typeof resolved.minimum === 'number' && number < resolved.minimum) return fail('at least ' + resolved.minimum);
        if (typeof resolved.maximum === 'number' && number > resolved.maximum) return fail('at most ' + resolved.maximum);
        return [];
      },
    };
  }
  if (type === 'object' && resolved.properties && typeof resolved.properties === 'object' && path.split('.').length < 6) {
    const box = el('fieldset', 'sub-form');
    const inner = form(resolved, root, path);
    box.append(...inner.nodes);
    wrap.append(box);
    return {
      node: wrap,
      read: () => {
        const value = inner.read();
        return Object.keys(value).length === 0 && !required ? undefined : value;
      },
      write: (value) => inner.write(value && typeof value === 'object' ? value : {}),
      check: () => inner.check(),
    };
  }
  if (type === 'array' && resolved.items && typeof resolved.items === 'object' && path.split('.').length < 6) {
    const list = testId(el('ol', 'sub-list'), 'list-' + path);
    const add = testId(el('button', 'small', 'Add item'), 'add-' + path);
    add.type = 'button';
    const items = [];
    const addItem = (value) => {
      const at = items.length;
      const row = el('li');
      const item = field('item ' + (at + 1), resolved.items, root, true, path + '.' + at);
      const remove = testId(el('button', 'small', 'Remove'), 'remove-' + path + '.' + at);
      remove.type = 'button';
      const entry = { row, item };
      remove.addEventListener('click', () => {
        items.splice(items.indexOf(entry), 1);
        row.remove();
      });
      row.append(item.node, remove);
      list.append(row);
      items.push(entry);
      if (value !== undefined) item.write(value);
    };
    add.addEventListener('click', () => addItem());
    wrap.append(list, add);
    return {
      node: wrap,
      read: () => {
        if (items.length === 0) return required ? [] : undefined;
        return items.map((entry) => entry.item.read());
      },
      write: (value) => {
        for (const entry of items.splice(0)) entry.row.remove();
        if (Array.isArray(value)) for (const item of value) addItem(item);
      },
      check: () => {
        const errors = items.flatMap((entry) => entry.item.check());
        if (typeof resolved.minItems === 'number' && items.length < resolved.minItems) errors.push(path + ': at least ' + resolved.minItems + ' items');
        if (typeof resolved.maxItems === 'number' && items.length > resolved.maxItems) errors.push(path + ': at most ' + resolved.maxItems + ' items');
        return errors;
      },
    };
  }
  // Anything else (a free-form value, a union): JSON text, with an example to start from.
  const input = testId(el('textarea'), 'field-' + path);
  input.id = id;
  input.rows = 3;
  input.spellcheck = false;
  input.placeholder = 'JSON, e.g. ' + JSON.stringify(exampleOf(resolved, root, 0));
  wrap.append(input);
  return {
    node: wrap,
    read: () => {
      if (input.value.trim() === '') return undefined;
      try { return JSON.parse(input.value); } catch (error) { return undefined; }
    },
    write: (value) => { input.value = value === undefined ? '' : JSON.stringify(value); },
    check: () => {
      if (input.value.trim() === '') return required ? fail('required') : [];
      try { JSON.parse(input.value); return []; } catch (error) { return fail('not valid JSON (' + error.message + ')'); }
    },
  };
}

// The fields of an object schema, required ones first (each group in the schema's order).
function form(schema, root, prefix) {
  const properties = schema.properties && typeof schema.properties === 'object' ? schema.properties : {};
  const required = new Set(Array.isArray(schema.required) ? schema.required : []);
  const names = Object.keys(properties);
  const ordered = names.filter((name) => required.has(name)).concat(names.filter((name) => !required.has(name)));
  const fields = ordered.map((name) => [name, field(name, properties[name], root, required.has(name), prefix ? prefix + '.' + name : name)]);
  return {
    nodes: fields.map(([, item]) => item.node),
    read: () => {
      const out = {};
      for (const [name, item] of fields) {
        const value = item.read();
        if (value !== undefined) out[name] = value;
      }
      return out;
    },
    write: (value) => { for (const [name, item] of fields) item.write(value[name]); },
    check: () => fields.flatMap(([, item]) => item.check()),
    empty: fields.length === 0,
  };
}

// ---- inspector ---------------------------------------------------------------------------------

async function inspector() {
  const list = document.getElementById('tool-list');
  const steps = document.getElementById('steps');
  const status = document.getElementById('status');
  const formNode = document.getElementById('arg-form');
  const raw = document.getElementById('raw-args');
  const argError = document.getElementById('arg-error');
  const blocked = document.getElementById('tool-blocked');
  const runTool = document.getElementById('run-tool');
  let current = null;
  let fields = null;
  const [tools, config] = await Promise.all([getJson('/api/tools'), getJson('/api/config')]);
  document.getElementById('tool-count').textContent = '(' + tools.length + ')';
  for (const tool of tools) TOOL_SPECS.set(tool.name, tool);
  document.getElementById('script').value = config.default_script;
  document.getElementById('question').value = config.default_question;
  document.getElementById('writers-info').textContent = (config.writers
    ? 'Tools that change files or records are offered: the loop stops at each of their calls for your approval.'
    : 'Tools that change files or records are not offered (start with --writers to offer them; each call then waits for your approval).')
    + (config.auto_approve ? ' Policy writes-under (--auto-approve): ' + config.auto_approve + ' run without a question.' : '');
  const live = document.getElementById('live-mode');
  if (config.live) {
    document.getElementById('live-info').textContent =
      '(' + config.live.provider + ': ' + config.live.model + ' at ' + config.live.base_url + ')';
  } else {
    live.disabled = true;
    document.getElementById('live-info').textContent = '(start with --provider or --base-url to enable)';
  }
  const buttons = [];
  for (const tool of tools) {
    const item = el('li');
    const button = testId(el('button', null, tool.name), 'tool-' + tool.name);
    button.type = 'button';
    button.append(el('span', 'group', tool.group));
    button.title = (tool.description || '').split('\n')[0];
    button.addEventListener('click', () => select(tool, button));
    item.append(button);
    list.append(item);
    buttons.push([tool, item]);
  }
  document.getElementById('tool-filter').addEventListener('input', (event) => {
    const needle = event.target.value.toLowerCase();
    for (const [tool, item] of buttons) item.hidden = !(tool.name.toLowerCase().includes(needle) || tool.group.toLowerCase().includes(needle));
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
    clear(formNode);
    fields = form(tool.input_schema || {}, tool.input_schema || {}, '');
    formNode.append(...fields.nodes);
    if (fields.empty) formNode.append(el('p', 'note', 'This tool takes no arguments.'));
    raw.value = '{}';
    argError.textContent = '';
    // Tools that change things run only in a loop, after the operator approves the call.
    let why = '';
    if (tool.flags.requires_approval) {
      why = config.writers
        ? tool.name + ' changes files or records, so each call waits for your approval: ask for it in a loop (below); the loop stops and shows the call for you to approve or deny.'
        : tool.name + ' changes files or records, so it is not offered: start the playground with --writers, then ask for it in a loop; each call waits for your approval.';
    } else if (tool.flags.requires_admin) {
      why = tool.name + ' is for administrators, and the playground does not run as one.';
    }
    blocked.textContent = why;
    blocked.hidden = why === '';
    runTool.disabled = why !== '';
    if (rawMode()) document.getElementById('raw-mode').dispatchEvent(new Event('change'));
  }
  for (const radio of document.querySelectorAll('input[name=arg-mode]')) {
    radio.addEventListener('change', () => {
      if (!fields) return;
      const useRaw = rawMode();
      if (useRaw) {
        raw.value = JSON.stringify(fields.read(), null, 2);
      } else {
        // Back to the form: what the raw JSON says, where the form can show it.
        try {
          const value = JSON.parse(raw.value);
          if (value && typeof value === 'object' && !Array.isArray(value)) fields.write(value);
        } catch (error) {
          argError.textContent = 'Raw JSON: ' + error.message + ' (the form keeps its values)';
        }
      }
      raw.hidden = !useRaw;
      formNode.hidden = useRaw;
    });
  }
  runTool.addEventListener('click', async () => {
    if (!current || runTool.disabled) return;
    argError.textContent = '';
    let text;
    if (rawMode()) {
      text = raw.value;
      try { JSON.parse(text); } catch (error) {
        argError.textContent = 'Arguments: ' + error.message;
        return;
      }
    } else {
      const errors = fields.check();
      if (errors.length > 0) {
        argError.textContent = 'Arguments: ' + errors.join('; ');
        return;
      }
      text = JSON.stringify(fields.read());
    }
    clear(steps);
    resetRun();
    status.textContent = 'running ' + current.name + '…';
    runTool.disabled = true;
    try {
      const event = await getJson('/api/invoke', postJson({ name: current.name, arguments: text }));
      steps.append(renderStep(fromInvocation(event.index, event.invocation)));
      const wanted = new URLSearchParams(window.location.search).get('tab');
      const tab = wanted && steps.querySelector('[data-testid="tab-' + wanted.replace(/[^a-z]/g, '') + '"]');
      if (tab) tab.click();
      status.textContent = 'done';
    } catch (error) {
      status.textContent = 'failed: ' + error.message;
    } finally {
      runTool.disabled = false;
    }
  });
  document.addEventListener('keydown', (event) => {
    if (event.key === 'Enter' && (event.ctrlKey || event.metaKey)) {
      event.preventDefault();
      const inLoop = document.getElementById('loop-panel').contains(document.activeElement);
      document.getElementById(inLoop ? 'run-loop' : 'run-tool').click();
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
    if (query.get('run') === '1') runTool.click();
  }
}

// What the page knows of the run it shows: its id, token usage and step durations.
const shown = { runId: null, input: 0, output: 0, cacheRead: 0, cacheWrite: 0, reasoning: 0, durations: [] };

function resetRun() {
  shown.runId = null;
  shown.input = 0;
  shown.output = 0;
  shown.cacheRead = 0;
  shown.cacheWrite = 0;
  shown.reasoning = 0;
  shown.durations = [];
  document.getElementById('run-id').textContent = '';
  document.getElementById('usage').textContent = '';
  const timeline = document.getElementById('timeline');
  clear(timeline);
  timeline.hidden = true;
}

function drawTimeline() {
  const timeline = document.getElementById('timeline');
  clear(timeline);
  const total = shown.durations.reduce((sum, [, , ms]) => sum + ms, 0);
  timeline.hidden = shown.durations.length === 0;
  for (const [index, kind, ms] of shown.durations) {
    const bar = testId(el('span', 'bar ' + kind), 'timeline-bar');
    bar.style.flexGrow = String(Math.max(ms, total / 200));
    bar.title = '#' + index + ' ' + kind + ': ' + formatMs(ms);
    timeline.append(bar);
  }
}

async function runLoop(steps, status) {
  clear(steps);
  resetRun();
  const mode = document.getElementById('live-mode').checked ? 'live' : 'scripted';
  const body = {
    mode,
    question: document.getElementById('question').value,
    script: document.getElementById('script').value,
    stream: document.getElementById('stream-answers').checked,
  };
  await stream('/api/run', body, steps, status, { mode, script: body.script });
}

// Streams a run's events into the steps; whether the run started (or went on).
async function stream(url, body, steps, status, settings) {
  const button = document.getElementById('run-loop');
  button.disabled = true;
  status.textContent = 'running…';
  delete status.dataset.done;
  let started = false;
  try {
    let response;
    try {
      response = await api(url, postJson(body));
    } catch (error) {
      status.textContent = 'failed: ' + error.message;
      return false;
    }
    if (!response.ok) {
      let message = response.statusText;
      try { message = (await response.json()).error; } catch (error) { /* keep */ }
      status.textContent = 'failed: ' + message;
      return false;
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
        if (line.trim() === '') continue;
        const event = JSON.parse(line);
        if (event.event !== 'error' && event.event !== 'not_started') started = true;
        onEvent(event, steps, status, settings);
      }
    }
  } finally {
    button.disabled = false;
  }
  return started;
}

function placeStep(steps, index, node) {
  const existing = steps.querySelector('li[data-index="' + Number(index) + '"]');
  if (existing) existing.replaceWith(node); else steps.append(node);
}

// A model step's answer as it streams in: its text growing, each call as it is assembled, the
// usage when it comes. Appended as text nodes (a hostile answer stays inert text, and each
// piece costs the same however long the answer grew); the finished step replaces it all.
function streamInto(pending, delta) {
  let live = pending.querySelector('[data-testid=streaming]');
  if (!live) {
    live = testId(el('div', 'streaming'), 'streaming');
    live.append(
      testId(val('pre', 'streaming-thinking'), 'streaming-thinking'),
      testId(val('pre', 'streaming-text'), 'streaming-text'),
      testId(el('ul', 'streaming-calls'), 'streaming-calls'),
      testId(el('div', 'meta'), 'streaming-usage'),
      testId(val('div', 'meta'), 'streaming-stop'),
    );
    pending.append(live);
    const what = pending.querySelector('.step-head .meta');
    if (what) what.textContent = ' the model is answering…';
  }
  switch (delta.type) {
    case 'text':
      live.querySelector('[data-testid=streaming-text]').append(document.createTextNode(String(delta.text)));
      break;
    case 'call_started': {
      const call = testId(el('li'), 'streaming-call');
      call.dataset.call = String(Number(delta.index));
      call.append(val('strong', null, delta.name), el('span', 'meta', ' '), val('code', 'arguments', ''));
      live.querySelector('[data-testid=streaming-calls]').append(call);
      break;
    }
    case 'arguments': {
      const code = live.querySelector('li[data-call="' + Number(delta.index) + '"] code');
      if (code) code.append(document.createTextNode(String(delta.fragment)));
      break;
    }
    case 'thinking':
      live.querySelector('[data-testid=streaming-thinking]').append(document.createTextNode(String(delta.text)));
      break;
    case 'usage':
      live.querySelector('[data-testid=streaming-usage]').textContent = usageNote(delta.usage);
      break;
    case 'stop':
      live.querySelector('[data-testid=streaming-stop]').textContent = 'ended: ' + String(delta.reason);
      break;
    default:
      break;
  }
}

// The log levels a tool's lines come with (the class of a line is one of these, never the
// event's own text).
const LOG_LEVELS = ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency'];

// The most log lines a running call shows; older ones leave as new ones come.
const SHOWN_LOG_LINES = 200;

// What a running call's tool reported: a progress bar with its step and message, or one more
// log line. Every value goes in as text; the finished step replaces it all.
function showReport(pending, report) {
  if (report.kind === 'progress') {
    let box = pending.querySelector('[data-testid=call-progress]');
    if (!box) {
      box = testId(el('div', 'call-progress'), 'call-progress');
      box.append(el('progress'), testId(val('span', 'meta'), 'call-progress-text'));
      // Under the step's head, above the log lines.
      const head = pending.querySelector('.step-head');
      if (head) head.after(box); else pending.prepend(box);
    }
    const bar = box.querySelector('progress');
    const done = Number(report.done);
    const total = report.total === undefined ? null : Number(report.total);
    if (total !== null && total > 0) {
      bar.max = total;
      bar.value = Math.min(done, total);
    } else {
      bar.removeAttribute('value');
    }
    const step = total === null ? String(done) : done + ' of ' + total;
    const message = typeof report.message === 'string' ? ' · ' + report.message : '';
    box.querySelector('[data-testid=call-progress-text]').textContent = step + message;
  } else if (report.kind === 'log') {
    let log = pending.querySelector('[data-testid=call-log]');
    if (!log) {
      log = testId(el('ol', 'call-log'), 'call-log');
      pending.append(log);
    }
    const level = LOG_LEVELS.includes(report.level) ? report.level : 'info';
    const line = el('li', 'log-line log-' + level);
    line.append(el('span', 'log-level', level), val('span', 'log-message', report.message));
    log.append(line);
    while (log.children.length > SHOWN_LOG_LINES) log.removeChild(log.firstChild);
  }
}

function onEvent(event, steps, status, settings) {
  switch (event.event) {
    case 'run_started':
      shown.runId = event.run_id;
      document.getElementById('run-id').textContent = 'run ' + event.run_id;
      status.textContent = 'running…';
      break;
    case 'step_started': {
      if (!shown.runId) {
        shown.runId = event.run_id;
        document.getElementById('run-id').textContent = 'run ' + event.run_id;
      }
      const pending = testId(el('li', 'step pending'), 'step-pending');
      pending.dataset.index = String(Number(event.index));
      pending.dataset.kind = event.kind;
      // The call's id, to find it by when its tool reports (compared, never put in a selector).
      if (typeof event.call_id === 'string') pending.dataset.callId = event.call_id;
      const what = event.kind === 'llm' ? 'the model is thinking' : 'running';
      const head = el('div', 'step-head');
      head.append(el('strong', null, '#' + event.index + ' ' + event.kind), el('span', 'meta', ' ' + what + '…'));
      if (event.tool) head.append(val('span', 'name', event.tool));
      pending.append(head);
      placeStep(steps, event.index, pending);
      break;
    }
    case 'step_finished':
      placeStep(steps, event.index, renderStep(fromStep(event.index, event.step)));
      if (event.step.kind === 'llm') {
        if (event.step.usage) {
          const usage = event.step.usage;
          shown.input += Number(usage.input_tokens) || 0;
          shown.output += Number(usage.output_tokens) || 0;
          shown.cacheRead += Number(usage.cache_read_tokens) || 0;
          shown.cacheWrite += Number(usage.cache_write_tokens) || 0;
          shown.reasoning += Number(usage.reasoning_tokens) || 0;
          document.getElementById('usage').textContent = '· ' + usageNote({
            input_tokens: shown.input, output_tokens: shown.output, cache_read_tokens: shown.cacheRead,
            cache_write_tokens: shown.cacheWrite, reasoning_tokens: shown.reasoning,
          });
        }
        shown.durations.push([event.index, 'llm', event.step.duration || 0]);
        drawTimeline();
      }
      break;
    case 'model_delta': {
      const pending = steps.querySelector('li[data-index="' + Number(event.index) + '"]');
      if (pending) streamInto(pending, event.delta);
      break;
    }
    case 'tool_report': {
      const pending = Array.from(steps.querySelectorAll('li.step.pending'))
        .find((node) => node.dataset.callId === event.call_id);
      if (pending && event.report) showReport(pending, event.report);
      break;
    }
    case 'tool_invoked':
      placeStep(steps, event.index, renderStep(fromInvocation(event.index, event.invocation)));
      shown.durations.push([event.index, 'tool', event.invocation.duration || 0]);
      drawTimeline();
      break;
    case 'error':
      steps.append(testId(val('li', 'step error', 'error: ' + event.message), 'stream-error'));
      break;
    case 'not_started':
      status.textContent = 'failed: the run did not start';
      status.dataset.done = 'true';
      break;
    case 'suspended':
      steps.append(approvalBox(event, steps, status, settings));
      break;
    case 'done': {
      status.textContent = event.termination === 'suspended'
        ? 'suspended: waiting for you'
        : 'done: ' + event.termination;
      status.dataset.done = 'true';
      // The answer is the last model step's text; mark that step rather than repeat it.
      const llm = steps.querySelectorAll('li[data-kind=llm]');
      if (event.termination === 'answered' && llm.length > 0) llm[llm.length - 1].classList.add('answer');
      break;
    }
    default:
      break;
  }
}

// The tools the page knows, by name: an edit of a pending call is a form from its schema.
const TOOL_SPECS = new Map();

// The choices an operator has for one pending call: [choice, button label].
const CHOICES = [
  ['approve', 'Approve'],
  ['approve_for_run', 'Approve for this run'],
  ['deny', 'Deny'],
  ['edit', 'Edit'],
];

// An editor of a pending call's arguments: a form from its tool's schema, filled with the
// model's arguments (raw JSON when the page does not know the tool).
function argumentEditor(call, box) {
  const spec = TOOL_SPECS.get(call.name);
  let given = {};
  try { given = JSON.parse(call.arguments); } catch (error) { /* the form starts empty */ }
  if (spec && spec.input_schema && given && typeof given === 'object' && !Array.isArray(given)) {
    const fields = form(spec.input_schema, spec.input_schema, 'edit-' + call.id);
    box.append(...fields.nodes);
    fields.write(given);
    return { read: () => JSON.stringify(fields.read()), check: () => fields.check() };
  }
  const raw = testId(el('textarea'), 'edit-raw-' + call.id);
  raw.rows = 6;
  raw.spellcheck = false;
  raw.value = call.arguments;
  box.append(raw);
  return {
    read: () => raw.value,
    check: () => { try { JSON.parse(raw.value); return []; } catch (error) { return ['not valid JSON (' + error.message + ')']; } },
  };
}

// One pending call: what it asks, its preview, and the operator's choice with a reason (deny)
// or the edited arguments (edit). `shown` is the server's rendering of the call: its arguments
// as sent and its preview with every character a person could not see written out as
// ⟨U+XXXX⟩, and a warning when there was any, so that what you approve is what runs.
function pendingRow(call, shown) {
  const row = testId(el('div', 'pending-call'), 'pending-' + call.id);
  const title = el('div');
  title.append(val('strong', null, call.name), el('span', 'meta', ' call '), val('code', null, call.id));
  row.append(title);
  if (shown.warning) row.append(testId(val('p', 'error', shown.warning), 'pending-warning'));
  row.append(testId(val('pre', null, shown.arguments), 'pending-arguments'));
  // What the tool's preview says the call would do (an edit's diff): for you, not the model.
  const previewed = typeof shown.preview === 'string';
  if (previewed) {
    row.append(el('div', 'meta', 'Preview'), testId(val('pre', 'preview', shown.preview), 'pending-preview'));
  }
  const choice = el('div', 'decision');
  const buttons = CHOICES.map(([kind, label]) => {
    const name = kind.replace(/_/g, '-');
    const button = testId(el('button', name, label), name + '-' + call.id);
    button.type = 'button';
    button.setAttribute('aria-pressed', 'false');
    choice.append(button);
    return [kind, button];
  });
  const reasonBox = el('label', 'reason');
  reasonBox.hidden = true;
  const reason = testId(el('input'), 'reason-' + call.id);
  reason.type = 'text';
  reason.placeholder = 'optional: the standard refusal otherwise';
  reasonBox.append(el('span', 'meta', 'Reason the model reads '), reason);
  const editBox = testId(el('div', 'edit'), 'edit-form-' + call.id);
  editBox.hidden = true;
  editBox.append(el('p', 'meta', previewed
    ? 'The edited call waits again, with the preview of the new arguments, before it runs.'
    : 'The edited call runs with these arguments once they pass the tool\'s checks.'));
  const editor = argumentEditor(call, editBox);
  const error = testId(el('p', 'error'), 'decision-error-' + call.id);
  error.setAttribute('role', 'alert');
  editBox.addEventListener('input', () => { error.textContent = ''; });
  const state = { call, kind: null };
  for (const [kind, button] of buttons) {
    button.addEventListener('click', () => {
      state.kind = kind;
      for (const [other, otherButton] of buttons) otherButton.setAttribute('aria-pressed', String(other === kind));
      row.dataset.decision = kind;
      reasonBox.hidden = kind !== 'deny';
      editBox.hidden = kind !== 'edit';
      error.textContent = '';
    });
  }
  row.append(choice, reasonBox, editBox, error);
  // The decision to send, or null when there is none; an edit that does not check says why.
  state.decision = () => {
    error.textContent = '';
    if (state.kind === null) return null;
    if (state.kind === 'deny') {
      return reason.value.trim() === ''
        ? { call_id: call.id, choice: 'deny' }
        : { call_id: call.id, choice: 'deny', reason: reason.value };
    }
    if (state.kind === 'edit') {
      const errors = editor.check();
      if (errors.length > 0) {
        error.textContent = 'Arguments: ' + errors.join('; ');
        return undefined;
      }
      return { call_id: call.id, choice: 'edit', arguments: editor.read() };
    }
    return { call_id: call.id, choice: state.kind };
  };
  return { row, state };
}

// A pending call whose tool asked you questions: each question's text and its form, and the
// choice to answer them or decline them all. Left without a choice, the questions are dismissed
// and the tool hears so.
function questionRow(call, questions) {
  const row = testId(el('div', 'pending-call'), 'pending-' + call.id);
  const title = el('div');
  title.append(val('strong', null, call.name), el('span', 'meta', ' call '), val('code', null, call.id), el('span', 'meta', ' asks you'));
  row.append(title);
  const forms = questions.asked.map((asked) => {
    const box = testId(el('div', 'edit'), 'question-' + call.id + '-' + asked.key);
    box.append(testId(val('p', 'question', asked.message), 'question-text'));
    const fields = form(asked.form, asked.form, 'answer-' + call.id + '-' + asked.key);
    box.append(...fields.nodes);
    row.append(box);
    return [asked.key, fields];
  });
  const choice = el('div', 'decision');
  const answer = testId(el('button', 'approve', 'Answer'), 'answer-' + call.id);
  const decline = testId(el('button', 'deny', 'Decline'), 'decline-' + call.id);
  const error = testId(el('p', 'error'), 'decision-error-' + call.id);
  error.setAttribute('role', 'alert');
  const state = { call, kind: null };
  for (const [kind, button] of [['answer', answer], ['deny', decline]]) {
    button.type = 'button';
    button.setAttribute('aria-pressed', 'false');
    button.addEventListener('click', () => {
      state.kind = kind;
      answer.setAttribute('aria-pressed', String(kind === 'answer'));
      decline.setAttribute('aria-pressed', String(kind === 'deny'));
      row.dataset.decision = kind;
      error.textContent = '';
    });
    choice.append(button);
  }
  row.append(choice, error);
  state.decision = () => {
    error.textContent = '';
    if (state.kind === null) return null;
    if (state.kind === 'deny') return { call_id: call.id, choice: 'deny' };
    const errors = forms.flatMap(([, fields]) => fields.check());
    if (errors.length > 0) {
      error.textContent = 'Answers: ' + errors.join('; ');
      return undefined;
    }
    const answers = {};
    for (const [key, fields] of forms) answers[key] = { action: 'accept', content: fields.read() };
    return { call_id: call.id, choice: 'answer', answers };
  };
  return { row, state };
}

// The pending calls of a suspended run, each with its choices, and the buttons that resume the
// run or stop it.
function approvalBox(event, steps, status, settings) {
  const box = testId(el('li', 'step approval'), 'approval');
  const head = el('div', 'step-head');
  head.append(el('strong', null, 'Waiting for you'), el('span', 'meta', plural(event.pending.length, 'call', 'calls') + ' · the token opens once, within an hour'));
  box.append(head);
  const body = el('div', 'step-body');
  const shown = Array.isArray(event.shown) ? event.shown : [];
  const questions = Array.isArray(event.questions) ? event.questions : [];
  const rows = event.pending.map((call) => {
    const asked = questions.find((item) => item && item.call_id === call.id && Array.isArray(item.asked));
    return asked
      ? questionRow(call, asked)
      : pendingRow(call, shown.find((item) => item && item.call_id === call.id) || { arguments: call.arguments });
  });
  for (const { row } of rows) body.append(row);
  const go = testId(el('button', null, 'Continue the run'), 'resume');
  go.type = 'button';
  const abort = testId(el('button', 'abort', 'Abort the run'), 'abort');
  abort.type = 'button';
  const note = el('p', 'meta', 'Calls left without a decision are refused, and questions left unanswered are dismissed. Abort ends the run: nothing that waits runs.');
  const send = async (request) => {
    for (const button of box.querySelectorAll('button, input, select, textarea')) button.disabled = true;
    box.dataset.sent = 'true';
    const started = await stream('/api/resume', Object.assign({ token: event.token, mode: settings.mode, script: settings.script }, request), steps, status, settings);
    // Refused before the run went on (an edit the tool refuses, say): the token is unspent.
    if (!started) {
      for (const button of box.querySelectorAll('button, input, select, textarea')) button.disabled = false;
      delete box.dataset.sent;
    }
  };
  go.addEventListener('click', () => {
    const decisions = rows.map(({ state }) => state.decision());
    if (decisions.includes(undefined)) return;
    send({ decisions: decisions.filter((decision) => decision !== null) });
  });
  abort.addEventListener('click', () => send({ abort: true }));
  const actions = el('div', 'decision');
  actions.append(go, abort);
  body.append(note, actions);
  box.append(body);
  return box;
}

// One recorded decision as a line: `denied delete_path (w2): the reason`.
function describeDecision(decision) {
  let line = String(decision.decision).replace(/_/g, ' ') + ' ' + decision.tool + ' (' + decision.call_id + ')';
  if (decision.by === 'policy') line += ' by policy ' + decision.policy + ': ' + decision.why;
  else if (decision.by === 'approved_for_run') line += ': its tool is approved for this run';
  else if (decision.decision === 'denied' && decision.reason) line += ': ' + decision.reason;
  if (decision.decision === 'edited') line += ': ' + decision.original + ' → ' + decision.arguments;
  if (decision.decision === 'preview_changed') line += ': what it would do changed after it was shown, so it did not run and is asked again';
  if (decision.decision === 'answered' && decision.answers && typeof decision.answers === 'object') {
    line += ': ' + Object.keys(decision.answers).map((key) => key + ' ' + String((decision.answers[key] || {}).action)).join(', ');
  }
  return line;
}

// ---- runs history ------------------------------------------------------------------------------

function fromRow(step, privacy) {
  const note = step.kind === 'llm' && step.usage ? usageNote(step.usage) : undefined;
  return Object.assign({}, step, { privacy, note });
}

async function history() {
  const list = document.getElementById('run-list');
  const steps = document.getElementById('steps');
  const other = document.getElementById('steps-other');
  const title = document.getElementById('run-title');
  const search = document.getElementById('run-search');
  const statusFilter = document.getElementById('run-status');
  const total = document.getElementById('run-total');
  const position = document.getElementById('runs-position');
  const newer = document.getElementById('runs-previous');
  const older = document.getElementById('runs-next');
  const exportButton = document.getElementById('run-export');
  const compare = document.getElementById('compare');
  let offset = 0;
  let opened = null;
  let lastRuns = [];
  function query() {
    const params = new URLSearchParams({ offset: String(offset), limit: String(RUNS_PAGE) });
    if (search.value.trim() !== '') params.set('q', search.value.trim());
    if (statusFilter.value !== '') params.set('status', statusFilter.value);
    return '/api/runs?' + params.toString();
  }
  async function open(runId) {
    clear(steps);
    try {
      const detail = await getJson('/api/runs/' + encodeURIComponent(runId));
      opened = detail;
      clear(title);
      title.append(
        el('span', null, detail.run.kind + ' '),
        val('code', null, detail.run.run_id),
        el('span', null, ' · '),
        val('span', null, detail.run.title || '(no title)'),
        el('span', null, ' · ' + (detail.run.termination || 'unfinished') + ' · privacy ' + detail.run.privacy),
      );
      for (const step of detail.steps) steps.append(renderStep(fromRow(step, detail.run.privacy)));
      title.dataset.loaded = detail.run.run_id;
      exportButton.hidden = false;
      document.getElementById('compare-box').hidden = false;
      fillCompare();
    } catch (error) {
      title.textContent = 'cannot open run: ' + error.message;
    }
  }
  function fillCompare() {
    const keep = compare.value;
    while (compare.options.length > 1) compare.remove(1);
    for (const run of lastRuns) {
      if (opened && run.run_id === opened.run.run_id) continue;
      const option = el('option', null, run.started_at + ' · ' + (run.title || run.run_id));
      option.value = run.run_id;
      compare.append(option);
    }
    compare.value = keep;
  }
  compare.addEventListener('change', async () => {
    clear(other);
    const grid = document.getElementById('compare-grid');
    if (compare.value === '') {
      other.hidden = true;
      grid.classList.remove('two');
      return;
    }
    const detail = await getJson('/api/runs/' + encodeURIComponent(compare.value));
    const head = el('li', 'meta');
    head.append(val('code', null, detail.run.run_id), el('span', null, ' · '), val('span', null, detail.run.title || '(no title)'));
    other.append(head);
    for (const step of detail.steps) other.append(renderStep(fromRow(step, detail.run.privacy)));
    other.hidden = false;
    grid.classList.add('two');
  });
  exportButton.addEventListener('click', () => {
    if (!opened) return;
    const text = JSON.stringify(opened, null, 2);
    window.__downloaded = text;
    download(opened.run.run_id + '.json', 'application/json', text);
  });
  function show(data) {
    clear(list);
    lastRuns = data.runs;
    for (const run of data.runs) {
      const item = el('li');
      const button = testId(el('button'), 'run-' + run.run_id);
      button.type = 'button';
      button.append(
        el('span', 'meta', run.started_at + ' · ' + run.kind + ' · '),
        val('span', null, run.title || '(no title)'),
      );
      button.append(el('span', 'group', plural(run.steps, 'step', 'steps') + ' · ' + (run.termination || 'unfinished')));
      button.addEventListener('click', () => open(run.run_id));
      item.append(button);
      list.append(item);
    }
    if (data.runs.length === 0) list.append(el('li', 'note', data.total === 0 && search.value === '' && statusFilter.value === '' ? 'No runs yet.' : 'No run matches.'));
    total.textContent = '(' + data.total + ')';
    position.textContent = data.total === 0 ? '' : (offset + 1) + '–' + (offset + data.runs.length) + ' of ' + data.total;
    newer.disabled = offset === 0;
    older.disabled = offset + data.runs.length >= data.total;
    if (opened) fillCompare();
  }
  const data = await getJson(query());
  document.getElementById('audit-info').textContent = data.audit
    ? 'From the audit copy (' + data.kind + '). New rows are kept at privacy level: ' + data.audit + '.'
    : 'No audit copy is kept by this server.';
  // Other processes write to the same audit copy (`toolkit-mcp --playground`, another
  // instance): redraw the list when a run or a step was added. PostgreSQL announces each commit
  // (the server waits for one on /api/runs/changes); a SQLite file is asked again every two
  // seconds.
  const shape = (fresh) => JSON.stringify([fresh.total, fresh.runs.map((run) => [run.run_id, run.steps, run.termination])]);
  let drawn = shape(data);
  show(data);
  async function reload() {
    const fresh = await getJson(query());
    drawn = shape(fresh);
    show(fresh);
  }
  let typing = null;
  search.addEventListener('input', () => {
    window.clearTimeout(typing);
    typing = window.setTimeout(() => { offset = 0; reload(); }, 200);
  });
  statusFilter.addEventListener('change', () => { offset = 0; reload(); });
  newer.addEventListener('click', () => { offset = Math.max(0, offset - RUNS_PAGE); reload(); });
  older.addEventListener('click', () => { offset += RUNS_PAGE; reload(); });
  async function refresh() {
    const fresh = await getJson(query());
    if (shape(fresh) !== drawn) {
      drawn = shape(fresh);
      show(fresh);
    }
  }
  function poll() {
    window.setInterval(async () => {
      try {
        await refresh();
      } catch (error) {
        document.getElementById('audit-info').textContent = 'cannot refresh the runs: ' + error.message;
      }
    }, 2000);
  }
  // Versions count one server process's commits: any other version (the server restarted) is news.
  async function follow(version) {
    for (;;) {
      try {
        const change = await getJson('/api/runs/changes?after=' + version);
        if (!change.live) {
          // The server can no longer announce changes (say, restarted on a SQLite file).
          poll();
          return;
        }
        if (change.version !== version) {
          version = change.version;
          await refresh();
        }
      } catch (error) {
        document.getElementById('audit-info').textContent = 'cannot refresh the runs: ' + error.message;
        await new Promise((done) => window.setTimeout(done, 2000));
      }
    }
  }
  if (data.audit && data.version !== null) {
    follow(data.version);
  } else if (data.audit) {
    poll();
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
