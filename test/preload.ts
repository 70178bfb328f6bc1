import { setDefaultTimeout } from "bun:test";
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

// Workers take real seconds on real tmux; a turn-level test needs more than bun's 5 s default.
setDefaultTimeout(60_000);
