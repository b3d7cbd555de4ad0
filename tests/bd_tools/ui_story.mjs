// beads-ui 0.12.0 against git-beads: starts its server in the current directory (a
// repository with beads; BD_BIN names the bd shim), asks it over HTTP and its
// WebSocket API for what its views show, moves a bead on the board, and prints one
// JSON object with the ids each view carries. tests/bd_tools.rs checks them.
//
// Usage: node ui_story.mjs PACKAGE_DIR BEAD_TO_START
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { createRequire } from 'node:module';
import path from 'node:path';

const [pkg, to_start] = process.argv.slice(2);
const WebSocket = createRequire(path.join(pkg, 'package.json'))('ws');

/** A port nobody listens on now. */
function freePort() {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });
}

/** Waits until the server answers /healthz. */
async function healthy(base, server) {
  for (let i = 0; i < 600; i++) {
    if (server.exitCode !== null) {
      throw new Error(`beads-ui exited with ${server.exitCode}`);
    }
    try {
      const res = await fetch(`${base}/healthz`);
      if (res.ok) {
        return;
      }
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('beads-ui did not start');
}

/** One request over the socket; resolves with the reply to it (by id). */
function request(ws, pending, type, payload) {
  const id = `req-${pending.next++}`;
  return new Promise((resolve, reject) => {
    pending.replies.set(id, { resolve, reject });
    ws.send(JSON.stringify({ id, type, payload }));
  });
}

/** Subscribes to a list and returns the ids of its snapshot. */
async function view(ws, pending, type, params) {
  const id = `view-${pending.next}`;
  const snapshot = new Promise((resolve) => pending.snapshots.set(id, resolve));
  const reply = await request(ws, pending, 'subscribe-list', { id, type, params });
  if (!reply.ok) {
    throw new Error(`${type}: ${JSON.stringify(reply.error)}`);
  }
  const issues = await snapshot;
  await request(ws, pending, 'unsubscribe-list', { id });
  return issues;
}

const port = await freePort();
const base = `http://127.0.0.1:${port}`;
const server = spawn(process.execPath, [path.join(pkg, 'server/index.js'), '--port', String(port)], {
  stdio: ['ignore', 'ignore', 'inherit']
});
try {
  await healthy(base, server);
  const page = await fetch(`${base}/`);
  const html = await page.text();
  const ws = new WebSocket(`ws://127.0.0.1:${port}/ws`);
  await new Promise((resolve, reject) => {
    ws.once('open', resolve);
    ws.once('error', reject);
  });
  const pending = { next: 0, replies: new Map(), snapshots: new Map() };
  ws.on('message', (data) => {
    const msg = JSON.parse(data.toString());
    if (msg.type === 'snapshot') {
      pending.snapshots.get(msg.payload.id)?.(msg.payload.issues);
      return;
    }
    const waiting = pending.replies.get(msg.id);
    if (waiting) {
      pending.replies.delete(msg.id);
      waiting.resolve(msg);
    }
  });
  // A mutation answers with what `bd show --json` printed: an array of one bead.
  const bead = (reply, field) =>
    reply.ok ? [reply.payload].flat()[0][field] : JSON.stringify(reply.error);
  const ids = (issues) => issues.map((it) => it.id).sort();
  const out = { page: page.status === 200 && html.includes('<html') };
  out.issues = ids(await view(ws, pending, 'all-issues'));
  const epics = await view(ws, pending, 'epics');
  out.epics = epics.map((e) => ({
    id: e.id,
    total_children: e.total_children,
    closed_children: e.closed_children
  }));
  out.ready = ids(await view(ws, pending, 'ready-issues'));
  out.blocked = ids(await view(ws, pending, 'blocked-issues'));
  const detail = await view(ws, pending, 'issue-detail', { id: to_start });
  out.detail = detail.map((it) => ({ id: it.id, title: it.title, status: it.status }));
  const moved = await request(ws, pending, 'update-status', { id: to_start, status: 'in_progress' });
  out.moved = bead(moved, 'status');
  out.in_progress = ids(await view(ws, pending, 'in-progress-issues'));
  const prio = await request(ws, pending, 'update-priority', { id: to_start, priority: 0 });
  out.priority = bead(prio, 'priority');
  const label = await request(ws, pending, 'label-add', { id: to_start, label: 'ui' });
  out.labels = bead(label, 'labels');
  const edited = await request(ws, pending, 'edit-text', {
    id: to_start,
    field: 'acceptance',
    value: 'Cards move'
  });
  out.acceptance = bead(edited, 'acceptance_criteria');
  const commented = await request(ws, pending, 'add-comment', { id: to_start, text: 'On it' });
  out.comments = commented.ok
    ? commented.payload.map((c) => c.text)
    : JSON.stringify(commented.error);
  const made = await request(ws, pending, 'create-issue', { title: 'Made on the board', type: 'bug' });
  out.created = made.ok ? made.payload.created : JSON.stringify(made.error);
  const all = await view(ws, pending, 'all-issues');
  const fresh = all.find((it) => it.title === 'Made on the board');
  out.created_type = fresh ? fresh.issue_type : null;
  const gone = fresh
    ? await request(ws, pending, 'delete-issue', { id: fresh.id })
    : { ok: false, error: 'nothing to delete' };
  out.deleted = gone.ok ? gone.payload.deleted : JSON.stringify(gone.error);
  const closed = await request(ws, pending, 'update-status', { id: to_start, status: 'closed' });
  out.closed_status = bead(closed, 'status');
  out.closed = ids(await view(ws, pending, 'closed-issues'));
  out.ready_after = ids(await view(ws, pending, 'ready-issues'));
  ws.close();
  console.log(JSON.stringify(out));
} finally {
  server.kill();
}
