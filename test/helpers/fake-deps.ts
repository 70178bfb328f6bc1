import { join } from "node:path";
import { type AccountWindows, unseen } from "../../src/core/accounts/placement.ts";
import { sha256Hex } from "../../src/core/common/sha256.ts";
import {
  NameTakenError,
  StateError,
  WorkerIncompleteError,
  WorkerNotFoundError,
} from "../../src/core/errors.ts";
import type { CheckRun, GuardRecord, StructuredEntry, TurnSchema } from "../../src/core/guard/record.ts";
import type { SshRun } from "../../src/core/hosts/reply.ts";
import type {
  CheckOptions,
  Deps,
  FilesPort,
  FileTail,
  GuardStore,
  RunsPort,
  StorePort,
  Waker,
} from "../../src/core/ports.ts";
import type { ExitRecord } from "../../src/core/wait/outcome.ts";
import type { Meta } from "../../src/core/worker/meta.ts";
import { createFakeClock, type FakeClock } from "./fake-clock.ts";
import { createFakeGit, type FakeGit } from "./fake-git.ts";
import { createFakeTmux, type FakeTmux } from "./fake-tmux.ts";

/** One worker's state as the fake store holds it. */
export type FakeSession = {
  meta: Meta | null;
  /** Not JSON: meta.json is corrupt. */
  metaText?: string;
  hooksLog: string;
  exit: ExitRecord | null;
  lastScreen: string | null;
  changedAt: number;
  /** The worker's own files in its session dir (policy.tsv, notify.cmd, queue.json …). */
  files?: Map<string, string>;
};

export type FakeWorld = {
  readonly deps: Deps;
  readonly clock: FakeClock;
  readonly tmux: FakeTmux;
  readonly git: FakeGit;
  readonly sessions: Map<string, FakeSession>;
  /** Files outside the store (transcripts, configs), by absolute path. */
  readonly files: Map<string, string>;
  readonly dirs: Set<string>;
  readonly processes: Map<number, string>;
  readonly detached: { argv: string[]; env: Record<string, string> }[];
  /** What ran on the terminal (SystemPort.runOnTerminal), in order; each exits 0. */
  readonly onTerminal: { argv: string[]; env: Record<string, string> }[];
  readonly aliases: Map<string, string>;
  /** Appends hook payloads to a worker's events log (as hooks/hook.sh does). */
  hook(name: string, ...payloads: object[]): void;
  /** Guard records by worker, then baseline; the turn schema; the StructuredOutput calls. */
  readonly guards: Map<string, Map<number, GuardRecord>>;
  readonly turnSchemas: Map<string, TurnSchema>;
  readonly structured: Map<string, StructuredEntry[]>;
  /** Every accept check run, in order; `onCheck` decides what a command does (default: exit 0). */
  readonly checkRuns: { command: string; options: CheckOptions }[];
  onCheck: (command: string, options: CheckOptions) => Partial<CheckRun> | Promise<Partial<CheckRun>>;
  /** Every ssh run (SshPort), in order; `onSsh` answers it (default: ssh's own failure, exit 255). */
  readonly sshRuns: {
    argv: string[];
    input: string;
    inputFile?: string | undefined;
    timeoutMs: number;
    controlDir: string;
  }[];
  /** `signal`: the call's own (a Ctrl-C, or a wait --any that has its first outcome). */
  onSsh: (argv: string[], input: string, signal?: AbortSignal) => Partial<SshRun> | Promise<Partial<SshRun>>;
};

const ROOT = "/state";

/**
 * Every port in memory: operations run against it in microseconds, on a virtual clock. The store
 * keeps sessions in a map, files are a map of paths, watchers wake on the clock's scheduled changes.
 */
export function createFakeWorld(over: Partial<Omit<Deps, "store" | "tmux" | "clock">> = {}): FakeWorld {
  const clock = createFakeClock(1_000_000);
  const tmux = createFakeTmux();
  const git = createFakeGit();
  const sessions = new Map<string, FakeSession>();
  const files = new Map<string, string>();
  const dirs = new Set<string>(["/work", "/"]);
  /** Live processes by pid → their start token (this process, 4242, is alive). */
  const processes = new Map<number, string>([[4242, "boot+42"]]);
  const locks = new Set<string>();
  /** Processes started with startDetached (the pool's refills), in order. */
  const detached: { argv: string[]; env: Record<string, string> }[] = [];
  const onTerminal: { argv: string[]; env: Record<string, string> }[] = [];
  /** A taken-over spare's old name → the worker it became (the link linkAlias leaves). */
  const aliases = new Map<string, string>();
  /** Each account's last-seen windows (the state root's accounts/), by `provider/account`. */
  const accountWindows = new Map<string, AccountWindows>();
  const session = (name: string): FakeSession => {
    const s = sessions.get(name);
    if (!s) throw new WorkerNotFoundError(`no worker named ${name}`, { name });
    return s;
  };
  const paths = (name: string) => {
    const dir = join(ROOT, "sessions", name);
    const events = join(dir, "events");
    return {
      dir,
      meta: join(dir, "meta.json"),
      events,
      hooksLog: join(events, "hooks.jsonl"),
      exit: join(events, "exit.json"),
      lastScreen: join(dir, "last-screen.txt"),
    };
  };
  const store: StorePort = {
    root: ROOT,
    checkRoot: async () => undefined,
    paths,
    async claim(name) {
      if (sessions.has(name)) throw new NameTakenError(`a worker named ${name} already exists`, { name });
      sessions.set(name, { meta: null, hooksLog: "", exit: null, lastScreen: null, changedAt: clock.now() });
    },
    async writeMeta(meta) {
      session(meta.name).meta = meta;
    },
    async readMeta(name) {
      const s = session(name);
      if (s.metaText !== undefined)
        throw new StateError(
          `meta.json of ${name} is unreadable; fix or remove that file, or umbel kill ${name} --purge`,
          {
            name,
          },
        );
      if (!s.meta)
        throw new WorkerIncompleteError(`worker ${name} is being created or was left half-made`, { name });
      return s.meta;
    },
    async exists(name) {
      return sessions.get(name)?.meta != null;
    },
    async listNames() {
      return [...sessions.keys()].sort();
    },
    async readHooksLog(name) {
      return sessions.get(name)?.hooksLog ?? "";
    },
    async readExit(name) {
      return sessions.get(name)?.exit ?? null;
    },
    async writeLastScreen(name, screen) {
      session(name).lastScreen = screen;
    },
    async readLastScreen(name) {
      return sessions.get(name)?.lastScreen ?? null;
    },
    async remove(name) {
      sessions.delete(name);
    },
    async stopNotifies() {
      return 0;
    },
    async removeAliases(name) {
      const removed = [...aliases].filter(([, to]) => to === name).map(([from]) => from);
      for (const from of removed) aliases.delete(from);
      return removed;
    },
    async dirChangedAt(name) {
      return sessions.get(name)?.changedAt ?? null;
    },
    async eventsChangedAt(name) {
      return sessions.get(name)?.changedAt ?? null;
    },
    async lock(name, key) {
      const id = `${name}/${key}`;
      if (locks.has(id)) return null;
      locks.add(id);
      return { release: async () => void locks.delete(id) };
    },
    async readWorkerFile(name, file) {
      return sessions.get(name)?.files?.get(file) ?? null;
    },
    async writeWorkerFile(name, file, content) {
      const s = session(name);
      s.files ??= new Map();
      if (content === null) s.files.delete(file);
      else s.files.set(file, content);
    },
    bootSlotsDir: `${ROOT}/starting`,
    async bootSlot(group, slots) {
      for (let i = 0; i < slots; i++) {
        const id = `starting/${group}-${i}`;
        if (locks.has(id)) continue;
        locks.add(id);
        return { release: async () => void locks.delete(id) };
      }
      return null;
    },
    async locks() {
      return [];
    },
    async keyedHash(text) {
      return sha256Hex(`fake pool key\n${text}`);
    },
    async moveInto(from, to) {
      if (session(to).meta) throw new NameTakenError(`a worker named ${to} already exists`, { name: to });
      const s = session(from);
      sessions.delete(from);
      sessions.set(to, s);
    },
    async linkAlias(from, to) {
      aliases.set(from, to);
    },
    async readAccountWindows(provider, account) {
      return accountWindows.get(`${provider}/${account ?? ""}`) ?? unseen(provider, account);
    },
    async updateAccountWindows(provider, account, update) {
      const key = `${provider}/${account ?? ""}`;
      const next = update(accountWindows.get(key) ?? unseen(provider, account));
      accountWindows.set(key, next);
      return next;
    },
  };
  const fileSystem: FilesPort = {
    async readText(path) {
      return files.get(path) ?? null;
    },
    async readHead(path, maxBytes) {
      const text = files.get(path);
      if (text === undefined) return null;
      const bytes = Buffer.from(text);
      return { text: bytes.subarray(0, maxBytes).toString("utf8"), complete: bytes.length <= maxBytes };
    },
    async size(path) {
      // A worker's events log is a file too (its size grows with each hook event).
      for (const [name, s] of sessions)
        if (paths(name).hooksLog === path) return Buffer.byteLength(s.hooksLog);
      const text = files.get(path);
      return text === undefined ? null : Buffer.byteLength(text);
    },
    async ownDirectory(path) {
      dirs.add(path);
    },
    async digest(path) {
      const text = files.get(path);
      return text === undefined ? null : { bytes: Buffer.byteLength(text), sha256: sha256Hex(text) };
    },
    async writeAtomic(path, content) {
      files.set(path, typeof content === "string" ? content : Buffer.from(content).toString("latin1"));
    },
    async remove(path) {
      files.delete(path);
    },
    async realpath(path) {
      return path;
    },
    async isDirectory(path) {
      return dirs.has(path);
    },
  };
  const waker = (): Waker => ({ next: (ms) => clock.advance(ms, true), close: () => undefined });
  /** Follows a record kept in `files` (by path) from a byte offset: its complete lines, each once. */
  const tail = (source: { path: string }, offset: number): FileTail => {
    let position = offset;
    return {
      read: async () => {
        const bytes = Buffer.from(files.get(source.path) ?? "");
        const end = bytes.lastIndexOf(10) + 1;
        if (end <= position) return [];
        const lines = bytes.subarray(position, end).toString("utf8").split("\n").slice(0, -1);
        position = end;
        return lines;
      },
      next: (ms) => clock.advance(ms, true),
      poke: () => undefined,
      close: () => undefined,
    };
  };
  const runs: RunsPort = {
    newRunId: (now) => `run-${now}`,
    create: () => Promise.reject(new Error("workflow runs are not faked")),
    open: () => Promise.reject(new Error("workflow runs are not faked")),
  };
  const guardRecords = new Map<string, Map<number, GuardRecord>>();
  const turnSchemas = new Map<string, TurnSchema>();
  const structured = new Map<string, StructuredEntry[]>();
  const checkRuns: { command: string; options: CheckOptions }[] = [];
  const sshRuns: FakeWorld["sshRuns"] = [];
  const guards: GuardStore = {
    async list(name) {
      return [...(guardRecords.get(name)?.values() ?? [])]
        .map((r) => structuredClone(r))
        .sort((a, b) => a.baseline - b.baseline);
    },
    async write(name, record) {
      const map = guardRecords.get(name) ?? new Map<number, GuardRecord>();
      guardRecords.set(name, map);
      map.set(record.baseline, structuredClone(record));
    },
    async remove(name, baseline) {
      guardRecords.get(name)?.delete(baseline);
    },
    async writeTurnSchema(name, turn) {
      turnSchemas.set(name, structuredClone(turn));
    },
    async readTurnSchema(name) {
      return turnSchemas.get(name) ?? null;
    },
    async appendStructured(name, entry) {
      structured.set(name, [...(structured.get(name) ?? []), structuredClone(entry)]);
      const s = sessions.get(name);
      if (s) s.changedAt = clock.now();
    },
    async readStructured(name) {
      return [...(structured.get(name) ?? [])];
    },
    async writeFile(name, file, text) {
      files.set(join(paths(name).dir, "guards", file), text);
    },
    path: (name, file) => join(paths(name).dir, "guards", file),
  };
  let ids = 0;
  const deps: Deps = {
    store,
    tmux,
    files: fileSystem,
    watch: { dir: waker },
    // A record is its text in `files` by path, a database query's rendered rows included.
    records: {
      read: (source) => fileSystem.readText(source.path),
      size: (source) => fileSystem.size(source.path),
      tail,
    },
    home: {
      read: async (list) => Object.fromEntries(list.map((p) => [p, files.get(p) ?? null])),
      layOut: async () => [],
      remove: async () => undefined,
    },
    runs,
    guards,
    checks: {
      async run(command, options) {
        checkRuns.push({ command, options });
        // Each check is a process of its own while it runs (its pid recorded by the guard loop).
        const pid = 9000 + checkRuns.length;
        processes.set(pid, `boot+${pid}`);
        await options.onStart?.({ pid, start: `boot+${pid}` });
        let result: Partial<CheckRun>;
        try {
          result = await world.onCheck(command, options);
        } finally {
          processes.delete(pid);
        }
        return {
          command,
          exitCode: 0,
          signal: null,
          timedOut: false,
          durationMs: 5,
          output: "",
          ...result,
        };
      },
      async end(proc) {
        processes.delete(proc.pid);
      },
    },
    system: {
      which: (bin) => (bin.startsWith("/") ? bin : `/usr/bin/${bin}`),
      uuid: () => `00000000-0000-4000-8000-${String(++ids).padStart(12, "0")}`,
      installAssets: async (root) => ({
        launch: `${root}/bin/launch.sh`,
        hook: `${root}/bin/hook.sh`,
        plugin: `${root}/bin/opencode-plugin.js`,
        statusLine: `${root}/bin/statusline.sh`,
      }),
      processStart: async (pid) => processes.get(pid) ?? null,
      selfCommand: () => null,
      selfArgv: () => ["/usr/bin/umbel"],
      startDetached: (argv, env) => void detached.push({ argv: [...argv], env: { ...env } }),
      runOnTerminal: async (argv, env) => {
        onTerminal.push({ argv: [...argv], env: { ...env } });
        return 0;
      },
    },
    host: {
      platform: "linux",
      arch: "x64",
      isMusl: async () => false,
      tmuxVersion: async () => "tmux 3.3a",
      probe: async () => null,
      stat: async () => null,
      freeBytes: async () => null,
    },
    git,
    ssh: {
      async run(argv, options) {
        const { signal, ...recorded } = options;
        sshRuns.push({ argv: [...argv], ...recorded });
        const answer = await world.onSsh([...argv], options.input, signal);
        return { exitCode: 255, stdout: "", stderr: "", timedOut: false, durationMs: 3, ...answer };
      },
      // The answer's stdout handed over a line at a time, as a remote logs -f writes it.
      async stream(argv, { onStdout, ...options }) {
        const { signal, ...recorded } = options;
        sshRuns.push({ argv: [...argv], ...recorded });
        const answer = await world.onSsh([...argv], options.input, signal);
        for (const line of (answer.stdout ?? "").split(/(?<=\n)/)) if (line) onStdout(line);
        return { exitCode: 255, stderr: "", timedOut: false, durationMs: 3, ...answer, stdout: "" };
      },
      async interactive(argv, options) {
        const { signal, ...recorded } = options;
        sshRuns.push({ argv: [...argv], input: "", timeoutMs: 0, ...recorded });
        return (await world.onSsh([...argv], "", signal)).exitCode ?? 255;
      },
      // A link that closes at once (ssh's own failure), unless a test needs more.
      async pipe(argv, options) {
        const { signal: _signal, ...recorded } = options;
        sshRuns.push({ argv: [...argv], input: "", timeoutMs: 0, ...recorded });
        return {
          stdin: new WritableStream<Uint8Array>(),
          stdout: new ReadableStream<Uint8Array>({ start: (c) => c.close() }),
          exited: Promise.resolve(255),
        };
      },
    },
    clock,
    trace: { on: false, mark: () => undefined },
    env: { PATH: "/usr/bin:/bin", HOME: "/home/u" },
    cwd: "/work",
    uid: 1000,
    pid: 4242,
    ...over,
  };
  const world: FakeWorld = {
    deps,
    clock,
    tmux,
    git,
    sessions,
    files,
    dirs,
    processes,
    detached,
    onTerminal,
    aliases,
    hook(name, ...payloads) {
      const s = session(name);
      s.hooksLog += payloads.map((p) => `${JSON.stringify(p)}\n`).join("");
      s.changedAt = clock.now();
    },
    guards: guardRecords,
    turnSchemas,
    structured,
    checkRuns,
    onCheck: () => ({}),
    sshRuns,
    onSsh: () => ({ stderr: "ssh: connect to host box port 22: Connection refused" }),
  };
  return world;
}

/** A ready worker in the fake world: meta written, a live pane showing `screen`. */
export function addWorker(
  world: FakeWorld,
  name: string,
  options: { provider?: Meta["provider"]; screen?: string; state?: Meta["state"] } = {},
): void {
  const meta: Meta = {
    version: 1,
    name,
    provider: options.provider ?? "claude",
    cwd: "/work",
    bin: "/usr/bin/claude",
    sessionId: "11111111-1111-4111-8111-111111111111",
    socket: world.tmux.socket,
    createdAt: new Date(world.clock.now()).toISOString(),
    envNames: [],
    state: options.state ?? "ready",
  };
  world.sessions.set(name, {
    meta,
    hooksLog: "",
    exit: null,
    lastScreen: null,
    changedAt: world.clock.now(),
  });
  world.tmux.panes.set(name, { screen: options.screen ?? "", dead: false, deadStatus: null, pid: 5000 });
}
