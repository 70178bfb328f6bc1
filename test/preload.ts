import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

// Tests never touch the real ~/.umbel or ~/.claude: HOME and UMBEL_HOME point at a throwaway dir,
// removed when the run ends. Each test that starts workers makes its own state root (and so its own
// tmux server) on top, with test/helpers/sandbox.ts.
const home = mkdtempSync(join(tmpdir(), "umbel-test-home-"));
process.env.HOME = home;
process.env.UMBEL_HOME = join(home, ".umbel");
delete process.env.UMBEL_TMUX_SOCKET;
delete process.env.TMUX;
process.on("exit", () => rmSync(home, { recursive: true, force: true }));

// No setDefaultTimeout here: bun 1.4.5 applies a preload's default to the first test file of a run
// only (oven-sh/bun#43787), so a slow file that leaned on it passed alone and timed out in a batch.
// Each slow file declares its own timeout instead.
