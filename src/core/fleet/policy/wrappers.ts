import { commandBasename } from "./shell-tree.ts";

/** A simple command's words after quote removal; null where a word is not a literal. */
export type Words = readonly (string | null)[];

/** What a command that runs another command hands back to the scan (core/fleet/policy/shell-scan.ts). */
export type WrapperSink = {
  /** A command it runs, with that command's words. */
  invoke(words: Words): void;
  /** A shell script it runs (`sh -c`, `eval`); null when the script is not a literal. */
  script(text: string | null): void;
  /** It runs something umbel cannot tell. */
  uncertain(why: string): void;
};

/**
 * A command that runs the command in its arguments: the options it takes a value for (the next word,
 * or attached: `-uroot`, `--user=root`) and those it takes alone. After its options, `skip` words
 * that are not the command (timeout's duration, flock's lock file), then the command. An option
 * the table does not know makes every later word a possible command word.
 */
type Wrapper = {
  readonly withValue: readonly string[];
  readonly flags: readonly string[];
  readonly skip?: number;
  /** Options whose value is a shell script (su -c, flock -c). */
  readonly script?: readonly string[];
  /** NAME=VALUE words before the command are assignments (env). */
  readonly assignments?: boolean;
  /** Numeric flags such as nice's `-10`. */
  readonly numeric?: boolean;
};

const WRAPPERS: Readonly<Record<string, Wrapper>> = {
  exec: { withValue: ["-a"], flags: ["-c", "-l"] },
  command: { withValue: [], flags: ["-p", "-v", "-V"] },
  builtin: { withValue: [], flags: [] },
  nohup: { withValue: [], flags: [] },
  coproc: { withValue: [], flags: [] },
  busybox: { withValue: [], flags: [] },
  toybox: { withValue: [], flags: [] },
  time: {
    withValue: ["-f", "--format", "-o", "--output"],
    flags: ["-p", "-a", "-v", "-q", "--portability", "--append", "--verbose", "--quiet"],
  },
  nice: { withValue: ["-n", "--adjustment"], flags: [], numeric: true },
  env: {
    withValue: ["-u", "--unset", "-C", "--chdir"],
    flags: ["-i", "-", "-0", "-v", "--ignore-environment", "--null", "--debug"],
    // -S splits its value into the command and its arguments, much as a shell would.
    script: ["-S", "--split-string"],
    assignments: true,
  },
  sudo: {
    withValue: [
      "-u",
      "-g",
      "-h",
      "-p",
      "-C",
      "-D",
      "-r",
      "-t",
      "-T",
      "-U",
      "--user",
      "--group",
      "--host",
      "--prompt",
      "--close-from",
      "--chdir",
      "--role",
      "--type",
      "--command-timeout",
      "--other-user",
    ],
    flags: [
      "-A",
      "-b",
      "-E",
      "-H",
      "-K",
      "-k",
      "-n",
      "-P",
      "-S",
      "-s",
      "-i",
      "--askpass",
      "--background",
      "--preserve-env",
      "--set-home",
      "--non-interactive",
      "--preserve-groups",
      "--stdin",
      "--shell",
      "--login",
      "--reset-timestamp",
    ],
  },
  doas: { withValue: ["-u", "-C"], flags: ["-n", "-s"] },
  timeout: {
    withValue: ["-k", "-s", "--kill-after", "--signal"],
    flags: ["-v", "-f", "-p", "--foreground", "--preserve-status", "--verbose"],
    skip: 1,
  },
  stdbuf: { withValue: ["-i", "-o", "-e", "--input", "--output", "--error"], flags: [] },
  setsid: { withValue: [], flags: ["-c", "-f", "-w", "--ctty", "--fork", "--wait"] },
  ionice: { withValue: ["-c", "-n", "--class", "--classdata"], flags: ["-t", "--ignore"] },
  chroot: { withValue: ["--userspec", "--groups"], flags: ["--skip-chdir"], skip: 1 },
  flock: {
    withValue: ["-w", "-E", "--timeout", "--wait", "--conflict-exit-code"],
    flags: [
      "-s",
      "-x",
      "-e",
      "-u",
      "-n",
      "-o",
      "-F",
      "--shared",
      "--exclusive",
      "--unlock",
      "--nonblock",
      "--nb",
      "--close",
      "--no-fork",
      "--verbose",
    ],
    script: ["-c", "--command"],
    skip: 1,
  },
  xargs: {
    withValue: [
      "-a",
      "-d",
      "-E",
      "-I",
      "-L",
      "-n",
      "-P",
      "-s",
      "--arg-file",
      "--delimiter",
      "--max-lines",
      "--max-args",
      "--max-procs",
      "--max-chars",
      "--process-slot-var",
    ],
    flags: [
      "-0",
      "-p",
      "-r",
      "-t",
      "-x",
      "-o",
      "--null",
      "--interactive",
      "--no-run-if-empty",
      "--verbose",
      "--exit",
      "--open-tty",
    ],
  },
  script: {
    withValue: [
      "-E",
      "-o",
      "-T",
      "-I",
      "-O",
      "-B",
      "-m",
      "--echo",
      "--output-limit",
      "--log-timing",
      "--log-in",
      "--log-out",
      "--log-io",
      "--logging-format",
    ],
    flags: ["-a", "-e", "-f", "-q", "--append", "--return", "--flush", "--force", "--quiet"],
    script: ["-c", "--command"],
  },
  su: {
    withValue: ["-s", "-g", "-G", "-w", "--shell", "--group", "--supp-group", "--whitelist-environment"],
    flags: ["-", "-l", "-m", "-p", "-f", "-P", "--login", "--preserve-environment", "--pty"],
    script: ["-c", "--command", "--session-command"],
  },
};

/** Shells: `-c SCRIPT` runs the script; with no script and no file they read commands from stdin. */
const SHELLS = new Set(["sh", "bash", "dash", "zsh", "ksh", "mksh", "ash", "yash", "posh"]);

/** find's actions that run a command: its words up to `;` or `+`. */
const FIND_EXEC = new Set(["-exec", "-execdir", "-ok", "-okdir"]);

/** Hands `sink` what a simple command runs besides itself. */
export function resolveWrapped(words: Words, sink: WrapperSink): void {
  const first = words[0];
  if (first === null || first === undefined) return;
  const name = commandBasename(first);
  const rest = words.slice(1);
  if (SHELLS.has(name)) {
    shellScript(rest, sink);
    return;
  }
  if (name === "eval") {
    if (rest.some((w) => w === null)) {
      sink.script(null);
      return;
    }
    sink.script(rest.join(" "));
    return;
  }
  if (name === "source" || name === ".") {
    sink.uncertain(`${name} runs a file's commands`);
    return;
  }
  if (name === "alias") {
    sink.uncertain("an alias can rename any command");
    return;
  }
  // `hash -p /bin/rm x` makes `x` run rm; `enable -f` loads a builtin from a file.
  if (
    (name === "hash" && rest.some((w) => w === null || /^-\w*p/.test(w))) ||
    (name === "enable" && rest.some((w) => w === null || /^-\w*f/.test(w)))
  ) {
    sink.uncertain(`${name} can give a program another name`);
    return;
  }
  if (name === "trap") {
    // trap's first operand is a script the shell runs later (at a signal or EXIT).
    const operands = rest[0] === "--" ? rest.slice(1) : rest;
    if (operands[0] !== undefined && !operands[0]?.startsWith("-")) sink.script(operands[0] ?? null);
    return;
  }
  if (name === "find") {
    findActions(rest, sink);
    return;
  }
  const wrapper = WRAPPERS[name];
  if (wrapper) wrapped(rest, wrapper, sink, name === "xargs");
}

function wrapped(rest: Words, wrapper: Wrapper, sink: WrapperSink, xargs: boolean): void {
  let i = 0;
  let skip = wrapper.skip ?? 0;
  let replace: string | null = null;
  while (i < rest.length) {
    const word = rest[i];
    if (word === null || word === undefined) {
      anyWordAfter(rest, i, sink);
      return;
    }
    if (word === "--") {
      i++;
      break;
    }
    if (!word.startsWith("-") || (word === "-" && !wrapper.flags.includes("-"))) {
      if (wrapper.assignments && /^[^=]+=/.test(word)) {
        i++;
        continue;
      }
      if (skip > 0) {
        skip--;
        i++;
        continue;
      }
      break;
    }
    const option = optionOf(word, wrapper);
    if (option === null) {
      anyWordAfter(rest, i, sink);
      return;
    }
    if (option.script) {
      const script = option.attached ?? rest[i + 1];
      sink.script(script ?? null);
      return;
    }
    if (xargs && (option.name === "-I" || option.name === "-i" || option.name === "--replace"))
      replace = option.attached ?? (option.name === "-I" ? (rest[i + 1] ?? null) : "{}");
    i += option.takesNext ? 2 : 1;
  }
  while (skip > 0 && i < rest.length) {
    skip--;
    i++;
  }
  const inner = rest.slice(i);
  if (!xargs) {
    if (inner.length > 0) sink.invoke(inner);
    return;
  }
  // xargs runs echo by default, and puts its input into the command: where -I's text is, else last.
  const command = inner.length > 0 ? inner : ["echo"];
  const mark = replace;
  sink.invoke(
    mark === null ? [...command, null] : command.map((w) => (w === null || w.includes(mark) ? null : w)),
  );
}

type Option = { name: string; takesNext: boolean; attached: string | null; script: boolean };

/** A wrapper's option as the table knows it, or null when it does not. */
function optionOf(word: string, wrapper: Wrapper): Option | null {
  const scripts = wrapper.script ?? [];
  if (word.startsWith("--")) {
    const eq = word.indexOf("=");
    const name = eq === -1 ? word : word.slice(0, eq);
    const attached = eq === -1 ? null : word.slice(eq + 1);
    if (scripts.includes(name)) return { name, takesNext: attached === null, attached, script: true };
    if (wrapper.withValue.includes(name))
      return { name, takesNext: attached === null, attached, script: false };
    if (wrapper.flags.includes(name) && attached === null)
      return { name, takesNext: false, attached, script: false };
    if (name === "--replace") return { name, takesNext: false, attached: attached ?? "{}", script: false };
    return null;
  }
  if (wrapper.numeric && /^-\d+$/.test(word))
    return { name: word, takesNext: false, attached: null, script: false };
  // A cluster of flags, the last of which may take a value (`-un`, `-uroot`).
  for (let at = 1; at < word.length; at++) {
    const name = `-${word[at]}`;
    const attached = at + 1 < word.length ? word.slice(at + 1) : null;
    if (scripts.includes(name)) return { name, takesNext: attached === null, attached, script: true };
    if (wrapper.withValue.includes(name))
      return { name, takesNext: attached === null, attached, script: false };
    if (name === "-i" && wrapper.withValue.includes("-I"))
      return { name, takesNext: false, attached: attached ?? "{}", script: false };
    if (!wrapper.flags.includes(name)) return null;
  }
  return { name: word, takesNext: false, attached: null, script: false };
}

/** Every word from `at` on may be the command: each is tried as a command word. */
function anyWordAfter(rest: Words, at: number, sink: WrapperSink): void {
  for (let i = at; i < rest.length; i++) {
    if (rest[i] === null) sink.uncertain("a word that may be the command is not a literal");
    else sink.invoke(rest.slice(i));
  }
}

/** `sh -c SCRIPT`, `bash -lc SCRIPT`: the script; a shell reading stdin runs what umbel cannot see. */
function shellScript(rest: Words, sink: WrapperSink): void {
  let command = false;
  let stdin = false;
  let i = 0;
  for (; i < rest.length; i++) {
    const word = rest[i];
    if (word === null || word === undefined) {
      sink.uncertain("a shell's argument is not a literal");
      return;
    }
    if (word === "--" || word === "-") {
      i++;
      break;
    }
    if (!word.startsWith("-") && !word.startsWith("+")) break;
    if (/^[-+][oO]$/.test(word) || word === "--rcfile" || word === "--init-file") {
      i++;
      continue;
    }
    if (word.startsWith("--")) continue;
    if (word.includes("c")) command = true;
    if (word.includes("s")) stdin = true;
  }
  if (command) {
    sink.script(rest[i] ?? null);
    return;
  }
  if (stdin || i >= rest.length) {
    sink.uncertain("a shell reading its commands from stdin");
    return;
  }
}

/** find's -exec/-execdir/-ok/-okdir words up to `;` or `+`. */
function findActions(rest: Words, sink: WrapperSink): void {
  for (let i = 0; i < rest.length; i++) {
    if (!FIND_EXEC.has(rest[i] ?? "")) continue;
    const inner: (string | null)[] = [];
    // `{}` is a found file's name: any text.
    for (i++; i < rest.length && rest[i] !== ";" && rest[i] !== "+"; i++)
      inner.push(rest[i]?.includes("{}") ? null : (rest[i] ?? null));
    if (inner.length > 0) sink.invoke(inner);
  }
}
