/**
 * One ACP prompt through `umbel acp` against the same turn driven by the verbs: an editor's
 * session/prompt → stopReason over an open connection (the face already running, its worker
 * spawned), beside `umbel send W PROMPT && umbel wait W` on a worker of its own (two short
 * processes a turn), both on the fake claude with the same reply. Medians over the rounds and their
 * ratio, measured in this run; nothing is asserted.
 *
 *   npm run build && bun run bench/acp.ts [rounds=15]
 */
import { startAcp } from "../test/helpers/acp-client.ts";
import { createSandbox } from "../test/helpers/sandbox.ts";
import { report } from "./lib/report.ts";
import { machine, median, ms } from "./lib/stats.ts";

const rounds = Number(process.argv[2] ?? 15);
const sb = await createSandbox();
const face = startAcp(sb);
try {
  await face.initialize();
  const { sessionId } = await face.newSession(sb.work);
  const spawned = await sb.umbel(["spawn", "w1"]);
  if (spawned.code !== 0) throw new Error(`spawn failed: ${spawned.stderr}`);
  const viaAcp: number[] = [];
  const viaVerbs: number[] = [];
  for (let i = 0; i < rounds; i++) {
    const prompt = `fake:reply round ${i}`;
    let started = performance.now();
    const turn = await face.prompt(sessionId, prompt);
    if (turn.stopReason !== "end_turn") throw new Error(`acp prompt ${i}: ${JSON.stringify(turn.error)}`);
    viaAcp.push(performance.now() - started);
    started = performance.now();
    const sent = await sb.umbel(["send", "w1", prompt]);
    const waited = await sb.umbel(["wait", "w1"]);
    if (sent.code !== 0 || waited.code !== 0)
      throw new Error(`send/wait ${i}: ${sent.stderr}${waited.stderr}`);
    viaVerbs.push(performance.now() - started);
  }
  const [acp, verbs] = [median(viaAcp), median(viaVerbs)];
  console.log(await machine());
  console.log(`rounds: ${rounds} (the fake claude's turn: FAKE_CLAUDE_TURN_MS, 150 ms by default)`);
  console.log(`session/prompt → stopReason         p50 ${ms(acp)}`);
  console.log(`umbel send && umbel wait (baseline)  p50 ${ms(verbs)}`);
  console.log(`acp / verbs: ×${(acp / verbs).toFixed(2)}`);
  report({ bench: "acp", acpMs: acp, verbsMs: verbs });
} finally {
  await face.close().catch(() => face.kill());
  await sb.umbel(["kill", "w1", "--purge"]);
  await sb.dispose();
}
