import { describe, expect, setDefaultTimeout, test } from "bun:test";
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
