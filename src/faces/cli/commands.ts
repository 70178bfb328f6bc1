import { type ArgsDef, type CommandDef, defineCommand } from "citty";
import type { z } from "zod";
import { UsageError } from "../../core/errors.ts";
import type { Deps } from "../../core/ports.ts";
import {
  CaptureInput,
  EmptyInput,
  KeysInput,
  KillInput,
  LogsInput,
  NameInput,
  ReadInput,
  SendInput,
  SpawnInput,
  WaitInput,
} from "../../core/schemas.ts";
import { attachWorker } from "../../operations/attach.ts";
import { captureScreen } from "../../operations/capture.ts";
import { sendKeys } from "../../operations/keys.ts";
import { killWorker, pruneWorkers } from "../../operations/kill.ts";
import { streamLogs } from "../../operations/logs.ts";
import { readAnswer } from "../../operations/read.ts";
import { sendPrompt } from "../../operations/send.ts";
import { spawnWorker } from "../../operations/spawn.ts";
import { listWorkers, statusOf } from "../../operations/status.ts";
import { waitForTurn } from "../../operations/wait.ts";
import { argsFromSchema, inputFromArgs, rejectUnknownFlags } from "./args.ts";
import { renderEvent, renderOutcome, renderStatus, renderTable } from "./render.ts";

/** What a verb needs from the process: the operations' deps and the standard streams. */
export type CliIo = {
  readonly deps: Deps;
  readonly out: (text: string) => void;
  readonly readStdin: () => Promise<string>;
  readonly stdinIsTty: boolean;
  readonly stdoutIsTty: boolean;
};

type Verb<S extends z.ZodObject<z.ZodRawShape>> = {
  name: string;
  description: string;
  schema: S;
  positionals?: string[];
  extraArgs?: ArgsDef;
  /** Returns the process exit code. */
  run: (
    input: z.infer<S>,
    ctx: { io: CliIo; json: boolean; args: Record<string, unknown> },
  ) => Promise<number>;
};

const JSON_FLAG: ArgsDef = { json: { type: "boolean", description: "Print the result as JSON" } };

function verb<S extends z.ZodObject<z.ZodRawShape>>(v: Verb<S>): CommandDef {
  const defs = { ...argsFromSchema(v.schema, v.positionals), ...v.extraArgs, ...JSON_FLAG };
  return defineCommand({
    meta: { name: v.name, description: v.description },
    args: defs,
    run: async ({ args, rawArgs, data }) => {
      rejectUnknownFlags(rawArgs, defs);
      const io = data as CliIo;
      const raw = { ...(args as Record<string, unknown>) };
      if (v.name === "send" && (raw.prompt === undefined || raw.prompt === "-") && !io.stdinIsTty) {
        raw.prompt = await io.readStdin();
      }
      const input = inputFromArgs(v.schema, raw, rawArgs);
      return v.run(input, { io, json: args.json === true, args: raw });
    },
  });
}

function print(io: CliIo, json: boolean, value: unknown, text: string): void {
  io.out(json ? `${JSON.stringify(value)}\n` : text);
}

export const verbs: Record<string, CommandDef> = {
  spawn: verb({
    name: "spawn",
    description: "Start a worker (an agent CLI in its own tmux session) and return when it is ready",
    schema: SpawnInput,
    positionals: ["name"],
    run: async (input, { io, json }) => {
      const result = await spawnWorker(io.deps, input);
      print(io, json, result, `${result.name}\n`);
      return 0;
    },
  }),
  send: verb({
    name: "send",
    description: "Send a prompt (argument, or stdin with - or when piped) and prove the worker took it",
    schema: SendInput,
    positionals: ["name", "prompt"],
    run: async (input, { io, json }) => {
      const result = await sendPrompt(io.deps, input);
      print(io, json, result, `${result.baseline}\n`);
      return 0;
    },
  }),
  wait: verb({
    name: "wait",
    description:
      "Wait for the turn to end; exit code = outcome (0 stop, 122 provider-error, 123 idle, 124 timeout, 125 dead, 126 input, 130 aborted)",
    schema: WaitInput,
    positionals: ["name"],
    run: async (input, { io, json }) => {
      const outcome = await waitForTurn(io.deps, input);
      print(io, json, outcome, renderOutcome(outcome));
      return outcome.exitCode;
    },
  }),
  read: verb({
    name: "read",
    description: "Print the final assistant text of the last turn",
    schema: ReadInput,
    positionals: ["name"],
    run: async (input, { io, json }) => {
      const result = await readAnswer(io.deps, input);
      print(
        io,
        json,
        result,
        result.text.endsWith("\n") || result.text === "" ? result.text : `${result.text}\n`,
      );
      return 0;
    },
  }),
  status: verb({
    name: "status",
    description: "Show one worker: idle, busy, needs-input, starting, dead (with its exit) or killed",
    schema: NameInput,
    positionals: ["name"],
    run: async (input, { io, json }) => {
      const result = await statusOf(io.deps, input.name);
      print(io, json, result, renderStatus(result));
      return 0;
    },
  }),
  ls: verb({
    name: "ls",
    description: "List the workers of this state root",
    schema: EmptyInput,
    run: async (_input, { io, json }) => {
      const rows = await listWorkers(io.deps);
      print(io, json, rows, renderTable(rows));
      return 0;
    },
  }),
  kill: verb({
    name: "kill",
    description:
      "Stop a worker, keeping a tombstone (capture, read and logs still answer); --purge removes it",
    schema: KillInput,
    positionals: ["name"],
    run: async (input, { io, json }) => {
      const result = await killWorker(io.deps, input);
      print(io, json, result, `${result.state} ${result.name}\n`);
      return 0;
    },
  }),
  prune: verb({
    name: "prune",
    description: "Remove every dead or killed worker (never a live one)",
    schema: EmptyInput,
    run: async (_input, { io, json }) => {
      const result = await pruneWorkers(io.deps);
      print(io, json, result, result.removed.map((n) => `removed ${n}\n`).join(""));
      return 0;
    },
  }),
  capture: verb({
    name: "capture",
    description: "Print the worker's screen (the last one recorded, for a dead or killed worker)",
    schema: CaptureInput,
    positionals: ["name"],
    run: async (input, { io, json }) => {
      const result = await captureScreen(io.deps, input);
      print(io, json, result, result.screen.endsWith("\n") ? result.screen : `${result.screen}\n`);
      return 0;
    },
  }),
  logs: defineCommand<ArgsDef>({
    meta: { name: "logs", description: "Print the worker's hook events; -f follows them" },
    args: {
      ...argsFromSchema(LogsInput, ["name"]),
      f: { type: "boolean", description: "Same as --follow" },
      ...JSON_FLAG,
    },
    run: async ({ args, rawArgs, data }) => {
      const io = data as CliIo;
      const raw = { ...(args as Record<string, unknown>) };
      if (raw.f === true) raw.follow = true;
      delete raw.f;
      const input = inputFromArgs(LogsInput, raw, rawArgs);
      const json = args.json === true;
      await streamLogs(io.deps, input, (event) =>
        io.out(
          json
            ? `${JSON.stringify({ index: event.index, event: event.name, payload: event.payload })}\n`
            : renderEvent(event),
        ),
      );
      return 0;
    },
  }),
  keys: defineCommand<ArgsDef>({
    meta: {
      name: "keys",
      description: "Press keys in the worker (answer a permission prompt: 1 approves, Escape denies)",
    },
    args: {
      name: { type: "positional", description: "Worker name", required: true },
      keys: {
        type: "positional",
        description: "Keys by tmux name (Enter, Escape, Up, Down, 1 …)",
        required: true,
      },
      literal: { type: "boolean", description: "Type the keys as literal text" },
      ...JSON_FLAG,
    },
    run: async ({ args, data }) => {
      const io = data as CliIo;
      const [, ...keys] = (args._ as string[]) ?? [];
      const input = inputFromArgs(KeysInput, { name: args.name, keys, literal: args.literal }, []);
      const result = await sendKeys(io.deps, input);
      print(io, args.json === true, result, "");
      return 0;
    },
  }),
  attach: verb({
    name: "attach",
    description: "Attach your terminal to the worker's pane (detach with C-b d)",
    schema: NameInput,
    positionals: ["name"],
    run: async (input, { io }) => attachWorker(io.deps, input.name, io.stdinIsTty && io.stdoutIsTty),
  }),
};

export function unknownVerb(name: string): never {
  throw new UsageError(`unknown command: ${name} (see umbel --help)`, { command: name });
}
