import { UsageError } from "../errors.ts";

/**
 * UMBEL_SSH_COMMAND (and a host's `ssh_command`) as argv, split the way a POSIX shell splits words,
 * as git does with GIT_SSH_COMMAND: blanks separate words, '…' keeps everything, "…" keeps all but
 * \" \\ \$ \` (escaped), a backslash outside quotes escapes the next character. Nothing is expanded
 * ($VAR, ~ and globs stay as typed): the value is a program and its options, not a script.
 */
export function splitShellWords(text: string, what: string): string[] {
  const words: string[] = [];
  let word: string | null = null;
  for (let i = 0; i < text.length; i++) {
    const c = text[i] as string;
    if (c === " " || c === "\t" || c === "\n") {
      if (word !== null) words.push(word);
      word = null;
      continue;
    }
    word ??= "";
    if (c === "\\") {
      if (i + 1 >= text.length) throw unclosed(what, "a trailing backslash");
      const next = text[++i] as string;
      if (next !== "\n") word += next;
      continue;
    }
    if (c === "'") {
      const end = text.indexOf("'", i + 1);
      if (end < 0) throw unclosed(what, "a ' that is never closed");
      word += text.slice(i + 1, end);
      i = end;
      continue;
    }
    if (c === '"') {
      let j = i + 1;
      for (; j < text.length && text[j] !== '"'; j++) {
        const d = text[j] as string;
        if (d === "\\" && j + 1 < text.length && '"\\$`\n'.includes(text[j + 1] as string)) {
          if (text[j + 1] !== "\n") word += text[j + 1];
          j++;
        } else word += d;
      }
      if (j >= text.length) throw unclosed(what, 'a " that is never closed');
      i = j;
      continue;
    }
    word += c;
  }
  if (word !== null) words.push(word);
  if (words.length === 0)
    throw new UsageError(`${what} is empty: it names the ssh program (e.g. ssh -F FILE)`, { what });
  return words;
}

function unclosed(what: string, problem: string): UsageError {
  return new UsageError(`${what}: ${problem} (it is split as a shell splits words)`, { what });
}
