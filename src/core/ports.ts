import type { AccountWindows } from "./accounts/placement.ts";
import type { CheckRun, GuardRecord, StructuredEntry, TurnSchema } from "./guard/record.ts";
import type { SshRun } from "./hosts/reply.ts";
import type { HomeEntry } from "./providers/home-types.ts";
import type { RecordSource } from "./providers/transcript-types.ts";
import type { ProviderId } from "./schemas.ts";
import type { ExitRecord } from "./wait/outcome.ts";
import type { Meta } from "./worker/meta.ts";
import type { RunState } from "./workflow/state.ts";

/**
 * The contracts of everything an operation touches outside its arguments. `src/main.ts` builds the
 * real ones once (`src/adapters/deps.ts`); tests pass in-memory fakes (`test/helpers/fake-*.ts`).
 * Operations import these types and no adapter, and never read the system clock or randomness.
 */

export type Clock = {
  now(): number;
  /** Resolves after ms, or early (without throwing) when the signal aborts. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
};

export type PaneInfo = {
  readonly dead: boolean;
  readonly deadStatus: number | null;
  readonly pid: number | null;
};

export type NewSession = {
  readonly name: string;
  readonly cwd: string;
  readonly width: number;
  readonly height: number;
  readonly command: readonly string[];
  /** Loaded into `buffer` from stdin in the same invocation: the worker env, never on argv. */
  readonly bufferName: string;
  readonly bufferContent: string;
};

export type CaptureOptions = { lines?: number | undefined; escapes?: boolean | undefined };

/**
 * The private tmux server. Every call is bounded in time: a call past the bound throws a
 * TmuxTimeoutError, never reads as "no such session" (null / false mean exactly that).
 */
export type TmuxPort = {
  readonly socket: string;
  hasSession(name: string): Promise<boolean>;
  listSessions(): Promise<string[]>;
  /** One invocation: load the env buffer from stdin, keep dead panes, start the session. */
  newSession(session: NewSession): Promise<void>;
  deleteBuffer(bufferName: string): Promise<void>;
  capture(name: string, options?: CaptureOptions): Promise<string | null>;
  paneInfo(name: string): Promise<PaneInfo | null>;
  /** paneInfo and capture in one tmux call (half the process starts of a wait's look). */
  look(name: string): Promise<{ pane: PaneInfo | null; screen: string | null }>;
  /**
   * Bracketed paste through a one-shot buffer; `keysFirst` (tmux key names) are sent just before it
   * by the same tmux call (send clears the composer so: one process start, not two).
   */
  paste(name: string, text: string, bufferName: string, keysFirst?: readonly string[]): Promise<boolean>;
  sendKeys(name: string, keys: readonly string[]): Promise<boolean>;
  sendLiteral(name: string, text: string): Promise<boolean>;
  killSession(name: string): Promise<void>;
  showEnvironment(name?: string): Promise<string>;
  killServer(): Promise<void>;
  /**
   * The one interactive tmux call: the caller's terminal is handed to tmux (the only other handoff
   * is SystemPort.runOnTerminal's, an account's sign-in).
   */
  attach(name: string): Promise<number>;
  /** Renames a session (a claimed spare becoming `spawn NAME`'s worker). */
  renameSession(from: string, to: string): Promise<void>;
};

export type WorkerPaths = {
  readonly dir: string;
  readonly meta: string;
  readonly events: string;
  readonly hooksLog: string;
  readonly exit: string;
  readonly lastScreen: string;
};

/** $UMBEL_HOME/sessions/<name>/: the state of each worker. */
export type StorePort = {
  readonly root: string;
  paths(name: string): WorkerPaths;
  /** The state root check (once per process; every other access awaits it too): a typed error when unusable. */
  checkRoot(): Promise<void>;
  /** mkdir is atomic: of two claims of one name, exactly one succeeds (NameTakenError). */
  claim(name: string): Promise<void>;
  writeMeta(meta: Meta): Promise<void>;
  readMeta(name: string): Promise<Meta>;
  exists(name: string): Promise<boolean>;
  listNames(): Promise<string[]>;
  readHooksLog(name: string): Promise<string>;
  readExit(name: string): Promise<ExitRecord | null>;
  writeLastScreen(name: string, screen: string): Promise<void>;
  readLastScreen(name: string): Promise<string | null>;
  remove(name: string): Promise<void>;
  /**
   * Ends the --notify commands still running for this worker (each named in its folder by the hook
   * that started it: notify.<pid>.pgid, the process group it leads); returns how many.
   */
  stopNotifies(name: string): Promise<number>;
  /** Removes the links in sessions/ that name this worker (a claimed spare's old names); returns them. */
  removeAliases(name: string): Promise<string[]>;
  /** When the session directory last changed (ms), or null when it is gone. */
  dirChangedAt(name: string): Promise<number | null>;
  /** When the events log last changed (ms), or null before the first event. */
  eventsChangedAt(name: string): Promise<number | null>;
  /**
   * Takes the worker's lock named `key` (a file in its state dir holding this process's pid and
   * start): null while another live process holds it; a dead holder's lock is taken over.
   */
  lock(name: string, key: string): Promise<Lock | null>;
  /**
   * A file of the worker's own in its session dir (`policy.tsv`, `notify.cmd`, `queue.json`: plain
   * names, no path): the text, or null when it does not exist.
   */
  readWorkerFile(name: string, file: string): Promise<string | null>;
  /** Writes it atomically (0600); null content removes it. */
  writeWorkerFile(name: string, file: string, content: string | null): Promise<void>;
  /**
   * HMAC-SHA256 of `text` (hex) with this state root's own key (`pool.key`, 0600, made on first
   * use): the warm pool matches spawns by it, so no environment value is ever written.
   */
  keyedHash(text: string): Promise<string>;
  /**
   * The worker `from`'s directory replaces `to`'s, which this process claimed (`claim`) and which is
   * still empty: one rename, so `to` is never unclaimed meanwhile.
   */
  moveInto(from: string, to: string): Promise<void>;
  /** `from` as a link to `to`'s directory (a taken-over spare's running hooks write through it); kept if there. */
  linkAlias(from: string, to: string): Promise<void>;
  /**
   * What umbel last saw of one account's windows and limit (`accounts/` under the state root, 0600;
   * account null: the provider's default sign-in); nothing seen yet reads as an empty record.
   */
  readAccountWindows(provider: ProviderId, account: string | null): Promise<AccountWindows>;
  /** The record `update` makes of the one there, written whole when it changed; returns it. */
  updateAccountWindows(
    provider: ProviderId,
    account: string | null,
    update: (known: AccountWindows) => AccountWindows,
  ): Promise<AccountWindows>;
  /** Where the boot slots are (a waiter watches it: a spawn that is done removes its slot's file). */
  readonly bootSlotsDir: string;
  /**
   * One of `slots` boot slots of `group` (a provider), across every umbel process of this state
   * root, or null while all are held (UMBEL_MAX_STARTING: spawns boot in waves).
   */
  bootSlot(group: string, slots: number): Promise<Lock | null>;
  /** Every lock file of the state root (the workers', the boot slots, the workflow runs'), for doctor. */
  locks(): Promise<LockInfo[]>;
};

export type Lock = { release(): Promise<void> };

/** A lock file as `doctor` finds it (StorePort.locks): its holder, and whether a taker would leave it. */
export type LockInfo = {
  readonly path: string;
  /** The holder it names; null: none can be read from it (empty, not JSON). */
  readonly holder: { readonly pid: number } | null;
  /** A taker would leave it: its holder runs (with no readable holder: it is younger than the bound). */
  readonly held: boolean;
  /** Since its file was made (now - mtime). */
  readonly ageMs: number;
};

/**
 * A worker's guardrails (docs/guardrails.md), beside its state: `guards/<baseline>.json` (one record
 * per guarded turn, atomic writes), `turn-schema.json` (the schema of the turn in flight, read by
 * the StructuredOutput tool), `events/structured.jsonl` (every call of that tool, appended; its
 * writes wake waiters like hook events do) and the files a check reads (`UMBEL_ANSWER_FILE`).
 */
export type GuardStore = {
  /** Every guard record of the worker, by baseline; a record that does not parse is a StateError. */
  list(name: string): Promise<GuardRecord[]>;
  write(name: string, record: GuardRecord): Promise<void>;
  remove(name: string, baseline: number): Promise<void>;
  writeTurnSchema(name: string, turn: TurnSchema): Promise<void>;
  /** null before the first structured turn. */
  readTurnSchema(name: string): Promise<TurnSchema | null>;
  appendStructured(name: string, entry: StructuredEntry): Promise<void>;
  /** Every call in order (a line still being written, or one that does not parse, is skipped). */
  readStructured(name: string): Promise<StructuredEntry[]>;
  /**
   * Writes a file of the guard dir atomically (the answer a check reads, the StructuredOutput
   * server's ready mark), making the guard dir but never the worker's: WorkerNotFoundError once removed.
   */
  writeFile(name: string, file: string, text: string): Promise<void>;
  /** A file of the guard dir (a check's log, the answer it reads); the dir exists once a record does. */
  path(name: string, file: string): string;
};

export type CheckOptions = {
  readonly cwd: string;
  /** The whole environment of the check (the caller's, plus UMBEL_WORKER …). */
  readonly env: Readonly<Record<string, string>>;
  readonly timeoutMs: number;
  /** Where its whole output goes (the record keeps only the tail). */
  readonly logPath: string;
  readonly signal?: AbortSignal | undefined;
  /** Told the check's process as soon as it runs (a failure ends the check and is thrown). */
  readonly onStart?: (proc: CheckProcess) => Promise<void>;
};

/** A running check's process: the leader of its own process group, and when it started. */
export type CheckProcess = { readonly pid: number; readonly start: string | null };

/**
 * Runs an accept check: `sh -c COMMAND`, stdin closed, stdout and stderr into one log, in its own
 * process group, which is killed at the timeout or on abort (an aborted run is reported, not thrown).
 */
export type CheckPort = {
  run(command: string, options: CheckOptions): Promise<CheckRun>;
  /**
   * Ends a check another process started (a waiter that died left it running): its whole group, if
   * that process is still the one that started then; returns once it is gone (or after a bound).
   */
  end(proc: CheckProcess): Promise<void>;
};

/** Files outside the store: transcripts, the caller's config files, halt files. */
export type FilesPort = {
  /** The text, or null when the file does not exist (any other fault is a FileAccessError naming it). */
  readText(path: string): Promise<string | null>;
  /**
   * At most the first `maxBytes` bytes, and whether that was all of it: a caller with a size limit
   * never reads more (a FIFO or /dev/zero has no size to check first). Null when it does not exist.
   */
  readHead(path: string, maxBytes: number): Promise<{ text: string; complete: boolean } | null>;
  /** The size in bytes, or null when the file does not exist. */
  size(path: string): Promise<number | null>;
  /** Makes a folder of umbel's own (0700) if missing; a symbolic link there is a FileAccessError. */
  ownDirectory(path: string): Promise<void>;
  /** Its bytes and their SHA-256 (hex), read as a stream; null when it does not exist. */
  digest(path: string): Promise<{ bytes: number; sha256: string } | null>;
  /** Temp file + rename (0600 unless told): readers see the old or the new file, never half. */
  writeAtomic(path: string, content: string | Uint8Array, mode?: number): Promise<void>;
  remove(path: string): Promise<void>;
  realpath(path: string): Promise<string>;
  isDirectory(path: string): Promise<boolean>;
};

/** A one-shot wake-up on changes in a folder. */
export type Waker = {
  /** Resolves at the next change, after `maxMs`, or on abort: whichever is first. */
  next(maxMs: number, signal?: AbortSignal): Promise<void>;
  close(): void;
};

export type FileTail = {
  /** The complete lines appended since the last call; a line still being written waits. */
  read(): Promise<string[]>;
  next(maxMs: number, signal?: AbortSignal): Promise<void>;
  /** Wakes a pending `next` now (the caller learned something from elsewhere). */
  poke(): void;
  close(): void;
};

/** fs.watch is the event bus: hooks and the wrapper write files, waiters wake on each write. */
export type WatchPort = {
  dir(path: string): Waker;
};

/** A provider's session record (a transcript file, or a read-only database query), read as text. */
export type RecordPort = {
  /** The text (a query's rows, one line each), or null when the file or database does not exist. */
  read(source: RecordSource): Promise<string | null>;
  /** The text's size in bytes (a file's size), or null when it does not exist. */
  size(source: RecordSource): Promise<number | null>;
  /** Follows the record from a byte offset of its text (a query lists settled rows, so they append). */
  tail(source: RecordSource, offset: number, alsoWatch: readonly string[]): FileTail;
};

/** A provider's umbel-owned home (codex CODEX_HOME, gemini GEMINI_CLI_HOME). */
export type HomePort = {
  /** The text of each path (null when missing; any other fault is a FileAccessError naming it). */
  read(paths: readonly string[]): Promise<Record<string, string | null>>;
  /** Makes the entries; returns what it created, for an unwind. */
  layOut(entries: readonly HomeEntry[]): Promise<string[]>;
  /** Removes paths without following links; directories only when empty. */
  remove(paths: readonly string[]): Promise<void>;
};

/** The hook script, the launch wrapper and the providers' own assets, written under the state root by content hash. */
export type Assets = {
  readonly launch: string;
  readonly hook: string;
  /** opencode's events plugin (hooks/opencode-plugin.js). */
  readonly plugin: string;
  /** claude's statusLine command (hooks/statusline.sh): keeps the last statusline JSON. */
  readonly statusLine: string;
};

/** What comes from the operating system: programs on PATH and randomness. */
export type SystemPort = {
  /**
   * Starts a process that outlives this one (its own session, stdin closed, output appended to
   * `log`): the warm pool's refill. `env` is its whole environment.
   */
  startDetached(argv: readonly string[], env: Readonly<Record<string, string>>, log: string): void;
  /**
   * Runs a program on this process's own terminal (stdin, stdout and stderr inherited; `env` is its
   * whole environment) and resolves with its exit status, 128+N when signal N ended it: `umbel
   * accounts login`, the CLI's sign-in, which talks to the person, never to tmux.
   */
  runOnTerminal(argv: readonly string[], env: Readonly<Record<string, string>>): Promise<number>;
  /** The absolute path of a program (PATH lookup relative to cwd), or null. */
  which(bin: string, where: { PATH: string; cwd: string }): string | null;
  uuid(): string;
  installAssets(root: string): Promise<Assets>;
  /** When a process started, as an opaque token (null: no such process); tells a reused pid apart. */
  processStart(pid: number): Promise<string | null>;
  /** How to run this umbel again (the compiled binary), or null when it is not one (tests, `bun src/main.ts`). */
  selfCommand(): readonly string[] | null;
  /** The argv that runs this umbel (the compiled binary, or bun with src/main.ts): hidden subcommands. */
  selfArgv(): readonly string[];
};

/**
 * $UMBEL_HOME/workflows/<run-id>/: workflow.yaml (the file as it was when the run began; a resume
 * runs this copy), state.json (atomic writes, in order) and, while a process runs it, a lock file.
 */
export type RunStore = {
  readonly dir: string;
  readonly copyPath: string;
  /** Queues an atomic write of this snapshot; writes land in call order. */
  save(state: RunState): Promise<void>;
  lock(): Promise<void>;
  unlock(): Promise<void>;
};

export type RunsPort = {
  /** Sorts by start time; a random part keeps runs apart. */
  newRunId(now: number): string;
  create(runId: string, text: string): Promise<RunStore>;
  open(runId: string): Promise<{ store: RunStore; state: RunState; text: string }>;
};

export type PathStat = { readonly mode: number; readonly uid: number; readonly isDirectory: boolean };

export type ProbeResult = {
  readonly exitCode: number | null;
  readonly output: string;
  readonly timedOut: boolean;
};

/** What `doctor` inspects about the machine; nothing here starts a worker or changes anything. */
export type HostPort = {
  /** process.platform: linux, darwin. */
  readonly platform: string;
  /** process.arch: x64, arm64. */
  readonly arch: string;
  /** This machine's libc is musl's (Alpine): a musl build of umbel runs here, a glibc one does not. */
  isMusl(): Promise<boolean>;
  /** The version tmux reports (its -V flag), or null when tmux cannot be run. */
  tmuxVersion(): Promise<string | null>;
  /**
   * Runs a program once (a CLI's `--version`) with PATH, a throwaway HOME and stdin closed, bounded
   * in time: its status and output (stdout then stderr), or null when it cannot be started.
   */
  probe(argv: readonly string[], timeoutMs: number): Promise<ProbeResult | null>;
  /** lstat's mode (permission bits), owner and kind, or null when the path does not exist. */
  stat(path: string): Promise<PathStat | null>;
  /** Bytes an unprivileged user may still write on the filesystem holding `path` (or its nearest parent). */
  freeBytes(path: string): Promise<number | null>;
};

/**
 * git, for `spawn --worktree` and its kill: every call bounded in time; a git that fails is a
 * GitError carrying git's own message.
 */
export type GitPort = {
  /** The top of the work tree that holds `dir`, or null when `dir` is in no git repository. */
  toplevel(dir: string): Promise<string | null>;
  /** The branch checked out in `repo`, or the commit when its HEAD is detached. */
  head(repo: string): Promise<string>;
  /** `git worktree add -b <branch> <path> <base>`. */
  addWorktree(repo: string, path: string, branch: string, base: string): Promise<void>;
  /** Uncommitted work (changes, untracked files) in the worktree; null when it is gone. */
  isDirty(path: string): Promise<boolean | null>;
  /** The branch holds no commit that `base` lacks (also true when `base` is gone: nothing to compare). */
  isMerged(repo: string, branch: string, base: string): Promise<boolean>;
  removeWorktree(repo: string, path: string, force: boolean): Promise<void>;
  /** `git branch -D`: only once isMerged said so, or when spawn unwinds a branch it just made. */
  deleteBranch(repo: string, branch: string): Promise<void>;
  /** The worktree's HEAD: its commit and the branch it is on (null: detached); null when it has none. */
  worktreeHead(path: string): Promise<{ commit: string; branch: string | null } | null>;
  /** The refs (full names, `refs/heads/main`) whose history holds `commit`; HEADs and reflogs are not refs. */
  refsContaining(repo: string, commit: string): Promise<string[]>;
  /** A branch of that name exists. */
  hasBranch(repo: string, branch: string): Promise<boolean>;
  /** `git branch <branch> <commit>`: keeps a commit reachable that only a worktree's HEAD held. */
  createBranch(repo: string, branch: string, commit: string): Promise<void>;
  /** The ignored files and folders in the worktree (a folder once, `node_modules/`), as `git worktree remove` deletes them. */
  ignoredPaths(path: string): Promise<string[]>;
};

/**
 * The `UMBEL_TRACE=1` / `--trace` timeline (adapters/trace.ts): one stderr line per mark, stamped
 * with the milliseconds since the process started. Off, `mark` does nothing; callers that would
 * build an expensive label check `on` first.
 */
export type TracePort = {
  readonly on: boolean;
  mark(what: string): void;
};

/** Everything an operation touches, passed in so tests can swap any piece. */
/**
 * ssh, for the hosts of config.toml (docs/hosts.md): one remote umbel call, its input on stdin,
 * bounded in time (past the bound its process group is killed and the run says timedOut). The
 * control sockets' folder is made 0700 first.
 */
export type SshPort = {
  run(argv: readonly string[], options: SshOptions): Promise<SshRun>;
  /**
   * As run, but stdout goes to `onStdout` as it arrives (logs -f, -p's stream-json), never held:
   * the result's stdout is empty. Its input and stdin, bound and signal are run's.
   */
  stream(argv: readonly string[], options: SshOptions & { onStdout(chunk: string): void }): Promise<SshRun>;
  /**
   * ssh on this process's terminal (stdio inherited; argv from sshArgv with `tty`): attach. Its exit
   * status (ssh's 255: the link), or 128+N for signal N; the signal ends it as run's does.
   */
  interactive(
    argv: readonly string[],
    options: { controlDir: string; signal?: AbortSignal | undefined },
  ): Promise<number>;
  /**
   * ssh with its stdin and stdout as streams for this process to speak over (argv from sshArgv
   * without `tty`; stderr inherited): another host's `umbel acp` as a session's agent. It lives as
   * long as the caller keeps it: closing `stdin` ends it, as does the signal.
   */
  pipe(
    argv: readonly string[],
    options: { controlDir: string; signal?: AbortSignal | undefined },
  ): Promise<SshPipe>;
};

export type SshPipe = {
  readonly stdin: WritableStream<Uint8Array>;
  readonly stdout: ReadableStream<Uint8Array>;
  /** ssh's exit status (255: the link), or 128+N for signal N. */
  readonly exited: Promise<number>;
};

export type SshOptions = {
  readonly input: string;
  /** stdin is this file's bytes instead, then EOF (hosts install: the binary, never held in memory). */
  readonly inputFile?: string | undefined;
  readonly timeoutMs: number;
  readonly controlDir: string;
  readonly signal?: AbortSignal | undefined;
};

export type Deps = {
  readonly store: StorePort;
  readonly tmux: TmuxPort;
  readonly files: FilesPort;
  readonly watch: WatchPort;
  readonly records: RecordPort;
  readonly home: HomePort;
  readonly runs: RunsPort;
  readonly guards: GuardStore;
  readonly checks: CheckPort;
  readonly system: SystemPort;
  readonly host: HostPort;
  readonly git: GitPort;
  readonly ssh: SshPort;
  readonly clock: Clock;
  readonly trace: TracePort;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly cwd: string;
  readonly uid: number;
  /** This process's pid (recorded by a workflow run's lock and state). */
  readonly pid: number;
  readonly signal?: AbortSignal | undefined;
};
