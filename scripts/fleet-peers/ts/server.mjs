// The peer of scripts/fleet-bench: the tool hash_text served by the official MCP TypeScript SDK
// (@modelcontextprotocol/sdk 1.32.2) the way its README and docs/server.md start people off:
// the stateful Streamable HTTP server of its example simpleStreamableHttp.ts (Express through
// createMcpExpressApp, one transport and McpServer per session, kept in a map by the
// Mcp-Session-Id the transport generates; replies as SSE, the transport's default), with what
// the example adds for its demos left out (OAuth, the in-memory event store for resumability,
// per-request console logs). Usage: node server.mjs PORT
import { createHash, randomUUID } from 'node:crypto';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { createMcpExpressApp } from '@modelcontextprotocol/sdk/server/express.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import * as z from 'zod/v4';

const PORT = Number.parseInt(process.argv[2] ?? '', 10);
if (!Number.isInteger(PORT) || PORT <= 0 || PORT > 65535) {
    console.error('usage: node server.mjs PORT');
    process.exit(2);
}

const getServer = () => {
    const server = new McpServer({ name: 'fleet-peer-ts', version: '1.0.0' });
    server.registerTool(
        'hash_text',
        {
            description: "Computes the hex digest of a text's UTF-8 bytes.",
            inputSchema: { text: z.string().describe('The text to hash.') }
        },
        async ({ text }) => ({
            content: [{ type: 'text', text: `sha256:${createHash('sha256').update(text, 'utf8').digest('hex')}` }]
        })
    );
    return server;
};

// As the example: sessions idle for IDLE_MS are closed, and at most MAX_SESSIONS are open.
const IDLE_MS = 30 * 60000;
const MAX_SESSIONS = 1000;
const sessions = new Map();

const trackResponse = (session, res) => {
    if (!res.socket || res.destroyed) return;
    session.open++;
    res.on('close', () => {
        session.open--;
        session.lastActive = Date.now();
    });
};

setInterval(() => {
    const cutoff = Date.now() - IDLE_MS;
    for (const { transport, open, lastActive } of sessions.values()) {
        if (open === 0 && lastActive < cutoff) transport.close().catch(console.error);
    }
}, 60000).unref();

const notFound = res => res.status(404).json({ jsonrpc: '2.0', error: { code: -32001, message: 'Session not found' }, id: null });

const app = createMcpExpressApp();

app.post('/mcp', async (req, res) => {
    const sessionId = req.headers['mcp-session-id'];
    try {
        const session = sessionId ? sessions.get(sessionId) : undefined;
        if (session) {
            trackResponse(session, res);
            await session.transport.handleRequest(req, res, req.body);
        } else if (!sessionId && isInitializeRequest(req.body)) {
            if (sessions.size >= MAX_SESSIONS) {
                res.status(503).json({ jsonrpc: '2.0', error: { code: -32000, message: 'Too many open sessions' }, id: null });
                return;
            }
            const transport = new StreamableHTTPServerTransport({
                sessionIdGenerator: () => randomUUID(),
                onsessioninitialized: id => {
                    sessions.set(id, { transport, open: 0, lastActive: Date.now() });
                }
            });
            transport.onclose = () => {
                if (transport.sessionId) sessions.delete(transport.sessionId);
            };
            await getServer().connect(transport);
            await transport.handleRequest(req, res, req.body);
        } else if (sessionId) {
            notFound(res);
        } else {
            res.status(400).json({ jsonrpc: '2.0', error: { code: -32000, message: 'Bad Request: No valid session ID provided' }, id: null });
        }
    } catch (error) {
        console.error('Error handling MCP request:', error);
        if (!res.headersSent) {
            res.status(500).json({ jsonrpc: '2.0', error: { code: -32603, message: 'Internal server error' }, id: null });
        }
    }
});

// GET (the server's own SSE stream) and DELETE (the end of a session) go to the session's transport.
const sessionRequest = async (req, res) => {
    const sessionId = req.headers['mcp-session-id'];
    if (!sessionId) {
        res.status(400).send('Missing session ID');
        return;
    }
    const session = sessions.get(sessionId);
    if (!session) {
        notFound(res);
        return;
    }
    trackResponse(session, res);
    await session.transport.handleRequest(req, res);
};
app.get('/mcp', sessionRequest);
app.delete('/mcp', sessionRequest);

app.listen(PORT, '127.0.0.1', error => {
    if (error) {
        console.error('Failed to start server:', error);
        process.exit(1);
    }
    console.error(`fleet-peer-ts: serving on http://127.0.0.1:${PORT}/mcp`);
});

process.on('SIGTERM', () => process.exit(0));
process.on('SIGINT', () => process.exit(0));
