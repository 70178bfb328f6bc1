import { quoteArg } from "../../core/common/quote.ts";
import { UsageError } from "../../core/errors.ts";
import type { PermissionMode } from "../../core/schemas.ts";
import {
  type DialectArgs,
  type FlagSpec,
  lastValue,
  parseDialectArgv,
  UMBEL_FLAGS,
  umbelRaw,
} from "./dialect-args.ts";

/**
 * `umbel exec`: the flags of `codex exec` (0.171.0) that make sense through a TUI, with codex's
 * spellings and meanings, plus umbel's own; `exec resume [SESSION_ID] [PROMPT]` and `--last`.
 */
const SPECS: Record<string, FlagSpec> = {
  "-m": { key: "model", kind: "value" },
  "--model": { key: "model", kind: "value" },
  "-C": { key: "cd", kind: "value" },
  "--cd": { key: "cd", kind: "value" },
  "-s": { key: "sandbox", kind: "value" },
  "--sandbox": { key: "sandbox", kind: "value" },
  "-o": { key: "outputLastMessage", kind: "value" },
  "--output-last-message": { key: "outputLastMessage", kind: "value" },
  "--output-schema": { key: "outputSchema", kind: "value" },
  "--add-dir": { key: "addDir", kind: "repeat" },
  "--color": { key: "color", kind: "value" },
  "--json": { key: "json", kind: "flag" },
  // umbel never needs a git repository: the worker's folder is trusted for its session.
  "--skip-git-repo-check": { key: "skipGitRepoCheck", kind: "flag" },
  "--dangerously-bypass-approvals-and-sandbox": { key: "bypass", kind: "flag" },
  "--full-auto": { key: "fullAuto", kind: "flag" },
  "--approve-for-me": { key: "approveForMe", kind: "flag" },
  "--last": { key: "last", kind: "flag" },
  "-h": { key: "help", kind: "flag" },
  "--help": { key: "help", kind: "flag" },
  ...UMBEL_FLAGS,
};

/** The flags `umbel exec` takes, as codex exec spells them (shell completion offers them). */
export const EXEC_FLAGS: Readonly<Record<string, FlagSpec>> = SPECS;

/** codex exec's --color values. */
export const COLOR_MODES = ["always", "never", "auto"] as const;

/** codex exec flags umbel does not mirror: named in the error instead of "unknown option". */
const NOT_MIRRORED = new Set([
  "-c",
  "--config",
  "--enable",
  "--disable",
  "--remote",
  "--remote-auth-token-env",
  "--strict-config",
  "-i",
  "--image",
  "--oss",
  "--local-provider",
  "-p",
  "--profile",
  "--dangerously-bypass-hook-trust",
  "--worktree",
  "--thread-source",
  "--cyber-access-program",
  "--trust",
  "--ephemeral",
  "--ignore-user-config",
  "--ignore-rules",
  "--all",
  "-V",
  "--version",
]);

/**
 * codex's sandbox modes as umbel's permission modes. umbel exec never asks, as codex exec
 * (0.171.0: `approval: never` whatever the sandbox), so read-only is plan (`-s read-only -a never`,
 * also what no flag gives), workspace-write is the TUI's own sandbox (`-a never`), and
 * danger-full-access, no sandbox and no approvals, is bypassPermissions.
 */
const SANDBOXES: Record<string, PermissionMode> = {
  "read-only": "plan",
  "workspace-write": "default",
  "danger-full-access": "bypassPermissions",
};

/** codex exec's --sandbox values. */
export const SANDBOX_MODES: readonly string[] = Object.keys(SANDBOXES);

export type ExecArgs = {
  /** Raw input for PrintInput, minus the prompt and the schema (the face reads them). */
  readonly raw: Record<string, unknown>;
  /** The PROMPT argument (`-` or none: stdin). */
  readonly prompt: string | null;
  readonly json: boolean;
  readonly outputLastMessage: string | undefined;
  readonly outputSchema: string | undefined;
  readonly help: boolean;
};

export function parseExecArgs(argv: readonly string[]): ExecArgs {
  const args = parseDialectArgv(argv, SPECS, {
    notMirrored: NOT_MIRRORED,
    cli: "umbel exec",
    help: "umbel exec --help",
  });
  const raw: Record<string, unknown> = { ...umbelRaw(args), ...permissionOf(args) };
  const model = lastValue(args, "model");
  if (model !== undefined) raw.model = model;
  const cd = lastValue(args, "cd");
  if (cd !== undefined) raw.cwd = cd;
  if (args.values.addDir) raw.addDir = [...args.values.addDir];
  const color = lastValue(args, "color");
  if (color !== undefined && !(COLOR_MODES as readonly string[]).includes(color))
    throw new UsageError(`--color ${quoteArg(color)}: must be one of ${COLOR_MODES.join(", ")}`, {
      flag: "--color",
    });
  raw.outputFormat = args.flags.has("json") ? "json" : "text";
  const { prompt, resume } = positionalsOf(args);
  Object.assign(raw, resume);
  return {
    raw,
    prompt,
    json: args.flags.has("json"),
    outputLastMessage: lastValue(args, "outputLastMessage"),
    outputSchema: lastValue(args, "outputSchema"),
    help: args.flags.has("help"),
  };
}

function permissionOf(args: DialectArgs): Record<string, unknown> {
  if (args.flags.has("bypass")) return { permissionMode: "bypassPermissions" };
  if (args.flags.has("approveForMe")) return { permissionMode: "auto" };
  const sandbox = lastValue(args, "sandbox");
  if (sandbox !== undefined) {
    if (!(sandbox in SANDBOXES))
      throw new UsageError(
        `--sandbox ${quoteArg(sandbox)}: must be one of ${Object.keys(SANDBOXES).join(", ")}`,
        {
          flag: "--sandbox",
        },
      );
    return { permissionMode: SANDBOXES[sandbox] };
  }
  // codex exec before 0.171.0: the workspace-write sandbox (0.171.0 refuses it).
  if (args.flags.has("fullAuto")) return { permissionMode: "default" };
  return {};
}

/** `[PROMPT]`, or `resume [SESSION_ID] [PROMPT]` (with --last: `resume [PROMPT]`). */
function positionalsOf(args: DialectArgs): { prompt: string | null; resume: Record<string, unknown> } {
  const [first, ...rest] = args.positionals;
  const last = args.flags.has("last");
  if (first === "fork" || first === "review" || first === "help")
    throw new UsageError(`umbel exec does not support codex exec ${first}`, { command: first });
  if (first !== "resume") {
    if (last)
      throw new UsageError("--last is codex exec resume's (umbel exec resume --last)", { flag: "--last" });
    if (rest.length > 0) throw unexpected(rest[0] ?? "");
    return { prompt: first ?? null, resume: {} };
  }
  if (last) {
    if (rest.length > 1) throw unexpected(rest[1] ?? "");
    return { prompt: rest[0] ?? null, resume: { continue: true } };
  }
  const [session, prompt, extra] = rest;
  if (session === undefined)
    throw new UsageError(
      "umbel exec resume needs a SESSION_ID (a worker name or the CLI's session id) or --last",
    );
  if (extra !== undefined) throw unexpected(extra);
  return { prompt: prompt ?? null, resume: { resume: session } };
}

function unexpected(arg: string): UsageError {
  return new UsageError(`unexpected argument ${quoteArg(arg)} found (quote a prompt of several words)`, {
    argument: arg,
  });
}
