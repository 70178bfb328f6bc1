import { type ProgramTooOldError, TmuxError, TmuxTimeoutError } from "../core/errors.ts";
import type { NewSession, PaneInfo, TmuxPort, TracePort } from "../core/ports.ts";
import { tmuxTooOld } from "../core/programs.ts";
import { type RunResult, runProcess, startProgram } from "./process.ts";

/**
 * The only place umbel invokes tmux (test/unit/structure.test.ts enforces it). Every call carries
 * `-L <private socket>` and `-f /dev/null` (the user's tmux.conf never shapes a worker), runs with a
 * minimal environment and stdin closed, and is bounded in time: an unanswered call is a
 * TmuxTimeoutError, never "no such session".
 */

export type TmuxOptions = {
  readonly socket: string;
  readonly hostEnv: Readonly<Record<string, string | undefined>>;
  readonly timeoutMs?: number;
  readonly bin?: string;
  /** UMBEL_TRACE: each call's commands, target, status and duration. */
  readonly trace?: TracePort;
};

/** The socket name for a state root: two roots never share a tmux server. */
export function deriveSocket(stateRoot: string, override: string | undefined): string {
  if (override) return override;
  return `umbel-${new Bun.CryptoHasher("sha256").update(stateRoot).digest("hex").slice(0, 12)}`;
}

/** tmux clients get PATH, a UTF-8 locale and the socket directory; nothing else crosses. */
function clientEnv(host: Readonly<Record<string, string | undefined>>): Record<string, string> {
  const env: Record<string, string> = { PATH: host.PATH ?? "/usr/local/bin:/usr/bin:/bin" };
  const locale = host.LC_ALL ?? host.LC_CTYPE ?? host.LANG;
  env.LANG = locale && /utf-?8/i.test(locale) ? locale : "C.UTF-8";
  if (host.TMUX_TMPDIR) env.TMUX_TMPDIR = host.TMUX_TMPDIR;
  return env;
}

const NO_SERVER =
  /no server running|error connecting to|No such file or directory|server exited unexpectedly/;
const SERVER_GONE = /server exited unexpectedly|lost server|no server running|error connecting to/;
const NO_SESSION = /can't find (session|pane|window)|session not found|no current (session|client)/;

export function createTmux(options: TmuxOptions): TmuxPort {
  const env = clientEnv(options.hostEnv);
  const bin = options.bin ?? "tmux";
  const timeoutMs = options.timeoutMs ?? 10_000;
  const base = [bin, "-L", options.socket, "-f", "/dev/null"];

  async function raw(args: readonly string[], input?: string, bound = timeoutMs): Promise<RunResult> {
    const result = await runProcess([...base, ...args], { env, input, timeoutMs: bound });
    if (options.trace?.on) options.trace.mark(describeCall(args, result));
    if (result.timedOut) {
      throw new TmuxTimeoutError(`tmux did not answer within ${bound} ms (tmux ${args[0]})`, {
        argv: args,
        timeoutMs: bound,
      });
    }
    return result;
  }

  /**
   * A tmux older than 3.3 is refused where it would make a worker (core/programs.ts), once per
   * process. `-V` asks no server, and it runs beside the session's start, so it adds no latency.
   */
  let versionCheck: Promise<ProgramTooOldError | null> | undefined;
  const checkVersion = () => {
    versionCheck ??= runProcess([bin, "-V"], { env, timeoutMs }).then(
      (r) => (r.exitCode === 0 ? tmuxTooOld(r.stdout, process.platform) : null),
      () => null, // cannot be started: the call beside it says why
    );
    return versionCheck;
  };

  /** Runs a command whose target may be gone; returns null for "no such session/server". */
  async function runOnSession(args: readonly string[], input?: string): Promise<string | null> {
    const result = await raw(args, input);
    if (result.exitCode === 0) return result.stdout;
    if (NO_SESSION.test(result.stderr) || NO_SERVER.test(result.stderr)) return null;
    throw tmuxFailure(args, result);
  }

  return {
    socket: options.socket,

    async hasSession(name: string): Promise<boolean> {
      return (await runOnSession(["has-session", "-t", exact(name)])) !== null;
    },

    async listSessions(): Promise<string[]> {
      const out = await runOnSession(["list-sessions", "-F", "#{session_name}"]);
      return out === null ? [] : out.split("\n").filter((l) => l !== "");
    },

    /** One invocation: load the env buffer from stdin, keep dead panes, start the session. */
    async newSession(s: NewSession): Promise<void> {
      const args = [
        "load-buffer",
        "-b",
        s.bufferName,
        "-",
        ";",
        "set-option",
        "-g",
        "remain-on-exit",
        "on",
        ";",
        "set-option",
        "-g",
        "status",
        "off",
        ";",
        "set-option",
        "-g",
        "history-limit",
        "5000",
        ";",
        "new-session",
        "-d",
        "-s",
        s.name,
        "-x",
        String(s.width),
        "-y",
        String(s.height),
        "-c",
        s.cwd,
        // tmux splits commands at an argument that ENDS in ";" (a system prompt, a path); `\;` keeps it.
        ...s.command.map((arg) => (arg.endsWith(";") ? `${arg.slice(0, -1)}\\;` : arg)),
      ];
      const tooOld = checkVersion();
      // A server whose last session just ended is shutting down; a client that connects in that
      // moment gets "server exited unexpectedly" and nothing was made. Start a new server instead.
      for (let attempt = 1; ; attempt++) {
        const result = await raw(args, s.bufferContent);
        const old = await tooOld;
        if (old && result.exitCode === 0) {
          await runOnSession(["kill-session", "-t", exact(s.name)]).catch(() => undefined);
          await runOnSession(["delete-buffer", "-b", s.bufferName]).catch(() => undefined);
        }
        if (old) throw old;
        if (result.exitCode === 0) return;
        if (attempt >= 5 || !SERVER_GONE.test(result.stderr)) throw tmuxFailure(args, result);
        await Bun.sleep(20 * attempt);
      }
    },

    async deleteBuffer(bufferName: string): Promise<void> {
      await runOnSession(["delete-buffer", "-b", bufferName]);
    },

    async capture(
      name: string,
      opts: { lines?: number | undefined; escapes?: boolean | undefined } = {},
    ): Promise<string | null> {
      const args = ["capture-pane", "-p", "-t", pane(name)];
      if (opts.escapes) args.push("-e");
      if (opts.lines) args.push("-S", String(-opts.lines));
      return runOnSession(args);
    },

    async paneInfo(name: string): Promise<PaneInfo | null> {
      const out = await runOnSession(["display-message", "-p", "-t", pane(name), PANE_FORMAT]);
      return out === null ? null : parsePaneInfo(name, out.trim());
    },

    /** display-message's line, then capture-pane's screen, from one client. */
    async look(name: string): Promise<{ pane: PaneInfo | null; screen: string | null }> {
      const target = pane(name);
      const out = await runOnSession([
        "display-message",
        "-p",
        "-t",
        target,
        PANE_FORMAT,
        ";",
        "capture-pane",
        "-p",
        "-t",
        target,
      ]);
      if (out === null) return { pane: null, screen: null };
      const newline = out.indexOf("\n");
      const info = parsePaneInfo(name, newline === -1 ? out : out.slice(0, newline));
      return { pane: info, screen: info === null || newline === -1 ? null : out.slice(newline + 1) };
    },

    /** Bracketed paste from stdin through a one-shot buffer (`-d` deletes it after the paste). */
    async paste(name: string, text: string, bufferName: string): Promise<boolean> {
      const out = await runOnSession(
        [
          "load-buffer",
          "-b",
          bufferName,
          "-",
          ";",
          "paste-buffer",
          "-p",
          "-d",
          "-b",
          bufferName,
          "-t",
          pane(name),
        ],
        text,
      );
      return out !== null;
    },

    /** Keys by tmux name (Enter, Down, Escape, C-u), one call. */
    async sendKeys(name: string, keys: readonly string[]): Promise<boolean> {
      return (await runOnSession(["send-keys", "-t", pane(name), ...keys])) !== null;
    },

    async killSession(name: string): Promise<void> {
      await runOnSession(["kill-session", "-t", exact(name)]);
    },

    /** `show-environment` (global with no name): used by tests proving no secret reaches tmux. */
    async showEnvironment(name?: string): Promise<string> {
      return (
        (await runOnSession(name ? ["show-environment", "-t", exact(name)] : ["show-environment", "-g"])) ??
        ""
      );
    },

    /** Literal text typed into the pane (no key-name lookup). */
    async sendLiteral(name: string, text: string): Promise<boolean> {
      return (await runOnSession(["send-keys", "-l", "-t", pane(name), text])) !== null;
    },

    /** Ends this socket's server and every worker on it (tests; never used on a user's fleet). */
    async killServer(): Promise<void> {
      await runOnSession(["kill-server"]);
    },

    async renameSession(from: string, to: string): Promise<void> {
      const result = await raw(["rename-session", "-t", exact(from), to]);
      if (result.exitCode !== 0) throw tmuxFailure(["rename-session"], result);
    },

    /** The only interactive call: the caller's terminal is handed to tmux. */
    async attach(name: string): Promise<number> {
      const argv = [...base, "attach-session", "-t", exact(name)];
      const child = startProgram(argv, () =>
        Bun.spawn(argv, {
          env: { ...env, TERM: options.hostEnv.TERM ?? "xterm-256color" },
          stdio: ["inherit", "inherit", "inherit"],
        }),
      );
      return await child.exited;
    },
  };
}

/**
 * `tmux -V` (doctor): no socket, since it asks no server; null when tmux is missing or does not
 * answer within the bound.
 */
export async function readTmuxVersion(
  hostEnv: Readonly<Record<string, string | undefined>>,
  timeoutMs = 10_000,
): Promise<string | null> {
  try {
    const r = await runProcess(["tmux", "-V"], { env: clientEnv(hostEnv), timeoutMs });
    return r.exitCode === 0 ? r.stdout.trim() : null;
  } catch {
    return null; // not installed: Bun.spawn throws ENOENT
  }
}

const PANE_FORMAT = "#{session_name} #{pane_dead} #{pane_dead_status} #{pane_pid}";

function parsePaneInfo(name: string, line: string): PaneInfo | null {
  const [session, dead, status, pid] = line.split(" ");
  // tmux 3.3 answers a missing target with empty formats and status 0 when other sessions exist.
  if (session !== name) return null;
  return {
    dead: dead === "1",
    deadStatus: status && /^\d+$/.test(status) ? Number(status) : null,
    pid: pid && /^\d+$/.test(pid) ? Number(pid) : null,
  };
}

/** A trace line: `tmux load-buffer+set-option+new-session =w1 → 0, 12 ms`. */
function describeCall(args: readonly string[], result: RunResult): string {
  const commands = args.filter((_arg, i) => i === 0 || args[i - 1] === ";").join("+");
  const t = args.indexOf("-t");
  const target = t === -1 ? (args.includes("-s") ? args[args.indexOf("-s") + 1] : "") : args[t + 1];
  const status = result.timedOut ? "timed out" : String(result.exitCode);
  return `tmux ${commands}${target ? ` ${target}` : ""} → ${status}, ${result.durationMs} ms`;
}

/** `=name` matches the session name exactly (no prefix matching: "w1" must not hit "w10"). */
function exact(name: string): string {
  return `=${name}`;
}

function pane(name: string): string {
  return `=${name}:`;
}

function tmuxFailure(args: readonly string[], result: RunResult): TmuxError {
  const stderr = result.stderr.trim().slice(-500);
  return new TmuxError(`tmux ${args[0]} failed: ${stderr || `exit ${result.exitCode}`}`, {
    argv: args,
    exitCode: result.exitCode,
    stderr,
    durationMs: result.durationMs,
  });
}
