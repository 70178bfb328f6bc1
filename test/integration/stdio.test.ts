import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { join } from "node:path";

setDefaultTimeout(20_000);

/**
 * main.ts writes stdout and stderr with writeAllSync (the first process.stdout.write cost 5 ms of
 * CPU, stderr's 13 ms, measured on the compiled binary): every byte reaches a slow reader, in order,
 * before the process exits, and a reader that went away ends the writing quietly.
 */
const WRITER = join(import.meta.dir, "..", "..", "src", "adapters", "stdio.ts");

function child(script: string) {
  return Bun.spawn(
    [process.execPath, "-e", `import { writeAllSync } from ${JSON.stringify(WRITER)};\n${script}`],
    {
      stdout: "pipe",
      stderr: "pipe",
    },
  );
}

describe("writeAllSync", () => {
  test("4 MiB in 64 KiB pieces reach a reader that starts late, in order, before exit", async () => {
    const c = child(
      `for (let i = 0; i < 64; i++) writeAllSync(1, String(i % 10).repeat(65536)); process.exit(0);`,
    );
    await Bun.sleep(300); // the reader is late on purpose: the pipe fills and the writer blocks
    const out = await new Response(c.stdout).text();
    expect(out.length).toBe(64 * 65536);
    expect(out.slice(65536 * 63, 65536 * 63 + 3)).toBe("333");
    expect(await c.exited).toBe(0);
  });

  test("a reader that went away ends it quietly (EPIPE), and the process goes on", async () => {
    const c = child(
      `for (let i = 0; i < 64; i++) writeAllSync(1, "x".repeat(65536)); writeAllSync(2, "done\\n");`,
    );
    const reader = c.stdout.getReader();
    await reader.read();
    await reader.cancel();
    expect(await new Response(c.stderr).text()).toBe("done\n");
    expect(await c.exited).toBe(0);
  });
});
