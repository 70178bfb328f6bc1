import { TmuxTimeoutError } from "../../src/core/errors.ts";
import type { NewSession, PaneInfo, TmuxPort } from "../../src/core/ports.ts";

/**
 * One fake pane: what it shows (`ansi`: the same with its escapes, for `capture -e`; else `screen`)
 * and whether its CLI is still running.
 */
export type FakePane = {
  screen: string;
  ansi?: string;
  dead: boolean;
  deadStatus: number | null;
  pid: number;
};

/**
 * An in-memory tmux server. Tests script the TUI through `onKeys` / `onPaste` (what the CLI does
 * when a key arrives) and read back every call in `calls`. `hang`: "timeout" makes every call the
 * adapter's TmuxTimeoutError; "forever" makes every call never answer.
 */
export type FakeTmux = TmuxPort & {
  readonly panes: Map<string, FakePane>;
  readonly calls: string[];
  readonly started: NewSession[];
  readonly pasted: { name: string; text: string }[];
  onKeys: (name: string, keys: readonly string[]) => void;
  onPaste: (name: string, text: string) => void;
  onNewSession: (session: NewSession) => void;
  hang: false | "timeout" | "forever";
};

export function createFakeTmux(socket = "umbel-test"): FakeTmux {
  const panes = new Map<string, FakePane>();
  const calls: string[] = [];
  const started: NewSession[] = [];
  const pasted: { name: string; text: string }[] = [];
  const tmux: FakeTmux = {
    socket,
    panes,
    calls,
    started,
    pasted,
    onKeys: () => undefined,
    onPaste: () => undefined,
    onNewSession: () => undefined,
    hang: false,
    async hasSession(name) {
      await call("has-session");
      return panes.has(name);
    },
    async listSessions() {
      await call("list-sessions");
      return [...panes.keys()];
    },
    async newSession(session) {
      await call("new-session");
      started.push(session);
      panes.set(session.name, { screen: "", dead: false, deadStatus: null, pid: 1000 + panes.size });
      tmux.onNewSession(session);
    },
    async deleteBuffer() {
      await call("delete-buffer");
    },
    async capture(name, options) {
      await call(options?.escapes ? "capture-pane -e" : "capture-pane");
      const pane = panes.get(name);
      return (options?.escapes ? (pane?.ansi ?? pane?.screen) : pane?.screen) ?? null;
    },
    async look(name) {
      await call("display-message+capture-pane");
      const pane = panes.get(name);
      if (!pane) return { pane: null, screen: null };
      return {
        pane: { dead: pane.dead, deadStatus: pane.deadStatus, pid: pane.dead ? null : pane.pid },
        screen: pane.screen,
      };
    },
    async paneInfo(name): Promise<PaneInfo | null> {
      await call("display-message");
      const pane = panes.get(name);
      return pane ? { dead: pane.dead, deadStatus: pane.deadStatus, pid: pane.dead ? null : pane.pid } : null;
    },
    async paste(name, text, _buffer, keysFirst = []) {
      await call(keysFirst.length > 0 ? `send-keys ${keysFirst.join(" ")}+paste-buffer` : "paste-buffer");
      if (!panes.has(name)) return false;
      if (keysFirst.length > 0) tmux.onKeys(name, keysFirst);
      pasted.push({ name, text });
      tmux.onPaste(name, text);
      return true;
    },
    async sendKeys(name, keys) {
      await call(`send-keys ${keys.join(" ")}`);
      if (!panes.has(name)) return false;
      tmux.onKeys(name, keys);
      return true;
    },
    async sendLiteral(name, text) {
      await call(`send-keys -l ${text}`);
      return panes.has(name);
    },
    async killSession(name) {
      await call("kill-session");
      panes.delete(name);
    },
    async showEnvironment() {
      await call("show-environment");
      return "";
    },
    async killServer() {
      await call("kill-server");
      panes.clear();
    },
    async attach() {
      await call("attach-session");
      return 0;
    },
    async renameSession(from, to) {
      await call(`rename-session ${from} ${to}`);
      const pane = panes.get(from);
      if (!pane) throw new Error(`can't find session: ${from}`);
      panes.delete(from);
      panes.set(to, pane);
    },
  };
  async function call(what: string): Promise<void> {
    calls.push(what);
    if (tmux.hang === "forever") await new Promise(() => undefined);
    if (tmux.hang === "timeout")
      throw new TmuxTimeoutError(`tmux did not answer within 10000 ms (tmux ${what})`, {});
  }
  return tmux;
}
