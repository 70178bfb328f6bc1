import { describe, expect, test } from "bun:test";
import { StateError, StateRootError } from "../../../src/core/errors.ts";
import { assessStateRoot, type StateRootObservation } from "../../../src/core/worker/state-root.ts";

/** The state root must be a directory of the caller's, 0700: created, tightened, or refused with what to do. */
describe("assessStateRoot", () => {
  const root = "/home/u/.umbel";
  test.each([
    [{ kind: "missing" }, 1000, { action: "create" }],
    [{ kind: "directory", uid: 1000, mode: 0o700 }, 1000, { action: "use" }],
    [{ kind: "directory", uid: 1000, mode: 0o755 }, 1000, { action: "tighten", mode: 0o700 }],
    [{ kind: "directory", uid: 1000, mode: 0o1777 }, 1000, { action: "tighten", mode: 0o700 }],
    [{ kind: "directory", uid: 1000, mode: 0o2770 }, 1000, { action: "tighten", mode: 0o700 }],
    // Where the platform has no uids, ownership cannot be checked.
    [{ kind: "directory", uid: 0, mode: 0o700 }, null, { action: "use" }],
  ] as [StateRootObservation, number | null, unknown][])("%p as uid %p: %p", (seen, uid, verdict) => {
    expect(assessStateRoot(root, seen, uid)).toEqual(verdict as never);
  });

  test.each([
    [{ kind: "not-a-directory" }, "not-a-directory", "is not a directory", "set UMBEL_HOME"],
    [
      { kind: "dangling-link", target: "/gone/state" },
      "dangling-link",
      "symbolic link to /gone/state, which does not exist",
      "create that folder",
    ],
    [
      { kind: "directory", uid: 0, mode: 0o700 },
      "foreign-owner",
      "belongs to uid 0, not to you (uid 1000)",
      "a folder of your own",
    ],
    // The check only takes bits away: a root its owner made unreadable or read-only is not "fixed".
    [
      { kind: "directory", uid: 1000, mode: 0o555 },
      "owner-mode",
      "is mode 0555, so umbel cannot read and write it",
      "chmod 700 /home/u/.umbel",
    ],
    [{ kind: "directory", uid: 1000, mode: 0o000 }, "owner-mode", "is mode 0000", "chmod 700"],
    [{ kind: "directory", uid: 1000, mode: 0o300 }, "owner-mode", "is mode 0300", "chmod 700"],
  ] as [StateRootObservation, string, string, string][])("%p is refused: %s", (seen, problem, what, todo) => {
    const verdict = assessStateRoot(root, seen, 1000);
    if (verdict.action !== "refuse") throw new Error(`expected refuse, got ${verdict.action}`);
    const error = verdict.error;
    expect(error).toBeInstanceOf(StateRootError);
    expect(error).toBeInstanceOf(StateError);
    expect(error.code).toBe("state-root");
    expect(error.exitCode).toBe(1);
    expect(error.message).toContain(root);
    expect(error.message).toContain(what);
    expect(error.message).toContain(todo);
    expect(error.data).toMatchObject({ path: root, problem });
  });

  test("root's own root is refused for another user too (uid 0 is not special)", () => {
    const verdict = assessStateRoot(root, { kind: "directory", uid: 1000, mode: 0o700 }, 0);
    expect(verdict.action).toBe("refuse");
  });
});
