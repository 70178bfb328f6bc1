import { tmuxTooOld } from "../core/doctor/programs.ts";
import { NameTakenError, type ProgramTooOldError, TmuxError, TmuxTimeoutError } from "../core/errors.ts";
import type { NewSession, PaneInfo, TmuxPort, TracePort } from "../core/ports.ts";
import { type RunResult, runProcess, startProgram } from "./process.ts";

/**
 * The only place umbel invokes tmux (test/unit/structure.test.ts enforces it). Every call carries
 * `-L <private socket>` and `-f /dev/null` (the user's tmux.conf never shapes a worker), runs with a
 * minimal environment and stdin closed, and is bounded in time: an unanswered call is a
 * TmuxTimeoutError, never "no such session".
 *
 * With `root`, a session belongs to the state root that made it: new-session marks it
 * (`@umbel-root`, in the same invocation), and every call that targets a session runs inside an
 * `if-shell -F` on that mark, in one tmux command, so a session of another root sharing the socket
 * (UMBEL_TMUX_SOCKET) reads as no session at all: never read, typed into, renamed or killed.
 */

export type TmuxOptions = {
  readonly socket: string;
  readonly hostEnv: Readonly<Record<string, string | undefined>>;
  readonly timeoutMs?: number;
  readonly bin?: string;
  /** UMBEL_TRACE: each call's commands, target, status and duration. */
  readonly trace?: TracePort;
  /** The state root whose sessions this port may touch (absent: every session; tests that end a server). */
  readonly root?: string;
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
const DUPLICATE = /duplicate session/;

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
   * A tmux older than 3.3 is refused where it would make a worker (core/doctor/programs.ts), once per
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

  /**
   * Commands on session `name`, run only when it is this root's: null when it is gone or another
   * root's (the check and the commands are one tmux call: nothing can come between them).
   */
  function onOwn(name: string, commands: readonly (readonly string[])[], input?: string) {
    return runOnSession(owned(name, commands, options.root), input);
  }

  return {
    socket: options.socket,

    async hasSession(name: string): Promise<boolean> {
      return (await onOwn(name, [["has-session", "-t", exact(name)]])) !== null;
    },

    async listSessions(): Promise<string[]> {
      const out = await runOnSession(["list-sessions", "-F", `#{session_name}\t${OWNER_FORMAT}`]);
      return (out ?? "")
        .split("\n")
        .map((line) => line.split("\t"))
        .filter(([name, owner]) => name && isOwner(owner ?? "", options.root))
        .map(([name]) => name ?? "");
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
        ...s.command.map(keepSemicolon),
        // The mark, in the same invocation: no other call sees the session unmarked.
        ...(options.root === undefined
          ? []
          : [";", "set-option", "-t", pane(s.name), MARK, keepSemicolon(options.root)]),
      ];
      const tooOld = checkVersion();
      // A server whose last session just ended is shutting down; a client that connects in that
      // moment gets "server exited unexpectedly" and nothing was made. Start a new server instead.
      for (let attempt = 1; ; attempt++) {
        const result = await raw(args, s.bufferContent);
        const old = await tooOld;
        if (old && result.exitCode === 0) {
          await onOwn(s.name, [["kill-session", "-t", exact(s.name)]]).catch(() => undefined);
          await runOnSession(["delete-buffer", "-b", s.bufferName]).catch(() => undefined);
        }
        if (old) throw old;
        if (result.exitCode === 0) return;
        // Another state root sharing this socket (UMBEL_TMUX_SOCKET) has a session of that name.
        if (DUPLICATE.test(result.stderr))
          throw new NameTakenError(
            `tmux session ${s.name} already exists on socket ${options.socket} (another state root sharing UMBEL_TMUX_SOCKET?)`,
            { name: s.name, socket: options.socket },
          );
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
      return onOwn(name, [args]);
    },

    async paneInfo(name: string): Promise<PaneInfo | null> {
      const out = await onOwn(name, [["display-message", "-p", "-t", pane(name), PANE_FORMAT]]);
      return out === null ? null : parsePaneInfo(name, out.trim());
    },

    /** display-message's line, then capture-pane's screen, from one client. */
    async look(name: string): Promise<{ pane: PaneInfo | null; screen: string | null }> {
      const target = pane(name);
      const out = await onOwn(name, [
        ["display-message", "-p", "-t", target, PANE_FORMAT],
        ["capture-pane", "-p", "-t", target],
      ]);
      if (out === null) return { pane: null, screen: null };
      const newline = out.indexOf("\n");
      const info = parsePaneInfo(name, newline === -1 ? out : out.slice(0, newline));
      return { pane: info, screen: info === null || newline === -1 ? null : out.slice(newline + 1) };
    },

    /**
     * Bracketed paste from stdin through a one-shot buffer (`-d` deletes it after the paste), after
     * `keysFirst` when given (the same client, so nothing of another caller comes between them).
     */
    async paste(
      name: string,
      text: string,
      bufferName: string,
      keysFirst: readonly string[] = [],
    ): Promise<boolean> {
      const target = pane(name);
      const keys = keysFirst.length > 0 ? [["send-keys", "-t", target, ...keysFirst]] : [];
      // The buffer is loaded whoever's the session is; it goes with the paste (-d) or right after.
      const out = await runOnSession(
        [
          "load-buffer",
          "-b",
          bufferName,
          "-",
          ";",
          ...owned(
            name,
            [...keys, ["paste-buffer", "-p", "-d", "-b", bufferName, "-t", target]],
            options.root,
            ["delete-buffer", "-b", bufferName],
          ),
        ],
        text,
      );
      return out !== null;
    },

    /** Keys by tmux name (Enter, Down, Escape, C-u), one call. */
    async sendKeys(name: string, keys: readonly string[]): Promise<boolean> {
      return (await onOwn(name, [["send-keys", "-t", pane(name), ...keys]])) !== null;
    },

    /** Only this root's session of that name: another root's is left alone (as if gone). */
    async killSession(name: string): Promise<void> {
      await onOwn(name, [["kill-session", "-t", exact(name)]]);
    },

    /** `show-environment` (global with no name): used by tests proving no secret reaches tmux. */
    async showEnvironment(name?: string): Promise<string> {
      return (
        (await (name
          ? onOwn(name, [["show-environment", "-t", exact(name)]])
          : runOnSession(["show-environment", "-g"]))) ?? ""
      );
    },

    /** Literal text typed into the pane (no key-name lookup). */
    async sendLiteral(name: string, text: string): Promise<boolean> {
      return (await onOwn(name, [["send-keys", "-l", "-t", pane(name), text]])) !== null;
    },

    /** Ends this socket's server and every worker on it (tests; never used on a user's fleet). */
    async killServer(): Promise<void> {
      await runOnSession(["kill-server"]);
    },

    /** This root's session `from` only: gone or another root's, it is a TmuxError. */
    async renameSession(from: string, to: string): Promise<void> {
      const args = owned(from, [["rename-session", "-t", exact(from), to]], options.root);
      const result = await raw(args);
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

/**
 * A trace line: `tmux load-buffer+set-option+new-session w1 → 0, 12 ms`; a call on a session of this
 * root's names the commands inside its if-shell (`tmux kill-session =w1 → 0, 3 ms`).
 */
function describeCall(args: readonly string[], result: RunResult): string {
  const guard = args.indexOf("if-shell");
  const inner = guard === -1 ? "" : (args[guard + 5] ?? "");
  const names = [
    ...args.filter((arg, i) => (i === 0 || args[i - 1] === ";") && arg !== "if-shell"),
    ...[...inner.matchAll(/(?:^| ; )'([a-z-]+)'/g)].map((m) => m[1]),
  ];
  const at = (flag: string) => (args.includes(flag) ? args[args.indexOf(flag) + 1] : undefined);
  const target = args.includes("new-session")
    ? at("-s")
    : guard === -1
      ? at("-t")
      : /'-t' '([^']*)'/.exec(inner)?.[1];
  const status = result.timedOut ? "timed out" : String(result.exitCode);
  return `tmux ${names.join("+")}${target ? ` ${target}` : ""} → ${status}, ${result.durationMs} ms`;
}

/** The session option that names the state root a session belongs to (a user option: no env). */
const MARK = "@umbel-root";
const OWNER_FORMAT = `#{${MARK}}`;
/**
 * What runs when the session is not this root's: a read-only call that fails as "can't find session"
 * (session ids are unsigned 32-bit: this one cannot exist), so the caller reads "no such session".
 */
const NOT_OURS = ["has-session", "-t", "$99999999999"] as const;

/**
 * `commands` on session `name` as one tmux call that runs them only when the session is `root`'s
 * (or unmarked: made before sessions were marked). `otherwise` runs first when it is not.
 */
function owned(
  name: string,
  commands: readonly (readonly string[])[],
  root: string | undefined,
  otherwise: readonly string[] = [],
): string[] {
  if (root === undefined) return commands.flatMap((c, i) => (i === 0 ? [...c] : [";", ...c]));
  const mark = formatText(root);
  const check = `#{||:#{==:${OWNER_FORMAT},${mark}},#{==:${OWNER_FORMAT},}}`;
  const fallback = otherwise.length > 0 ? [otherwise, NOT_OURS] : [NOT_OURS];
  return ["if-shell", "-F", "-t", pane(name), check, commandText(commands), commandText(fallback)];
}

function isOwner(mark: string, root: string | undefined): boolean {
  return root === undefined || mark === root || mark === "";
}

/** Literal text inside a tmux format: `#`, `,` and `}` are its syntax. */
function formatText(text: string): string {
  return text.replace(/[#,}]/g, (c) => `#${c}`);
}

/**
 * Commands as one string for tmux's own parser (if-shell's branches): each argument in single
 * quotes, where nothing is special ($, ~, #, ;, braces), a quote closed and given in double quotes.
 */
function commandText(commands: readonly (readonly string[])[]): string {
  const quote = (arg: string) => `'${arg.replaceAll("'", `'"'"'`)}'`;
  return commands.map((c) => c.map(quote).join(" ")).join(" ; ");
}

/** tmux splits commands at an argument that ENDS in ";" (a system prompt, a path); `\;` keeps it. */
function keepSemicolon(arg: string): string {
  return arg.endsWith(";") ? `${arg.slice(0, -1)}\\;` : arg;
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
