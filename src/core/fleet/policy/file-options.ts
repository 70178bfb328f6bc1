import { commandBasename } from "./shell-tree.ts";

/**
 * Options that make an allowed command write or read a file (or run a program) that its allow rule
 * does not name (docs/fleet.md lists them): `git diff --output=x` writes x, `git diff --no-index a b`
 * reads any two files, `sort -o x` writes x. Per command the long option names and the short
 * option letters (a letter anywhere in a cluster: `-ro` holds -o); every command, known or not, is
 * refused the long options whose dash-separated name holds one of GENERAL's words, and a command
 * not in the table its `-o`.
 */
type Options = { readonly long: readonly string[]; readonly short: string };

const GENERAL = new Set([
  "output",
  "out",
  "outfile",
  "outdir",
  "file",
  "files",
  "from",
  "config",
  "exec",
  "pager",
  "editor",
  "shell",
  "script",
  "dump",
  "write",
  "upload",
  "prefix",
  "directory",
  "dir",
  "chdir",
  "cwd",
  "require",
  "import",
]);
const UNKNOWN_SHORT = "o";

const GIT_ANY: Options = {
  long: [
    "no-index",
    "upload-pack",
    "receive-pack",
    "contents",
    "template",
    "ext-diff",
    "git-dir",
    "work-tree",
    "open-files-in-pager",
  ],
  short: "O",
};
const GIT_SUB: Readonly<Record<string, Options>> = {
  "format-patch": { long: [], short: "o" },
  grep: { long: [], short: "f" },
  commit: { long: [], short: "F" },
  tag: { long: [], short: "F" },
  notes: { long: [], short: "F" },
  archive: { long: ["remote"], short: "o" },
  clone: { long: [], short: "u" },
  fetch: { long: [], short: "u" },
  pull: { long: [], short: "u" },
  "ls-remote": { long: [], short: "u" },
  config: { long: [], short: "f" },
  blame: { long: [], short: "S" },
};
/** git's own options before its subcommand that neither change where it works nor run anything. */
const GIT_GLOBAL_SAFE = new Set([
  "--no-pager",
  "--no-optional-locks",
  "--literal-pathspecs",
  "--no-replace-objects",
]);

const TABLE: Readonly<Record<string, Options>> = {
  grep: { long: ["exclude-from"], short: "f" },
  egrep: { long: ["exclude-from"], short: "f" },
  fgrep: { long: ["exclude-from"], short: "f" },
  rg: { long: ["pre", "pre-glob", "ignore-file"], short: "f" },
  sed: { long: ["in-place"], short: "if" },
  sort: { long: ["random-source", "compress-program", "temporary-directory"], short: "oT" },
  awk: { long: ["include", "load"], short: "fil" },
  gawk: { long: ["include", "load"], short: "fil" },
  curl: {
    long: [
      "remote-name",
      "remote-name-all",
      "cookie-jar",
      "trace",
      "trace-ascii",
      "stderr",
      "libcurl",
      "data",
      "data-binary",
      "data-urlencode",
      "form",
      "cookie",
    ],
    short: "oOKTcDdFb",
  },
  wget: {
    long: ["output-document", "append-output", "input-file", "post-file", "body-file"],
    short: "OoaPi",
  },
  tar: {
    long: [
      "files-from",
      "exclude-from",
      "to-command",
      "use-compress-program",
      "checkpoint-action",
      "info-script",
      "new-volume-script",
      "rmt-command",
      "rsh-command",
    ],
    short: "fCTXIF",
  },
  jq: { long: ["rawfile", "slurpfile"], short: "fL" },
  make: { long: ["makefile", "include-dir", "eval"], short: "fCI" },
  diff: { long: ["from-file", "to-file", "exclude-from"], short: "X" },
  npm: { long: ["userconfig", "globalconfig", "cache"], short: "C" },
  cp: { long: ["target-directory", "reference"], short: "t" },
  mv: { long: ["target-directory"], short: "t" },
  touch: { long: ["reference"], short: "r" },
  ls: { long: [], short: "" },
  cat: { long: [], short: "" },
  head: { long: [], short: "" },
  tail: { long: [], short: "" },
  wc: { long: ["files0-from"], short: "" },
  echo: { long: [], short: "" },
};

/** find's options are words: its actions that write a file or run a command. */
const FIND_REFUSED = new Set([
  "-delete",
  "-exec",
  "-execdir",
  "-ok",
  "-okdir",
  "-fprint",
  "-fprint0",
  "-fprintf",
  "-fls",
  "-files0-from",
]);

/**
 * The first of `words[from…]` (words before `from` are the rule's own) that is an option the command
 * may write or read an unnamed file with, or null. Words after `--` are operands.
 */
export function refusedOption(words: readonly string[], from: number): string | null {
  const command = commandBasename(words[0] ?? "");
  if (command === "find") return words.slice(Math.max(from, 1)).find((w) => FIND_REFUSED.has(w)) ?? null;
  let table = TABLE[command] ?? null;
  let start = 1;
  let extra: Options | null = null;
  if (command === "git") {
    // Options before the subcommand are git's own: -C, -c, --git-dir and the like change what it runs.
    while (start < words.length && (words[start] ?? "").startsWith("-")) {
      const word = words[start] ?? "";
      if (start >= from && !GIT_GLOBAL_SAFE.has(word)) return word;
      start++;
    }
    table = GIT_ANY;
    extra = GIT_SUB[words[start] ?? ""] ?? null;
    start++;
  }
  for (let i = start; i < words.length; i++) {
    const word = words[i] ?? "";
    if (word === "--") return null;
    if (i < from || !word.startsWith("-") || word === "-") continue;
    if (isRefused(word, table, extra)) return word;
  }
  return null;
}

function isRefused(word: string, table: Options | null, extra: Options | null): boolean {
  if (word.startsWith("--")) {
    const name = word.slice(2).split("=")[0] ?? "";
    if (name.split("-").some((part) => GENERAL.has(part))) return true;
    return [table, extra].some((t) => t?.long.includes(name));
  }
  const letters = word.slice(1);
  const short = table === null ? UNKNOWN_SHORT : `${table.short}${extra?.short ?? ""}`;
  return [...letters].some((c) => short.includes(c));
}
