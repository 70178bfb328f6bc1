// umbel's opencode plugin: appends one JSON line per turn fact to the worker's events log, the
// file UMBEL_OPENCODE_EVENTS names (inert without it). umbel passes it to opencode by absolute
// path in OPENCODE_CONFIG_CONTENT; it is embedded in the umbel binary and written under the state
// root by content hash, like hooks/hook.sh. Measured on opencode 1.18.33 (docs/providers.md):
// - `session.status` busy / retry / idle fire for sub-agent sessions too: only root sessions (no
//   parentID) count, and an idle counts only after a busy (an error turn can fire idle twice);
// - `session.error` comes before its idle: the idle carries it;
// - a permission or question box keeps the status busy: `permission.asked` / `question.asked` say
//   the turn waits for a person (from any session: a sub-agent's box blocks the turn too);
// - the first text part of a user message proves a prompt was delivered (synthetic ones are not
//   typed by anyone: /review's "Summarize the task tool output…").
import { appendFileSync, constants, existsSync, readFileSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, isAbsolute, join } from "node:path";

const out = process.env.UMBEL_OPENCODE_EVENTS;
const APPEND = constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_NOFOLLOW;
// A non-interactive worker (umbel -p): every permission ask is rejected at once, as `opencode run`
// does, and its record says so (`umbel_policy`), so umbel never reads it as waiting for a person.
const denyAsks = process.env.UMBEL_OPENCODE_NON_INTERACTIVE === "1";
delete process.env.UMBEL_OPENCODE_NON_INTERACTIVE;
// Tools the agent runs inherit opencode's environment: a nested opencode must not write here, and
// npm must not stay offline for them when umbel set it only for opencode's own start.
delete process.env.UMBEL_OPENCODE_EVENTS;
if (process.env.UMBEL_OPENCODE_NPM_OFFLINE === "1") delete process.env.npm_config_offline;
delete process.env.UMBEL_OPENCODE_NPM_OFFLINE;

function put(record) {
  if (!out) return;
  try {
    // One write per line (O_APPEND): a reader never sees half a line. O_NOFOLLOW: a link planted
    // where the events log goes is never written through (ELOOP, dropped like any failure here).
    appendFileSync(out, `${JSON.stringify({ ...record, t: Date.now() })}\n`, { flag: APPEND, mode: 0o600 });
  } catch {
    // the worker is being removed
  }
}

/** Where opencode 1.18.33 keeps its SQLite record (its own rule: OPENCODE_DB, else the data dir). */
function databasePath() {
  const data = join(process.env.XDG_DATA_HOME || join(homedir(), ".local", "share"), "opencode");
  const db = process.env.OPENCODE_DB;
  if (db) return db === ":memory:" || isAbsolute(db) ? db : join(data, db);
  return join(data, "opencode.db");
}

/**
 * `umbel -p --max-turns` arms `halt-tool.json` and `halt-model.json` beside the events log once the
 * Nth model call has settled (src/operations/print/turn.ts). opencode has no hook that stops it
 * after a tool, and at the stub's speed the next call was done before Escape Escape landed; so
 * while armed, a tool call is refused and the next model call aborts the session (its turn ends
 * with MessageAbortedError, as an interrupt does).
 */
function halt(name) {
  if (!out) return null;
  const path = join(dirname(out), `halt-${name}.json`);
  if (!existsSync(path)) return null;
  try {
    return JSON.parse(readFileSync(path, "utf8"));
  } catch {
    return {};
  }
}

/**
 * Rejects a permission ask as `opencode run` 1.18.33 does (`permission.reply({requestID, reply})`,
 * the v2 client; the v1 client's route otherwise). True once opencode took the reply.
 */
async function rejectAsk(client, id, session) {
  try {
    const reply = client?.permission?.reply
      ? await client.permission.reply({ requestID: id, reply: "reject" })
      : await client?.postSessionIdPermissionsPermissionId?.({
          path: { id: session, permissionID: id },
          body: { response: "reject" },
        });
    return reply !== undefined && !reply?.error;
  } catch {
    return false;
  }
}

function text(value, limit = 2000) {
  return typeof value === "string" ? value.slice(0, limit) : undefined;
}

/**
 * Builds, in the background, what opencode 1.18.33 otherwise builds on a worker's first prompt: its
 * provider state (`config.providers`: the model catalog and every configured provider, 4-7 s of CPU
 * on 2 loaded cores), its agents and commands, and the tool definitions for the configured model
 * (`tool.list`, which reads the skills too). All are read-only and cached by opencode for the
 * instance (measured through `opencode serve` at load 7: a first prompt 6.3-10.3 s cold, 1.1 s
 * after these calls, the second 0.1-0.4 s); a started worker (a pool's spare above all) then
 * answers its first prompt without that wait. Never awaited (opencode awaits a plugin's init), and
 * any failure only leaves the work to the first prompt, as before.
 */
async function warm(client) {
  try {
    await client?.config?.providers?.();
    await client?.app?.agents?.();
    await client?.command?.list?.();
    const model = (await client?.config?.get?.())?.data?.model;
    const slash = typeof model === "string" ? model.indexOf("/") : -1;
    if (slash <= 0) return;
    const query = { provider: model.slice(0, slash), model: model.slice(slash + 1) };
    // The SDK's v1 client takes `query`, the v2 one the fields themselves.
    await client?.tool?.list?.({ query, ...query });
  } catch {
    // the first prompt builds it
  }
}

export const UmbelEvents = async ({ client }) => {
  const children = new Set();
  const busy = new Set();
  const errors = new Map();
  const users = new Map();
  const proven = new Set();
  put({ event: "ready", db: databasePath(), pid: process.pid });
  if (out) setTimeout(() => void warm(client), 0);
  return {
    "tool.execute.before": async () => {
      const armed = halt("tool");
      if (armed) throw new Error(armed.reason ?? "stopped by umbel");
    },
    "chat.params": async (input) => {
      if (!halt("model") || !input?.sessionID) return;
      // The SDK's v1 and v2 clients name the session differently; each reads its own key.
      await client?.session?.abort?.({ path: { id: input.sessionID }, sessionID: input.sessionID })?.catch?.(() => {});
    },
    event: async ({ event }) => {
      const p = event.properties ?? {};
      const session = p.sessionID ?? p.info?.sessionID;
      switch (event.type) {
        case "session.created":
        case "session.updated":
          if (p.info?.parentID) children.add(p.info.id);
          return;
        case "message.updated":
          if (p.info?.role === "user") users.set(p.info.id, p.info.model);
          return;
        case "message.part.updated": {
          const part = p.part ?? {};
          if (part.type !== "text" || part.synthetic || part.ignored) return;
          if (!users.has(part.messageID) || proven.has(part.messageID)) return;
          proven.add(part.messageID);
          const root = !children.has(part.sessionID);
          const m = users.get(part.messageID);
          const model = m?.providerID && m?.modelID ? `${m.providerID}/${m.modelID}` : undefined;
          put({ event: "prompt", session: part.sessionID, message: part.messageID, root, model, text: text(part.text, 200) });
          return;
        }
        case "permission.asked": {
          const denied = denyAsks && (await rejectAsk(client, p.id, session));
          put({
            ...(denied ? { umbel_policy: { decision: "deny", rule: "non-interactive" } } : {}),
            event: "permission",
            session,
            id: p.id,
            permission: p.permission,
            patterns: p.patterns,
            metadata: p.metadata,
            root: !children.has(session),
          });
          return;
        }
        case "question.asked":
          put({ event: "question", session, id: p.id, questions: p.questions, root: !children.has(session) });
          return;
        case "permission.replied":
        case "question.replied":
        case "question.rejected":
          put({ event: "replied", session, what: event.type, reply: p.reply ?? p.answers ?? null });
          return;
      }
      if (!session || children.has(session)) return;
      if (event.type === "session.error") {
        const error = { name: p.error?.name ?? "UnknownError", message: text(p.error?.data?.message) ?? "" };
        errors.set(session, error);
        put({ event: "error", session, ...error });
      } else if (event.type === "session.status") {
        const status = p.status?.type;
        if (status === "busy" || status === "retry") {
          if (status === "busy" && !busy.has(session)) errors.delete(session);
          busy.add(session);
          put({ event: status, session, attempt: p.status?.attempt, message: text(p.status?.message) });
        } else if (status === "idle" && busy.has(session)) {
          busy.delete(session);
          const error = errors.get(session);
          errors.delete(session);
          put({ event: "idle", session, ...(error ? { error } : {}) });
        }
      }
    },
  };
};
