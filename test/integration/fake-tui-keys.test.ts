import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { join } from "node:path";

setDefaultTimeout(20_000);

/**
 * The fake TUIs' key reader (test/fixtures/fake-tui-lib.sh) on bytes that come apart: on a loaded
 * machine the tty's bytes reach a fake through its `cat` in pieces, and a CSI sequence whose final
 * byte came >50 ms after its `[` was read as an unknown key plus a typed letter (CI, stop 35: opencode's
 * Right before Enter was lost, and Enter confirmed the option the highlight had left).
 */
const LIB = join(import.meta.dir, "..", "fixtures", "fake-tui-lib.sh");

/** What the lib's reader makes of the bytes (`parts`, written with `gapMs` between them). */
async function readKey(parts: string[], gapMs: number): Promise<string> {
  const script = `
set -u
pushback=''
. "${LIB}"
getc() {
  if [[ -n $pushback ]]; then gc=\${pushback:0:1}; pushback=\${pushback:1}; return 0; fi
  IFS= read -r -u 3 -N1 -t "$1" gc
}
exec 3<&0
getc 5
seq=''
if [[ $gc == $'\\e' ]] && getseq && [[ $gc == '[' ]]; then
  while getcsi; do seq+=$gc; [[ $gc == [@-~] ]] && break; done
fi
printf 'seq=%s' "$seq"
`;
  const child = Bun.spawn(["bash", "-c", script], { stdin: "pipe", stdout: "pipe" });
  for (const [i, part] of parts.entries()) {
    if (i > 0) await Bun.sleep(gapMs);
    child.stdin.write(part);
    await child.stdin.flush();
  }
  await child.stdin.end();
  return (await new Response(child.stdout).text()).trim();
}

describe("the fake TUIs' key reader", () => {
  test("a CSI sequence whose final byte comes late is still one key (Right)", async () => {
    expect(await readKey(["\x1b[", "C"], 300)).toBe("seq=C");
  });
  test("a longer one too (Shift+Home)", async () => {
    expect(await readKey(["\x1b[1;", "2H"], 300)).toBe("seq=1;2H");
  });
  test("a whole one at once", async () => {
    expect(await readKey(["\x1b[B"], 0)).toBe("seq=B");
  });
});
