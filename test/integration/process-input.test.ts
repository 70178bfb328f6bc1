import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runProcess } from "../../src/adapters/process.ts";

// Real processes on 2 loaded cores: bun's 5 s default is too short (test/unit/structure.test.ts).
setDefaultTimeout(30_000);

describe("a held stdin's input", () => {
  test("a program that ends before reading it (an ssh that cannot connect): its exit code, never an EPIPE", async () => {
    // 1 MB: more than a pipe holds, so the write meets the closed pipe (before the fix this failed with an unhandled EPIPE).
    for (let i = 0; i < 5; i++) {
      const run = await runProcess(["sh", "-c", "exec 0<&-; exit 255"], {
        env: { PATH: "/usr/bin:/bin" },
        input: "x".repeat(1 << 20),
        holdStdin: true,
        timeoutMs: 10_000,
      });
      expect(run.exitCode).toBe(255);
    }
  });

  test("a program that reads it gets every byte", async () => {
    const run = await runProcess(["sh", "-c", "head -c 5"], {
      env: { PATH: "/usr/bin:/bin" },
      input: "hello world",
      holdStdin: true,
      timeoutMs: 10_000,
    });
    expect(run.stdout).toBe("hello");
    expect(run.exitCode).toBe(0);
  });
});

describe("stdout as it arrives (onStdout: a remote logs -f, -p's stream-json over ssh)", () => {
  test("the first line is handed on while the program still runs: it goes on only once the line was seen", async () => {
    const marker = join(mkdtempSync(join(tmpdir(), "umbel-stream-")), "seen");
    const chunks: string[] = [];
    const run = await runProcess(
      ["sh", "-c", `echo first; while [ ! -e '${marker}' ]; do sleep 0.05; done; echo second`],
      {
        env: { PATH: "/usr/bin:/bin" },
        timeoutMs: 10_000,
        onStdout: (chunk) => {
          chunks.push(chunk);
          if (chunk.includes("first")) writeFileSync(marker, "");
        },
      },
    );
    expect(run.timedOut).toBe(false);
    expect(chunks.join("")).toBe("first\nsecond\n");
    expect(run.stdout).toBe("");
    expect(run.exitCode).toBe(0);
  });

  test("a character split across two writes comes whole; the bound still ends a stream that never does", async () => {
    const chunks: string[] = [];
    const run = await runProcess(["sh", "-c", "printf '\\303'; sleep 0.2; printf '\\251\\n'"], {
      env: { PATH: "/usr/bin:/bin" },
      timeoutMs: 10_000,
      onStdout: (chunk) => chunks.push(chunk),
    });
    expect(chunks.join("")).toBe("é\n");
    expect(run.exitCode).toBe(0);
    const endless = await runProcess(["sh", "-c", "while :; do echo tick; sleep 0.05; done"], {
      env: { PATH: "/usr/bin:/bin" },
      timeoutMs: 500,
      onStdout: () => undefined,
    });
    expect(endless.timedOut).toBe(true);
  });
});
