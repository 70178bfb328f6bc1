import { describe, expect, test } from "bun:test";
import { HostUnreachableError } from "../../../src/core/errors.ts";
import { verbsOf } from "../../../src/operations/workflow/workers.ts";
import { createFakeWorld } from "../../helpers/fake-deps.ts";

/** A workflow worker's verbs on a host (operations/workflow/host-verbs.ts): the wire each one sends. */

function world(env: Record<string, string> = {}) {
  const w = createFakeWorld({ env: { PATH: "/usr/bin", HOME: "/home/u", ...env } });
  w.files.set("/state/config.toml", '[hosts.box]\nssh = "ci@box"\n');
  return w;
}

const envelope = (w: ReturnType<typeof world>, i = 0) =>
  JSON.parse(w.sshRuns[i]?.input ?? "{}").input as Record<string, unknown>;

describe("verbsOf: a session as the run records it", () => {
  test.each([
    ["here-3fa2c1-1", "here-3fa2c1-1"],
    ["box:far-3fa2c1-2", "far-3fa2c1-2"],
  ])("%s is %s on its machine", (session, name) => {
    expect(verbsOf(session).name).toBe(name);
  });
});

describe("a host worker's verbs", () => {
  test("spawn: no provider (the host's default), env values from here, the name back as HOST:NAME", async () => {
    const w = world({ TOKEN: "canary-1" });
    w.onSsh = () => ({
      exitCode: 0,
      stdout: `${JSON.stringify({ name: "far-3fa2c1-2", provider: "codex", cwd: "/srv", sessionId: "s", state: "ready", elapsedMs: 9, dialogsAnswered: [], dialogs: [] })}\n`,
    });
    const { verbs, name } = verbsOf("box:far-3fa2c1-2");
    const spawned = await verbs.spawn(
      w.deps,
      { name, cwd: "/srv", env: { TOKEN: { fromEnv: "TOKEN" } }, structured: true },
      "claude",
    );
    expect(spawned).toMatchObject({ name: "box:far-3fa2c1-2", provider: "codex" });
    expect(envelope(w)).toEqual({
      name: "far-3fa2c1-2",
      cwd: "/srv",
      env: { TOKEN: "canary-1" },
      structured: true,
    });
    expect(w.sshRuns[0]?.argv.join(" ")).not.toContain("canary");
    // spawn's default start timeout (60 s) plus the link's margin (30 s).
    expect(w.sshRuns[0]?.timeoutMs).toBe(90_000);
  });

  test("send: a schema file is read here and goes as the object; accept goes as given", async () => {
    const w = world();
    w.files.set("/wf/n.schema.json", '{"type":"object","required":["n"]}');
    w.onSsh = () => ({
      exitCode: 0,
      stdout: `${JSON.stringify({ name: "far", baseline: 7, promptId: null, enters: 1, elapsedMs: 5 })}\n`,
    });
    const { verbs } = verbsOf("box:far");
    const sent = await verbs.send(w.deps, {
      name: "far",
      prompt: "p",
      jsonSchema: "/wf/n.schema.json",
      accept: ["test -f out"],
      acceptTimeout: 5000,
    });
    expect(sent).toEqual({ baseline: 7 });
    expect(envelope(w)).toEqual({
      name: "far",
      prompt: "p",
      jsonSchema: { type: "object", required: ["n"] },
      accept: ["test -f out"],
      acceptTimeout: "5000ms",
    });
  });

  test("wait: the host's wait, from the send's baseline, with the step's limits as durations", async () => {
    const w = world();
    w.onSsh = () => ({
      exitCode: 0,
      stdout: `${JSON.stringify({ name: "far", reason: "stop", exitCode: 0, baseline: 7, elapsedMs: 10, evidence: {} })}\n`,
    });
    const outcome = await verbsOf("box:far").verbs.wait(w.deps, { name: "far", after: 7, timeout: 60_000 });
    expect(outcome).toMatchObject({ name: "box:far", reason: "stop" });
    expect(envelope(w)).toEqual({ name: "far", after: 7, timeout: "60000ms" });
  });

  test("a host that cannot be reached: HostUnreachableError (69), naming it", async () => {
    const w = world();
    const error = await verbsOf("box:far")
      .verbs.read(w.deps, { name: "far" })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(HostUnreachableError);
    expect(error).toMatchObject({ code: "unreachable", exitCode: 69, data: { host: "box" } });
  });

  test.each([
    [{ exitCode: 0, state: "busy" }, true],
    [{ exitCode: 0, state: "killed" }, false],
    [null, false],
  ])("see (a resume): status %p → alive %p, never resumed from the host's record", async (answer, alive) => {
    const w = world();
    if (answer)
      w.onSsh = () => ({
        exitCode: 0,
        stdout: `${JSON.stringify({ name: "far", provider: "claude", state: answer.state, cwd: "/srv", createdAt: "2026-01-01T00:00:00Z", sessionId: "s", model: null, pid: null, exit: null, reason: null, prompt: null, events: 3, guard: null })}\n`,
      });
    const seen = await verbsOf("box:far").verbs.see(w.deps, "far", "box:far");
    expect(seen).toMatchObject({ name: "box:far", alive, providerSession: null, tookPrompt: false });
  });
});
