// The artifacts renderer people read a call's artifacts with, shared by the playground's
// inspector and toolkit-mcp's MCP Apps view. Every value from a tool is put into the page with
// textContent, never parsed as markup: artifacts are inert text whatever they contain. Each such
// value sits in its own bidi-isolated element, so a right-to-left override in a value cannot
// reorder the page's own labels. A TABLE is sortable, pageable, copyable and exported as CSV; a
// TEXT has line numbers; MEDIA is shown (raster images), played (sounds) or downloaded; anything
// else is a JSON tree.
'use strict';

// Rows of a table shown per page.
const PAGE_SIZE = 100;

// An element with a class and, optionally, text. Attribute names here are constants of this file.
function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined && text !== null) node.textContent = String(text);
  return node;
}

// A value from outside (a tool, a model, the audit copy): its own isolated direction.
function val(tag, className, text) {
  const node = el(tag, className ? className + ' value' : 'value', text);
  node.dir = 'auto';
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

function isStringArray(value) {
  return Array.isArray(value) && value.every((item) => typeof item === 'string');
}

// A table row: texts, and null for no value.
function isCellArray(value) {
  return Array.isArray(value) && value.every((item) => item === null || typeof item === 'string');
}

function download(name, type, text) {
  const link = el('a');
  link.href = URL.createObjectURL(new Blob([text], { type }));
  link.download = name;
  document.body.append(link);
  link.click();
  link.remove();
  window.setTimeout(() => URL.revokeObjectURL(link.href), 1000);
}

async function copy(text, button) {
  try {
    await navigator.clipboard.writeText(text);
    if (button) button.dataset.copied = 'true';
  } catch (error) {
    // Without clipboard access (an insecure context, a denied permission): select it instead.
    const area = el('textarea');
    area.value = text;
    document.body.append(area);
    area.select();
    document.execCommand('copy');
    area.remove();
    if (button) button.dataset.copied = 'true';
  }
  window.__copied = text;
}

// A NULL cell is an empty field and an empty text is `""`, as PostgreSQL's CSV writes them.
function csvField(value) {
  if (value === null) return '';
  return value === '' || /[",\n\r]/.test(value) ? '"' + value.replace(/"/g, '""') + '"' : value;
}

function tableCsv(columns, rows) {
  return [columns, ...rows].map((row) => row.map(csvField).join(',')).join('\r\n') + '\r\n';
}

// A NULL cell is copied as nothing.
function tsv(rows) {
  return rows.map((row) => row.map((value) => value === null ? '' : value).join('\t')).join('\n');
}

// NULL sorts before every value, numbers sort as numbers, the rest as text.
function compareCells(a, b) {
  if (a === null || b === null) return (a === null ? 0 : 1) - (b === null ? 0 : 1);
  const x = Number(a);
  const y = Number(b);
  if (a !== '' && b !== '' && isFinite(x) && isFinite(y)) return x - y;
  return a.localeCompare(b);
}

function renderTable(data, label) {
  const wrap = el('div', 'table-wrap');
  const tools = el('div', 'table-tools');
  const copyTable = testId(el('button', 'small', 'Copy table'), 'copy-table');
  const copyRow = testId(el('button', 'small', 'Copy row'), 'copy-row');
  const copyCell = testId(el('button', 'small', 'Copy cell'), 'copy-cell');
  const csv = testId(el('button', 'small', 'Download CSV'), 'download-csv');
  for (const button of [copyTable, copyRow, copyCell, csv]) button.type = 'button';
  copyRow.disabled = true;
  copyCell.disabled = true;
  tools.append(copyTable, copyRow, copyCell, csv);
  const pager = el('div', 'pager');
  const previous = testId(el('button', 'previous', 'Previous'), 'page-previous');
  const next = testId(el('button', 'next', 'Next'), 'page-next');
  previous.type = 'button';
  next.type = 'button';
  const position = testId(el('span', 'position'), 'page-position');
  pager.append(previous, position, next);
  const table = el('table');
  const head = el('thead');
  const headRow = el('tr');
  // The rows in their current order; `sort` is [column, direction] or null.
  let order = data.rows.map((row, index) => index);
  let sort = null;
  let selected = null; // [row index in data.rows, column]
  data.columns.forEach((column, columnIndex) => {
    const th = el('th');
    const button = testId(el('button', 'sort'), 'sort-' + columnIndex);
    button.type = 'button';
    button.append(val('span', null, column), el('span', 'arrow', ''));
    button.title = 'Sort by this column';
    button.addEventListener('click', () => {
      const direction = sort && sort[0] === columnIndex && sort[1] === 'ascending' ? 'descending' : 'ascending';
      sort = [columnIndex, direction];
      order = data.rows.map((row, index) => index);
      order.sort((a, b) => compareCells(data.rows[a][columnIndex], data.rows[b][columnIndex]) || a - b);
      if (direction === 'descending') order.reverse();
      for (const other of headRow.querySelectorAll('th')) other.removeAttribute('aria-sort');
      th.setAttribute('aria-sort', direction);
      page = 0;
      show();
    });
    th.append(button);
    headRow.append(th);
  });
  head.append(headRow);
  const body = el('tbody');
  table.append(head, body);
  const pages = Math.max(1, Math.ceil(data.rows.length / PAGE_SIZE));
  let page = 0;
  function show() {
    clear(body);
    const start = page * PAGE_SIZE;
    for (const rowIndex of order.slice(start, start + PAGE_SIZE)) {
      const tr = el('tr');
      data.rows[rowIndex].forEach((value, columnIndex) => {
        // No value is shown as a marked NULL, never as a text a cell could also hold.
        const td = value === null ? el('td', 'null', 'NULL') : val('td', null, value);
        if (value === null) td.title = 'no value (NULL)';
        if (selected && selected[0] === rowIndex && selected[1] === columnIndex) td.classList.add('selected');
        td.addEventListener('click', () => {
          selected = [rowIndex, columnIndex];
          for (const other of body.querySelectorAll('td.selected')) other.classList.remove('selected');
          td.classList.add('selected');
          copyRow.disabled = false;
          copyCell.disabled = false;
        });
        tr.append(td);
      });
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
  copyTable.addEventListener('click', () => copy(tsv([data.columns, ...order.map((i) => data.rows[i])]), copyTable));
  copyRow.addEventListener('click', () => { if (selected) copy(tsv([data.rows[selected[0]]]), copyRow); });
  copyCell.addEventListener('click', () => { if (selected) copy(data.rows[selected[0]][selected[1]] ?? '', copyCell); });
  csv.addEventListener('click', () => {
    const name = (label || 'table').replace(/[^A-Za-z0-9_.-]+/g, '_').slice(0, 60) || 'table';
    const text = tableCsv(data.columns, order.map((i) => data.rows[i]));
    window.__downloaded = text;
    download(name + '.csv', 'text/csv', text);
  });
  show();
  wrap.append(tools);
  if (pages > 1) wrap.append(pager); else wrap.append(position);
  const scroll = el('div', 'table-scroll');
  scroll.append(table);
  wrap.append(scroll);
  return wrap;
}

function isTable(artifact) {
  const data = artifact.data;
  return artifact.type === 'table' && data && typeof data === 'object' &&
    isStringArray(data.columns) && Array.isArray(data.rows) &&
    data.rows.every((row) => isCellArray(row) && row.length === data.columns.length);
}

function isText(artifact) {
  return artifact.type === 'text' && artifact.data && typeof artifact.data === 'object' &&
    typeof artifact.data.text === 'string';
}

// A text with its line numbers: one row per line, numbers outside the selectable text.
function renderText(text) {
  const box = testId(el('div', 'text-lines'), 'artifact-text');
  const lines = text.split('\n');
  if (lines.length > 1 && lines[lines.length - 1] === '') {
    lines.pop();
    box.dataset.trailingNewline = 'true';
  }
  lines.forEach((line, index) => {
    const row = el('div', 'line');
    row.append(el('span', 'number', index + 1), val('span', 'content', line));
    box.append(row);
  });
  const copyText = testId(el('button', 'small', 'Copy text'), 'copy-text');
  copyText.type = 'button';
  copyText.addEventListener('click', () => copy(text, copyText));
  const wrap = el('div');
  wrap.append(copyText, box);
  return wrap;
}

// Any JSON value as a tree of <details>: objects and arrays open and close, leaves are text.
function jsonTree(value, key, depth) {
  const label = key === null ? '' : key + ': ';
  if (value !== null && typeof value === 'object') {
    const entries = Array.isArray(value) ? value.map((item, index) => [String(index), item]) : Object.keys(value).map((name) => [name, value[name]]);
    const node = el('details', 'json-node');
    node.open = depth < 2;
    const summary = el('summary');
    summary.append(val('span', 'json-key', label), el('span', 'meta', Array.isArray(value) ? '[' + entries.length + ']' : '{' + entries.length + '}'));
    node.append(summary);
    for (const [name, item] of entries) node.append(jsonTree(item, name, depth + 1));
    return node;
  }
  const leaf = el('div', 'json-leaf');
  leaf.append(val('span', 'json-key', label), val('span', 'json-' + (value === null ? 'null' : typeof value), JSON.stringify(value)));
  return leaf;
}

// A MIME type as a plain `type/subtype` token, in lower case; null for anything else.
function mimeOf(value) {
  return typeof value === 'string' && /^[a-z0-9][a-z0-9!#$&^_.+-]{0,126}\/[a-z0-9][a-z0-9!#$&^_.+-]{0,126}$/i.test(value)
    ? value.toLowerCase()
    : null;
}

function isMedia(artifact) {
  const data = artifact.data;
  return artifact.type === 'media' && data && typeof data === 'object' &&
    typeof data.mime_type === 'string' && typeof data.base64 === 'string' &&
    data.base64.length % 4 === 0 && /^[A-Za-z0-9+/]*={0,2}$/.test(data.base64);
}

// Media: a raster image shown, a sound played, and anything (these too) offered for download.
// The bytes go only into a data: URL of a checked MIME type, which the CSP allows for images
// and sounds and nothing else; an SVG, HTML or any other type is never shown, only downloaded.
function renderMedia(data, label) {
  const wrap = el('div', 'media');
  const mime = mimeOf(data.mime_type) || 'application/octet-stream';
  const padding = data.base64.endsWith('==') ? 2 : data.base64.endsWith('=') ? 1 : 0;
  const bytes = data.base64.length / 4 * 3 - padding;
  const save = testId(el('button', 'small', 'Download'), 'download-media');
  save.type = 'button';
  save.addEventListener('click', () => {
    const raw = atob(data.base64);
    const array = Uint8Array.from(raw, (character) => character.charCodeAt(0));
    const name = (label || 'media').replace(/[^A-Za-z0-9_.-]+/g, '_').slice(0, 60) || 'media';
    window.__downloaded = data.base64;
    download(name, mime, array);
  });
  wrap.append(testId(val('p', 'meta', mime + ', ' + bytes + (bytes === 1 ? ' byte' : ' bytes')), 'media-info'), save);
  const url = 'data:' + mime + ';base64,' + data.base64;
  if (/^image\/(png|jpeg|gif|webp|avif|bmp)$/.test(mime)) {
    const image = testId(el('img', 'media-image'), 'media-image');
    image.alt = label;
    image.src = url;
    wrap.append(image);
  } else if (/^audio\/[a-z0-9.+-]+$/.test(mime)) {
    const audio = testId(el('audio'), 'media-audio');
    audio.controls = true;
    audio.src = url;
    wrap.append(audio);
  }
  return wrap;
}

// One artifact: a TABLE as a table, a TEXT as numbered lines, MEDIA shown, played or offered
// for download, anything else as a JSON tree.
function renderArtifact(artifact) {
  const box = testId(el('div', 'artifact'), 'artifact');
  const known = artifact && typeof artifact === 'object';
  const label = known && typeof artifact.label === 'string' ? artifact.label : '(no label)';
  const heading = el('h3');
  heading.append(testId(val('span', null, label), 'artifact-label'));
  const kind = val('span', 'kind', known && typeof artifact.type === 'string' ? artifact.type : 'unknown');
  heading.append(kind);
  box.append(heading);
  if (known && isTable(artifact)) {
    box.dataset.kind = 'table';
    box.append(renderTable(artifact.data, label));
  } else if (known && isText(artifact)) {
    box.dataset.kind = 'text';
    box.append(renderText(artifact.data.text));
  } else if (known && isMedia(artifact)) {
    box.dataset.kind = 'media';
    box.append(renderMedia(artifact.data, label));
  } else {
    box.dataset.kind = 'json';
    box.append(testId(jsonTree(artifact, null, 0), 'artifact-tree'));
    // The same value as plain JSON text, for reading and copying whole.
    const raw = el('details');
    raw.append(el('summary', null, 'as JSON text'), testId(val('pre', 'artifact-json', pretty(artifact)), 'artifact-json'));
    box.append(raw);
  }
  return box;
}
