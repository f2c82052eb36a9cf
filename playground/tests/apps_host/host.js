// A test host for MCP Apps, on the official SDKs: the MCP client (`@modelcontextprotocol/client`)
// talks to the server through this page's origin (the test's backend forwards `/mcp`, as a host's
// backend does), and the ext-apps host bridge (`AppBridge`) runs each view a tool names in a
// sandboxed frame. `window.host` is what the test drives; `window.host.modelSide` is everything a
// model would receive from the server through this host: the tools it is offered and each
// call's content and structured content (never `_meta`, which the extension gives to views).
import {
  AppBridge,
  PostMessageTransport,
  getToolUiResourceUri,
  isToolVisibilityAppOnly,
} from '@modelcontextprotocol/ext-apps/app-bridge';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';

const VIEW_MIME_TYPE = 'text/html;profile=mcp-app';
const HOST_INFO = { name: 'toolkit test host', version: '1.0.0' };
const conversation = document.getElementById('conversation');
const modelSide = [];
const bridges = [];
let client = null;
let tools = [];
let theme = 'light';

function turn(who, text) {
  const box = document.createElement('div');
  box.className = 'turn';
  box.dataset.testid = 'turn';
  const head = document.createElement('p');
  head.className = 'who';
  head.textContent = who;
  const body = document.createElement('pre');
  body.textContent = text;
  box.append(head, body);
  conversation.append(box);
  return box;
}

function styleVariables() {
  return theme === 'dark'
    ? { '--color-background-primary': '#1c2028', '--color-text-primary': '#e3e6ec', '--color-border-primary': '#3a4150', '--font-sans': 'system-ui, sans-serif' }
    : { '--color-background-primary': '#ffffff', '--color-text-primary': '#1d2330', '--color-border-primary': '#d7dbe3', '--font-sans': 'system-ui, sans-serif' };
}

// A form the server asks the user to fill (`elicitation/create`), drawn from its schema: a
// choice among `oneOf` values as radio buttons, other strings as text boxes. Resolves with the
// user's answer when they submit, decline or cancel.
function elicit(request) {
  const params = request.params;
  const form = document.createElement('form');
  form.className = 'elicitation';
  form.dataset.testid = 'elicitation';
  const message = document.createElement('pre');
  message.dataset.testid = 'elicitation-message';
  message.textContent = params.message;
  form.append(message);
  const properties = (params.requestedSchema && params.requestedSchema.properties) || {};
  const required = (params.requestedSchema && params.requestedSchema.required) || [];
  // The fields the user must fill first, then the others.
  const names = Object.keys(properties).sort((a, b) => Number(!required.includes(a)) - Number(!required.includes(b)));
  for (const name of names) {
    const schema = properties[name];
    const label = document.createElement('label');
    label.textContent = schema.title || name;
    form.append(label);
    if (Array.isArray(schema.oneOf)) {
      for (const option of schema.oneOf) {
        const row = document.createElement('label');
        row.style.fontWeight = 'normal';
        const radio = document.createElement('input');
        radio.type = 'radio';
        radio.name = name;
        radio.value = option.const;
        radio.dataset.testid = 'choice-' + option.const;
        row.append(radio, ' ' + (option.title || option.const));
        form.append(row);
      }
    } else {
      const box = document.createElement(name === 'arguments' ? 'textarea' : 'input');
      if (box.tagName === 'INPUT') box.type = 'text';
      if (box.tagName === 'TEXTAREA') box.rows = 3;
      box.name = name;
      box.dataset.testid = 'field-' + name;
      if (typeof schema.default === 'string') box.value = schema.default;
      if (schema.description) box.title = schema.description;
      form.append(box);
    }
  }
  conversation.append(form);
  return new Promise((resolve) => {
    const finish = (answer) => {
      form.dataset.answered = answer.action;
      for (const control of form.querySelectorAll('input, textarea, button')) control.disabled = true;
      resolve(answer);
    };
    const button = (text, action) => {
      const node = document.createElement('button');
      node.type = 'button';
      node.textContent = text;
      node.dataset.testid = 'elicitation-' + action;
      node.addEventListener('click', () => {
        if (action !== 'accept') return finish({ action });
        const content = {};
        for (const [name, schema] of Object.entries(properties)) {
          if (Array.isArray(schema.oneOf)) {
            const chosen = form.querySelector('input[name="' + name + '"]:checked');
            if (chosen) content[name] = chosen.value;
          } else {
            const box = form.querySelector('[name="' + name + '"]');
            if (box && box.value !== '') content[name] = box.value;
          }
        }
        finish({ action, content });
      });
      return node;
    };
    form.append(button('Submit', 'accept'), button('Decline', 'decline'), button('Cancel', 'cancel'));
  });
}

async function connect(options) {
  const capabilities = { extensions: { 'io.modelcontextprotocol/ui': { mimeTypes: [VIEW_MIME_TYPE] } } };
  if (options && options.elicitation) capabilities.elicitation = { form: {} };
  client = new Client(HOST_INFO, { capabilities });
  if (options && options.elicitation) client.setRequestHandler('elicitation/create', elicit);
  await client.connect(new StreamableHTTPClientTransport(new URL('/mcp', window.location.href)));
  tools = (await client.listTools()).tools;
  const offered = tools.filter((tool) => !isToolVisibilityAppOnly(tool));
  modelSide.push(JSON.stringify(offered));
  return {
    offered: offered.map((tool) => tool.name),
    appOnly: tools.filter((tool) => isToolVisibilityAppOnly(tool)).map((tool) => tool.name),
    server: client.getServerCapabilities(),
  };
}

// Calls a tool as a model asked, and shows its view when it names one.
async function call(name, args) {
  const tool = tools.find((item) => item.name === name);
  if (!tool || isToolVisibilityAppOnly(tool)) throw new Error('the model is not offered ' + name);
  const result = await client.callTool({ name, arguments: args });
  const forModel = { content: result.content, structuredContent: result.structuredContent, isError: result.isError };
  modelSide.push(JSON.stringify(forModel));
  const text = (result.content || []).filter((block) => block.type === 'text').map((block) => block.text).join('\n');
  const box = turn('tool ' + name + (result.isError ? ' (error)' : '') + ': what the model receives', text);
  const uri = getToolUiResourceUri(tool);
  if (!uri) return { text, isError: Boolean(result.isError), view: null };
  const read = await client.readResource({ uri });
  const contents = read.contents.find((item) => item.uri === uri && item.mimeType === VIEW_MIME_TYPE);
  if (!contents || typeof contents.text !== 'string') throw new Error('no view at ' + uri);
  const frame = document.createElement('iframe');
  frame.setAttribute('sandbox', 'allow-scripts');
  frame.title = 'view of ' + name;
  frame.dataset.testid = 'view';
  frame.dataset.index = String(bridges.length);
  frame.srcdoc = contents.text;
  box.append(frame);
  const hostContext = { theme, styles: { variables: styleVariables() }, displayMode: 'inline', toolInfo: { tool } };
  const bridge = new AppBridge(client, HOST_INFO, { serverTools: {}, serverResources: {} }, { hostContext });
  bridge.context = hostContext;
  bridge.oninitialized = () => {
    bridge.sendToolInput({ arguments: args });
    bridge.sendToolResult(result);
  };
  bridge.onsizechange = (size) => {
    if (typeof size.height === 'number') frame.style.height = Math.min(size.height + 2, 2000) + 'px';
  };
  bridges.push(bridge);
  await bridge.connect(new PostMessageTransport(frame.contentWindow, frame.contentWindow));
  return { text, isError: Boolean(result.isError), view: bridges.length - 1 };
}

// Switches the host's theme, and tells every view.
function setTheme(next) {
  theme = next;
  document.body.classList.toggle('dark', theme === 'dark');
  for (const bridge of bridges) {
    bridge.context = { ...bridge.context, theme, styles: { variables: styleVariables() } };
    bridge.setHostContext(bridge.context);
  }
}

window.host = { connect, call, setTheme, modelSide };
document.body.dataset.ready = 'true';
