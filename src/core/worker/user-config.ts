import { join } from "node:path";
import { z } from "zod";
import { AccountName, Accounts } from "../accounts/schema.ts";
import { didYouMean } from "../common/suggest.ts";
import { UsageError } from "../errors.ts";
import { HOST_KEYS, HostName, Hosts } from "../hosts/schema.ts";
import { EnvName, type EnvSpec, ProviderId } from "../schemas.ts";

/**
 * The user's config file: the default provider, and per provider the names of variables every
 * worker of it gets, copied from umbel's environment when set there. It holds names only, never
 * values, so a container or a dotfiles repo can carry it; the values stay in the environment.
 *
 *   provider = "codex"
 *
 *   [claude]
 *   env = ["CLAUDE_CODE_OAUTH_TOKEN"]
 *
 *   [accounts.work]            # core/accounts/schema.ts
 *   provider = "claude"
 *   home = "~/.claude-work"
 *   env = { CLAUDE_CODE_OAUTH_TOKEN = "WORK_CLAUDE_TOKEN" }
 *
 *   [hosts.box]                # core/hosts/schema.ts
 *   ssh = "ci@box.internal"
 */

const ProviderConfig = z
  .object({
    env: z
      .array(EnvName)
      .optional()
      .describe("Variables passed by name to every worker of this provider, when set in umbel's environment"),
  })
  .strict();

const TABLES = Object.fromEntries(ProviderId.options.map((id) => [id, ProviderConfig.optional()])) as {
  [K in ProviderId]: z.ZodOptional<typeof ProviderConfig>;
};

export const UserConfig = z
  .object({
    provider: ProviderId.optional().describe(
      "The provider of a spawn, -p, MCP call or workflow worker that names none (UMBEL_PROVIDER wins)",
    ),
    ...TABLES,
    accounts: Accounts.optional().describe("[accounts.NAME]: sign-ins besides each provider's default"),
    hosts: Hosts.optional().describe("[hosts.NAME]: other machines' umbels, reached over ssh"),
  })
  .strict();
export type UserConfig = z.infer<typeof UserConfig>;

/** `$UMBEL_HOME/config.toml` (this state root's), then `$XDG_CONFIG_HOME/umbel/config.toml`. */
export function userConfigPaths(
  env: Readonly<Record<string, string | undefined>>,
  stateRoot: string,
): string[] {
  const xdg = env.XDG_CONFIG_HOME || (env.HOME ? join(env.HOME, ".config") : "");
  return [join(stateRoot, "config.toml"), ...(xdg ? [join(xdg, "umbel", "config.toml")] : [])];
}

/**
 * A worker's explicit env: the config's names for its provider that are set in umbel's environment
 * (each as `--env NAME` would pass it), then the request's own (`--env`, YAML, MCP), which win.
 */
export function withConfiguredEnv(
  config: UserConfig,
  provider: ProviderId,
  hostEnv: Readonly<Record<string, string | undefined>>,
  explicit: EnvSpec | undefined,
): EnvSpec | undefined {
  const names = (config[provider]?.env ?? []).filter((name) => hostEnv[name] !== undefined);
  if (names.length === 0) return explicit;
  return { ...Object.fromEntries(names.map((name) => [name, { fromEnv: name }])), ...explicit };
}

/**
 * Reads the file: TOML's tables, strings and lists of strings (all the schema has). Every error is a
 * UsageError `file:line: …` that never quotes a value (a token put there by mistake stays unseen).
 */
export function parseUserConfig(text: string, file: string): UserConfig {
  const fail = (line: number, message: string): never => {
    throw new UsageError(`${file}:${line}: ${message}`, { file, line });
  };
  const data: Record<string, unknown> = {};
  // `name` for a [table], `name.key` for a setting in it, `.key` for a top-level setting.
  const lines: Record<string, number> = {};
  const tokens = tokenize(text, fail);
  let table: string | null = null;
  for (let i = 0; i < tokens.length; ) {
    const t = tokens[i] as Token;
    const next = () => tokens[++i] ?? fail(t.line, "unexpected end of file");
    if (t.kind === "[") {
      table = readHeader(tokens, i, fail);
      lines[table] = t.line;
      const [first, account] = table.split(".") as [string, string | undefined];
      if (account !== undefined) data[first] ??= {};
      const parent = account === undefined ? data : (data[first] as Record<string, unknown>);
      parent[account ?? first] ??= {};
      i += account === undefined ? 3 : 5;
      continue;
    }
    if (t.kind !== "word" || next().kind !== "=") fail(t.line, "expected `key = value`");
    const [value, end] = readValue(tokens, i + 1, fail);
    const key = (t as Word).text;
    const into = table === null ? data : tableOf(data, table);
    into[key] = value;
    lines[`${table ?? ""}.${key}`] = t.line;
    i = end;
  }
  const parsed = UserConfig.safeParse(data);
  if (parsed.success) return parsed.data;
  const { line, message } = explainIssue(parsed.error.issues[0], data, lines);
  return fail(line, message);
}

/** The schema's first complaint as `line: message`, in the file's words. */
function explainIssue(
  issue: z.core.$ZodIssue | undefined,
  data: Record<string, unknown>,
  lines: Record<string, number>,
): { line: number; message: string } {
  const [first, key, index] = (issue?.path ?? []).map(String);
  const unknown = issue?.code === "unrecognized_keys" ? issue.keys : [];
  const providers = ProviderId.options.join(", ");
  if (first === undefined) return explainTopLevel(unknown[0] ?? "", lines);
  if (first === "accounts" && key !== undefined) return explainAccount(issue, key, data, lines);
  if (first === "hosts" && key !== undefined) return explainHost(issue, key, data, lines);
  if (first === "provider")
    return {
      line: lines[".provider"] ?? lines.provider ?? 1,
      message:
        issue?.code === "invalid_value" && typeof data.provider === "string"
          ? `provider: ${issue.message}`
          : `provider is one of ${providers}, e.g. provider = "codex"`,
    };
  const line = lines[`${first}.${key ?? unknown[0]}`] ?? lines[first] ?? lines[`.${first}`] ?? 1;
  if (key === undefined && unknown[0] === "provider")
    return { line, message: "provider goes at the top of the file, before any [table]" };
  if (key === undefined && issue?.code === "invalid_type")
    return { line, message: `${first} is a table: [${first}], then env = ["NAME"] under it` };
  if (key === undefined)
    return { line, message: `[${first}] knows only \`env\` (not ${unknown.join(", ")})` };
  const list = (data[first] as Record<string, unknown> | undefined)?.[key];
  const entry = Array.isArray(list) && index !== undefined ? list[Number(index)] : undefined;
  if (typeof entry === "string" && entry.includes("="))
    return {
      line,
      message: "names only: a value never goes in a file; export it in umbel's environment instead",
    };
  if (issue?.code === "invalid_type")
    return { line, message: 'env is a list of variable names, e.g. ["NAME"]' };
  return { line, message: issue?.message ?? "invalid" };
}

/** An unknown [table] (a provider's name misspelt) or an unknown top-level setting. */
function explainTopLevel(key: string, lines: Record<string, number>): { line: number; message: string } {
  const providers = ProviderId.options;
  if (lines[key] !== undefined)
    return {
      line: lines[key],
      message: `unknown provider [${key}] (one of ${providers.join(", ")})${didYouMean(key, providers)}`,
    };
  const line = lines[`.${key}`] ?? 1;
  if (key === "env")
    return {
      line,
      message: "env belongs under a [provider] table, e.g. [claude] (the top level knows only `provider`)",
    };
  return {
    line,
    message: `unknown setting \`${key}\`: the top level knows only \`provider\`, and each [provider] table \`env\`${didYouMean(key, ["provider"])}`,
  };
}

type Word = { kind: "word"; text: string; line: number };
type Token =
  | Word
  | { kind: "string"; text: string; line: number }
  | { kind: "[" | "]" | "=" | "," | "." | "{" | "}"; line: number };

function tokenize(text: string, fail: (line: number, message: string) => never): Token[] {
  const tokens: Token[] = [];
  const re = /\s+|#[^\n]*|"((?:[^"\\\n]|\\.)*)"|'([^'\n]*)'|([A-Za-z0-9_-]+)|([[\]=,.{}])|(.)/gy;
  let line = 1;
  for (let m = re.exec(text); m !== null; m = re.exec(text)) {
    const [all, basic, literal, word, punct, other] = m;
    if (basic !== undefined) tokens.push({ kind: "string", text: JSON.parse(`"${basic}"`) as string, line });
    else if (literal !== undefined) tokens.push({ kind: "string", text: literal, line });
    else if (word !== undefined) tokens.push({ kind: "word", text: word, line });
    else if (punct !== undefined) tokens.push({ kind: punct as "[", line });
    else if (other !== undefined) fail(line, `unexpected ${JSON.stringify(other)} (strings are quoted)`);
    line += all.split("\n").length - 1;
  }
  return tokens;
}

/** A string or a list of strings from tokens[i]; returns it and the index after it. */
function readValue(
  tokens: Token[],
  i: number,
  fail: (line: number, message: string) => never,
): [unknown, number] {
  const first = tokens[i];
  if (first?.kind === "string") return [first.text, i + 1];
  if (first?.kind === "{") return readInlineTable(tokens, i, fail);
  if (first?.kind !== "[")
    return fail(first?.line ?? tokens[i - 1]?.line ?? 1, "a value is a quoted string or a list of them");
  const items: string[] = [];
  let line = first.line;
  for (let j = i + 1; ; j++) {
    const t = tokens[j];
    if (t === undefined) return fail(line + 1, "a list that is never closed with ]");
    line = t.line;
    if (t.kind === "]") return [items, j + 1];
    if (t.kind === ",") continue;
    if (t.kind !== "string") return fail(t.line, 'list items are quoted strings, e.g. "NAME"');
    items.push(t.text);
  }
}

/** `[provider]` or `[accounts.NAME]` at tokens[i]: the table's key (`accounts.NAME` for an account). */
function readHeader(tokens: Token[], i: number, fail: (line: number, message: string) => never): string {
  const line = (tokens[i] as Token).line;
  const at = (k: number) => tokens[i + k];
  const word = (k: number) => {
    const t = at(k);
    return t?.kind === "word" ? t.text : null;
  };
  const first = word(1);
  if (first === "accounts" || first === "hosts") {
    const name = word(3);
    const [schema, example] = first === "accounts" ? [AccountName, "work"] : [HostName, "box"];
    if (at(2)?.kind !== "." || name === null || at(4)?.kind !== "]")
      return fail(
        line,
        `${first === "accounts" ? "an account" : "a host"} is a table [${first}.NAME], e.g. [${first}.${example}]`,
      );
    const valid = schema.safeParse(name);
    if (!valid.success)
      return fail(line, `[${first}.${name}]: ${valid.error.issues[0]?.message ?? "invalid"}`);
    return `${first}.${name}`;
  }
  if (first === null || at(2)?.kind !== "]")
    return fail(
      line,
      "a table header is [provider], [accounts.NAME] or [hosts.NAME], e.g. [claude] (no other dotted or nested tables)",
    );
  return first;
}

function tableOf(data: Record<string, unknown>, table: string): Record<string, unknown> {
  const [first, account] = table.split(".") as [string, string | undefined];
  const top = data[first] as Record<string, unknown>;
  return account === undefined ? top : (top[account] as Record<string, unknown>);
}

/** `{ KEY = "VALUE", … }` from tokens[i] (TOML's inline table, of strings); returns it and the index after it. */
function readInlineTable(
  tokens: Token[],
  i: number,
  fail: (line: number, message: string) => never,
): [Record<string, string>, number] {
  const table: Record<string, string> = {};
  let line = (tokens[i] as Token).line;
  for (let j = i + 1; ; j++) {
    const t = tokens[j];
    if (t === undefined) return fail(line + 1, "an inline table that is never closed with }");
    line = t.line;
    if (t.kind === "}") return [table, j + 1];
    if (t.kind === ",") continue;
    const eq = tokens[j + 1];
    const value = tokens[j + 2];
    if (t.kind !== "word" || eq?.kind !== "=" || value?.kind !== "string")
      return fail(t.line, 'an inline table holds KEY = "VALUE" pairs, e.g. { TARGET = "SOURCE" }');
    table[t.text] = value.text;
    j += 2;
  }
}

/** A complaint about `[accounts.NAME]`, in the file's words (never quoting a value). */
function explainAccount(
  issue: z.core.$ZodIssue | undefined,
  name: string,
  data: Record<string, unknown>,
  lines: Record<string, number>,
): { line: number; message: string } {
  const [, , key, entry] = (issue?.path ?? []).map(String);
  const unknown = issue?.code === "unrecognized_keys" ? issue.keys : [];
  const header = lines[`accounts.${name}`] ?? 1;
  const at = (k: string | undefined) =>
    k === undefined ? header : (lines[`accounts.${name}.${k}`] ?? header);
  const table = `[accounts.${name}]`;
  if (key === undefined && unknown.length > 0)
    return {
      line: at(unknown[0]),
      message: `${table} knows provider, home and env (not ${unknown.join(", ")})${didYouMean(unknown[0] ?? "", ["provider", "home", "env"])}`,
    };
  if (key === "provider") {
    const given = (data.accounts as Record<string, Record<string, unknown>>)[name]?.provider;
    return given === undefined
      ? { line: header, message: `${table} needs its provider, e.g. provider = "${ProviderId.options[0]}"` }
      : { line: at(key), message: `${table} provider: ${issue?.message ?? "invalid"}` };
  }
  if (key === "env" && entry === undefined && issue?.code === "invalid_type")
    return {
      line: at(key),
      message: `${table} env is an inline table of names, e.g. env = { TARGET = "SOURCE" }`,
    };
  if (key === "env" && issue?.code === "invalid_key")
    return { line: at(key), message: `${table} env: ${issue.issues[0]?.message ?? "invalid name"}` };
  if (key === "env")
    return {
      line: at(key),
      message: `${table} env: names only: TARGET = "SOURCE" names a variable in umbel's environment; a value never goes in a file`,
    };
  return { line: at(key), message: `${table} ${key ?? ""}: ${issue?.message ?? "invalid"}` };
}

/** A complaint about `[hosts.NAME]`, in the file's words (ssh destinations are not secrets, but no value is quoted). */
function explainHost(
  issue: z.core.$ZodIssue | undefined,
  name: string,
  data: Record<string, unknown>,
  lines: Record<string, number>,
): { line: number; message: string } {
  const [, , key] = (issue?.path ?? []).map(String);
  const given = (data.hosts as Record<string, Record<string, unknown>>)[name];
  const unknown = issue?.code === "unrecognized_keys" ? issue.keys : [];
  const header = lines[`hosts.${name}`] ?? 1;
  const at = (k: string | undefined) => (k === undefined ? header : (lines[`hosts.${name}.${k}`] ?? header));
  const table = `[hosts.${name}]`;
  if (key === undefined && unknown.length > 0)
    return {
      line: at(unknown[0]),
      message: `${table} knows ${HOST_KEYS.join(", ")} (not ${unknown.join(", ")})${didYouMean(unknown[0] ?? "", HOST_KEYS)}`,
    };
  if (key === "ssh" && given?.ssh === undefined)
    return {
      line: header,
      message: `${table} needs its ssh destination, e.g. ssh = "user@${name}.internal"`,
    };
  if (issue?.code === "invalid_type")
    return { line: at(key), message: `${table} ${key ?? ""} is a quoted string` };
  return { line: at(key), message: `${table} ${key ?? ""}: ${issue?.message ?? "invalid"}` };
}
