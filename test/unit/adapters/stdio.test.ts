import { describe, expect, test } from "bun:test";
import { closeSync, openSync, rmSync, writeFileSync } from "node:fs";
import { isatty as nodeIsatty } from "node:tty";
import { isatty, writeAllSync } from "../../../src/adapters/stdio.ts";

/**
 * The errno cases of writeAllSync, on a stand-in for writeSync. test/integration/stdio.test.ts runs
 * the real thing, whose errno depends on timing: Bun.spawn's (and libuv's) "pipe" is a socketpair,
 * and a reader that closes its end with bytes still unread resets it, so a write already waiting
 * for room fails with ECONNRESET instead of EPIPE (1 in ~30 runs there with two busy loops beside).
 */
function writer(...steps: (number | string)[]) {
  const calls: number[] = [];
  const write = (_fd: number, bytes: Buffer, offset: number): number => {
    calls.push(offset);
    const step = steps.shift();
    if (step === undefined) return bytes.length - offset;
    if (typeof step === "number") return step;
    throw Object.assign(new Error(`${step}: write`), { code: step });
  };
  return { write, calls };
}

describe("writeAllSync", () => {
  test.each(["EPIPE", "ECONNRESET", "EBADF"])("a reader gone (%s) ends the writing quietly", (code) => {
    const { write, calls } = writer(3, code);
    expect(() => writeAllSync(1, "abcdefgh", write)).not.toThrow();
    expect(calls).toEqual([0, 3]);
  });

  test("a full non-blocking fd (EAGAIN) is retried from where it stopped", () => {
    const { write, calls } = writer(2, "EAGAIN", 4);
    writeAllSync(1, "abcdefgh", write);
    expect(calls).toEqual([0, 2, 2, 6]);
  });

  test.each(["ENOSPC", "EIO"])(
    "%s on a file (a disk's error behind a redirect) is not quietly lost",
    (code) => {
      const fd = openSync(import.meta.path, "r");
      try {
        const { write } = writer(code);
        expect(() => writeAllSync(fd, "abc", write)).toThrow(code);
      } finally {
        closeSync(fd);
      }
    },
  );

  test("EIO on a terminal (a character device: it hung up, as after a SIGHUP) ends the writing quietly", () => {
    const fd = openSync("/dev/null", "r");
    try {
      const { write, calls } = writer(3, "EIO");
      expect(() => writeAllSync(fd, "abcdefgh", write)).not.toThrow();
      expect(calls).toEqual([0, 3]);
    } finally {
      closeSync(fd);
    }
  });
});

describe("isatty (main.ts's, without loading node:tty)", () => {
  test("answers as node:tty's isatty: the test's own fds, /dev/null, a file, a pipe's end, a closed fd", () => {
    const devNull = openSync("/dev/null", "r");
    const file = openSync(import.meta.path, "r");
    const closed = openSync(import.meta.path, "r");
    closeSync(closed);
    try {
      for (const fd of [0, 1, 2, devNull, file, closed, 12345])
        expect([fd, isatty(fd)]).toEqual([fd, nodeIsatty(fd)]);
    } finally {
      closeSync(devNull);
      closeSync(file);
    }
  });

  test("a terminal is one (a pty made by script(1), where it is installed)", () => {
    const script = Bun.which("script");
    if (!script) return;
    const stdio = JSON.stringify(`${import.meta.dir}/../../../src/adapters/stdio.ts`);
    const probe = `import { isatty } from ${stdio};\nconst tty = require("node:tty");\nconsole.log([isatty(0), isatty(1), isatty(1) === tty.isatty(1)].join(" "));\n`;
    const file = `${process.env.TMPDIR ?? "/tmp"}/umbel-isatty-${process.pid}.ts`;
    writeFileSync(file, probe);
    try {
      const run = Bun.spawnSync([script, "-qec", `${process.execPath} ${file} < /dev/null`, "/dev/null"], {
        stdout: "pipe",
        stderr: "pipe",
      });
      expect(run.stdout.toString().trim()).toBe("false true true");
    } finally {
      rmSync(file, { force: true });
    }
  });
});
